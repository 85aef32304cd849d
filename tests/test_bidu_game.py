"""The OpenSpiel game `python_bidu` (games/bidu/game.py): OpenSpiel's random simulation test,
parameters, chips conserved at every terminal, the first bettor, what each player sees (the
other players' choice of the same throw stays hidden), hand-made deals, and OpenSpiel's own
solvers on a tiny variant."""

from __future__ import annotations

from fractions import Fraction

import pyspiel
import pytest
from game_helpers import information_sets, play

import games.bidu.game  # noqa: F401  (registers python_bidu)
from games.bidu.params import BiduParams, ParameterError

F = Fraction

SIM_COMBOS = [
    "python_bidu",
    "python_bidu(faces=2,throws=1,stack=1)",
    "python_bidu(faces=3,throws=2,stack=2,ante=2)",
    "python_bidu(players=3,faces=3,throws=2,stack=3)",
    "python_bidu(players=3,faces=2,throws=3,stack=1)",
    "python_bidu(players=4,faces=2,throws=2,stack=2)",
    "python_bidu(players=4,faces=4,throws=3,stack=3)",
]


@pytest.mark.parametrize("text", SIM_COMBOS)
def test_random_sim(text):
    game = pyspiel.load_game(text)
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)


def test_parameters_defaults_and_game_info():
    params = BiduParams()
    assert (params.players, params.faces, params.throws, params.ante, params.stack,
            params.ranking) == (2, 6, 3, 1, 5, "encyclopedia")
    assert params.to_game_string() == (
        "python_bidu(players=2,faces=6,throws=3,ante=1,stack=5,ranking=encyclopedia,"
        "throwing=together,replay_value=0/1)")
    game = pyspiel.load_game(params.to_game_string())
    assert game.params == params
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    # 29 throw decisions of the family (stop, reroll, 27 keeps never legal), then pass,
    # call, bet 1..5, raise to 2..5.
    assert game.num_distinct_actions() == 40
    assert (game.min_utility(), game.max_utility()) == (-6.0, 6.0)
    four = pyspiel.load_game("python_bidu(players=4,ante=2,stack=3)")
    assert (four.num_players(), four.min_utility(), four.max_utility()) == (4, -5.0, 15.0)


@pytest.mark.parametrize("text, message", [
    ("python_bidu(players=5)", "players must be an integer from 2 to 4, got 5"),
    ("python_bidu(players=1)", "players must be an integer from 2 to 4, got 1"),
    ("python_bidu(faces=7)", "faces must be an integer from 2 to 6, got 7"),
    ("python_bidu(throws=4)", "throws must be an integer from 1 to 3, got 4"),
    ("python_bidu(stack=0)", "stack must be an integer from 1 to 10, got 0"),
    ("python_bidu(ante=0)", "ante must be an integer from 1 to 10, got 0"),
    ("python_bidu(ranking=french)", "ranking must be one of encyclopedia, got 'french'"),
    ("python_bidu(replay_value=abc)", "replay_value must be a fraction such as 3/7"),
    ("python_bidu(players=3,replay_value=1/2)", "replay_value must be 0 with 3 players"),
])
def test_bad_parameters_fail_with_one_line_naming_them(text, message):
    with pytest.raises(ParameterError, match=message) as failure:
        pyspiel.load_game(text)
    assert "\n" not in str(failure.value)


def test_an_unknown_parameter_is_refused_in_one_line():
    with pytest.raises(ParameterError, match="unknown parameter 'reroll'") as failure:
        BiduParams.from_mapping({"reroll": "keep"})
    assert "\n" not in str(failure.value)


def terminals(state):
    """Every terminal state under `state`."""
    if state.is_terminal():
        yield state
        return
    actions = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
               else state.legal_actions())
    for action in actions:
        yield from terminals(state.child(action))


