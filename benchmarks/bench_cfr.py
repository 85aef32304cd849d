"""Time the CFR family on the compact model, and compare it with OpenSpiel's solvers.

    python benchmarks/bench_cfr.py [--repeats 3] [--quick] [--budget 120]
                                   [--mccfr-seconds 60] [--parts 1,2,3]

Part 1: the cost of one iteration on each engine (numpy with either showdown form, and the
C kernel), side by side; the median wall time of the whole `bidou solve --method pcfr+`
and `cfr+` commands in fresh processes, against the 2 s target for 1e-6; then our four
methods (and measured alternatives, the numpy engine among them) on the default game: wall
time of `solve_cfr(model, method, target_exploitability=x)` for x = 1e-3, 1e-4, 1e-6
(median of `--repeats` runs; runs are deterministic, so the iteration counts are exact).

Part 2: on python_bidou(faces=2,throws=2,max_level=1), OpenSpiel's C++ `CFRPlusSolver` and
Python `cfr.CFRPlusSolver` on the faithful game beside our cfr+ on the compact model: time to
exploitability 1e-3 and 1e-4 (OpenSpiel's `exploitability` on their average policy, checked
at most every 10% of the iterations and not counted in their time; `--budget` seconds each,
reported as "> budget" when not reached), with ratios to ours.

Part 3: OpenSpiel's (Python) external-sampling MCCFR on the full default python_bidou for a fixed
time, its average policy converted to a compact strategy and scored by our exact best
response, beside our cfr+ for the same time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.checks import openspiel_bridge
from solver.hand import best_response
from solver.hand.cfr import iterations as cfr
from solver.hand.model import HandModel, build_model

LP_VALUE = -0.036895667099526           # solve_lp on the default game
TARGETS = (1e-3, 1e-4, 1e-6)
CAPS = {1e-3: 20_000, 1e-4: 40_000, 1e-6: 60_000}          # iterations
ROWS = [                                                     # (label, method, options)
    ("cfr", "cfr", {}),
    ("cfr+", "cfr+", {}),
    ("dcfr", "dcfr", {}),
    ("pcfr+", "pcfr+", {}),
    ("cfr+ quadratic averaging", "cfr+", {"averaging": "quadratic"}),
    ("pcfr+ quadratic averaging", "pcfr+", {"averaging": "quadratic"}),
    ("pdcfr+ (a=2.3, g=5; rule override)", "pcfr+",
     {"rule": cfr.Rule(plus=True, alpha=2.3, beta=0.0, predictive=True, gamma=5.0)}),
    ("pcfr+ on the numpy engine", "pcfr+", {"engine": "numpy"}),
]


def best_of(func: Callable[[], object], repeats: int = 7, number: int = 100) -> float:
    """Smallest mean time (microseconds) of `number` calls over `repeats` batches."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            func()
        times.append((time.perf_counter() - start) / number * 1e6)
    return min(times)


# --- part 1 ---------------------------------------------------------------------------------

def part_engines(model: HandModel) -> None:
    print("== One iteration of cfr+ on the default game (56 hands), by engine ==")
    rows = []
    for label, options in (("numpy, dense showdowns", {"showdown": "dense"}),
                           ("numpy, cumulative-sum showdowns", {"showdown": "cumsum"}),
                           ("C kernel (solver/hand/cfr/_kernel.c)", {"engine": "compiled"})):
        engine = cfr.CFRSolver(model, cfr.RULES["cfr+"], **options)
        engine.run(50)
        if options.get("engine") == "compiled":
            batch = 200
            iteration = best_of(lambda e=engine: e.run(batch), number=5) / batch
        else:
            iteration = best_of(engine.iterate, number=100)
        rows.append((label, iteration))
    kernel = rows[-1][1]
    for label, iteration in rows:
        print(f"   {label:<34} {iteration:7.1f} us   x{iteration / kernel:.1f} the kernel")
    engine = cfr.CFRSolver(model, cfr.RULES["cfr+"], showdown="dense")
    reach = engine.players[OPPONENT].leaf_reach
    for mode in ("cumsum", "dense"):
        engine = cfr.CFRSolver(model, cfr.RULES["cfr+"], showdown=mode)
        leaf = best_of(lambda e=engine, r=reach: e._leaf_values(CAPTAIN, r, e._values),
                       number=500)
        print(f"   numpy showdown values, {mode:<7} {leaf:7.1f} us a pass")
    print("   (numpy: ~180 calls an iteration on arrays of a few thousand numbers, mostly call\n"
          "    overhead; the kernel runs the same arithmetic in loops, whole batches a call)\n")


