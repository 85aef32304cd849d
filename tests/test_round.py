"""The round solver (solver/round/): its states, its values against OpenSpiel's own solver
of the faithful capped round, its exact certificate, and the Monte Carlo simulator."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from solver.app.cli import main
from solver.round.capped import solve_capped, state_of
from solver.round.certify import certify_round
from solver.round.evaluate import pair_values, solved, uniform_betting
from solver.round.match import match_table, match_win
from solver.round.policy import SolvedPolicy
from solver.round.simulate import simulate_rounds
from solver.round.solve import solve_round
from solver.round.states import ChipState, OpenThrowState, solve_order, start, state_graph

TINY = BidouParams(faces=2, throws=1, max_level=1)
SMALL = RoundParams(chips=4, hand=BidouParams(faces=2, throws=2, max_level=2))


@pytest.fixture(scope="module")
def small():
    solution = solve_round(SMALL)
    return solution, certify_round(solution)


def test_state_graph_and_its_components():
    graph = state_graph(9, 4)
    assert start(9) in graph and graph.number_of_nodes() == 51
    order = solve_order(graph)
    assert order[-1] == [start(9)]              # solved last: everything else first
    # a pass or a tie swaps the captain: with chips in the centre, a state and its mirror
    for component in order:
        states = [s for s in component if isinstance(s, ChipState) and s.centre > 0]
        for s in states:
            assert ChipState(s.centre, s.opponent, s.captain) in component
    # once the centre is empty chips flow both ways: one component, with its open throw
    empty = next(c for c in order if any(isinstance(s, ChipState) and s.centre == 0
                                         for s in c))
    assert OpenThrowState(0, 1, 8) in empty and len(empty) == 7
    assert {s.chips for s in graph} == {9}        # every state knows the round's chip count


def test_solve_round_reports_progress_as_what_done_total():
    calls = []
    solution = solve_round(RoundParams(chips=3, hand=TINY),
                           progress=lambda what, done, total: calls.append((what, done, total)))
    total = len(solution.values)
    assert [c[0] for c in calls] == [f"state {component[0].label()}"
                                     for component in solution.components]
    assert [c[2] for c in calls] == [total] * len(calls)
    done = [c[1] for c in calls]
    assert done == sorted(done) and done[-1] == total and calls[-1][0] == "state 3,0,0"


# OpenSpiel's sequence-form LP on the faithful capped round (tests/test_round_game.py
# records them): value to player 0 (+1 win, -1 loss), the first state's captain.
OPENSPIEL = [
    (RoundParams(chips=3, hand=TINY), 2, (1, 1, 1), -0.021835327),
    (RoundParams(chips=3, hand=TINY), 2, (2, 1, 0), -0.116699219),
    (RoundParams(chips=3, hand=TINY), 2, (1, 2, 0), -0.451171875),
    (RoundParams(chips=3, hand=TINY), 2, (3, 0, 0), 0.0),
    (RoundParams(chips=3, hand=BidouParams(faces=2, throws=2, max_level=1)), 1, (0, 1, 2),
     0.275390625),
]


@pytest.mark.parametrize("rules, cap, chips, expected", OPENSPIEL)
def test_capped_round_equals_openspiel(rules, cap, chips, expected):
    values = solve_capped(rules, cap)
    state = state_of(rules.chips, *chips)
    ours = 2 * values[state] - 1
    if isinstance(state, OpenThrowState) and chips[1] == rules.chips - 1:
        ours = -ours                          # player 0 holds chips - 1: he throws second
    assert ours == pytest.approx(expected, abs=2e-9)


@pytest.mark.slow
def test_capped_values_approach_the_round():
    rules = RoundParams(chips=3, hand=TINY)
    exact = solve_round(rules).values
    gaps = [max(abs(solve_capped(rules, cap)[s] - exact[s]) for s in exact)
            for cap in (2, 8, 32)]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-3


def test_every_state_is_proved(small):
    solution, certificate = small
    assert set(certificate.states) == set(solution.values)
    for state, proof in certificate.states.items():
        assert proof.lower <= Fraction(solution.values[state]) <= proof.upper
        assert proof.width <= Fraction(1, 10 ** 9)
        assert proof.first_exploitability < 1e-9 and proof.second_exploitability < 1e-9
        assert proof.p_end == pytest.approx(1, abs=1e-12)
    # the round is nearly fair; the first captain, who shows his throw count first, is not
    # favoured
    assert 0.45 < solution.start_value < 0.5


def test_simulated_rounds_agree_with_the_values(small):
    solution, _ = small
    policy = SolvedPolicy(solution)
    result = simulate_rounds(SMALL, [policy, policy], 3000, np.random.default_rng(7))
    assert abs(result.win_rate - solution.start_value) <= 4 * result.standard_error
    # against a player who bets at random, the predicted gain shows up
    weak = SolvedPolicy(solution, uniform_betting)
    predicted = pair_values(solution, solved, uniform_betting)[(start(SMALL.chips), 0)]
    assert predicted > solution.start_value + 0.05
    result = simulate_rounds(SMALL, [policy, weak], 3000, np.random.default_rng(8))
    assert abs(result.win_rate - predicted) <= 4 * result.standard_error


def test_the_match_is_fair_at_its_start():
    assert match_win(0, 0) == Fraction(1, 2)
    assert {(r["round"], r["wins"], r["losses"]): r["p_match"] for r in match_table()} == {
        (1, 0, 0): Fraction(1, 2), (2, 1, 0): Fraction(3, 4), (2, 0, 1): Fraction(1, 4),
        (3, 1, 1): Fraction(1, 2)}
    assert match_win(1, 0, Fraction(2, 3)) == Fraction(2, 3) + Fraction(1, 3) * Fraction(1, 2)


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_round_command_json():
    result = run("round", "--chips", "3", "--faces", "2", "--throws", "1", "--max-level",
                 "1", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["rules"]["chips"] == 3 and report["rules"]["faces"] == 2
    assert set(report) >= {"rules", "start_value", "states", "seconds"}
    first = next(s for s in report["states"] if s["centre"] == 3)
    assert first["value"] == pytest.approx(report["start_value"])
    for entry in report["states"]:
        assert set(entry) >= {"centre", "captain", "opponent", "value", "lower", "upper",
                              "exploitability", "p_end"}
        assert float(entry["lower"]) <= entry["value"] <= float(entry["upper"])
    # the convergence of each cyclic component: residuals down to the stopping point
    assert report["convergence"]
    for component in report["convergence"]:
        assert component["residuals"][-1] <= 1e-13 < component["residuals"][0]


@pytest.mark.parametrize("args, words", [
    (("--state", "5,5,5"), "add up to 15"),
    (("--state", "-1,2,2"), "whole numbers"),
    (("--state", "0,0,3"), "round is over"),
    (("--state", "1,1"), "three chip counts"),
    (("--chips", "2"), "chips must be an integer from 3"),
])
def test_round_command_bad_input(args, words):
    result = run("round", "--chips", "3", "--faces", "2", "--throws", "1", *args)
    assert result.exit_code == 2
    assert words in result.output


@pytest.mark.slow
def test_cfr_guess_is_close_and_newton_agrees_with_shapley(small):
    """The CFR guess that starts each cyclic component lands near the solved values (so the
    LPs' Newton steps start close), and the solve agrees with plain value iteration."""
    from solver.hand.model import build_model
    from solver.round.solve import _warm_guess

    solution, _ = small
    base = build_model(SMALL.hand)
    values = dict(solution.values)
    for component in solution.components:
        if len(component) < 2:
            continue
        guess = _warm_guess(SMALL, base, list(component),
                            {**values, **{s: 0.5 for s in component}})
        assert max(abs(guess[s] - values[s]) for s in component) < 1e-3
    shapley = solve_round(SMALL, newton=False)
    assert max(abs(shapley.values[s] - values[s]) for s in values) < 1e-11


def test_chip_counting_play_in_the_round(small):
    """Playing the hand game's equilibrium at every state of the round is proved to cost
    win probability from both seats, and the proof agrees with a Markov chain written
    apart (`evaluate.pair_values`): a best reply does at least as well against chip
    counting as the round's equilibrium strategy does."""
    from solver.hand.solve import solve
    from solver.round.compare import chip_counting, chip_counting_round

    solution, proof = small
    hand = solve(SMALL.hand)
    counting = chip_counting_round(solution, hand.model, hand.strategy)
    first = start(SMALL.chips)
    value = solution.values[first]
    lower, upper = counting.states[first].lower, counting.states[first].upper
    assert lower < proof.states[first].lower and upper > proof.states[first].upper
    assert value - float(lower) > 0.05 and float(upper) - value > 0.05

    counter = chip_counting(solution, hand.model, hand.strategy)
    # A = chip counter; as captain he wins no more than against the best reply...
    against_equilibrium = pair_values(solution, lambda state, _: counter[state], solved)
    assert float(lower) <= against_equilibrium[(first, 0)] + 1e-12
    # ...and as opponent he lets the captain win at most `upper`
    assert 1 - against_equilibrium[(first, 1)] <= float(upper) + 1e-12


def test_a_round_that_need_not_end_is_not_proved(small):
    """The bounds need every reply to end the round with probability 1, and that is proved,
    not assumed: against a player who always passes (and calls a bet), a deviator who
    passes too keeps swapping the captain forever, and the certificate refuses."""
    import dataclasses

    from games.bidou.betting import Action
    from solver.round.certify import RoundCertificateError, _prove_termination

    solution, _ = small
    _prove_termination(solution)                        # the equilibrium: every round ends
    stages = {}
    for state, stage in solution.stages.items():
        passive = stage.strategy.copy()
        for (tc, to, history), probs in passive.betting.items():
            actions = stage.model.tree((tc, to)).node(history).actions
            keep = Action.PASS if Action.PASS in actions else Action.CALL
            probs[...] = 0.0
            probs[actions.index(keep)] = 1.0
        stages[state] = dataclasses.replace(stage, strategy=passive)
    with pytest.raises(RoundCertificateError, match="forever"):
        certify_round(dataclasses.replace(solution, stages=stages))


@pytest.mark.slow
def test_a_variant_whose_solved_strategies_let_play_stall_is_refused():
    """In this small variant the solved strategies pass, with every hand, wherever a
    deviator can lead play at 1,2,2 (centre 1, piles 2 and 2): passing too, he swaps the
    captain forever, and a round that never ends is worth 1/2 to each, which the solve did
    not price. The certificate finds it and refuses; the command exits 1."""
    from solver.round.certify import RoundCertificateError

    rules = RoundParams(chips=5, hand=BidouParams(faces=3, reroll="keep", ranking="french"))
    with pytest.raises(RoundCertificateError, match="forever from 1,2,2"):
        certify_round(solve_round(rules))
    result = run("round", "--chips", "5", "--faces", "3", "--reroll", "keep", "--ranking",
                 "french")
    assert result.exit_code == 1 and "could not be proved" in result.output


def test_a_states_charts_name_the_chip_blind_play():
    """A state's chart said "chip-counting play concedes 3.3%" of the hand game's
    equilibrium, which sees no chip state: the line and the sentence call it chip-blind."""
    from solver.round.compare import Difference

    said = Difference(0.033, 0.021, 0.033, 0.21, 0.0)
    assert said.short() == "chip-blind play (the hand game's) concedes 3.3%, differs at 21%"
    assert said.sentence().startswith(
        "The hand game's equilibrium, played blind to the chips: it would concede up to 3.3% "
        "win probability here (captain 2.1%, opponent 3.3%)")
    assert "counting" not in said.short() + said.sentence()
