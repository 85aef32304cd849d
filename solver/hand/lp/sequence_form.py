"""The sequence-form LP of the compact model, solved with scipy's HiGHS.

The captain's realization plan x is an occupancy flow: throwing decisions conserve the
probability mass (with chance folded in) flowing between (throw, hand) states, and every
betting decision conserves the mass of its parent sequence. The LP maximizes the value
that the opponent's best reply concedes (its dual, one variable per opponent decision),
and HiGHS's duals of those best-reply rows are the opponent's realization plan.

Showdowns compare ranked hands, so the payoff of an opponent hand is a difference of
cumulative sums of the captain's mass over weaker and stronger hands: one auxiliary
cumulative-sum variable per hand instead of a dense hand-by-hand block. The french
exception (aces over bidou) is a sparse correction.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from games.bidou.betting import CAPTAIN, OPPONENT, BettingTree
from solver.common.errors import SolverError
from solver.hand.lp.highs import as_highs_lp, linprog, quiet_highs, run, simplex_options
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy


@dataclasses.dataclass
class PlayerSpace:
    """One player's sequences: variable indices and the constraints E x = e."""

    size: int
    throw: np.ndarray                       # (C, T, A, n) variable index or -1
    betting: dict[tuple[int, int, str], np.ndarray]   # own nodes: (k, n) indices
    rows: list[np.ndarray]                  # COO pieces of E: row, col, value
    cols: list[np.ndarray]
    vals: list[np.ndarray]
    rhs: list[float]
    # (context, t): variables holding the mass rethrown at throw t-1, by action, and their
    # actions, so that totals of stopping can be written without summing over hands
    rethrown: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = dataclasses.field(
        default_factory=dict)

    def matrix(self) -> sp.csr_matrix:
        return sp.csr_matrix((np.concatenate(self.vals), (np.concatenate(self.rows),
                              np.concatenate(self.cols))), shape=(len(self.rhs), self.size))


def _sequence_space(model: HandModel, player: int) -> PlayerSpace:
    T, (A, n) = model.throws, model.throw_legal.shape
    contexts = 1 if player == CAPTAIN else T
    space = PlayerSpace(0, np.full((contexts, T, A, n), -1), {}, [], [], [], [])

    def allocate(mask: np.ndarray) -> np.ndarray:
        index = np.full(mask.shape, -1)
        index[mask] = np.arange(space.size, space.size + mask.sum())
        space.size += int(mask.sum())
        return index

    def add_rows(children: np.ndarray, parents: list[tuple[np.ndarray, np.ndarray]],
                 rhs: np.ndarray) -> None:
        """Rows h: sum of children[:, h] - sum of (coef * parent) = rhs[h]."""
        first = len(space.rhs)
        rows = np.arange(children.shape[1])
        for k in range(children.shape[0]):
            ok = children[k] >= 0
            space.rows.append(first + rows[ok])
            space.cols.append(children[k][ok])
            space.vals.append(np.ones(ok.sum()))
        for cols, coef in parents:          # coef: (len(cols), n) mass sent to each row
            r, c = np.nonzero(coef)
            space.rows.append(first + c)
            space.cols.append(cols[r])
            space.vals.append(-coef[r, c])
        space.rhs.extend(rhs.tolist())

    last_mask = np.zeros((A, n), bool)
    last_mask[0] = True
    for c in range(contexts):
        for t in range(T):
            mask = model.throw_legal if t < T - 1 else last_mask
            space.throw[c, t] = allocate(mask)
            if t == 0:
                add_rows(space.throw[c, t], [], model.prior)
                continue
            # The next hand depends on the dice kept, not on the hand they came from:
            # total[a] = mass taking action a at throw t, then the new hands are
            # total[a] * outcome[a]. This keeps the flow rows sparse.
            prev = space.throw[c, t - 1]
            actions = np.nonzero((prev[1:] >= 0).any(axis=1))[0] + 1
            total = allocate(np.ones((len(actions), 1), bool))
            space.rethrown[(c, t)] = (total[:, 0], actions)
            for i, a in enumerate(actions):
                legal = prev[a][prev[a] >= 0]
                add_rows(total[i:i + 1], [(legal, np.ones((len(legal), 1)))], np.zeros(1))
            add_rows(space.throw[c, t], [(total[:, 0], model.outcome[actions])], np.zeros(n))

    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        stop = _stop(space, player, tc, to)
        last = tree.parent_sequence(player)
        for node in tree.nodes:                 # pre-order: a parent's sequences first
            if node.actor != player:
                continue
            index = allocate(np.ones((len(node.edges), n), bool))
            space.betting[(tc, to, node.history)] = index
            before = last[node.index]
            parent = (stop if before is None else
                      space.betting[(tc, to, tree.nodes[before[0]].history)][before[1]])
            # the mass of a node's actions adds up to the mass of the sequence before it
            add_rows(index, [(parent, np.eye(n))], np.zeros(n))
    return space


