"""Time Le Bidou's hand (RULES.md section 5) beside the one-chip game, in one process.

    python benchmarks/bench_le_bidou.py [--repeats 3] [--max-stakes 1,2,3,9]
        [--restricted 3,4,5,9] [--full-to 5] [--no-exact] [--cfr 1000]
    python benchmarks/bench_le_bidou.py --whole 9 [--repeats 3]
        [--against /work/main/.venv/bin/bidou]
    python benchmarks/bench_le_bidou.py --phases 9

`--phases S` prints the CPU seconds of each phase of that command's work in this process
(imports, the LPs' building, naming, bases and HiGHS, the checks, the solution's best
responses, the certificate, the strategy file's JSON): where the time goes.

`--whole S` times the whole command `bidou solve --game le-bidou --max-stake S` (a fresh
process: imports, model, LPs, best responses, certificate, printing), medians of wall and
CPU seconds, and of the CPU seconds of the command's own process: the large hand runs
halves of its work in forked children (solver/common/side_by_side.py), so on a loaded machine
its own CPU is what its wall time would be with a core free for each child; with
`--against`, another installation's `bidou` (main's checkout, say) runs it too,
alternating with this one's so that both see the same load, and the ratio.

For the one-chip default game (BidouParams(reroll="keep", ranking="french"), the same dice
as Le Bidou's defaults) and for Le Bidou at the default dice with each `--max-stakes`
value: medians of the compact LP solve, the certificate (exact bounds from the LP's
strategies, on the full model) and the exact recovery, with the value and the interval
width. The stakes tree has 2**max_stake decisions a public state, so the full LP grows
fast: max_stake 9 (the default) did not finish in 14 minutes on a loaded 2-core machine
(docs/le-bidou.md). `--restricted` gives the same row for the restricted LP
(solver/hand/lp/restricted.py, the double oracle) at each value, its time being every LP and
every check of the rounds, with the rounds and the decisions it kept, and its exact value
by `exact_lift` (recovered on the restricted model, proved on the full); the full LP runs
beside it where max_stake <= `--full-to`. `--cfr N` then runs N iterations of pcfr+ on the
default hand and certifies its strategies: a proved interval without any LP.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from typing import Any, Callable

from whole_commands import side_by_side, timed

from games.bidou.params import BidouParams
from games.le_bidou.params import LeBidouParams
from solver.hand import best_response
from solver.hand.cfr import iterations as cfr
from solver.hand.exact.certificate import certify
from solver.hand.exact.equilibrium import recover
from solver.hand.lp.restricted import double_oracle, exact_lift
from solver.hand.lp.sequence_form import solve_lp
from solver.hand.model import HandModel, build_model


def median_time(func: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """(median seconds, last result) over `repeats` calls."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def exact_row(name: str, model: HandModel, repeats: int, restricted: bool = False,
              exact: bool = True) -> None:
    """One line: LP (full or restricted), certificate and recovery medians, value, width,
    exact value; for the restricted LP, its rounds and the decisions it kept."""
    if restricted:
        lp_s, oracle = median_time(lambda: double_oracle(model), repeats)
        solution = oracle.solution
        name = (f"{name} restricted ({oracle.rounds} LPs, {oracle.decisions}/"
                f"{oracle.full_decisions})")
    else:
        lp_s, solution = median_time(lambda: solve_lp(model), repeats)
    strategy = best_response.complete_unreached(model, solution.strategy)
    cert_s, proof = median_time(lambda: certify(model, strategy), repeats)
    exact_s, shown = float("nan"), "not tried"
    if exact:
        if restricted:            # recovered on the restricted model, proved on the full
            exact_s, recovery = median_time(lambda: exact_lift(model, oracle), repeats)
        else:
            exact_s, recovery = median_time(lambda: recover(model, strategy), repeats)
        found = (recovery.certificate.exact if recovery.certificate is not None else None)
        shown = str(found) if found is not None else f"not proved: {recovery.reason}"
    print(f"{name:<50} {lp_s:8.2f} {cert_s:8.2f} {exact_s:8.2f} {solution.value:+.12f} "
          f"{float(proof.width):9.1e}  {shown}", flush=True)


