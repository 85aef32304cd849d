"""A sweep: a grid of one game's rule sets, each cell solved on Dask, one row each in a table.

    bidou sweep [--game le-bidou] --faces 2,3,4 --throws 1,2 ... --out DIR

What every game's sweep does the same way is written here once: the grid (each option's
comma-separated values parsed by the game's one parser, `GameParameters.parse`), each rule
set's key, the table read back as strictly as a strategy file (so that a resumed sweep
skips only rows it would have written), the CSV written atomically after each cell (an
interrupted sweep keeps every finished row and the next run skips them), the folder's lock,
the cells submitted to a Dask client (solver/pipeline/dask_cluster.py) and collected with
their failures and progress, and the proved numbers a row holds (`enclosed`).

What a game supplies is a `Sweep` subclass: its parameters, its table's name and columns
after the rules, how one cell is solved (`cell`, a function a Dask worker runs), how a
record's numbers are read and a row printed, and any files beside the table. Two-hand
Bidou's is solver/pipeline/bidou_sweep.py, Le Bidou's (a child process per cell, killed at
its time limit) solver/pipeline/le_bidou_sweep.py.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import functools
import io
import itertools
import math
import os
import re
import stat
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Iterator, Mapping, Sequence

from games.parameters import GameParameters, ParameterError
from solver.common.files import (
    DestinationError,
    check_directory_destination,
    read_input_file,
)
from solver.common.progress import Step

Row = dict[str, Any]
CONFIRM_CELLS = 400       # a bigger grid is run only when asked (the hand game's is 360)


def parse_list(name: str, text: str) -> list[str]:
    """A comma-separated option value as its items; an empty item is an error naming the
    option (a stray comma would otherwise drop a value silently)."""
    items = [item.strip() for item in str(text).split(",")]
    if any(item == "" for item in items):
        raise ParameterError(f"--{name.replace('_', '-')} must be a comma-separated list of "
                             f"values, got {text!r}")
    return items


@dataclasses.dataclass
class SweepReport:
    rows: list[Row]                                 # every row of the table, old and new
    solved: int                                     # cells this run proved
    skipped: int                                    # already in the table
    failed: list[tuple[GameParameters, str]]        # cells not solved, and why
    incomplete: list[tuple[GameParameters, str]]    # rows without what was asked, and what
    seconds: float


class Sweep:
    """One game's sweep: the class attributes and `cell`, `parse_numbers` are what the game
    supplies; the methods are what every sweep shares."""

    GAME: ClassVar[str]                       # --game's name, and the Dask tasks' prefix
    PARAMS: ClassVar[type[GameParameters]]    # the rules; the table's first columns
    TABLE: ClassVar[str]                      # the CSV file in the sweep's folder
    FILES: ClassVar[tuple[str, ...]]          # every file the sweep writes there
    TITLE: ClassVar[str]                      # "sweep table", in messages
    NUMBERS: ClassVar[tuple[str, ...]]        # the columns after the rules
    PROGRESS: ClassVar[str]                   # the progress line's words
    BOOLEANS: ClassVar[tuple[str, str]]       # how the table spells False and True
    SECONDS_DIGITS: ClassVar[int | None] = None     # `seconds` rounded, or its repr
    SECONDS_PER_CELL: ClassVar[float | None] = None  # for the estimate; None: unknown
    cell: Callable[..., Row]                  # one cell, on a worker: (rules, **options) -> row

    # --- what a game supplies ------------------------------------------------------------

    def parse_numbers(self, fields: Mapping[str, str]) -> Row:
        """The columns after the rules from one record's (stripped) fields, checked."""
        raise NotImplementedError

    def prepare(self, row: Mapping[str, Any]) -> Row:
        """A row as the table writes it (a game may repair or restate an old row)."""
        return dict(row)

    def grid_order(self, params: Any) -> Any:
        """The order in which cells are submitted (default: the grid's own)."""
        return 0

    def row_order(self, row: Mapping[str, Any]) -> Any:
        """The order of the table's rows."""
        return self.rule_key(row)

    def extra_files(self, out: Path, rows: Sequence[Row]) -> list[Path]:
        """Files written beside the table at the end of a run (default: none)."""
        return []

    # --- the grid and the keys -----------------------------------------------------------

    @functools.cached_property
    def defaults(self) -> dict[str, Any]:
        """The game's default rules, in the order of its parameters (the table's first
        columns): a rule a grid does not name takes its default, and its type."""
        return self.PARAMS().to_dict()

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(self.defaults)

    @property
    def columns(self) -> tuple[str, ...]:
        return self.rules + self.NUMBERS

    def build_grid(self, *texts: str, **named: str) -> list[Any]:
        """Every rule set of the grid, validated by the game's parser (ParameterError names
        the first bad value), each once. Texts are comma-separated lists, positionally in
        the rules' order or by name; a rule not given takes the game's default. A flag that
        changes nothing under a ranking (`canonical`) gives one rule set, not two."""
        given = dict(zip(self.rules, texts)) | named
        unknown = sorted(set(given) - set(self.rules))
        if unknown:
            raise ParameterError(f"unknown parameter {unknown[0]!r}; known: "
                                 f"{', '.join(self.rules)}")
        values = {name: self.PARAMS.values_of(name, parse_list(name, given[name]))
                  if name in given else [default] for name, default in self.defaults.items()}
        grid = dict.fromkeys(self.PARAMS.parse(dict(zip(self.rules, combination)))
                             for combination in itertools.product(*values.values()))
        return sorted(grid, key=self.grid_order)

    def rule_key(self, rules: Mapping[str, Any] | GameParameters) -> tuple:
        """The identity of a rule set in a table, whatever types the table read it as
        (numpy's integers, "true" as text)."""
        values = rules.to_dict() if isinstance(rules, GameParameters) else rules
        key: list[Any] = []
        for name, default in self.defaults.items():
            value, kind = values[name], type(default)
            if kind is bool:
                key.append(value.strip().lower() == "true" if isinstance(value, str)
                           else bool(value))
            else:
                key.append(kind(value))
        return tuple(key)

    def sorted_rows(self, rows: Iterable[Mapping[str, Any]]) -> list[Row]:
        return sorted((dict(r) for r in rows), key=self.row_order)

    # --- the table -----------------------------------------------------------------------

    def check_destination(self, out_dir: str | os.PathLike) -> Path:
        """The output folder, usable before any work starts (ParameterError otherwise); the
        sweep's files must be absent or regular files: a rename never replaces a device, a
        FIFO or a symlink."""
        out = Path(out_dir)
        if os.path.lexists(out) and not out.is_dir():
            raise ParameterError(f"--out {out} exists and is not a directory")
        try:            # the nearest existing folder writable, names within the limit, ...
            check_directory_destination(out)
        except DestinationError as error:
            raise ParameterError(str(error)) from None
        for name in self.FILES:
            path = out / name
            if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
                raise ParameterError(f"{path} exists and is not a regular file")
        return out

    def read_rows(self, out_dir: str | os.PathLike) -> list[Row]:
        """The rows of the folder's table (none if absent), each checked: ParameterError, one
        line naming the line, for anything the sweep would not have written (a resumed
        sweep skips these cells, so a bad row would stay). The table is rewritten
        atomically, so a last line without its newline is damage from elsewhere (a copy
        cut short): it is dropped, and its cell solved again."""
        path = Path(out_dir) / self.TABLE
        if not os.path.lexists(path):
            return []
        try:             # bounded: never a FIFO (it would block), a device or a huge file
            text = read_input_file(path, what="a sweep table").decode("utf-8")
        except OSError as error:
            raise ParameterError(f"{path} is not a {self.TITLE}: "
                                 f"{error.strerror or error}") from None
        except UnicodeDecodeError as error:
            raise ParameterError(f"{path} is not a {self.TITLE}: {error}") from None
        lines = text.splitlines()
        if lines and not text.endswith("\n"):
            lines.pop()                      # a truncated last row
        records = list(csv.reader(lines))
        if not records or tuple(records[0]) != self.columns:
            raise ParameterError(f"{path} is not a {self.TITLE} (columns "
                                 f"{records[0] if records else []}, expected "
                                 f"{list(self.columns)})")
        rows: dict[tuple, Row] = {}
        for number, record in enumerate(records[1:], start=2):
            try:
                row = self.parse_row(record)
            except (ParameterError, ValueError) as error:
                raise ParameterError(f"{path} line {number}: {error}") from None
            key = self.rule_key(row)
            if key in rows and rows[key] != row:
                rules = self.PARAMS.from_mapping(dict(zip(self.rules, key))).describe()
                raise ParameterError(f"{path} line {number}: a second row for {rules} with "
                                     f"other numbers")
            rows[key] = row
        return list(rows.values())

    def parse_row(self, record: Sequence[str]) -> Row:
        """One CSV record as a row: the rules by the game's parser, then its numbers."""
        if len(record) != len(self.columns):
            raise ParameterError(f"{len(record)} fields, expected {len(self.columns)}")
        fields = dict(zip(self.columns, (field.strip() for field in record)))
        params = self.PARAMS.parse({name: fields[name] for name in self.rules})
        return {**params.to_dict(), **self.parse_numbers(fields)}

    def cell_text(self, name: str, value: Any) -> str:
        """One cell of the CSV: the value in its shortest repr, the bounds and the
        exploitability as decimals rounded outward that read back as the same floats
        (`decimal_text`), nothing for a number a row lacks."""
        if value is None:
            return ""
        if name in ("lower", "upper", "exploitability"):
            return decimal_text(float(value), up=name != "lower")
        if name == "value":
            return repr(float(value))
        if name == "seconds":
            seconds = float(value)
            digits = self.SECONDS_DIGITS
            return repr(seconds if digits is None else round(seconds, digits))
        if isinstance(value, bool):
            return self.BOOLEANS[value]
        return str(value)

    def write_csv(self, out_dir: str | os.PathLike, rows: Iterable[Mapping[str, Any]]) -> Path:
        """The table, atomically, each row `prepare`d and in `row_order`."""
        from solver.common.files import write_text_atomic

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.columns)
        for row in self.sorted_rows(self.prepare(r) for r in rows):
            writer.writerow([self.cell_text(name, row.get(name)) for name in self.columns])
        path = Path(out_dir) / self.TABLE
        write_text_atomic(path, buffer.getvalue())
        return path

    def write_table(self, out_dir: str | os.PathLike, rows: Iterable[Mapping[str, Any]]
                    ) -> list[Path]:
        """The table and the files beside it, each written atomically."""
        prepared = [self.prepare(r) for r in rows]
        return [self.write_csv(out_dir, prepared), *self.extra_files(Path(out_dir), prepared)]

    # --- the run -------------------------------------------------------------------------

    def finished(self, row: Mapping[str, Any], exact: bool = False) -> bool:
        """Whether a row needs no new solve: it has its proved numbers (not a cell over its
        time limit, nor one that failed), and its exact value if `exact` is asked."""
        return row.get("value") is not None and (not exact or row.get("exact") is not None)

    def pending(self, grid: Iterable[Any], rows: Iterable[Mapping[str, Any]],
                exact: bool = False) -> list[Any]:
        """The grid's rule sets the rows do not hold finished, in the grid's order."""
        done = {self.rule_key(r) for r in rows if self.finished(r, exact)}
        todo = {self.rule_key(p): p for p in grid if self.rule_key(p) not in done}
        return list(todo.values())

    def estimate(self, cells: int, workers: int, exact: bool = False) -> str | None:
        """A rough wall time for `cells` on `workers` workers, in words (None: unknown)."""
        if self.SECONDS_PER_CELL is None:
            return None
        seconds = self.SECONDS_PER_CELL * cells / max(1, workers)
        text = f"{seconds / 60:.0f} min" if seconds >= 120 else f"{seconds:.0f} s"
        return f"about {text} on {workers} workers" + (", more with --exact" if exact else "")

    def checked_row(self, row: Any, params: GameParameters) -> Row:
        """A row a worker sent back, as a row of this rule set, or ValueError: a task that
        returns nothing (or something else: a remote worker is another program) is a
        failure, not a solved cell."""
        if not isinstance(row, dict):
            raise ValueError(f"the task returned {type(row).__name__}, not a row")
        if set(row) != set(self.columns):
            raise ValueError(f"the task returned a row with columns {sorted(row)}")
        if self.rule_key(row) != self.rule_key(params):
            raise ValueError("the task returned the row of another rule set")
        return row

    def run(self, grid: Sequence[Any], out_dir: str | os.PathLike, client: Any,
            progress: Step | None = None, **options: Any) -> SweepReport:
        """Solve on `client` every cell of `grid` not finished in the folder's table; each
        cell is `cell(rules, **options)` (`exact=True` also re-solves rows without their
        exact value). The table is rewritten after each cell, so an interruption loses no
        finished row; the files beside it are written at the end. `progress(what, done,
        total)` hears of each cell as it arrives. The folder is locked meanwhile."""
        start = time.perf_counter()
        out = self.check_destination(out_dir)
        with sweep_lock(out):
            rows = {self.rule_key(r): r for r in self.read_rows(out)}
            todo = self.pending(grid, rows.values(), bool(options.get("exact")))
            wanted = {self.rule_key(p) for p in grid}
            report = SweepReport(rows=[], solved=0, skipped=len(wanted) - len(todo),
                                 failed=[], incomplete=[], seconds=0.0)
            self._collect(todo, out, client, rows, report, options, progress)
            if rows:
                self.write_table(out, list(rows.values()))
        report.rows = self.sorted_rows(rows.values())
        report.seconds = time.perf_counter() - start
        return report

    def _collect(self, todo: Sequence[Any], out: Path, client: Any, rows: dict[tuple, Row],
                 report: SweepReport, options: Mapping[str, Any], progress: Step | None
                 ) -> None:
        """Submit the cells, and take each row as it arrives into `rows` (and the table) and
        `report`; on Ctrl-C or SIGTERM, Dask's log is silenced and the tasks cancelled."""
        from dask.distributed import as_completed

        from solver.pipeline.dask_cluster import quiet_dask

        futures = {client.submit(self.cell, p.to_dict(), **options, pure=False,
                                 key=self._task_key(p)): p for p in todo}
        try:
            for count, future in enumerate(as_completed(futures), start=1):
                row = self._outcome(future, futures[future], report,
                                    bool(options.get("exact")))
                if row is not None:
                    rows[self.rule_key(row)] = row
                    self.write_csv(out, list(rows.values()))
                if progress is not None:
                    progress(self.PROGRESS, count, len(todo))
        except BaseException as error:
            if not isinstance(error, Exception):     # Ctrl-C, SIGTERM: the command says so
                quiet_dask()
            raise
        finally:
            for future in futures:
                future.cancel()

    def _outcome(self, future: Any, params: GameParameters, report: SweepReport,
                 exact: bool) -> Row | None:
        """The row a finished task brought, counted in `report`; None if it brought none
        (a task that failed for good: reported, and the sweep goes on)."""
        try:
            row = self.checked_row(future.result(), params)
        except Exception as error:
            report.failed.append((params, f"{type(error).__name__}: {error}".splitlines()[0]))
            return None
        status = str(row.get("status", ""))
        if status.startswith("failed"):
            report.failed.append((params, status))
        elif row["value"] is None:
            report.incomplete.append((params, status))
        else:
            report.solved += 1
            if exact and row["exact"] is None:
                report.incomplete.append((params, "no exact value"))
        return row

    def _task_key(self, params: GameParameters) -> str:
        """A Dask key naming the cell, unique per submission (a resubmitted cell is new)."""
        rules = "-".join(str(value).lower() for value in self.rule_key(params))
        return f"{self.GAME}-{rules}-{time.time_ns()}"


