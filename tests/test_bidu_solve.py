"""The two-player vuelta of Bidú on the compact model (solver/bidu/solve.py): its proved
value equals the faithful game's, found apart by the exact LP over OpenSpiel's tree of
`python_bidu` (solver/bidu/vuelta.py), on eight small variants; OpenSpiel's own best
responses find the compact equilibrium unexploitable in the faithful game; the exact proof
holds the known quadratic root; and `bidou solve --game bidu` prints it, or refuses bad
rules in one line with exit 2."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pyspiel
import pytest
from click.testing import CliRunner

import games.bidu.game  # noqa: F401  (registers python_bidu)
from games.bidou import rules
from games.bidu.params import BiduParams
from solver.app.cli import main
from solver.bidu.model import build_model
from solver.bidu.proof import Q, best_line, exact_behaviour, guaranteed
from solver.bidu.sequence_form import StageLP, behaviour
from solver.bidu.solve import solve_bidu
from solver.bidu.vuelta import solve_vuelta, stage_game

F = Fraction

# (faces, throws, stack): every one the exact LP over the faithful tree solves in seconds
VARIANTS = [(2, 1, 1), (3, 1, 1), (2, 2, 1), (2, 1, 2), (3, 1, 2), (2, 1, 3), (2, 2, 2),
            (3, 1, 3)]
HEAVY = {(2, 2, 2), (3, 1, 3), (3, 1, 2)}


def params_of(variant: tuple[int, int, int]) -> BiduParams:
    faces, throws, stack = variant
    return BiduParams(faces=faces, throws=throws, stack=stack)


@pytest.mark.parametrize("variant", [
    pytest.param(v, marks=pytest.mark.slow) if v in HEAVY else v for v in VARIANTS],
    ids=str)
def test_the_compact_value_is_the_faithful_game_s(variant):
    """Two proofs from two routes: the compact model's (width ~1e-16) and the exact LP's
    over OpenSpiel's whole tree of python_bidu (width 1e-10). They overlap, so the two
    values agree to 1e-9 and better."""
    params = params_of(variant)
    compact = solve_bidu(params)
    faithful = solve_vuelta(params, width=F(1, 10**10))
    assert compact.width < F(1, 10**12)
    assert faithful.upper - faithful.lower <= F(1, 10**10) * F(51, 50)
    assert compact.lower <= faithful.upper and faithful.lower <= compact.upper
    assert abs(compact.estimate - float(faithful.estimate)) < 1e-9
    assert compact.lower <= compact.played <= compact.upper


def test_the_smallest_variant_s_proof_holds_the_quadratic_root():
    """faces 2, throws 1, stack 1: V = (17 - sqrt 385)/32, the root of 32x^2 - 34x - 3
    (tests/test_bidu_vuelta.py): the polynomial changes sign across the proved interval."""
    solution = solve_bidu(params_of((2, 1, 1)))
    poly = lambda x: 32 * x * x - 34 * x - 3  # noqa: E731
    assert poly(solution.lower) > 0 > poly(solution.upper)
    assert float(solution.lower) == pytest.approx((17 - math.sqrt(385)) / 32, abs=1e-15)
    assert solution.exact is None
    assert solution.captain_exploitability < 1e-12
    assert solution.other_exploitability < 1e-12


def _spiel_policy(game, model, strategies):
    """The compact strategies as OpenSpiel's tabular policy on the faithful game."""
    from open_spiel.python import policy as policy_lib

    table = policy_lib.TabularPolicy(game)
    hand_index = {h: i for i, h in enumerate(model.hands)}

    def visit(state):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for action, _ in state.chance_outcomes():
                visit(state.child(action))
            return
        seat = state.current_player()
        mine = strategies[seat]
        hand = hand_index[rules.normalize_hand(state.hands[seat])]
        probs = table.policy_for_key(state.information_state_string(seat))
        probs[:] = 0.0
        if state.betting is None:                            # stand (0) or throw again (1)
            other = state.stands[1 - seat]
            pub = other if other is not None and other < state.throw else None
            stand = mine.stand[(state.throw, pub)][hand] / Q
            probs[0], probs[1] = stand, 1.0 - stand
        else:
            stands = tuple(state.stands)
            tree = model.tree(stands)
            node = 0
            for name in state.bets:
                node = tree.children[node][tree.labels[node].index(name)]
            ids = game.tables.action_ids
            for k, name in enumerate(tree.labels[node]):
                probs[ids[name]] = mine.bets[stands][node][k, hand] / Q
        for action in state.legal_actions():
            visit(state.child(action))

    visit(game.new_initial_state())
    return table