def certified_cfr(iterations: int) -> None:
    """pcfr+ on the default hand, then exact bounds proved from its strategies."""
    model = build_model(LeBidouParams().description())
    start = time.perf_counter()
    run = cfr.solve_cfr(model, "pcfr+", iterations=iterations)
    cfr_s = time.perf_counter() - start
    start = time.perf_counter()
    proof = certify(model, best_response.complete_unreached(model, run.strategy))
    cert_s = time.perf_counter() - start
    print(f"pcfr+ {iterations} iterations on the default Le Bidou hand: {cfr_s:.1f} s, "
          f"exploitability {run.exploitability.exploitability:.3g}; certificate {cert_s:.1f} s:"
          f" value in [{float(proof.lower):.6f}, {float(proof.upper):.6f}]", flush=True)


# The whole command, printing on standard error the CPU seconds of its own process (not
# of the children it forks): on a machine with a core free for each child, its wall time.
OWN_CPU = """import resource, sys
from solver.app.cli import main
try:
    main()
finally:
    own = resource.getrusage(resource.RUSAGE_SELF)
    print(f"own cpu {own.ru_utime + own.ru_stime:.3f}", file=sys.stderr)
"""


def whole_commands(max_stake: int, repeats: int, against: str | None) -> None:
    """Medians of the whole `bidou solve --game le-bidou` for this checkout and `against`
    (another installation's `bidou`), run alternately (benchmarks/whole_commands.py): wall
    seconds, CPU seconds (the command and the children it forks) and the command's own CPU
    seconds (its critical path when each forked child has a core); the value line each
    printed."""
    def run(peer: str, python: str, folder: str | None) -> tuple[tuple[float, ...], str]:
        wall, cpu, done = timed([python, "-c", OWN_CPU, "solve", "--game", "le-bidou",
                                 "--max-stake", str(max_stake)], folder)
        own = [float(line.split()[-1]) for line in done.stderr.splitlines()
               if line.startswith("own cpu")]
        shown = " | ".join(line for line in done.stdout.splitlines()
                           if line.startswith(("certified", "solver says")))
        return (wall, cpu, own[-1] if own else float("nan")), f"{shown} (exit {done.returncode})"

    medians = side_by_side(repeats, against, run)
    for peer, ((wall, cpu, own), shown) in medians.items():
        ratio = f"{wall / medians['this'][0][0]:6.2f}x this" if peer != "this" else ""
        print(f"max_stake {max_stake} {peer:<5} wall {wall:8.1f} s  cpu {cpu:8.1f} s  "
              f"own cpu {own:8.1f} s  {ratio}  {shown}", flush=True)


# The phases of `bidou solve --game le-bidou` that `phases` times, by the function that
# does each: (module, function, label).
PHASES = (("solver.hand.lp.warm", "_Built", "build the LPs"),
          ("solver.hand.lp.warm", "lp_keys", "name their columns and rows"),
          ("solver.hand.lp.warm", "carry", "carry and crash the bases"),
          ("solver.hand.lp.warm", "solve_lp_from", "HiGHS (and reading its answer)"),
          ("solver.hand.lp.restricted", "_completions", "checks: completions (this half)"),
          ("solver.hand.lp.restricted", "_gainful_deviations",
           "checks: best responses (this half)"),
          ("solver.hand.lp.restricted", "_check_frontier", "checks, all (critical path)"),
          ("solver.hand.lp.restricted", "double_oracle", "double oracle, all"),
          ("solver.hand.best_response", "complete_unreached", "solution: unreached completed"),
          ("solver.hand.best_response", "exploitability", "solution: float best responses"),
          ("solver.hand.solve", "certify", "certificate (critical path)"))


