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
machine's load changes least), plain / plain exact / refined; the issue's target
is a refined default hand within 3x `bidou solve`, whole command. Then, from the files: the
values (the refined exact value must equal the plain one), the check of what the
refinement guarantees (solver/refine/sequential.py) on both strategies, and whether the
refined strategy file holds the published one's numbers (outputs/NAME/strategy.json: its
exact probabilities and their float roundings, every row; a speed-up must change none).
With `--against`, another installation's `bidou` (say main's checkout) runs every command
too, alternating with this one's so that both see the same load, on a row of its own
(`other`).
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

from solver.refine.sequential import verify
from solver.strategy import load_exact, load_strategy_file

RULE_SETS = {
    "all": [],
    "keep": ["--reroll", "keep"],
    "french": ["--ranking", "french"],
}
COMMANDS = {"plain": ["--plain"], "plain exact": ["--plain", "--exact"], "refined": []}
PUBLISHED = {"all": "default", "keep": "keep", "french": "french"}     # outputs/NAME
ROOT = Path(__file__).resolve().parents[1]


def _run(bidou: list[str], rules: list[str], extra: list[str], out: Path
         ) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one command. The CPU time (user and system, of the
    command and every process it waited for: the refined recovery's forked child too)
    is what a load shared with other sessions changes least."""
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
    args = parser.parse_args()
    peers = {"this": [sys.executable, "-c", "from solver.app.cli import main; main()"]}
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
    from solver.certificate import prove_fractions

    model, strategy, _ = load_strategy_file(path)
    exact = load_exact(path, model, strategy)
    assert exact is not None, f"{path} holds no exact probabilities"
    return prove_fractions(model, strategy, {k: list(v) for k, v in exact.items()}).exact


if __name__ == "__main__":
    main()
