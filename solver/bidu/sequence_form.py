"""The compact vuelta's sequence-form LP (solver/bidu/model.py says why it is linear).

Each player's realization weights, the dice's chance folded in: `r` (still throwing at a
throw, given what he knows of the other), `y`/`z` (stand, or throw again, with a hand) and
one weight per betting edge and hand. The captain maximizes; the other player's constraints
enter by their duals (von Stengel 1996), so one LP gives the value and both strategies (the
other player's plan is the duals of his columns' rows). The captain's showdown weights enter
through their running sums over hands weakest first, C[k] = sum of the weights of hands
0..k, so that the other player's row for hand h reads amount * (C[last] - C[h] - C[h-1])
instead of one term per hand of the captain: 56 times fewer nonzeros at the default dice.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp

from games.bidu import betting
from solver.bidu.model import Pub, VueltaModel
from solver.common.errors import SolverError
from solver.hand.lp.highs import as_highs_lp, quiet_highs, run, simplex_options

__all__ = ["Behaviour", "Layout", "Plan", "StageLP", "StageSolution", "behaviour", "layout",
           "replay_probability"]


@dataclasses.dataclass
class Layout:
    """One player's variables, numbered: `r[(t, pub)]`, `y[(t, pub)]` and `z[(t, pub)]`
    (arrays over hands; no z at the last throw), `bet[stands]` (edges x hands); `rows`,
    the equalities they satisfy, as (coefficients {column: value}, right-hand side)."""

    seat: int
    size: int = 0
    r: dict = dataclasses.field(default_factory=dict)
    y: dict = dataclasses.field(default_factory=dict)
    z: dict = dataclasses.field(default_factory=dict)
    bet: dict = dataclasses.field(default_factory=dict)
    rows: list = dataclasses.field(default_factory=list)

    def take(self, shape: tuple[int, ...] = ()) -> np.ndarray:
        count = int(np.prod(shape)) if shape else 1
        block = np.arange(self.size, self.size + count).reshape(shape)
        self.size += count
        return block

    def stand(self, model: VueltaModel, stands: tuple[int, int]) -> np.ndarray:
        """The weights of standing with each hand at this seat's throw of `stands`."""
        mine, other = stands[self.seat], stands[1 - self.seat]
        return self.y[(mine, model.pub_at_stand(self.seat, mine, other))]


def layout(model: VueltaModel, seat: int) -> Layout:
    """The variables and equalities of `seat`'s realization plan."""
    space = Layout(seat)
    hands, last = model.num_hands, model.throws
    for t in range(1, last + 1):
        for pub in model.pubs(seat, t):
            space.r[(t, pub)] = int(space.take())
            space.y[(t, pub)] = space.take((hands,))
            if t < last:
                space.z[(t, pub)] = space.take((hands,))
    for pub in model.pubs(seat, 1):          # each start still throwing, weight 1
        space.rows.append(({space.r[(1, pub)]: 1.0}, 1.0))
    for t in range(1, last + 1):
        for pub in model.pubs(seat, t):
            for h, chance in enumerate(model.chances):
                row = {int(space.y[(t, pub)][h]): 1.0, space.r[(t, pub)]: -float(chance)}
                if t < last:
                    row[int(space.z[(t, pub)][h])] = 1.0
                space.rows.append((row, 0.0))
            if t > 1:
                before = space.z[(t - 1, model.previous_pub(seat, pub, t))]
                row = {space.r[(t, pub)]: 1.0}
                row.update({int(c): -1.0 for c in before})
                space.rows.append((row, 0.0))
    for stands in model.stand_pairs():
        tree = model.tree(stands)
        block = space.take((len(tree.edges[seat]), hands))
        space.bet[stands] = block
        start = space.stand(model, stands)
        index = tree.edge_index(seat)
        for node, parent in tree.parent_edge[seat].items():
            kids = [index[(node, k)] for k in range(len(tree.children[node]))]
            for h in range(hands):
                row = {int(block[e, h]): 1.0 for e in kids}
                row[int(start[h] if parent < 0 else block[parent, h])] = -1.0
                space.rows.append((row, 0.0))
    return space


def _equalities(space: Layout) -> tuple[sp.csr_matrix, np.ndarray]:
    rows, cols, vals = [], [], []
    for i, (coefficients, _) in enumerate(space.rows):
        for col, value in coefficients.items():
            rows.append(i)
            cols.append(col)
            vals.append(value)
    matrix = sp.csr_matrix((vals, (rows, cols)), shape=(len(space.rows), space.size))
    return matrix, np.array([rhs for _, rhs in space.rows])


@dataclasses.dataclass(frozen=True)
class Plan:
    """A realization plan over `space`'s variables."""

    space: Layout
    weights: np.ndarray


@dataclasses.dataclass(frozen=True)
class StageSolution:
    """The stage game whose replay pays `worth` to the captain: its LP value and the two
    plans (HiGHS reported an optimum: `StageLP.solve` raises otherwise)."""

    worth: Fraction
    value: float
    plans: tuple[Plan, Plan]


