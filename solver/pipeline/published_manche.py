"""Le Bidou's published manche (outputs/le-bidou/): the default manche solved and proved
(`solver.pipeline.manche.prove_manche`, untimed, so that a fresh solve writes the same
report), then simulated with the strategies solved. `solver.export.manche_page` renders
the outcome; `bidou outputs` writes it and `--check` compares it (solver/app/manche_check.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from games.le_bidou.manche import MancheParams
from solver.common.progress import Step
from solver.manche.simulate import Estimate

# The published manche: the default rules (9 chips, 6 faces, 3 throws, stakes up to the
# pool, half stake rounded up, the winner of a manche first in the next).
PUBLISHED = MancheParams()
# The Monte Carlo of the page: as many manches as docs/manche.md's measurements (a standard
# error of about 0.0035), its seed fixed so that the page is reproducible.
MONTE_CARLO_MANCHES = 20_000
MONTE_CARLO_SEED = 9


@dataclasses.dataclass(frozen=True)
class MonteCarlo(Estimate):
    """The independent simulation's result (solver/manche/simulate.py's `Estimate`: how
    often the first player of the first hand won over `manches` manches), and the `seed`
    they were drawn from, which the page prints and the check compares."""

    seed: int = dataclasses.field(kw_only=True)

    def z(self, start_value: float) -> float:
        """Standard errors from the estimate to the start value (positive: above it)."""
        return (self.rate - start_value) / self.standard_error


@dataclasses.dataclass(frozen=True)
class MancheOutcome:
    """What the page is drawn from: the proved report (no timings) and the Monte Carlo."""

    report: dict[str, Any]
    monte_carlo: MonteCarlo


def solve_published(params: MancheParams = PUBLISHED, progress: Step | None = None,
                    manches: int = MONTE_CARLO_MANCHES, seed: int = MONTE_CARLO_SEED
                    ) -> MancheOutcome:
    """Solve and prove the manche (untimed: a fresh solve writes the same report), then
    simulate it with the solved strategies."""
    from solver.manche.policy import SolvedPolicy, simulation_rules
    from solver.manche.simulate import estimate
    from solver.pipeline.manche import prove_manche

    proved = prove_manche(params, progress=progress, timed=False)
    if progress is not None:
        progress(f"simulating {manches} manches", 0, 1)
    found = estimate(simulation_rules(params), SolvedPolicy(proved.solution), manches, seed)
    return MancheOutcome(proved.report, MonteCarlo(found.manches, found.wins,
                                                   found.mean_hands, seed=seed))