@pytest.mark.parametrize("variant", [(2, 1, 2), (2, 2, 1), (3, 1, 1)], ids=str)
def test_openspiel_finds_the_compact_equilibrium_unexploitable(variant):
    """At the value's worth, the stage game's equilibrium from the compact LP, played in
    OpenSpiel's faithful python_bidu, is a Nash equilibrium by OpenSpiel's own best
    responses (NashConv below 1e-9), and its value there is the proved value."""
    from open_spiel.python.algorithms import expected_game_score, exploitability

    params = params_of(variant)
    solution = solve_bidu(params)
    worth = F(solution.estimate)
    model = build_model(params)
    stage = StageLP(model).solve(worth)
    strategies = [exact_behaviour(behaviour(model, plan)) for plan in stage.plans]
    game = stage_game(params, worth)
    table = _spiel_policy(game, model, strategies)
    assert exploitability.nash_conv(game, table) < 1e-9
    values = expected_game_score.policy_value(game.new_initial_state(), [table, table])
    assert values[0] == pytest.approx(float(worth), abs=1e-9)
    assert values[0] + values[1] == pytest.approx(0.0, abs=1e-12)


def test_a_weak_strategy_s_guarantee_is_below_the_value_and_exact():
    """Never bet, always stand: the captain's guarantee is a Fraction well below V, and
    the best reply's line has the slope of a replay chance in [0, 1)."""
    params = params_of((2, 1, 2))
    model = build_model(params)
    solution = solve_bidu(params)
    lazy = exact_behaviour(behaviour(model, StageLP(model).solve(F(0)).plans[0]))
    for nodes in lazy.bets.values():
        for probs in nodes.values():
            probs[:] = 0
            probs[-1] = Q                                     # the biggest bet or raise
    worth = guaranteed(model, lazy, F(0))
    assert isinstance(worth, Fraction)
    assert worth < solution.lower
    line = best_line(model, lazy, worth)
    assert 0 <= line.p < line.d
    assert line.at(worth) == worth


def test_zero_sum_and_the_other_seat_s_proof_mirror():
    """The other player's strategy concedes at least what the captain's guarantees."""
    solution = solve_bidu(params_of((3, 1, 2)))
    assert solution.lower <= solution.upper
    assert solution.lower < 0                          # the captain speaks first on a tie
    assert 0 < solution.replay_probability < 0.5


def test_the_model_s_trees_and_chances():
    model = build_model(BiduParams())
    assert model.num_hands == 56
    assert sum(model.chances) == 1
    assert model.hands[-1] == (2, 1, 1)                # weakest first: the bidú on top (B2)
    assert model.hands[0] == (3, 1, 1)
    assert len(model.trees[0].terminals()) == 125      # stack 5: pass, bets, raises to 5
    assert model.trees[0].first == 0 and model.trees[1].first == 1
    assert len(model.stand_pairs()) == 9


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_the_command_prints_the_proved_value():
    result = run("solve", "--game", "bidu", "--faces", "2", "--throws", "1", "--stack", "1")
    assert result.exit_code == 0, result.output
    assert "-0.081919277198" in result.output
    assert "<= value <=" in result.output
    assert "replays included" in result.output


