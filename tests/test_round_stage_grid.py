"""The round's stage games are refined on a dyadic grid of continuation values:
each value rounded to the nearest multiple of 2^-GRID_BITS, so the exact probabilities of the
refined stage strategies stay within the certificate's denominator."""

from __future__ import annotations

from fractions import Fraction

from solver.round.refine_stages import GRID_BITS, on_grid


def test_the_stage_games_are_refined_on_a_dyadic_grid():
    """Exact, within half a step of the float, and a float already on the grid is kept."""
    step = Fraction(1, 2**GRID_BITS)
    for value in (0.0, 1.0, 0.5, 0.498147485057649, 1 / 3, 0.9999999999999999):
        q = on_grid(value)
        assert (q / step).denominator == 1
        assert abs(q - Fraction(value)) <= step / 2
    assert on_grid(0.498147485057649, bits=None) == Fraction(0.498147485057649)
    assert on_grid(0.75) == Fraction(3, 4)
    assert on_grid(1 / 3) != Fraction(1 / 3)          # a 53-bit fraction is moved
