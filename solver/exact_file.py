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

import numpy as np

from solver import best_response
from solver.certificate import Certificate, prove_fractions
from solver.errors import SolverError
from solver.exact_equilibrium import exact_strategies
from solver.model import HandModel
from solver.strategy import Strategy

Exact = dict[tuple, list[Fraction]]


@dataclasses.dataclass(frozen=True)
class Recovered:
    """What the recovery proved: `exact` is None unless the value is proved exactly, and
    `strategy` is then the float rounding of `exact` (the strategy to save beside it)."""

    certificate: Certificate | None
    strategy: Strategy | None = None
    exact: Exact | None = None


def recover(model: HandModel, strategy: Strategy) -> Recovered:
    """Try the strategy as it is, then with its unreached decisions completed (as
    `exact_equilibrium.exact_value` does); every attempt is a proof, so the certificate is
    their intersection."""
    proofs: list[Certificate] = []
    for completed in (False, True):
        candidate = best_response.complete_unreached(model, strategy) if completed else strategy
        found = exact_strategies(model, candidate)
        if found is None:
            continue
        proof = prove_fractions(model, candidate, found)
        proofs.append(proof)
        if proof.exact is not None:
            return Recovered(proof, to_floats(candidate, found), found)
    if not proofs:
        return Recovered(None)
    return Recovered(Certificate(max(p.lower for p in proofs), min(p.upper for p in proofs)))


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
