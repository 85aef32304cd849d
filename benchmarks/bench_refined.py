"""Time the refined equilibrium (the default of `bidou solve`) against the plain LP, side by
side, whole commands.

    python benchmarks/bench_refined.py [--repeats 3] [--rules all,keep,french]
                                       [--against /path/to/other/.venv/bin/bidou]

For each rule set (faces 6, throws 3, max level 4), alternating runs of each command in a
fresh process (imports, model, solve, measures, printing and the strategy file included):
`bidou solve --plain --out` (the plain LP with its certificate), `bidou solve --plain
--exact --out` (its exact value proved too), and `bidou solve --out` (the refined
equilibrium: the perturbed LP, its limit, the exact recovery, the sequential completion,
the proof). Medians of `--repeats` of the wall time, and the refined time's ratio to both;
then the medians of CPU time (the commands' user and system seconds, which a shared
machine's load changes least), plain / plain exact / refined; the target
is a refined default hand within 3x `bidou solve`, whole command. Then, from the files: the
values (the refined exact value must equal the plain one), the check of what the
refinement guarantees (solver/hand/refined/sequential.py) on both strategies, and whether the
refined strategy file holds the published one's numbers (outputs/NAME/strategy.json: its
exact probabilities and their float roundings, every row; a speed-up must change none).
With `--against`, another installation's `bidou` (say main's checkout) runs every command
too, alternating with this one's so that both see the same load, on a row of its own
(`other`).

    python benchmarks/bench_refined.py --phases [--rules all]

instead says where the refined command's time goes: `bidou solve --out` run once per rule
set in a fresh process with its steps timed (`time.process_time` and wall seconds: the
imports, the model, building the perturbed LP, HiGHS (the fast LP, and scipy's where the
fast one's limit is not taken), the limit, the exact recovery, with its forked child's CPU
apart, the completion, the proof, the independent check of the fast LP's limit, the best
response, the strategy file, the rest), then the plain command's total beside it.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from solver.hand.refined.sequential import verify
from solver.hand.strategy import load_exact, load_strategy_file

RULE_SETS = {
    "all": [],
    "keep": ["--reroll", "keep"],
    "french": ["--ranking", "french"],
}
COMMANDS = {"plain": ["--plain"], "plain exact": ["--plain", "--exact"], "refined": []}
PUBLISHED = {"all": "default", "keep": "keep", "french": "french"}     # outputs/NAME
ROOT = Path(__file__).resolve().parents[1]


_THIS = [sys.executable, "-c", "from solver.app.cli import main; main()"]
# the refined command's steps, timed where the pipeline looks them up: (module, class or
# None, attribute, name in the table), in the order they run
STEPS = [("solver.hand.model", None, "build_model", "model"),
         ("solver.hand.refined.quasi_perfect", None, "solve_perturbed", "perturbed LP"),
         ("solver.hand.lp.perturbed", None, "tremble_rows", "perturbed LP: tremble rows"),
         ("solver.hand.lp.perturbed", None, "_fast", "perturbed LP: HiGHS (fast)"),
         ("solver.hand.lp.perturbed", None, "_linprog", "perturbed LP: HiGHS (linprog)"),
         ("solver.hand.refined.quasi_perfect", None, "limit", "limit"),
         ("solver.hand.refined.quasi_perfect", None, "exact_limit",
          "exact recovery (this process)"),
         ("solver.hand.refined.quasi_perfect", None, "complete_sequentially",
          "sequential completion"),
         ("solver.hand.refined.quasi_perfect", None, "prove_fractions", "proof"),
         ("solver.hand.refined.quasi_perfect", None, "verify", "independent check (fast LP)"),
         ("solver.hand.best_response", None, "exploitability", "best response"),
         ("solver.pipeline.hand", "HandResult", "document", "strategy file: document"),
         ("solver.common.files", None, "write_json_atomic", "strategy file: written")]
LP_PARTS = ("perturbed LP: tremble rows", "perturbed LP: HiGHS (fast)",
            "perturbed LP: HiGHS (linprog)")


def phases(rules: list[str]) -> list[tuple[str, float, float]]:
    """(step, CPU s, wall s) of one refined `bidou solve --out`, run in a fresh process:
    the imports, the steps of STEPS (the perturbed LP as its parts: its tremble rows,
    HiGHS, and the rest: the sequence form built, the rows stacked, its behaviour read
    back), the exact recovery's forked child (its CPU), the command's own rest (`other`),
    then the whole (CPU: this process's and its children's)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "phases.json"
        subprocess.run([sys.executable, __file__, "--phases-child", json.dumps(rules),
                        str(out)], check=True, capture_output=True)
        return [(step, cpu, wall) for step, cpu, wall in json.loads(out.read_text())]


