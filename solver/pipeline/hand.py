"""The hand pipeline: solve (LP or CFR), certify, recover the exact equilibrium if asked,
and re-measure the strategy kept; one result for `bidou solve`, `export`, `outputs`, ...

The LP's default is the refined equilibrium (solver/hand/refined: the limit of the perturbed LP,
proved exactly, sequentially rational at every decision, docs/refined.md); `plain=True`
gives the plain LP's vertex, an arbitrary equilibrium whose play where the other player's
strategy never goes may be anything. Every strategy file says which (`equilibrium`).

The exact recovery is `solver.hand.exact_solution.exact_solution` (the one implementation): with
it the strategy kept is the float rounding of the exact one, and its strategy file holds
the exact probabilities, so reading it back proves the exact value again.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Union

from games.bidou.params import BidouParams, ParameterError
from games.catalog import GameParams
from games.le_bidou.params import LeBidouParams
from solver.common.errors import SolverError
from solver.common.progress import Step, quiet
from solver.common.types import Exact
from solver.hand import exact_solution as exact_file
from solver.hand import solve as solving
from solver.hand.model import HandModel
from solver.hand.result import Solution
from solver.hand.strategy import Strategy, exact_to_json

# A solved hand as the export layer reads it: a Solution, or what a strategy file holds.
Source = Union[Solution, tuple[HandModel, Strategy, dict[str, Any]]]

REFINED = "refined"        # solver/hand/refined: exact, sequentially rational everywhere
PLAIN = "plain LP vertex"  # solver/hand/lp: an arbitrary equilibrium off the path

# Above this many betting rows (public states x decisions x hands: max_stake 5 with the
# default dice) CFR without a bound on its iterations would run for hours.
LE_BIDOU_CFR_ROWS = 9 * 2**5 * 56


@dataclasses.dataclass(frozen=True)
class RefinedSolution(Solution):
    """The refined equilibrium as a Solution (what export, play and cheat sheets read),
    with its exact probabilities; its summary says which equilibrium it is."""

    exact: Exact | None = None
    equilibrium: str = REFINED

    def summary(self) -> dict[str, Any]:
        return {**super().summary(), "equilibrium": self.equilibrium}


@dataclasses.dataclass(frozen=True)
class HandResult:
    """A solved hand: the solution (with its exact equilibrium's rounding when `exact` is
    known), the exact probabilities, or why the value is not proved exactly (`why_not`;
    None when no exact recovery was asked for or it worked)."""

    solution: Solution
    exact: Exact | None = None
    why_not: str | None = None
    equilibrium: str | None = None      # REFINED or PLAIN for the LP; None for CFR

    @property
    def proved(self) -> bool:
        """Whether the certificate proves the value itself, not only an interval."""
        proof = self.solution.certificate
        return proof is not None and proof.exact is not None

    def document(self) -> dict[str, Any]:
        """The strategy file: with the exact probabilities when they are known."""
        document = self.solution.to_json()
        if self.equilibrium is not None:
            document["result"]["equilibrium"] = self.equilibrium
        if self.exact is None:
            return document
        return exact_to_json(document, self.solution.model, self.solution.strategy,
                             self.exact)


def le_bidou_rows(params: LeBidouParams) -> int:
    """The size `LE_BIDOU_CFR_ROWS` bounds: public states x betting decisions x hands."""
    from games.bidou.rules import all_hands

    return params.throws ** 2 * 2 ** params.max_stake * len(all_hands(params.faces))


def check_solvable(params: GameParams, method: str, iterations: int | None) -> None:
    """ParameterError (one line, before any work) for CFR without a bound on its iterations
    on a large Le Bidou hand: it would run for hours with nothing to show. The LP solves
    every hand (the largest by the restricted LP of solver/hand/lp/restricted.py, minutes)."""
    if not isinstance(params, LeBidouParams) or method == "lp" or iterations is not None:
        return
    rows = le_bidou_rows(params)
    if rows > LE_BIDOU_CFR_ROWS:
        raise ParameterError(
            f"Le Bidou at max_stake {params.max_stake} with {params.faces} faces and "
            f"{params.throws} throws has {rows:,} betting rows (public states x decisions x "
            f"hands): {method} would need hours to reach its target (pcfr+: 6000 iterations, "
            f"about 5 minutes, prove the default hand to width 1.5e-4, docs/le-bidou.md); "
            f"give --iterations N or use the LP")


def solve_hand(params: GameParams, method: str = "lp", iterations: int | None = None,
               target_exploitability: float | None = None, exact: bool = False,
               progress: Step | None = None, exact_progress: Step | None = None,
               plain: bool = False) -> HandResult:
    """Solve and certify one hand: by the LP, its refined equilibrium (`refined_hand`,
    always exact) unless `plain`; otherwise `solver.hand.solve.solve`, and with `exact` its
    exact equilibrium recovered too (`with_exact`). `progress` hears the solve,
    `exact_progress` the recovery (default: `progress`). Le Bidou's LP gives its plain
    vertex: the refined equilibrium's limit is not recovered on its stakes trees."""
    if method == "lp" and not plain and isinstance(params, BidouParams):
        return refined_hand(params, progress)
    if method == "lp" and exact and isinstance(params, LeBidouParams):
        from solver.hand.lp.restricted import too_large_for_one_lp
        from solver.hand.model import build_model

        model = build_model(params.description())
        if too_large_for_one_lp(model):
            return restricted_exact_hand(model, progress, exact_progress or progress)
    solution = solving.solve(params, method, iterations=iterations,
                             target_exploitability=target_exploitability, progress=progress)
    equilibrium = PLAIN if method == "lp" else None
    if not exact:
        return HandResult(solution, equilibrium=equilibrium)
    return dataclasses.replace(with_exact(solution, exact_progress or progress),
                               equilibrium=equilibrium)


