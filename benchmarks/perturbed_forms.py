"""The perturbed LP of the refined hand in two forms, side by side (docs/refined.md, "Speed").

*Rows* is what `solver.hand.lp.perturbed.solve_perturbed` solves: one tremble row
x[a] >= eta x[parent] per action, hand and decision of either player. *Bounds* is the same
LP after the change of variables x = T z: within one decision and hand,
x[a] = z[a] + eta / (1 - k eta) * sum_b z[b] (k legal actions), so the trembles become the
bounds z >= 0, and the opponent's best-reply rows are taken as T_y^T (F^T q - A^T x) <= 0.
The bounds form has the plain LP's shape, so it can also start from the plain LP's final
basis (solved first, in the bounds form at eta = 0). Measured, not adopted: see the doc.

    python benchmarks/perturbed_forms.py [--eta 1e-4] [--repeats 2] [faces=5 ...]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import highspy
import numpy as np
import scipy.sparse as sp

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.hand.lp import perturbed as perturbed_lp
from solver.hand.lp import sequence_form as sequence_lp
from solver.hand.lp.sequence_form import PlayerSpace, SequenceFormLP
from solver.hand.model import BidouParams, HandModel, build_model


def change_of_variables(model: HandModel, space: PlayerSpace, player: int, eta: float
                        ) -> sp.csr_matrix:
    """T with x = T z: identity, plus eta / (1 - k eta) on each decision-hand block."""
    rows, cols, vals = [np.arange(space.size)], [np.arange(space.size)], [np.ones(space.size)]
    for index, _ in perturbed_lp.decisions(model, space, player):
        legal = index >= 0
        for h in np.nonzero(legal.sum(axis=0) >= 2)[0]:
            v = index[legal[:, h], h]
            r, c = np.meshgrid(v, v, indexing="ij")
            rows.append(r.ravel())
            cols.append(c.ravel())
            vals.append(np.full(r.size, eta / (1 - len(v) * eta)))
    rr, cc, vv = (np.concatenate(a) for a in (rows, cols, vals))
    return sp.csr_matrix((vv, (rr, cc)), shape=(space.size, space.size))


def bounds_form(model: HandModel, eta: float) -> highspy.HighsLp:
    lp = SequenceFormLP(model, CAPTAIN)
    lp.build()
    c, A_ub, A_eq, b_eq, bounds = lp.arrays()
    T_x = change_of_variables(model, lp.primal, CAPTAIN, eta)
    T_y = change_of_variables(model, lp.dual, OPPONENT, eta)
    M = sp.block_diag([T_x, sp.identity(A_ub.shape[1] - lp.nx)]).tocsr()
    return sequence_lp.highs_lp(highspy, M.T @ c, (T_y.T @ A_ub @ M).tocsr(),
                                (A_eq @ M).tocsr(), b_eq, bounds)


def rows_form(model: HandModel, eta: float) -> highspy.HighsLp:
    lp = SequenceFormLP(model, CAPTAIN)
    lp.build()
    c, A_ub, A_eq, b_eq, bounds = lp.arrays()
    c, A_ub, A_eq, bounds = perturbed_lp._with_trembles(model, lp, c, A_ub, A_eq, bounds, eta)
    return sequence_lp.highs_lp(highspy, c, A_ub, A_eq, b_eq, bounds)


def run(lp: highspy.HighsLp, basis=None, presolve: bool = True):
    """(HiGHS, iterations, value) by its dual simplex at the refined LP's tolerance."""
    h = sequence_lp._highs(highspy, "simplex", perturbed_lp.TOLERANCE)
    h.setOptionValue("presolve", "on" if presolve else "off")
    h.passModel(lp)
    if basis is not None:
        h.setBasis(basis)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise SystemExit(f"HiGHS: {h.modelStatusToString(h.getModelStatus())}")
    return h, h.getInfo().simplex_iteration_count, -h.getInfo().objective_function_value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eta", type=float, default=1e-4)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("params", nargs="*", help="BidouParams fields, e.g. faces=5")
    args = parser.parse_args()
    fields: dict[str, Any] = {}
    for item in args.params:
        key, value = item.split("=")
        fields[key] = int(value) if value.isdigit() else value
    model = build_model(BidouParams(**fields))

    def rows():
        return run(rows_form(model, args.eta))[1:]

    def bounds_cold():
        return run(bounds_form(model, args.eta))[1:]

    def bounds_warm():
        plain, plain_iterations, _ = run(bounds_form(model, 0.0))
        _, iterations, value = run(bounds_form(model, args.eta), plain.getBasis())
        return plain_iterations + iterations, value

    timed: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        for name, form in (("rows (today)", rows), ("bounds, cold", bounds_cold),
                           ("bounds, from the plain basis", bounds_warm)):
            cpu, wall = time.process_time(), time.perf_counter()
            iterations, value = form()
            timed.setdefault(name, []).append(time.process_time() - cpu)
            print(f"{name:30s} iterations {iterations:6d}  CPU {timed[name][-1]:6.2f} s  "
                  f"wall {time.perf_counter() - wall:6.2f} s  value {value:.13f}", flush=True)
    base = float(np.median(timed["rows (today)"]))
    for name, seconds in timed.items():
        print(f"median CPU {name:30s} {np.median(seconds):6.2f} s  "
              f"{np.median(seconds) / base:.2f}x of rows")


if __name__ == "__main__":
    main()