def _time_phases(rules: list[str], out: Path) -> None:
    """The child of `phases`: the command run here with each step of STEPS timed."""
    import importlib

    start = (time.process_time(), time.perf_counter())
    from solver.app.cli import main
    cli = (time.process_time() - start[0], time.perf_counter() - start[1])
    import solver.hand.refined.quasi_perfect  # noqa: F401
    import solver.pipeline.hand  # noqa: F401  (the refined path's imports, timed apart)
    imports = (time.process_time() - start[0] - cli[0], time.perf_counter() - start[1] - cli[1])
    spent: dict[str, list[float]] = {}
    for module, owner, attribute, step in STEPS:
        holder = importlib.import_module(module)
        _timed(getattr(holder, owner) if owner else holder, attribute,
               spent.setdefault(step, [0.0, 0.0, 0.0]))
    with tempfile.TemporaryDirectory() as folder:
        try:
            main(["solve", *rules, "--out", str(Path(folder) / "strategy.json")])
        except SystemExit as done:
            assert not done.code, f"bidou solve exited {done.code}"
    total = (time.process_time() - start[0], time.perf_counter() - start[1])
    child = spent["exact recovery (this process)"][2]
    lp = spent.pop("perturbed LP")
    rest = [lp[i] - sum(spent[part][i] for part in LP_PARTS) for i in (0, 1)]
    rows = [["imports: the command line", *cli], ["imports: the refined path", *imports]]
    for step, (cpu, wall, _) in spent.items():
        rows.append([step, cpu, wall])
        if step == LP_PARTS[-1]:
            rows.append(["perturbed LP: the rest", *rest])
        if step == "exact recovery (this process)":
            rows.append(["exact recovery (its forked child)", child, 0.0])
    rows.append(["other", total[0] + child - sum(r[1] for r in rows),
                 total[1] - sum(r[2] for r in rows)])
    rows.append(["whole command", total[0] + child, total[1]])
    out.write_text(json.dumps(rows))


def _timed(holder, attribute: str, into: list[float]) -> None:
    """Replace holder.attribute by itself adding its CPU s, wall s and children's CPU s
    (a forked child's, once it is waited for) to `into`."""
    function = getattr(holder, attribute)

    def timed(*args, **kwargs):
        cpu, wall, children = time.process_time(), time.perf_counter(), _children_cpu()
        try:
            return function(*args, **kwargs)
        finally:
            into[0] += time.process_time() - cpu
            into[1] += time.perf_counter() - wall
            into[2] += _children_cpu() - children

    setattr(holder, attribute, timed)


