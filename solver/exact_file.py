"""The exact rational equilibrium behind a float strategy, kept so that it can be saved.

`solve(..., exact=True)` proves the value but keeps only the proof; a strategy file written
from it would hold the floats alone, and reading it back could prove no more than an
interval. `recover` returns the exact probabilities too, so `bidou solve --exact --out` and
`bidou export --exact` save them (`strategy.exact_to_json`) and anyone reading the file
proves the exact value again (`certificate.prove_fractions`).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Callable

import numpy as np

from solver import exact_equilibrium
from solver.certificate import Certificate
from solver.errors import SolverError
from solver.model import HandModel
from solver.strategy import Strategy

Exact = dict[tuple, list[Fraction]]


@dataclasses.dataclass(frozen=True)
class Recovered:
    """What the recovery proved: `exact` is None unless the value is proved exactly, and
    `strategy` is then the float rounding of `exact` (the strategy to save beside it);
    otherwise `reason` says why not."""

    certificate: Certificate | None
    strategy: Strategy | None = None
    exact: Exact | None = None
    reason: str | None = None


def recover(model: HandModel, strategy: Strategy,
            progress: Callable[[str, int, int], None] | None = None) -> Recovered:
    """`exact_equilibrium.recover` (the strategy as it is, then with its unreached decisions
    completed; the certificate is the intersection of the attempts' proofs), keeping the
    exact probabilities when they prove the value. `progress(step, done, total)` follows
    the work."""
    found = exact_equilibrium.recover(model, strategy, progress)
    if found.exact is None:
        return Recovered(found.certificate, reason=found.reason)
    return Recovered(found.certificate, to_floats(found.strategy, found.exact), found.exact)


def narrowed(known: Certificate | None, proof: Certificate | None) -> Certificate | None:
    """The intersection of two proofs of the same value; SolverError if they are disjoint
    (one of them is wrong, so neither is reported)."""
    if proof is None or known is None:
        return proof or known
    lower, upper = max(known.lower, proof.lower), min(known.upper, proof.upper)
    if lower > upper:
        raise SolverError(f"the exact strategies prove [{float(proof.lower):.17g}, "
                          f"{float(proof.upper):.17g}], outside [{float(known.lower):.17g}, "
                          f"{float(known.upper):.17g}]; refusing to report either")
    return Certificate(lower, upper)


def to_floats(strategy: Strategy, exact: Exact) -> Strategy:
    """The strategy whose probabilities are the float roundings of `exact`."""
    out = strategy.copy()
    for key, row in exact.items():
        values = [float(p) for p in row]
        if key[0] == "throw":
            _, role, context, throw, hand = key
            out.throw[role][context, throw, :, hand] = values
        else:
            _, node, hand = key
            out.betting[node][:, hand] = np.asarray(values)
    return out
