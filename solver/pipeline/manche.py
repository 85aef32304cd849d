"""The manche pipeline: solve every state (solver/manche/solve.py), prove each number in
exact arithmetic from the strategies solved (certify.py), and report; one result for
`bidou manche`. The proof runs beside the solve, each pool's on the workers while the next
pool's first stages are solved (`certify.PoolProofs`): the same exact numbers as proving
after the solve (`certify_manche`), with the workers' idle time used."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from games.le_bidou.manche import MancheParams
from solver.common.errors import SolverError
from solver.common.progress import Step
from solver.manche.certify import MancheCertificate, MancheCertificateError, PoolProofs
from solver.manche.report import manche_report
from solver.manche.solve import MancheSolution, decided_values, solve_manche


@dataclasses.dataclass(frozen=True)
class ProvedManche:
    """A solved manche, its certificate, and the report of every state (JSON-ready)."""

    solution: MancheSolution
    certificate: MancheCertificate
    report: dict[str, Any]


def prove_manche(params: MancheParams, progress: Step | None = None,
                 timed: bool = True) -> ProvedManche:
    """Solve the manche and prove every number from the strategies solved; SolverError if
    a number cannot be proved. `timed=False` leaves the seconds out (0.0)."""
    begin = time.perf_counter()
    proofs = PoolProofs(params, decided_values(params))
    try:
        solution = solve_manche(params, progress=progress, beside=proofs)
    except MancheCertificateError as error:
        raise SolverError(f"the manche's numbers could not be proved: {error}") from None
    certificate = proofs.certificate()
    now = time.perf_counter()
    report = manche_report(solution, certificate, now - begin if timed else 0.0,
                           solution.beside_seconds if timed else 0.0)
    if not timed:
        report["solve_seconds"] = 0.0
        for component in report["convergence"]:
            component["seconds"] = 0.0
        for entry in report["states"]:
            if entry["stage_seconds"] is not None:
                entry["stage_seconds"] = 0.0
    return ProvedManche(solution, certificate, report)
