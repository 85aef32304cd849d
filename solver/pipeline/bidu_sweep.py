"""Bidú's sweep (`bidou sweep --game bidu`): what the game gives the sweep (solver/pipeline/
sweep.py). The table is `bidu_sweep.csv`, nothing beside it.

A cell is the two-player vuelta of one rule set solved and proved by `solve_bidu`
(solver/bidu/solve.py): the captain's value V, replays included, in an exact interval.
Small variants take a fraction of a second, the default dice a minute or two, and a larger
stack more, so each cell runs as Le Bidou's do (solver/pipeline/le_bidou_sweep.py): in a
child process of its worker, killed at the cell's time limit. A cell that does not finish
is a row saying so (`status` "time limit 600 s", no numbers), and one the solver cannot
vouch for a row "failed: ..." (no numbers): never dropped, never a wrong number, tried
again by a later sweep. The bounds are written rounded outward (`enclosed`); the value is
what the two proved strategies give each other, between them. The grid and the table run
smallest cell first (`cell_size`).
"""

from __future__ import annotations

import functools
import json
import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

from games.bidu.params import BiduParams
from games.parameters import ParameterError
from solver.pipeline.sweep import Row, Sweep, enclosed, parse_number

PROVED = "proved"
# The rules a row states (the others are fixed: two players, the encyclopedia's ranking,
# the replay priced by the solver itself).
RULES = ("faces", "throws", "stack", "ante", "throwing")
NUMBERS = ("status", "value", "lower", "upper", "exploitability", "replay", "seconds")
# Seconds of wall time a cell's process may take, imports included: the default dice take a
# minute or two on a quiet machine (docs/bidu.md), a loaded one several times that.
DEFAULT_LIMIT = 600.0
CHILD = "solver.pipeline.bidu_sweep"        # this module, run as a cell's process


def time_limit_status(limit: float) -> str:
    return f"time limit {limit:g} s"


@functools.lru_cache(maxsize=None)
def betting_nodes(stack: int) -> int:
    """The nodes of one betting tree at `stack` (it depends on nothing else)."""
    from solver.bidu.model import build_model

    return len(build_model(BiduParams(faces=2, throws=1, stack=stack)).trees[0].to_act)


def cell_size(params: BiduParams) -> int:
    """The cell's size (hands x stand pairs x betting nodes, the bulk of its LP), which
    orders the grid and the table."""
    from games.bidou.rules import all_hands

    return len(all_hands(params.faces)) * params.throws ** 2 * betting_nodes(params.stack)


def rules_of(params: BiduParams) -> Row:
    """The rules a row states, in the table's order."""
    values = params.to_dict()
    return {name: values[name] for name in RULES}


def empty_row(params: BiduParams, status: str, seconds: float) -> Row:
    """The row of a cell without numbers: over its time limit, or failed."""
    return {**rules_of(params), "status": status, "value": None, "lower": None,
            "upper": None, "exploitability": None, "replay": None, "seconds": seconds}


# --- one cell: the child process -------------------------------------------------------------

def solve_row(rules: Mapping[str, Any]) -> Row:
    """One rule set solved and proved, as a row; a row "failed: ..." if the solver cannot
    vouch for it (SolverError)."""
    import solver.bidu.sequence_form  # noqa: F401  (imports are not the solve's time)
    from solver.bidu.solve import solve_bidu
    from solver.common.errors import SolverError

    params = BiduParams.from_mapping(dict(rules))
    start = time.perf_counter()
    try:
        solution = solve_bidu(params)
    except SolverError as error:
        return empty_row(params, f"failed: {str(error)[:80]}", time.perf_counter() - start)
    return proved_row(params, solution, time.perf_counter() - start)


