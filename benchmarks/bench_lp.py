"""Time the compact LP, and compare it with peers on a small variant, in one process.

    python benchmarks/bench_lp.py [--repeats 5] [--quick]

Part 1: `solve_lp` on the default game and on reroll=keep (medians), against the targets
of 0.5 s and 2 s. Part 2: on small variants, the same value computed by
  - the compact LP (this project),
  - our generic sequence-form LP over the faithful OpenSpiel tree (solver/checks/openspiel_lp.py),
  - OpenSpiel's own `sequence_form_lp` (cvxpy) over the faithful tree,
  - pygambit's rational `lp_solve` over the faithful tree (where it finishes),
with medians and the ratio of each peer's time to the compact LP's. The peers that need the
test extra (cvxpy for OpenSpiel's LP, pygambit) are skipped, with a message, when missing:
`pip install -e '.[test]'` brings them. Part 3, exact answers:
the compact LP followed by the exact certificate (solver/hand/exact/certificate.py: bounds proved in
rational arithmetic) beside pygambit's rational LP on the faithful game, which gives the
exact value; and, on the full games, the certificate alone with the width it proves, then
the recovery of the exact equilibrium (solver/hand/exact/equilibrium.py) and the value it proves.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time
from typing import Callable

from games.bidou.params import BidouParams
from solver.checks.openspiel_bridge import load_game
from solver.hand.lp.sequence_form import solve_lp
from solver.hand.model import build_model


def median_time(func: Callable[[], float], repeats: int) -> tuple[float, float]:
    """(median seconds, last value) over `repeats` calls."""
    times, value = [], float("nan")
    for _ in range(repeats):
        start = time.perf_counter()
        value = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def available(module: str, purpose: str) -> bool:
    """Whether an optional peer is installed; if not, say which part is skipped."""
    if importlib.util.find_spec(module) is not None:
        return True
    print(f"   (skipped: {purpose} needs {module}, from the test extra: "
          f"pip install -e '.[test]')")
    return False


def part_full_games(repeats: int) -> None:
    print("== The full hand game, compact LP (scipy HiGHS, dual simplex) ==")
    print(f"{'rules':<62} {'median s':>9} {'target s':>9} {'value':>16}")
    for params, target in ((BidouParams(), 0.5), (BidouParams(reroll="keep"), 2.0),
                           (BidouParams(ranking="french"), 0.5)):
        model = build_model(params)
        seconds, value = median_time(lambda: solve_lp(model).value, repeats)
        print(f"{params.describe():<62} {seconds:9.3f} {target:9.1f} {value:+16.12f}")
    print()


def part_peers(repeats: int, quick: bool) -> None:
    from solver.checks.gambit_bridge import gambit_value
    from solver.checks.openspiel_lp import solve_openspiel_game

    print("== Small variants: the compact LP beside peers on the faithful OpenSpiel game ==")
    with_cvxpy = available("cvxpy", "OpenSpiel's sequence_form_lp")
    with_gambit = available("pygambit", "pygambit's lp_solve")
    if with_cvxpy:
        from open_spiel.python.algorithms import sequence_form_lp
    variants = [BidouParams(faces=2, throws=1, max_level=1),
                BidouParams(faces=3, throws=1, max_level=2, ranking="french"),
                BidouParams(faces=2, throws=2, max_level=2)]
    if not quick:
        variants.append(BidouParams(faces=2, throws=2, max_level=1, reroll="keep"))
    for params in variants:
        game = load_game(params)
        model = build_model(params)
        rows = [("compact LP (ours)", lambda: solve_lp(model).value)]
        rows.append(("generic LP on OpenSpiel tree (ours)",
                     lambda: solve_openspiel_game(game).value))
        if with_cvxpy:
            rows.append(("OpenSpiel sequence_form_lp",
                         lambda: sequence_form_lp.solve_zero_sum_game(game)[0]))
        if with_gambit and params.throws == 1:
            rows.append(("pygambit lp_solve (rational)", lambda: float(gambit_value(game))))
        print(f"-- {params.to_game_string()}")
        base = None
        for name, func in rows:
            n = repeats if name.startswith("compact") else max(1, min(repeats, 3))
            seconds, value = median_time(func, n)
            base = base or seconds
            print(f"   {name:<38} median {seconds:9.4f} s  x{seconds / base:9.1f}  "
                  f"value {value:+.12f}")
    print()


def part_exact(repeats: int) -> None:
    from solver.checks.gambit_bridge import gambit_value
    from solver.hand.exact.certificate import certify
    from solver.hand.exact.equilibrium import exact_value
    from solver.hand.solve import solve

    print("== Exact answers: LP + certificate (ours) beside pygambit's rational LP ==")
    with_gambit = available("pygambit", "pygambit's rational lp_solve")
    for params in (BidouParams(faces=2, throws=1, max_level=1),
                   BidouParams(faces=3, throws=1, max_level=2, ranking="french")):
        model = build_model(params)

        def ours():
            return certify(model, solve_lp(model).strategy)

        seconds, proof = median_time(ours, repeats)
        print(f"-- {params.to_game_string()}")
        print(f"   {'compact LP + certificate (ours)':<38} median {seconds:9.4f} s  x{1:9.1f}  "
              f"value in [{float(proof.lower):+.15f}, {float(proof.upper):+.15f}]")
        if with_gambit:
            game = load_game(params)
            theirs, exact = median_time(lambda: gambit_value(game), max(1, min(repeats, 3)))
            print(f"   {'pygambit lp_solve (rational)':<38} median {theirs:9.4f} s  "
                  f"x{theirs / seconds:9.1f}  value {exact} "
                  f"({'inside' if proof.contains(exact) else 'OUTSIDE'} our interval)")
    print("-- full games: the certificate alone (after the LP), then the exact recovery")
    for params in (BidouParams(), BidouParams(reroll="keep"), BidouParams(ranking="french")):
        model = build_model(params)
        strategy = solve(params, model=model).strategy    # as `bidou solve`: completed
        seconds, proof = median_time(lambda: certify(model, strategy), repeats)
        lower, upper = proof.decimals(18)
        print(f"   {params.describe():<62} {seconds:7.3f} s  [{lower}, {upper}]  "
              f"width {float(proof.width):.1e}")
        seconds, proof = median_time(lambda: exact_value(model, strategy), 1)
        print(f"   {'':<62} {seconds:7.3f} s  exact value "
              f"{proof.exact if proof is not None else 'not recovered'}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="skip the slowest peer runs")
    args = parser.parse_args()
    part_full_games(args.repeats)
    part_peers(args.repeats, args.quick)
    part_exact(args.repeats)


if __name__ == "__main__":
    main()
