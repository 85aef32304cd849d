"""Variant sweeps: a grid of rule sets, each solved exactly, on a Dask cluster.

    bidou sweep --faces 2,3,4 --throws 1,2 --reroll all,keep --out DIR

Every rule set is one task: `solver.hand.solve.solve(params)` (LP, then the exact certificate;
`exact=True` also recovers the exact rational value) run on a Dask worker, reduced to one
tidy row (`COLUMNS`). Rows go to `DIR/sweep.csv` as they arrive (atomically, so an
interrupted sweep keeps every finished row and the next run skips them), then to
`DIR/sweep.parquet` and `DIR/sweep.png`. The cluster is Dask's: a LocalCluster of the
machine's cores (on TLS with credentials of its own), or any existing scheduler; Dask
retries a task whose worker died.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import logging
import math
import os
import re
import stat
import threading
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from games.bidou.params import BidouParams, ParameterError
from solver.app.signals import started_whole
from solver.common.files import DestinationError, check_directory_destination
from solver.common.progress import Step
from solver.pipeline.sweep_grid import (  # noqa: F401  (imported from here too)
    RULE_COLUMNS,
    RuleKey,
    build_grid,
    parse_list,
    rule_key,
)

COLUMNS = RULE_COLUMNS + ("value", "lower", "upper", "exact", "exploitability", "seconds")
FILES = ("sweep.csv", "sweep.parquet", "sweep.png")


# --- the grid: its rule sets and their keys are solver/pipeline/sweep_grid.py's ----------------

CONFIRM_RULE_SETS = 400         # the full grid of the hand game is 360
SECONDS_PER_RULE_SET = 0.25     # LP + certificate, one worker (benchmarks/bench_sweep.py)


def max_local_workers() -> int:
    """The most worker processes a local cluster may start: a few per core (each is a
    Python process of ~150 MB; 1000 of them never finished starting)."""
    return max(8, 4 * (os.cpu_count() or 1))


def local_workers(requested: int | None, rule_sets: int) -> int:
    """Worker processes for a local cluster solving `rule_sets`: as asked (ParameterError
    above `max_local_workers`) or the machine's cores, and never more than the rule sets."""
    if requested is not None and requested > max_local_workers():
        raise ParameterError(f"--workers {requested}: at most {max_local_workers()} on this "
                             f"machine ({os.cpu_count()} cores)")
    wanted = requested if requested is not None else os.cpu_count() or 1
    return max(1, min(wanted, rule_sets))


def estimate(rule_sets: int, workers: int, exact: bool) -> str:
    """A rough wall time for `rule_sets` LP solves on `workers` workers, in words."""
    seconds = SECONDS_PER_RULE_SET * rule_sets / max(1, workers)
    text = f"{seconds / 60:.0f} min" if seconds >= 120 else f"{seconds:.0f} s"
    return f"about {text} on {workers} workers" + (", more with --exact" if exact else "")


# --- one rule set: the task a worker runs -----------------------------------------------------

def solve_row(rules: Mapping[str, Any], exact: bool = False) -> dict[str, Any]:
    """One rule set solved (LP + certificate, exact value if asked), as a table row.

    The row's numbers are those `enclosed` makes of the proof: `lower <= value <= upper`
    and `lower <= exact <= upper` hold in floats and in the decimals the table prints, and
    `exploitability` is proved, rounded up, never negative. `exact` is the proved fraction,
    or None.
    """
    import solver.hand.exact.equilibrium  # noqa: F401  (imports are not the solve's time)
    import solver.hand.lp.sequence_form  # noqa: F401
    from solver.hand.solve import solve

    params = BidouParams.from_mapping(dict(rules))
    start = time.perf_counter()
    solution = solve(params, exact=exact)
    seconds = time.perf_counter() - start
    proof = solution.certificate
    assert proof is not None, "solve() certifies every solution"
    return {**params.to_dict(), **enclosed(
        solution.value, proof.lower, proof.upper, proof.exact,
        proved_exploitability(solution.model, solution.strategy)), "seconds": seconds}


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


# --- the table --------------------------------------------------------------------------------

def check_destination(out_dir: str | os.PathLike) -> Path:
    """The output directory, usable before any work starts (ParameterError otherwise).

    The table's files must be absent or regular files: a rename never replaces a device,
    a FIFO or a symlink.
    """
    out = Path(out_dir)
    if os.path.lexists(out) and not out.is_dir():
        raise ParameterError(f"--out {out} exists and is not a directory")
    try:                # the nearest existing folder writable, names within the limit, ...
        check_directory_destination(out)
    except DestinationError as error:
        raise ParameterError(str(error)) from None
    for name in FILES:
        path = out / name
        if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
            raise ParameterError(f"{path} exists and is not a regular file")
    return out