def part_command(repeats: int) -> None:
    """Wall time of the whole command, as a user runs it (imports and checks included)."""
    print("== `bidou solve --method M` on the default game (target 1e-6): whole command ==")
    for method in ("pcfr+", "cfr+"):
        runs = []
        for _ in range(max(repeats, 3)):
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "solver.app.cli", "solve", "--method",
                                   method, "--json"], capture_output=True, text=True)
            runs.append(time.perf_counter() - start)
            if done.returncode != 0:
                raise SystemExit(f"bidou solve --method {method} failed: {done.stderr}")
        report = json.loads(done.stdout)
        print(f"   {method:<6} median {statistics.median(runs):5.2f} s wall "
              f"(min {min(runs):.2f}, max {max(runs):.2f}; {len(runs)} runs); "
              f"{report['iterations']} iterations, exploitability "
              f"{report['exploitability']:.3g}")
    print("   target: 1e-6 in 2 s (median, whole command)\n")


def part_methods(model: HandModel, repeats: int) -> None:
    print("== CFR family on the default game: wall seconds of solve_cfr to each target "
          "(median) ==")
    header = "".join(f"{'to ' + format(t, '.0e'):>22}" for t in TARGETS)
    print(f"   {'method':<36}{header}   |value - LP| at 1e-6")
    for label, method, options in ROWS:
        cells, error = [], ""
        for target in TARGETS:
            runs = []
            for r in range(repeats):
                sol = cfr.solve_cfr(model, method, iterations=CAPS[target],
                                    target_exploitability=target, **options)
                runs.append(sol)
                if not sol.converged:
                    break                       # deterministic: no need to repeat
            sol = runs[-1]
            if not sol.converged:
                cells.append(f"> {sol.seconds:5.1f} s ({sol.iterations} it)")
                cells.extend("-" for _ in TARGETS[len(cells):])
                break
            seconds = statistics.median(s.seconds for s in runs)
            cells.append(f"{seconds:6.2f} s ({sol.iterations} it)")
            if target == TARGETS[-1]:
                error = f"{abs(sol.value - LP_VALUE):.1e}"
        print(f"   {label:<36}" + "".join(f"{c:>22}" for c in cells) + f"   {error}")
    print("   target for 1e-6: 2 s\n")


# --- part 2 ---------------------------------------------------------------------------------

