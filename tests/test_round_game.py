"""The faithful OpenSpiel game of a capped round, `python_bidou_round` (games/bidou/round_game.py).

Also records the values of tiny capped rounds solved by OpenSpiel's own sequence-form LP, for
the round solver's finite-horizon solve to be compared with (see OPENSPIEL_VALUES).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pyspiel
import pytest
from game_helpers import play

import games.bidou.round_game  # noqa: F401  (registers python_bidou_round)
from games.bidou import rules
from games.bidou.params import BidouParams, ParameterError
from games.bidou.round_game import game_string
from games.bidou.round_params import RoundParams
from solver.round.open_throw import open_throw_step

TINY = "faces=2,throws=1,max_level=1"


def load(text: str):
    return pyspiel.load_game(f"python_bidou_round({text})")


def names(game, state):
    return [game.action_name(a) for a in state.legal_actions()]


# --- loading ------------------------------------------------------------------------------------


def test_load_defaults_and_round_trip():
    game = pyspiel.load_game("python_bidou_round")
    assert game.round_params == RoundParams() and game.max_hands == 4
    assert game.num_players() == 2 and game.max_chance_outcomes() == 56
    assert game.min_utility() == -1 and game.max_utility() == 1 and game.utility_sum() == 0
    game = load(f"chips=3,max_hands=2,{TINY},start=1;1;1")
    assert game.round_params == RoundParams(3, BidouParams(faces=2, throws=1, max_level=1))
    again = pyspiel.load_game(str(game))
    assert again.get_parameters() == game.get_parameters()
    state = game.new_initial_state()
    assert (state.centre, state.piles) == (1, (1, 1))
    text = game_string(game.round_params, 2, (1, 1, 1))
    assert pyspiel.load_game(text).get_parameters() == game.get_parameters()
    assert pyspiel.load_game(game_string(RoundParams())).new_initial_state().centre == 9


@pytest.mark.parametrize("text, name", [
    ("chips=2", "chips"), ("chips=13", "chips"), ("faces=7", "faces"),
    ("max_hands=0", "max_hands"), ("max_hands=41", "max_hands"),
    ("chips=3,start=1;1", "start"), ("chips=3,start=1;1;2", "start"),
    ("chips=3,start=0;3;0", "over"), ("chips=3,start=-1;2;2", "start"),
])
def test_bad_parameters_name_the_problem(text, name):
    with pytest.raises((ParameterError, pyspiel.SpielError), match=name):
        load(text)


# --- OpenSpiel's own checks and random playouts -------------------------------------------------

SIM = [
    f"chips=3,max_hands=6,{TINY}",
    "chips=4,max_hands=8,faces=3,throws=2,max_level=2,reroll=keep",
    "chips=9,max_hands=12,faces=6,throws=3,max_level=4",
    "chips=5,max_hands=10,faces=4,throws=2,max_level=3,ranking=french,start=0;2;3",
]


@pytest.mark.parametrize("text", SIM)
def test_random_sim(text):
    pyspiel.random_sim_test(load(text), num_sims=10, serialize=True, verbose=False)


@pytest.mark.parametrize("text", SIM)
def test_random_playouts_follow_the_rules(text):
    game = load(text)
    chips = game.round_params.chips
    rng = random.Random(7)
    endings = set()
    for _ in range(60):
        state = game.new_initial_state()
        while not state.is_terminal():
            assert state.centre + sum(state.piles) == chips
            assert max(state.piles) < chips
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert sum(p for _, p in state.exact_chance_outcomes()) == 1
                assert math.isclose(sum(p for _, p in outcomes), 1)
                actions, probs = zip(*outcomes)
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                legal = state.legal_actions()
                assert legal == sorted(legal)
                if state.in_open_throw:   # an open throw has no betting
                    assert all(game.action_name(a) not in ("bet", "pass") for a in legal)
                state.apply_action(rng.choice(legal))
        returns = state.returns()
        assert returns[0] + returns[1] == 0 and returns[0] in (-1, 0, 1)
        assert state.stages <= game.max_hands
        if returns[0] == 0:
            assert state.stages == game.max_hands and max(state.piles) < chips
        else:
            loser = 0 if returns[0] < 0 else 1
            assert state.piles[loser] in (chips, chips - 1)   # N - 1: lost an open throw
        endings.add(returns[0])
    assert endings == {-1, 0, 1} or game.max_hands >= 10 and {-1, 1} <= endings


def _walk(state, own, infos):
    """Every information state string determines the legal actions and the player's own past
    (perfect recall)."""
    if state.is_terminal():
        return
    if state.is_chance_node():
        for action, _ in state.chance_outcomes():
            _walk(state.child(action), own, infos)
        return
    player = state.current_player()
    key = state.information_state_string(player)
    legal = tuple(state.legal_actions())
    assert infos.setdefault(key, (legal, own[player])) == (legal, own[player])
    for action in legal:
        child_own = list(own)
        child_own[player] = own[player] + ((key, action),)
        _walk(state.child(action), tuple(child_own), infos)


@pytest.mark.parametrize("text", [
    f"chips=3,max_hands=2,{TINY},start=1;1;1",
    "chips=3,max_hands=1,faces=2,throws=2,max_level=1,reroll=keep,start=0;1;2",
])
def test_information_states_consistent_and_perfect_recall(text):
    infos: dict = {}
    _walk(load(text).new_initial_state(), ((), ()), infos)
    assert len(infos) > 20


# --- hand-worked playthroughs -----------------------------------------------------------------


def test_showdown_open_throw_replay_and_round_end():
    game = load(f"chips=3,max_hands=6,{TINY}")
    state = play(game, ["2-1-1", "2-2-1"])
    assert state.current_player() == 0 and names(game, state) == ["pass", "bet"]
    state = play(game, ["2-1-1", "2-2-1", "bet", "call"])
    # Player 0's bidou wins: player 1 takes both chips (from the centre) and holds 2 = N - 1.
    assert (state.centre, state.piles) == (1, (0, 2)) and state.in_open_throw
    assert state.information_state_string(1) == (
        "p1 | h0 chips:3,0,0 cap:0 c:? o:2-2-1 b:bet,call show:2-1-1/2-2-1"
        " | t1 chips:1,0,2 L:0 l: h:")
    # Open throw: tie (replayed), then the 2-chip player wins: player 0 takes one chip.
    moves = ["2-1-1", "2-2-1", "bet", "call", "2-2-2", "2-2-2", "1-1-1", "2-1-1"]
    state = play(game, moves)
    assert (state.centre, state.piles) == (1, (1, 1)) and not state.in_open_throw
    assert state.stages == 3
    assert state.information_state_string(0).endswith(
        "t1 chips:1,0,2 L:0 l:2-2-2 h:2-2-2 | t2 chips:1,0,2 L:0 l:1-1-1 h:2-1-1"
        " | h3 chips:1,1,1 cap:1 c: o: b:")
    # Player 1 captains; he bets from the centre, player 0 calls from his pile, loses: he
    # takes 2 chips and holds 1 - 1 + 2 = 2; player 1's bet came from the centre.
    end = play(game, moves + ["2-1-1", "1-1-1", "bet", "call"])
    assert (end.centre, end.piles) == (0, (2, 1)) and end.in_open_throw
    # Same, but player 1 loses: 1 + 2 = 3 chips, the round is over.
    end = play(game, moves + ["2-2-1", "1-1-1", "bet", "call"])
    assert end.is_terminal() and end.returns() == [1.0, -1.0]


def test_open_throw_lost_by_the_high_player_ends_the_round():
    game = load(f"chips=3,max_hands=1,{TINY},start=0;1;2")
    assert game.new_initial_state().in_open_throw
    assert play(game, ["2-1-1", "2-2-2"]).returns() == [1.0, -1.0]
    assert play(game, ["2-2-1", "2-2-2"]).returns() == [0.0, 0.0]   # cap reached


def test_supply_limits_raises_as_in_the_rules_example():
    # RULES: 2 chips in the centre, none in the captain's pile: after the captain bets, the
    # opponent may call but not raise (the captain could not supply the call).
    game = load("chips=5,max_hands=3,faces=2,throws=1,max_level=4,start=2;0;3")
    state = play(game, ["2-2-2", "2-2-1", "bet"])
    assert names(game, state) == ["fold", "call"]
    # With 4 chips in the centre the raise is possible, and a re-raise is not.
    game = load("chips=5,max_hands=3,faces=2,throws=1,max_level=4,start=4;0;1")
    state = play(game, ["2-2-2", "2-2-1", "bet"])
    assert names(game, state) == ["fold", "call", "raise"]
    state = play(game, ["2-2-2", "2-2-1", "bet", "raise"])
    assert names(game, state) == ["fold", "call"]


def test_showdown_moves_chips_from_wherever_they_came():
    game = load("chips=6,max_hands=3,faces=2,throws=1,max_level=4,start=1;2;3")
    # p0 bets (centre), p1 raises (his pile, 2 chips), p0 calls (his pile): p0 loses.
    state = play(game, ["2-2-1", "2-1-1", "bet", "raise", "call"])
    assert (state.centre, state.piles) == (0, (2 - 1 + 4, 3 - 2))
    assert state.in_open_throw   # p0 holds 5 = N - 1
    # Same bets, p0 wins: p1 takes all 4 chips, having put 2 of his own.
    state = play(game, ["2-1-1", "2-2-1", "bet", "raise", "call"])
    assert (state.centre, state.piles) == (0, (1, 5))
    # Tie: every chip goes back; the captain's opponent captains next.
    state = play(game, ["2-1-1", "2-1-1", "bet", "raise", "call"])
    assert (state.centre, state.piles) == (1, (2, 3))
    assert state.information_state_string(1).endswith("h1 chips:1,2,3 cap:1 c: o: b:")


def test_fold_penalty_from_centre_or_from_the_opponent():
    game = load(f"chips=3,max_hands=3,{TINY}")
    state = play(game, ["2-2-1", "2-1-1", "bet", "fold"])
    assert (state.centre, state.piles) == (2, (0, 1))
    assert state.information_state_string(0).endswith("h1 chips:2,0,1 cap:0 c: o: b:")
    game = load("chips=5,max_hands=3,faces=2,throws=1,max_level=2,start=0;2;3")
    state = play(game, ["2-2-1", "2-1-1", "bet", "fold"])
    # The bet (from p0's pile) goes back; p1 takes the penalty chip from p0's pile.
    assert (state.centre, state.piles) == (0, (1, 4)) and state.in_open_throw


def test_two_passes_change_the_captain_and_opponent_bets_first_after_fewer_throws():
    game = load("chips=3,max_hands=3,faces=2,throws=2,max_level=1")
    state = play(game, ["2-2-1", "reroll", "1-1-1", "2-2-2", "stop"])
    assert state.current_player() == 1     # the captain threw more: the opponent bets first
    state = play(game, ["2-2-1", "reroll", "1-1-1", "2-2-2", "stop", "pass", "pass"])
    assert state.information_state_string(0).endswith("h1 chips:3,0,0 cap:1 c: o: b:")
    assert state.information_state_string(1) == (
        "p1 | h0 chips:3,0,0 cap:0 c:?,again,? o:2-2-2,stop b:pass,pass"
        " | h1 chips:3,0,0 cap:1 c: o: b:")


# --- values of tiny capped rounds, by OpenSpiel's sequence-form LP ------------------------------

# (game parameters, value to player 0). Player 0 captains the first hand; when the start is
# an open throw (a pile of chips - 1) he is whichever player start says: "0;1;2" makes him
# the low player (L, who throws first), "1;2;0" the high one. Win probability of player 0 =
# (1 + value) / 2. Solved by open_spiel.python.algorithms.sequence_form_lp (cvxpy; LP
# accuracy ~1e-8). More values, with caps up to 3: benchmarks/round_openspiel_values.py.
OPENSPIEL_VALUES = [
    (f"chips=3,max_hands=1,{TINY}", 0.0),
    (f"chips=3,max_hands=2,{TINY}", 0.0),
    (f"chips=3,max_hands=1,{TINY},start=1;1;1", 0.0),
    (f"chips=3,max_hands=2,{TINY},start=1;1;1", -0.021835327),
    (f"chips=3,max_hands=2,{TINY},start=2;1;0", -0.116699219),
    (f"chips=3,max_hands=2,{TINY},start=1;2;0", -0.451171875),
    (f"chips=3,max_hands=2,{TINY},start=1;0;2", 0.451171875),
    ("chips=4,max_hands=1,faces=2,throws=1,max_level=2", 0.0),
    ("chips=3,max_hands=1,faces=2,throws=2,max_level=1,start=0;1;2", 0.275390625),
]


@pytest.mark.parametrize("text, value", OPENSPIEL_VALUES)
@pytest.mark.slow
def test_sequence_form_lp_values(text, value):
    from open_spiel.python.algorithms import sequence_form_lp

    v0, v1, _, _ = sequence_form_lp.solve_zero_sum_game(load(text))
    assert v0 == pytest.approx(value, abs=2e-6)
    assert v0 == pytest.approx(-v1, abs=2e-6)


def test_open_throw_cap_one_matches_the_exact_open_throw():
    # One open-throw attempt, then the cap: a loss for L (a chip taken) and a tie both end
    # unfinished, worth 1/2 in win probability.
    step = open_throw_step(BidouParams(faces=2, throws=2), Fraction(1, 2), Fraction(1, 2))
    assert step.value == Fraction(653, 1024)
    assert 2 * float(step.value) - 1 == pytest.approx(0.275390625, abs=1e-12)


@pytest.mark.slow
def test_capped_open_throw_chain_approaches_the_uncapped_value():
    """chips=3 from (0, 1, 2): only open throws, the roles swapping after each one H wins.
    With one throw there are no decisions; the capped values follow W_k = p_w + p_l (1 -
    W_{k-1}) + p_t W_{k-1}, W_0 = 1/2, and tend to the round's value 2/3 for L."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import expected_game_score

    dist = rules.hand_distribution(2)
    p_t = sum(p * p for p in dist.values())
    p_w = p_l = (1 - p_t) / 2
    w = Fraction(1, 2)
    gaps = []
    for cap in range(1, 5):
        w = p_w + p_l * (1 - w) + p_t * w
        game = load(f"chips=3,max_hands={cap},{TINY},start=0;1;2")
        uniform = policy.UniformRandomPolicy(game)
        value = expected_game_score.policy_value(game.new_initial_state(), [uniform] * 2)[0]
        assert (1 + value) / 2 == pytest.approx(float(w), abs=1e-12)
        gaps.append(abs(w - Fraction(2, 3)))
    assert all(b < a for a, b in zip(gaps, gaps[1:])) and gaps[-1] < Fraction(1, 20)
