"""What several commands print the same way."""

from __future__ import annotations

from typing import Any


def proved(certificate: dict[str, Any], subject: str) -> str:
    """What a certificate proves, in one line (bounds rounded outward)."""
    from solver.certificate import Certificate

    proof = Certificate.from_dict(certificate)
    if proof.exact is not None:
        return f"{subject} = {proof.exact} exactly (exact arithmetic)"
    lower, upper = proof.decimals(16)
    return (f"{lower} <= {subject} <= {upper} (exact arithmetic; width "
            f"{float(proof.width):.1e})")
