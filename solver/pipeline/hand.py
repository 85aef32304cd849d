"""The hand pipeline: solve (LP or CFR), certify, recover the exact equilibrium if asked,
and re-measure the strategy kept; one result for `bidou solve`, `export`, `outputs`, ...

The exact recovery is `solver.exact_file.exact_solution` (the one implementation): with
it the strategy kept is the float rounding of the exact one, and its strategy file holds
the exact probabilities, so reading it back proves the exact value again.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Union

from games.bidou.params import BidouParams
from solver import exact_file
from solver import solve as solving
from solver.errors import SolverError
from solver.model import HandModel
from solver.progress import Step, quiet
from solver.result import Solution
from solver.strategy import Strategy, exact_to_json
from solver.types import Exact

# A solved hand as the export layer reads it: a Solution, or what a strategy file holds.
Source = Union[Solution, tuple[HandModel, Strategy, dict[str, Any]]]


@dataclasses.dataclass(frozen=True)
class HandResult:
    """A solved hand: the solution (with its exact equilibrium's rounding when `exact` is
    known), the exact probabilities, or why the value is not proved exactly (`why_not`;
    None when no exact recovery was asked for or it worked)."""

    solution: Solution
    exact: Exact | None = None
    why_not: str | None = None

    @property
    def proved(self) -> bool:
        """Whether the certificate proves the value itself, not only an interval."""
        proof = self.solution.certificate
        return proof is not None and proof.exact is not None

    def document(self) -> dict[str, Any]:
        """The strategy file: with the exact probabilities when they are known."""
        document = self.solution.to_json()
        if self.exact is None:
            return document
        return exact_to_json(document, self.solution.model, self.solution.strategy,
                             self.exact)


def solve_hand(params: BidouParams, method: str = "lp", iterations: int | None = None,
               target_exploitability: float | None = None, exact: bool = False,
               progress: Step | None = None, exact_progress: Step | None = None
               ) -> HandResult:
    """Solve and certify one hand (`solver.solve.solve`); with `exact`, recover its exact
    equilibrium too (`with_exact`). `progress` hears the solve, `exact_progress` the
    recovery (default: `progress`)."""
    solution = solving.solve(params, method, iterations=iterations,
                             target_exploitability=target_exploitability, progress=progress)
    if not exact:
        return HandResult(solution)
    return with_exact(solution, exact_progress or progress)


def with_exact(solution: Solution, progress: Step | None = None) -> HandResult:
    """The solution with its exact equilibrium, or with what was proved and why not."""
    found = exact_file.exact_solution(solution, progress)
    return HandResult(found.solution, found.exact, found.reason)


def hand_source(params: BidouParams, strategy_file: str | None) -> Source:
    """A solved hand: read from a strategy file (not measured yet: the export layer
    measures it), or solved now with the LP."""
    from solver.strategy import load_strategy_file

    if strategy_file is None:
        return solving.solve(params)
    return load_strategy_file(strategy_file)


def exact_source(source: Source, strategy_file: str | None, exact: bool,
                 progress: Step | None = None) -> tuple[Source, Exact | None]:
    """(source, exact probabilities or None): those a strategy file holds, else with
    `exact` those recovered now (the source's strategy then becomes their rounding).
    SolverError if `exact` asks for them and none can be recovered."""
    from solver.export.bundle import unpack
    from solver.strategy import load_exact

    fractions: Exact | None = None
    if strategy_file is not None and isinstance(source, tuple):
        model, strategy, _ = source
        fractions = load_exact(strategy_file, model, strategy)
    if not exact or fractions is not None:
        return source, fractions
    model, strategy, summary = unpack(source)
    found = exact_file.recover(model, strategy, progress or quiet)
    if found.exact is None or found.strategy is None:
        raise SolverError(f"no exact equilibrium could be recovered from this strategy "
                          f"({found.reason}); leave out --exact for its proved interval")
    summary = {k: v for k, v in summary.items() if k != "value"}
    return (model, found.strategy, summary), found.exact


def file_report(source: tuple[HandModel, Strategy, dict[str, Any]], strategy_file: str
                ) -> tuple[dict[str, Any], Any]:
    """What `bidou evaluate` reports of a strategy file: every number measured again (the
    file's exact probabilities, if any, prove the value itself), the file's claims apart;
    and the game value the file records (None, or a finite number: a claim to be shown
    as one, never as a finding)."""
    from solver.export.bundle import unpack
    from solver.strategy import load_exact

    model, strategy, recorded = source
    recorded_game_value = _recorded_number((recorded or {}).get("game_value"), "game_value")
    model, _, summary = unpack(source, load_exact(strategy_file, model, strategy))
    report = {key: summary.get(key) for key in (
        "on_policy_value", "exploitability", "nash_conv", "captain_exploitability",
        "opponent_exploitability", "certified_value")}
    report["rules"] = model.params.to_dict()
    report["claimed"] = {key: summary.get(key) for key in ("method", "status", "value")}
    report["exploitability_against"] = "on_policy_value"
    return report, recorded_game_value


def _recorded_number(value: Any, field: str) -> float | None:
    """A number a strategy file records, as a float; StrategyFileError (one line naming
    the field) unless it is a finite JSON number."""
    import math

    from solver.strategy import StrategyFileError

    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise StrategyFileError(f"result.{field} recorded in the strategy file "
                                f"({value!r:.40}) is not a number")
    return float(value)
