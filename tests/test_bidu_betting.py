"""The betting of one vuelta of Bidú as pure functions (games/bidu/betting.py, docs/rules.md
section 7): the first bettor, what is legal, when the betting closes, the stack limit and who
takes the pot, on hand-made deals."""

from __future__ import annotations

from fractions import Fraction

import pytest

from games.bidou import rules
from games.bidu import betting
from games.bidu.betting import CALL, ONE_LEFT, PASS, REPLAY, SHOWDOWN

F = Fraction


def play(stands, stack, moves):
    """The betting after `moves`, from a vuelta whose seats stood at `stands`."""
    state = betting.new_betting(stands, stack)
    for move in moves:
        state = betting.apply(state, move)
    return state


def compare_hands(*hands: str):
    """compare(seat a, seat b) for the hands given as "6-3-1", seat by seat."""
    parsed = [rules.parse_hand(h) for h in hands]
    return lambda a, b: rules.compare(parsed[a], parsed[b], "encyclopedia")


@pytest.mark.parametrize("stands, first", [
    ((1, 2), 0), ((2, 1), 1), ((2, 2), 0), ((3, 3), 0), ((3, 1), 1),
    ((2, 1, 1), 1), ((2, 2, 1), 2), ((1, 1, 1), 0), ((3, 2, 2), 1),
    ((3, 2, 3, 2), 1), ((2, 3, 1, 1), 2), ((3, 3, 3, 2), 3), ((1, 2, 1, 1), 0),
])
def test_the_earliest_stander_bets_first_the_captain_or_the_next_clockwise_on_ties(
        stands, first):
    assert betting.first_bettor(stands) == first
    assert betting.new_betting(stands, 5).to_act == first


def test_the_actions_are_numbered_pass_call_bets_then_raises():
    assert betting.actions(3) == ("pass", "call", "bet 1", "bet 2", "bet 3", "raise to 2",
                                  "raise to 3")
    assert len(betting.actions(5)) == 2 + 5 + 4
    assert betting.amount_of("raise to 4") == 4 and betting.amount_of("bet 2") == 2


def test_a_pass_before_any_bet_does_not_drop_out():
    state = play((1, 1), 5, [PASS])
    assert state.to_act == 1 and state.out == (False, False) and not state.opened
    state = betting.apply(state, "bet 2")
    assert state.to_act == 0
    assert betting.legal_actions(state) == [PASS, CALL, "raise to 3", "raise to 4",
                                            "raise to 5"]
    state = betting.apply(state, CALL)
    assert state.closed() and state.kind() == SHOWDOWN
    assert state.put == (2, 2) and betting.pot(state, 1) == 6


def test_the_stack_limits_bets_and_raises():
    state = betting.new_betting((1, 2), 3)
    assert betting.legal_actions(state) == [PASS, "bet 1", "bet 2", "bet 3"]
    assert betting.legal_actions(betting.apply(state, "bet 1")) == [
        PASS, CALL, "raise to 2", "raise to 3"]
    at_top = betting.apply(state, "bet 3")
    assert betting.legal_actions(at_top) == [PASS, CALL]
    with pytest.raises(ValueError, match="not legal"):
        betting.apply(at_top, "raise to 4")
    with pytest.raises(ValueError, match="not legal"):
        betting.apply(state, CALL)                       # nothing to call yet


def test_nobody_betting_is_a_replay_worth_zero_until_the_solvers_price_it():
    for players in (2, 3, 4):
        state = play((1,) * players, 2, [PASS] * players)
        assert state.closed() and state.kind() == REPLAY
        assert betting.settle(state, lambda a, b: 0, 1) == (F(0),) * players
    assert not play((1, 1, 1), 2, [PASS, PASS]).closed()


def test_everyone_else_dropping_out_leaves_the_pot_to_the_bettor():
    state = play((2, 1), 5, ["bet 2", PASS])          # seat 1 stood first and bets
    assert state.kind() == ONE_LEFT and state.out == (True, False)
    # The pot: two antes and his two chips; he put in 1 + 2.
    assert betting.settle(state, compare_hands("2-1-1", "3-1-1"), ante=1) == (F(-1), F(1))


def test_every_player_still_in_speaks_after_a_bet_and_matches_a_raise():
    # Three players: seat 0 passes, seat 1 bets 1, seat 2 raises to 3; seat 0 (who only
    # passed) may still call or raise, then seat 1 must answer the raise.
    state = play((1, 1, 1), 5, [PASS, "bet 1", "raise to 3"])
    assert state.to_act == 0
    assert betting.legal_actions(state) == [PASS, CALL, "raise to 4", "raise to 5"]
    state = betting.apply(state, CALL)
    assert state.to_act == 1 and not state.closed()
    state = betting.apply(state, PASS)                 # drops out, leaving his chip
    assert state.closed() and state.kind() == SHOWDOWN
    assert state.put == (3, 1, 3) and state.out == (False, True, False)
    # Pot 3 antes + 7 chips = 10; seat 2's 6-6-6 beats seat 0's 4-3-2.
    result = betting.settle(state, compare_hands("4-3-2", "2-1-1", "6-6-6"), ante=1)
    assert result == (F(-4), F(-2), F(6)) and sum(result) == 0


def test_a_raise_reopens_the_betting_for_the_raiser_s_predecessors():
    state = play((1, 1), 4, ["bet 1", "raise to 2", "raise to 4"])
    assert state.to_act == 1 and betting.legal_actions(state) == [PASS, CALL]
    state = betting.apply(state, CALL)
    assert state.closed() and state.put == (4, 4)


@pytest.mark.parametrize("hands, expected", [
    (("6-3-1", "2-1-1"), (F(-3), F(3))),               # the Bidú beats everything
    (("6-5-4", "6-6-5"), (F(3), F(-3))),               # a straight beats a high hand
    (("2-2-1", "6-6-6"), (F(-3), F(3))),               # a triple beats 2-2-1
    (("6-5-2", "6-5-1"), (F(3), F(-3))),               # the lowest die decides last
    (("5-5-5", "5-5-5"), (F(0), F(0))),                # a tie shares the pot
])
def test_a_two_player_showdown_on_hand_made_deals(hands, expected):
    state = play((1, 1), 5, ["bet 2", CALL])        # pot: 2 antes + 4 chips
    assert betting.settle(state, compare_hands(*hands), ante=1) == expected


def test_tied_players_share_the_pot_in_fractions():
    # Seat 2 drops out after calling nothing: pot 3 antes + 1 + 1 = 5, shared by the two
    # 2-1-1s: 5/2 each.
    state = play((1, 1, 1), 1, ["bet 1", CALL, PASS])
    result = betting.settle(state, compare_hands("2-1-1", "2-1-1", "6-6-6"), ante=1)
    assert result == (F(1, 2), F(1, 2), F(-1))
    # Four players, three tied on 6-5-4, ante 2: pot 8 + 3 * 2 + 0 = 14, 14/3 each.
    state = play((1, 1, 1, 1), 3, ["bet 2", CALL, CALL, PASS])
    result = betting.settle(state, compare_hands("6-5-4", "6-5-4", "6-5-4", "6-6-6"), ante=2)
    assert result == (F(2, 3), F(2, 3), F(2, 3), F(-2)) and sum(result) == 0
    assert betting.winners(state, compare_hands("6-5-4", "6-5-4", "6-5-4", "6-6-6")) == (
        0, 1, 2)