def test_the_command_s_json_and_strategy_file(tmp_path):
    out = tmp_path / "bidu.json"
    result = run("solve", "--game", "bidu", "--faces", "2", "--throws", "2", "--stack", "2",
                 "--json", "--out", str(out))
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["rules"]["game"] == "bidu" and summary["rules"]["stack"] == 2
    lower = F(summary["certified_value"]["lower"])
    upper = F(summary["certified_value"]["upper"])
    assert lower <= F(summary["value"]) <= upper
    saved = json.loads(out.read_text())
    assert saved["schema"] == "bidou-bidu-solution"
    for seat in saved["strategies"]:
        for decision in seat["betting"]:
            for probs in decision["play"].values():
                assert sum(probs) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("args, message", [
    (("--players", "5"), "--players must be an integer from 2 to 4, got 5"),
    (("--stack", "0"), "--stack must be an integer from 1 to 10, got 0"),
    (("--players", "3"), "two players only"),
    (("--max-level", "2"), "--max-level applies to two-hand Bidou or Le Bidou"),
    (("--ranking", "french"), "--ranking must be one of encyclopedia"),
    (("--method", "cfr"), "solved by the LP only"),
    (("--exact",), "--exact does not apply"),
])
def test_bad_rules_exit_2_with_one_line(args, message):
    result = run("solve", "--game", "bidu", *args)
    assert result.exit_code == 2
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_bidu_s_options_are_refused_with_another_game():
    result = run("solve", "--stack", "3")
    assert result.exit_code == 2
    assert "--stack applies to --game bidu, not to --game bidou" in result.output


def test_the_faithful_game_and_the_model_agree_on_the_hands():
    game = pyspiel.load_game("python_bidu(faces=3,throws=1,stack=1)")
    model = build_model(params_of((3, 1, 1)))
    assert set(model.hands) == set(game.tables.hands)


def test_a_solution_file_reads_back_and_is_proved_again(tmp_path):
    from solver.bidu.solution_file import document, read_solution

    params = params_of((3, 2, 2))
    solution = solve_bidu(params)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(document(solution)))
    again = read_solution(path, params)
    assert (again.lower, again.upper, again.played) == (solution.lower, solution.upper,
                                                        solution.played)
    assert again.replay_probability == solution.replay_probability


def _edited(tmp_path, params, change):
    from solver.bidu.solution_file import document

    doc = json.loads(json.dumps(document(solve_bidu(params))))
    change(doc)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    return path


def _bet_everything(doc):
    for entry in doc["strategies"][0]["betting"]:
        for hand in entry["play"]:
            entry["play"][hand] = [0.0] * (len(entry["actions"]) - 1) + [1.0]


def _not_binary(doc):
    entry = doc["strategies"][1]["betting"][0]
    entry["play"]["2-1-1"] = [0.1, 0.9] + [0.0] * (len(entry["actions"]) - 2)


@pytest.mark.parametrize("change, message", [
    (_bet_everything, "do not prove the interval it states"),
    (lambda doc: doc.update(replay_probability=0.5), "numbers are not those"),
    (lambda doc: doc["strategies"][1]["betting"][0]["play"].update(
        {"2-1-1": [0.3, 0.3]}), "corrupt"),
    (_not_binary, "multiple of 2\\^-53"),
    (lambda doc: doc.update(schema_version=7), "not a bidou-bidu-solution version 1"),
    (lambda doc: doc["strategies"][0]["stand"][0]["stand"].update({"2-1-1": 1.5}),
     "/strategies/0/stand/0/stand/2-1-1: must be a probability"),
    (lambda doc: doc["rules"].update(stack=3), "other rules"),
])
def test_an_edited_solution_file_is_refused(tmp_path, change, message):
    from solver.bidu.solution_file import read_solution
    from solver.hand.strategy import StrategyFileError

    params = params_of((2, 2, 2))
    with pytest.raises(StrategyFileError, match=message):
        read_solution(_edited(tmp_path, params, change), params)


