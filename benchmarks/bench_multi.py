"""How far the multi-hand solver goes: epsilon against iterations and time, and tree sizes.

    python benchmarks/bench_multi.py [--seconds 60]
                                     [--variants small|all|kernel|methods|default|four|
                                                 four-default]
                                     [--methods cfr+,dcfr,...] [--json FILE]
                                     [--iterations N] [--resume FILE] [--improve]

Part 1, sizes: the compact public tree (public nodes, hands, cells of one range array) of
each variant, the default game (faces 6, throws 3) with three and four players included,
counted without building it (`solver.multi.solve.size`).
Part 2, curves: for each small variant, CFR+ and plain CFR run side by side for at most
`--seconds` of iteration time each; every seat's certified gain (exact best response against
the others) is measured at doubling iteration counts, its time not counted. Prints one line
per point: variant, method, iterations, seconds, epsilon (largest seat gain), NashConv.
`--variants kernel`: CFR+ on the C kernel and on numpy side by side (the same script, the
same load), on the variants where numpy still makes progress in the budget. `--variants
methods`: the CFR methods (solver.multi.cfr.METHODS, or `--methods`) side by side on the C
kernel, on the largest variants that run in a minute. `--variants default`: the default
game (faces 6, throws 3, three players) on the C kernel for `--seconds`, after one numpy
iteration as the peer's per-iteration time, for each of `--methods` (default cfr+ and the
solver's default) one after the other on the same tree; `--save`: their last states.
`--variants four`: the largest four-player game at the default dice that fits (`FOUR`, one
throw each) on the kernel for `--seconds`, the first check at 32 iterations.
`--variants four-default`: four players at the default dice (faces 6, throws 3, 2.9e9 cells:
no whole tree), every seat's exact gain for one profile by the streaming best response
(solver/multi/four_stream.py): the one-throw betting (`--iterations` of alt-cfr+2, or
`--resume` its checkpoint) in every throw-count combination, the seats relabelled from the
leader, and a folk stop rule; `--improve`: then every seat's best stops, certified again.
Every point prints its wall and CPU seconds of iterating (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Optional

from games.bidou_multi.params import MultiParams
from solver.multi import best_response, cfr, checkpoint, four_stream, kernel
from solver.multi.solve import DEFAULT_METHOD, size
from solver.multi.tree import build_tree

SMALL = [dict(faces=2, throws=1, chips=2), dict(faces=2, throws=1), dict(faces=3, throws=1),
         dict(faces=3, throws=1, poor_fish=True)]
ALL = SMALL + [dict(faces=2, throws=2), dict(faces=3, throws=2), dict(faces=6, throws=1)]
KERNEL = [dict(faces=2, throws=1), dict(faces=6, throws=1), dict(faces=3, throws=2)]
# The largest four-player game at the default dice that the kernel holds (3.6e7 cells):
# one throw each; with the default three throws it is 2.9e9 cells (docs/multi.md).
FOUR = dict(players=4, faces=6, throws=1)
METHOD_VARIANTS = [dict(faces=6, throws=1), dict(faces=3, throws=2), dict(faces=6, throws=2)]
SIZES = [dict(faces=2, throws=1), dict(faces=3, throws=1), dict(faces=2, throws=2),
         dict(faces=3, throws=2), dict(), dict(players=4, faces=2, throws=1), dict(players=4)]


def sizes() -> list[dict]:
    rows = []
    for rules in SIZES:
        counted = size(MultiParams(**rules))
        rows.append({"rules": rules, **counted})
        print(f"size {rules or 'default'}: {counted}", flush=True)
    return rows


def curve(rules: dict, method: str, seconds: float, engine: str = "numpy",
          tree=None, first: int = 1, save: Optional[str] = None) -> list[dict]:
    """Iterations doubling until `seconds` of iteration time; every seat's gain by numpy's
    best response (the certificate) at each point, its time not counted; `save`: the last
    state written there as a checkpoint (solver/multi/checkpoint.py, `bidou multi --resume`)."""
    tree = tree if tree is not None else build_tree(MultiParams(**rules))
    runner = kernel.Kernel(tree) if engine == "c" else None
    state = cfr.CFRState.start(tree, method)
    points, target, cpu_seconds = [], first, 0.0
    while state.seconds < seconds:
        cpu = time.process_time()
        if runner is None:
            cfr.iterate(tree, state, target - state.iterations, method)
        else:                 # in pieces, so that the last point stops at the budget
            while state.iterations < target and state.seconds < seconds:
                started = time.perf_counter()
                runner.iterate(state, min(8, target - state.iterations), method)
                state.seconds += time.perf_counter() - started
        cpu_seconds += time.process_time() - cpu
        g = best_response.gains(tree, cfr.average_strategy(tree, state))
        point = {"rules": rules, "method": method, "engine": engine,
                 "iterations": state.iterations, "seconds": round(state.seconds, 2),
                 "cpu_seconds": round(cpu_seconds, 2),
                 "epsilon": g.epsilon, "nash_conv": g.nash_conv,
                 "values": [round(v, 6) for v in g.values]}
        points.append(point)
        print(f"{rules} {method:9s} {engine:5s} it {state.iterations:6d}  "
              f"{state.seconds:8.2f} s ({cpu_seconds:8.2f} cpu)  epsilon {g.epsilon:.3e}  "
              f"NashConv {g.nash_conv:.3e}", flush=True)
        target *= 2
    if save:
        checkpoint.save(save, MultiParams(**rules), method, state,
                        [{k: p[k] for k in ("iterations", "seconds", "epsilon", "nash_conv")}
                         for p in points])
    return points


def default_game(seconds: float, methods: list[str], save: Optional[str] = None
                 ) -> list[dict]:
    """The default game: the tree's build time and memory, one numpy iteration (the peer),
    then the kernel's curve for each method."""
    started = time.perf_counter()
    tree = build_tree(MultiParams())
    built = time.perf_counter() - started
    need = kernel.memory_bytes(tree.num_nodes, tree.num_edges, tree.players, len(tree.hands))
    print(f"default game: {tree.num_nodes:,} public nodes, built in {built:.0f} s; kernel "
          f"arrays {need / 1e9:.2f} GB", flush=True)
    peer = cfr.CFRState.start(tree)
    cfr.iterate(tree, peer, 1)
    print(f"numpy: {peer.seconds:.2f} s an iteration", flush=True)
    points = [p for method in methods for p in curve(
        {}, method, seconds, "c", tree, first=8,
        save=f"{save}.{method}.npz" if save else None)]
    for point in points:
        point["numpy_seconds_per_iteration"] = round(peer.seconds, 3)
        point["build_seconds"] = round(built, 1)
    return points