def openspiel_time_to(step: Callable[[], None], exploitability: Callable[[], float],
                      targets: tuple[float, ...], budget: float) -> dict[float, tuple]:
    """Solver seconds (evaluations excluded) and iterations to reach each target."""
    reached: dict[float, tuple] = {}
    solver_seconds, it, next_check = 0.0, 0, 1
    while solver_seconds < budget and len(reached) < len(targets):
        start = time.perf_counter()
        step()
        solver_seconds += time.perf_counter() - start
        it += 1
        if it >= next_check:
            next_check = it + max(1, it // 10)
            value = exploitability()
            for target in targets:
                if target not in reached and value <= target:
                    reached[target] = (solver_seconds, it)
    return reached


def part_peers(repeats: int, budget: float) -> None:
    import pyspiel
    from open_spiel.python.algorithms import cfr as python_cfr
    from open_spiel.python.algorithms import exploitability as python_exploitability

    import games.bidou.game  # noqa: F401  (registers python_bidou)

    params = BidouParams(faces=2, throws=2, max_level=1)
    targets = (1e-3, 1e-4)
    game = pyspiel.load_game(params.to_game_string())
    model = build_model(params)
    print(f"== CFR+ on {params.to_game_string()} ==")
    ours = {}
    for target in targets:
        runs = [cfr.solve_cfr(model, "cfr+", target_exploitability=target)
                for _ in range(repeats)]
        ours[target] = (statistics.median(s.seconds for s in runs), runs[0].iterations)
    results = {"ours: cfr+ on the compact model (solve_cfr wall)": ours}

    solver = pyspiel.CFRPlusSolver(game)
    results["OpenSpiel C++ CFRPlusSolver"] = openspiel_time_to(
        solver.evaluate_and_update_policy,
        lambda: pyspiel.exploitability(game, solver.average_policy()), targets, budget)
    py_solver = python_cfr.CFRPlusSolver(game)
    results["OpenSpiel Python cfr.CFRPlusSolver"] = openspiel_time_to(
        py_solver.evaluate_and_update_policy,
        lambda: python_exploitability.exploitability(game, py_solver.average_policy()),
        targets, budget)
    print(f"   {'solver':<50}" + "".join(f"{'to ' + format(t, '.0e'):>26}" for t in targets))
    for name, reached in results.items():
        cells = []
        for target in targets:
            if target in reached:
                seconds, iterations = reached[target]
                ratio = seconds / ours[target][0]
                cells.append(f"{seconds:8.3f} s {iterations:>5} it x{ratio:<7.0f}")
            else:
                cells.append(f"> {budget:.0f} s")
        print(f"   {name:<50}" + "".join(f"{c:>26}" for c in cells))
    print("   (x = time / ours; OpenSpiel's time excludes its exploitability evaluations)\n")


# --- part 3 ---------------------------------------------------------------------------------

def _mccfr_lookup(infostates: dict) -> Callable[[str, list[str]], dict]:
    """Read the average policy of OpenSpiel's Python MCCFR from its info-state table."""
    def lookup(info_state: str, names: list[str]) -> dict:
        entry = infostates.get(info_state)
        if entry is None or entry[1].sum() <= 0:
            return {}
        return dict(zip(names, entry[1] / entry[1].sum()))

    return lookup


def part_mccfr(seconds: float, quick: bool) -> None:
    import pyspiel
    from open_spiel.python.algorithms import external_sampling_mccfr

    import games.bidou.game  # noqa: F401  (registers python_bidou)

    params = BidouParams(faces=3, throws=2) if quick else BidouParams()
    game = pyspiel.load_game(params.to_game_string())
    model = build_model(params)
    print(f"== {seconds:.0f} s of external-sampling MCCFR on {params.to_game_string()} ==")
    # OpenSpiel's C++ ExternalSamplingMCCFRSolver runs about twice as many iterations on
    # this Python game, but its average policy cannot be read by information-state string
    # (GetStatePolicy(string) and Serialize are unimplemented), so the Python solver is used.
    solver = external_sampling_mccfr.ExternalSamplingSolver(
        game, external_sampling_mccfr.AverageType.SIMPLE)
    start, iterations = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        solver.iteration()
        iterations += 1
    convert_start = time.perf_counter()
    strategy = openspiel_bridge.from_openspiel_policy(model, _mccfr_lookup(solver._infostates))
    convert = time.perf_counter() - convert_start
    theirs = best_response.exploitability(model, strategy)
    ours = cfr_for_seconds(model, seconds)
    print(f"   OpenSpiel Python ExternalSamplingSolver: {iterations} iterations, "
          f"exploitability {theirs.exploitability:.4g} (value {theirs.value:+.6f}; "
          f"policy converted in {convert:.1f} s)")
    print(f"   ours, cfr+ for the same time:             {ours[0]} iterations, "
          f"exploitability {ours[1]:.3g}")
    print("   (both scored by solver.hand.best_response, exact)\n")


def cfr_for_seconds(model: HandModel, seconds: float) -> tuple[int, float]:
    engine = cfr.CFRSolver(model, cfr.RULES["cfr+"], engine="compiled")
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        engine.run(100)
    e = best_response.exploitability(model, engine.average_strategy())
    return engine.t, e.exploitability


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="one repeat, and MCCFR on a small variant")
    parser.add_argument("--budget", type=float, default=120.0,
                        help="seconds of solver time per OpenSpiel CFR+ peer")
    parser.add_argument("--mccfr-seconds", type=float, default=60.0)
    parser.add_argument("--parts", default="1,2,3")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    parts = {int(p) for p in args.parts.split(",")}
    model = build_model(BidouParams())
    if 1 in parts:
        part_engines(model)
        part_command(repeats)
        part_methods(model, repeats)
    if 2 in parts:
        part_peers(repeats, args.budget)
    if 3 in parts:
        part_mccfr(args.mccfr_seconds, args.quick)


if __name__ == "__main__":
    main()
