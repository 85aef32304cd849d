"""Time the refined equilibrium (solver/refine) against the plain LP, side by side.

    python benchmarks/bench_refined.py [--repeats 3] [--rules all,keep] [--eta 1e-4]
                                       [--kind behaviour|sequence]

For each rule set (faces 6, throws 3, max level 4): the plain LP with its certificate
(`solve`, as `bidou solve` runs it), the plain LP with the exact value proved (`solve(...,
exact=True)`, as `bidou solve --exact`), and the refined equilibrium (`refined_equilibrium`:
the perturbed LP, its limit, the exact recovery and the proof), each the median of
`--repeats` runs, with the refined time's ratio to both. The issue's target is a refined
default hand within 3x the plain LP, whole command. Then the values (the refined exact value
must equal the plain one) and the independent check (solver/refine/check.py) on both
strategies: weakly dominated actions, and actions losing against trembles at every size.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable, TypeVar

from games.bidou.params import BidouParams
from solver.errors import SolverError
from solver.refine.check import check
from solver.refine.perturbed_lp import BEHAVIOUR, SEQUENCE
from solver.refine.quasi_perfect import ETAS, refined_equilibrium
from solver.solve import solve

RULE_SETS = {
    "all": BidouParams(),
    "keep": BidouParams(reroll="keep"),
    "french": BidouParams(ranking="french"),
}

R = TypeVar("R")


def _median(run: Callable[[], R], repeats: int) -> tuple[float, R]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    assert result is not None
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rules", default="all", help=f"comma-separated: {', '.join(RULE_SETS)}")
    parser.add_argument("--eta", type=float, default=None,
                        help=f"one tremble size (default: {', '.join(map(str, ETAS))} in turn)")
    parser.add_argument("--kind", default=BEHAVIOUR, choices=(BEHAVIOUR, SEQUENCE),
                        help="the perturbation: behavioural trembles or Miltersen-Sørensen's")
    args = parser.parse_args()
    print(f"{'rules':<8} {'LP s':>6} {'LP exact s':>10} {'refined s':>9} {'ratio':>6} "
          f"{'vs exact':>8}  values, check (dominated / tremble at every size)")
    etas = ETAS if args.eta is None else (args.eta,)
    for name in args.rules.split(","):
        params = RULE_SETS[name]
        plain_s, plain = _median(lambda: solve(params), args.repeats)
        exact_s, exact = _median(lambda: solve(params, exact=True), args.repeats)
        try:
            refined_s, refined = _median(lambda: refined_equilibrium(plain.model, etas,
                                                               kind=args.kind),
                                         args.repeats)
        except SolverError as error:
            print(f"{name:<8} {plain_s:6.2f} {exact_s:10.2f}  refined failed: {error}")
            continue
        value = refined.certificate.exact
        known = exact.certificate.exact if exact.certificate is not None else None
        same = ("plain not exact" if known is None
                else "equal" if value == known else "DIFFERENT")
        lp_check, refined_check = check(plain.model, plain.strategy), check(plain.model,
                                                                            refined.strategy)
        print(f"{name:<8} {plain_s:6.2f} {exact_s:10.2f} {refined_s:9.2f} "
              f"{refined_s / plain_s:6.1f} {refined_s / exact_s:8.1f}  value {value} ({same}); "
              f"LP {len(lp_check.dominated)}/{len(lp_check.persistent) - len(lp_check.dominated)}"
              f", refined {len(refined_check.dominated)}/"
              f"{len(refined_check.persistent) - len(refined_check.dominated)}", flush=True)


if __name__ == "__main__":
    main()
