"""The sequence-form LP of the hand with trembles, solved in floats at a small tremble size.

Each player must play every action of every decision with probability at least `eta`
(a behavioural tremble): for the primal player (the captain) that is a row
x[sequence, action] >= eta * x[sequence] per action; for the dual player (the opponent),
whose plan is the LP's dual, the same rows G y >= 0 restrict his polytope, so his best-reply
rows gain a term G^T r with one new variable r >= 0 per tremble row (LP duality of
min { (A^T x)^T y : F y = f, G y >= 0 }). This is the perturbed sequence form of Farina and
Gatti (2017); its solutions converge, as eta -> 0, to a refined equilibrium, read by
`limit` (quasi_perfect.py) and proved exactly there.

The other perturbation (SEQUENCE) is Miltersen and Sørensen's (2010): every sequence's
weight at least eta^|sequence| (times its weight under uniform play, so that the bounds
form a flow), the captain's as lower bounds on x, the opponent's through the objective
(max f^T q + l^T (A^T x - F^T q): his weights above their bounds). Its limit is
quasi-perfect; in floats its deep bounds (eta^5) are below what HiGHS resolves
(docs/refined.md).

The LP is built from sequence_form.py's `SequenceFormLP` (its layout, showdown rows and
totals) without its leaf-row substitution, and its plans are turned into behaviour with that
module's own readers (`PlayerSpace`, `last_sequences`, `throw_behaviour`,
`betting_behaviour`); HiGHS is driven through highs.py.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Iterator

import numpy as np
import scipy.sparse as sp

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.common.errors import SolverError
from solver.hand.lp.highs import linprog, quiet_highs, run, simplex_options
from solver.hand.lp.sequence_form import (
    PlayerSpace,
    SequenceFormLP,
    betting_behaviour,
    highs_lp,
    last_sequences,
    throw_behaviour,
)
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy

# HiGHS's feasibility tolerances for the perturbed LP: a decision reached only through
# trembles weighs eta^k in the objective, so HiGHS's default 1e-7 would not see it.
TOLERANCE = 1e-10
BEHAVIOUR, SEQUENCE = "behaviour", "sequence"     # the two perturbations
# The two ways of solving it. LINPROG: scipy's linprog (the HiGHS scipy bundles, its dual
# simplex with scaling and steepest-edge pricing): every round's stage games, and the
# published keep hand, come from it. FAST: HiGHS's own binding (highspy), its dual simplex
# unscaled and with Dantzig's pricing: on the default hand 1.75-2.4 s against 3.6-4.3 s
# (17 961 iterations against 20 666, each cheaper; docs/refined.md, "Speed"), the same
# exact value, but its limits are not always good (keep's fails its proof at 1e-4, the
# size it is tried at; unscaled with steepest edge, french's fails the check at 2
# decisions), so the hand takes it only checked (quasi_perfect's `fast_first`).
LINPROG, FAST = "linprog", "fast"
SOLVERS = {LINPROG: "scipy's HiGHS", FAST: "HiGHS unscaled, Dantzig pricing"}


@dataclasses.dataclass(frozen=True)
class PerturbedSolution:
    """The perturbed LP's optimum: its value and both players' (trembling) behaviour."""

    eta: float
    kind: str
    lp: str                             # LINPROG or FAST: which solver found it
    value: float
    strategy: Strategy                  # as played in the perturbed game, trembles included
    chosen: Strategy                    # what each decision chooses beyond its trembles
    seconds: float
    iterations: int
    size: tuple[int, int, int]          # variables, constraints, nonzeros


def tremble_rows(model: HandModel, space: PlayerSpace, player: int, eta: float
                 ) -> sp.csr_matrix:
    """G with G v >= 0 saying: every action of every decision of `player` gets at least
    `eta` of the mass reaching it (columns: the player's sequence variables). Rows in the
    order of the decisions, then of the hands, then of the actions; built with numpy per
    decision (the loop over hands and actions was 0.1-0.18 s of the refined command)."""
    pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    count = 0

    def decision(index: np.ndarray, parent: np.ndarray | None) -> None:
        """index: (k, n) variables of one decision's actions; parent: (n,) the sequence
        before it, or None for a throwing decision (its mass is the sum of its actions)."""
        nonlocal count
        legal = index >= 0
        hands, actions = np.nonzero((legal & (legal.sum(axis=0) >= 2)).T)   # hand-major
        rows = count + np.arange(len(hands))
        count += len(hands)
        own = index[actions, hands]
        if parent is not None:              # x[a] - eta x[parent] >= 0
            pieces.append((rows, own, np.ones(len(rows))))
            pieces.append((rows, parent[hands], np.full(len(rows), -eta)))
            return
        for b in range(index.shape[0]):     # x[a] - eta (sum of the decision's x) >= 0
            ok = legal[b, hands]
            pieces.append((rows[ok], index[b, hands[ok]],
                           np.where(actions[ok] == b, 1.0 - eta, -eta)))

    for index, parent in decisions(model, space, player):
        decision(index, parent)
    rows, cols, vals = (np.concatenate([piece[i] for piece in pieces] or [np.zeros(0)])
                        for i in range(3))
    return sp.csr_matrix((vals, (rows.astype(np.int64), cols.astype(np.int64))),
                         shape=(count, space.size))


def decisions(model: HandModel, space: PlayerSpace, player: int
              ) -> Iterator[tuple[np.ndarray, np.ndarray | None]]:
    """Each decision of `player` that trembles, in `tremble_rows`' order: its (k, n) action
    variables, and the (n,) sequence before it, or None for a throw (the last throw only
    stops, so it is not one)."""
    for c in range(space.throw.shape[0]):
        for t in range(space.throw.shape[1] - 1):
            yield space.throw[c, t], None
    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        parents = last_sequences(space, tree, player, tc, to)
        for node in tree.nodes:
            if node.actor == player:
                yield space.betting[(tc, to, node.history)], parents[node.index]


def sequence_bounds(model: HandModel, space: PlayerSpace, player: int, eps: float) -> np.ndarray:
    """Miltersen and Sørensen's lower bound per variable of `player`'s space: eps^|s| times
    the sequence's weight under uniform play (chance included, so the bounds are a
    consistent flow); 0 for the auxiliary totals. |s| counts the player's own choices."""
    bound = np.zeros(space.size)
    T = model.throws
    legal = model.throw_legal
    for c in range(space.throw.shape[0]):
        mass = model.prior.astype(float).copy()
        for t in range(T):
            if t < T - 1:
                share = legal / legal.sum(axis=0)
                depth = t + 1
            else:
                share, depth = np.eye(legal.shape[0])[[0] * legal.shape[1]].T, t
            weight = mass[None, :] * share                  # (A, n)
            index = space.throw[c, t]
            bound[index[index >= 0]] = eps ** depth * weight[index >= 0]
            mass = sum(weight[a] @ model.transition[a] for a in range(1, legal.shape[0]))
    depth_of = np.zeros(space.size, dtype=int)
    for c in range(space.throw.shape[0]):
        for t in range(T):
            index = space.throw[c, t]
            depth_of[index[index >= 0]] = t + 1 if t < T - 1 else t
    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        parents = last_sequences(space, tree, player, tc, to)
        for node in tree.nodes:                         # pre-order: parents first
            if node.actor != player:
                continue
            index, parent = space.betting[(tc, to, node.history)], parents[node.index]
            depth = depth_of[parent] + 1
            depth_of[index] = depth
            base = bound[parent] / eps ** depth_of[parent]      # uniform weight of parent
            bound[index] = eps ** depth * base / len(node.edges)
    return bound