def _stop(space: PlayerSpace, player: int, tc: int, to: int) -> np.ndarray:
    """Indices (per hand) of `player` stopping his turn with his throw count in (tc, to)."""
    if player == CAPTAIN:
        return space.throw[0, tc - 1, 0]
    return space.throw[tc - 1, to - 1, 0]


def last_sequences(space: PlayerSpace, tree: BettingTree, player: int, tc: int, to: int
             ) -> list[np.ndarray]:
    """Indices (per hand) of `player`'s last sequence before each node, then each leaf, of
    the tree: his last betting action, or the end of his throwing turn."""
    stop = _stop(space, player, tc, to)
    return [stop if last is None
            else space.betting[(tc, to, tree.nodes[last[0]].history)][last[1]]
            for last in tree.parent_sequence(player)]


@dataclasses.dataclass(frozen=True)
class LPSolution:
    value: float
    status: int
    message: str
    seconds: float
    iterations: int
    strategy: Strategy
    reach: tuple[np.ndarray, np.ndarray]      # realization plans x and y
    size: tuple[int, int, int]                # variables, constraints, nonzeros


def default_method(model: HandModel) -> str:
    """HiGHS's dual simplex: with fold rows turned into bounds and totals written from
    other totals, it beat HiGHS's interior point method, its parallel simplex variants and
    the primal simplex on every published game (benchmarks/bench_lp.py)."""
    return "highs-ds"


class _Rows:
    """Sparse constraint rows assembled piece by piece (COO), with their right-hand sides."""

    def __init__(self) -> None:
        self.r: list[np.ndarray] = []
        self.c: list[np.ndarray] = []
        self.v: list[np.ndarray] = []
        self.rhs: list[float] = []

    def add(self, rows, cols, vals) -> None:
        """Entries (row, col, value); rows must exist (see `new`)."""
        self.r.append(np.asarray(rows, dtype=np.int64).ravel())
        self.c.append(np.asarray(cols, dtype=np.int64).ravel())
        self.v.append(np.broadcast_to(np.asarray(vals, dtype=float),
                                      np.shape(cols)).ravel())

    def new(self, count: int, rhs: float = 0.0) -> np.ndarray:
        """`count` new rows with right-hand side `rhs`; their indices."""
        first = len(self.rhs)
        self.rhs.extend([rhs] * count)
        return np.arange(first, first + count)

    def matrix(self, shape: tuple[int, int]) -> sp.csr_matrix:
        if not self.r:
            return sp.csr_matrix(shape)
        return sp.csr_matrix((np.concatenate(self.v), (np.concatenate(self.r),
                                                       np.concatenate(self.c))), shape=shape)


