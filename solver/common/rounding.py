"""The one rounding of floats to fractions.

Exact arithmetic starts from floats (an LP's vertex, OpenSpiel's probabilities) and needs the
fraction each stands for: 1/3 for 0.333..., a simple basis point for a float guess. Every
such rounding in the project goes through `nearest_fraction` (with a bound on the
denominator), and `snap` adds the check that the fraction really is what the float stands
for, so that a float with no small fraction behind it is never taken for one.
"""

from __future__ import annotations

from fractions import Fraction

ONE_IN_A_TRILLION = Fraction(1, 10 ** 12)


def nearest_fraction(x: float | int | Fraction, max_denominator: int | None) -> Fraction:
    """The simplest fraction closest to `x` whose denominator is at most `max_denominator`
    (None: the float's exact binary value)."""
    exact = Fraction(float(x)) if not isinstance(x, Fraction) else x
    return exact if max_denominator is None else exact.limit_denominator(max_denominator)


def snap(x: float, max_denominator: int = 10 ** 6,
         tolerance: Fraction = ONE_IN_A_TRILLION) -> Fraction | None:
    """The small fraction `x` stands for, or None if none lies within `tolerance` of it
    (relative to |x| above 1)."""
    exact = Fraction(float(x))
    f = exact.limit_denominator(max_denominator)
    scale = abs(exact) if abs(exact) > 1 else Fraction(1)
    return f if abs(f - exact) <= tolerance * scale else None
