"""Time Montevideo's heads-up end: whole commands, and a round's solve against its peer.

    python benchmarks/bench_montevideo.py [--repeats 3] [--fresh] [--record]

1. Whole commands, each in a fresh process (imports, solve or read, proof, printing):
   `bidou montevideo` (the default rules, from outputs/montevideo/heads-up.json, checked),
   `bidou montevideo --state 9,9,2` (the same, and the largest round solved again against
   its values), and a small game solved and proved now. With --fresh, `bidou montevideo
   --fresh` (the default rules solved and proved now) too, once: it takes minutes.
2. Side by side in this process, on small rounds paying net chips: the compact model's LP
   (solver/hand/model.py over games/montevideo/heads_up.py's trees) and its peer, the
   sequence-form LP over OpenSpiel's whole tree of `python_montevideo`
   (solver/checks/openspiel_lp.py); the values must agree to 1e-9. Medians of --repeats
   runs and the peer's time over the compact model's.

With --record both tables go to docs/data/benchmarks.json (`montevideo_commands`,
`montevideo_peer`), from which docs/montevideo.md quotes them (solver/app/timings.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from whole_commands import command_rows as command_rows_of

import games.montevideo.game as montevideo_game
from games.montevideo.heads_up import HeadsUpParams, HeadsUpState
from solver.checks.openspiel_lp import solve_openspiel_game
from solver.hand.lp.sequence_form import solve_lp
from solver.hand.model import build_model

SMALL = ["montevideo", "--chips", "4", "--faces", "4", "--throws", "2", "--fresh"]
# faces, throws, the captain's chips, the other's, ante
# (OpenSpiel's tree grows with the square of a player's dice histories: faces 4 with two
# throws is already millions of histories)
ROUNDS = [(3, 1, 4, 4, 1), (3, 2, 3, 3, 2), (3, 2, 4, 4, 1), (4, 1, 6, 6, 1), (6, 1, 4, 4, 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--record", action="store_true",
                        help="write the tables to docs/data/benchmarks.json and the docs")
    args = parser.parse_args()
    load = os.getloadavg()
    print("whole commands, median wall seconds of", args.repeats)
    commands = [(["montevideo"], args.repeats), (["montevideo", "--state", "9,9,2"],
                                                  args.repeats), (SMALL, args.repeats)]
    if args.fresh:
        commands.append((["montevideo", "--fresh"], 1))
    command_rows = command_rows_of(commands, 60)
    print()
    print("a round's value (net chips): compact model's LP against the LP over OpenSpiel's "
          "tree")
    print(f"  {'faces, throws, chips, ante':28s} {'compact s':>10s} {'tree s':>10s} "
          f"{'ratio':>8s}")
    peer_rows = []
    for faces, throws, c, o, ante in ROUNDS:
        params = HeadsUpParams(total=c + o, faces=faces, throws=throws, first_ante=1)
        description = params.round(HeadsUpState(c, o, ante))
        game = montevideo_game.MontevideoGame(dict(players=2, stacks=f"{c}/{o}", faces=faces,
                                                   throws=throws, ante=ante))
        compact, tree = [], []
        for _ in range(args.repeats):
            begin = time.perf_counter()
            mine = solve_lp(build_model(description)).value
            compact.append(time.perf_counter() - begin)
            begin = time.perf_counter()
            peer = solve_openspiel_game(game).value
            tree.append(time.perf_counter() - begin)
        if abs(mine - peer) > 1e-9:
            raise SystemExit(f"faces {faces}, throws {throws}, {c}/{o}, ante {ante}: "
                             f"{mine} against {peer}")
        a, b = statistics.median(compact), statistics.median(tree)
        what = f"faces {faces}, throws {throws}, chips {c}/{o}, ante {ante}"
        print(f"  {what:40s} {a:10.3f} {b:10.3f} {b / a:8.1f}x")
        peer_rows.append({"what": what, "code": False, "median_s": round(a, 3),
                          "runs": args.repeats, "OpenSpiel tree LP (s)": round(b, 3),
                          "ratio": f"{b / a:.0f}x"})
    if args.record:
        from solver.app.timings import record

        command = "python benchmarks/bench_montevideo.py" + (" --fresh" if args.fresh
                                                              else "") \
            + f" --repeats {args.repeats} --record"
        record("montevideo_commands", command, command_rows, load)
        path = record("montevideo_peer", command, peer_rows, load)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
