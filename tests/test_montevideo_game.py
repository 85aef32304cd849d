"""The OpenSpiel game `python_montevideo` (games/montevideo/game.py): OpenSpiel's random
simulation test, the parameters, chips conserved at every terminal of small games, perfect
recall, what each player sees, a hand-made round with a side pot, and OpenSpiel's CFR on a
tiny two-player round."""

from __future__ import annotations

import pyspiel
import pytest
from game_helpers import play

import games.montevideo.game  # noqa: F401  (registers python_montevideo)
from games.montevideo import betting
from games.montevideo.params import MontevideoParams, ParameterError

SIM_COMBOS = [
    "python_montevideo",
    "python_montevideo(players=2,faces=2,throws=1,chips=2)",
    "python_montevideo(players=2,faces=3,throws=2,stacks=8/3,ante=2)",
    "python_montevideo(players=3,faces=3,throws=1,stacks=2/4/6)",
    "python_montevideo(players=3,faces=2,throws=2,bet_sizes=1/pot/all)",
    "python_montevideo(players=4,faces=2,throws=2,chips=4)",
    "python_montevideo(players=4,faces=4,throws=1,stacks=3/5/8/10,bet_sizes=2/all)",
    "python_montevideo(players=4,throws=3,stacks=1/6/6/12,ante=2)",
]


@pytest.mark.parametrize("text", SIM_COMBOS)
def test_random_sim(text):
    game = pyspiel.load_game(text)
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)


def test_parameters_defaults_and_game_info():
    params = MontevideoParams()
    assert (params.players, params.chips, params.faces, params.throws, params.ante,
            params.ranking, params.bet_sizes) == (3, 6, 6, 3, 1, "encyclopedia", "any")
    assert params.to_game_string() == (
        "python_montevideo(players=3,chips=6,stacks=equal,faces=6,throws=3,ante=1,"
        "ranking=encyclopedia,bet_sizes=any)")
    game = pyspiel.load_game(params.to_game_string())
    assert game.params == params
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    # 29 throw decisions of the family (stop, reroll, 27 keeps never legal), then check,
    # fold, call, bet 1..5, raise to 2..5.
    assert game.num_distinct_actions() == 41
    assert (game.num_players(), game.min_utility(), game.max_utility()) == (3, -6.0, 12.0)
    short = pyspiel.load_game("python_montevideo(players=2,stacks=9/4,ante=2)")
    assert short.params.start_stacks == (9, 4)
    assert (short.min_utility(), short.max_utility()) == (-4.0, 4.0)


def test_lists_read_with_commas_or_slashes_one_spelling_each():
    params = MontevideoParams.from_mapping({"bet_sizes": "all, pot ,2,1", "stacks": "8,4,6"})
    assert (params.bet_sizes, params.stacks, params.sizes) == ("1/2/pot/all", "8/4/6",
                                                              (1, 2, "pot", "all"))
    assert pyspiel.load_game(params.to_game_string()).params == params
    assert MontevideoParams(stacks="4/4/4") == MontevideoParams(chips=4)
    assert MontevideoParams.from_mapping({"bet_sizes": 2}).sizes == (2,)


@pytest.mark.parametrize("text, message", [
    ("python_montevideo(players=5)", "players must be an integer from 2 to 4, got 5"),
    ("python_montevideo(players=1)", "players must be an integer from 2 to 4, got 1"),
    ("python_montevideo(chips=0)", "chips must be an integer from 1 to 24, got 0"),
    ("python_montevideo(faces=7)", "faces must be an integer from 2 to 6, got 7"),
    ("python_montevideo(throws=4)", "throws must be an integer from 1 to 3, got 4"),
    ("python_montevideo(ante=7)", "ante must be an integer from 1 to 6, got 7"),
    ("python_montevideo(ranking=french)", "ranking must be one of encyclopedia"),
    ("python_montevideo(bet_sizes=half)", "bet_sizes must be any or whole numbers"),
    ("python_montevideo(bet_sizes=0/pot)", "bet_sizes must be any or whole numbers"),
    ("python_montevideo(bet_sizes=1//2)", "bet_sizes must be a list such as 1/2/pot/all"),
    ("python_montevideo(stacks=4/5)", "stacks must be equal or 3 whole numbers"),
    ("python_montevideo(stacks=4/0/5)", "each of stacks must be an integer from 1 to 24"),
    ("python_montevideo(chips=5,stacks=4/6/5)", "give chips or stacks, not both"),
])
def test_bad_parameters_fail_with_one_line_naming_them(text, message):
    with pytest.raises(ParameterError, match=message) as failure:
        pyspiel.load_game(text)
    assert "\n" not in str(failure.value)


def walk(state, seen, history=()):
    """Every terminal under `state`; `seen` maps each information state string to the
    acting player's own earlier information states and actions (perfect recall: one
    history per information state)."""
    if state.is_terminal():
        yield state
        return
    if state.is_chance_node():
        for action, _ in state.chance_outcomes():
            yield from walk(state.child(action), seen, history)
        return
    player = state.current_player()
    info = state.information_state_string(player)
    own = tuple((i, a) for p, i, a in history if p == player)
    assert seen.setdefault(info, own) == own, info
    for action in state.legal_actions():
        yield from walk(state.child(action), seen, history + ((player, info, action),))


