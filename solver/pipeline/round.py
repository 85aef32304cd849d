"""The round pipeline: solve every chip state, refine every stage game's equilibrium
(solver/round/refine_stages.py), prove each number in exact arithmetic from the strategies kept, and
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
from solver.common.errors import SolverError
from solver.common.progress import Step
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
                timed: bool = True, refined: bool = True) -> ProvedRound:
    """Solve the round, refine every stage's equilibrium at the solved values (the default;
    with `refined=False`, `bidou round --plain`, the stage LPs' vertices are kept), and
    prove every number from the strategies kept.
    SolverError if a stage cannot be refined or a number cannot be proved. `progress`
    hears `(what, done, total)` of the solve, the refinement, then "proving".
    `timed=False` leaves the seconds out of the report (0.0), for files that must not
    change between runs."""
    from solver.round.refine_stages import refine_round, stage_check

    begin = time.perf_counter()
    solution = solve_round(params, progress=progress)
    checked = None
    if refined:
        solution, refined_stages = refine_round(solution, progress=progress)
        checked = stage_check(refined_stages)
    if progress is not None:
        progress("proving", 0, 1)
    try:
        certificate = certify_round(solution)
    except RoundCertificateError as error:
        raise SolverError(f"the round's numbers could not be proved: {error}") from None
    seconds = time.perf_counter() - begin if timed else 0.0
    report = round_report(solution, certificate, seconds)
    if checked is not None:
        report["stage_check"] = checked
    return ProvedRound(solution, certificate, report)


def shown_strategy(model: Any, strategy: Any, equilibrium: str | None) -> Any:
    """The stage strategy a chart draws: a refined one as it is (its off-path play is
    already sequentially rational); the LP's vertex with its unreached decisions filled
    by a best response (`complete_unreached`), as before the refinement."""
    from solver.hand.best_response import complete_unreached
    from solver.round.store import REFINED

    return strategy if equilibrium == REFINED else complete_unreached(model, strategy)


def state_charts(proved: ProvedRound, state: Any, label: str, out: str | Path
                 ) -> tuple[list[Path], str]:
    """The charts of one state's stage game (`shown_strategy`), and one sentence on how
    its play differs from the hand's (refined) equilibrium."""
    from solver.export.round_charts import write_state_charts
    from solver.pipeline.hand import solve_hand
    from solver.round.compare import difference

    hand = solve_hand(proved.solution.params.hand).solution   # as published: refined
    stage = proved.solution.stages[state]
    shown = shown_strategy(stage.model, stage.strategy, proved.solution.equilibrium)
    said = difference(stage.model, shown, hand.model, hand.strategy)
    paths = write_state_charts(stage.model, shown, label, said.short(), out,
                               value=proved.solution.values[state],
                               exploitability=said.stage_exploitability)
    return [Path(p) for p in paths], said.sentence()


def saved_round(proved: ProvedRound, path: str | Path, progress: Step | None = None
                ) -> dict[Path, bytes]:
    """The files `solver.round.store` keeps of a proved round at `path`: its report,
    every chip state's stage strategy and its advice (what changes from the hand game's
    equilibrium there, `solver.round.advice.stage_advice`), checksummed."""
    from solver.pipeline.hand import solve_hand
    from solver.round.advice import stage_advice, strategy_json
    from solver.round.open_throw_table import open_throw_advice
    from solver.round.store import saved_files

    hand = solve_hand(proved.solution.params.hand).solution
    stages, advice = {}, {}
    chip_states = sorted(proved.solution.stages.items())
    for done, (state, stage) in enumerate(chip_states):
        if progress is not None:
            progress("advice of every state", done, len(chip_states))
        stages[state.label()] = strategy_json(stage.strategy)
        advice[state.label()] = stage_advice(stage.model, stage.strategy, hand.model,
                                             hand.strategy)
    for open_state, opened in proved.solution.open_throws.items():
        advice[open_state.label()] = open_throw_advice(proved.solution.params, opened.solved)
    return saved_files(path, proved.report, stages, advice)


def saved_state_charts(saved: Any, entry: dict[str, Any], label: str, out: str | Path
                       ) -> tuple[list[Path], str]:
    """`state_charts` from a saved round (`solver.round.store.SavedRound`): the state's
    stage model is built again with the file's values, its strategy is checked against it
    and re-measured (a best response may gain no more than the file says, else
    SolverError), then charted."""
    from solver.export.round_charts import write_state_charts
    from solver.hand import best_response
    from solver.hand.model import build_model
    from solver.hand.strategy import StrategyFileError, check_strategy
    from solver.round.advice import strategy_from_json
    from solver.round.compare import Difference
    from solver.round.stage import stage_model
    from solver.round.states import ChipState, OpenThrowState
    from solver.round.store import state_label

    values: dict[Any, float] = {}
    for s in saved.report["states"]:
        kind = OpenThrowState if s["open_throw"] else ChipState
        values[kind(s["centre"], s["captain"], s["opponent"])] = s["value"]
    state = ChipState(entry["centre"], entry["captain"], entry["opponent"])
    model = stage_model(build_model(saved.params.hand), state, lambda nxt: nxt.value(values))
    advice = saved.advice[state_label(entry)]
    where = f"the saved round {saved.path}" if saved.path is not None else "the saved round"
    try:
        strategy = strategy_from_json(saved.stages()[state_label(entry)], model)
        check_strategy(model, strategy)
    except (KeyError, TypeError, ValueError, StrategyFileError) as error:
        raise SolverError(f"{where}: the strategy of {label} does not fit its stage "
                          f"game ({error})") from None
    measured = best_response.exploitability(model, strategy).exploitability
    if measured > advice["stage_exploitability"] + 1e-9:
        raise SolverError(f"{where}: a best response gains {measured:.1e} against the "
                          f"strategy of {label}, not the {advice['stage_exploitability']:.1e}"
                          f" it says")
    said = Difference(advice["concedes"], advice["captain_concedes"],
                      advice["opponent_concedes"], advice["differ"], measured)
    shown = shown_strategy(model, strategy, saved.report.get("equilibrium"))
    paths = write_state_charts(model, shown, label, said.short(), out, value=entry["value"],
                               exploitability=measured)
    return [Path(p) for p in paths], said.sentence()
