"""Measured numbers as files print them: rounded so that float noise cannot flip a byte.

A best response measured in floating point carries rounding noise of about 1e-16: the
exploitability of an exact equilibrium comes out as 2.98e-16 in one run and 2.81e-16 in the
next. Written as measured, every regeneration would rewrite the files. So every file that
`export` writes holds measured numbers rounded to `DECIMALS` decimal places, and prints
anything smaller than `NOISE` as "< 1e-12": the same strategy gives the same bytes.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

DECIMALS = 12
NOISE = 10.0 ** -DECIMALS
NOISE_TEXT = "< 1e-12"
# Provenance that changes at every run: kept by `solve --out`, left out of exported files.
RUN_SPECIFIC = ("seconds",)


def stable(x: float) -> float:
    """`x` rounded to DECIMALS places (never -0.0)."""
    value = round(float(x), DECIMALS)
    return 0.0 if value == 0 else value


def percent(p: float) -> int:
    """A probability in whole percent, halves rounded up after rounding away float noise:
    0.875 and 0.87499999999999 both give 88 (Python's `round` gives 88 and 87)."""
    return math.floor(round(100 * float(p), 6) + 0.5)


def measured(x: float | None, digits: int = 12) -> str:
    """A measured number for a reader: "< 1e-12" at noise level, else `digits` significant
    digits of its rounded value."""
    if x is None:
        return "not measured"
    if abs(x) < NOISE:
        return NOISE_TEXT
    return f"{stable(x):.{digits}g}"


def stable_document(value: Any) -> Any:
    """A summary (nested dicts and lists) with every float rounded by `stable` and the
    run-specific provenance left out."""
    if isinstance(value, Mapping):
        return {k: stable_document(v) for k, v in value.items() if k not in RUN_SPECIFIC}
    if isinstance(value, (list, tuple)):
        return [stable_document(v) for v in value]
    if isinstance(value, float) and math.isfinite(value):
        return stable(value)
    return value


def upper_decimal(x: Fraction | float, significant: int = 2) -> str:
    """`x` rounded up to `significant` digits, in e-notation ("3.1e-07")."""
    x = Fraction(x)
    if x <= 0:
        return "0"
    exponent = math.floor(math.log10(float(x))) - (significant - 1)
    scale = Fraction(10) ** exponent
    mantissa = math.ceil(x / scale)
    return f"{float(mantissa * scale):.{significant - 1}e}"


def quality(summary: Mapping[str, Any]) -> str:
    """What was proved about a strategy, in words, for titles and summaries.

    "exact equilibrium" only when the certificate proves the value exactly (the strategies
    are then the exact rational equilibrium, or its rounding); otherwise the exploitability
    bound the exact-arithmetic certificate proves (half its width), or, without a
    certificate, the measured exploitability.
    """
    from solver.hand.exact.certificate import Certificate

    proof = summary.get("certified_value")
    if proof:
        certificate = Certificate.from_dict(proof)
        if certificate.exact is not None:
            return "exact equilibrium (value proved in exact arithmetic)"
        bound = certificate.width / 2
        if bound < NOISE:
            return f"exploitability {NOISE_TEXT} chips per hand (proved)"
        return f"exploitability ≤ {upper_decimal(bound)} chips per hand (proved)"
    e = summary.get("exploitability")
    if e is None:
        return ""
    if e < NOISE:
        return f"exploitability {NOISE_TEXT} chips per hand"
    return f"exploitability {e:.4f} chips per hand"
