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

import numpy as np
import scipy.optimize
import scipy.sparse as sp

from solver.errors import SolverError
from solver.model import CAPTAIN, OPPONENT, HandModel
from solver.strategy import Strategy


@dataclasses.dataclass
class _Space:
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


def _sequence_space(model: HandModel, player: int) -> _Space:
    T, (A, n) = model.throws, model.throw_legal.shape
    contexts = 1 if player == CAPTAIN else T
    space = _Space(0, np.full((contexts, T, A, n), -1), {}, [], [], [], [])

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
        for node in tree.nodes:
            if node.actor != player:
                continue
            index = allocate(np.ones((len(node.actions), n), bool))
            space.betting[(tc, to, node.history)] = index
            parent = _parent_sequence(space, tree, tc, to, node.history, player, stop)
            add_rows(index, [(parent, np.eye(n))], np.zeros(n))
    return space


def _stop(space: _Space, player: int, tc: int, to: int) -> np.ndarray:
    """Indices (per hand) of `player` stopping his turn with his throw count in (tc, to)."""
    if player == CAPTAIN:
        return space.throw[0, tc - 1, 0]
    return space.throw[tc - 1, to - 1, 0]


def _parent_sequence(space: _Space, tree, tc: int, to: int, history: str, player: int,
                     stop: np.ndarray) -> np.ndarray:
    """Indices (per hand) of `player`'s last sequence before `history` in the betting."""
    for cut in range(len(history) - 1, -1, -1):
        node = tree.node(history[:cut])
        if node.actor == player:
            letter = history[cut]
            action = [a[0] for a in node.actions].index(letter)
            return space.betting[(tc, to, node.history)][action]
    return stop


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
    other totals (see `_substitute_leaf_rows`, `total_of`), 0.31 s on the default game and
    0.77 s under reroll=keep, against 1.6 s for the interior point method there (2 cores;
    dual simplex also beat HiGHS's parallel simplex variants, the primal simplex, and
    bounded variables)."""
    return "highs-ds"


def solve_lp(model: HandModel, method: str | None = None,
             maximizer: int = CAPTAIN) -> LPSolution:
    """Solve the hand exactly; raise SolverError unless HiGHS reports an optimum.

    `maximizer` is the player whose plan is the LP's primal (the other's comes from the
    duals); both give the same value; the captain as primal is about twice as fast.
    """
    start = time.perf_counter()
    method = method or default_method(model)
    minimizer = 1 - maximizer
    spaces = {CAPTAIN: _sequence_space(model, CAPTAIN),
              OPPONENT: _sequence_space(model, OPPONENT)}
    cap, opp = spaces[maximizer], spaces[minimizer]     # primal player, dual player
    E, F = cap.matrix(), opp.matrix()
    sign = 1.0 if maximizer == CAPTAIN else -1.0         # payoffs to the primal player
    nx, nq = cap.size, F.shape[0]
    n = model.num_hands
    order = np.argsort(model.strength)          # hands from weakest to strongest
    payoffs = model.payoffs

    aux: dict[tuple, np.ndarray] = {}
    totals: dict[tuple, int] = {}
    eq_r, eq_c, eq_v = [], [], []
    eq_rhs: dict[int, float] = {}
    stops = {tuple(cap.throw[c_, t, 0][:2]): (c_, t)
             for c_ in range(cap.throw.shape[0]) for t in range(cap.throw.shape[1])}
    family: dict[tuple, tuple[np.ndarray, tuple[np.ndarray, ...]]] = {}
    for tc, to in model.public_states:      # each betting sequence: parent and siblings
        tree = model.tree((tc, to))
        for node in tree.nodes:
            if node.actor == maximizer:
                index = cap.betting[(tc, to, node.history)]
                parent = _parent_sequence(cap, tree, tc, to, node.history, maximizer,
                                          _stop(cap, maximizer, tc, to))
                for i in range(len(node.actions)):
                    family[tuple(index[i][:2])] = (parent, tuple(
                        index[j] for j in range(len(node.actions)) if j != i))
    n_aux = 0
    n_eq = 0
    ub_r, ub_c, ub_v = [], [], []               # -(A^T x) part, rows = opponent sequences

    def new_total(key: tuple, cols: list, vals: list, rhs: float = 0.0) -> int:
        """A total variable T with the row T + sum(vals * cols) = rhs."""
        nonlocal n_aux, n_eq
        totals[key] = nx + nq + n_aux
        n_aux += 1
        eq_r.append(np.full(len(cols) + 1, n_eq))
        eq_c.append(np.concatenate([[totals[key]], np.asarray(cols, int)]))
        eq_v.append(np.concatenate([[1.0], np.asarray(vals, float)]))
        eq_rhs[n_eq] = rhs
        n_eq += 1
        return totals[key]

    def known_total(seq: np.ndarray) -> int | None:
        key = tuple(seq[:2])
        if key in aux:
            return int(aux[key][-1])
        return totals.get(key)

    def sparse_total(seq: np.ndarray) -> int | None:
        """The total of a sequence from other totals, without a sum over every hand.

        Flows are conserved per hand, so T(sequence) = T(parent) - sum of T(siblings), and
        stopping at throw t takes the mass rethrown into t (1 at the first throw) less the
        mass rethrown from it. Rows over every hand are dense; these have a few entries.
        """
        key = tuple(seq[:2])
        found = known_total(seq)
        if found is not None:
            return found
        if key in stops:
            c_, t = stops[key]
            cols, vals = [], []
            if (c_, t + 1) in cap.rethrown:
                cols.extend(cap.rethrown[(c_, t + 1)][0])
                vals.extend([1.0] * len(cap.rethrown[(c_, t + 1)][0]))
            if t == 0:
                return new_total(key, cols, vals, float(model.prior.sum()))
            into, actions = cap.rethrown[(c_, t)]
            cols.extend(into)
            vals.extend(-model.outcome[actions].sum(axis=1))
            return new_total(key, cols, vals)
        if key in family:
            parent, siblings = family[key]
            sibling_totals = [known_total(other) for other in siblings]
            if any(other is None for other in sibling_totals):
                return None
            parent_total = sparse_total(parent)
            if parent_total is None:
                return None
            return new_total(key, [parent_total] + sibling_totals,
                             [-1.0] + [1.0] * len(siblings))
        return None

    def total_of(seq: np.ndarray) -> int:
        """One variable holding the primal player's total mass on a sequence (all hands)."""
        found = sparse_total(seq)
        if found is not None:
            return found
        return new_total(tuple(seq[:2]), seq, -np.ones(n))

    def cumulative(seq: np.ndarray) -> np.ndarray:
        """Variables W[1..n], W[s] = captain mass over hands of strength < s (W[0] = 0)."""
        nonlocal n_aux, n_eq
        key = tuple(seq[:2])
        if key not in aux:
            w = nx + nq + n_aux + np.arange(n)
            n_aux += n
            rows = n_eq + np.arange(n)
            n_eq += n
            # W[s+1] - W[s] - x[hand of strength s] = 0
            eq_r.extend([rows, rows[1:], rows])
            eq_c.extend([w, w[:-1], seq[order]])
            eq_v.extend([np.ones(n), -np.ones(n - 1), -np.ones(n)])
            aux[key] = w
        return aux[key]

    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        cstop = _stop(cap, maximizer, tc, to)
        ostop = _stop(opp, minimizer, tc, to)
        # showdowns first, so that a fold after the same sequence reuses the chain's total
        for leaf in sorted(tree.leaves, key=lambda leaf: leaf.kind != "showdown"):
            xs = _parent_sequence(cap, tree, tc, to, leaf.history, maximizer, cstop)
            ys = _parent_sequence(opp, tree, tc, to, leaf.history, minimizer, ostop)
            s = model.strength                          # per opponent hand
            if leaf.kind == "showdown":
                w = cumulative(xs)
                total = w[n - 1]
                k = leaf.level
                win, lose, tie = (float(payoffs.showdown_win[k]),
                                  float(payoffs.showdown_lose[k]),
                                  float(payoffs.showdown_tie[k]))
                if maximizer == OPPONENT:           # his stronger hand is the captain's loss
                    win, lose = lose, win
                win, lose, tie = sign * win, sign * lose, sign * tie
                # primal mass below the dual player's hand loses, above wins:
                # u(h_o) = (lose - tie) W[s] + (tie - win) W[s+1] + win W[n]
                below = s > 0
                ub_r.extend([ys[below], ys, ys])
                ub_c.extend([w[s[below] - 1], w[s], np.full(n, total)])
                ub_v.extend([-np.full(below.sum(), lose - tie), -np.full(n, tie - win),
                             -np.full(n, win)])
                for winner, loser in model.exceptions:
                    # base order says the other way round: correct both entries
                    ub_r.extend([ys[[loser]], ys[[winner]]])
                    ub_c.extend([xs[[winner]], xs[[loser]]])
                    ub_v.extend([[-(win - lose)], [-(lose - win)]])
            else:
                if leaf.kind == "fold":
                    u = (payoffs.captain_folds if leaf.folder == CAPTAIN
                         else payoffs.opponent_folds)[leaf.level]
                else:
                    u = payoffs.both_pass
                if u != 0:
                    total = total_of(xs)
                    ub_r.append(ys)
                    ub_c.append(np.full(n, total))
                    ub_v.append(-np.full(n, sign * float(u)))

    nv = nx + nq + n_aux
    FT = F.T.tocoo()
    A_ub = sp.csr_matrix(
        (np.concatenate([FT.data] + [np.asarray(v, float) for v in ub_v]),
         (np.concatenate([FT.row] + [np.asarray(r) for r in ub_r]),
          np.concatenate([FT.col + nx] + [np.asarray(c) for c in ub_c]))),
        shape=(opp.size, nv))
    Eo = E.tocoo()
    A_eq = sp.csr_matrix(
        (np.concatenate([Eo.data] + [np.asarray(v, float) for v in eq_v]),
         (np.concatenate([Eo.row] + [E.shape[0] + np.asarray(r) for r in eq_r]),
          np.concatenate([Eo.col] + [np.asarray(c) for c in eq_c]))),
        shape=(E.shape[0] + n_eq, nv))
    extra = np.zeros(n_eq)
    extra[list(eq_rhs)] = list(eq_rhs.values())
    b_eq = np.concatenate([cap.rhs, extra])
    c = np.zeros(nv)
    c[nx:nx + nq] = -np.asarray(opp.rhs)
    bounds = np.zeros((nv, 2))
    bounds[:, 1] = np.inf
    bounds[nx:nx + nq, 0] = -np.inf
    size = (nv, A_ub.shape[0] + A_eq.shape[0], A_ub.nnz + A_eq.nnz)
    A_ub, c, bounds, kept, dropped, slack = _substitute_leaf_rows(A_ub, c, bounds)
    res = scipy.optimize.linprog(c, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=A_eq,
                                 b_eq=b_eq, bounds=bounds, method=method)
    if res.status != 0:
        raise SolverError(f"HiGHS did not reach an optimum: {res.message}")
    dual = np.empty(opp.size)
    dual[kept] = -res.ineqlin.marginals
    dual[dropped] = res.lower.marginals[slack]
    plans = {maximizer: res.x[:nx], minimizer: dual}
    strategy = Strategy(
        (_behaviour_throw(model, spaces[CAPTAIN], plans[CAPTAIN]),
         _behaviour_throw(model, spaces[OPPONENT], plans[OPPONENT])),
        {**_behaviour_betting(spaces[CAPTAIN], plans[CAPTAIN]),
         **_behaviour_betting(spaces[OPPONENT], plans[OPPONENT])})
    seconds = time.perf_counter() - start
    x, y = plans[CAPTAIN], plans[OPPONENT]
    return LPSolution(
        value=sign * float(-res.fun), status=int(res.status),
        message=f"scipy linprog {method}: {res.message}",
        seconds=seconds, iterations=int(getattr(res, "nit", 0) or 0), strategy=strategy,
        reach=(x, y), size=size)


def _substitute_leaf_rows(A_ub: sp.csr_matrix, c: np.ndarray, bounds: np.ndarray):
    """Turn best-reply rows `q_j + a t <= 0` into bounds, an exact change of variables.

    Such a row belongs to a dual player's action that ends the betting at once (a fold or
    a pass: one free q_j with coefficient 1, and at most one other, bounded, variable t, a
    captain total). Writing q_j = -a t - s_j with a new s_j >= 0 in q_j's column drops the
    row; its dual (the dual player's mass on that sequence) is s_j's reduced cost. One row
    per q_j; this removes about a third of the best-reply rows and, measured, cuts HiGHS's
    dual simplex iterations by a sixth (0.94 s -> 0.78 s on the default game, before the
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


def _behaviour_throw(model: HandModel, space: _Space, plan: np.ndarray) -> np.ndarray:
    decisions = space.throw[:, :-1]                        # (C, T-1, A, n)
    legal = decisions >= 0
    mass = np.where(legal, plan[np.maximum(decisions, 0)], 0.0)
    return _normalize(mass, legal)


def _behaviour_betting(space: _Space, plan: np.ndarray) -> dict:
    return {key: _normalize(plan[index], np.ones(index.shape, bool))
            for key, index in space.betting.items()}
