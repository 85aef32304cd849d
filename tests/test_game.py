"""Tests of the OpenSpiel game `python_bidou` (games/bidou/game.py)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pyspiel
import pytest
from game_helpers import play

import games.bidou.game  # noqa: F401  (registers python_bidou)
from games.bidou import rules
from games.bidou.params import BidouParams, ParameterError

SIM_COMBOS = [
    "python_bidou",
    "python_bidou(faces=4,throws=2,max_level=2,reroll=keep,ranking=french)",
    "python_bidou(faces=2,throws=1,max_level=1)",
    "python_bidou(faces=3,throws=3,max_level=3,reroll=keep)",
    "python_bidou(faces=5,throws=2,max_level=1,ranking=french,aces_beat_bidou=false)",
    "python_bidou(faces=6,throws=3,max_level=4,reroll=keep,ranking=french)",
    "python_bidou(faces=2,throws=3,max_level=2,reroll=keep,ranking=french)",
]


def load(**kwargs):
    return pyspiel.load_game("python_bidou", kwargs)


# --- loading and parameters ----------------------------------------------------------------

def test_defaults_and_params():
    game = pyspiel.load_game("python_bidou")
    assert game.params == BidouParams()
    assert game.get_parameters() == BidouParams().to_dict()
    game = pyspiel.load_game(
        "python_bidou(faces=4,throws=2,max_level=2,reroll=keep,ranking=french)")
    assert game.params == BidouParams(faces=4, throws=2, max_level=2, reroll="keep",
                                      ranking="french")
    # The game's own string and the params' game string both load the same rules.
    assert pyspiel.load_game(str(game)).params == game.params
    assert pyspiel.load_game(game.params.to_game_string()).params == game.params


@pytest.mark.parametrize("text, name", [
    ("python_bidou(faces=7)", "faces"),
    ("python_bidou(faces=1)", "faces"),
    ("python_bidou(throws=0)", "throws"),
    ("python_bidou(throws=4)", "throws"),
    ("python_bidou(max_level=0)", "max_level"),
    ("python_bidou(reroll=xyz)", "reroll"),
    ("python_bidou(ranking=poker)", "ranking"),
])
def test_out_of_range_parameters_raise_naming_the_parameter(text, name):
    with pytest.raises(ParameterError, match=name):
        pyspiel.load_game(text)


@pytest.mark.parametrize("text, name", [
    ("python_bidou(unknown=1)", "unknown"),
    ("python_bidou(faces=abc)", "faces"),
    ("python_bidou(aces_beat_bidou=maybe)", "aces_beat_bidou"),
])
def test_unknown_or_mistyped_parameters_rejected_by_openspiel(text, name):
    with pytest.raises(pyspiel.SpielError, match=name):
        pyspiel.load_game(text)


def test_game_info():
    game = pyspiel.load_game("python_bidou")
    assert game.num_players() == 2
    assert game.num_distinct_actions() == 2 + 6 + 21 + 5
    assert game.max_chance_outcomes() == 56
    assert game.min_utility() == -8 and game.max_utility() == 8
    assert game.utility_sum() == 0
    gtype = game.get_type()
    assert gtype.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert gtype.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert gtype.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert gtype.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    names = [game.action_name(a) for a in range(game.num_distinct_actions())]
    assert names[:3] == ["stop", "reroll", "keep 6"]
    assert names[7:10] == ["keep 1", "keep 6-6", "keep 6-5"]
    assert names[28] == "keep 1-1"
    assert names[-5:] == ["pass", "bet", "fold", "call", "raise"]
    assert len(set(names)) == len(names)
    small = load(faces=2, max_level=1)
    assert small.num_distinct_actions() == 2 + 2 + 3 + 5
    assert small.max_utility() == 2


# --- OpenSpiel's own consistency checks ---------------------------------------------------

@pytest.mark.parametrize("text", SIM_COMBOS)
def test_random_sim(text):
    game = pyspiel.load_game(text)
    pyspiel.random_sim_test(game, num_sims=15, serialize=True, verbose=False)


@pytest.mark.parametrize("text", SIM_COMBOS)
def test_random_playouts_zero_sum_and_bounded(text):
    game = pyspiel.load_game(text)
    rng = random.Random(1234)
    levels = set()
    for _ in range(150):
        state = game.new_initial_state()
        length = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert math.isclose(sum(p for _, p in outcomes), 1.0)
                assert sum(p for _, p in state.exact_chance_outcomes()) == 1
                actions, probs = zip(*outcomes)
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                legal = state.legal_actions()
                assert legal == sorted(legal)
                state.apply_action(rng.choice(legal))
                length += 1
        assert length <= game.max_game_length()
        returns = state.returns()
        assert returns[0] + returns[1] == 0
        assert abs(returns[0]) <= game.max_utility()
        levels.add(state.level)
        assert max(state.throw_counts) <= game.params.throws
        # The returns are the rules' outcome.
        last = state.betting[-1]
        if last == "call":
            sign = rules.compare(state.hands[0], state.hands[1], game.params.ranking,
                                 game.params.aces_beat_bidou)
            assert returns[0] == 2 * state.level * sign
        elif last == "fold":
            counts = state.throw_counts
            first = 0 if counts[0] <= counts[1] else 1
            folder = first ^ ((len(state.betting) - 1) % 2)
            assert returns[folder] == -1 and returns[1 - folder] == 1
        else:
            assert state.betting == ("pass", "pass") and returns == [0, 0]
    assert max(levels) == game.params.max_level


# --- hand-worked playthroughs ------------------------------------------------------------

def test_playthrough_call_at_level_two():
    game = pyspiel.load_game("python_bidou")
    state = play(game, ["6-3-1", "stop", "5-5-2", "reroll", "2-1-1", "stop"])
    assert state.hands == ((6, 3, 1), (2, 1, 1))
    assert state.throw_counts == (1, 2)
    # Captain made 1 throw <= 2: he bets first.
    assert state.current_player() == 0
    assert [game.action_name(a) for a in state.legal_actions()] == ["pass", "bet"]
    state.apply_action(game.action_id("bet"))
    assert state.current_player() == 1
    assert [game.action_name(a) for a in state.legal_actions()] == ["fold", "call", "raise"]
    state.apply_action(game.action_id("raise"))
    assert state.current_player() == 0 and state.level == 2
    state.apply_action(game.action_id("call"))
    assert state.is_terminal()
    # The Bidou beats 6-3-1: the captain takes the 4 chips bet.
    assert state.returns() == [-4.0, 4.0]
    assert state.information_state_string(0) == \
        "p0 | c:6-3-1,stop | o:?,again,?,stop | b:bet,raise,call"
    assert state.information_state_string(1) == \
        "p1 | c:?,stop | o:5-5-2,reroll,2-1-1,stop | b:bet,raise,call"
    assert state.observation_string(1) == "p1 hand:2-1-1 throws:1,2 b:bet,raise,call level:2"
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a in state.history()[:1]] \
        == ["throw 6-3-1"]


def test_playthrough_max_level_forbids_raise():
    game = load(max_level=2)
    state = play(game, ["6-6-6", "stop", "5-5-5", "stop", "bet", "raise"])
    assert [game.action_name(a) for a in state.legal_actions()] == ["fold", "call"]
    state.apply_action(game.action_id("call"))
    assert state.returns() == [4.0, -4.0]


def test_playthrough_fold():
    game = pyspiel.load_game("python_bidou")
    # The captain throws twice, the opponent once: the opponent bets first.
    state = play(game, ["3-2-1", "reroll", "4-4-1", "stop", "6-5-4", "stop"])
    assert state.throw_counts == (2, 1)
    assert state.current_player() == 1
    state = play(game, ["3-2-1", "reroll", "4-4-1", "stop", "6-5-4", "stop", "bet", "fold"])
    assert state.is_terminal()
    assert state.returns() == [-1.0, 1.0]
    state = play(game, ["3-2-1", "reroll", "4-4-1", "stop", "6-5-4", "stop",
                        "pass", "bet", "raise", "fold"])
    assert state.returns() == [-1.0, 1.0]   # the opponent raised, the captain folded
    state = play(game, ["3-2-1", "reroll", "4-4-1", "stop", "6-5-4", "stop",
                        "pass", "bet", "fold"])
    assert state.returns() == [1.0, -1.0]   # the opponent folded


def test_playthrough_pass_pass():
    game = pyspiel.load_game("python_bidou")
    state = play(game, ["2-1-1", "stop", "3-1-1", "stop"])
    assert state.current_player() == 0   # equal counts: captain first
    state = play(game, ["2-1-1", "stop", "3-1-1", "stop", "pass", "pass"])
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_throws_limit_ends_turn_and_tie():
    game = load(throws=2)
    state = play(game, ["3-2-1", "reroll", "3-2-1", "4-4-1", "reroll", "3-2-1", "bet", "call"])
    assert state.throw_counts == (2, 2)
    assert state.returns() == [0.0, 0.0]   # identical hands tie
    assert state.history_str()  # serializable history


def test_french_aces_beat_bidou():
    on = pyspiel.load_game("python_bidou(ranking=french,throws=1)")
    off = pyspiel.load_game("python_bidou(ranking=french,throws=1,aces_beat_bidou=false)")
    moves = ["1-1-1", "2-1-1", "bet", "call"]
    assert play(on, moves).returns() == [2.0, -2.0]
    assert play(off, moves).returns() == [-2.0, 2.0]
    assert play(on, ["6-6-6", "1-1-1", "bet", "call"]).returns() == [2.0, -2.0]


def test_keep_mode_kept_dice_stay():
    game = pyspiel.load_game("python_bidou(reroll=keep)")
    state = play(game, ["6-4-1"])
    names = [game.action_name(a) for a in state.legal_actions()]
    assert set(names) == {"stop", "reroll", "keep 6", "keep 4", "keep 1", "keep 6-4",
                          "keep 6-1", "keep 4-1"}
    with pytest.raises(Exception):
        state.apply_action(game.action_id("keep 5"))
    state.apply_action(game.action_id("keep 6"))
    outcomes = dict(state.exact_chance_outcomes())
    assert all(6 in game.tables.hands[a] for a in outcomes)
    assert outcomes[game.hand_action("6-6-6")] == Fraction(1, 36)
    assert outcomes[game.hand_action("6-2-1")] == Fraction(2, 36)
    assert sum(outcomes.values()) == 1
    state.apply_action(game.hand_action("6-6-3"))
    state.apply_action(game.action_id("keep 6-6"))
    outcomes = dict(state.exact_chance_outcomes())
    assert sorted(game.tables.hands[a] for a in outcomes) == [(6, 6, d) for d in range(1, 7)]
    assert set(outcomes.values()) == {Fraction(1, 6)}
    state.apply_action(game.hand_action("6-6-1"))
    # Third throw: the turn ends, the opponent throws.
    assert state.hands[0] == (6, 6, 1) and state.throw_counts == (3, 0)
    assert state.is_chance_node()
    assert state.information_state_string(0) == \
        "p0 | c:6-4-1,keep 6,6-6-3,keep 6-6,6-6-1 | o: | b:"
    assert state.information_state_string(1) == "p1 | c:?,again,?,again,? | o: | b:"
    # A later throw may throw all three dice again.
    state = play(game, ["6-4-1", "keep 6", "6-5-2", "reroll"])
    assert len(state.chance_outcomes()) == 56


def test_opponent_does_not_see_captain_dice_or_keeps():
    game = pyspiel.load_game("python_bidou(reroll=keep)")
    histories = [
        ["6-4-1", "keep 6", "6-6-3", "stop", "5-5-2"],
        ["2-1-1", "reroll", "1-1-1", "stop", "5-5-2"],
        ["3-3-2", "keep 3-3", "3-3-3", "stop", "5-5-2"],
    ]
    states = [play(game, h) for h in histories]
    for player_view in ("information_state", "observation"):
        strings = {getattr(s, player_view + "_string")(1) for s in states}
        assert len(strings) == 1, strings
        tensors = {tuple(getattr(s, player_view + "_tensor")(1)) for s in states}
        assert len(tensors) == 1
    text = states[0].information_state_string(1)
    assert "6-4-1" not in text and "keep" not in text and "6-6-3" not in text
    assert text == "p1 | c:?,again,?,stop | o:5-5-2 | b:"
    # ... while the captain's own view tells them apart.
    assert len({s.information_state_string(0) for s in states}) == 3
    # And the captain does not see the opponent's dice.
    other = play(game, histories[0][:-1] + ["4-2-1"])
    assert other.information_state_string(0) == states[0].information_state_string(0)
    assert other.observation_string(0) == states[0].observation_string(0)


# --- whole-tree properties on small games --------------------------------------------------

def _walk(state, own, infos):
    """Walk the whole tree, checking that each info state string determines its tensor, its
    legal actions and (perfect recall) the player's own past: his earlier info states and
    actions, `own[player]`."""
    if state.is_terminal():
        return
    if state.is_chance_node():
        for action, _ in state.chance_outcomes():
            _walk(state.child(action), own, infos)
        return
    player = state.current_player()
    key = state.information_state_string(player)
    tensor = tuple(state.information_state_tensor(player))
    legal = tuple(state.legal_actions())
    assert infos.setdefault(key, (tensor, legal, own[player])) == (tensor, legal, own[player])
    assert infos.setdefault(("tensor", tensor), key) == key
    obs = state.observation_string(player)
    obs_tensor = tuple(state.observation_tensor(player))
    assert infos.setdefault(("obs", obs), obs_tensor) == obs_tensor
    assert infos.setdefault(("obs tensor", obs_tensor), obs) == obs
    for action in legal:
        child_own = list(own)
        child_own[player] = own[player] + ((key, action),)
        _walk(state.child(action), tuple(child_own), infos)


@pytest.mark.parametrize("text", [
    "python_bidou(faces=2,throws=2,max_level=2,reroll=keep)",
    "python_bidou(faces=2,throws=3,max_level=1)",
])
@pytest.mark.slow
def test_information_states_consistent_and_perfect_recall(text):
    game = pyspiel.load_game(text)
    infos = {}
    _walk(game.new_initial_state(), ((), ()), infos)
    assert len(infos) > 50


def test_solvable_small_game():
    from open_spiel.python import policy
    from open_spiel.python.algorithms import expected_game_score, sequence_form_lp

    game = pyspiel.load_game("python_bidou(faces=2,throws=1,max_level=1)")
    value0, value1, _, _ = sequence_form_lp.solve_zero_sum_game(game)
    assert math.isfinite(value0) and abs(value0) <= 2
    assert value0 == pytest.approx(-value1, abs=1e-6)
    uniform = policy.UniformRandomPolicy(game)
    values = expected_game_score.policy_value(game.new_initial_state(), [uniform, uniform])
    assert np.isfinite(values).all() and values[0] == pytest.approx(-values[1])


def test_other_observation_types():
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_bidou(faces=3,throws=2,reroll=keep)")
    state = play(game, ["3-2-1", "keep 3", "3-3-1", "2-2-1", "stop", "pass", "bet"])
    public = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
    assert public.string_from(state, 0) == public.string_from(state, 1) == \
        "c:?,again,? | o:?,stop | b:pass,bet"
    omniscient = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=True, public_info=True,
        private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
    assert omniscient.string_from(state, 1) == \
        "p1 | c:3-2-1,keep 3,3-3-1 | o:2-2-1,stop | b:pass,bet"
    omniscient.set_from(state, 1)
    assert omniscient.dict["hands"].sum() == 3 and omniscient.dict["betting"].sum() == 2
    current = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True,
        private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
    assert current.string_from(state, 0) == \
        "p0 hand0:3-3-1 hand1:2-2-1 throws:2,1 b:pass,bet level:1"
    info = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    info.set_from(state, 0)
    assert np.array_equal(info.tensor, state.information_state_tensor(0))
    assert info.dict["own_hands"].sum() == 2 and info.dict["own_decisions"].sum() == 1
    assert info.dict["throw_decisions"].tolist() == [[[0, 1], [0, 0]], [[1, 0], [0, 0]]]


def test_pickle_and_clone_keep_params_and_state():
    import pickle

    game = pyspiel.load_game("python_bidou(faces=4,reroll=keep,ranking=french)")
    state = play(game, ["4-4-1", "keep 4-4", "4-4-2"])
    game2 = pickle.loads(pickle.dumps(game))
    assert game2.params == game.params
    state2 = pickle.loads(pickle.dumps(state))
    assert state2.hands == state.hands and str(state2) == str(state)
    clone = state.clone()
    clone.apply_action(game.action_id("stop"))
    assert state.throw_counts == (2, 0) and not state.is_chance_node()
    assert clone.is_chance_node() and clone.turns[0] == ((4, 4, 1), "keep 4-4", (4, 4, 2), "stop")
