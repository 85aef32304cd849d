"""Time the exact recovery (`bidou solve --exact`) on every rule set of the default level.

    python benchmarks/bench_exact.py [--repeats 1] [--rules keep,french-keep]

For each of the six rule sets the CLI accepts at faces 6, throws 3, max level 4 (reroll all
or keep; the encyclopedia ranking, or the french one with and without aces over bidou):
the LP solve with its certificate (`solve`, as `bidou solve` runs it), then the recovery of
the exact equilibrium and its proof (`exact_equilibrium.recover`), each a median over
`--repeats`; the unknowns of each player's system; and the exact value proved, or why not.
The LP's certificate alone is the peer: the ratio says what proving the value itself costs
beyond proving an interval around it.
"""

from __future__ import annotations

import argparse
import statistics
import time

from games.bidou.params import BidouParams
from solver.hand.exact import equilibrium as exact_equilibrium
from solver.hand.solve import solve

RULE_SETS = {
    "all": BidouParams(),
    "keep": BidouParams(reroll="keep"),
    "french": BidouParams(ranking="french"),
    "french-no-aces": BidouParams(ranking="french", aces_beat_bidou=False),
    "french-keep": BidouParams(reroll="keep", ranking="french"),
    "french-keep-no-aces": BidouParams(reroll="keep", ranking="french", aces_beat_bidou=False),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--rules", default=",".join(RULE_SETS),
                        help=f"comma-separated, among {', '.join(RULE_SETS)}")
    args = parser.parse_args()
    print(f"{'rules':<20} {'LP+cert s':>9} {'exact s':>8} {'ratio':>6} {'unknowns':>9}  "
          f"exact value to the captain")
    for name in args.rules.split(","):
        params = RULE_SETS[name]
        times, solution = [], None
        for _ in range(args.repeats):
            start = time.perf_counter()
            solution = solve(params)
            times.append(time.perf_counter() - start)
        lp_seconds = statistics.median(times)
        model, strategy = solution.model, solution.strategy
        plans = exact_equilibrium.Plan(model, strategy, 0), \
            exact_equilibrium.Plan(model, strategy, 1)
        unknowns = "/".join(str(len(p.unknowns)) for p in plans)
        times, recovery = [], None
        for _ in range(args.repeats):
            start = time.perf_counter()
            recovery = exact_equilibrium.recover(model, strategy)
            times.append(time.perf_counter() - start)
        seconds = statistics.median(times)
        proof = recovery.certificate
        if proof is not None and proof.exact is not None:
            shown = f"{proof.exact} = {proof.decimals(18)[0]}"
            if not solution.certificate.contains(proof.exact):     # two proofs disagree
                shown += "  OUTSIDE THE LP'S CERTIFIED INTERVAL"
        else:
            shown = f"NOT PROVED: {recovery.reason}"
        print(f"{name:<20} {lp_seconds:9.2f} {seconds:8.2f} {seconds / lp_seconds:6.1f} "
              f"{unknowns:>9}  {shown}", flush=True)


if __name__ == "__main__":
    main()