# How far the worth may move for a solve to start from the last basis. At the default dice
# the basis optimal at V stays optimal 1e-4 away (the dual simplex ends in 0 iterations,
# 0.3 s); from a worth 0.04 away it needed over 20 000 iterations and 80 s, more than the
# interior point method's 35 s.
WARM_REACH = 1e-3
WARM_ITERATIONS = 20_000     # a warm start that needs more gives way to a cold solve


class StageLP:
    """The LP of the stage games of `model`, whose replay terminals pay a worth to the
    captain, built once: `solve(worth)` sets only the replay terms. A solve near the last
    one's worth starts HiGHS's dual simplex from its basis; any other is HiGHS's interior
    point method then its crossover to a vertex (and its basis)."""

    def __init__(self, model: VueltaModel, captain_stands: dict | None = None,
                 other_stands: dict | None = None):
        """`captain_stands`, `other_stands`: pin that seat's throwing, {(throw, pub):
        booleans over hands, True to stand} (a rule such as the folk advice), his betting
        free. The captain's forbidden sequences get an upper bound of 0; the other player's
        are dropped: each of his sequences is a row (his weight on it is the row's dual),
        and a row that never binds is a sequence he never plays."""
        self.model = model
        self.spaces = me, you = layout(model, 0), layout(model, 1)
        (self.A, self.cost, self.lower, self.row_lower, self.row_upper,
         terms) = _build(model, me, you, 0.0)
        self.upper = np.full(len(self.cost), np.inf)
        for key, stands in (captain_stands or {}).items():
            stands = np.asarray(stands, dtype=bool)
            self.upper[me.z[key][stands]] = 0.0
            self.upper[me.y[key][~stands]] = 0.0
        for key, stands in (other_stands or {}).items():
            stands = np.asarray(stands, dtype=bool)
            self.row_upper[you.z[key][stands]] = np.inf
            self.row_upper[you.y[key][~stands]] = np.inf
        # where the replay terms sit in the matrix's data (A_ub = [-A^T, F1^T]: -worth)
        self.A.sort_indices()
        self.replay_slots = np.array([
            self.A.indptr[col] + np.searchsorted(
                self.A.indices[self.A.indptr[col]:self.A.indptr[col + 1]], row)
            for row, col in terms], dtype=np.int64)
        self.n_ub = you.size
        self.last: tuple[float, Any] | None = None       # (worth, basis) of the last solve

    def solve(self, worth: Fraction) -> StageSolution:
        """The stage game whose replay pays `worth`; SolverError unless HiGHS reports an
        optimum."""
        import highspy

        w = float(worth)
        self.A.data[self.replay_slots] = -w
        lp = as_highs_lp(highspy, self.cost, self.lower, self.upper, self.A, self.row_lower,
                         self.row_upper)
        h = None
        if self.last is not None and abs(w - self.last[0]) <= WARM_REACH:
            h = quiet_highs(highspy, simplex_iteration_limit=WARM_ITERATIONS,
                            **simplex_options("simplex", 1e-9))
            h.passModel(lp)
            h.setBasis(self.last[1])
            run(h, highspy)
            if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                h = None
        if h is None:
            h = quiet_highs(highspy, **simplex_options("ipm", 1e-9))
            h.passModel(lp)
            run(h, highspy)
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise SolverError(f"{self.model.params.describe()}: HiGHS did not solve the "
                              f"vuelta's LP at replay worth {worth}: "
                              f"{h.modelStatusToString(h.getModelStatus())}")
        self.last = (w, h.getBasis())
        solution = h.getSolution()
        x, duals = np.asarray(solution.col_value), np.asarray(solution.row_dual)
        me, you = self.spaces
        captain = Plan(me, np.maximum(x[:me.size], 0.0))
        other = Plan(you, np.maximum(-duals[:self.n_ub], 0.0))
        return StageSolution(worth=Fraction(worth),
                             value=-float(h.getInfo().objective_function_value),
                             plans=(captain, other))


