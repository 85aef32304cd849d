"""`bidou sweep --game le-bidou`: a grid of Le Bidou hands on the Dask sweep, each cell
within a time limit, one row each in `le_bidou_sweep.csv`.

The hand sweep (solver/app/sweep.py) gives this its cluster, its lock, its outward rounding
of proved bounds (`enclosed`, `decimal_text`: certificate.float_down/float_up) and its
proved exploitability. What differs is the time: a Le Bidou hand's LP doubles with each
stake, and the default dice at `max_stake` 6 or more do not finish today
(docs/le-bidou.md). So each cell runs in a child process of its worker that is killed at
the cell's time limit (a Dask task cannot be stopped, and a worker thread cannot take a
signal), and a cell that does not finish is a row saying so (`status` "time limit 60 s",
no numbers), never dropped and never a wrong number. The child prints the proved row as
soon as the LP and the certificate are done, then tries the exact recovery in what is left
of the limit: the exact fraction is kept where it is cheap.
"""

from __future__ import annotations

import csv
import dataclasses
import itertools
import json
import math
import os
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping, Sequence

from games.bidou.params import ParameterError
from games.le_bidou.params import LeBidouParams
from solver.app.sweep import enclosed, parse_list, proved_exploitability
from solver.common.progress import Step

TABLE = "le_bidou_sweep.csv"
RULE_COLUMNS = ("faces", "throws", "reroll", "ranking", "aces_beat_bidou", "max_stake",
                "half_stake")
COLUMNS = RULE_COLUMNS + ("rows", "status", "value", "lower", "upper", "exact",
                          "exploitability", "seconds")
PROVED, EXACT = "proved", "exact"
# Seconds of wall time a cell's process may take: its imports (about 2 s on a quiet machine,
# 10 s on a loaded one), the LP and the certificate, then the exact recovery.
DEFAULT_LIMIT = 60.0


def time_limit_status(limit: float) -> str:
    return f"time limit {limit:g} s"


def build_grid(faces: str = "6", throws: str = "3", max_stake: str = "9",
               reroll: str = "keep", ranking: str = "french", aces_beat_bidou: str = "true",
               half_stake: str = "up") -> list[LeBidouParams]:
    """Every Le Bidou rule set of the grid, validated (ParameterError names the first bad
    value), smallest LP first; aces_beat_bidou varies only the French ranking."""
    texts = dict(zip(("faces", "throws", "max_stake", "reroll", "ranking", "aces_beat_bidou",
                      "half_stake"),
                     (faces, throws, max_stake, reroll, ranking, aces_beat_bidou, half_stake)))
    lists = {name: list(dict.fromkeys(
        getattr(LeBidouParams.from_mapping({name: item}), name)
        for item in parse_list(name, text))) for name, text in texts.items()}
    grid: dict[LeBidouParams, None] = {}
    for values in itertools.product(*(lists[name] for name in RULE_COLUMNS)):
        params = LeBidouParams(**dict(zip(RULE_COLUMNS, values)))
        if params.ranking != "french":
            params = dataclasses.replace(params, aces_beat_bidou=True)
        grid[params] = None
    return sorted(grid, key=lp_rows)


def lp_rows(params: LeBidouParams) -> int:
    """The cell's size (public states x betting decisions x hands), which orders the grid
    and is a column of the table."""
    from solver.pipeline.hand import le_bidou_rows

    return le_bidou_rows(params)


def rule_key(row: Mapping[str, Any] | LeBidouParams) -> tuple:
    values = row.to_dict() if isinstance(row, LeBidouParams) else row
    return tuple(str(values[name]).lower() for name in RULE_COLUMNS)


# --- one cell: the child process -------------------------------------------------------------