def solve_perturbed(model: HandModel, eta: float, kind: str = BEHAVIOUR,
                    method: str = "highs-ds", tolerance: float = TOLERANCE,
                    lp_solver: str = LINPROG) -> PerturbedSolution:
    """The optimum of the hand's LP perturbed by `kind` at size `eta`: BEHAVIOUR, every
    action of both players trembling at eta; SEQUENCE, every sequence's weight at least
    eta^|sequence| (times its uniform weight). SolverError unless HiGHS reports one.
    `lp_solver`: LINPROG (scipy's linprog by `method`) or FAST (see SOLVERS)."""
    if not 0 < eta < 0.1:
        raise ValueError(f"a tremble must lie in (0, 0.1), got {eta}")
    if kind not in (BEHAVIOUR, SEQUENCE):
        raise ValueError(f"a perturbation is {BEHAVIOUR!r} or {SEQUENCE!r}, not {kind!r}")
    if lp_solver not in SOLVERS:
        raise ValueError(f"an LP solver is {LINPROG!r} or {FAST!r}, not {lp_solver!r}")
    start = time.perf_counter()
    lp = SequenceFormLP(model, CAPTAIN)
    lp.build()
    c, A_ub, A_eq, b_eq, bounds = lp.arrays()
    low_x = np.zeros(lp.nx)
    low_y = np.zeros(lp.dual.size)
    if kind == BEHAVIOUR:
        c, A_ub, A_eq, bounds = _with_trembles(model, lp, c, A_ub, A_eq, bounds, eta)
    else:
        low_x = sequence_bounds(model, lp.primal, CAPTAIN, eta)
        low_y = sequence_bounds(model, lp.dual, OPPONENT, eta)
        bounds[:lp.nx, 0] = low_x
        # max f^T q + low_y^T (A^T x - F^T q): the opponent's weights above their bounds
        c = c + A_ub.T @ low_y
    solve = _linprog if lp_solver == LINPROG else _fast
    primal, marginals, objective, iterations = solve(c, A_ub, A_eq, b_eq, bounds, method,
                                                     tolerance)
    x = primal[:lp.nx]
    y = low_y - marginals[:lp.dual.size]
    strategy = _behaviour(model, lp, x, y)
    if kind == BEHAVIOUR:
        chosen = _without_trembles(model, strategy, eta)
    else:
        chosen = _behaviour(model, lp, np.maximum(x - low_x, 0.0), np.maximum(y - low_y, 0.0))
    size = (A_ub.shape[1], A_ub.shape[0] + A_eq.shape[0], A_ub.nnz + A_eq.nnz)
    return PerturbedSolution(eta=eta, kind=kind, lp=lp_solver, value=-objective,
                             strategy=strategy, chosen=chosen,
                             seconds=time.perf_counter() - start, iterations=iterations,
                             size=size)


