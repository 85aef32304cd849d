"""The heads-up end of Montevideo: solve every state (solver/montevideo/solve.py), prove each
value in exact arithmetic (certify.py) and report (report.py); read a report back, checked;
and check one state of a report again by solving its round against the report's values of
where the round leads. One place for `bidou montevideo`."""

from __future__ import annotations

import dataclasses
import json
import math
import time
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from games.montevideo.heads_up import HeadsUpParams, HeadsUpState
from solver.common.errors import SolverError
from solver.common.progress import Step
from solver.montevideo.certify import HeadsUpCertificateError, certify_heads_up
from solver.montevideo.report import SCHEMA, SCHEMA_VERSION, heads_up_report
from solver.montevideo.solve import solve_heads_up, solve_stage

REPORT_NAME = "heads-up.json"
MAX_REPORT_BYTES = 8 << 20
AGREE = 1e-9                     # a state's round solved again must give its value to this


class ReportError(ValueError):
    """A report that cannot be read as this program writes them; the message is one line."""


@dataclasses.dataclass(frozen=True)
class ProvedHeadsUp:
    report: dict[str, Any]
    solve_seconds: float
    prove_seconds: float


def prove_heads_up(params: HeadsUpParams, progress: Step | None = None,
                   workers: int | None = None) -> ProvedHeadsUp:
    """Solve the heads-up end and prove every value; SolverError if one cannot be proved."""
    begin = time.perf_counter()
    solution = solve_heads_up(params, progress=progress, workers=workers)
    if progress is not None:
        progress("proving every state in exact arithmetic", 0, 0)
    proving = time.perf_counter()
    try:
        certificate = certify_heads_up(solution)
    except HeadsUpCertificateError as error:
        raise SolverError(f"the heads-up values could not be proved: {error}") from None
    return ProvedHeadsUp(heads_up_report(solution, certificate), proving - begin,
                         time.perf_counter() - proving)


def _number(text: Any, where: str) -> Decimal:
    try:
        value = Decimal(str(text))
    except InvalidOperation:
        raise ReportError(f"{where}: not a number") from None
    if not value.is_finite():
        raise ReportError(f"{where}: not a finite number")
    return value


def check_report(doc: Any, params: HeadsUpParams | None = None) -> HeadsUpParams:
    """The rules of a report that passes its schema and the checks a schema cannot state:
    the states are exactly those of its rules, each once; lower <= value <= upper, the
    exploitabilities the value's distances to them; chip shares as the chips say.
    ReportError (one line) otherwise, or if `params` are given and the report is for other
    rules."""
    from games.montevideo.params import ParameterError
    from solver.schemas import SchemaViolation, validate

    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA \
            or doc.get("schema_version") != SCHEMA_VERSION:
        raise ReportError(f"not a {SCHEMA} report of version {SCHEMA_VERSION}")
    try:
        validate(doc, "montevideo-heads-up")
        rules = HeadsUpParams.from_dict(doc["rules"])
    except (SchemaViolation, ParameterError) as error:
        raise ReportError(str(error)) from None
    if params is not None and rules != params:
        raise ReportError(f"the report is for other rules ({rules.describe()})")
    seen = [HeadsUpState(e["captain"], e["opponent"], e["ante"]) for e in doc["states"]]
    if sorted(seen) != sorted(rules.states()) or len(set(seen)) != len(seen):
        raise ReportError("its states are not those of its rules, each once")
    for state, entry in zip(seen, doc["states"]):
        where = f"state {state.label()}"
        lower, upper = _number(entry["lower"], where), _number(entry["upper"], where)
        value = _number(repr(entry["value"]), where)
        if not lower <= value <= upper or upper - lower > Decimal("1e-9") + Decimal("2e-15"):
            raise ReportError(f"{where}: its value is not inside a proved interval of "
                              f"width 1e-9 or less")
        claimed = (entry["captain_exploitability"], entry["other_exploitability"])
        shown = (max(Decimal(0), value - lower), max(Decimal(0), upper - value))
        if any(abs(Decimal(repr(c)) - s) > Decimal("3e-15") for c, s in zip(claimed, shown)):
            raise ReportError(f"{where}: its exploitabilities are not its value's distances "
                              f"to its interval")
        if not math.isclose(entry["chip_share"], state.captain / state.total, abs_tol=1e-15):
            raise ReportError(f"{where}: its chip share is not the captain's chips over all")
    return rules


def read_report(path: Path, params: HeadsUpParams | None = None) -> dict[str, Any]:
    """A report file, checked (`check_report`); ReportError (one line) if it is not one."""
    from solver.common.files import read_input_file

    try:
        data = read_input_file(path, MAX_REPORT_BYTES, "a heads-up report")
        doc = json.loads(data)
    except OSError as error:
        raise ReportError(f"{path}: {error.strerror or error}") from None
    except ValueError:
        raise ReportError(f"{path}: not JSON") from None
    try:
        check_report(doc, params)
    except ReportError as error:
        raise ReportError(f"{path}: {error}") from None
    return doc


def entry_of(report: dict[str, Any], state: HeadsUpState) -> dict[str, Any]:
    return next(e for e in report["states"]
                if (e["captain"], e["opponent"], e["ante"]) == (state.captain, state.opponent,
                                                                state.ante))


def solve_state_again(report: dict[str, Any], state: HeadsUpState) -> float:
    """The value of `state`'s round solved now against the report's values of where it
    leads; ReportError unless it is the report's value to AGREE (a hand-edited value, or
    values that are not a fixed point, fail)."""
    params = HeadsUpParams.from_dict(report["rules"])
    values = {HeadsUpState(e["captain"], e["opponent"], e["ante"]): float(e["value"])
              for e in report["states"]}
    stage, _ = solve_stage(params, state, values, None)
    if abs(stage.value - values[state]) > AGREE:
        raise ReportError(f"state {state.label()}: its round, solved again against the "
                          f"report's values, is worth {stage.value:.12f}, not "
                          f"{values[state]:.12f}")
    return stage.value
