"""Time the manche of Le Bidou (bidou manche): solve and proof of every state, where the
time goes (each component's stage solves), and the independent Monte Carlo against the
start value.

    python benchmarks/bench_manche.py                          # the small variants
    python benchmarks/bench_manche.py --variant 9,6,3          # the default manche (long)
    python benchmarks/bench_manche.py --variant 5,3,2 --simulate 20000
    python benchmarks/bench_manche.py --variant 9,6,3 --components --tasks
    python benchmarks/bench_manche.py --variant 9,3,2 --set stage_solve.DOUBLE_ORACLE_ROWS=600
    python benchmarks/bench_manche.py --whole [--repeats 3] [--against OTHER/.venv/bin/bidou]

A variant is CHIPS,FACES,THROWS (reroll keep, French ranking, half stake up). Prints one
row a variant: seconds of the solve and of the proof, the start value and its proved
interval, the slowest components; with --simulate N, the Monte Carlo's rate, its standard
error and how many standard errors it lies from the start value; with --tasks, each pool's
stage solves (the first of each stage, cold, and the later ones, from its last basis);
with --set, an experiment (a constant of solver.manche changed before the solve).

`--whole` times instead what a user runs, the whole command `bidou manche --out DIR` at the
defaults (the nine-chip manche: imports, every state solved and proved, the match, the
report, the chart), in a fresh process each time: medians of its wall seconds and of its CPU
seconds (its worker processes included), the load before each run, and the start value and
proved interval it printed; with `--against`, another installation's `bidou` (main's
checkout, say) runs it too, alternating with this one's so that both see the same load.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import os
import resource
import tempfile
import time

from whole_commands import side_by_side, timed

from games.le_bidou.manche import MancheParams, MancheState, start
from solver.manche.certify import certify_manche
from solver.manche.policy import SolvedPolicy, simulation_rules
from solver.manche.simulate import estimate
from solver.manche.solve import MancheSolution, solve_manche

SMALL = ("3,3,2", "5,3,2", "5,6,1", "9,3,2")


def whole_commands(repeats: int, against: str | None) -> None:
    """Medians of the whole `bidou manche --out DIR` for this checkout and `against`
    (another installation's `bidou`), alternately (benchmarks/whole_commands.py): wall and
    CPU seconds, the load before each run; the start value each proved."""
    def run(peer: str, python: str, folder: str | None) -> tuple[tuple[float, ...], str]:
        with tempfile.TemporaryDirectory() as out:
            load = os.getloadavg()[0]
            wall, cpu, done = timed([python, "-c", "from solver.app.cli import main; main()",
                                     "manche", "--json", "--out", out], folder)
        try:
            report = json.loads(done.stdout)
            shown = (f"start {report['start_value']:.12f} in [{report['start_lower']}, "
                     f"{report['start_upper']}], {len(report['states'])} states, widest "
                     f"{report['max_width']:.1e}")
        except (json.JSONDecodeError, KeyError):
            shown = "no report: " + done.stderr.strip()[-200:]
        print(f"  {peer:<5} wall {wall:6.1f} s  cpu {cpu:6.1f} s  load {load:4.1f}", flush=True)
        return (wall, cpu, load), f"{shown} (exit {done.returncode})"

    medians = side_by_side(repeats, against, run)
    for peer, ((wall, cpu, load), shown) in medians.items():
        ratio = f"  {wall / medians['this'][0][0]:5.2f}x this" if peer != "this" else ""
        print(f"bidou manche {peer:<5} median of {repeats}: wall {wall:6.1f} s  cpu "
              f"{cpu:6.1f} s  load {load:4.1f}{ratio}  {shown}", flush=True)


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (the stage workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def print_tasks(solution: MancheSolution) -> None:
    """Seconds of the stage solves by pool: each stage's first (cold) and its later ones
    (the Newton steps, from the last basis), summed over the workers."""
    table: dict[int, dict[str, list[float]]] = {}
    seen: set[MancheState] = set()
    for state, seconds, _ in solution.tasks:
        column = "lp again" if state in seen else "lp first"
        seen.add(state)
        table.setdefault(state.pool, {"lp first": [], "lp again": []})[column].append(seconds)
    print("         pool   lp first s (solves)   lp again s (solves)")
    totals = {"lp first": 0.0, "lp again": 0.0}
    for pool in sorted(table):
        cells = []
        for column in totals:
            times = table[pool][column]
            totals[column] += sum(times)
            cells.append(f"{sum(times):9.1f} ({len(times):2})")
        print(f"         {pool:4}  " + "  ".join(f"{c:>19}" for c in cells))
    print("         all   " + "  ".join(f"{totals[c]:14.1f}     " for c in totals))


def run(variant: str, simulate: int, seed: int, components: bool, tasks: bool,
        values: str | None) -> None:
    chips, faces, throws = (int(x) for x in variant.split(","))
    params = MancheParams(chips=chips, faces=faces, throws=throws)
    load = os.getloadavg()[0]
    begin, cpu = time.perf_counter(), cpu_seconds()
    solution = solve_manche(params)
    solved, cpu_solved = time.perf_counter(), cpu_seconds()
    certificate = certify_manche(solution)
    proved, cpu_proved = time.perf_counter(), cpu_seconds()
    first = certificate.states[start(chips)]
    slow = sorted(((sum(solution.stages[s].seconds for s in c), c[0].label())
                   for c in solution.components), reverse=True)[:3]
    print(f"{variant:>7}  states {len(solution.values):>2} (played {len(solution.stages):>2})  "
          f"solve {solved - begin:7.1f} s  proof {proved - solved:6.1f} s  "
          f"load {load:4.1f}  start {solution.start_value:.12f}  "
          f"width {float(first.width):.1e}  max width {certificate.max_width:.1e}")
    print(f"         CPU seconds (workers included): solve {cpu_solved - cpu:.1f}, "
          f"proof {cpu_proved - cpu_solved:.1f}")
    print("         last stage solves of the slowest components: "
          + ", ".join(f"{label} {seconds:.1f} s" for seconds, label in slow))
    for s, stage in sorted(solution.stages.items(), reverse=True)[:1]:
        print(f"         {s.label()}: {stage.method}")
    if components:
        for number, (component, seconds) in enumerate(zip(solution.components,
                                                          solution.component_seconds)):
            rounds = len(solution.history[number])
            print(f"         component {component[0].label():>6}  {seconds:7.1f} s  "
                  f"{rounds} rounds  last: " + "; ".join(
                      f"{s.label()} {solution.stages[s].seconds:.1f} s "
                      f"{solution.stages[s].method}" for s in component))
    if tasks:
        print_tasks(solution)
    if values:
        with open(values, "w") as out:
            json.dump({s.label(): v for s, v in sorted(solution.values.items())}, out)
    if simulate:
        t = time.perf_counter()
        found = estimate(simulation_rules(params), SolvedPolicy(solution), simulate, seed)
        z = (found.rate - solution.start_value) / found.standard_error
        print(f"         Monte Carlo {simulate} manches: {found.rate:.4f} +- "
              f"{found.standard_error:.4f} ({z:+.2f} standard errors), "
              f"{found.mean_hands:.2f} hands a manche, {time.perf_counter() - t:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", action="append", help="CHIPS,FACES,THROWS (repeatable)")
    parser.add_argument("--simulate", type=int, default=0, help="Monte Carlo manches")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--components", action="store_true",
                        help="print every component's wall seconds and last stage solves")
    parser.add_argument("--tasks", action="store_true",
                        help="print the stage tasks' seconds by pool: CFR, first LP, later LPs")
    parser.add_argument("--values", metavar="FILE",
                        help="write every state's solved value (JSON, by label) to FILE")
    parser.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE",
                        help="an experiment: a constant of solver.manche.MODULE set (a Python "
                             "literal) before the solve, e.g. solve.WARM_STEPS=0")
    parser.add_argument("--whole", action="store_true",
                        help="time the whole command `bidou manche --out DIR` instead")
    parser.add_argument("--repeats", type=int, default=3, help="with --whole")
    parser.add_argument("--against", default=None,
                        help="with --whole: another installation's bidou, run side by side")
    args = parser.parse_args()
    if args.whole:
        whole_commands(args.repeats, args.against)
        return
    for setting in args.set:
        where, value = setting.split("=", 1)
        module, name = where.rsplit(".", 1)
        target = importlib.import_module(f"solver.manche.{module}")
        if not hasattr(target, name):
            parser.error(f"solver.manche.{module} has no {name}")
        setattr(target, name, ast.literal_eval(value))
        print(f"set solver.manche.{module}.{name} = {value}")
    for variant in args.variant or SMALL:
        run(variant, args.simulate, args.seed, args.components, args.tasks, args.values)


if __name__ == "__main__":
    main()
