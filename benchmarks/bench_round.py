"""Time the round solver (bidou round): the default round and the keep round, our solve
(Newton steps inside cyclic components) beside plain Shapley value iteration on the same
stage LPs, and how the time grows with the number of chips and of faces.

    python benchmarks/bench_round.py                 # everything (several minutes)
    python benchmarks/bench_round.py --part growth   # one part: targets, shapley, growth

Prints medians of --repeats runs; "ratio" is Shapley's time over ours.
"""

from __future__ import annotations

import argparse
import statistics
import time

from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from solver.round.certify import certify_round
from solver.round.solve import solve_round


def timed(func, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def solve_and_prove(params: RoundParams, **options):
    solution = solve_round(params, **options)
    certificate = certify_round(solution)
    return solution, certificate


def part_targets(repeats: int) -> None:
    print("== whole solve + certificate (targets: default <= 30 s, keep <= 120 s)")
    for name, hand in (("default", BidouParams()), ("keep", BidouParams(reroll="keep"))):
        seconds, (solution, certificate) = timed(
            lambda h=hand: solve_and_prove(RoundParams(hand=h)), repeats)
        width = max(float(p.width) for p in certificate.states.values())
        print(f"{name:8s} {seconds:8.1f} s  start {solution.start_value:.12f}  "
              f"widest interval {width:.1e}  (solve {solution.seconds:.1f} s)")


def part_shapley(repeats: int) -> None:
    print("== ours (Newton steps) against Shapley value iteration, solve only")
    for chips, hand in ((5, BidouParams(faces=4, throws=2)), (9, BidouParams(faces=4, throws=2)),
                        (9, BidouParams())):
        params = RoundParams(chips=chips, hand=hand)
        ours, solution = timed(lambda p=params: solve_round(p), repeats)
        theirs, baseline = timed(lambda p=params: solve_round(p, newton=False), repeats)
        gap = max(abs(solution.values[s] - baseline.values[s]) for s in solution.values)
        rounds = sum(len(h) for h in solution.history.values())
        shapley_rounds = sum(len(h) for h in baseline.history.values())
        print(f"{params.describe():70s} ours {ours:7.1f} s ({rounds} stage rounds)  "
              f"shapley {theirs:7.1f} s ({shapley_rounds})  ratio {theirs / ours:5.1f}  "
              f"max |diff| {gap:.1e}")


def part_growth(repeats: int) -> None:
    print("== growth with chips (6 faces, 3 throws) and with faces (9 chips), solve + proof")
    for chips in range(3, 10):
        seconds, (solution, _) = timed(
            lambda c=chips: solve_and_prove(RoundParams(chips=c)), repeats)
        print(f"chips {chips}: {seconds:7.1f} s  states {len(solution.values):3d}  "
              f"start {solution.start_value:.6f}")
    for faces in range(2, 7):
        seconds, (solution, _) = timed(
            lambda f=faces: solve_and_prove(RoundParams(hand=BidouParams(faces=f))), repeats)
        print(f"faces {faces}: {seconds:7.1f} s  start {solution.start_value:.6f}")


PARTS = {"targets": part_targets, "shapley": part_shapley, "growth": part_growth}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=sorted(PARTS), action="append")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    for name in args.part or PARTS:
        PARTS[name](args.repeats)


if __name__ == "__main__":
    main()
