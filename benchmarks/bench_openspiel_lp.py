"""Benchmark: solver.checks.openspiel_lp vs OpenSpiel's sequence_form_lp vs pygambit.

Run from the repository root:

    python benchmarks/bench_openspiel_lp.py [--repeats-kuhn 20] [--repeats-leduc 5]

In one process, for each game, times (wall clock, whole call including the
tree walk):

* ours:      solver.checks.openspiel_lp.solve_openspiel_game (scipy HiGHS);
* OpenSpiel: open_spiel.python.algorithms.sequence_form_lp.solve_zero_sum_game
             (cvxpy + ECOS; skipped if cvxpy is not installed);
* pygambit:  solver.checks.gambit_bridge.gambit_value (export to .efg, read_efg,
             pygambit.nash.lp_solve), only on the small games where it is
             practical (Gambit's LP is far too slow on Leduc).

Prints medians, the ratio OpenSpiel/ours, and the values side by side.
Not a test; takes well under two minutes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pyspiel  # noqa: E402

from solver.checks.openspiel_lp import solve_openspiel_game  # noqa: E402


def _time(fn, repeats: int):
    times = []
    result = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def _openspiel_solver():
    try:
        import cvxpy  # noqa: F401
        from open_spiel.python.algorithms import sequence_form_lp
    except ImportError as exc:  # pragma: no cover - depends on the install
        print(f"(OpenSpiel sequence_form_lp unavailable: {exc})")
        return None
    return sequence_form_lp.solve_zero_sum_game


def _gambit():
    try:
        import pygambit  # noqa: F401

        from solver.checks.gambit_bridge import gambit_value
    except ImportError as exc:  # pragma: no cover
        print(f"(pygambit unavailable: {exc})")
        return None
    return gambit_value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats-kuhn", type=int, default=20)
    parser.add_argument("--repeats-leduc", type=int, default=5)
    args = parser.parse_args()

    os_solve = _openspiel_solver()
    gambit_value = _gambit()
    # Warm up imports / HiGHS so the first timed call is not penalised.
    solve_openspiel_game("kuhn_poker")

    # (game, repeats, pygambit modes)
    plan = [
        ("kuhn_poker", args.repeats_kuhn, (True, False)),
        ("leduc_poker", args.repeats_leduc, ()),
        ("liars_dice(dice_sides=3)", args.repeats_leduc, (False,)),
    ]
    for name, repeats, gambit_modes in plan:
        game = pyspiel.load_game(name)
        print("=" * 76)
        print(f"{name}   ({repeats} repeats, median wall time per solve)")
        print("=" * 76)
        t_ours, sol = _time(lambda: solve_openspiel_game(game), repeats)
        print(
            f"  ours (scipy HiGHS)         {t_ours * 1e3:9.2f} ms   "
            f"value {sol.value:+.12f}   sequences {sol.num_sequences}"
        )
        if os_solve is not None:
            t_os, res = _time(lambda: os_solve(game), repeats)
            print(
                f"  OpenSpiel (cvxpy/ECOS)     {t_os * 1e3:9.2f} ms   "
                f"value {res[0]:+.12f}"
            )
            print(
                f"  ratio OpenSpiel/ours       {t_os / t_ours:9.2f} x    "
                f"|value difference| {abs(res[0] - sol.value):.2e}"
            )
        if gambit_value is None:
            continue
        if not gambit_modes:
            print("  pygambit lp_solve          skipped (takes minutes on this game)")
        for rational in gambit_modes:
            label = "rational" if rational else "float"
            t_gb, v = _time(
                lambda: gambit_value(game, rational=rational), min(repeats, 5)
            )
            shown = f"{v} = {float(v):+.12f}" if rational else f"{float(v):+.12f}"
            print(
                f"  pygambit lp_solve {label:8s} {t_gb * 1e3:9.2f} ms   "
                f"value {shown}   (pygambit/ours {t_gb / t_ours:.2f} x)"
            )
    print("=" * 76)


if __name__ == "__main__":
    main()