class SequenceFormLP:
    """The sequence-form LP of Koller, Megiddo and von Stengel (1996) for the compact model:

        maximize    f^T q
        subject to  E x = e,  x >= 0          (the primal player's realization plan)
                    F^T q <= A^T x            (no sequence of the dual player does better)

    x is the primal player's plan (occupancy flows of his throwing turn, then his betting
    sequences), q has one free variable per row of the dual player's F y = f, and A holds
    the payoffs. Its optimum is the game value; the dual values of F^T q <= A^T x are the
    dual player's plan y. A^T x is never built as a dense block: a showdown pays by
    comparing hands, so one best-reply row reads cumulative sums W of the primal mass over
    hands weaker than the dual player's (`cumulative`), and a fold or pass only the primal
    player's total mass on a sequence (`total`), itself written from other totals.
    """

    def __init__(self, model: HandModel, maximizer: int):
        self.model, self.maximizer, self.minimizer = model, maximizer, 1 - maximizer
        self.primal = _sequence_space(model, maximizer)
        self.dual = _sequence_space(model, self.minimizer)
        self.nx, self.nq = self.primal.size, len(self.dual.rhs)
        self.n_aux = 0                          # auxiliary variables (totals, sums W)
        self.eq = _Rows()                       # E x = e, then the auxiliary definitions
        self.ub = _Rows()                       # -(A^T x) entries of the best-reply rows
        E = self.primal.matrix().tocoo()
        self.eq.rhs = list(self.primal.rhs)
        self.eq.add(E.row, E.col, E.data)
        self._cumulative: dict[tuple, np.ndarray] = {}
        self._totals: dict[tuple, int] = {}
        self._stops = {tuple(self.primal.throw[c, t, 0][:2]): (c, t)
                       for c in range(self.primal.throw.shape[0])
                       for t in range(self.primal.throw.shape[1])}
        self._family = self._families()

    # --- auxiliary variables ---------------------------------------------------------------

    def _new_variables(self, count: int) -> np.ndarray:
        first = self.nx + self.nq + self.n_aux
        self.n_aux += count
        return np.arange(first, first + count)

    def _define_total(self, key: tuple, cols, vals, rhs: float = 0.0) -> int:
        """A new variable T with the row T + sum(vals * cols) = rhs."""
        total = int(self._new_variables(1)[0])
        self._totals[key] = total
        row = self.eq.new(1, rhs)
        self.eq.add(np.full(len(cols) + 1, row[0]), np.concatenate([[total], cols]),
                    np.concatenate([[1.0], vals]))
        return total

    def cumulative(self, seq: np.ndarray) -> np.ndarray:
        """W[s] = primal mass on `seq` over hands of strength <= s: W[s] - W[s-1] = x of the
        hand of strength s."""
        key = tuple(seq[:2])
        if key not in self._cumulative:
            n = self.model.num_hands
            w = self._new_variables(n)
            rows = self.eq.new(n)
            order = np.argsort(self.model.strength)          # weakest to strongest
            self.eq.add(rows, w, 1.0)
            self.eq.add(rows[1:], w[:-1], -1.0)
            self.eq.add(rows, seq[order], -1.0)
            self._cumulative[key] = w
        return self._cumulative[key]

    def _known_total(self, seq: np.ndarray) -> int | None:
        key = tuple(seq[:2])
        if key in self._cumulative:
            return int(self._cumulative[key][-1])
        return self._totals.get(key)

    def _families(self) -> dict[tuple, tuple[np.ndarray, tuple[np.ndarray, ...]]]:
        """Each primal betting sequence: its parent sequence and its siblings."""
        family = {}
        for tc, to in self.model.public_states:
            tree = self.model.tree((tc, to))
            parents = last_sequences(self.primal, tree, self.maximizer, tc, to)
            for node in tree.nodes:
                if node.actor != self.maximizer:
                    continue
                index = self.primal.betting[(tc, to, node.history)]
                for i in range(len(node.edges)):
                    siblings = tuple(index[j] for j in range(len(node.edges)) if j != i)
                    family[tuple(index[i][:2])] = (parents[node.index], siblings)
        return family

    def _sparse_total(self, seq: np.ndarray) -> int | None:
        """The total of a sequence from other totals, without a sum over every hand.

        Flows are conserved per hand, so T(sequence) = T(parent) - sum of T(siblings), and
        stopping at throw t takes the mass rethrown into t (1 at the first throw) less the
        mass rethrown from it. Rows over every hand are dense; these have a few entries.
        """
        found = self._known_total(seq)
        if found is not None:
            return found
        key, space = tuple(seq[:2]), self.primal
        if key in self._stops:
            c, t = self._stops[key]
            cols: list = []
            vals: list = []
            if (c, t + 1) in space.rethrown:
                cols.extend(space.rethrown[(c, t + 1)][0])
                vals.extend([1.0] * len(space.rethrown[(c, t + 1)][0]))
            if t == 0:
                return self._define_total(key, np.array(cols, dtype=np.int64),
                                          np.array(vals), float(self.model.prior.sum()))
            into, actions = space.rethrown[(c, t)]
            cols.extend(into)
            vals.extend(-self.model.outcome[actions].sum(axis=1))
            return self._define_total(key, np.array(cols, dtype=np.int64), np.array(vals))
        if key in self._family:
            parent, siblings = self._family[key]
            sibling_totals = [self._known_total(other) for other in siblings]
            if any(other is None for other in sibling_totals):
                return None
            parent_total = self._sparse_total(parent)
            if parent_total is None:
                return None
            return self._define_total(key, np.array([parent_total] + sibling_totals),
                                      np.array([-1.0] + [1.0] * len(siblings)))
        return None

    def total(self, seq: np.ndarray) -> int:
        """One variable holding the primal player's total mass on a sequence (all hands)."""
        found = self._sparse_total(seq)
        if found is not None:
            return found
        n = self.model.num_hands
        return self._define_total(tuple(seq[:2]), seq, -np.ones(n))

    # --- best-reply rows: F^T q - A^T x <= 0 ------------------------------------------------

    def showdown(self, xs: np.ndarray, ys: np.ndarray, payoff: tuple) -> None:
        """A leaf comparing hands, paying the captain (win, tie, lose) by his outcome."""
        model, n = self.model, self.model.num_hands
        win, tie, lose = (float(v) for v in payoff)
        if self.maximizer == OPPONENT:          # his stronger hand is the captain's loss
            win, lose = lose, win
        sign = 1.0 if self.maximizer == CAPTAIN else -1.0
        win, lose, tie = sign * win, sign * lose, sign * tie
        w = self.cumulative(xs)
        s = model.strength                       # per dual-player hand
        # primal mass below the dual player's hand (strength s) loses, above wins:
        # u(h) = lose W[s-1] + tie (W[s] - W[s-1]) + win (W[n-1] - W[s])
        below = s > 0
        self.ub.add(ys[below], w[s[below] - 1], -(lose - tie))
        self.ub.add(ys, w[s], -(tie - win))
        self.ub.add(ys, np.full(n, w[n - 1]), -win)
        for winner, loser in model.exceptions:
            # the order says the other way round: correct both entries
            self.ub.add(ys[[loser]], xs[[winner]], -(win - lose))
            self.ub.add(ys[[winner]], xs[[loser]], -(lose - win))

    def constant(self, xs: np.ndarray, ys: np.ndarray, payoff) -> None:
        """A leaf paying the captain `payoff` whatever the hands (a fold, two passes)."""
        if payoff != 0:
            sign = 1.0 if self.maximizer == CAPTAIN else -1.0
            self.ub.add(ys, np.full(len(ys), self.total(xs)), -sign * float(payoff))

    def build(self) -> None:
        for tc, to in self.model.public_states:
            tree = self.model.tree((tc, to))
            xs = last_sequences(self.primal, tree, self.maximizer, tc, to)[len(tree.nodes):]
            ys = last_sequences(self.dual, tree, self.minimizer, tc, to)[len(tree.nodes):]
            # showdowns first, so that a fold after the same sequence reuses the chain's total
            for leaf in sorted(tree.leaves, key=lambda leaf: not tree.compares_hands(leaf)):
                payoff = tree.payoffs[leaf.index]
                if tree.compares_hands(leaf):
                    self.showdown(xs[leaf.index], ys[leaf.index], payoff)
                else:
                    self.constant(xs[leaf.index], ys[leaf.index], payoff[0])

    def arrays(self):
        """c, A_ub, A_eq, b_eq, bounds of scipy's linprog (minimizing -f^T q)."""
        nv = self.nx + self.nq + self.n_aux
        FT = self.dual.matrix().T.tocoo()
        self.ub.add(FT.row, FT.col + self.nx, FT.data)
        A_ub = self.ub.matrix((self.dual.size, nv))
        A_eq = self.eq.matrix((len(self.eq.rhs), nv))
        c = np.zeros(nv)
        c[self.nx:self.nx + self.nq] = -np.asarray(self.dual.rhs)
        bounds = np.zeros((nv, 2))
        bounds[:, 1] = np.inf
        bounds[self.nx:self.nx + self.nq, 0] = -np.inf
        return c, A_ub, A_eq, np.asarray(self.eq.rhs), bounds


