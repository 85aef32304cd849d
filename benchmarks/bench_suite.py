"""The test suite timed as the README runs it, recorded for the docs.

    python benchmarks/bench_suite.py [--record] [-- PYTEST ARGS]

Runs `python -m pytest` (with the arguments after `--`, say `-m "not slow"`) in this
checkout, prints its wall time and closing line, and with `--record` stores both in
docs/data/benchmarks.json (solver/app/timings.py), from which README.md quotes them. The
install is not timed: pip's time depends on its cache and the network, not on this project.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true",
                        help="write the time to docs/data/benchmarks.json and the docs")
    parser.add_argument("pytest_args", nargs="*", help="arguments for pytest (after --)")
    options = parser.parse_args()
    load = os.getloadavg()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               *options.pytest_args]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    closing = next((line.strip("= ") for line in reversed(done.stdout.splitlines())
                    if re.search(r"\d+ (passed|failed)", line)), "no closing line")
    print(f"{seconds:.0f} s: {closing}")
    if done.returncode != 0:
        sys.exit(f"the suite failed (exit {done.returncode}); nothing recorded")
    if options.record:
        from solver.app.timings import record
        what = " ".join(["python -m pytest", *options.pytest_args])
        name = "suite" if not options.pytest_args else "suite_subset"
        path = record(name, "python benchmarks/bench_suite.py --record"
                      + (" -- " + " ".join(options.pytest_args) if options.pytest_args else ""),
                      [{"what": what, "median_s": round(seconds, 1), "runs": 1,
                        "result": re.sub(r" in [\d.]+s.*", "", closing)}], load)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