@pytest.mark.parametrize("text, count", [
    # 16 deals, 5 betting leaves (check-check, check-bet-fold, check-bet-call, bet-fold,
    # bet-call).
    ("python_montevideo(players=2,faces=2,throws=1,chips=2)", 80),
    # Each player stands on one of 4 hands or throws again (4 x 4): 20 each, 400 pairs.
    ("python_montevideo(players=2,faces=2,throws=2,chips=2)", 2000),
    ("python_montevideo(players=3,faces=2,throws=1,stacks=2/3/4)", None),
    ("python_montevideo(players=3,faces=2,throws=1,stacks=1/3/2,ante=2)", None),
    pytest.param("python_montevideo(players=4,faces=2,throws=1,stacks=1/2/3/2)", None,
                 marks=pytest.mark.slow),
])
def test_chips_are_conserved_at_every_terminal_and_recall_is_perfect(text, count):
    game = pyspiel.load_game(text)
    stacks = game.params.start_stacks
    ends = list(walk(game.new_initial_state(), {}))
    if count is not None:
        assert len(ends) == count
    side_pots = 0
    for state in ends:
        net = state.net_chips()
        assert sum(net) == 0
        assert all(isinstance(x, int) for x in net)
        assert state.returns() == [float(x) for x in net]
        assert all(-stacks[s] <= net[s] <= sum(stacks) - stacks[s] for s in range(len(net)))
        side_pots += len(betting.pots(state.betting)) > 1
    assert (side_pots > 0) == (len(set(stacks)) > 1)


def test_a_player_sees_his_dice_everybody_s_throw_counts_and_the_bets():
    game = pyspiel.load_game("python_montevideo(players=3,faces=3,throws=2,chips=4)")
    seen = {play(game, [hand, "stop", "2-1-1", "reroll"]).information_state_string(1)
            for hand in ("3-3-1", "1-1-1")}
    assert seen == {"p1 | t0:?,stop | t1:2-1-1,reroll | t2: | b:"}
    state = play(game, ["3-3-1", "stop", "2-1-1", "reroll", "3-2-2", "3-2-1", "stop"])
    # Seat 0 and seat 2 threw once, seat 1 twice: the captain leads.
    assert state.throw_counts == [1, 2, 1] and state.current_player() == 0
    state.apply_action(game.action_id("bet 2"))
    assert state.information_state_string(2) == (
        "p2 | t0:?,stop | t1:?,again,? | t2:3-2-1,stop | b:bet 2")
    assert state.observation_string(1) == "p1 hand:3-2-2 throws:1,2,1 b:bet 2"
    assert str(state) == "t0:3-3-1,stop | t1:2-1-1,reroll,3-2-2 | t2:3-2-1,stop | b:bet 2"


def test_the_fewest_throws_lead():
    game = pyspiel.load_game("python_montevideo(players=3,faces=3,throws=2)")
    state = play(game, ["3-3-1", "reroll", "1-1-1", "2-1-1", "stop", "3-2-1", "reroll",
                        "2-2-2"])
    assert state.throw_counts == [2, 1, 2] and state.current_player() == 1


def test_a_round_with_a_side_pot_played_by_hand():
    game = pyspiel.load_game("python_montevideo(players=3,throws=1,stacks=2/4/6)")
    # Throws: the captain Bidou (2-1-1, the highest), seat 1 6-5-4, seat 2 6-6-6.
    state = play(game, ["2-1-1", "6-5-4", "6-6-6"])
    assert state.current_player() == 0
    legal = [game.action_name(a) for a in state.legal_actions()]
    assert legal == ["check", "bet 1"]                       # all he has beyond his ante
    state = play(game, ["2-1-1", "6-5-4", "6-6-6", "bet 1", "raise to 3"])
    # Both others are all in: nobody could answer a raise.
    assert [game.action_name(a) for a in state.legal_actions()] == ["fold", "call"]
    state.apply_action(game.action_id("call"))
    assert state.is_terminal()
    # The main pot (2 from each, 6) to the captain, the side pot (2 from seats 1 and 2)
    # to seat 2's 6-6-6.
    assert state.net_chips() == (4, -4, 0)
    assert state.returns() == [4.0, -4.0, 0.0]
    assert state.information_state_string(1) == (
        "p1 | t0:? | t1:6-5-4 | t2:? | b:bet 1,raise to 3,call")


def test_openspiel_s_cfr_and_exploitability_take_a_tiny_two_player_round():
    from open_spiel.python.algorithms import cfr, exploitability

    game = pyspiel.load_game("python_montevideo(players=2,faces=2,throws=1,chips=2)")
    solver = cfr.CFRPlusSolver(game)
    first = exploitability.nash_conv(game, solver.average_policy())
    for _ in range(10):
        solver.evaluate_and_update_policy()
    assert exploitability.nash_conv(game, solver.average_policy()) < first / 10
