"""Montevideo's heads-up end: the rules of games/montevideo/heads_up.py (the round's tree from
the pure betting rules, where a round leads, the ante's escalation), each round's compact
model against OpenSpiel's tree of `python_montevideo`, and the solved and proved values
(solver/montevideo/): known values, the fixed point checked stage by stage by a sequence-form
LP of the faithful OpenSpiel round, and the proof's intervals."""

from __future__ import annotations

from fractions import Fraction

import pytest

import games.montevideo.game as montevideo_game
from games.bidou.betting import CAPTAIN, OPPONENT, OUTCOMES
from games.montevideo import betting
from games.montevideo.heads_up import (
    SHOW,
    After,
    HeadsUpParams,
    HeadsUpState,
    PotChips,
    after_round,
    build_round_tree,
    parse_state,
    round_result,
)
from games.montevideo.params import MontevideoParams, ParameterError
from solver.checks.openspiel_lp import solve_openspiel_game
from solver.hand.lp.sequence_form import solve_lp
from solver.hand.model import build_model
from solver.montevideo.certify import certify_heads_up
from solver.montevideo.solve import solve_heads_up
from solver.montevideo.stage import base_model
from solver.round.markov import lead_value

TREE_CASES = [((3, 3), 1), ((5, 3), 2), ((9, 9), 2), ((2, 7), 3), ((1, 5), 1), ((7, 7), 6)]


@pytest.mark.parametrize("stacks, ante", TREE_CASES)
def test_tree_pays_the_pure_rules_settlement(stacks, ante):
    """Every leaf's payoff (the settlement rule's formula) is the captain's net chips by the
    pure rules, nobody wins or loses more than he holds, and no bet beyond the ante
    exceeds what the shorter stack has behind."""
    for first in (CAPTAIN, OPPONENT):
        rt = build_round_tree(stacks, ante, first)
        for leaf, closed, paid in zip(rt.tree.leaves, rt.closed, rt.tree.payoffs):
            assert PotChips().payoff(leaf) == paid
            for o in OUTCOMES:
                net, _ = round_result(closed, o)
                assert paid[1 - o] == net
                assert -stacks[0] <= net <= stacks[1]
            assert max(closed.levels) <= max(0, min(stacks) - ante)


def test_tree_sizes_and_the_round_without_betting():
    # three chips each at ante 1: two behind each, bets 1 or 2: 8 decisions, 13 ends
    rt = build_round_tree((3, 3), 1, CAPTAIN)
    assert (len(rt.tree.nodes), len(rt.tree.leaves)) == (8, 13)
    assert rt.tree.root.actions == ("check", "bet 1", "bet 2")
    assert rt.tree.node("b1").actions == ("fold", "call", "raise to 2")
    assert rt.tree.node("k").actor == OPPONENT
    # nine each at ante 2 leaves seven behind: 2^8 decisions a first bettor
    assert len(build_round_tree((9, 9), 2, OPPONENT).tree.nodes) == 256
    # a player all in by his ante: no betting, one decision with one action, a showdown
    rt = build_round_tree((4, 14), 6, CAPTAIN)
    assert [n.actions for n in rt.tree.nodes] == [(SHOW,)]
    assert rt.tree.payoffs[0] == (4, 0, -4)


def test_where_a_round_leads():
    s = HeadsUpState(10, 8, 3)
    assert after_round(s, 2, 0) == After(HeadsUpState(12, 6, 4), same=True)
    assert after_round(s, -3, 1) == After(HeadsUpState(11, 7, 4), same=False)
    assert after_round(s, 0, 1) == After(HeadsUpState(8, 10, 4), same=False)   # a tie
    assert after_round(s, 8, 0) == After(None, end=1)
    assert after_round(s, -10, 1) == After(None, end=0)
    assert after_round(HeadsUpState(10, 8, 6), 1, 0).state == HeadsUpState(11, 7, 6)
    # a tie: nothing moves, the other player (on the captain's left, V13-V14) captains next
    tree = build_round_tree((5, 5), 2, CAPTAIN)
    closed = tree.closed[tree.tree.leaves.index(tree.tree.at("k.k"))]
    assert round_result(closed, 0) == (0, 1)
    assert round_result(closed, 1) == (2, 0)
    assert round_result(closed, -1) == (-2, 1)


