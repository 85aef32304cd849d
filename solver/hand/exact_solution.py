"""The exact rational equilibrium behind a float strategy: the one place it is assembled.

`exact_solution` is what every caller uses (`solve(..., exact=True)`, the hand pipeline behind
`bidou solve --exact`, `bidou outputs`, `bidou export --exact`): recover the exact
probabilities (`recover`), narrow the certificate with their proof (`narrowed`), and keep the
float rounding of the exact strategy, measured again. A strategy file written from it holds
the exact probabilities too (`strategy.exact_to_json`), so anyone reading the file proves the
exact value again (`certificate.prove_fractions`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from solver.common.errors import SolverError
from solver.common.progress import Step
from solver.common.types import Exact
from solver.hand import best_response
from solver.hand.exact.certificate import Certificate
from solver.hand.model import HandModel
from solver.hand.result import Solution
from solver.hand.strategy import Strategy


@dataclasses.dataclass(frozen=True)
class Recovered:
    """What the recovery proved: `exact` is None unless the value is proved exactly, and
    `strategy` is then the float rounding of `exact` (the strategy to save beside it);
    otherwise `reason` says why not."""

    certificate: Certificate | None
    strategy: Strategy | None = None
    exact: Exact | None = None
    reason: str | None = None


@dataclasses.dataclass(frozen=True)
class ExactSolution:
    """A solution with its exact equilibrium: when `exact` is known, `solution.strategy` is
    its float rounding (measured again) and the certificate proves the value itself;
    otherwise the solution is the solver's, with what was proved, and `reason` says why
    the value is not."""

    solution: Solution
    exact: Exact | None
    reason: str | None


def recover(model: HandModel, strategy: Strategy, progress: Step | None = None) -> Recovered:
    """`exact_equilibrium.recover` (the strategy as it is, then with its unreached decisions
    completed; the certificate is the intersection of the attempts' proofs), keeping the
    exact probabilities when they prove the value. `progress(step, done, total)` follows
    the work."""
    # scipy.linalg (a fifth of a second to import) only when an exact recovery is asked for
    from solver.hand.exact import equilibrium as exact_equilibrium

    found = exact_equilibrium.recover(model, strategy, progress)
    if found.exact is None or found.strategy is None:
        return Recovered(found.certificate, reason=found.reason)
    return Recovered(found.certificate, to_floats(found.strategy, found.exact), found.exact)


def exact_solution(solution: Solution, progress: Step | None = None) -> ExactSolution:
    """The solution with its exact equilibrium, when one is recovered (see ExactSolution).

    SolverError if the recovered proof contradicts the solution's own certificate."""
    found = recover(solution.model, solution.strategy, progress)
    certificate = narrowed(solution.certificate, found.certificate)
    if found.exact is None or found.strategy is None:
        return ExactSolution(dataclasses.replace(solution, certificate=certificate), None,
                             found.reason)
    measured = best_response.exploitability(solution.model, found.strategy)
    kept = dataclasses.replace(solution, strategy=found.strategy, exploitability=measured,
                               certificate=certificate)
    return ExactSolution(kept, found.exact, None)


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