def restricted_exact_hand(model: HandModel, progress: Step | None = None,
                          exact_progress: Step | None = None) -> HandResult:
    """A Le Bidou hand too large for one LP, with its exact value: the double oracle
    (solver/hand/lp/restricted.py), its lifted pair measured and certified as any LP solution, then
    `exact_lift` (the exact equilibrium recovered on the restricted model, lifted, proved
    on the full model). Its exact probabilities become the strategy kept (measured again)."""
    import time

    from solver.hand import best_response
    from solver.hand.lp.restricted import double_oracle, exact_lift

    start = time.perf_counter()
    oracle = double_oracle(model, progress=progress)
    solution = solving.with_certificate(solving.lp_solution(model, oracle.solution, start))
    found = exact_lift(model, oracle, exact_progress)
    certificate = exact_file.narrowed(solution.certificate, found.certificate)
    if found.exact is None or found.strategy is None:
        return HandResult(dataclasses.replace(solution, certificate=certificate), None,
                          found.reason, PLAIN)
    strategy = exact_file.to_floats(found.strategy, found.exact)
    kept = dataclasses.replace(solution, strategy=strategy, certificate=certificate,
                               exploitability=best_response.exploitability(model, strategy))
    return HandResult(kept, found.exact, None, PLAIN)


def refined_hand(params: BidouParams, progress: Step | None = None) -> HandResult:
    """The refined equilibrium of the hand, its value proved exactly; its exploitability
    measured by the exact best response (solver/hand/best_response.py, which shares no code
    with the LPs). SolverError if it cannot be proved or is measurably off."""
    from solver.hand import best_response
    from solver.hand.lp.perturbed import FAST, SOLVERS
    from solver.hand.model import build_model
    from solver.hand.refined.quasi_perfect import refined_equilibrium

    model = build_model(params)
    refined = refined_equilibrium(model, progress=progress, fast_first=True)
    e = best_response.exploitability(model, refined.strategy)
    value = refined.certificate.exact
    if value is None or not e.nash_conv <= solving.LP_TOLERANCE \
            or abs(e.value - float(value)) > solving.LP_TOLERANCE:
        raise SolverError(f"the refined equilibrium is {e.nash_conv:.3g} from equilibrium "
                          f"(value {e.value:.12g}); refusing to report it")
    perturbed = refined.perturbed
    solution = RefinedSolution(
        model=model, method="lp", value=float(value), status="optimal", converged=True,
        message=f"refined equilibrium: limit of the perturbed LP at eta {perturbed.eta:g} "
                f"({perturbed.kind} trembles; {SOLVERS[perturbed.lp]}), exact value proved"
                + (", independent check passed" if perturbed.lp == FAST else ""),
        seconds=refined.seconds, iterations=perturbed.iterations, exploitability=e,
        strategy=refined.strategy, certificate=refined.certificate, exact=refined.exact)
    return HandResult(solution, refined.exact, equilibrium=REFINED)


def with_exact(solution: Solution, progress: Step | None = None) -> HandResult:
    """The solution with its exact equilibrium, or with what was proved and why not."""
    found = exact_file.exact_solution(solution, progress)
    return HandResult(found.solution, found.exact, found.reason)


def hand_source(params: GameParams, strategy_file: str | None, plain: bool = False
                ) -> Source:
    """A solved hand: read from a strategy file (not measured yet: the export layer
    measures it), or solved now with the LP: its refined equilibrium unless `plain` (Le
    Bidou: always its plain vertex, as `solve_hand` says)."""
    from solver.hand.strategy import load_strategy_file

    if strategy_file is None:
        if plain or not isinstance(params, BidouParams):
            return solving.solve(params)
        return refined_hand(params).solution
    return load_strategy_file(strategy_file)


def exact_source(source: Source, strategy_file: str | None, exact: bool,
                 progress: Step | None = None) -> tuple[Source, Exact | None]:
    """(source, exact probabilities or None): those a strategy file holds, else with
    `exact` those recovered now (the source's strategy then becomes their rounding).
    SolverError if `exact` asks for them and none can be recovered."""
    from solver.export.bundle import unpack
    from solver.hand.strategy import load_exact

    fractions: Exact | None = None
    if strategy_file is not None and isinstance(source, tuple):
        model, strategy, _ = source
        fractions = load_exact(strategy_file, model, strategy)
    if isinstance(source, RefinedSolution):
        fractions = source.exact
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
    from solver.hand.strategy import load_exact

    model, strategy, recorded = source
    recorded_game_value = _recorded_number((recorded or {}).get("game_value"), "game_value")
    model, _, summary = unpack(source, load_exact(strategy_file, model, strategy))
    report = {key: summary.get(key) for key in (
        "on_policy_value", "exploitability", "nash_conv", "captain_exploitability",
        "opponent_exploitability", "certified_value")}
    report["rules"] = model.game_rules
    report["claimed"] = {key: summary.get(key) for key in ("method", "status", "value")}
    report["exploitability_against"] = "on_policy_value"
    return report, recorded_game_value


def _recorded_number(value: Any, field: str) -> float | None:
    """A number a strategy file records, as a float; StrategyFileError (one line naming
    the field) unless it is a finite JSON number."""
    import math

    from solver.hand.strategy import StrategyFileError

    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise StrategyFileError(f"result.{field} recorded in the strategy file "
                                f"({value!r:.40}) is not a number")
    return float(value)
