"""The betting of multi-hand Bidou on hand-made deals: each of the source's nine betting
situations (docs/rules.md, "Multi-hand Bidou"), Poor Fish and who leads. Chips are conserved
(payoffs add up to zero) except where the source removes them (ties, the lone bettor's discard).
"""

from __future__ import annotations

import pytest

from games.bidou_multi import betting
from games.bidou_multi.params import MultiParams, ParameterError


def ranked(*ranks):
    """compare() for seats whose hands rank as given (higher number, higher hand)."""
    return lambda a, b: (ranks[a] > ranks[b]) - (ranks[a] < ranks[b])


def play(actions, players=3, chips=6, counts=None, stores=None, max_bet=3, max_raise=2):
    table = betting.new_table(players, chips, counts or (1,) * players, stores)
    for action in actions:
        assert action in betting.legal_actions(table, max_bet, max_raise), (action, table)
        table = betting.apply(table, action)
    return table


def hand_payoffs(table, compare, **options):
    assert table.closed()
    return betting.payoffs(table, betting.settle(table, compare, **options))


@pytest.mark.parametrize("counts, first", [
    ((1, 1, 1), 0), ((2, 1, 1), 1), ((2, 2, 1), 2), ((1, 2, 1), 0), ((3, 2, 2, 3), 1),
    ((2, 3, 3, 1), 3)])
def test_leader_is_fewest_throws_nearest_the_captain(counts, first):
    assert betting.leader(counts) == first
    table = betting.new_table(len(counts), 6, counts)
    assert table.to_act == first
    assert table.order[0] == first


def test_situation_1_the_showdown_loser_collects_the_pot():
    table = play(["bet 2", "call", "call"])
    assert table.kind() == betting.SHOWDOWN and table.pot == 6
    assert hand_payoffs(table, ranked(3, 2, 1)) == (2, 2, -4)
    assert hand_payoffs(table, ranked(1, 3, 2)) == (-4, 2, 2)


def test_situation_2_dropping_out_without_betting_costs_nothing():
    table = play(["bet 1", "call", "pass"])          # seat 2 drops out, never bet
    assert table.out == (False, False, True)
    for compare in (ranked(1, 2, 3), ranked(3, 1, 2), ranked(2, 3, 1)):
        assert hand_payoffs(table, compare)[2] == 0


def test_situation_3_the_first_drop_out_takes_his_bet_times_players_in_plus_one():
    # Seat 0 bets 2, seat 1 raises to 3, seat 2 calls 3; seat 0 drops out first: he takes
    # his 2, 2 from each of the two players still in, and a penalty chip (from the raiser).
    table = play(["bet 2", "raise 1", "call", "pass"])
    assert table.stores[0] == 6 - 2 + 2 + 2 + 2 + 1
    assert table.shares == (0, 0, 1)
    assert table.closed() and table.kind() == betting.SHOWDOWN
    # The chip left in the pot goes to the showdown's loser (situation 1).
    assert hand_payoffs(table, ranked(9, 1, 2)) == (-5, 2, 3)
    assert hand_payoffs(table, ranked(9, 2, 1)) == (-5, 3, 2)


def test_situation_3_later_drop_outs_take_one_penalty_chip_and_4_the_raiser_takes_the_rest():
    # Seat 0 bets 1, seat 1 raises 2 (level 3), seat 2 raises 1 (level 4); seat 0 drops out
    # first (takes 1 + 1 + 1 + a penalty chip), seat 1 drops out later (one penalty chip);
    # the 3 chips left in the pot return to the raiser, seat 2 (situation 4).
    table = play(["bet 1", "raise 2", "raise 1", "pass", "pass"])
    assert table.kind() == betting.ONE_LEFT and table.raiser == 2
    assert table.stores[:2] == (6 - 1 + 4, 6 - 3 + 1)
    assert table.pot == 3
    payoffs = hand_payoffs(table, ranked(1, 2, 3))
    assert payoffs == (-3, 2, 1) and sum(payoffs) == 0