LOCK = "sweep.lock"
_held: dict[Path, int] = {}          # folder -> descriptor of the lock this process holds


@contextlib.contextmanager
def sweep_lock(out_dir: str | os.PathLike) -> Iterator[Path]:
    """Hold the sweep folder for this process: `DIR/sweep.lock`, holding the owner's pid,
    under an exclusive `flock`. Two sweeps into one folder each rewrite the whole table from
    what they read at the start, so the second to finish would drop the first one's rows:
    the second is refused (ParameterError, exit 2) while the first lives. The kernel drops
    a flock when its process dies, so the lock of a killed sweep is simply taken over.
    Re-entrant within a process (the command, then `run_sweep`)."""
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


MAX_EXACT_CHARS = 10_000       # an exact value the sweep writes has a few dozen digits
_EXACT = re.compile(r"-?[0-9]+(/[0-9]+)?")
_NUMBER_COLUMNS = ("value", "lower", "upper", "exploitability", "seconds")


def read_rows(out_dir: str | os.PathLike) -> list[dict[str, Any]]:
    """The rows of an existing `sweep.csv` (none if absent), each checked as strictly as a
    strategy file: ParameterError, one line naming the line, for anything the sweep would
    not have written (a resumed sweep skips these rule sets, so a bad row would stay).

    The table is rewritten atomically, so a last line without its newline is damage from
    elsewhere (a copy cut short): it is dropped, and its rule set solved again.
    """
    path = Path(out_dir) / "sweep.csv"
    if not os.path.lexists(path):
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ParameterError(f"{path} is not a sweep table: {error}") from None
    lines = text.splitlines()
    if lines and not text.endswith("\n"):
        lines.pop()                          # a truncated last row
    records = list(csv.reader(lines))
    if not records or tuple(records[0]) != COLUMNS:
        raise ParameterError(f"{path} is not a sweep table (columns "
                             f"{records[0] if records else []}, expected {list(COLUMNS)})")
    rows: dict[RuleKey, dict[str, Any]] = {}
    for number, record in enumerate(records[1:], start=2):
        try:
            row = _parse_row(record)
        except (ParameterError, ValueError) as error:
            raise ParameterError(f"{path} line {number}: {error}") from None
        key = rule_key(row)
        if key in rows and rows[key] != row:
            rules = BidouParams.from_mapping(dict(zip(RULE_COLUMNS, key))).describe()
            raise ParameterError(f"{path} line {number}: a second row for {rules} with "
                                 f"other numbers")
        rows[key] = row
    return list(rows.values())


def _parse_row(record: Sequence[str]) -> dict[str, Any]:
    """One CSV record as a row: the rules validated (whole numbers in range), the numbers
    finite, `exact` a fraction of bounded size inside [lower, upper]."""
    if len(record) != len(COLUMNS):
        raise ParameterError(f"{len(record)} fields, expected {len(COLUMNS)}")
    fields = dict(zip(COLUMNS, (field.strip() for field in record)))
    params = BidouParams.from_mapping({name: fields[name] for name in RULE_COLUMNS})
    if params.ranking != "french":
        params = dataclasses.replace(params, aces_beat_bidou=BidouParams().aces_beat_bidou)
    row: dict[str, Any] = params.to_dict()
    for name in _NUMBER_COLUMNS:
        try:
            number = float(fields[name])
        except ValueError:
            raise ParameterError(f"{name} is not a number: {fields[name][:40]!r}") from None
        if not math.isfinite(number):
            raise ParameterError(f"{name} is not a finite number: {fields[name][:40]!r}")
        row[name] = number
    if not row["lower"] <= row["upper"]:
        raise ParameterError(f"lower {row['lower']!r} is above upper {row['upper']!r}")
    exact = fields["exact"]
    row["exact"] = None
    if exact:
        if len(exact) > MAX_EXACT_CHARS or not _EXACT.fullmatch(exact) or \
                re.search(r"/0+$", exact):
            raise ParameterError(f"exact is not a fraction: {exact[:40]!r}")
        fraction = Fraction(exact)
        if not row["lower"] <= fraction <= row["upper"]:
            raise ParameterError(f"exact {exact[:40]} is outside its certified interval")
        row["exact"] = exact
    return row


