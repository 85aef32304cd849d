"""The OpenSpiel game `python_bidou_multi` (games/bidou_multi/game.py): OpenSpiel's random
simulation test, parameters, what each player sees, and hand-made deals played through it."""

from __future__ import annotations

import pyspiel
import pytest
from game_helpers import play

import games.bidou_multi.game  # noqa: F401  (registers python_bidou_multi)
from games.bidou_multi.params import MultiParams, ParameterError

SIM_COMBOS = [
    "python_bidou_multi",
    "python_bidou_multi(players=4)",
    "python_bidou_multi(faces=2,throws=1,chips=2)",
    "python_bidou_multi(players=4,faces=3,throws=2,reroll=keep,poor_fish=true)",
    "python_bidou_multi(faces=4,throws=3,ranking=french,max_bet=1,max_raise=1,discard=false)",
]


@pytest.mark.parametrize("text", SIM_COMBOS)
def test_random_sim(text):
    game = pyspiel.load_game(text)
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)


def test_game_type_is_general_sum_for_three_and_four_players():
    game = pyspiel.load_game("python_bidou_multi")
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert game.num_players() == 3
    assert pyspiel.load_game("python_bidou_multi(players=4)").num_players() == 4
    assert not MultiParams().zero_sum


@pytest.mark.parametrize("text, message", [
    ("python_bidou_multi(players=5)", "players must be an integer from 3 to 4, got 5"),
    ("python_bidou_multi(max_bet=4)", "max_bet must be an integer from 1 to 3, got 4"),
    ("python_bidou_multi(reroll=some)", "reroll must be one of all, keep"),
])
def test_bad_parameters_fail_with_one_line_naming_them(text, message):
    with pytest.raises(ParameterError, match=message):
        pyspiel.load_game(text)


def test_a_showdown_through_the_game_and_what_each_player_sees():
    game = pyspiel.load_game("python_bidou_multi(faces=3,throws=2)")
    # Seat 0 throws twice, seat 1 once, seat 2 twice: seat 1 leads the betting.
    state = play(game, ["3-3-1", "reroll", "2-1-1", "3-2-1", "stop", "1-1-1", "reroll",
                        "3-3-2"])
    assert state.current_player() == 1
    assert state.information_state_string(2) == (
        "p2 | t0:?,again,? | t1:?,stop | t2:1-1-1,reroll,3-3-2 | b:")
    for move in ["bet 2", "call", "call"]:
        state.apply_action(game.action_id(move))
    # 2-1-1 beats everything and 3-2-1 is a straight: seat 2's 3-3-2 collects the pot.
    assert state.is_terminal()
    assert state.returns() == [2.0, 2.0, -4.0]


def test_poor_fish_through_the_game():
    game = pyspiel.load_game("python_bidou_multi(faces=3,throws=1,poor_fish=true)")
    state = play(game, ["3-2-1", "3-3-3", "1-1-1", "pass", "pass", "pass"])
    assert state.returns() == [1.0, -2.0, 1.0]     # 3-3-3 is the highest: the poor fish


def _terminal_returns(state, out):
    if state.is_terminal():
        out.append(state.returns())
        return
    if state.is_chance_node():
        for action, _ in state.chance_outcomes():
            _terminal_returns(state.child(action), out)
        return
    for action in state.legal_actions():
        _terminal_returns(state.child(action), out)


def test_chips_are_conserved_or_removed_never_created():
    game = pyspiel.load_game("python_bidou_multi(faces=2,throws=1,chips=1)")
    returns: list = []
    _terminal_returns(game.new_initial_state(), returns)
    sums = sorted({sum(r) for r in returns})
    # Removed chips (a tie, a discard) make the sum positive; it is never negative.
    assert sums[0] == 0.0 and all(s >= 0 for s in sums) and max(sums) > 0
    assert all(game.min_utility() <= x <= game.max_utility() for r in returns for x in r)
