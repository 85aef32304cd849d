"""Time the faithful OpenSpiel game `python_bidou` under OpenSpiel's own Python algorithms
(what the cross-checks of tests/test_crosscheck.py, test_exports.py, test_exploit.py and
test_cfr.py spend most of their time in), for this checkout and, side by side, another.

    python benchmarks/bench_faithful_game.py [--against /path/to/other/checkout] [--repeats 2]

Each measurement runs in a fresh interpreter with the checkout's folder first on sys.path
(the same OpenSpiel install), alternating between the checkouts so that a change of load
hits both: the tree walk of every state (get_all_states), the exploitability of the
uniform policy (two best responses), and 5 iterations of CFR+. Prints wall and CPU
seconds, medians over the repeats, and the ratio other/this. Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = "python_bidou(faces=2,throws=2,max_level=2,reroll=keep,ranking=french)"

PROBE = r"""
import json, sys, time
import pyspiel
import games.bidou.game
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr, exploitability, get_all_states

game = pyspiel.load_game(sys.argv[1])
out = {}

def timed(name, fn):
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    out[name] = [time.perf_counter() - wall, time.process_time() - cpu, value]

timed("tree walk", lambda: len(get_all_states.get_all_states(
    game, depth_limit=-1, include_terminals=True, include_chance_states=True)))
timed("exploitability", lambda: float(exploitability.exploitability(
    game, policy_lib.UniformRandomPolicy(game))))
def cfr_plus():
    solver = cfr.CFRPlusSolver(game)
    for _ in range(5):
        solver.evaluate_and_update_policy()
    return float(exploitability.nash_conv(game, solver.average_policy()))
timed("CFR+ 5 iterations", cfr_plus)
print(json.dumps(out))
"""


def measure(root: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, GAME], cwd=root, check=True,
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": root})
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default=None, help="another checkout's folder")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    roots = {"this": HERE, **({"other": os.path.abspath(args.against)} if args.against else {})}
    runs: dict[str, list[dict]] = {name: [] for name in roots}
    for _ in range(args.repeats):
        for name, root in roots.items():
            runs[name].append(measure(root))
    print(f"{GAME}, medians of {args.repeats} (wall s / CPU s)")
    for phase in runs["this"][0]:
        cells = []
        for name in roots:
            wall = statistics.median(r[phase][0] for r in runs[name])
            cpu = statistics.median(r[phase][1] for r in runs[name])
            values = {r[phase][2] for r in runs[name]}
            cells.append(f"{name} {wall:6.2f} / {cpu:6.2f} (result {sorted(values)[0]:.12g})")
        if "other" in roots:
            ratio = (statistics.median(r[phase][1] for r in runs["other"])
                     / statistics.median(r[phase][1] for r in runs["this"]))
            cells.append(f"CPU ratio other/this {ratio:.2f}")
        print(f"  {phase:20s} " + "   ".join(cells))


if __name__ == "__main__":
    main()
