"""What several commands print the same way."""

from __future__ import annotations

from typing import Any


def proved(certificate: dict[str, Any], subject: str) -> str:
    """What a certificate proves, in one line (bounds rounded outward)."""
    from solver.hand.exact.certificate import Certificate

    proof = Certificate.from_dict(certificate)
    if proof.exact is not None:
        return f"{subject} = {proof.exact} exactly (exact arithmetic)"
    lower, upper = proof.decimals(16)
    return (f"{lower} <= {subject} <= {upper} (exact arithmetic; width "
            f"{float(proof.width):.1e})")


def gain(x: float, spec: str = ".3e") -> str:
    """What a best response gains (an exploitability), as printed: rounding noise
    (|x| < 1e-12, of either sign: a best response never gains less than nothing) as
    "< 1e-12", else formatted by `spec`."""
    from solver.export import numbers

    return numbers.NOISE_TEXT if abs(x) < numbers.NOISE else format(x, spec)
