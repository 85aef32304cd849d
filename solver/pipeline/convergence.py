"""Convergence of the CFR family: every method run for the same budget on one hand, the
histories of exploitability against iterations and seconds kept in each Solution
(`solver.export.convergence_chart` draws them; `bidou convergence`)."""

from __future__ import annotations

import dataclasses
from typing import Sequence

from games.bidou.params import BidouParams
from solver.common.progress import Step
from solver.hand.lp.sequence_form import solve_lp
from solver.hand.model import HandModel, build_model
from solver.hand.solve import CFR_METHODS, Solution, solve


@dataclasses.dataclass(frozen=True)
class Convergence:
    """Every CFR method's run (its history holds the curve) and the LP's value beside them."""

    runs: dict[str, Solution]
    lp_value: float


def measure_convergence(params: BidouParams, iterations: int,
                        progress: Step | None = None) -> Convergence:
    """`bidou convergence`'s numbers: each method for `iterations`, then the LP's value as the
    reference the curves approach."""
    model = build_model(params)
    runs = run_methods(model, iterations=iterations, progress=progress)
    if progress is not None:
        progress("solving the LP for the reference value", 0, 0)
    return Convergence(runs, solve_lp(model).value)


def run_methods(model: HandModel, methods: Sequence[str] = CFR_METHODS,
                iterations: int = 20_000, target_exploitability: float = 1e-9,
                progress: Step | None = None) -> dict[str, Solution]:
    """Each method for the same budget; the histories hold the curves.
    `progress(what, done, total)` hears of each method and each exploitability check
    (CFR says "METHOD: exploitability E" at iteration `done` of `total`)."""
    runs = {}
    for done, m in enumerate(methods, start=1):
        def checked(what: str, iteration: int, total: int, done: int = done) -> None:
            if progress is not None:
                progress(f"{what}, iteration {iteration} of {total}", done, len(methods))
        if progress is not None:
            progress(f"{m}: starting", done, len(methods))
        runs[m] = solve(model.params, m, iterations=iterations,
                        target_exploitability=target_exploitability, model=model,
                        progress=checked)
    return runs
