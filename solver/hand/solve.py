"""One entry point for solving a hand: `solve(params, method=...) -> Solution`.

Every method returns the same `Solution`, whose exploitability always comes from the exact
best response (solver/hand/best_response.py), never from the method's own bookkeeping, and whose
value is bracketed by bounds proved in exact rational arithmetic (solver/hand/exact/certificate.py).
"""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

from games.catalog import GameParams
from games.family import HandDescription
from solver.common.errors import SolverError
from solver.common.progress import Step
from solver.hand import best_response
from solver.hand.cfr import iterations as cfr
from solver.hand.exact.certificate import certify
from solver.hand.model import HandModel, build_model
from solver.hand.result import Solution, versions

if TYPE_CHECKING:
    from solver.hand.lp.sequence_form import LPSolution

__all__ = ["solve", "Solution", "versions", "METHODS", "LP_METHODS", "CFR_METHODS"]

LP_METHODS = ("lp",)
CFR_METHODS = ("cfr", "cfr+", "dcfr", "pcfr+")
METHODS = LP_METHODS + CFR_METHODS

# An LP solution must be this close to equilibrium, by the independent best response;
# otherwise the solve is reported as failed rather than printed as if it were right.
LP_TOLERANCE = 1e-8
# The exact bounds must equal the float best responses to this (relative) precision: the
# strategies differ by their 2^-53 rounding, the float sums by rounding errors.
CERTIFICATE_AGREEMENT = 1e-11


def solve(params: GameParams | HandDescription, method: str = "lp", iterations: int | None = None,
          target_exploitability: float | None = None, progress: Step | None = None,
          model: HandModel | None = None, exact: bool = False) -> Solution:
    """Solve one hand of `params`: two-hand Bidou's or Le Bidou's parameters, or any
    description of the family (`LeBidouParams().description()`). Raises SolverError if an
    LP solve is not trustworthy.

    CFR methods stop at `iterations` or at `target_exploitability`, whichever comes first,
    calling `progress(what, done, total)` at each check. With `exact`, the exact rational
    equilibrium is recovered from the strategies and proves the value itself
    (`Solution.certificate.exact`) when it can, reporting its steps to `progress` too; the
    strategy stays the solver's (`solver.hand.exact_solution.exact_solution` also keeps the exact
    one).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    model = model or build_model(params)
    if method == "lp":
        solution = _solve_lp(model, progress)
    else:
        solution = cfr.solve_cfr(model, method, iterations=iterations,
                                 target_exploitability=target_exploitability,
                                 progress=progress)
    solution = with_certificate(solution)
    return with_exact_value(solution, progress) if exact else solution


def with_certificate(solution: Solution) -> Solution:
    """The solution with exact bounds on the value, checked against the float ones.

    The exact best responses and the float ones are independent routes to the same two
    numbers (what each strategy guarantees); if they disagree, one of them is wrong and
    nothing is reported.
    """
    proof = certify(solution.model, solution.strategy)
    e = solution.exploitability
    scale = 1.0 + abs(e.value)
    if not (proof.lower <= proof.upper
            and abs(float(proof.lower) - e.captain_guaranteed) <= CERTIFICATE_AGREEMENT * scale
            and abs(float(proof.upper) - e.captain_best) <= CERTIFICATE_AGREEMENT * scale):
        raise SolverError(
            f"the exact bounds [{float(proof.lower):.15g}, {float(proof.upper):.15g}] disagree "
            f"with the float best responses [{e.captain_guaranteed:.15g}, "
            f"{e.captain_best:.15g}]; refusing to report either")
    return dataclasses.replace(solution, certificate=proof)


def with_exact_value(solution: Solution, progress: Step | None = None) -> Solution:
    """The solution with the certificate narrowed by the exact equilibrium recovered from
    its strategies: a single value when the recovery works, the same interval when it does
    not (and its message then says why). The strategy and its measures stay the solver's,
    which is what the sweep and docs/results.md tabulate."""
    return exact_recovery(solution, progress)[0]


def exact_recovery(solution: Solution, progress: Step | None = None
                   ) -> tuple[Solution, str | None]:
    """`with_exact_value`, and why the value is not proved (None when it is); the recovery
    itself is `solver.hand.exact_solution.exact_solution`, the one every caller shares."""
    from solver.hand.exact_solution import exact_solution  # scipy.linalg: only when asked

    found = exact_solution(solution, progress)
    message = solution.message
    if found.reason is not None:
        message = f"{message}; exact value not proved: {found.reason}"
    return (dataclasses.replace(solution, certificate=found.solution.certificate,
                                message=message), found.reason)


def _solve_lp(model: HandModel, progress: Step | None = None) -> Solution:
    from solver.hand.lp.restricted import solve_restricted, too_large_for_one_lp
    from solver.hand.lp.sequence_form import (
        solve_lp,  # scipy.optimize is slow to import; CFR needs none
    )

    start = time.perf_counter()
    lp = solve_restricted(model, progress=progress) if too_large_for_one_lp(model) \
        else solve_lp(model)
    return lp_solution(model, lp, start)


def lp_solution(model: HandModel, lp: LPSolution, start: float) -> Solution:
    """An LP's solution (`solve_lp`'s, or the double oracle's lifted pair) as a Solution:
    its unreached decisions completed and its exploitability measured by the exact best
    response (SolverError if it is off); `start` is when the solve began
    (`time.perf_counter()`)."""
    from solver.hand.lp.restricted import too_large_for_one_lp

    leaves = best_response.leaf_matrices(model)
    # each player's best response on its own core where each takes a fifth of a second
    parallel = too_large_for_one_lp(model)
    strategy = best_response.complete_unreached(model, lp.strategy, leaves=leaves,
                                                parallel=parallel)
    seconds = time.perf_counter() - start
    e = best_response.exploitability(model, strategy, leaves, parallel=parallel)
    if not e.nash_conv <= LP_TOLERANCE or abs(e.value - lp.value) > LP_TOLERANCE:
        raise SolverError(
            f"the LP reported value {lp.value:.12g} but its strategies are {e.nash_conv:.3g} "
            f"from equilibrium (value {e.value:.12g}); refusing to report it")
    return Solution(model=model, method="lp", value=lp.value, status="optimal",
                    converged=True, message=lp.message, seconds=seconds,
                    iterations=lp.iterations, exploitability=e, strategy=strategy)
