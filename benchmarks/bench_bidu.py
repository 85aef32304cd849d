"""Time Bidú's two-player vuelta, whole commands and the solver against its peer.

    python benchmarks/bench_bidu.py [--repeats 3] [--fresh] [--record]

1. Whole commands, each in a fresh process (imports, model, proof, printing): `bidou solve
   --game bidu` (the default rules, answered from outputs/bidu/bidu-solution.json: its
   value proved again from its strategies) and `bidou solve --game bidu --stack 3` (solved
   now: Newton's LPs and the proof). With --fresh, `bidou solve --game bidu --fresh` (the
   default rules solved now) too, once: it takes minutes.
2. Side by side in this process, on small variants: the compact model (solver/bidu/solve.py:
   LPs over the folded sequence form, the proof in integers) and its peer, the exact LP over
   OpenSpiel's whole tree of `python_bidu` (solver/bidu/vuelta.py: Newton on the exact stage
   values, the bracket proved by the exact LP), both proving the value of the vuelta;
   medians of --repeats runs and the peer's time over the compact model's.

With --record both tables go to docs/data/benchmarks.json (`bidu_commands`, `bidu_peer`),
from which docs/bidu.md quotes them (solver/app/timings.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from fractions import Fraction

from whole_commands import command_rows as command_rows_of

from games.bidu.params import BiduParams
from solver.bidu.solve import solve_bidu
from solver.bidu.vuelta import solve_vuelta

VARIANTS = [(2, 1, 1), (2, 2, 1), (3, 1, 2), (2, 2, 2), (3, 1, 3)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--record", action="store_true",
                        help="write the tables to docs/data/benchmarks.json and the docs")
    args = parser.parse_args()
    load = os.getloadavg()
    print("whole commands, median wall seconds of", args.repeats)
    commands = [(["solve", "--game", "bidu"], args.repeats),
                (["solve", "--game", "bidu", "--stack", "3"], args.repeats)]
    if args.fresh:
        commands.append((["solve", "--game", "bidu", "--fresh"], 1))
    command_rows = command_rows_of(commands, 45)
    print()
    peer_rows = []
    print("the vuelta's value proved: compact model against the exact LP over OpenSpiel's "
          "tree")
    print(f"  {'faces, throws, stack':22s} {'compact s':>10s} {'tree s':>10s} {'ratio':>8s}"
          f"  widths (compact, tree)")
    for faces, throws, stack in VARIANTS:
        params = BiduParams(faces=faces, throws=throws, stack=stack)
        compact, tree = [], []
        for _ in range(args.repeats):
            begin = time.perf_counter()
            mine = solve_bidu(params)
            compact.append(time.perf_counter() - begin)
            begin = time.perf_counter()
            peer = solve_vuelta(params, width=Fraction(1, 10**10))
            tree.append(time.perf_counter() - begin)
        if not (mine.lower <= peer.upper and peer.lower <= mine.upper):
            raise SystemExit(f"{params.describe()}: the two proofs disagree")
        a, b = statistics.median(compact), statistics.median(tree)
        print(f"  {f'{faces}, {throws}, {stack}':22s} {a:10.3f} {b:10.3f} {b / a:8.1f}x"
              f"  {float(mine.width):.1e}, {float(peer.upper - peer.lower):.1e}")
        peer_rows.append({"what": f"faces {faces}, throws {throws}, stack {stack}",
                          "code": False, "median_s": round(a, 3), "runs": args.repeats,
                          "OpenSpiel tree, exact LP (s)": round(b, 3),
                          "ratio": f"{b / a:.0f}x",
                          "widths": f"{float(mine.width):.0e}, "
                                    f"{float(peer.upper - peer.lower):.0e}"})
    if args.record:
        from solver.app.timings import record

        command = "python benchmarks/bench_bidu.py" + (" --fresh" if args.fresh else "") \
            + f" --repeats {args.repeats} --record"
        record("bidu_commands", command, command_rows, load)
        path = record("bidu_peer", command, peer_rows, load)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