def test_betting_continues_with_the_next_player_after_the_first_drop_out():
    # "whatever is left in the pot is called or raised by the next player in turn"
    table = play(["bet 1", "raise 1", "pass"], players=4)   # seat 2 passes: no bet, no penalty
    table = betting.apply(table, "pass")                    # seat 3 out too
    assert table.to_act == 0                                # seat 0 must call or raise
    table = betting.apply(table, "pass")                    # seat 0 drops out: 1 + 1 + 1
    assert table.stores[0] == 6 - 1 + 1 + 1 + 1
    assert table.kind() == betting.ONE_LEFT
    payoffs = hand_payoffs(table, ranked(1, 2, 3, 4))
    assert payoffs == (-2, 2, 0, 0)


def test_situation_5_an_all_in_loser_takes_his_bet_and_as_much_from_each_showdown_player():
    # Seat 0 has 2 chips and bets them all; seats 1 and 2 take the betting to 4.
    table = play(["bet 2", "raise 2", "call"], stores=(2, 6, 6))
    assert table.all_in(0) and table.closed()
    assert hand_payoffs(table, ranked(1, 3, 2)) == (-4, 2, 2)
    # Another loser collects everything (situation 1).
    assert hand_payoffs(table, ranked(3, 2, 1)) == (2, 4, -6)


def test_situation_6_ties():
    all_in = play(["bet 2", "raise 2", "call"], stores=(2, 6, 6))
    # The all-in player takes back his bet; the others all their chips but one each.
    payoffs = hand_payoffs(all_in, ranked(1, 3, 1))
    assert payoffs == (0, 1, 1) and sum(payoffs) == 2
    # Any other tie: each showdown player takes back one chip; the rest leaves the game.
    table = play(["bet 2", "call", "call"])
    payoffs = hand_payoffs(table, ranked(1, 1, 5))
    assert payoffs == (1, 1, 1) and sum(payoffs) == 3


def test_situation_7_a_lone_bettor_discards_one_chip():
    table = play(["pass", "bet 2", "pass", "pass"])
    assert table.kind() == betting.ONE_LEFT
    assert hand_payoffs(table, ranked(1, 2, 3)) == (0, 1, 0)
    assert hand_payoffs(table, ranked(1, 2, 3), discard=False) == (0, 0, 0)


def test_situation_8_two_players_left_play_two_hand_bidou():
    # The hand game is for three and four players; two play python_bidou.
    with pytest.raises(ParameterError, match="players must be an integer from 3 to 4"):
        MultiParams(players=2)


def test_situation_9_a_pass_after_betting_has_begun_drops_out():
    table = play(["pass", "bet 1"])
    assert not table.out[0]                        # a pass before the bet keeps him in
    table = betting.apply(table, "raise 1")
    assert table.to_act == 0
    table = betting.apply(table, "pass")           # now it drops him out, without penalty
    assert table.out[0] and table.stores[0] == 6
    assert table.to_act == 1                       # seat 1 must answer the raise


def test_poor_fish_the_highest_hand_receives_a_chip_from_each_other_player():
    table = play(["pass", "pass", "pass"])
    assert table.kind() == betting.ALL_PASSED
    assert hand_payoffs(table, ranked(1, 3, 2)) == (0, 0, 0)
    assert hand_payoffs(table, ranked(1, 3, 2), poor_fish=True) == (1, -2, 1)
    assert hand_payoffs(table, ranked(3, 3, 2), poor_fish=True) == (0, 0, 0)   # tie: none


def test_legal_bets_and_raises_respect_the_limits_and_the_stores():
    table = betting.new_table(3, 6, (1, 1, 1))
    assert betting.legal_actions(table) == ["pass", "bet 1", "bet 2", "bet 3"]
    assert betting.legal_actions(table, max_bet=1) == ["pass", "bet 1"]
    table = betting.apply(table, "bet 3")
    assert betting.legal_actions(table) == ["pass", "call", "raise 1", "raise 2"]
    short = betting.new_table(3, 6, (1, 1, 1), stores=(6, 4, 6))
    short = betting.apply(short, "bet 3")
    assert betting.legal_actions(short) == ["pass", "call", "raise 1"]