@pytest.mark.parametrize("text, count, replays", [
    # 16 deals, 5 betting leaves (pass-pass, pass-bet-pass, pass-bet-call, bet-pass,
    # bet-call), one of them the replay.
    ("python_bidu(faces=2,throws=1,stack=1)", 80, 16),
    # Each player: stand on one of 4 hands, or reroll (4 x 4 histories): 20 each, 400
    # pairs, 5 betting leaves each.
    ("python_bidu(faces=2,throws=2,stack=1)", 2000, 400),
    # 64 deals; a bet from any of the 3 seats answered by the 2 others (4 ways), or 3
    # passes: 13 betting leaves.
    ("python_bidu(players=3,faces=2,throws=1,stack=1)", 832, 64),
])
def test_chips_are_conserved_at_every_terminal(text, count, replays):
    game = pyspiel.load_game(text)
    ends = list(terminals(game.new_initial_state()))
    assert len(ends) == count
    assert sum(state.replay for state in ends) == replays
    for state in ends:
        exact = state.exact_returns()
        assert sum(exact) == 0                                     # the pot goes out whole
        assert state.returns() == pytest.approx([float(x) for x in exact])
        if state.replay:
            assert exact == (F(0),) * game.num_players()
    shares = {x for state in ends for x in state.exact_returns()}
    if game.num_players() == 3:
        assert F(1, 2) in shares and F(-1, 2) not in shares        # two tied of three


def test_the_other_player_s_choice_of_the_same_throw_is_hidden():
    game = pyspiel.load_game("python_bidu(faces=3,throws=2)")
    stood = play(game, ["3-3-1", "2-1-1", "stop"])
    threw = play(game, ["3-3-1", "2-1-1", "reroll"])
    assert stood.current_player() == threw.current_player() == 1
    assert stood.information_state_string(1) == threw.information_state_string(1) == (
        "p1 | own:2-1-1 | stood:-,- | b:")
    assert stood.observation_string(1) == threw.observation_string(1) == (
        "p1 hand:2-1-1 throw:1 stood:-,- b:")
    assert stood.information_state_string(0) != threw.information_state_string(0)
    # Once both have chosen, the choices are announced.
    stood.apply_action(game.action_id("reroll"))
    threw.apply_action(game.action_id("reroll"))
    assert stood.stands == [1, None] and threw.stands == [None, None]


def test_three_players_choose_blind_to_each_other():
    game = pyspiel.load_game("python_bidu(players=3,faces=3,throws=2)")
    seen = {play(game, ["3-3-1", "2-1-1", "3-2-1", first, second]).information_state_string(2)
            for first in ("stop", "reroll") for second in ("stop", "reroll")}
    assert seen == {"p2 | own:3-2-1 | stood:-,-,- | b:"}


def test_a_player_sees_his_dice_every_stand_time_and_the_bets():
    game = pyspiel.load_game("python_bidu(players=3,faces=3,throws=2,stack=3)")
    # Seats 0 and 1 throw again, seat 2 stands at the first throw and bets first.
    state = play(game, ["3-3-1", "2-1-1", "3-2-1", "reroll", "reroll", "stop",
                        "1-1-1", "3-3-2"])
    assert state.stands == [2, 2, 1] and state.current_player() == 2
    state.apply_action(game.action_id("bet 2"))
    assert state.information_state_string(0) == (
        "p0 | own:3-3-1,reroll,1-1-1 | stood:2,2,1 | b:bet 2")
    assert state.information_state_string(2) == "p2 | own:3-2-1,stop | stood:2,2,1 | b:bet 2"
    assert state.observation_string(1) == "p1 hand:3-3-2 throw:2 stood:2,2,1 b:bet 2"
    for move in ("raise to 3", "call", "call"):
        state.apply_action(game.action_id(move))
    # Pot 3 antes + 9 chips; seat 2's straight 3-2-1 beats 3-3-2 and loses to 1-1-1.
    assert state.is_terminal() and state.returns() == [8.0, -4.0, -4.0]


@pytest.mark.parametrize("text, moves, first", [
    ("python_bidu(faces=3,throws=2)", ["3-3-1", "2-1-1", "stop", "stop"], 0),
    ("python_bidu(faces=3,throws=2)", ["3-3-1", "2-1-1", "reroll", "stop", "1-1-1"], 1),
    ("python_bidu(faces=3,throws=2)", ["3-3-1", "2-1-1", "reroll", "reroll", "1-1-1",
                                       "2-2-2"], 0),
    ("python_bidu(players=3,faces=3,throws=2)", ["3-3-1", "2-1-1", "3-2-1", "reroll",
                                                 "stop", "stop", "1-1-1"], 1),
    ("python_bidu(players=4,faces=2,throws=3)",
     ["2-2-1", "2-1-1", "1-1-1", "2-2-2", "reroll", "stop", "reroll", "reroll",
      "1-1-1", "2-2-2", "1-1-1", "reroll", "reroll", "stop", "2-1-1", "2-2-1"], 1),
    ("python_bidu(players=4,faces=2,throws=3)",
     ["2-2-1", "2-1-1", "1-1-1", "2-2-2", "reroll", "reroll", "stop", "stop",
      "1-1-1", "2-2-2", "stop", "stop"], 2),
])
def test_the_earliest_stander_bets_first(text, moves, first):
    game = pyspiel.load_game(text)
    state = play(game, moves)
    assert state.betting is not None and state.current_player() == first
    assert game.action_name(state.legal_actions()[0]) == "pass"