def proved_row(params: BiduParams, solution: Any, seconds: float) -> Row:
    """A solved cell's row: the bounds and the exploitability (the larger seat's, from the
    exact numbers) as `enclosed` makes them of the proof."""
    played = solution.played
    exploitability = max(played - solution.lower, solution.upper - played)
    numbers = enclosed(float(played), solution.lower, solution.upper, solution.exact,
                       exploitability)
    del numbers["exact"]                 # V is irrational in general: no column for it
    return {**rules_of(params), "status": PROVED, **numbers,
            "replay": float(solution.replay_probability), "seconds": seconds}


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m solver.pipeline.bidu_sweep RULES_JSON LIMIT`: the cell's row as one JSON
    line. The child ends itself (SIGALRM) a second after LIMIT, so that a sweep killed
    meanwhile leaves no cell running without its parent."""
    import signal

    rules_text, limit = (list(argv or sys.argv[1:]) + [str(DEFAULT_LIMIT)])[:2]
    signal.alarm(math.ceil(float(limit)) + 1)
    print(json.dumps(solve_row(json.loads(rules_text))), flush=True)


# --- one cell: the Dask task ------------------------------------------------------------------

def solve_cell(rules: Mapping[str, Any], limit: float = DEFAULT_LIMIT) -> Row:
    """One cell, its child process killed at `limit` seconds: the row it printed, or a row
    with the time limit (or the child's failure) as its status and no numbers."""
    params = BiduParams.from_mapping(dict(rules))
    start = time.perf_counter()
    command = [sys.executable, "-m", CHILD, json.dumps(params.to_dict()), repr(float(limit))]
    try:                     # run beside this package, so that the child imports this tree
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit,
                              cwd=Path(__file__).resolve().parents[2])
    except subprocess.TimeoutExpired:
        return empty_row(params, time_limit_status(limit), time.perf_counter() - start)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if done.returncode == 0 and lines:
        return dict(json.loads(lines[-1]))
    failure = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return empty_row(params, f"failed: {failure[:80]}", time.perf_counter() - start)


# --- the game's part of the sweep -------------------------------------------------------------

class BiduSweep(Sweep):
    """Bidú's two-player vuelta, one row per rule set: proved, over its time limit, or
    failed."""

    GAME = "bidu"
    PARAMS = BiduParams
    TABLE = "bidu_sweep.csv"
    FILES = (TABLE,)
    TITLE = "Bidú sweep table"
    NUMBERS = NUMBERS
    PROGRESS = "Bidú cells done"
    BOOLEANS = ("false", "true")
    SECONDS_DIGITS = 3
    cell = staticmethod(solve_cell)

    @functools.cached_property
    def defaults(self) -> dict[str, Any]:
        """Only the rules a Bidú sweep varies: the table's first columns."""
        return rules_of(BiduParams())

    def parse_row(self, record: Sequence[str]) -> Row:
        """One CSV record as a row of the table's columns only (the rules it does not state
        are the defaults)."""
        row = super().parse_row(record)
        return {name: row[name] for name in self.columns}

    def parse_numbers(self, fields: Mapping[str, str]) -> Row:
        """A proved row has its numbers, the value inside its interval, the exploitability
        at least 0 and the replay a probability; any other row (over its limit, failed)
        has none."""
        status = fields["status"]
        row: Row = {"status": status}
        for name in NUMBERS[1:]:
            row[name] = parse_number(name, fields[name]) if fields[name] else None
        if status != PROVED:
            if any(row[name] is not None for name in NUMBERS[1:-1]):
                raise ParameterError(f"a row '{status}' with numbers")
            return row
        if any(row[name] is None for name in NUMBERS[1:-1]):
            raise ParameterError("a proved row without its numbers")
        if not row["lower"] <= row["value"] <= row["upper"]:
            raise ParameterError("the value lies outside its proved interval")
        if row["exploitability"] < 0 or not 0 <= row["replay"] <= 1:
            raise ParameterError("a negative exploitability or a replay outside [0, 1]")
        return row

    def grid_order(self, params: Any) -> Any:
        return (cell_size(params), self.rule_key(params))

    def row_order(self, row: Mapping[str, Any]) -> Any:
        key = self.rule_key(row)
        return (cell_size(BiduParams.from_mapping(dict(zip(RULES, key)))), key)


SWEEP = BiduSweep()

if __name__ == "__main__":
    main()
