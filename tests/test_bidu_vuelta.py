"""The two-player vuelta of Bidú with its replay priced by the fixed point V = G(V)
(solver/bidu/vuelta.py): the proved interval checked again with the exact LP, apart from
the solver's loop; OpenSpiel's own sequence-form LP at the worth found; value iteration
from 0; zero-sum; and the quadratic whose root V is on the smallest variant."""

from __future__ import annotations

from fractions import Fraction

import pyspiel
import pytest

import games.bidu.game  # noqa: F401  (registers python_bidu)
from games.bidu.params import BiduParams
from solver.bidu.vuelta import WIDTH, replay_line, solve_vuelta, stage_game, stage_value
from solver.checks.openspiel_lp import solve_run
from solver.common.errors import SolverError

F = Fraction

SMALL = [dict(faces=2, throws=1, stack=1), dict(faces=2, throws=2, stack=1),
         dict(faces=3, throws=1, stack=1)]

# V as floats from value iteration x <- G(x) with the float LP (40 steps, to 1e-14), each
# a root of a quadratic with integer coefficients found by an integer-relation search on
# that float: faces 2 throws 1 stack 1: 32x^2 - 34x - 3 = 0, V = (17 - sqrt 385)/32;
# faces 3 throws 1 stack 1: 54x^2 - 59x - 5 = 0; faces 2 throws 2 stack 1:
# 2048x^2 - 2410x - 75 = 0.
VALUES = {(2, 1, 1): -0.08191927719838787, (3, 1, 1): -0.07902940758899914,
          (2, 2, 1): -0.030338178587605125}


def key(kw):
    return (kw["faces"], kw["throws"], kw["stack"])


@pytest.fixture(scope="module")
def solutions():
    return {key(kw): solve_vuelta(BiduParams(**kw)) for kw in SMALL}


@pytest.mark.parametrize("kw", SMALL, ids=key)
def test_the_interval_is_proved_again_with_the_exact_lp(solutions, kw):
    """G(lower) > lower and G(upper) < upper, proved apart from the solver's loop: every
    fixed point lies strictly inside (G(x) - x never increases)."""
    params, solution = BiduParams(**kw), solutions[key(kw)]
    assert solution.exact is None                       # V is irrational (a quadratic root)
    assert 0 < solution.upper - solution.lower <= WIDTH * F(51, 50)
    below = stage_value(params, solution.lower)
    above = stage_value(params, solution.upper)
    assert below.lower is not None and below.lower > solution.lower
    assert above.upper is not None and above.upper < solution.upper
    assert solution.lower < VALUES[key(kw)] < solution.upper
    assert solution.lower < solution.estimate < solution.upper
    assert float(solution.value) == pytest.approx(VALUES[key(kw)], abs=1e-9)
    assert 1 <= solution.steps <= 6
    assert 0 < solution.replay_probability < F(1, 5)


def test_the_smallest_variant_s_value_is_the_root_of_its_quadratic(solutions):
    """(17 - sqrt 385)/32: the quadratic 32x^2 - 34x - 3 changes sign across the proved
    interval (exact arithmetic), and its root is the float value."""
    solution = solutions[(2, 1, 1)]

    def f(x):
        return 32 * x * x - 34 * x - 3

    assert f(solution.lower) > 0 > f(solution.upper)
    assert (17 - 385 ** 0.5) / 32 == pytest.approx(VALUES[(2, 1, 1)], abs=1e-13)
    other = solutions[(3, 1, 1)]
    assert 54 * other.lower ** 2 - 59 * other.lower - 5 > 0 > \
        54 * other.upper ** 2 - 59 * other.upper - 5
    third = solutions[(2, 2, 1)]
    assert 2048 * third.lower ** 2 - 2410 * third.lower - 75 > 0 > \
        2048 * third.upper ** 2 - 2410 * third.upper - 75


@pytest.mark.parametrize("kw", SMALL, ids=key)
def test_openspiel_s_own_lp_gives_the_worth_back_and_zero_sum(solutions, kw):
    """Independent of the project's LP: OpenSpiel's sequence-form LP on the stage game whose
    replay pays the value found gives that value to the captain, its opposite to the other."""
    from open_spiel.python.algorithms import sequence_form_lp

    value = solutions[key(kw)].value
    game = stage_game(BiduParams(**kw), value)
    value0, value1, _, _ = sequence_form_lp.solve_zero_sum_game(game)
    assert value0 == pytest.approx(float(value), abs=1e-6)
    assert value1 == pytest.approx(-float(value), abs=1e-6)


def test_value_iteration_from_zero_converges_to_the_same_value(solutions):
    params = BiduParams(faces=2, throws=1, stack=1)
    x = 0.0
    for _ in range(12):
        x = solve_run(stage_game(params, F(x).limit_denominator(10**12))).solution.value
    solution = solutions[(2, 1, 1)]
    assert x == pytest.approx(float(solution.value), abs=1e-9)
    assert x == pytest.approx(VALUES[(2, 1, 1)], abs=1e-13)
    assert solution.lower < F(x) < solution.upper


def test_the_stage_game_s_line_goes_through_its_proved_value():
    """At x = 0 the exact LP proves G(0) = -3/40 (the vuelta's value times P(no replay)); the
    rational equilibrium pays c + p x with c = -3/40 and p = 9/100 (computed once with
    `replay_line`, written here)."""
    params = BiduParams(faces=2, throws=1, stack=1)
    proof = stage_value(params, F(0))
    assert proof.value == F(-3, 40)
    assert proof.policies is not None
    assert replay_line(params, proof.policies) == (F(-3, 40), F(9, 100))


def test_three_players_are_refused():
    with pytest.raises(SolverError, match="two players"):
        solve_vuelta(BiduParams(players=3, faces=2, throws=1, stack=1))


def test_the_stage_game_is_a_python_bidu_game():
    game = stage_game(BiduParams(faces=2, throws=1, stack=1), F(-1, 3))
    assert isinstance(game, pyspiel.Game)
    assert game.params.replay_value == "-1/3"