def sorted_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return sorted((dict(r) for r in rows), key=lambda r: rule_key(r))


def frame_of(rows: Sequence[Mapping[str, Any]]):
    """The rows as a DataFrame with the table's columns and types."""
    import pandas as pd

    frame = pd.DataFrame(sorted_rows(rows), columns=list(COLUMNS))
    return frame.astype({"faces": "int64", "throws": "int64", "max_level": "int64",
                         "reroll": "string", "ranking": "string", "aces_beat_bidou": "bool",
                         "value": "float64", "lower": "float64", "upper": "float64",
                         "exact": "string", "exploitability": "float64",
                         "seconds": "float64"})


def write_csv(out_dir: str | os.PathLike, rows: Sequence[Mapping[str, Any]]) -> Path:
    """sweep.csv, atomically: every row `enclosed_row` (an old row is repaired, a new one
    unchanged), the value in its shortest repr, the bounds and the exploitability in
    decimals rounded outward that read back as the same floats (`decimal_text`)."""
    from solver.common.files import write_text_atomic

    path = Path(out_dir) / "sweep.csv"
    frame = frame_of([enclosed_row(r) for r in rows]).astype({
        "lower": "object", "upper": "object", "exploitability": "object"})
    for name, up in (("lower", False), ("upper", True), ("exploitability", True)):
        frame[name] = [decimal_text(float(x), up) for x in frame[name]]
    write_text_atomic(path, frame.to_csv(index=False, float_format=None))
    return path


def write_table(out_dir: str | os.PathLike, rows: Sequence[Mapping[str, Any]]) -> list[Path]:
    """sweep.csv, sweep.parquet and sweep.png, each written atomically, from the rows
    `enclosed_row`."""
    from solver.common.files import write_bytes_atomic

    rows = [enclosed_row(r) for r in rows]
    paths = [write_csv(out_dir, rows)]
    buffer = io.BytesIO()
    frame_of(rows).to_parquet(buffer, index=False, engine="pyarrow")
    write_bytes_atomic(Path(out_dir) / "sweep.parquet", buffer.getvalue())
    paths.append(Path(out_dir) / "sweep.parquet")
    write_bytes_atomic(Path(out_dir) / "sweep.png", plot_png(rows))
    paths.append(Path(out_dir) / "sweep.png")
    return paths


# The sweep plot's series: colour (Okabe-Ito, for colour-blind readers) for the last rule that
# varies, marker and line style for the one before it, so that no two series of a panel
# look alike in colour, in grayscale or in a black-and-white print.
SERIES_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000")
SERIES_MARKS = (("o", "-"), ("s", "--"), ("^", ":"), ("D", "-."))


def series_style(index: tuple[int, ...]) -> dict[str, Any]:
    """matplotlib keywords of the series at `index` (its position in each varying rule)."""
    colour = SERIES_COLOURS[index[-1] % len(SERIES_COLOURS)] if index else SERIES_COLOURS[0]
    marker, style = SERIES_MARKS[index[0] % len(SERIES_MARKS)] if len(index) > 1 else ("o", "-")
    return {"color": colour, "marker": marker, "linestyle": style}


