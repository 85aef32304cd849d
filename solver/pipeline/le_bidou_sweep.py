"""Le Bidou's sweep (`bidou sweep --game le-bidou`): what the game gives the sweep
(solver/pipeline/sweep.py). The table is `le_bidou_sweep.csv`, nothing beside it.

What differs from two-hand Bidou is the time: a Le Bidou hand's LP doubles with each stake,
and the default dice at `max_stake` 6 or more do not finish today (docs/le-bidou.md). So
each cell runs in a child process of its worker that is killed at the cell's time limit (a
Dask task cannot be stopped, and a worker thread cannot take a signal), and a cell that
does not finish is a row saying so (`status` "time limit 60 s", no numbers), never dropped
and never a wrong number; a later sweep tries it again. The child prints the proved row as
soon as the LP and the certificate are done, then tries the exact recovery in what is left
of the limit: the exact fraction is kept where it is cheap. The grid and the table run
smallest cell first (`lp_rows`, a column).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from games.le_bidou.params import LeBidouParams
from games.parameters import ParameterError
from solver.pipeline.sweep import (
    Row,
    Sweep,
    enclosed,
    parse_exact,
    parse_number,
    proved_exploitability,
)

PROVED, EXACT = "proved", "exact"
NUMBERS = ("rows", "status", "value", "lower", "upper", "exact", "exploitability", "seconds")
# Seconds of wall time a cell's process may take: its imports (about 2 s on a quiet machine,
# 10 s on a loaded one), the LP and the certificate, then the exact recovery.
DEFAULT_LIMIT = 60.0
CHILD = "solver.pipeline.le_bidou_sweep"        # this module, run as a cell's process


def time_limit_status(limit: float) -> str:
    return f"time limit {limit:g} s"


def lp_rows(params: LeBidouParams) -> int:
    """The cell's size (public states x betting decisions x hands), which orders the grid
    and is a column of the table."""
    from solver.pipeline.hand import le_bidou_rows

    return le_bidou_rows(params)


def status_of(row: Mapping[str, Any]) -> str:
    """A row's status as the table states it: "exact" whenever the value is proved exactly
    (the LP's own certificate sometimes proves it before any recovery)."""
    return EXACT if row.get("exact") is not None else str(row["status"])


# --- one cell: the child process -------------------------------------------------------------

def cell_rows(rules: Mapping[str, Any]) -> Iterator[Row]:
    """The rows of one cell as they are proved: first by the LP and the certificate, then
    with the exact value if its recovery succeeds (a generator: the child prints each)."""
    import solver.hand.exact.equilibrium  # noqa: F401  (imports are not the solve's time)
    import solver.hand.lp.sequence_form  # noqa: F401
    from solver.hand.solve import solve, with_exact_value

    params = LeBidouParams.from_mapping(dict(rules))
    start = time.perf_counter()
    solution = solve(params)
    yield proved_row(params, solution, PROVED, time.perf_counter() - start)
    exact = with_exact_value(solution)
    if exact.certificate is not None and exact.certificate.exact is not None:
        yield proved_row(params, exact, EXACT, time.perf_counter() - start)


def proved_row(params: LeBidouParams, solution: Any, status: str, seconds: float) -> Row:
    """A solved cell's row: its numbers as `enclosed` makes them of the proof."""
    proof = solution.certificate
    assert proof is not None, "solve() certifies every solution"
    numbers = enclosed(solution.value, proof.lower, proof.upper, proof.exact,
                       proved_exploitability(solution.model, solution.strategy))
    return {**params.to_dict(), "rows": lp_rows(params), "status": status, **numbers,
            "seconds": seconds}


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m solver.pipeline.le_bidou_sweep RULES_JSON LIMIT`: one JSON line per row
    proved. The child ends itself (SIGALRM) a second after LIMIT, so that a sweep killed
    meanwhile leaves no cell running without its parent."""
    import signal

    rules_text, limit = (list(argv or sys.argv[1:]) + [str(DEFAULT_LIMIT)])[:2]
    signal.alarm(math.ceil(float(limit)) + 1)
    rules = json.loads(rules_text)
    for row in cell_rows(rules):
        print(json.dumps(row), flush=True)


# --- one cell: the Dask task ------------------------------------------------------------------

def solve_cell(rules: Mapping[str, Any], limit: float = DEFAULT_LIMIT) -> Row:
    """One cell, its child process killed at `limit` seconds: the last row it proved, or
    a row with the time limit (or the child's failure) as its status and no numbers."""
    params = LeBidouParams.from_mapping(dict(rules))
    start = time.perf_counter()
    command = [sys.executable, "-m", CHILD, json.dumps(params.to_dict()), repr(float(limit))]
    failure: str | None = None
    try:                     # run beside this package, so that the child imports this tree
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit,
                              cwd=Path(__file__).resolve().parents[2])
        output = done.stdout
        if done.returncode:
            failure = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    except subprocess.TimeoutExpired as expired:
        output = _text(expired.stdout)
    lines = [line for line in output.splitlines() if line.strip()]
    if lines:
        return dict(json.loads(lines[-1]))
    status = (f"failed: {failure[:80]}" if failure is not None
              else time_limit_status(limit))
    return {**params.to_dict(), "rows": lp_rows(params), "status": status, "value": None,
            "lower": None, "upper": None, "exact": None, "exploitability": None,
            "seconds": time.perf_counter() - start}


def _text(data: Any) -> str:
    if data is None:
        return ""
    return data.decode() if isinstance(data, bytes) else str(data)


# --- the game's part of the sweep -------------------------------------------------------------

class LeBidouSweep(Sweep):
    """Le Bidou's hands, one row each: proved, exact, or over the cell's time limit."""

    GAME = "le-bidou"
    PARAMS = LeBidouParams
    TABLE = "le_bidou_sweep.csv"
    FILES = (TABLE,)
    TITLE = "Le Bidou sweep table"
    NUMBERS = NUMBERS
    PROGRESS = "Le Bidou cells done"
    BOOLEANS = ("false", "true")
    SECONDS_DIGITS = 3
    cell = staticmethod(solve_cell)

    def parse_numbers(self, fields: Mapping[str, str]) -> Row:
        """A proved or exact row has its numbers, the value inside its interval and the
        exact value only if its status says so; a row over its limit (or failed) none."""
        status = fields["status"]
        row: Row = {"rows": int(fields["rows"]), "status": status}
        for name in ("value", "lower", "upper", "exploitability", "seconds"):
            row[name] = parse_number(name, fields[name]) if fields[name] else None
        solved = status in (PROVED, EXACT)
        if solved and any(row[name] is None
                          for name in ("value", "lower", "upper", "exploitability")):
            raise ParameterError(f"a {status} row without its numbers")
        if solved and not row["lower"] <= row["value"] <= row["upper"]:
            raise ParameterError("the value lies outside its proved interval")
        if fields["exact"] and status != EXACT:
            raise ParameterError(f"a row '{status}' with an exact value")
        if not solved and row["value"] is not None:
            raise ParameterError(f"a row '{status}' with a value")
        row["exact"] = parse_exact(fields["exact"], row["lower"], row["upper"])
        return {name: row[name] for name in NUMBERS}

    def prepare(self, row: Mapping[str, Any]) -> Row:
        return {**row, "status": status_of(row)}

    def grid_order(self, params: Any) -> Any:
        return lp_rows(params)

    def row_order(self, row: Mapping[str, Any]) -> Any:
        return (row["rows"], self.rule_key(row))


SWEEP = LeBidouSweep()

if __name__ == "__main__":
    main()
