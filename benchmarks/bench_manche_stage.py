"""Time one stage game of the manche solved cold and again from its last solve (the Newton
step's solve, solver/manche/stage_solve.py): one LP of the whole tree and the double
oracle, each cold, then at tie values moved by DELTA from the first solve's basis (and
restricted tree).

    python benchmarks/bench_manche_stage.py 3,2,4            # pool 3 of the default manche
    python benchmarks/bench_manche_stage.py 5,0,4 1e-4 do    # the double oracle only

The continuation values are made up (0.5 and a slope; the decided states their own): the
LP's cost depends on the tree, not on the numbers. Prints wall and CPU seconds, simplex
iterations and the value of each solve.
"""

from __future__ import annotations

import argparse
import resource
import time
from typing import Any, Callable

from games.le_bidou.manche import MancheParams, MancheState, all_states, decided
from solver.hand.lp.restricted import double_oracle
from solver.hand.lp.sequence_form import solve_lp_from
from solver.manche.stage_solve import model_at


def cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def timed(label: str, fn: Callable[[], Any]) -> Any:
    wall, begun = time.perf_counter(), cpu()
    out = fn()
    print(f"{label:24} {time.perf_counter() - wall:7.2f} s wall {cpu() - begun:7.2f} s CPU",
          end="  ")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("state", help="POOL,FIRST,SECOND of the default manche")
    parser.add_argument("delta", nargs="?", type=float, default=1e-3,
                        help="how far the component's values move (default 1e-3)")
    parser.add_argument("which", nargs="?", default="lp,do", help="lp, do or lp,do")
    args = parser.parse_args()
    params = MancheParams()
    state = MancheState(*(int(x) for x in args.state.split(",")))
    values = {s: float(v) if (v := decided(s)) is not None
              else 0.5 + 0.03 * (s.second - s.first) + 0.01 * s.pool
              for s in all_states(params.chips)}
    moved = dict(values)
    moved[state] += args.delta
    moved[state.swapped()] -= args.delta
    first, again = model_at(params, state, values), model_at(params, state, moved)
    if "lp" in args.which:
        lp, basis = timed("whole-tree LP, cold", lambda: solve_lp_from(first, None))
        print(f"{lp.iterations:6} iterations  value {lp.value:.15f}")
        lp, _ = timed("again, from its basis", lambda: solve_lp_from(again, basis))
        print(f"{lp.iterations:6} iterations  value {lp.value:.15f}")
        lp, _ = timed("again, cold", lambda: solve_lp_from(again, None))
        print(f"{lp.iterations:6} iterations  value {lp.value:.15f}")
    if "do" in args.which:
        oracle = timed("double oracle, cold", lambda: double_oracle(first))
        print(f"{oracle.solution.iterations:6} iterations  value "
              f"{oracle.solution.value:.15f}  {oracle.decisions} decisions")
        warm = timed("again, from tree+basis",
                     lambda: double_oracle(again, start=oracle.kept, basis=oracle.basis))
        print(f"{warm.solution.iterations:6} iterations  value "
              f"{warm.solution.value:.15f}  {warm.decisions} decisions")


if __name__ == "__main__":
    main()