def four_default(iterations: int, resume: Optional[str], improve: bool, faces: int = 6
                 ) -> list[dict]:
    """Four players at the default dice (faces 6, throws 3), certified one throw-count
    combination at a time (solver/multi/four_stream.py) for one profile: the betting of the
    one-throw game (`FOUR`) after `iterations` of alt-cfr+2 on the kernel (from `resume`, a
    checkpoint of it, if given), played in every combination with the seats relabelled from
    the leader, and the folk stop rule "stop once the hand beats half of the fresh hands";
    `improve`: then every seat's best stops against that profile (his betting kept), all
    four at once, certified again. The epsilon of these profiles, not of an equilibrium.
    (`faces` < 6: the same on fewer faces, to try it out.)"""
    rules = MultiParams(**{**FOUR, "faces": faces})
    started, cpu = time.perf_counter(), time.process_time()
    one = build_tree(rules)
    state = (checkpoint.load(resume, rules, DEFAULT_METHOD, one)[0] if resume
             else cfr.CFRState.start(one, DEFAULT_METHOD))
    if state.iterations < iterations:
        kernel.Kernel(one).iterate(state, iterations - state.iterations, DEFAULT_METHOD)
    sigma = cfr.average_strategy(one, state)
    print(f"one-throw betting: {state.iterations} iterations of {DEFAULT_METHOD}, "
          f"{time.perf_counter() - started:.0f} s ({time.process_time() - cpu:.0f} cpu)",
          flush=True)
    done = state.iterations
    del state
    betting_rule = four_stream.relabelled_betting(one, sigma, lambda counts: (1, 1, 1, 1))
    stop = four_stream.threshold_stop(one)
    points, trees = [], {}
    for name in ("folk stops", "best stops") if improve else ("folk stops",):
        result = four_stream.stream_gains(MultiParams(players=4, faces=faces),
                                          four_stream.Profile(stop, betting_rule),
                                          progress=lambda what, *_: print(what, flush=True),
                                          trees=trees)
        points.append(_four_point(name, done, result))
        stop = four_stream.rule_of(result.stops)
    return points


