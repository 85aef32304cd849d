"""Tests of the generic sequence-form LP solver (solver/checks/openspiel_lp.py)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import exploitability
from scipy.optimize import OptimizeResult

from solver.checks import openspiel_lp
from solver.checks.openspiel_lp import (
    SequenceFormSolution,
    solve_openspiel_game,
    to_tabular_policy,
)
from solver.common.errors import SolverError

LEDUC_VALUE = -0.085606424078  # published value of Leduc hold'em to player 0


@pytest.fixture(scope="module")
def kuhn():
    game = pyspiel.load_game("kuhn_poker")
    return game, solve_openspiel_game(game)


@pytest.fixture(scope="module")
def leduc():
    game = pyspiel.load_game("leduc_poker")
    return game, solve_openspiel_game(game)


def test_kuhn_value(kuhn):
    _, sol = kuhn
    assert isinstance(sol, SequenceFormSolution)
    assert sol.status == 0
    assert sol.value == pytest.approx(-1 / 18, abs=1e-9)
    # 6 info sets x 2 actions + the empty sequence, per player.
    assert sol.num_sequences == (13, 13)
    assert sol.seconds > 0


def test_solution_is_frozen(kuhn):
    _, sol = kuhn
    with pytest.raises(dataclasses.FrozenInstanceError):
        sol.value = 0.0  # type: ignore[misc]


def test_kuhn_policies_are_distributions(kuhn):
    _, sol = kuhn
    for player_policy in sol.policies:
        assert len(player_policy) == 6
        for probs in player_policy.values():
            assert set(probs) == {0, 1}
            assert all(p >= 0 for p in probs.values())
            assert sum(probs.values()) == pytest.approx(1.0, abs=1e-12)


def test_kuhn_known_equilibrium_features(kuhn):
    _, sol = kuhn
    p0, p1 = sol.policies
    # Player 0 never bets with the middle card (Jack=0, Queen=1, King=2).
    assert p0["1"][1] == pytest.approx(0.0, abs=1e-9)
    # Player 1 always calls a bet with the King and folds the Jack.
    assert p1["2b"][1] == pytest.approx(1.0, abs=1e-9)
    assert p1["0b"][0] == pytest.approx(1.0, abs=1e-9)
    # Player 1 bets 1/3 with the Jack after a pass.
    assert p1["0p"][1] == pytest.approx(1 / 3, abs=1e-9)


def test_kuhn_nash_conv(kuhn):
    game, sol = kuhn
    assert exploitability.nash_conv(game, to_tabular_policy(game, sol)) < 1e-6


def test_leduc_value_in_one_walk_and_one_lp(leduc, monkeypatch):
    """Leduc's value from one walk of its tree and one LP: player 1's plan is read from the
    LP's duals, not from a second LP (bench_openspiel_lp.py times the solve)."""
    game, _ = leduc
    lps, walks = [], []
    linprog, walk = openspiel_lp._linprog, openspiel_lp._Walk.visit

    def counted_lp(*args):
        lps.append(args[0].shape)
        return linprog(*args)

    def counted_walk(self, state, *args):
        if not state.history():
            walks.append(state)
        return walk(self, state, *args)

    monkeypatch.setattr(openspiel_lp, "_linprog", counted_lp)
    monkeypatch.setattr(openspiel_lp._Walk, "visit", counted_walk)
    sol = solve_openspiel_game(game)
    assert sol.value == pytest.approx(LEDUC_VALUE, abs=1e-6)
    assert sol.num_sequences == (1093, 1093)
    assert len(walks) == 1 and len(lps) == 1


def test_leduc_nash_conv(leduc):
    game, sol = leduc
    assert exploitability.nash_conv(game, to_tabular_policy(game, sol)) < 1e-6


def test_accepts_game_string():
    sol = solve_openspiel_game("kuhn_poker")
    assert sol.value == pytest.approx(-1 / 18, abs=1e-9)


def test_unreached_infosets_are_uniform():
    # In 2x2 dark hex the first player wins by force; after a winning first
    # move many of player 0's own info sets are never reached by its plan.
    game = pyspiel.load_game("dark_hex(board_size=2)")
    sol, x, _, _ = openspiel_lp._solve(game)
    assert sol.value == pytest.approx(1.0, abs=1e-9)
    uniform = [
        probs
        for probs in sol.policies[0].values()
        if len(set(probs.values())) == 1 and len(probs) > 1
    ]
    assert uniform, "expected some uniform (unreached) info sets"
    for probs in uniform:
        assert sum(probs.values()) == pytest.approx(1.0)