# x, the duals of the A_ub rows, the objective, the simplex iterations
Solved = tuple[np.ndarray, np.ndarray, float, int]


def _linprog(c: np.ndarray, A_ub: sp.spmatrix, A_eq: sp.spmatrix, b_eq: np.ndarray,
             bounds: np.ndarray, method: str, tolerance: float) -> Solved:
    """LINPROG: scipy's linprog (half a second to import, which FAST does without)."""
    res = linprog(
        c, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=A_eq, b_eq=b_eq, bounds=bounds,
        method=method, options={"primal_feasibility_tolerance": tolerance,
                                "dual_feasibility_tolerance": tolerance})
    if res.status != 0:
        raise SolverError(f"HiGHS did not reach an optimum of the perturbed LP: {res.message}")
    return res.x, res.ineqlin.marginals, float(res.fun), int(getattr(res, "nit", 0) or 0)


def _fast(c: np.ndarray, A_ub: sp.spmatrix, A_eq: sp.spmatrix, b_eq: np.ndarray,
          bounds: np.ndarray, method: str, tolerance: float) -> Solved:
    """FAST: highspy's dual simplex, unscaled (`simplex_scale_strategy` 0), with Dantzig's
    pricing (`simplex_dual_edge_weight_strategy` 0). `method` is scipy's name for the dual
    simplex; nothing else is taken."""
    import highspy

    if method != "highs-ds":
        raise ValueError(f"the fast LP is HiGHS's dual simplex, not {method!r}")
    h = quiet_highs(highspy, **simplex_options("simplex", tolerance))
    h.setOptionValue("simplex_scale_strategy", 0)
    h.setOptionValue("simplex_dual_edge_weight_strategy", 0)
    h.passModel(highs_lp(highspy, c, A_ub, A_eq, b_eq, bounds))
    run(h, highspy)
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"HiGHS did not reach an optimum of the perturbed LP (fast): "
                          f"{h.modelStatusToString(h.getModelStatus())}")
    solution, info = h.getSolution(), h.getInfo()
    return (np.asarray(solution.col_value), np.asarray(solution.row_dual)[:A_ub.shape[0]],
            float(info.objective_function_value), int(info.simplex_iteration_count))


def _with_trembles(model: HandModel, lp: SequenceFormLP, c: np.ndarray, A_ub: sp.spmatrix,
                   A_eq: sp.spmatrix, bounds: np.ndarray, eta: float):
    """The LP's arrays with both players' tremble rows (see the module's docstring)."""
    G_x = tremble_rows(model, lp.primal, CAPTAIN, eta)
    G_y = tremble_rows(model, lp.dual, OPPONENT, eta)
    nv, nr = A_ub.shape[1], G_y.shape[0]
    # best-reply rows F^T q + G_y^T r - A^T x <= 0, then the captain's trembles -G_x x <= 0
    A_ub = sp.vstack([
        sp.hstack([A_ub, G_y.T]),
        sp.hstack([-G_x, sp.csr_matrix((G_x.shape[0], nv - G_x.shape[1] + nr))]),
    ]).tocsr()
    A_eq = sp.hstack([A_eq, sp.csr_matrix((A_eq.shape[0], nr))]).tocsr()
    c = np.concatenate([c, np.zeros(nr)])
    bounds = np.vstack([bounds, np.tile([0.0, np.inf], (nr, 1))])
    return c, A_ub, A_eq, bounds


def _behaviour(model: HandModel, lp: SequenceFormLP, x: np.ndarray, y: np.ndarray
               ) -> Strategy:
    return Strategy(
        (throw_behaviour(model, lp.primal, x), throw_behaviour(model, lp.dual, y)),
        {**betting_behaviour(lp.primal, x), **betting_behaviour(lp.dual, y)})


def _without_trembles(model: HandModel, strategy: Strategy, eta: float) -> Strategy:
    """What each decision chooses beyond its trembles: (p - eta) / (1 - k eta)."""
    out = strategy.copy()

    def strip(probs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        k = legal.sum(axis=0, keepdims=True)
        return np.where(legal, np.maximum(probs - eta, 0.0) / (1.0 - k * eta), 0.0)

    for role in (CAPTAIN, OPPONENT):
        out.throw[role][...] = strip(strategy.throw[role], model.throw_legal)
    for key, probs in strategy.betting.items():
        out.betting[key] = strip(probs, np.ones(probs.shape, bool))
    return out
