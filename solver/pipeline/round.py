"""The round pipeline: solve every chip state, prove each number in exact arithmetic, and
report; one result for `bidou round` and `bidou outputs`.

It calls solver/round's public functions only (solve_round, certify_round, round_report,
state_entry); the charts of one state are drawn here because they also need the hand's
equilibrium, to say how the state's play differs from it.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

from games.bidou.round_params import RoundParams
from solver.errors import SolverError
from solver.progress import Step
from solver.round.certify import RoundCertificate, RoundCertificateError, certify_round
from solver.round.report import round_report, state_entry
from solver.round.solve import RoundSolution, solve_round


@dataclasses.dataclass(frozen=True)
class ProvedRound:
    """A solved round, its certificate, and the report of every state (JSON-ready)."""

    solution: RoundSolution
    certificate: RoundCertificate
    report: dict[str, Any]

    def state(self, state: Any) -> dict[str, Any]:
        """One state's entry of the report (`solver.round.report.state_entry`)."""
        return state_entry(self.solution, self.certificate, state)


def prove_round(params: RoundParams, progress: Step | None = None,
                timed: bool = True) -> ProvedRound:
    """Solve and prove the round. SolverError if a number cannot be proved. `progress`
    hears `(what, done, total)` of the solve, then "proving". `timed=False` leaves the
    seconds out of the report (0.0), for files that must not change between runs."""
    begin = time.perf_counter()
    solution = solve_round(params, progress=progress)
    if progress is not None:
        progress("proving", 0, 1)
    try:
        certificate = certify_round(solution)
    except RoundCertificateError as error:
        raise SolverError(f"the round's numbers could not be proved: {error}") from None
    seconds = time.perf_counter() - begin if timed else 0.0
    return ProvedRound(solution, certificate, round_report(solution, certificate, seconds))


def state_charts(proved: ProvedRound, state: Any, label: str, out: str | Path
                 ) -> tuple[list[Path], str]:
    """The charts of one state's stage game (unreached decisions completed, so that the
    charts show sensible off-path play), and one sentence on how its play differs from the
    hand's equilibrium."""
    from solver.best_response import complete_unreached
    from solver.export.round_charts import write_state_charts
    from solver.pipeline.hand import solve_hand
    from solver.round.compare import difference

    hand = solve_hand(proved.solution.params.hand, plain=True).solution   # as published
    stage = proved.solution.stages[state]
    shown = complete_unreached(stage.model, stage.strategy)
    said = difference(stage.model, shown, hand.model, hand.strategy)
    paths = write_state_charts(stage.model, shown, label, said.short(), out,
                               value=proved.solution.values[state],
                               exploitability=said.stage_exploitability)
    return [Path(p) for p in paths], said.sentence()