def sequence_form(model: HandModel, maximizer: int) -> tuple[SequenceFormLP, tuple]:
    """The LP as built (before `_substitute_leaf_rows`), with the index of every sequence of
    the primal player (`.primal`), and its arrays (c, A_ub, A_eq, b_eq, bounds: minimize
    c x, A_ub x <= 0): for programs that constrain the primal plan further, such as the
    cheat sheet's MILP (solver/cheatsheet/milp.py). `parent_sequences(lp, public)`
    gives the primal player's last sequence before each node and leaf of a tree."""
    lp = SequenceFormLP(model, maximizer)
    lp.build()
    return lp, lp.arrays()


def parent_sequences(lp: SequenceFormLP, public: tuple[int, int]) -> list[np.ndarray]:
    """Per node then leaf of the tree of `public`: the primal player's variable indices
    (per hand) of his last sequence before it."""
    tc, to = public
    return last_sequences(lp.primal, lp.model.tree(public), lp.maximizer, tc, to)


def solve_lp(model: HandModel, method: str | None = None,
             maximizer: int = CAPTAIN, fixed_throw: np.ndarray | None = None,
             fixed_behaviour: Mapping[tuple, Sequence[float]] | None = None) -> LPSolution:
    """Solve the hand exactly; raise SolverError unless HiGHS reports an optimum.

    `maximizer` is the player whose plan is the LP's primal (the other's comes from the
    duals); both give the same value; the captain as primal is about twice as fast.
    `fixed_throw` pins the maximizer's throwing to a pure strategy ((T-1, A, n) for the
    captain, (T, T-1, A, n) by the captain's count for the opponent; 1 where the action is
    taken): the value is then what he guarantees throwing so and betting as well as he can.
    `fixed_behaviour` pins any of the maximizer's decisions, mixed or pure, keyed as
    `certificate.decisions` ("throw", role, context, throw, hand) or ("bet", (tc, to,
    history), hand), to the given probabilities (`_pin_behaviour`): the value of the game
    where he plays so there and as well as he can elsewhere (`bidou exploit --at`).
    """
    start = time.perf_counter()
    method = method or default_method(model)
    built = BuiltLP(model, maximizer, fixed_throw, fixed_behaviour)
    res = linprog(built.c, A_ub=built.A_ub, b_ub=np.zeros(built.A_ub.shape[0]),
                  A_eq=built.A_eq, b_eq=built.b_eq, bounds=built.bounds, method=method)
    if res.status != 0:
        raise SolverError(f"HiGHS did not reach an optimum: {res.message}")
    return built.solution(res.x, -res.ineqlin.marginals, res.lower.marginals, -res.fun,
                          f"scipy linprog {method}: {res.message}",
                          int(getattr(res, "nit", 0) or 0), time.perf_counter() - start)