def _build(model: VueltaModel, me: Layout, you: Layout, worth: float):
    """The LP as arrays: the other player's columns' rows first (<= 0), then the captain's
    equalities and his running sums; and the replay terms' (row, column) positions, where
    `StageLP.solve` changes the worth."""
    hands = model.num_hands
    E0, rhs0 = _equalities(me)
    F1, _ = _equalities(you)
    # the captain's running sums: one block of `hands` per (stands, captain edge)
    sums: dict[tuple[int, int], np.ndarray] = {}
    n_sum = 0
    for stands in model.stand_pairs():
        edges = len(model.tree(stands).edges[0])
        sums[stands] = me.size + n_sum + np.arange(edges * hands).reshape(edges, hands)
        n_sum += edges * hands
    n_x = me.size + n_sum
    n_u = F1.shape[0]
    # running sums: C[k] - C[k-1] - x[k] = 0
    s_rows, s_cols, s_vals = [], [], []
    row = 0
    for stands, block in sums.items():
        plan = me.bet[stands]
        for e in range(block.shape[0]):
            for k in range(hands):
                s_rows += [row, row]
                s_cols += [int(block[e, k]), int(plan[e, k])]
                s_vals += [1.0, -1.0]
                if k:
                    s_rows.append(row)
                    s_cols.append(int(block[e, k - 1]))
                    s_vals.append(-1.0)
                row += 1
    S = sp.csr_matrix((s_vals, (s_rows, s_cols)), shape=(row, n_x))
    # A^T x: the other player's columns that end a betting, in the captain's running sums
    a_rows, a_cols, a_vals = [], [], []
    replay_terms = []
    for stands in model.stand_pairs():
        tree = model.tree(stands)
        block, theirs = sums[stands], you.bet[stands]
        for node in tree.terminals():
            e0, e1 = tree.last_edges[node]
            total = int(block[e0, hands - 1])
            kind, amount = tree.kind[node], float(tree.amount[node])
            for h in range(hands):
                col = int(theirs[e1, h])
                if kind == betting.REPLAY:
                    replay_terms.append((col, total))
                    continue
                if kind != betting.SHOWDOWN:
                    a_rows.append(col)
                    a_cols.append(total)
                    a_vals.append(amount)
                    continue
                a_rows += [col, col]
                a_cols += [total, int(block[e0, h])]
                a_vals += [amount, -amount]
                if h:
                    a_rows.append(col)
                    a_cols.append(int(block[e0, h - 1]))
                    a_vals.append(-amount)
    AT = sp.csr_matrix((a_vals, (a_rows, a_cols)), shape=(you.size, n_x))
    # the replay terms as explicit entries (a zero worth is still an entry to set later)
    replay = sp.csr_matrix((np.full(len(replay_terms), np.nan),
                            ([c for c, _ in replay_terms], [t for _, t in replay_terms])),
                           shape=(you.size, n_x))
    A_ub = sp.hstack([-(AT + replay), F1.T.tocsr()]).tocsr()
    A_eq = sp.vstack([sp.hstack([E0, sp.csr_matrix((E0.shape[0], n_x - me.size + n_u))]),
                      sp.hstack([S, sp.csr_matrix((S.shape[0], n_u))])]).tocsr()
    b_eq = np.concatenate([rhs0, np.zeros(S.shape[0])])
    cost = np.zeros(n_x + n_u)
    # the value: the other player's rows r(1, pub) = 1, his starts (the first rows)
    cost[n_x:n_x + len(model.pubs(1, 1))] = -1.0
    lower = np.concatenate([np.zeros(n_x), np.full(n_u, -np.inf)])
    A = sp.vstack([A_ub, A_eq]).tocsc()
    row_lower = np.concatenate([np.full(A_ub.shape[0], -np.inf), b_eq])
    row_upper = np.concatenate([np.zeros(A_ub.shape[0]), b_eq])
    A.data[np.isnan(A.data)] = -worth
    return A, cost, lower, row_lower, row_upper, replay_terms


def behaviour(model: VueltaModel, plan: Plan) -> "Behaviour":
    """The plan as probabilities at every decision (an unreached decision: the first
    action, stand or pass; `solver.bidu.proof` proves whatever is played there)."""
    space, x = plan.space, plan.weights
    stand: dict[tuple[int, Pub], np.ndarray] = {}
    for key, z in space.z.items():
        ys, zs = x[space.y[key]], x[z]
        total = ys + zs
        stand[key] = np.where(total > 0, ys / np.where(total > 0, total, 1.0), 1.0)
    bets: dict[tuple[int, int], dict[int, np.ndarray]] = {}
    for stands, block in space.bet.items():
        tree = model.tree(stands)
        index = tree.edge_index(space.seat)
        nodes = {}
        for node in tree.parent_edge[space.seat]:
            kids = [index[(node, k)] for k in range(len(tree.children[node]))]
            mass = x[block[kids]]                       # actions x hands
            total = mass.sum(axis=0)
            first = np.zeros_like(mass)
            first[0] = 1.0
            nodes[node] = np.where(total > 0, mass / np.where(total > 0, total, 1.0), first)
        bets[stands] = nodes
    return Behaviour(seat=space.seat, stand=stand, bets=bets)


@dataclasses.dataclass(frozen=True)
class Behaviour:
    """A seat's strategy: `stand[(t, pub)][h]` the probability of standing with hand h at
    throw t (t below the last), `bets[stands][node]` an (actions x hands) array of the
    probabilities of each action at that node."""

    seat: int
    stand: dict
    bets: dict


def replay_probability(model: VueltaModel, plans: tuple[Plan, Plan]) -> float:
    """The chance that nobody bets, under the two plans."""
    total = 0.0
    for stands in model.stand_pairs():
        tree = model.tree(stands)
        for node in tree.terminals():
            if tree.kind[node] != betting.REPLAY:
                continue
            e0, e1 = tree.last_edges[node]
            total += (plans[0].weights[plans[0].space.bet[stands][e0]].sum()
                      * plans[1].weights[plans[1].space.bet[stands][e1]].sum())
    return float(total)
