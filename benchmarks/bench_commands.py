"""Whole commands timed as a user runs them, against another installation side by side.

A refactor is judged by what a user waits for: the start-up of `bidou solve`, an LP solve,
an exact recovery, a CFR run, a small round. This script runs each command with this
checkout's `bidou` and, with `--against PATH`, with another installation's `bidou` (say the
previous release's virtual environment, `--against ../old/.venv/bin/bidou`), alternating the
two so that both see the same load, and prints the median wall time of each and their ratio.

    python benchmarks/bench_commands.py --against /path/to/other/.venv/bin/bidou --repeats 5

With `--record` (and no `--against`, `--only`) the medians go into docs/data/benchmarks.json
and every doc passage that quotes them is written again (solver/app/timings.py): the only
way a timing of a command reaches README.md.

    python benchmarks/bench_commands.py --repeats 3 --record
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# (name, arguments): what a user waits for, from the start-up alone to a proved manche; "{tmp}"
# stands for a fresh empty folder. Every command runs with an empty cache folder of its own
# (XDG_CACHE_HOME), so nothing one run saved speeds up the next; `round --state` answers from
# the published round, as a user's first query does.
COMMANDS = (
    ("start-up (--help)", ["solve", "--help"]),
    ("solve (refined, default)", ["solve"]),
    ("solve --plain", ["solve", "--plain"]),
    ("solve --exact", ["solve", "--exact"]),
    ("solve --method pcfr+", ["solve", "--method", "pcfr+"]),
    ("solve --method cfr+", ["solve", "--method", "cfr+"]),
    ("solve --reroll keep (refined)", ["solve", "--reroll", "keep"]),
    ("solve --reroll keep --plain", ["solve", "--reroll", "keep", "--plain"]),
    ("solve --reroll keep --exact", ["solve", "--reroll", "keep", "--exact"]),
    ("solve --game le-bidou", ["solve", "--game", "le-bidou"]),
    ("solve --game le-bidou --exact", ["solve", "--game", "le-bidou", "--exact"]),
    ("export (every table and chart)", ["export", "--out", "{tmp}"]),
    ("round --state 0,2,7", ["round", "--state", "0,2,7"]),
    ("round --plain", ["round", "--plain"]),
    ("round --reroll keep --plain", ["round", "--reroll", "keep", "--plain"]),
    ("round (5 chips, 4 faces, 2 throws)", ["round", "--chips", "5", "--faces", "4",
                                            "--throws", "2"]),
    ("manche", ["manche"]),
)


def run_once(bidou: str, args: list[str]) -> float:
    """Wall seconds of one run, in a fresh cache folder (and "{tmp}" a fresh folder); a
    failing command stops the benchmark (a timing of a failure would compare nothing)."""
    with tempfile.TemporaryDirectory() as scratch:
        args = [arg.replace("{tmp}", str(Path(scratch) / "out")) for arg in args]
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(scratch) / "cache")}
        start = time.perf_counter()
        done = subprocess.run([bidou, *args], capture_output=True, text=True, env=env)
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{bidou} {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=None,
                        help="another installation's bidou executable to run side by side")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", action="append", default=None,
                        help="run only the commands whose name contains this (repeatable)")
    parser.add_argument("--record", action="store_true",
                        help="write the medians to docs/data/benchmarks.json and the docs")
    options = parser.parse_args()
    if options.record and (options.against or options.only):
        sys.exit("--record takes every command of this checkout alone (no --against, --only)")
    load = os.getloadavg()
    rows = []
    here = str(Path(sys.executable).parent / "bidou")
    if not Path(here).exists():
        here = shutil.which("bidou") or sys.exit("no bidou on this interpreter's path")
    peers = [("this", here)] + ([("other", options.against)] if options.against else [])
    header = f"{'command':38s} {'this (s)':>9s}"
    if options.against:
        header += f" {'other (s)':>9s} {'this/other':>10s}"
    print(header)
    for name, args in COMMANDS:
        if options.only and not any(word in name for word in options.only):
            continue
        times: dict[str, list[float]] = {label: [] for label, _ in peers}
        for _ in range(options.repeats):
            for label, bidou in peers:            # alternate: both see the same load
                times[label].append(run_once(bidou, args))
        medians = {label: statistics.median(t) for label, t in times.items()}
        line = f"{name:38s} {medians['this']:9.3f}"
        if options.against:
            line += f" {medians['other']:9.3f} {medians['this'] / medians['other']:10.2f}"
        print(line, flush=True)
        shown = " ".join(args).replace("{tmp}", "DIR")
        rows.append({"what": f"bidou {shown}", "median_s": round(medians["this"], 3),
                     "runs": len(times["this"])})
    if options.record:
        from solver.app.timings import record
        path = record("commands", f"python benchmarks/bench_commands.py --repeats "
                      f"{options.repeats} --record", rows, load)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
