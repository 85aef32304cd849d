"""A game description and its parts: today's game through it, and a second betting
structure through the model, the LP, CFR and the exact best response unchanged."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import scipy.optimize

from games.bidou import rules
from games.bidou.betting import (
    CAPTAIN,
    OPPONENT,
    SHOWDOWN,
    Action,
    BettingTree,
    Edge,
    Leaf,
    Node,
    PayoffRule,
    Pot,
    Role,
    Supply,
)
from games.bidou.params import BidouParams, ParameterError
from games.family import (
    DicePhase,
    HandDescription,
    OneChipLadder,
    PenaltyChips,
    Ranking,
    describe,
)
from solver.hand import best_response
from solver.hand.cfr import iterations as cfr
from solver.hand.exact.certificate import certify
from solver.hand.lp import sequence_form as lp
from solver.hand.model import build_model

ARRAYS = ("prior", "strength", "compare", "throw_legal", "transition", "outcome")
PLAIN = ("hands", "prior_exact", "exceptions", "throw_actions", "public_states", "trees")


@dataclasses.dataclass(frozen=True)
class ShowdownOnly:
    """A betting structure without bets: both players check and the hands are compared for
    an ante of one chip each (built by hand, not by the ladder's `build_tree`)."""

    name: str = "showdown only"

    def first_bettor(self, captain_throws: int, opponent_throws: int) -> Role:
        return CAPTAIN

    def trees(self, payoff: PayoffRule, supply: Supply | None = None
              ) -> dict[Role, BettingTree]:
        leaf = Leaf(0, "pp", SHOWDOWN, 1, None, Pot((0, 0), (1, 1)))
        nodes = (Node(0, "", CAPTAIN, 0, (Edge(Action.PASS, node=1),)),
                 Node(1, "p", OPPONENT, 0, (Edge(Action.PASS, leaf=0),)))
        return {CAPTAIN: BettingTree(CAPTAIN, nodes, (leaf,), (payoff(leaf),))}

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name}


def showdown_game(faces: int, throws: int) -> HandDescription:
    return HandDescription(DicePhase(faces=faces, throws=throws), Ranking(),
                           ShowdownOnly(), PenaltyChips())


@pytest.mark.parametrize("params", [
    BidouParams(),
    BidouParams(reroll="keep", ranking="french", aces_beat_bidou=False),
    BidouParams(faces=3, throws=2, max_level=2),
])
def test_description_gives_todays_model(params):
    description = describe(params)
    assert description.params() == params
    assert description.betting == OneChipLadder(params.max_level)
    a, b = build_model(params), build_model(description)
    for name in ARRAYS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    for name in PLAIN:
        assert getattr(a, name) == getattr(b, name), name
    assert b.params == params and b.throws == params.throws and b.faces == params.faces


def test_parts_state_their_rules():
    dice = DicePhase(faces=3, throws=2, reroll="keep")
    assert dice.public_states() == ((1, 1), (1, 2), (2, 1), (2, 2))
    assert dice.throw_actions()[:5] == [rules.STOP, (), (3,), (2,), (1,)]     # highest kept first
    assert Ranking("french").compare((1, 1, 1), (2, 1, 1)) == 1
    assert Ranking("french", aces_beat_bidou=False).compare((1, 1, 1), (2, 1, 1)) == -1
    ladder = OneChipLadder(2)
    assert ladder.first_bettor(3, 2) == OPPONENT and ladder.first_bettor(2, 2) == CAPTAIN
    tree = describe(BidouParams(max_level=2)).trees()[CAPTAIN]
    assert tree.payoff(tree.at("brc"), 1) == Fraction(4)        # a call at level 2
    assert tree.payoff(tree.at("bf"), 1) == Fraction(1)         # the opponent folds
    with pytest.raises(ParameterError, match="faces"):
        DicePhase(faces=7)
    with pytest.raises(ParameterError, match="ranking"):
        Ranking("poker")


def test_other_games_are_not_bidou_params():
    with pytest.raises(ParameterError, match="not a two-hand Bidou"):
        showdown_game(2, 2).params()
    with pytest.raises(ValueError, match="two players"):
        build_model(dataclasses.replace(showdown_game(2, 2), players=3))


def matrix_game_value(faces: int) -> float:
    """The showdown-only game with two throws, by an independent route: every pure strategy
    (the captain rerolls a set of hands; the opponent, for each captain's count, a set of
    hands), the exact payoff matrix, and the value of that matrix game by scipy's LP."""
    hands = rules.all_hands(faces)
    prior = [rules.hand_probability(h, faces) for h in hands]

    def final(reroll: tuple[bool, ...]) -> dict[int, list[Fraction]]:
        """P(throw count, final hand) when the hands in `reroll` are thrown again."""
        out = {1: [Fraction(0)] * len(hands), 2: [Fraction(0)] * len(hands)}
        for i, p in enumerate(prior):
            if reroll[i]:
                out[2] = [a + p * q for a, q in zip(out[2], prior)]
            else:
                out[1][i] += p
        return out

    subsets = list(itertools.product((False, True), repeat=len(hands)))
    captain = [final(s) for s in subsets]
    opponent = [final(s) for s in subsets]
    rows = []
    for cap in captain:
        row = []
        for by_count in itertools.product(range(len(subsets)), repeat=2):
            value = Fraction(0)
            for tc in (1, 2):
                opp = opponent[by_count[tc - 1]]
                for to in (1, 2):
                    for i, pi in enumerate(cap[tc]):
                        for j, pj in enumerate(opp[to]):
                            value += 2 * pi * pj * rules.compare(hands[i], hands[j])
            row.append(float(value))
        rows.append(row)
    payoff = np.array(rows)
    m, k = payoff.shape
    # max v subject to x^T payoff >= v for every column, x a distribution
    result = scipy.optimize.linprog(
        c=np.r_[np.zeros(m), -1.0], A_ub=np.c_[-payoff.T, np.ones(k)], b_ub=np.zeros(k),
        A_eq=np.r_[np.ones(m), 0.0][None], b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)], method="highs")
    assert result.status == 0
    return float(-result.fun)


@pytest.mark.slow
def test_second_betting_structure_through_the_solvers():
    model = build_model(showdown_game(faces=2, throws=2))
    assert set(model.trees) == {CAPTAIN}
    solution = lp.solve_lp(model)
    expected = matrix_game_value(faces=2)
    assert abs(expected) > 1e-3                                 # the captain is worse off
    assert solution.value == pytest.approx(expected, abs=1e-9)
    e = best_response.exploitability(model, solution.strategy)
    assert e.value == pytest.approx(expected, abs=1e-9)
    assert 0 <= e.nash_conv <= 1e-9
    proof = certify(model, solution.strategy)
    assert float(proof.lower) <= expected + 1e-9 and expected - 1e-9 <= float(proof.upper)
    assert float(proof.upper - proof.lower) <= 1e-9


def test_second_betting_structure_through_cfr():
    model = build_model(showdown_game(faces=3, throws=2))
    value = lp.solve_lp(model).value
    solution = cfr.solve_cfr(model, "cfr+", target_exploitability=1e-6)
    assert solution.converged and solution.exploitability.exploitability <= 1e-6
    assert solution.value == pytest.approx(value, abs=1e-5)