@dataclasses.dataclass(frozen=True)
class Basis:
    """HiGHS's final simplex basis (column and row statuses), to start another LP of the
    same shape from: a stage game re-solved with nearby continuation values."""

    cols: np.ndarray                # int8, HighsBasisStatus per column
    rows: np.ndarray                # int8, per row

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.cols), len(self.rows)


# A warm start needs the final basis, which scipy's linprog does not return; highspy is
# HiGHS's own binding. Tighter than HiGHS's 1e-7: the round's fixed point is solved to
# 1e-13, and a basis that is optimal to 1e-7 moves stage values by ~1e-8.
WARM_TOLERANCE = 1e-10
DEFAULT_TOLERANCE = 1e-7


def solve_lp_from(model: HandModel, start: Basis | None, maximizer: int = CAPTAIN,
                  built: BuiltLP | None = None, cold: str = "simplex"
                  ) -> tuple[LPSolution, Basis]:
    """`solve_lp` by HiGHS's dual simplex starting from `start` (a basis of an LP of the
    same shape, else ignored), with its final basis. A start that does not lead to an
    optimum is dropped for a cold solve; raise SolverError unless that reaches one.
    `built`: the LP of `model` for `maximizer` already built (solver/hand/lp/warm.py names its
    rows and columns first), not built again. `cold="ipm"`: without a start, HiGHS's
    interior point method then its crossover to a vertex (and its basis) first, the dual
    simplex only if that fails (the double oracle's first LP: 0.5 s against 1.2 s)."""
    import highspy

    begin = time.perf_counter()
    built = built or BuiltLP(model, maximizer)
    lp = highs_lp(highspy, built.c, built.A_ub, built.A_eq, built.b_eq, built.bounds)
    shape = (lp.num_col_, lp.num_row_)
    # from `start`; else cold; else cold with HiGHS's own tolerances (the tight ones can
    # stall HiGHS on a degenerate stage; the round's certificate judges the result anyway)
    warm = start is not None and start.shape == shape
    attempts = ([(start, WARM_TOLERANCE, "simplex")] if warm else
                [(None, WARM_TOLERANCE, "ipm")] if cold == "ipm" else []) + [
        (None, WARM_TOLERANCE, "simplex"), (None, DEFAULT_TOLERANCE, "simplex")]
    for basis, tolerance, method in attempts:
        h = quiet_highs(highspy, **simplex_options(method, tolerance))
        h.passModel(lp)
        if basis is not None:
            h.setBasis(_to_highs(highspy, basis))
        run(h, highspy)
        if h.getModelStatus() == highspy.HighsModelStatus.kOptimal and h.getBasis().valid:
            break
    else:
        raise SolverError(f"HiGHS did not reach an optimum: "
                          f"{h.modelStatusToString(h.getModelStatus())}")
    solution, final, info = h.getSolution(), h.getBasis(), h.getInfo()
    cols = np.array(list(map(int, final.col_status)), dtype=np.int8)
    rows = np.array(list(map(int, final.row_status)), dtype=np.int8)
    at_lower = cols == int(highspy.HighsBasisStatus.kLower)
    row_dual = np.asarray(solution.row_dual)[:built.A_ub.shape[0]]
    lower = np.where(at_lower, np.asarray(solution.col_dual), 0.0)
    found = built.solution(np.asarray(solution.col_value), -row_dual, lower,
                           -info.objective_function_value,
                           f"highspy {_NAMES[method]}: {h.modelStatusToString(h.getModelStatus())}",
                           int(info.simplex_iteration_count), time.perf_counter() - begin)
    return found, Basis(cols, rows)