def cell_rows(rules: Mapping[str, Any]) -> Any:
    """The rows of one cell as they are proved: first by the LP and the certificate, then
    with the exact value if its recovery succeeds (a generator: the child prints each)."""
    import solver.hand.exact.equilibrium  # noqa: F401  (imports are not the solve's time)
    import solver.hand.lp.sequence_form  # noqa: F401
    from solver.hand.solve import solve, with_exact_value

    params = LeBidouParams.from_mapping(dict(rules))
    start = time.perf_counter()
    solution = solve(params)
    yield _row(params, solution, PROVED, time.perf_counter() - start)
    exact = with_exact_value(solution)
    if exact.certificate is not None and exact.certificate.exact is not None:
        yield _row(params, exact, EXACT, time.perf_counter() - start)


def _row(params: LeBidouParams, solution: Any, status: str, seconds: float) -> dict[str, Any]:
    proof = solution.certificate
    assert proof is not None, "solve() certifies every solution"
    numbers = enclosed(solution.value, proof.lower, proof.upper, proof.exact,
                       proved_exploitability(solution.model, solution.strategy))
    return {**params.to_dict(), "rows": lp_rows(params), "status": status, **numbers,
            "seconds": seconds}


def status_of(row: Mapping[str, Any]) -> str:
    """A row's status as the table states it: "exact" whenever the value is proved exactly
    (the LP's own certificate sometimes proves it before any recovery)."""
    return EXACT if row.get("exact") is not None else str(row["status"])


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m solver.app.le_bidou_sweep RULES_JSON LIMIT`: one JSON line per row
    proved. The child ends itself (SIGALRM) a second after LIMIT, so that a sweep killed
    meanwhile leaves no cell running without its parent."""
    import signal

    rules_text, limit = (list(argv or sys.argv[1:]) + [str(DEFAULT_LIMIT)])[:2]
    signal.alarm(math.ceil(float(limit)) + 1)
    rules = json.loads(rules_text)
    for row in cell_rows(rules):
        print(json.dumps(row), flush=True)


# --- one cell: the Dask task ------------------------------------------------------------------

def solve_cell(rules: Mapping[str, Any], limit: float = DEFAULT_LIMIT) -> dict[str, Any]:
    """One cell, its child process killed at `limit` seconds: the last row it proved, or
    a row with the time limit as its status and no numbers."""
    params = LeBidouParams.from_mapping(dict(rules))
    start = time.perf_counter()
    command = [sys.executable, "-m", "solver.app.le_bidou_sweep", json.dumps(params.to_dict()),
               repr(float(limit))]
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


# --- the table --------------------------------------------------------------------------------

def read_rows(out_dir: str | os.PathLike) -> list[dict[str, Any]]:
    """The rows of an existing table (none if absent); ParameterError, naming the line,
    for a row this sweep would not have written."""
    path = Path(out_dir) / TABLE
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as handle:
        records = list(csv.reader(handle))
    if not records or tuple(records[0]) != COLUMNS:
        raise ParameterError(f"{path} is not a Le Bidou sweep table (expected the columns "
                             f"{', '.join(COLUMNS)})")
    rows = []
    for number, record in enumerate(records[1:], start=2):
        try:
            rows.append(_parse_row(record))
        except (ParameterError, ValueError) as error:
            raise ParameterError(f"{path} line {number}: {error}") from None
    return rows


def _parse_row(record: Sequence[str]) -> dict[str, Any]:
    if len(record) != len(COLUMNS):
        raise ParameterError(f"{len(record)} fields, expected {len(COLUMNS)}")
    fields = dict(zip(COLUMNS, record))
    params = LeBidouParams.from_mapping({name: fields[name] for name in RULE_COLUMNS})
    row: dict[str, Any] = {**params.to_dict(), "rows": int(fields["rows"]),
                           "status": fields["status"], "exact": fields["exact"] or None}
    for name in ("value", "lower", "upper", "exploitability", "seconds"):
        row[name] = float(fields[name]) if fields[name] else None
    solved = row["status"] in (PROVED, EXACT)
    if solved and not all(row[name] is not None and math.isfinite(row[name])
                          for name in ("value", "lower", "upper", "exploitability")):
        raise ParameterError(f"a {row['status']} row without its numbers")
    if solved and not row["lower"] <= row["value"] <= row["upper"]:
        raise ParameterError("the value lies outside its proved interval")
    if row["exact"] is not None and not row["lower"] <= Fraction(row["exact"]) <= row["upper"]:
        raise ParameterError("the exact value lies outside its proved interval")
    if row["exact"] is not None and row["status"] != EXACT:
        raise ParameterError(f"a row '{row['status']}' with an exact value")
    if not solved and row["value"] is not None:
        raise ParameterError(f"a row '{row['status']}' with a value")
    return row


def write_csv(out_dir: str | os.PathLike, rows: Sequence[Mapping[str, Any]]) -> Path:
    """The table, atomically, rows by size then rules; proved bounds and exploitability in
    decimals rounded outward that read back as the same floats."""
    from solver.app.sweep import decimal_text
    from solver.common.files import write_text_atomic

    path = Path(out_dir) / TABLE
    ordered = sorted(({**r, "status": status_of(r)} for r in rows),
                     key=lambda r: (r["rows"], rule_key(r)))
    lines = [",".join(COLUMNS)]
    for row in ordered:
        cells = []
        for name in COLUMNS:
            value = row.get(name)
            if value is None:
                cells.append("")
            elif name in ("lower", "upper", "exploitability"):
                cells.append(decimal_text(float(value), up=name != "lower"))
            elif name in ("value", "seconds"):
                cells.append(repr(round(float(value), 3)) if name == "seconds"
                             else repr(float(value)))
            else:
                cells.append(str(value).lower() if isinstance(value, bool) else str(value))
        lines.append(",".join(cells))
    write_text_atomic(path, "\n".join(lines) + "\n")
    return path


@dataclasses.dataclass(frozen=True)
class CellReport:
    rows: list[dict[str, Any]]
    solved: int
    timed_out: int
    failed: int
    skipped: int
    seconds: float


def run_le_bidou_sweep(grid: Sequence[LeBidouParams], out_dir: str | os.PathLike,
                       client: Any, limit: float = DEFAULT_LIMIT,
                       progress: Step | None = None) -> CellReport:
    """Solve every cell of `grid` not yet proved in `out_dir/le_bidou_sweep.csv` on
    `client`, each within `limit` seconds; the table is rewritten after each cell (cells
    that ran out of time before are tried again)."""
    from dask.distributed import as_completed

    from solver.app.sweep import check_destination, sweep_lock

    start = time.perf_counter()
    out = check_destination(out_dir)
    with sweep_lock(out):
        rows = {rule_key(r): r for r in read_rows(out)}
        todo = [p for p in grid if rows.get(rule_key(p), {}).get("status") not in
                (PROVED, EXACT)]
        futures = {client.submit(solve_cell, p.to_dict(), limit, pure=False,
                                 key=f"le-bidou-{'-'.join(rule_key(p))}-{time.time_ns()}"): p
                   for p in todo}
        counts = {"solved": 0, "timed_out": 0, "failed": 0}
        try:
            for count, future in enumerate(as_completed(futures), start=1):
                row = future.result()
                rows[rule_key(row)] = row
                kind = ("solved" if row["status"] in (PROVED, EXACT) else
                        "failed" if row["status"].startswith("failed") else "timed_out")
                counts[kind] += 1
                write_csv(out, list(rows.values()))
                if progress is not None:
                    progress("Le Bidou cells done", count, len(todo))
        finally:
            for future in futures:
                future.cancel()
    return CellReport(rows=sorted(rows.values(), key=lambda r: (r["rows"], rule_key(r))),
                      skipped=len(grid) - len(todo), seconds=time.perf_counter() - start,
                      **counts)


if __name__ == "__main__":
    main()