# --- the folder's lock ------------------------------------------------------------------------

LOCK = "sweep.lock"
_held: dict[Path, int] = {}          # folder -> descriptor of the lock this process holds


@contextlib.contextmanager
def sweep_lock(out_dir: str | os.PathLike) -> Iterator[Path]:
    """Hold the sweep folder for this process: `DIR/sweep.lock`, holding the owner's pid,
    under an exclusive `flock`. Two sweeps into one folder each rewrite the whole table from
    what they read at the start, so the second to finish would drop the first one's rows:
    the second is refused (ParameterError, exit 2) while the first lives. The kernel drops
    a flock when its process dies, so the lock of a killed sweep is simply taken over.
    Re-entrant within a process (the command, then `Sweep.run`)."""
    out = Path(out_dir).absolute()
    if out in _held:
        yield out / LOCK
        return
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        fd = _take_lock(out / LOCK)
    except BaseException:
        _remove_if_empty(out, created)
        raise
    _held[out] = fd
    try:
        yield out / LOCK
    finally:
        del _held[out]
        with contextlib.suppress(OSError):
            os.unlink(out / LOCK)            # before the unlock: a waiter re-checks the inode
        os.close(fd)
        _remove_if_empty(out, created)


def _remove_if_empty(out: Path, created: bool) -> None:
    """A folder this sweep made and never wrote a row into is not left behind."""
    if created:
        with contextlib.suppress(OSError):
            out.rmdir()