def _run(bidou: list[str], rules: list[str], extra: list[str], out: Path
         ) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one command. The CPU time (user and system, of the
    command and every process it waited for: the refined recovery's forked child too)
    is what a load shared with other processes changes least."""
    before = _children_cpu()
    start = time.perf_counter()
    subprocess.run([*bidou, "solve", *rules, *extra, "--out", str(out)], check=True,
                   capture_output=True)
    return time.perf_counter() - start, _children_cpu() - before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rules", default="all", help=f"comma-separated: {', '.join(RULE_SETS)}")
    parser.add_argument("--against", default=None,
                        help="another installation's bidou executable, run side by side")
    parser.add_argument("--phases", action="store_true",
                        help="where the refined command's time goes, step by step")
    parser.add_argument("--phases-child", nargs=2, metavar=("RULES", "OUT"),
                        help=argparse.SUPPRESS)     # the timed command, in its own process
    args = parser.parse_args()
    if args.phases_child:
        rules, out = args.phases_child
        _time_phases(json.loads(rules), Path(out))
        return
    if args.phases:
        for name in args.rules.split(","):
            print(f"{name}: `{' '.join(['bidou solve', *RULE_SETS[name]])}` (refined), "
                  f"CPU s / wall s")
            for step, cpu, wall in phases(RULE_SETS[name]):
                print(f"  {step:<34} {cpu:6.2f} {wall:7.2f}")
            with tempfile.TemporaryDirectory() as folder:
                wall, cpu = _run(_THIS, RULE_SETS[name], ["--plain"], Path(folder) / "plain.json")
            print(f"  {'the plain command, whole':<34} {cpu:6.2f} {wall:7.2f}", flush=True)
        return
    peers = {"this": _THIS}
    if args.against:
        peers["other"] = [args.against]
    print(f"{'rules':<8} {'peer':<5} {'plain s':>8} {'plain exact s':>13} {'refined s':>9} "
          f"{'ratio':>6} {'vs exact':>8}  values; check (violations: plain / refined); "
          f"refined file against outputs/")
    with tempfile.TemporaryDirectory() as folder:
        for name in args.rules.split(","):
            times: dict[tuple[str, str], list[tuple[float, float]]] = {
                (peer, key): [] for peer in peers for key in COMMANDS}
            files = {(peer, key): Path(folder) / f"{name}-{peer}-{key.replace(' ', '-')}.json"
                     for peer in peers for key in COMMANDS}
            for _ in range(args.repeats):           # alternating: the same load for each
                for key, extra in COMMANDS.items():
                    for peer, bidou in peers.items():
                        times[(peer, key)].append(
                            _run(bidou, RULE_SETS[name], extra, files[(peer, key)]))
            for peer in peers:
                _report(name, peer, {key: times[(peer, key)] for key in COMMANDS},
                        {key: files[(peer, key)] for key in COMMANDS})


def _report(name: str, peer: str, times: dict[str, list[tuple[float, float]]],
            files: dict[str, Path]) -> None:
    plain, exact, refined = (statistics.median(t for t, _ in times[key]) for key in COMMANDS)
    cpu = [statistics.median(c for _, c in times[key]) for key in COMMANDS]
    values = {key: _value(files[key]) for key in ("plain exact", "refined")}
    same = "equal" if values["plain exact"] == values["refined"] else "DIFFERENT"
    checks = [len(verify(*load_strategy_file(files[key])[:2]).violations)
              for key in ("plain", "refined")]
    print(f"{name:<8} {peer:<5} {plain:8.2f} {exact:13.2f} {refined:9.2f} "
          f"{refined / plain:6.1f} {refined / exact:8.1f}  value {values['refined']} "
          f"({same}); check {checks[0]} / {checks[1]}; CPU s {cpu[0]:.2f} / {cpu[1]:.2f} / "
          f"{cpu[2]:.2f} (ratio {cpu[2] / cpu[0]:.1f}); {_published(name, files['refined'])}",
          flush=True)


def _published(name: str, path: Path) -> str:
    """Whether the refined file's strategies are outputs/NAME/strategy.json's, every row."""
    published = ROOT / "outputs" / PUBLISHED[name] / "strategy.json"
    if not published.exists():
        return f"no {published.relative_to(ROOT)}"
    mine, theirs = (json.loads(p.read_text()) for p in (path, published))
    differ = [section for section in ("throw", "betting", "exact")
              if mine.get(section) != theirs.get(section)]
    return (f"{', '.join(differ)} DIFFER from" if differ else "identical to") + \
        f" {published.relative_to(ROOT)}"


def _value(path: Path):
    from solver.hand.exact.certificate import prove_fractions

    model, strategy, _ = load_strategy_file(path)
    exact = load_exact(path, model, strategy)
    assert exact is not None, f"{path} holds no exact probabilities"
    return prove_fractions(model, strategy, {k: list(v) for k, v in exact.items()}).exact


if __name__ == "__main__":
    main()