def phases(max_stake: int) -> None:
    """The CPU seconds (`time.process_time`: this process only, the critical path when
    each forked child has a core) of each phase of the whole command's work, in one
    process: imports, then `solve_hand`'s phases (PHASES), then the strategy file's
    encoding (indented, as written, and compact)."""
    import collections
    import importlib
    import json

    begin = time.process_time()
    from solver.pipeline import hand
    imports = float(subprocess.run(        # in a fresh process: this one has imported much
        [sys.executable, "-c", "import time; s = time.process_time(); "
         "import solver.app.cli, solver.app.commands.solve, solver.pipeline.hand, "
         "solver.hand.lp.restricted, solver.hand.exact.certificate; "
         "print(time.process_time() - s)"],
        capture_output=True, text=True, check=True).stdout)
    spent: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0])
    for module_name, name, label in PHASES:
        module = importlib.import_module(module_name)
        _time_calls(module, name, label, spent)
        for other in ("solver.hand.lp.restricted", "solver.hand.lp.warm", "solver.hand.solve"):
            held = importlib.import_module(other)   # a name imported by another module
            if other != module_name and getattr(held, name, None) is not None:
                _time_calls(held, name, label, spent)
    start = time.process_time()
    result = hand.solve_hand(LeBidouParams(max_stake=max_stake), "lp")
    solve_s = time.process_time() - start
    document = result.document()
    start = time.process_time()
    indented = json.dumps(document, indent=1)
    indent_s = time.process_time() - start
    start = time.process_time()
    json.dumps(document, separators=(",", ":"))
    compact_s = time.process_time() - start
    print(f"max_stake {max_stake}: CPU seconds of this process "
          f"({result.solution.message})")
    print(f"  {'imports (a fresh process)':<40} {imports:7.2f}")
    for label, (seconds, calls) in spent.items():
        print(f"  {label:<40} {seconds:7.2f}  ({calls} calls)")
    print(f"  {'solve_hand, all':<40} {solve_s:7.2f}")
    print(f"  {'strategy file, indented JSON':<40} {indent_s:7.2f}  "
          f"({len(indented) / 1e6:.1f} MB; compact {compact_s:.2f} s)")
    print(f"  {'total, with the imports':<40} {time.process_time() - begin + imports:7.2f}",
          flush=True)


def _time_calls(module: Any, name: str, label: str,
                spent: dict[str, list[float]]) -> None:
    """Replace `module.name` by the same function adding its CPU seconds to `spent`."""
    function = getattr(module, name)
    if getattr(function, "_timed", False):
        return

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label][0] += time.process_time() - start
            spent[label][1] += 1

    timed._timed = True          # type: ignore[attr-defined]
    setattr(module, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-stakes", default="1,2,3",
                        help="comma-separated max_stake values at the default dice")
    parser.add_argument("--restricted", default="",
                        help="comma-separated max_stake values for the restricted LP")
    parser.add_argument("--full-to", type=int, default=5,
                        help="also the full LP beside a restricted row up to this max_stake")
    parser.add_argument("--no-exact", action="store_true", help="skip the exact recovery")
    parser.add_argument("--cfr", type=int, default=0, help="pcfr+ iterations, 0: none")
    parser.add_argument("--whole", type=int, default=0,
                        help="time the whole command at this max_stake instead (0: no)")
    parser.add_argument("--against", default=None,
                        help="with --whole: another installation's bidou, run side by side")
    parser.add_argument("--phases", type=int, default=0,
                        help="the CPU seconds of each phase of the command at this "
                             "max_stake instead (0: no)")
    args = parser.parse_args()
    if args.phases:
        phases(args.phases)
        return
    if args.whole:
        whole_commands(args.whole, args.repeats, args.against)
        return
    exact = not args.no_exact
    print(f"{'game':<50} {'LP s':>8} {'cert s':>8} {'exact s':>8} {'value':>15} "
          f"{'width':>9}  exact value")
    exact_row("one-chip, keep, french", build_model(BidouParams(reroll="keep",
                                                                ranking="french")),
              args.repeats, exact=exact)
    for max_stake in (int(s) for s in args.max_stakes.split(",") if s):
        params = LeBidouParams(max_stake=max_stake)
        exact_row(f"Le Bidou, max_stake {max_stake}", build_model(params.description()),
                  args.repeats, exact=exact)
    for max_stake in (int(s) for s in args.restricted.split(",") if s):
        model = build_model(LeBidouParams(max_stake=max_stake).description())
        if max_stake <= args.full_to:
            exact_row(f"Le Bidou, max_stake {max_stake}, full", model, args.repeats,
                      exact=exact)
        exact_row(f"Le Bidou, max_stake {max_stake}", model, args.repeats, restricted=True,
                  exact=exact)
    if args.cfr:
        certified_cfr(args.cfr)


if __name__ == "__main__":
    main()
