"""Time a query of one state of a saved round against the full solve it replaces, whole
command (`bidou round --state C,A,B` in a fresh process, as a user runs it).

    python benchmarks/bench_round_query.py                  # the default round, state 0,2,7
    python benchmarks/bench_round_query.py --state 0,4,5 --repeats 9 --reroll keep

The full solve (`--fresh`: solve and prove the round, then save it) runs first, once per
--solve-repeats, in a private cache folder; then the query reads the file it saved. Prints
each median, the ratio, and the import time of the query (`python -X importtime`: the
modules the command loads, the heaviest first). Target: the query <= 2 s.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

BIDOU = [sys.executable, "-c", "from solver.app.cli import main; main()"]


def timed(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(BIDOU + args, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"bidou {' '.join(args)} failed ({done.returncode}): "
                         f"{done.stderr.strip()}")
    return seconds, done.stdout


def import_profile(args: list[str], env: dict[str, str], top: int) -> list[str]:
    """The packages the query spends its imports in (self time summed by top-level
    package, at every depth), the heaviest first."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c",
                           "from solver.app.cli import main; main()", *args],
                          env=env, capture_output=True, text=True)
    total: dict[str, int] = {}
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if match:
            name = match.group(2).split(".")[0]
            total[name] = total.get(name, 0) + int(match.group(1))
    heaviest = sorted(total.items(), key=lambda kv: -kv[1])[:top]
    return [f"{name} {us / 1e6:.2f} s" for name, us in heaviest]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", default="0,2,7")
    parser.add_argument("--repeats", type=int, default=7, help="queries timed")
    parser.add_argument("--solve-repeats", type=int, default=1, help="full solves timed")
    parser.add_argument("--cache", default=None,
                        help="cache folder to use (default: a fresh temporary one)")
    parser.add_argument("rules", nargs="*", help="rules options, e.g. --reroll keep")
    options, rules = parser.parse_known_args()
    rules = options.rules + rules
    with tempfile.TemporaryDirectory(prefix="bidou-bench-") as scratch:
        env = {**os.environ, "XDG_CACHE_HOME": options.cache or scratch}
        query = ["round", *rules, "--state", options.state]
        solves = [timed(query + ["--fresh"], env)[0] for _ in range(options.solve_repeats)]
        times, out = [], ""
        for _ in range(options.repeats):
            seconds, out = timed(query, env)
            times.append(seconds)
        assert "read from" in out, "the query did not read the saved round"
        solve, answer = statistics.median(solves), statistics.median(times)
        print(f"rules: {' '.join(rules) or '(default)'}  state: {options.state}")
        print(f"full solve (--fresh), whole command: median {solve:.1f} s of {len(solves)}")
        print(f"query of the saved round, whole command: median {answer:.2f} s of "
              f"{len(times)} (min {min(times):.2f}, max {max(times):.2f}); "
              f"x{solve / answer:.0f} faster; target <= 2 s")
        print("heaviest imports of the query: " + ", ".join(import_profile(query, env, 8)))


if __name__ == "__main__":
    main()