def plot_png(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """`sweep_figure` as PNG bytes (no software field, so the same rows give the same
    bytes)."""
    buffer = io.BytesIO()
    sweep_figure(rows).savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def sweep_figure(rows: Sequence[Mapping[str, Any]]):
    """The value against the number of faces: one panel per reroll rule and ranking, one line
    per other rule that varies in the grid (Agg canvas, no global state); `series_style`
    tells the lines apart. Type of 7.5 pt or more, so that a landscape A4 print (the figure
    shrunk by 0.93) keeps it at 6.5 pt or more."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = sorted_rows(rows)
    panel_of = lambda r: (r["reroll"], r["ranking"],  # noqa: E731
                          r["aces_beat_bidou"] if r["ranking"] == "french" else None)
    panels = sorted({panel_of(r) for r in rows}, key=str)
    varying = [c for c in ("throws", "max_level") if len({r[c] for r in rows}) > 1]
    values = {c: sorted({r[c] for r in rows}) for c in varying}
    columns = min(len(panels), 3) or 1
    lines = (len(panels) + columns - 1) // columns or 1
    figure = Figure(figsize=(4.2 * columns, 3.4 * lines + 0.5), dpi=110)
    FigureCanvasAgg(figure)
    for i, panel in enumerate(panels):
        axes = figure.add_subplot(lines, columns, i + 1)
        mine = [r for r in rows if panel_of(r) == panel]
        for line in sorted({tuple(r[c] for c in varying) for r in mine}):
            points = sorted((r["faces"], r["value"]) for r in mine
                            if tuple(r[c] for c in varying) == line)
            label = ", ".join(f"{c.replace('_', ' ')} {v}" for c, v in zip(varying, line))
            index = tuple(values[c].index(v) for c, v in zip(varying, line))
            axes.plot([p[0] for p in points], [p[1] for p in points], markersize=3.5,
                      linewidth=1, label=label or None, **series_style(index))
        reroll, ranking, aces = panel
        title = f"reroll {reroll}, {ranking}"
        if aces is not None:
            title += ", aces beat bidou" if aces else ", bidou unbeaten"
        axes.set_title(title, fontsize=9)
        axes.axhline(0, color="0.6", linewidth=0.6)
        axes.set_xticks(sorted({r["faces"] for r in mine}))
        axes.set_xlabel("faces")
        axes.set_ylabel("value to the captain (chips/hand)")
        axes.tick_params(labelsize=7.5)
    if varying:
        handles, labels = figure.axes[0].get_legend_handles_labels()
        figure.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6),
                      fontsize=7.5, frameon=False)
    figure.tight_layout(rect=(0, 0.5 / (3.4 * lines + 0.5) + 0.02, 1, 1))
    return figure


# --- the sweep --------------------------------------------------------------------------------

@dataclasses.dataclass
class SweepReport:
    rows: list[dict[str, Any]]        # every row of the table, old and new
    solved: int                       # rule sets solved by this run
    skipped: int                      # already in the table
    failed: list[tuple[BidouParams, str]]   # rule sets that could not be solved, and why
    not_exact: list[BidouParams]      # --exact asked, no exact value recovered
    seconds: float


HANDSHAKE_SECONDS = 10.0
SCHEMES = ("tcp", "tls")    # what the project runs and tests; ucx://, ws:// need more
TLS_SETTINGS = ("distributed.comm.tls.ca-file", "distributed.comm.tls.client.cert")


def check_scheduler(address: str) -> str:
    """A `--scheduler` address the sweep can use, or ParameterError in one line: not empty
    (an empty one used to mean a local cluster, silently), and tcp:// or a bare host:port
    (Dask's default, tcp), or tls:// with the client's credentials in Dask's configuration
    (`client_security`); the other schemes need libraries the sweep does not bring, and
    gave tracebacks."""
    text = address.strip()
    if not text:
        raise ParameterError("--scheduler: the address is empty (leave the option out for a "
                             "local cluster)")
    scheme, separator, _ = text.partition("://")
    if separator and scheme.lower() not in SCHEMES:
        raise ParameterError(f"--scheduler {address}: only tcp:// and tls:// addresses are "
                             f"supported, not {scheme}://")
    if scheme.lower() == "tls" and separator:
        client_security(text)
    return text


def client_security(address: str) -> Any:
    """Dask's client security from its configuration (`distributed.comm.tls.ca-file`,
    `.client.cert`, `.client.key`: a YAML file in ~/.config/dask or DASK_DISTRIBUTED__COMM__
    TLS__... variables), checked now: for a tls:// scheduler the CA and a client certificate
    must be given and load (ParameterError in one line otherwise), as Dask's `Client` will
    read them. The sweep takes no credentials of its own on the command line."""
    import dask

    missing = [name for name in TLS_SETTINGS if not dask.config.get(name, None)]
    if address.lower().startswith("tls://") and missing:     # said before distributed loads
        raise ParameterError(f"--scheduler {address}: a tls:// scheduler needs the client's "
                             f"credentials in Dask's configuration; {', '.join(missing)} "
                             f"not set (see README, Sweeps)")
    from distributed.security import Security

    try:
        security = Security()
        security.get_connection_args("client")          # loads the files: fails here
    except (OSError, ValueError) as error:              # ssl.SSLError is an OSError
        raise ParameterError(f"--scheduler {address}: Dask's TLS settings do not load: "
                             f"{str(error).splitlines()[0][:200]}") from None
    return security


def connect(address: str, seconds: float | None = None) -> Any:
    """A Client on the scheduler at `address`, or ParameterError within about `seconds`
    (default `HANDSHAKE_SECONDS`).

    Dask's own timeout covers the TCP connect: a service that accepts and never answers
    held the command for good, and one that answers in another protocol crashed it (an
    HTTP reply read as a frame length of 3 EiB). So the scheduler is first asked who it is
    (`identify`), under a deadline, and only a scheduler gets a Client; that is made in a
    daemon thread under the same deadline, should the service change its mind."""
    from dask.distributed import Client

    seconds = HANDSHAKE_SECONDS if seconds is None else seconds
    identify(address, seconds)
    box: dict[str, Any] = {}

    def handshake() -> None:
        try:
            box["client"] = Client(address, timeout=f"{seconds}s")
        except BaseException as error:       # reported below, in the main thread
            box["error"] = error

    thread = threading.Thread(target=handshake, name="bidou-dask-handshake", daemon=True)
    thread.start()
    thread.join(seconds + 2)
    if thread.is_alive():
        raise ParameterError(f"the Dask scheduler {address} did not answer in {seconds:.0f} "
                             f"s (is it a Dask scheduler?)")
    if "error" in box:
        raise _unreachable(address, box["error"])
    return box["client"]


def identify(address: str, seconds: float) -> None:
    """Ask the service at `address` who it is (Dask's `identity` call) within `seconds`:
    ParameterError unless a Dask scheduler answers."""
    import asyncio

    from distributed.comm import connect as open_comm

    connection_args = client_security(address).get_connection_args("client")

    async def ask() -> Any:
        comm = await open_comm(address, timeout=seconds, **connection_args)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    try:
        reply = asyncio.run(asyncio.wait_for(ask(), seconds))
    except (TimeoutError, asyncio.TimeoutError):
        raise ParameterError(f"the Dask scheduler {address} did not answer in {seconds:.0f} "
                             f"s (is it a Dask scheduler?)") from None
    except Exception as error:               # refused, unknown host, another protocol
        raise _unreachable(address, error) from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise ParameterError(f"{address} is not a Dask scheduler (it answered "
                             f"{str(reply)[:60]!r})")


def _unreachable(address: str, error: BaseException) -> BaseException:
    if not isinstance(error, Exception):     # Ctrl-C, SIGTERM: as they are
        return error
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    return ParameterError(f"cannot reach the Dask scheduler {address}: {first[:200]}")


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None,
                dashboard: bool = False) -> Iterator[Any]:
    """A Dask client: on `scheduler` if given (`check_scheduler`, `connect`), else on a new
    LocalCluster of `workers` single-threaded processes (default: the machine's cores) on
    TLS, closed on exit (`local_cluster`); the client takes the cluster's credentials."""
    from dask.distributed import Client

    if scheduler is not None:
        with connect(check_scheduler(scheduler)) as client:
            yield client
        return
    with local_cluster(workers or os.cpu_count() or 1, dashboard) as cluster, \
            started_whole(lambda: Client(cluster), quiet_dask) as client:
        yield client


@contextlib.contextmanager
def local_cluster(workers: int, dashboard: bool = False, secure: bool = True) -> Iterator[Any]:
    """A LocalCluster on loopback that lets in no one else and shows as little as Dask lets it.

    Its scheduler, nannies and workers listen on tls:// only, with credentials made for this
    cluster alone (`Security.temporary()`: a self-signed key and certificate in memory, which
    every member and this process's client must present; Dask checks both ends). Without
    them, any local user could connect to the loopback port and run code in the sweep
    (`run_on_scheduler`). `secure=False` is plain tcp://, for the benchmark's comparison
    (benchmarks/bench_sweep.py --startup) and a test's stand-in for a remote scheduler.

    No dashboard unless asked, and no HTTP pages on the scheduler's and workers' HTTP
    servers (Dask starts them anyway: info pages, logs, metrics; the routes are emptied).
    Its scratch space (spilled data, worker folders) is a private folder made by `mkdtemp`
    (mode 0700, a fresh name: nothing planted under a fixed name in $TMPDIR is followed),
    removed on exit, with whatever a killed worker left there."""
    import shutil
    import tempfile

    import dask
    from dask.distributed import LocalCluster
    from distributed.security import Security

    security = Security.temporary() if secure else Security()
    scratch = tempfile.mkdtemp(prefix="bidou-dask-")
    quiet: dict[str, Any] = {} if dashboard else {"distributed.scheduler.http.routes": [],
                                  "distributed.worker.http.routes": []}
    # the worker processes log only what is fatal: what befalls a task the sweep reports
    # itself, and a closing cluster made them log errors after the command's last line
    quiet["distributed.nanny.pre-spawn-environ"] = {
        **dask.config.get("distributed.nanny.pre-spawn-environ", {}),
        "DASK_LOGGING__DISTRIBUTED": "critical"}
    try:
        with dask.config.set({"temporary-directory": scratch, **quiet}), started_whole(
                lambda: LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True,
                    host="127.0.0.1", local_directory=scratch,
                    protocol="tls://" if secure else "tcp://", security=security,
                    dashboard_address="127.0.0.1:0" if dashboard else None,
                    # the HTTP server Dask starts anyway: a free port, not 8787
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.ERROR), quiet_dask) as cluster:
            yield cluster
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def quiet_dask() -> None:
    """Dask's log handlers (its own, on `distributed`, `distributed.client`, `tornado`, ...)
    silenced for the rest of the process. Called when a sweep is interrupted: the cancelled
    tasks and the closing cluster make Dask log errors ("Couldn't gather keys", heartbeats
    to a closed scheduler) that are its business, not the user's, who gets one line."""
    names = [name for name in logging.root.manager.loggerDict
             if name.split(".")[0] in ("distributed", "tornado")]
    for name in names:
        for handler in logging.getLogger(name).handlers:
            handler.setLevel(logging.CRITICAL + 1)


def checked_row(row: Any, params: BidouParams) -> dict[str, Any]:
    """A row a worker sent back, as a row of this rule set, or ValueError: a task that
    returns nothing (or something else: a remote worker is another program) is a failure,
    not a solved rule set."""
    if not isinstance(row, dict):
        raise ValueError(f"the task returned {type(row).__name__}, not a row")
    if set(row) != set(COLUMNS):
        raise ValueError(f"the task returned a row with columns {sorted(row)}")
    if rule_key(row) != rule_key(params):
        raise ValueError("the task returned the row of another rule set")
    return row


def run_sweep(grid: Sequence[BidouParams], out_dir: str | os.PathLike, client: Any,
              exact: bool = False, progress: Step | None = None) -> SweepReport:
    """Solve every rule set of `grid` not already in `out_dir/sweep.csv` on `client`.

    The table is rewritten (atomically) after each row, so an interruption loses no finished
    row. With `exact`, rows without an exact value are solved again. `progress(what, done,
    total)` hears of each rule set as it arrives (solved or failed: the report says which).
    The Parquet file and the plot are written at the end. The folder is locked meanwhile
    (`sweep_lock`).
    """
    start = time.perf_counter()
    out = check_destination(out_dir)
    with sweep_lock(out):
        return _run_locked(grid, out, client, exact, progress, start)


def _run_locked(grid: Sequence[BidouParams], out: Path, client: Any, exact: bool,
                progress: Step | None, start: float) -> SweepReport:
    """`run_sweep` with the folder locked: the rows read here are the table's last word."""
    from dask.distributed import as_completed

    existing = {rule_key(r): r for r in read_rows(out)}
    wanted = {rule_key(p): p for p in grid}

    def done(row: Mapping[str, Any]) -> bool:
        return not exact or row["exact"] is not None

    todo = [p for key, p in wanted.items() if not (key in existing and done(existing[key]))]
    rows = dict(existing)
    failed: list[tuple[BidouParams, str]] = []
    not_exact: list[BidouParams] = []
    futures = {client.submit(solve_row, p.to_dict(), exact, pure=False,
                             key=f"bidou-{'-'.join(map(str, rule_key(p)))}-{time.time_ns()}"): p
               for p in todo}
    try:
        for count, future in enumerate(as_completed(futures), start=1):
            params = futures[future]
            try:
                row = checked_row(future.result(), params)
            except Exception as error:       # a task failed for good: report it, go on
                failed.append((params, f"{type(error).__name__}: {error}".splitlines()[0]))
                row = None
            if row is not None:
                rows[rule_key(row)] = row
                if exact and row["exact"] is None:
                    not_exact.append(params)
                write_csv(out, list(rows.values()))
            if progress is not None:
                progress("rule sets solved", count, len(todo))
    except BaseException as error:
        if not isinstance(error, Exception):     # Ctrl-C, SIGTERM: the command says so
            quiet_dask()
        raise
    finally:
        for future in futures:
            future.cancel()
    if rows:
        write_table(out, list(rows.values()))
    return SweepReport(rows=sorted_rows(rows.values()), solved=len(todo) - len(failed),
                       skipped=len(wanted) - len(todo), failed=failed, not_exact=not_exact,
                       seconds=time.perf_counter() - start)