def test_a_pass_before_any_bet_keeps_the_player_in_and_the_stack_limits_raises():
    game = pyspiel.load_game("python_bidu(faces=2,throws=1,stack=2)")
    state = play(game, ["2-1-1", "1-1-1", "pass", "bet 1"])
    assert [game.action_name(a) for a in state.legal_actions()] == ["pass", "call",
                                                                    "raise to 2"]
    state.apply_action(game.action_id("raise to 2"))
    assert [game.action_name(a) for a in state.legal_actions()] == ["pass", "call"]
    state.apply_action(game.action_id("call"))
    assert state.returns() == [3.0, -3.0]              # pot 2 + 4; the captain's 2-1-1 wins


def test_a_vuelta_nobody_bets_on_ends_in_a_replay_terminal():
    game = pyspiel.load_game("python_bidu(players=3,faces=2,throws=1)")
    state = play(game, ["2-1-1", "1-1-1", "2-2-2", "pass", "pass", "pass"])
    assert state.is_terminal() and state.replay
    assert state.returns() == [0.0, 0.0, 0.0]
    assert str(state).endswith("| b:pass,pass,pass | replay")
    played = play(game, ["2-1-1", "1-1-1", "2-2-2", "pass", "bet 1", "pass", "pass"])
    assert played.is_terminal() and not played.replay
    assert played.returns() == [-1.0, 2.0, -1.0]    # pot 3 + 1 to the bettor


def test_a_replay_pays_its_worth_to_the_captain():
    game = pyspiel.load_game("python_bidu(faces=2,throws=1,stack=1,replay_value=-3/7)")
    assert game.params.replay_worth == F(-3, 7)
    state = play(game, ["2-1-1", "1-1-1", "pass", "pass"])
    assert state.replay and state.exact_returns() == (F(-3, 7), F(3, 7))
    played = play(game, ["2-1-1", "1-1-1", "pass", "bet 1", "pass"])
    assert not played.replay and played.exact_returns() == (F(-1), F(1))


def test_a_tie_shares_the_pot_through_the_game():
    game = pyspiel.load_game("python_bidu(players=3,faces=2,throws=1,stack=1)")
    state = play(game, ["2-1-1", "2-1-1", "2-2-2", "bet 1", "call", "pass"])
    assert state.exact_returns() == (F(1, 2), F(1, 2), F(-1))


def test_openspiel_solves_a_tiny_two_player_vuelta_as_a_zero_sum_game():
    """The replay terminal counted as 0: OpenSpiel's own sequence-form LP and CFR run on
    the game (the vuelta's value is a fixed point through the replay, left to the solvers)."""
    from open_spiel.python.algorithms import cfr, exploitability, sequence_form_lp

    game = pyspiel.load_game("python_bidu(faces=2,throws=1,stack=1)")
    value0, value1, policy0, policy1 = sequence_form_lp.solve_zero_sum_game(game)
    assert value0 + value1 == pytest.approx(0, abs=1e-6)
    assert -1 < value0 < 1
    solver = cfr.CFRSolver(game)
    for _ in range(5):
        solver.evaluate_and_update_policy()
    gap = exploitability.nash_conv(game, solver.average_policy())
    assert 0 <= gap < 2


def test_information_states_have_perfect_recall():
    """Histories a player cannot tell apart have the same legal actions and the same past
    of his own: what OpenSpiel's CFR and LP assume."""
    found = information_sets(pyspiel.load_game("python_bidu(faces=2,throws=2,stack=2)"))
    # Each player: 4 choices at throw 1 (his hand; the other's choice hidden), then 4
    # betting nodes (stack 2: first bettor at [], [pass, bet 1], [pass, bet 2], [bet 1,
    # raise to 2]; second at four others) for each of his 20 private pasts (stood on one of
    # 4 hands, or 4 x 4 rerolled) and the other's 2 stand throws: 4 + 4 * 40 = 164.
    assert sum(player == 0 for player, _ in found) == 164
    assert len(found) == 328