def test_player1_plan_from_duals_matches_second_lp():
    """y from HiGHS duals vs. y from solving player 1's LP explicitly."""
    for name in ["kuhn_poker", "leduc_poker"]:
        game = pyspiel.load_game(name)
        sol_d, x_d, y_d, gap_d = openspiel_lp._solve(game, player1_plan="duals")
        sol_l, x_l, y_l, gap_l = openspiel_lp._solve(game, player1_plan="lp")
        assert sol_d.value == pytest.approx(sol_l.value, abs=1e-9)
        assert gap_d < 1e-9 and gap_l < 1e-9
        assert y_d.shape == y_l.shape == (sol_d.num_sequences[1],)
        assert y_d.min() > -1e-9
        assert y_d[0] == pytest.approx(1.0)
        for sol in (sol_d, sol_l):
            assert exploitability.nash_conv(game, to_tabular_policy(game, sol)) < 1e-6


@pytest.mark.parametrize(
    "name",
    [
        "kuhn_poker",
        "leduc_poker",
        "liars_dice(dice_sides=3)",
        "turn_based_goofspiel",
    ],
)
def test_agrees_with_openspiel_sequence_form_lp(name):
    pytest.importorskip("cvxpy")  # OpenSpiel's LP goes through cvxpy + ECOS
    from open_spiel.python.algorithms import sequence_form_lp

    if name == "turn_based_goofspiel":
        game = pyspiel.convert_to_turn_based(
            pyspiel.load_game(
                "goofspiel(num_cards=4,imp_info=True,points_order=descending,"
                "returns_type=point_difference)"
            )
        )
    else:
        game = pyspiel.load_game(name)
    ours = solve_openspiel_game(game)
    v0, v1, _, _ = sequence_form_lp.solve_zero_sum_game(game)
    assert ours.value == pytest.approx(v0, abs=1e-6)
    assert -ours.value == pytest.approx(v1, abs=1e-6)
    nash_conv = exploitability.nash_conv(game, to_tabular_policy(game, ours))
    assert nash_conv < 1e-6


def test_liars_dice_value():
    sol = solve_openspiel_game("liars_dice(dice_sides=3)")
    assert sol.value == pytest.approx(1 / 9, abs=1e-9)


@pytest.mark.parametrize(
    "name, match",
    [
        ("kuhn_poker(players=3)", "two-player"),
        ("first_sealed_auction", "zero-sum"),  # 2 players, general-sum
        ("tiny_hanabi", "zero-sum"),  # 2 players, identical interest
        ("matrix_rps", "sequential"),  # simultaneous-move
    ],
)
def test_rejects_unsupported_games(name, match):
    with pytest.raises(ValueError, match=match):
        solve_openspiel_game(name)


def test_non_optimal_status_raises(monkeypatch):
    def fake_linprog(*args, **kwargs):
        return OptimizeResult(
            status=2, message="The problem is infeasible.", fun=0.0, success=False
        )

    monkeypatch.setattr(openspiel_lp, "linprog", fake_linprog)
    with pytest.raises(SolverError, match="status 2"):
        solve_openspiel_game("kuhn_poker")


def test_solver_error_is_runtime_error():
    assert issubclass(SolverError, RuntimeError)


def test_bad_dual_plan_falls_back_to_second_lp(monkeypatch):
    """Corrupt the HiGHS duals: the check must reject them and solve the LP."""
    real = openspiel_lp.linprog
    calls = []

    def corrupt_duals(*args, **kwargs):
        res = real(*args, **kwargs)
        calls.append(res)
        if len(calls) == 1:
            res.ineqlin.marginals = np.zeros_like(res.ineqlin.marginals)
        return res

    monkeypatch.setattr(openspiel_lp, "linprog", corrupt_duals)
    game = pyspiel.load_game("kuhn_poker")
    sol = solve_openspiel_game(game)
    assert len(calls) == 2  # main LP + player 1's LP
    assert sol.value == pytest.approx(-1 / 18, abs=1e-9)
    assert exploitability.nash_conv(game, to_tabular_policy(game, sol)) < 1e-6


def test_to_tabular_policy_rejects_foreign_solution(kuhn):
    _, sol = kuhn
    with pytest.raises(ValueError, match="not in the game"):
        to_tabular_policy(pyspiel.load_game("leduc_poker"), sol)


def test_gambit_kuhn_exact():
    pytest.importorskip("pygambit")
    from solver.checks.gambit_bridge import gambit_value

    value = gambit_value(pyspiel.load_game("kuhn_poker"), rational=True)
    assert isinstance(value, Fraction)
    assert value == Fraction(-1, 18)


@pytest.mark.slow
def test_gambit_float_agrees_with_lp():
    pytest.importorskip("pygambit")
    from solver.checks.gambit_bridge import gambit_value

    value = gambit_value("liars_dice(dice_sides=3)", rational=False)
    assert float(value) == pytest.approx(1 / 9, abs=1e-9)


def test_a_game_too_large_to_walk_is_refused_not_exhausting_memory():
    from solver.checks.openspiel_lp import _build

    with pytest.raises(ValueError, match="too large"):
        _build(pyspiel.load_game("leduc_poker"), max_states=1000)
