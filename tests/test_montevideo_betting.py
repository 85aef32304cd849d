"""The betting of one round of Montevideo as pure functions (games/montevideo/betting.py,
docs/rules.md section 8): the antes, the leader, what is legal, when the betting closes, the
main pot and the side pots, ties and the odd chip, on hand-made deals."""

from __future__ import annotations

import pytest

from games.bidou import rules
from games.bidou_multi import betting as multi_betting
from games.montevideo import betting
from games.montevideo.betting import CALL, CHECK, FOLD, ONE_LEFT, SHOWDOWN, Pot


def play(stacks, moves, ante=1, counts=None, sizes=None):
    """The betting after `moves`, from a round whose seats hold `stacks` and threw `counts`
    times (equal counts by default: the captain leads)."""
    state = betting.new_betting(stacks, ante, counts or (1,) * len(stacks))
    for move in moves:
        state = betting.apply(state, move, sizes)
    return state


def strength(*values: int):
    """compare(seat a, seat b) for hands given by their strength, seat by seat."""
    return lambda a, b: (values[a] > values[b]) - (values[a] < values[b])


def test_the_leader_is_multi_hand_bidou_s_fewest_throws_nearest_the_captain():
    assert betting.leader is multi_betting.leader
    for counts, first in [((1, 1, 1), 0), ((2, 1, 1), 1), ((3, 3, 2), 2), ((2, 3, 2, 1), 3)]:
        assert betting.new_betting((6,) * len(counts), 1, counts).to_act == first


def test_the_actions_are_numbered_check_fold_call_bets_then_raises():
    assert betting.actions(3) == (CHECK, FOLD, CALL, "bet 1", "bet 2", "bet 3",
                                  "raise to 2", "raise to 3")
    assert betting.amount_of("raise to 4") == 4 and betting.amount_of("bet 2") == 2
    # Nobody can bet more than the second largest stack holds beyond its ante.
    assert betting.max_level((6, 6, 6), 1) == 5
    assert betting.max_level((12, 3, 5), 2) == 3
    assert betting.max_level((1, 9), 2) == 0


def test_the_antes_and_every_whole_amount_up_to_what_another_can_match():
    state = betting.new_betting((9, 4, 6), 1, (1, 1, 1))
    assert state.antes == (1, 1, 1) and state.stores == (8, 3, 5) and state.pot == 3
    assert betting.legal_actions(state) == [CHECK] + [f"bet {a}" for a in range(1, 6)]
    state = betting.apply(state, "bet 2")
    assert state.to_act == 1
    assert betting.legal_actions(state) == [FOLD, CALL, "raise to 3"]
    state = betting.apply(state, FOLD)
    assert betting.legal_actions(state) == [FOLD, CALL, "raise to 3", "raise to 4",
                                            "raise to 5"]
    with pytest.raises(ValueError, match="not legal"):
        betting.apply(state, "raise to 6")
    with pytest.raises(ValueError, match="not legal"):
        betting.apply(state, CHECK)


def test_a_check_never_drops_out_and_a_raise_reopens_the_betting():
    state = play((6, 6, 6), [CHECK, "bet 1", CALL])
    assert state.to_act == 0 and not any(state.folded)        # the checker may answer
    state = betting.apply(state, "raise to 3")
    assert state.to_act == 1 and betting.legal_actions(state)[:2] == [FOLD, CALL]
    state = play((6, 6, 6), [CHECK, "bet 1", CALL, "raise to 3", CALL, CALL])
    assert state.closed() and state.kind() == SHOWDOWN and state.put == (4, 4, 4)


def test_everybody_checks_to_a_showdown_the_highest_hand_takes_the_antes():
    state = play((6, 6, 6), [CHECK, CHECK, CHECK])
    assert state.closed() and state.kind() == SHOWDOWN and not state.opened
    assert betting.pots(state) == (Pot(3, (0, 1, 2)),)
    assert betting.settle(state, strength(1, 5, 3)) == (-1, 2, -1)
    assert not play((6, 6, 6), [CHECK, CHECK]).closed()


def test_everybody_folds_to_one_player_who_takes_the_pot_whatever_the_hands():
    state = play((6, 6, 6), [CHECK, "bet 3", FOLD, FOLD])
    assert state.closed() and state.kind() == ONE_LEFT and state.in_hand() == (1,)
    assert betting.settle(state, strength(9, 1, 9)) == (-1, 2, -1)
    assert betting.next_captain(state, strength(9, 1, 9)) == 1


def test_a_folded_player_s_chips_stay_in_the_pot_and_he_wins_nothing():
    state = play((6, 6, 6), ["bet 2", CALL, "raise to 4", FOLD, CALL])
    assert state.folded == (True, False, False) and state.put == (3, 5, 5)
    assert betting.pots(state) == (Pot(13, (1, 2)),)
    assert betting.settle(state, strength(9, 1, 2)) == (-3, -5, 8)


