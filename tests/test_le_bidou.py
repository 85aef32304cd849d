"""Le Bidou's stakes (RULES.md section 5) on hand-made leaves: every penalty, both roundings
of half a stake, calls and ties, zero-sum, tree sizes and the parameters' errors."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from games.bidou.betting import CAPTAIN, FOLD, OPPONENT, SHOWDOWN, Supply
from games.bidou.params import ParameterError
from games.le_bidou.params import LeBidouParams
from games.le_bidou.stakes import (
    FrenchStakes,
    StakePenalties,
    build_stakes_tree,
    half_stake,
    withdrawal_penalty,
)


def tree(max_stake: int = 9, rounding: str = "up"):
    return build_stakes_tree(max_stake, StakePenalties(rounding).payoff)


def payoff(history: str, outcome: int = 0, max_stake: int = 9, rounding: str = "up"):
    """The first player's payoff at the leaf `history` when his hand wins (1), ties (0) or
    loses (-1)."""
    t = tree(max_stake, rounding)
    return t.payoff(t.at(history), outcome)


def test_half_of_a_stake_in_whole_chips():
    assert [half_stake(s, "up") for s in range(1, 10)] == [1, 1, 2, 2, 3, 3, 4, 4, 5]
    assert [half_stake(s, "down") for s in range(1, 10)] == [1, 1, 1, 2, 2, 3, 3, 4, 4]
    assert withdrawal_penalty(0, 7, "up") == 4 and withdrawal_penalty(0, 7, "down") == 3
    assert withdrawal_penalty(5, 7, "up") == 5           # his own last stake, not half


@pytest.mark.parametrize("stake, up, down", [(1, 1, 1), (2, 1, 1), (3, 2, 1), (5, 3, 2),
                                             (8, 4, 4), (9, 5, 4)])
def test_withdrawing_from_the_first_stake_receives_half_of_it(stake, up, down):
    # the other player withdraws: he receives the chips, the first player gains them
    assert payoff(f"{stake}w", rounding="up") == up
    assert payoff(f"{stake}w", rounding="down") == down


def test_withdrawing_later_is_fined_ones_own_stake():
    assert payoff("35w") == -3          # first player staked 3, faces 5, withdraws: gets 3
    assert payoff("357w") == 5          # the other staked 5, faces 7, withdraws
    assert payoff("3579w") == -7
    assert payoff("35w", rounding="down") == -3     # the rounding is for the first stake only
    assert payoff("19w") == -1 and payoff("89w") == -8


@pytest.mark.parametrize("history, stake", [("3c", 3), ("35c", 5), ("1234c", 4), ("9c", 9)])
def test_a_call_gives_the_stake_to_the_lower_hand(history, stake):
    assert payoff(history, 1) == stake            # first player's hand is higher
    assert payoff(history, -1) == -stake
    assert payoff(history, 0) == 0                # a tie: nobody receives any
    t = tree()
    assert t.compares_hands(t.at(history))


def test_leaves_say_what_happened():
    t = tree()
    leaf = t.at("35w")
    assert (leaf.kind, leaf.level, leaf.folder) == (FOLD, 5, CAPTAIN)
    assert leaf.pot.from_pile == (3, 5)                 # the stakes standing, by role
    call = t.at("357c")
    assert (call.kind, call.level, call.folder) == (SHOWDOWN, 7, None)
    assert not t.compares_hands(t.at("3w"))


def test_who_speaks_and_what_is_legal():
    t = tree(max_stake=4)
    assert t.root.actor == CAPTAIN
    assert t.root.actions == ("stake 1", "stake 2", "stake 3", "stake 4")     # no pass
    assert t.node("2").actor == OPPONENT
    assert t.node("2").actions == ("withdraw", "call", "raise to 3", "raise to 4")
    assert t.node("24").actor == CAPTAIN and t.node("24").actions == ("withdraw", "call")
    stakes = FrenchStakes(4)
    assert all(stakes.first_bettor(c, o) == CAPTAIN for c in (1, 2, 3) for o in (1, 2, 3))
    with pytest.raises(KeyError):
        t.node("22")                                   # a raise must go above the stake


@pytest.mark.parametrize("max_stake", [1, 2, 3, 5, 9])
def test_tree_sizes(max_stake):
    # every increasing sequence of stakes is a decision; each, but the root, has two leaves
    t = tree(max_stake)
    assert len(t.nodes) == 2 ** max_stake
    assert len(t.leaves) == 2 * (2 ** max_stake - 1)
    assert [n.index for n in t.nodes] == list(range(len(t.nodes)))
    assert len({n.history for n in t.nodes} | {leaf.history for leaf in t.leaves}) == (
        len(t.nodes) + len(t.leaves))


@pytest.mark.parametrize("rounding", ["up", "down"])
def test_zero_sum_and_bounded(rounding):
    # the payoff is the first player's; each leaf moves at most max_stake chips either way
    t = tree(9, rounding)
    for leaf in t.leaves:
        win, tie, lose = t.payoffs[leaf.index]
        assert all(abs(v) <= 9 for v in (win, tie, lose))
        assert all(isinstance(v, Fraction) for v in (win, tie, lose))
        if leaf.kind == SHOWDOWN:
            assert win == -lose == leaf.level and tie == 0
        else:
            assert win == tie == lose != 0
    assert LeBidouParams().description().settlement.zero_sum


def test_the_description_and_its_parameters():
    params = LeBidouParams()
    assert (params.reroll, params.ranking, params.max_stake, params.half_stake) == (
        "keep", "french", 9, "up")
    d = params.description()
    assert d.dice.reroll == "keep" and d.ranking.name == "french"
    assert d.betting == FrenchStakes(9) and d.settlement == StakePenalties("up")
    assert set(d.trees()) == {CAPTAIN}
    assert d.to_dict()["betting"] == {"name": "french stakes", "max_stake": 9}
    with pytest.raises(ParameterError, match="not a two-hand Bidou"):
        d.params()
    with pytest.raises(ValueError, match="max_stake"):
        FrenchStakes(3).trees(StakePenalties().payoff, Supply(9, (0, 0)))
    text = LeBidouParams(faces=3, max_stake=2, half_stake="down").to_game_string()
    assert text == ("python_le_bidou(faces=3,throws=3,reroll=keep,ranking=french,"
                    "aces_beat_bidou=true,max_stake=2,half_stake=down)")
    assert LeBidouParams.from_mapping({"max_stake": "4", "aces_beat_bidou": "false"}) == (
        LeBidouParams(max_stake=4, aces_beat_bidou=False))


@pytest.mark.parametrize("change, name", [
    (dict(max_stake=0), "max_stake"), (dict(max_stake=10), "max_stake"),
    (dict(max_stake=True), "max_stake"), (dict(half_stake="even"), "half_stake"),
    (dict(faces=7), "faces"), (dict(throws=0), "throws"), (dict(reroll="some"), "reroll"),
    (dict(ranking="poker"), "ranking"), (dict(aces_beat_bidou="yes"), "aces_beat_bidou"),
])
def test_bad_parameters_name_themselves_in_one_line(change, name):
    with pytest.raises(ParameterError) as error:
        dataclasses.replace(LeBidouParams(), **change)
    message = str(error.value)
    assert message.startswith(name) and "\n" not in message
    with pytest.raises(ParameterError, match="unknown parameter 'max_level'"):
        LeBidouParams.from_mapping({"max_level": 2})