def test_the_published_default_is_proved_again_by_the_command():
    """The default rules are answered from outputs/bidu/bidu-solution.json: its strategies
    prove the interval again, width below 1e-9, and the value is the one
    docs/bidu.md quotes."""
    result = run("solve", "--game", "bidu", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["source"].startswith("published strategies")
    lower = F(summary["certified_value"]["lower"])
    upper = F(summary["certified_value"]["upper"])
    assert 0 < upper - lower < F(1, 10**9)
    assert lower <= F(summary["value"]) <= upper
    assert float(lower) == pytest.approx(-0.0432797378015, abs=1e-12)
    assert summary["captain_exploitability"] < 1e-12
    assert summary["opponent_exploitability"] < 1e-12


def test_the_captain_first_variant_from_the_command_line():
    together = run("solve", "--game", "bidu", "--faces", "3", "--throws", "2", "--stack", "2",
                   "--json")
    first = run("solve", "--game", "bidu", "--faces", "3", "--throws", "2", "--stack", "2",
                "--throwing", "captain-first", "--json")
    assert together.exit_code == 0 and first.exit_code == 0, first.output
    a, b = json.loads(together.output), json.loads(first.output)
    assert b["rules"]["throwing"] == "captain-first"
    # the other player knowing the captain's stand throw costs the captain
    assert F(b["certified_value"]["upper"]) < F(a["certified_value"]["lower"])
    refused = run("solve", "--throwing", "captain-first")
    assert refused.exit_code == 2
    assert "--throwing applies to --game bidu" in refused.output


@pytest.mark.parametrize("variant, worth", [((2, 1, 1), F(-1, 12)), ((2, 1, 2), F(1, 7))],
                         ids=str)
def test_gambit_s_rational_value_of_the_stage_game(variant, worth):
    """On the tiniest variants, at a rational worth of the replay, Gambit's rational LP on
    the faithful python_bidu gives the stage game's exact value; the compact LP's two
    strategies, in exact arithmetic, guarantee an interval around it 1e-12 wide."""
    from solver.checks.gambit_bridge import gambit_value

    params = params_of(variant)
    model = build_model(params)
    stage = StageLP(model).solve(worth)
    captain, other = (exact_behaviour(behaviour(model, plan)) for plan in stage.plans)
    lower = best_line(model, captain, worth).at(worth)
    upper = best_line(model, other, worth).at(worth)
    exact = gambit_value(stage_game(params, worth))
    assert lower <= exact <= upper
    assert upper - lower < F(1, 10**12)


def test_the_results_section_s_numbers_on_a_small_variant(tmp_path):
    """The results section's part computed for a small variant's published solution: the
    value by stack ends with the published one, the captain-first variant and the folk
    advice are proved, the betting's chances add up to one, and the section renders."""
    from solver.bidu.solution_file import document
    from solver.export.bidu_section import render
    from solver.pipeline.bidu_results import bidu_part

    params = params_of((3, 2, 2))
    path = tmp_path / "solution.json"
    path.write_text(json.dumps(document(solve_bidu(params))))
    part = bidu_part(path, params)
    assert [row["stack"] for row in part["by_stack"]] == [1, 2]
    assert part["by_stack"][-1] == {"stack": 2, **part["default"]}
    assert float(part["captain_first"]["upper"]) < float(part["default"]["lower"])
    assert sum(part["betting"]["ends"].values()) == pytest.approx(1.0, abs=1e-12)
    assert part["betting"]["ends"]["replay"] == pytest.approx(part["default"]["replay"],
                                                              abs=1e-12)
    assert float(part["folk"]["cost_lower"]) >= 0
    text = "\n".join(render(part, 8))
    assert "## 8. Bidú" in text and part["default"]["lower"] in text


def test_solving_again_writes_the_same_file():
    from solver.bidu.solution_file import solution_text

    params = params_of((3, 2, 2))
    first, second = solution_text(solve_bidu(params)), solution_text(solve_bidu(params))
    assert first == second
    assert len(first.splitlines()) < 200          # one line a decision