def test_side_pots_with_three_players_all_in_at_different_amounts():
    # Four players; seats 0, 1 and 2 go all in for 3, 5 and 8 chips, seat 3 calls 8.
    state = play((3, 5, 8, 10), ["bet 2", "raise to 4", "raise to 7", CALL])
    assert state.closed() and state.stores == (0, 0, 0, 2)
    assert [state.all_in(s) for s in range(4)] == [True, True, True, False]
    assert betting.pots(state) == (Pot(12, (0, 1, 2, 3)), Pot(6, (1, 2, 3)), Pot(6, (2, 3)))
    # The short stack has the best hand: he takes the main pot only; seat 1 the first side
    # pot; seat 3 beats seat 2 for the last.
    assert betting.settle(state, strength(9, 7, 1, 5)) == (9, 1, -8, -2)
    # The largest all-in player best: he takes everything he could win.
    assert betting.settle(state, strength(1, 2, 9, 5)) == (-3, -5, 16, -8)
    assert sum(betting.settle(state, strength(4, 3, 2, 1))) == 0


def test_a_player_who_cannot_match_calls_all_in_and_nobody_can_raise_him():
    state = play((6, 3, 6), ["bet 4", CALL])
    assert state.stores == (1, 0, 5) and state.levels == (4, 2, 0) and state.all_in(1)
    assert state.to_act == 2
    state = betting.apply(state, CALL)
    assert state.closed()                                     # the all-in player speaks no more
    assert betting.pots(state) == (Pot(9, (0, 1, 2)), Pot(4, (0, 2)))
    assert betting.settle(state, strength(1, 9, 5)) == (-5, 6, -1)
    # Facing a bet he cannot match, or an all-in raise, a call is all he may do.
    assert betting.legal_actions(play((6, 3, 6), ["bet 4"])) == [FOLD, CALL]
    state = play((6, 3), ["bet 1", "raise to 2"])
    assert state.all_in(1) and betting.legal_actions(state) == [FOLD, CALL]


def test_a_player_short_of_the_ante_antes_all_he_has_and_is_all_in():
    state = betting.new_betting((1, 6, 6), 2, (1, 1, 1))
    assert state.antes == (1, 2, 2) and state.all_in(0) and state.to_act == 1
    state = play((1, 6, 6), [CHECK, "bet 2", CALL], ante=2)
    assert betting.pots(state) == (Pot(3, (0, 1, 2)), Pot(6, (1, 2)))
    assert betting.settle(state, strength(9, 1, 5)) == (2, -4, 2)
    # Only one player with chips behind: nobody speaks, the hands are shown.
    state = betting.new_betting((1, 6), 2, (1, 1))
    assert state.closed() and betting.pots(state) == (Pot(2, (0, 1)), Pot(1, (1,)))
    assert betting.settle(state, strength(2, 1)) == (1, -1)


def test_ties_share_a_pot_the_odd_chip_to_the_tied_player_nearest_the_captain_s_left():
    assert betting.odd_chip_order(4) == (1, 2, 3, 0)
    state = play((6, 6, 6), [CHECK, CHECK, CHECK])
    assert betting.settle(state, strength(5, 1, 5)) == (0, -1, 1)     # seat 2 before the captain
    assert betting.settle(state, strength(5, 5, 1)) == (0, 1, -1)
    assert betting.settle(state, strength(5, 5, 5)) == (0, 0, 0)
    assert betting.next_captain(state, strength(5, 1, 5)) == 2
    # Four chips among three tied players: one each, the odd chip to seat 1.
    state = play((6, 6, 6, 6), [CHECK] * 4)
    assert betting.settle(state, strength(5, 5, 1, 5)) == (0, 1, -1, 0)


def test_a_restricted_game_offers_its_sizes_only():
    sizes = (1, "pot", "all")
    state = betting.new_betting((6, 6, 6), 1, (1, 1, 1))
    assert betting.legal_actions(state, sizes) == [CHECK, "bet 1", "bet 3", "bet 5"]
    state = betting.apply(state, "bet 1", sizes)
    # Raise by 1 (to 2), by the pot after calling (4 + 1: to 6, beyond the cap of 5: all
    # in), all in.
    assert betting.legal_actions(state, sizes) == [FOLD, CALL, "raise to 2", "raise to 5"]
    with pytest.raises(ValueError, match="not legal"):
        betting.apply(state, "raise to 3", sizes)
    assert betting.legal_actions(state, (2,)) == [FOLD, CALL, "raise to 3"]


def test_real_hands_the_highest_takes_the_pot():
    hands = [rules.parse_hand(h) for h in ("6-5-4", "2-1-1", "6-6-6")]
    compare = lambda a, b: rules.compare(hands[a], hands[b], "encyclopedia")  # noqa: E731
    state = play((6, 6, 6), ["bet 1", CALL, CALL])
    assert betting.winners((0, 1, 2), compare) == (1,)           # Bidou, 2-1-1, is highest
    assert betting.settle(state, compare) == (-2, 4, -2)