_NAMES = {"simplex": "dual simplex", "ipm": "interior point and crossover"}


def highs_lp(highspy, c: np.ndarray, A_ub: sp.spmatrix, A_eq: sp.spmatrix, b_eq: np.ndarray,
             bounds: np.ndarray):
    """scipy linprog's arrays (A_ub x <= 0, A_eq x = b_eq, bounds per column) as a
    highspy.HighsLp."""
    return as_highs_lp(highspy, c, bounds[:, 0], bounds[:, 1], sp.vstack([A_ub, A_eq]),
                       np.concatenate([np.full(A_ub.shape[0], -np.inf), b_eq]),
                       np.concatenate([np.zeros(A_ub.shape[0]), b_eq]))


def _pin_throw(space: PlayerSpace, model: HandModel, player: int, rule: np.ndarray,
               bounds: np.ndarray) -> None:
    """Bound to 0 the throwing sequences a pure rule does not take (the flows then follow
    the rule exactly)."""
    T, (A, n) = model.throws, model.throw_legal.shape
    rule = np.asarray(rule, dtype=float)
    expected = (T - 1, A, n) if player == CAPTAIN else (T, T - 1, A, n)
    if rule.shape != expected:
        raise ValueError(f"a fixed throwing strategy has shape {expected}, not {rule.shape}")
    if not np.all((rule == 0) | (rule == 1)):
        raise ValueError("a fixed throwing strategy must be pure (probabilities 0 or 1)")
    rule = rule.reshape((-1, T - 1, A, n))
    index = space.throw[:, :T - 1]                        # (contexts, T-1, A, n)
    banned = (index >= 0) & (rule == 0)
    bounds[index[banned], 1] = 0.0


