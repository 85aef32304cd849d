"""Time Le Bidou's hand (RULES.md section 5) beside the one-chip game, in one process.

    python benchmarks/bench_le_bidou.py [--repeats 3] [--max-stakes 1,2,3,9] [--cfr 1000]

For the one-chip default game (BidouParams(reroll="keep", ranking="french"), the same dice
as Le Bidou's defaults) and for Le Bidou at the default dice with each `--max-stakes`
value: medians of the compact LP solve, the certificate (exact bounds from the LP's
strategies) and the exact recovery, with the value and the interval width. The stakes tree
has 2**max_stake decisions a public state, so the LP grows fast: max_stake 9 (the
default) did not finish in 14 minutes on a loaded 2-core machine (docs/le-bidou.md).
`--cfr N` then runs N iterations of pcfr+ on the default hand and certifies its strategies:
a proved interval for the default hand's value without the LP.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any, Callable

from games.bidou.params import BidouParams
from games.le_bidou.params import LeBidouParams
from solver import best_response, cfr
from solver.certificate import certify
from solver.exact_equilibrium import recover
from solver.lp import solve_lp
from solver.model import HandModel, build_model


def median_time(func: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """(median seconds, last result) over `repeats` calls."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def exact_row(name: str, model: HandModel, repeats: int) -> None:
    """One line: LP, certificate and recovery medians, value, width, exact value."""
    lp_s, solution = median_time(lambda: solve_lp(model), repeats)
    strategy = best_response.complete_unreached(model, solution.strategy)
    cert_s, proof = median_time(lambda: certify(model, strategy), repeats)
    exact_s, recovery = median_time(lambda: recover(model, strategy), repeats)
    exact = (recovery.certificate.exact if recovery.certificate is not None else None)
    shown = str(exact) if exact is not None else f"not proved: {recovery.reason}"
    print(f"{name:<34} {lp_s:8.2f} {cert_s:8.2f} {exact_s:8.2f} {solution.value:+.12f} "
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-stakes", default="1,2,3",
                        help="comma-separated max_stake values at the default dice")
    parser.add_argument("--cfr", type=int, default=0, help="pcfr+ iterations, 0: none")
    args = parser.parse_args()
    print(f"{'game':<34} {'LP s':>8} {'cert s':>8} {'exact s':>8} {'value':>15} "
          f"{'width':>9}  exact value")
    exact_row("one-chip, keep, french", build_model(BidouParams(reroll="keep",
                                                                ranking="french")),
              args.repeats)
    for max_stake in (int(s) for s in args.max_stakes.split(",")):
        params = LeBidouParams(max_stake=max_stake)
        exact_row(f"Le Bidou, max_stake {max_stake}", build_model(params.description()),
                  args.repeats)
    if args.cfr:
        certified_cfr(args.cfr)


if __name__ == "__main__":
    main()