def test_parameters_and_states():
    params = HeadsUpParams()
    assert (params.total, params.first_ante, params.bet_sizes) == (18, 2, "any")
    assert len(params.states()) == 17 * 5
    assert HeadsUpParams.of_game(MontevideoParams()) == params
    assert HeadsUpParams.of_game(MontevideoParams(players=2)).first_ante == 1
    assert HeadsUpParams.of_game(MontevideoParams(players=4, chips=5)).total == 20
    assert parse_state(" 10, 8,3") == HeadsUpState(10, 8, 3)
    for bad in ("10,8", "a,8,3", "10,8,7", "0,18,2", ""):
        with pytest.raises(ParameterError):
            parse_state(bad)
    with pytest.raises(ParameterError, match="holds 17 chips"):
        params.check_state(HeadsUpState(9, 8, 3))
    with pytest.raises(ParameterError, match="at least 2"):
        params.check_state(HeadsUpState(9, 9, 1))
    with pytest.raises(ParameterError):
        HeadsUpParams(total=1)
    with pytest.raises(ParameterError):
        HeadsUpParams(bet_sizes="lots")


# --- the compact round against OpenSpiel's ------------------------------------------------

ROUNDS = [(2, 1, (3, 3), 1), (3, 1, (4, 2), 1), (2, 2, (3, 4), 2), (3, 1, (5, 5), 3),
          (2, 2, (2, 6), 1), (3, 2, (3, 3), 2)]


@pytest.mark.parametrize("faces, throws, stacks, ante", ROUNDS)
def test_round_value_equals_openspiel(faces, throws, stacks, ante):
    """The compact model of one round, paying net chips, has the value of the faithful
    OpenSpiel round `python_montevideo(players=2, ...)` solved by a sequence-form LP."""
    params = HeadsUpParams(total=sum(stacks), faces=faces, throws=throws, first_ante=1)
    state = HeadsUpState(*stacks, ante)
    ours = solve_lp(build_model(params.round(state))).value
    game = montevideo_game.MontevideoGame(dict(
        players=2, stacks=f"{stacks[0]}/{stacks[1]}", faces=faces, throws=throws, ante=ante))
    assert ours == pytest.approx(solve_openspiel_game(game).value, abs=1e-9)


class _StageState(montevideo_game.MontevideoState):
    """A round of `python_montevideo` whose end pays the captain the value of where it
    leads (and the other player minus it), by the pure rules of games/montevideo/betting.py."""

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        game = self.get_game()
        compare = self._t.compare(self.hands)
        closed = self.betting
        nxt = after_round(game.state, betting.settle(closed, compare)[0],
                          betting.next_captain(closed, compare))
        v = lead_value(nxt, game.values)
        return [v, -v]


class _StageGame(montevideo_game.MontevideoGame):
    def __init__(self, state: HeadsUpState, params: HeadsUpParams, values: dict) -> None:
        super().__init__(dict(players=2, stacks=f"{state.captain}/{state.opponent}",
                              faces=params.faces, throws=params.throws, ante=state.ante))
        self.state, self.values = state, values

    def new_initial_state(self) -> _StageState:
        return _StageState(self)


@pytest.fixture(scope="module")
def small():
    params = HeadsUpParams(total=7, faces=3, throws=1, first_ante=1)
    solution = solve_heads_up(params, workers=1)
    return params, solution, certify_heads_up(solution)


def test_small_heads_up_is_proved(small):
    params, solution, certificate = small
    assert set(certificate.states) == set(params.states()) == set(solution.values)
    assert certificate.max_width < 1e-9
    for s, proof in certificate.states.items():
        assert proof.lower <= Fraction(solution.values[s]) + Fraction(1, 10**12)
        assert proof.upper >= Fraction(solution.values[s]) - Fraction(1, 10**12)
        assert 0 < proof.lower <= proof.upper < 1
    assert solution.residuals[-1] < 1e-13
    assert certificate.longest >= 1


def test_every_stage_agrees_with_openspiel(small):
    """V = val(stage(V)) checked with another encoding and another LP: each state's round in
    `python_montevideo`, its ends paying the proved values of where they lead, has the
    state's value to 1e-9."""
    params, solution, certificate = small
    mid = {s: float((p.lower + p.upper) / 2) for s, p in certificate.states.items()}
    for s in params.states():
        if s.ante in (1, 3, 6):
            game = _StageGame(s, params, mid)
            assert solve_openspiel_game(game).value == pytest.approx(mid[s], abs=1e-9), s


def test_all_in_every_round_is_a_fair_walk():
    """Ante six and six chips: everybody is all in by the ante and nobody decides anything
    with one throw: a fair walk whose chance of ending with every chip is the share held."""
    params = HeadsUpParams(total=6, faces=3, throws=1, first_ante=6)
    certificate = certify_heads_up(solve_heads_up(params, workers=1))
    for s, proof in certificate.states.items():
        assert proof.lower <= Fraction(s.captain, 6) <= proof.upper
        assert proof.width < Fraction(1, 10**12)


def test_stage_tree_of_base_model_pays_net_chips():
    params = HeadsUpParams(total=8, faces=2, throws=1, first_ante=1)
    model = base_model(params, HeadsUpState(5, 3, 1))
    tree = model.trees[CAPTAIN]
    assert tree.payoffs[tree.leaves.index(tree.at("b2.c"))] == (3, 0, -3)