def _four_point(name: str, iterations: int, result: four_stream.StreamResult) -> dict:
    g = result.gains
    point = {"rules": {"players": 4}, "profile": name, "betting_iterations": iterations,
             "values": list(g.values), "best": list(g.best), "gains": list(g.gains),
             "epsilon": g.epsilon, "nash_conv": g.nash_conv,
             "reroll_only": list(result.reroll_only), "combinations": result.combinations,
             "seconds": round(result.seconds, 1), "cpu_seconds": round(result.cpu_seconds, 1),
             "peak_gb": round(result.peak_bytes / 1e9, 2)}
    print(f"four players, default dice, {name}: values "
          f"{', '.join(f'{v:.4f}' for v in g.values)}; gains "
          f"{', '.join(f'{x:.3e}' for x in g.gains)}; epsilon {g.epsilon:.3e}, NashConv "
          f"{g.nash_conv:.3e}; stops alone "
          f"{', '.join(f'{k - v:.3e}' for k, v in zip(result.reroll_only, g.values))}; "
          f"{result.combinations} subtrees, {result.seconds:.0f} s ({result.cpu_seconds:.0f} "
          f"cpu), peak {result.peak_bytes / 1e9:.2f} GB", flush=True)
    return point


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--variants", choices=("small", "all", "kernel", "methods",
                                               "default", "four", "four-default"),
                        default="small")
    parser.add_argument("--methods", default=None,
                        help="comma-separated (default: all for methods, cfr+ and "
                        f"{DEFAULT_METHOD} for default)")
    parser.add_argument("--iterations", type=int, default=368,
                        help="four-default: alt-cfr+2 iterations of the one-throw betting")
    parser.add_argument("--resume", default=None,
                        help="four-default: a checkpoint of the one-throw game to start from")
    parser.add_argument("--improve", action="store_true",
                        help="four-default: then certify every seat's best stops as well")
    parser.add_argument("--json", default=None)
    parser.add_argument("--save", default=None,
                        help="default: each method's last state to SAVE.METHOD.npz")
    args = parser.parse_args()
    started = time.perf_counter()
    report = {"sizes": sizes(), "curves": []}
    chosen = args.methods.split(",") if args.methods else None
    if args.variants == "default":
        report["curves"] = default_game(args.seconds, chosen or ["cfr+", DEFAULT_METHOD],
                                         args.save)
    elif args.variants == "four":
        for method in chosen or [DEFAULT_METHOD]:
            report["curves"] += curve(FOUR, method, args.seconds, "c", first=32,
                                      save=f"{args.save}.{method}.npz" if args.save else None)
    elif args.variants == "four-default":
        report["curves"] = four_default(args.iterations, args.resume, args.improve)
    elif args.variants == "methods":
        for rules in METHOD_VARIANTS:
            tree = build_tree(MultiParams(**rules))
            for method in chosen or list(cfr.VARIANTS):
                report["curves"] += curve(rules, method, args.seconds, "c", tree)
    elif args.variants == "kernel":
        for rules in KERNEL:
            for engine in ("c", "numpy"):
                report["curves"] += curve(rules, "cfr+", args.seconds, engine)
    else:
        for rules in (SMALL if args.variants == "small" else ALL):
            for method in ("cfr+", "cfr"):
                report["curves"] += curve(rules, method, args.seconds)
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=1)


if __name__ == "__main__":
    main()