def _pin_behaviour(space: PlayerSpace, player: int, pins: Mapping[tuple, Sequence[float]],
                   columns: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """Rows x[a] - p_a * (x[a_1] + ... + x[a_k]) = 0 over the sequences of each pinned
    decision of `player` (the primal), one per legal action but the last (the sum makes
    it implied): behaviour p wherever the decision is reached, the flows unchanged."""
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    count = 0
    for where, probs in pins.items():
        mine = where[1] == player if where[0] == "throw" else where[1] in space.betting
        if not mine:
            raise ValueError(f"{where} is not a decision of the LP's primal player")
        sequences = (space.throw[where[2], where[3], :, where[4]] if where[0] == "throw"
                     else space.betting[where[1]][:, where[2]])
        legal = np.flatnonzero(sequences >= 0)
        for a in legal[:-1]:
            for b in legal:
                rows.append(count)
                cols.append(int(sequences[b]))
                vals.append((1.0 if a == b else 0.0) - float(probs[a]))
            count += 1
    return sp.csr_matrix((vals, (rows, cols)), shape=(count, columns)), np.zeros(count)


def _to_highs(highspy, basis: Basis):
    # by table: building an enum member per entry costs 2 s a million (Le Bidou's warm
    # LPs carry 100 000 statuses each)
    members = {int(m): m for m in highspy.HighsBasisStatus.__members__.values()}
    table = [members[i] for i in range(max(members) + 1)]
    out = highspy.HighsBasis()
    out.col_status = [table[i] for i in basis.cols.tolist()]
    out.row_status = [table[i] for i in basis.rows.tolist()]
    out.valid = True
    return out


class BuiltLP:
    """The LP of `model` in scipy's form (fold and pass rows turned into bounds), and how
    to read both plans back from a solution."""

    def __init__(self, model: HandModel, maximizer: int, fixed_throw: np.ndarray | None = None,
                 fixed_behaviour: Mapping[tuple, Sequence[float]] | None = None):
        self.model, self.maximizer = model, maximizer
        self.lp = SequenceFormLP(model, maximizer)
        self.lp.build()
        c, A_ub, A_eq, self.b_eq, bounds = self.lp.arrays()
        if fixed_throw is not None:
            _pin_throw(self.lp.primal, model, maximizer, fixed_throw, bounds)
        if fixed_behaviour:
            pins, zeros = _pin_behaviour(self.lp.primal, maximizer, fixed_behaviour,
                                         A_eq.shape[1])
            A_eq = sp.vstack([A_eq, pins]).tocsr()
            self.b_eq = np.concatenate([self.b_eq, zeros])
        self.size = (len(c), A_ub.shape[0] + A_eq.shape[0], A_ub.nnz + A_eq.nnz)
        (self.A_ub, self.c, self.bounds, self.kept, self.dropped,
         self.slack) = _substitute_leaf_rows(A_ub, c, bounds)
        self.A_eq = A_eq

    def solution(self, x: np.ndarray, row_duals: np.ndarray, lower_duals: np.ndarray,
                 value: float, message: str, iterations: int, seconds: float) -> LPSolution:
        """`row_duals`: minus scipy's marginals of the kept best-reply rows; `lower_duals`:
        the marginals of the variables' lower bounds."""
        lp, model = self.lp, self.model
        dual = np.empty(lp.dual.size)
        dual[self.kept] = row_duals
        dual[self.dropped] = lower_duals[self.slack]
        plans = {self.maximizer: x[:lp.nx], lp.minimizer: dual}
        spaces = {self.maximizer: lp.primal, lp.minimizer: lp.dual}
        strategy = Strategy(
            (throw_behaviour(model, spaces[CAPTAIN], plans[CAPTAIN]),
             throw_behaviour(model, spaces[OPPONENT], plans[OPPONENT])),
            {**betting_behaviour(spaces[CAPTAIN], plans[CAPTAIN]),
             **betting_behaviour(spaces[OPPONENT], plans[OPPONENT])})
        sign = 1.0 if self.maximizer == CAPTAIN else -1.0
        return LPSolution(value=sign * float(value), status=0, message=message,
                          seconds=seconds, iterations=iterations, strategy=strategy,
                          reach=(plans[CAPTAIN], plans[OPPONENT]), size=self.size)


def _substitute_leaf_rows(A_ub: sp.csr_matrix, c: np.ndarray, bounds: np.ndarray):
    """Turn best-reply rows `q_j + a t <= 0` into bounds, an exact change of variables.

    Such a row belongs to a dual player's action that ends the betting at once (a fold or
    a pass: one free q_j with coefficient 1, and at most one other, bounded, variable t, a
    captain total). Writing q_j = -a t - s_j with a new s_j >= 0 in q_j's column drops the
    row; its dual (the dual player's mass on that sequence) is s_j's reduced cost. One row
    per q_j; this removes about a third of the best-reply rows and, measured, cuts HiGHS's
    dual simplex iterations by a sixth on the default game (benchmarks/bench_lp.py; before the
    sparse totals). Substituting rows with other q's, or call rows, measured slower.

    Returns the new A_ub, c, bounds, and the kept rows, dropped rows and their s columns.
    """
    A_ub = A_ub.tocsr()
    A_ub.sort_indices()
    nv = A_ub.shape[1]
    free = np.isinf(bounds[:, 0])
    counts = np.diff(A_ub.indptr)
    row_of = np.repeat(np.arange(A_ub.shape[0]), counts)
    is_q = free[A_ub.indices]
    q_per_row = np.bincount(row_of, weights=is_q, minlength=A_ub.shape[0])
    unit_q = np.bincount(row_of, weights=is_q & (A_ub.data == 1.0), minlength=A_ub.shape[0])
    ok = (counts <= 2) & (q_per_row == 1) & (unit_q == 1)
    entry_ok = ok[row_of]
    q_entries = np.nonzero(entry_ok & is_q)[0]
    cols_q = A_ub.indices[q_entries]
    _, first = np.unique(cols_q, return_index=True)      # one row per q
    dropped = row_of[q_entries[first]]
    slack = cols_q[first]
    chosen = np.zeros(A_ub.shape[0], bool)
    chosen[dropped] = True
    other = np.nonzero(chosen[row_of] & ~is_q)[0]          # the t entries, at most one a row
    slot = np.full(A_ub.shape[0], -1)
    slot[dropped] = slack
    # old variables = M @ new: q_j = -a t - s_j
    diag = np.ones(nv)
    diag[slack] = -1.0
    M = sp.csc_matrix((np.concatenate([diag, -A_ub.data[other]]),
                       (np.concatenate([np.arange(nv), slot[row_of[other]]]),
                        np.concatenate([np.arange(nv), A_ub.indices[other]]))), shape=(nv, nv))
    kept = np.nonzero(~chosen)[0]
    bounds = bounds.copy()
    bounds[slack, 0] = 0.0
    return (A_ub[kept] @ M).tocsr(), M.T @ c, bounds, kept, dropped, slack


def _normalize(mass: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Behaviour from realization weights (actions on axis -2); uniform where unreached."""
    mass = np.where(legal, np.maximum(mass, 0.0), 0.0)
    total = mass.sum(axis=-2, keepdims=True)
    uniform = legal / np.maximum(legal.sum(axis=-2, keepdims=True), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 1e-300, mass / np.where(total > 0, total, 1), uniform)


def throw_behaviour(model: HandModel, space: PlayerSpace, plan: np.ndarray) -> np.ndarray:
    decisions = space.throw[:, :-1]                        # (C, T-1, A, n)
    legal = decisions >= 0
    mass = np.where(legal, plan[np.maximum(decisions, 0)], 0.0)
    return _normalize(mass, legal)


def betting_behaviour(space: PlayerSpace, plan: np.ndarray) -> dict:
    return {key: _normalize(plan[index], np.ones(index.shape, bool))
            for key, index in space.betting.items()}
