"""One entry point for solving a hand: `solve(params, method=...) -> Solution`.

Every method returns the same `Solution`, whose exploitability always comes from the exact
best response (solver/best_response.py), never from the method's own bookkeeping.
"""

from __future__ import annotations

import time
from typing import Callable

from games.bidou.params import BidouParams
from solver import best_response, cfr
from solver.errors import SolverError
from solver.model import HandModel, build_model
from solver.result import Solution, versions

__all__ = ["solve", "Solution", "versions", "METHODS", "LP_METHODS", "CFR_METHODS"]

LP_METHODS = ("lp",)
CFR_METHODS = ("cfr", "cfr+", "dcfr", "pcfr+")
METHODS = LP_METHODS + CFR_METHODS

# An LP solution must be this close to equilibrium, by the independent best response;
# otherwise the solve is reported as failed rather than printed as if it were right.
LP_TOLERANCE = 1e-8


def solve(params: BidouParams, method: str = "lp", iterations: int | None = None,
          target_exploitability: float | None = None,
          progress: Callable[[int, float, float], None] | None = None,
          model: HandModel | None = None) -> Solution:
    """Solve one hand under `params`. Raises SolverError if an LP solve is not trustworthy.

    CFR methods stop at `iterations` or at `target_exploitability`, whichever comes first,
    calling `progress(iteration, seconds, exploitability)` at each check.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    model = model or build_model(params)
    if method == "lp":
        return _solve_lp(model)
    return cfr.solve_cfr(model, method, iterations=iterations,
                         target_exploitability=target_exploitability, progress=progress)


def _solve_lp(model: HandModel) -> Solution:
    from solver.lp import solve_lp          # scipy.optimize takes ~0.4 s to import; CFR needs none

    start = time.perf_counter()
    lp = solve_lp(model)
    leaves = best_response.leaf_matrices(model)
    strategy = best_response.complete_unreached(model, lp.strategy, leaves=leaves)
    seconds = time.perf_counter() - start
    e = best_response.exploitability(model, strategy, leaves)
    if not e.nash_conv <= LP_TOLERANCE or abs(e.value - lp.value) > LP_TOLERANCE:
        raise SolverError(
            f"the LP reported value {lp.value:.12g} but its strategies are {e.nash_conv:.3g} "
            f"from equilibrium (value {e.value:.12g}); refusing to report it")
    return Solution(model=model, method="lp", value=lp.value, status="optimal",
                    converged=True, message=lp.message, seconds=seconds,
                    iterations=lp.iterations, exploitability=e, strategy=strategy)
