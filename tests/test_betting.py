"""The betting rules in one place (games/bidou/betting.py): legality with and without a
supply limit, where chips go, and the tree's traversal API."""

from __future__ import annotations

from fractions import Fraction

import pytest

from games.bidou.betting import (
    CAPTAIN,
    FOLD,
    OPPONENT,
    PASS,
    SHOWDOWN,
    Action,
    Pot,
    Supply,
    build_tree,
    first_bettor,
    hand_payoff,
    legal_actions,
    settle,
)


def test_first_bettor():
    assert first_bettor(1, 1) == CAPTAIN and first_bettor(2, 3) == CAPTAIN
    assert first_bettor(3, 2) == OPPONENT


def test_legal_actions_without_supply():
    assert legal_actions(0, 4, CAPTAIN) == (Action.PASS, Action.BET)
    assert legal_actions(3, 4, OPPONENT) == (Action.FOLD, Action.CALL, Action.RAISE)
    assert legal_actions(4, 4, OPPONENT) == (Action.FOLD, Action.CALL)


def test_the_rules_example_of_supply():
    """RULES: with 2 chips in the centre and none in the captain's pile, after the captain
    bets the opponent may call but not raise."""
    tree = build_tree(CAPTAIN, 4, Supply(centre=2, piles=(0, 5)))
    assert tree.node("b").actions == (Action.FOLD, Action.CALL)
    assert tree.node("").actions == (Action.PASS, Action.BET)


def test_every_call_is_covered():
    # one chip in the centre and empty piles: a bet would take it and leave nothing for
    # the call, so nobody may bet
    tree = build_tree(CAPTAIN, 4, Supply(centre=1, piles=(0, 0)))
    assert tree.node("").actions == (Action.PASS,)
    assert tree.node("p").actions == (Action.PASS,)
    # two chips: a bet and its call, no more
    tree = build_tree(CAPTAIN, 4, Supply(centre=2, piles=(0, 0)))
    assert tree.node("b").actions == (Action.FOLD, Action.CALL)
    leaf = tree.after(["bet", "call"])
    assert leaf.pot.total == 2 and leaf.pot.from_centre == (1, 1)


def test_bets_come_from_the_centre_then_the_pile():
    tree = build_tree(OPPONENT, 4, Supply(centre=1, piles=(3, 3)))
    leaf = tree.after(["bet", "raise", "call"])      # opponent bets, captain raises, call
    assert leaf.kind == SHOWDOWN and leaf.level == 2
    assert leaf.pot.from_centre == (0, 1)             # the bet took the centre's last chip
    assert leaf.pot.from_pile == (2, 1)


def test_showdown_loser_takes_every_chip():
    supply = Supply(centre=1, piles=(3, 3))
    pot = Pot(from_centre=(0, 1), from_pile=(2, 1))
    after = settle(supply, pot, SHOWDOWN, outcome=1)      # the captain wins
    assert after.centre == 0 and after.piles == (1, 6) and after.next_captain == CAPTAIN
    tie = settle(supply, pot, SHOWDOWN, outcome=0)        # everything goes back
    assert tie.centre == 1 and tie.piles == (3, 3) and tie.next_captain == OPPONENT


def test_fold_penalty_from_the_centre_or_the_other_pile():
    pot = Pot(from_centre=(1, 0), from_pile=(0, 0))
    with_centre = settle(Supply(2, (3, 4)), pot, FOLD, folder=OPPONENT)
    assert with_centre.centre == 1 and with_centre.piles == (3, 5)
    assert with_centre.next_captain == CAPTAIN
    empty = settle(Supply(0, (3, 6)), Pot(from_pile=(1, 0)), FOLD, folder=CAPTAIN)
    assert empty.centre == 0 and empty.piles == (4, 5) and empty.next_captain == OPPONENT


def test_both_pass_moves_nothing_and_swaps_the_captain():
    after = settle(Supply(4, (2, 3)), Pot(), PASS)
    assert (after.centre, after.piles, after.next_captain) == (4, (2, 3), OPPONENT)


def test_hand_payoffs():
    assert hand_payoff(SHOWDOWN, 3, None) == (6, 0, -6)
    assert hand_payoff(FOLD, 2, CAPTAIN) == (-1, -1, -1)
    assert hand_payoff(PASS, 0, None) == (0, 0, 0)


def test_push_and_pull_walk_every_edge_once():
    tree = build_tree(CAPTAIN, 3)
    at_node, at_leaf = tree.push(1, lambda node, a, depth: depth + 1)
    assert at_node[0] == 1 and all(d is not None for d in at_node + at_leaf)
    assert max(at_leaf) == 1 + 5                       # p b r r c: five actions deep
    counts = tree.pull([1] * len(tree.leaves), lambda node, kids: sum(kids))
    assert counts[0] == len(tree.leaves)
    payoff = tree.payoff(tree.after(["bet", "raise", "call"]), -1)
    assert payoff == Fraction(-4)


def test_after_refuses_illegal_sequences():
    tree = build_tree(CAPTAIN, 1)
    with pytest.raises(KeyError):
        tree.after(["bet", "raise"])
    with pytest.raises(KeyError):
        tree.after(["bet", "call", "pass"])
