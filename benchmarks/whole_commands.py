"""Whole commands timed in fresh processes, this checkout's beside another installation's
(`--against OTHER/.venv/bin/bidou`), alternately so that both see the same load: the
`--whole` runs of benchmarks/bench_le_bidou.py and bench_manche.py; and `bidou` commands
of this checkout alone, medians of fresh runs (`command_rows`: bench_bidu.py,
bench_montevideo.py). Run from the
benchmarks' folder (`python benchmarks/NAME.py` puts it first on the path): a benchmark
that a test loads from its file cannot import it (bench_refined.py, which keeps its own
`_children_cpu`)."""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time
from typing import Callable

BIDOU = [sys.executable, "-c", "from solver.app.cli import main; main()"]

# one run of a peer (its name, interpreter and folder): its numbers (medians taken) and a
# line of what it printed
Run = Callable[[str, str, "str | None"], tuple[tuple[float, ...], str]]


def children_cpu() -> float:
    """CPU seconds of this process's finished children (and theirs, once waited for)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def peers(against: str | None) -> dict[str, tuple[str, str | None]]:
    """The interpreter and working folder of each peer: this checkout's ("this"), and
    `against`'s ("other": a console script's "#!/path/to/python", run from a folder
    holding no checkout, so that it imports its own installation)."""
    found: dict[str, tuple[str, str | None]] = {"this": (sys.executable, None)}
    if against:
        with open(against) as script:
            found["other"] = (script.readline()[2:].strip(), "/")
    return found


def timed(command: list[str], folder: str | None
          ) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall seconds, CPU seconds (the command and the children it waited for) and the
    finished command, its output captured."""
    before, start = children_cpu(), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=folder)
    return time.perf_counter() - start, children_cpu() - before, done


def side_by_side(repeats: int, against: str | None, run: Run
                 ) -> dict[str, tuple[tuple[float, ...], str]]:
    """`run(peer, python, folder)` for each peer in turn, `repeats` times: by peer, the median of
    each of its numbers and the line its last run showed."""
    where = peers(against)
    found: dict[str, list[tuple[float, ...]]] = {}
    shown: dict[str, str] = {}
    for _ in range(repeats):
        for peer, (python, folder) in where.items():
            numbers, shown[peer] = run(peer, python, folder)
            found.setdefault(peer, []).append(numbers)
    return {peer: (tuple(statistics.median(column) for column in zip(*runs)), shown[peer])
            for peer, runs in found.items()}


def command_rows(commands: list[tuple[list[str], int]], width: int = 45
                 ) -> list[dict[str, object]]:
    """Each `bidou` command (its arguments, and how many runs) in fresh processes of this
    checkout, printed as it finishes: the median wall seconds as rows of a timings table
    (solver/app/timings.py). A command that fails stops the benchmark."""
    rows: list[dict[str, object]] = []
    for args, runs in commands:
        times = []
        for _ in range(runs):
            begin = time.perf_counter()
            subprocess.run(BIDOU + args, check=True, capture_output=True)
            times.append(time.perf_counter() - begin)
        seconds = statistics.median(times)
        what = " ".join(["bidou"] + args)
        print(f"  {what:{width}s} {seconds:8.2f}  ({runs} runs)")
        rows.append({"what": what, "median_s": round(seconds, 2), "runs": runs})
    return rows