def _take_lock(path: Path) -> int:
    """The descriptor of `path`, created if need be, locked; ParameterError if another live
    process holds it. The file is re-checked after locking: if its holder removed it
    meanwhile, the lock taken was on a file no longer there, so take the new one."""
    import fcntl

    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as error:
            raise ParameterError(f"cannot lock the sweep folder: {path}: "
                                 f"{error.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.read(fd, 64).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise ParameterError(f"{path.parent} is in use by another sweep (pid {owner}, "
                                 f"{path}); wait for it to end or choose another --out"
                                 ) from None
        try:
            same = os.path.samestat(os.fstat(fd), os.lstat(path))
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return fd
        os.close(fd)


# --- the proved numbers of a row --------------------------------------------------------------

MAX_EXACT_CHARS = 10_000       # an exact value the sweep writes has a few dozen digits
_EXACT = re.compile(r"-?[0-9]+(/[0-9]+)?")


def parse_number(name: str, text: str) -> float:
    """A number column's text as a finite float, or ParameterError naming the column."""
    try:
        number = float(text)
    except ValueError:
        raise ParameterError(f"{name} is not a number: {text[:40]!r}") from None
    if not math.isfinite(number):
        raise ParameterError(f"{name} is not a finite number: {text[:40]!r}")
    return number


def is_exact_text(text: object) -> bool:
    """Whether `text` is an exact value as a sweep table holds it, checked before
    Fraction() reads it: "p" or "p/q" in plain digits (an exponent would make Fraction
    grind for minutes; garbage would be a traceback), at most MAX_EXACT_CHARS, q not 0.
    The one check of both games' tables and of the results that read them."""
    return (isinstance(text, str) and len(text) <= MAX_EXACT_CHARS
            and _EXACT.fullmatch(text) is not None and re.search(r"/0+$", text) is None)


def parse_exact(text: str, lower: float | None, upper: float | None) -> str | None:
    """The `exact` column's text: empty (None), or a fraction of bounded size inside the
    row's proved [lower, upper] (ParameterError otherwise: a huge one is refused unread)."""
    if not text:
        return None
    if not is_exact_text(text):
        raise ParameterError(f"exact is not a fraction: {text[:40]!r}")
    if lower is None or upper is None or not lower <= Fraction(text) <= upper:
        raise ParameterError(f"exact {text[:40]} is outside its certified interval")
    return text


def proved_exploitability(model: Any, strategy: Any) -> Fraction:
    """The exploitability (NashConv / 2, OpenSpiel's) of the strategy pair as the
    certificate reads it (every probability an exact multiple of 2^-53), by the exact best
    responses: a proved number, never negative. The float best response's figure is the
    rounding of a nonnegative quantity and came out at -1e-17 in 7 of the 360 rows."""
    from games.bidou.betting import CAPTAIN, OPPONENT
    from solver.hand.exact.certificate import exact_best_response

    return (exact_best_response(model, strategy, CAPTAIN)
            + exact_best_response(model, strategy, OPPONENT)) / 2


def enclosed(value: float, lower: Fraction, upper: Fraction, exact: Fraction | None,
             exploitability: Fraction | float) -> dict[str, Any]:
    """A row's `value, lower, upper, exact, exploitability`, each a number a reader can
    trust: the value is the proved fraction's nearest float when there is one,
    else the solver's inside the proved [lower, upper] (its midpoint if the solver's float
    lies outside); the bounds are the proved ones widened outward to floats that also hold
    the value, as a float and as the decimal the table prints (`decimal_text`); the
    exploitability is rounded up and at least 0. `lower`, `upper` and `exploitability` may
    be floats read back from a table: the same numbers come out (idempotent)."""
    from solver.hand.exact.certificate import float_down, float_up

    lower, upper = Fraction(lower), Fraction(upper)
    if exact is not None:
        value = float(exact)
    elif not lower <= Fraction(value) <= upper:
        value = float((lower + upper) / 2)
    printed = Fraction(repr(value))
    inside = [Fraction(value), printed] + ([] if exact is None else [Fraction(exact)])
    return {"value": value, "lower": float_down(min([lower, *inside])),
            "upper": float_up(max([upper, *inside])),
            "exact": None if exact is None else str(exact),
            "exploitability": float_up(max(Fraction(0), Fraction(exploitability)))}


def enclosed_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A table row with its numbers `enclosed` (a table of the LP's raw floats can hold a
    value outside its own interval, and negative exploitabilities: an older table had 309
    of 360 rows and 7 of them)."""
    exact = None if row["exact"] is None else Fraction(row["exact"])
    return {**row, **enclosed(row["value"], Fraction(row["lower"]), Fraction(row["upper"]),
                              exact, row["exploitability"])}


def decimal_text(x: float, up: bool) -> str:
    """x as a decimal that reads back as x and is rounded outward: <= x as a decimal (>= x
    if `up`). The shortest repr is half an ulp from x either way: -3/40 rounded down to a
    float printed as -0.07500000000000001, a decimal above -3/40 (49 rows' intervals missed
    their exact fraction when read as decimals). Then more digits, rounded outward."""
    import decimal

    text = repr(x)
    if (Fraction(text) >= Fraction(x)) if up else (Fraction(text) <= Fraction(x)):
        return text
    rounding = decimal.ROUND_CEILING if up else decimal.ROUND_FLOOR
    for digits in range(17, 800):
        rounded = decimal.Context(prec=digits, rounding=rounding).plus(decimal.Decimal(x))
        if float(rounded) == x:
            return str(rounded).replace("E", "e")
    return str(decimal.Decimal(x))                 # exact: every float is a finite decimal


def worker_info() -> dict[str, Any]:
    """Which code and process a worker runs (the tests check it imports this tree)."""
    import solver

    return {"solver": solver.__file__, "pid": os.getpid()}
