"""The faithful OpenSpiel game `python_le_bidou`: OpenSpiel's random simulation test, its
rules played out, and on small variants its value by OpenSpiel's own sequence-form LP and by
the project's LP on the OpenSpiel tree, equal to the compact model's LP value."""

from __future__ import annotations

import pyspiel
import pytest
from open_spiel.python.algorithms import sequence_form_lp

import games.le_bidou.game  # noqa: F401  (registers python_le_bidou)
from games.bidou.params import ParameterError
from games.le_bidou.params import LeBidouParams
from solver.checks.openspiel_lp import solve_openspiel_game
from solver.hand.lp import sequence_form as lp
from solver.hand.model import build_model

# Small variants: fewer faces, throws and stakes, every rules option at least once.
VARIANTS = [
    dict(faces=2, throws=1, max_stake=2),
    dict(faces=2, throws=1, max_stake=3, ranking="encyclopedia"),
    dict(faces=3, throws=1, max_stake=3, half_stake="down"),
    dict(faces=3, throws=1, max_stake=2, aces_beat_bidou=False),
]
# Two throws: OpenSpiel's own LP (cvxopt) takes 10 s and a minute on these; the HiGHS LP on
# the same OpenSpiel tree a few seconds.
TWO_THROWS = [dict(faces=2, throws=2, max_stake=2, reroll="all", ranking="encyclopedia"),
              dict(faces=2, throws=2, max_stake=2)]


@pytest.mark.parametrize("kwargs", [dict(faces=2, throws=2, max_stake=3),
                                    dict(faces=3, throws=2, max_stake=2, reroll="all"),
                                    dict()], ids=str)
def test_random_simulation(kwargs):
    game = pyspiel.load_game(LeBidouParams(**kwargs).to_game_string())
    pyspiel.random_sim_test(game, num_sims=30, serialize=False, verbose=False)


def play(game, *actions: str):
    """The state after `actions`: chance outcomes as "throw 2-1-1", the rest by name."""
    state = game.new_initial_state()
    for name in actions:
        if state.is_chance_node():
            state.apply_action(game.hand_action(name.split()[1]))
        else:
            state.apply_action(game.action_id(name))
    return state


def test_a_hand_played_out():
    game = pyspiel.load_game("python_le_bidou(faces=3,throws=2,max_stake=5)")
    state = play(game, "throw 3-2-1", "reroll", "throw 2-1-1", "throw 3-3-3", "stop")
    assert state.current_player() == 0                   # the first player proposes
    legal = [state.action_to_string(0, a) for a in state.legal_actions()]
    assert legal == [f"stake {s}" for s in range(1, 6)]
    assert state.information_state_string(1) == "p1 | c:?,again,? | o:3-3-3,stop | s:"
    assert state.information_state_string(0) == (
        "p0 | c:3-2-1,reroll,2-1-1 | o:?,stop | s:")
    state.apply_action(game.action_id("stake 3"))
    assert [state.action_to_string(1, a) for a in state.legal_actions()] == [
        "withdraw", "call", "raise to 4", "raise to 5"]
    state.apply_action(game.action_id("raise to 5"))
    state.apply_action(game.action_id("call"))
    assert state.is_terminal()
    assert state.returns() == [5.0, -5.0]                # 2-1-1 beats 3-3-3: the other gets 5
    assert str(state) == "c:3-2-1,reroll,2-1-1 o:3-3-3,stop s:stake 3,raise to 5,call"


@pytest.mark.parametrize("rounding, chips", [("up", 3.0), ("down", 2.0)])
def test_withdrawals_in_the_game(rounding, chips):
    game = pyspiel.load_game(f"python_le_bidou(faces=2,throws=1,half_stake={rounding})")
    state = play(game, "throw 2-2-2", "throw 1-1-1", "stake 5", "withdraw")
    assert state.returns() == [chips, -chips]
    state = play(game, "throw 2-2-2", "throw 1-1-1", "stake 5", "raise to 7", "withdraw")
    assert state.returns() == [-5.0, 5.0]


def test_bad_parameters_fail_from_load_game():
    with pytest.raises(ParameterError, match="max_stake"):
        pyspiel.load_game("python_le_bidou(max_stake=0)")


def compact_value(params: LeBidouParams) -> float:
    return lp.solve_lp(build_model(params.description())).value


@pytest.mark.parametrize("kwargs", VARIANTS + TWO_THROWS,
                         ids=lambda k: LeBidouParams(**k).to_game_string())
def test_compact_equals_faithful_by_highs(kwargs):
    params = LeBidouParams(**kwargs)
    game = pyspiel.load_game(params.to_game_string())
    assert compact_value(params) == pytest.approx(solve_openspiel_game(game).value, abs=1e-9)


@pytest.mark.parametrize("kwargs", VARIANTS, ids=lambda k: LeBidouParams(**k).to_game_string())
def test_compact_equals_openspiel_sequence_form_lp(kwargs):
    params = LeBidouParams(**kwargs)
    v0, v1, _, _ = sequence_form_lp.solve_zero_sum_game(
        pyspiel.load_game(params.to_game_string()))
    assert compact_value(params) == pytest.approx(v0, abs=1e-9)
    assert v0 + v1 == pytest.approx(0, abs=1e-9)
