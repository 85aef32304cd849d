"""The CFR family (CFR, CFR+, DCFR, predictive CFR+) on the compact hand model, vectorized.

    solve_cfr(model, "cfr+", target_exploitability=1e-6) -> solver.result.Solution

The game is the one of `solver.model`: each player's throwing turn is a small decision
process over (throw, hand) (the opponent has one per captain throw count), and the betting
is one tree per public state (captain's throws, opponent's throws) with a row per hand.

Methods (`RULES`; all alternate updates between the players, the captain first):
  cfr    regret matching, uniform averaging;
  cfr+   regret matching+, linear averaging (`averaging="quadratic"` is faster to 1e-4);
  dcfr   discounted CFR, alpha 1.5, beta 0, gamma 2 (Brown and Sandholm 2019);
  pcfr+  predictive regret matching+ with the last instantaneous regret as prediction
         (Farina, Kroer and Sandholm 2021), averaged with weights t^5 (PCFR_GAMMA, the
         averaging of PDCFR+): fewer iterations than quadratic averaging (Farina et al.'s
         choice, `averaging="quadratic"`) or linear at every target on the default game
         (benchmarks/bench_cfr.py).
A player's average is taken over the strategies he updated *to* (the ones the other player
then faced); `average_played=True` averages the ones he played, as OpenSpiel does, and then
the iterates are exactly OpenSpiel's CFR+ on the faithful game (tests/test_cfr.py).

Why CFR is still right on merged (throw, hand) states
------------------------------------------------------
In the faithful game a player's information set in his throwing turn is his whole private
history; here every history that ends in the same (throw, hand) is one state. Discarded
dice never matter, so every history merged into a state sees exactly the same
counterfactual action values; perfect-recall CFR would give all of them regrets that differ
only by a constant positive factor (the chance probability of the history), and every
regret minimizer used here (regret matching, RM+, the DCFR discounts, predictive RM+) is
invariant under a constant positive scaling of one state's regrets. So running CFR on the
merged states reproduces perfect-recall CFR's strategies exactly, and its convergence
guarantee with it. Accordingly a throwing state's regret is the plain difference of
action values (the constant chance weight is dropped); the opponent's action values already
carry the captain's reach of the public state. The *average* strategy is formed, as always,
from realization weights: the occupancy of a throwing state (chance and own play
included) and the own reach of a betting node.

Vectorization
-------------
Nothing loops over hands. Hands are sorted by strength inside the solver. The betting
trees of all public states are flattened into one array of nodes (actions padded to K
slots, depth-sorted so each depth is a slice) processed layer by layer, so an iteration is
about 180 numpy calls on arrays of at most (K, nodes, hands) = (3, 90, 56), whatever the
number of hands; everything else is precomputed once per model (`_build_layout`).
Showdown values against a reach vector come from the ranking structure (strength order
plus the sparse `model.exceptions`), in one of two equivalent forms: `showdown="cumsum"`
(cumulative sums in strength order, O(n) per leaf) or `showdown="dense"` (one BLAS product
per bet level with the (n, n) payoff matrix built from that structure). At n = 56 the dense
product is the faster (28 against 42 microseconds per pass, 5% of an iteration: numpy's
cumsum is not vectorized), so it is the default; the tests check both agree.

Engines
-------
That numpy iteration costs about 420 microseconds on the default game, nearly all of it the
overhead of its numpy calls. `solve_cfr` therefore runs, when it was built at install, the
C kernel of `solver.cfr_kernel`: the same arithmetic as loops over the same arrays, whole
batches of iterations per call, about 60 microseconds an iteration. The numpy engine stays
as the reference the kernel is tested against, and as the fallback where no C compiler was
available (`engine="numpy"`). `Solution.message` says which engine ran.

Checks and stopping are decided by the exact best response of `solver.best_response`, never
by CFR's own bookkeeping (see `solve_cfr`).
"""

from __future__ import annotations

import bisect
import dataclasses
import time
from collections.abc import Callable

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver import best_response
from solver.model import HandModel
from solver.result import Solution
from solver.strategy import Strategy

METHODS = ("cfr", "cfr+", "dcfr", "pcfr+")
ENGINES = ("compiled", "numpy")
DEFAULT_TARGET = 1e-6
DEFAULT_MAX_ITERATIONS = 100_000

# DCFR parameters (Brown and Sandholm 2019, the values they recommend).
DCFR_ALPHA, DCFR_BETA, DCFR_GAMMA = 1.5, 0.0, 2.0
# PCFR+ averages iterate t with weight t^5, the averaging of PDCFR+ (Xu et al. 2024); on the
# default game it needs 11 300 iterations to 1e-6 against 15 100 with quadratic weights
# (t^3: 13 100, t^4: 11 800, t^8: 10 400, t^12: 10 100, t^20: 10 900).
PCFR_GAMMA = 5.0


@dataclasses.dataclass(frozen=True)
class Rule:
    """How cumulative regrets become a strategy, and how iterates are averaged.

    After the instantaneous regret r of iteration t: R <- R + r, clipped at 0 if `plus`;
    then positive entries are multiplied by t^alpha/(t^alpha+1) and negative ones by
    t^beta/(t^beta+1) (no discount when None). The next strategy is proportional to the
    positive part of R (+ r if `predictive`: the last regret predicts the next). Iterate t
    enters the average with weight t^gamma.
    """

    plus: bool
    alpha: float | None
    beta: float | None
    predictive: bool
    gamma: float


RULES = {
    "cfr": Rule(plus=False, alpha=None, beta=None, predictive=False, gamma=0.0),
    "cfr+": Rule(plus=True, alpha=None, beta=None, predictive=False, gamma=1.0),
    "dcfr": Rule(plus=False, alpha=DCFR_ALPHA, beta=DCFR_BETA, predictive=False,
                 gamma=DCFR_GAMMA),
    "pcfr+": Rule(plus=True, alpha=None, beta=None, predictive=True, gamma=PCFR_GAMMA),
}
AVERAGING = {"uniform": 0.0, "linear": 1.0, "quadratic": 2.0}


@dataclasses.dataclass(frozen=True)
class _Layout:
    """Index arrays of the model, computed once: everything an iteration needs.

    Internally hands are sorted from weakest to strongest (`perm[u]` is the model's index
    of internal hand u), so "weaker hands" is a prefix and showdowns are cumulative sums.
    Betting nodes of all public states are sorted by depth, then public state, so each
    depth is a contiguous slice and node p < P is the root of public state p. Action axes
    lead (betting arrays (K, D, n), throw arrays (T-1, A, C, n)) so that sums over actions
    add contiguous blocks.
    """

    n: int
    T: int
    perm: np.ndarray               # internal hand -> model hand
    inv: np.ndarray                # model hand -> internal hand
    prior: np.ndarray              # (n,)
    legal: np.ndarray              # (A, 1, n) float 0/1
    illegal: np.ndarray            # (A, 1, n) 0 or -inf
    outcome: np.ndarray            # (A-1, n) next-hand distribution of each throw action
    outcome_t: np.ndarray          # (n, A-1) its transpose, contiguous
    pub_index: np.ndarray          # (T, T) public state of (tc, to)
    pub_tc: np.ndarray             # (P,) captain's throws - 1
    pub_to: np.ndarray             # (P,) opponent's throws - 1
    captain_sum: np.ndarray        # (T, P): sums the captain's values over `to`
    K: int
    node_key: tuple                # (tc, to, history) per node
    node_actor: np.ndarray         # (D,)
    node_k: np.ndarray             # (D,) number of actions
    valid: np.ndarray              # (K, D, 1) float 0/1
    invalid: np.ndarray            # (K, D, 1) 0 or -inf
    layers: tuple                  # (start, stop, child rows (K, m), parent edges (m,))
    leaf_edge: np.ndarray          # (L,) slot * D + parent
    n_showdown: int                # leaves [0, n_showdown) are showdowns, by level
    showdown: str                  # "dense" or "cumsum"
    dense_groups: dict             # role -> ((start, stop, matrix (n, n), row scale), ...)
    sd_coef: dict                  # role -> (on cumsum, on total, on own hand), (Lsd, 1)
    other_value: np.ndarray        # (L - n_showdown, 1) captain's payoff at folds, passes
    exceptions: tuple              # internal (winner, loser) pairs overriding strength
    exc_coef: np.ndarray           # (Lsd,) win - lose
    own: tuple                     # per player: his nodes

    @property
    def num_nodes(self) -> int:
        return len(self.node_key)

    @property
    def num_leaves(self) -> int:
        return len(self.leaf_edge)


def _build_layout(model: HandModel, showdown: str = "dense") -> _Layout:
    if showdown not in ("dense", "cumsum"):
        raise ValueError(f"showdown must be dense or cumsum, got {showdown!r}")
    n, T = model.num_hands, model.throws
    if sorted(model.strength.tolist()) != list(range(n)):
        raise ValueError("model strengths must be the positions 0..n-1")
    perm = np.argsort(model.strength, kind="stable")
    inv = np.empty(n, dtype=np.int64)
    inv[perm] = np.arange(n)
    # The next hand depends only on the dice kept: transition[a, h] = outcome[a] when legal.
    for a in range(1, model.throw_legal.shape[0]):
        rows = model.transition[a][model.throw_legal[a]]
        if not np.allclose(rows, model.outcome[a][None, :], rtol=0, atol=1e-15):
            raise ValueError("model transition is not a function of the action alone")
    legal = model.throw_legal[:, None, perm].astype(float)
    pubs = model.public_states
    P = len(pubs)
    pub_index = np.zeros((T, T), dtype=np.int64)
    captain_sum = np.zeros((T, P))
    for p, (tc, to) in enumerate(pubs):
        pub_index[tc - 1, to - 1] = p
        captain_sum[tc - 1, p] = 1.0

    raw = []                       # (depth, pub, position, node)
    for p, pub in enumerate(pubs):
        tree = model.tree(pub)
        depths, _ = tree.push(0, lambda node, a, d: d + 1)
        for node in tree.nodes:
            raw.append((depths[node.index], p, node.index, node))
    raw.sort(key=lambda r: r[:3])
    index = {(p, i): d for d, (_, p, i, _) in enumerate(raw)}
    D = len(raw)
    K = max(len(r[3].edges) for r in raw)
    keys = tuple((pubs[p][0], pubs[p][1], node.history) for _, p, _, node in raw)
    actors = np.array([node.actor for *_, node in raw])
    depth = np.array([r[0] for r in raw])
    valid = np.zeros((K, D, 1))
    parent_edge = np.full(D, -1)
    node_children = np.full((K, D), -1)
    found = []                                   # (edge, tree, leaf)
    for d, (_, p, _, node) in enumerate(raw):
        tree = model.tree(pubs[p])
        valid[:len(node.edges), d] = 1.0
        for a, edge in enumerate(node.edges):
            if edge.leaf is not None:
                found.append((a * D + d, tree, tree.leaves[edge.leaf]))
            else:
                c = index[(p, edge.node)]
                parent_edge[c] = a * D + d
                node_children[a, d] = c
    # leaves that compare hands (showdowns) first, by level; then folds and passes
    found.sort(key=lambda x: (not x[1].compares_hands(x[2]), x[2].level, x[0]))
    showdowns = [tree.payoffs[leaf.index] for _, tree, leaf in found
                 if tree.compares_hands(leaf)]
    others = [tree.payoffs[leaf.index][0] for _, tree, leaf in found
              if not tree.compares_hands(leaf)]
    L = len(found)
    # rows of the value array V: leaves [0, L), nodes [L, L + D), a zero row L + D
    child_row = np.full((K, D), L + D)
    has_node = node_children >= 0
    child_row[has_node] = L + node_children[has_node]
    for row, (edge, _, _) in enumerate(found):
        child_row[edge // D, edge % D] = row
    layers = []
    for level in range(depth.max() + 1):
        where = np.nonzero(depth == level)[0]
        s, e = int(where[0]), int(where[-1]) + 1
        layers.append((s, e, np.ascontiguousarray(child_row[:, s:e]), parent_edge[s:e].copy()))
    assert all(index[(p, 0)] == p for p in range(P))

    # each showdown leaf's payoff to the captain: (wins, ties, loses)
    win = np.array([float(w) for w, _, _ in showdowns]).reshape(-1, 1)
    tie = np.array([float(t) for _, t, _ in showdowns]).reshape(-1, 1)
    lose = np.array([float(lo) for _, _, lo in showdowns]).reshape(-1, 1)

    # cumsum form. With hands weakest first, r the other's reach, cum = cumsum(r), and
    # below = cum - r:
    #   captain's hand i:  win*below + lose*(total - below - r_i) + tie*r_i
    #                    = (win - lose)*cum + lose*total + (tie - win)*r_i
    #   opponent's hand j: -(lose*below + win*(total - below - r_j) + tie*r_j)
    #                    = (win - lose)*cum - win*total + (lose - tie)*r_j
    sd_coef = {CAPTAIN: (win - lose, lose, tie - win),
               OPPONENT: (win - lose, -win, lose - tie)}
    # dense form: one (n, n) payoff matrix for all showdowns with a row scale when their
    # payoffs are proportional (the hand game's: +-2k), else one per run of equal payoffs
    compare = model.compare[np.ix_(perm, perm)]

    def payoff_matrix(payoff: np.ndarray) -> np.ndarray:      # U[i, j], captain's hand i
        w, ti, lo = payoff
        return np.where(compare > 0, w, np.where(compare < 0, lo, ti))

    dense_groups: dict = {CAPTAIN: [], OPPONENT: []}
    vectors = np.hstack([win, tie, lose])                      # (Lsd, 3)
    if len(vectors):
        base = vectors[0]
        scale = vectors @ base / (base @ base) if base @ base > 0 else np.zeros(len(vectors))
        if base @ base > 0 and np.allclose(vectors, scale[:, None] * base, rtol=0,
                                           atol=1e-15):
            u = payoff_matrix(base)
            dense_groups[CAPTAIN].append((0, len(vectors), np.ascontiguousarray(u.T),
                                          scale[:, None]))
            dense_groups[OPPONENT].append((0, len(vectors), -u, scale[:, None]))
        else:
            start = 0
            for stop in range(1, len(vectors) + 1):
                if stop == len(vectors) or not np.array_equal(vectors[stop], vectors[start]):
                    u = payoff_matrix(vectors[start])
                    dense_groups[CAPTAIN].append((start, stop, np.ascontiguousarray(u.T), None))
                    dense_groups[OPPONENT].append((start, stop, -u, None))
                    start = stop
    return _Layout(
        n=n, T=T, perm=perm, inv=inv, prior=model.prior[perm].copy(), legal=legal,
        illegal=np.where(legal > 0, 0.0, -np.inf),
        outcome=model.outcome[1:][:, perm].copy(),
        outcome_t=np.ascontiguousarray(model.outcome[1:][:, perm].T), pub_index=pub_index,
        pub_tc=np.array([tc - 1 for tc, _ in pubs]), pub_to=np.array([to - 1 for _, to in pubs]),
        captain_sum=captain_sum, K=K, node_key=keys, node_actor=actors,
        node_k=np.array([len(node.actions) for *_, node in raw]), valid=valid,
        invalid=np.where(valid > 0, 0.0, -np.inf), layers=tuple(layers),
        leaf_edge=np.array([edge for edge, _, _ in found]), n_showdown=len(showdowns),
        showdown=showdown, dense_groups=dense_groups, sd_coef=sd_coef,
        other_value=np.array([float(v) for v in others]).reshape(-1, 1),
        exceptions=tuple((int(inv[w]), int(inv[l])) for w, l in model.exceptions),
        exc_coef=(win - lose)[:, 0], own=(np.nonzero(actors == CAPTAIN)[0],
                                          np.nonzero(actors == OPPONENT)[0]))


def _normalized(weights: np.ndarray, uniform: np.ndarray, axis: int) -> np.ndarray:
    """weights / their sum over `axis` (a new array); `uniform` where they are all zero."""
    total = np.add.reduce(weights, axis=axis, keepdims=True)
    if total.size and np.minimum.reduce(total, axis=None) > 0.0:    # usual: no fallback
        np.reciprocal(total, out=total)
        return weights * total
    empty = total <= 0.0
    np.maximum(total, 1e-300, out=total)        # empty columns: 0 / 1e-300 = 0, then fixed
    out = weights / total
    np.copyto(out, uniform, where=empty)
    return out


class _Player:
    """One player's regrets, current and average strategies, and reach under the current one.

    Throw arrays are (T-1, A, C, n): throw, action, context (the captain's throw count for
    the opponent; one for the captain), hand. Betting arrays are (K, nodes, n).
    """

    def __init__(self, lay: _Layout, role: int):
        self.role = role
        T, A, n = lay.T, lay.legal.shape[0], lay.n
        C = 1 if role == CAPTAIN else T
        D, K = lay.num_nodes, lay.K
        self.own = own = lay.own[role]
        self.own_rows = lay.num_leaves + own                # rows of V of his nodes
        all_children = np.concatenate([rows for _, _, rows, _ in lay.layers], axis=1)
        children = all_children[:, own]
        # an invalid action slot points at its own node's row: its regret is then exactly 0
        self.own_children = np.ascontiguousarray(
            np.where(lay.valid[:, own, 0] > 0, children, self.own_rows[None, :]))  # (K, Dp)
        # where each public state's betting starts: the end of his turn at the right throw
        context = np.zeros_like(lay.pub_tc) if role == CAPTAIN else lay.pub_tc
        throw = lay.pub_tc if role == CAPTAIN else lay.pub_to
        self.start_rows = throw * C + context              # rows of ends.reshape(T*C, n)
        legal = lay.legal[None]                               # (1, A, 1, n)
        self.throw_legal = legal
        # contiguous (not broadcast views): the C kernel reads them through pointers
        self.throw_uniform = np.ascontiguousarray(np.broadcast_to(
            legal / legal.sum(axis=1, keepdims=True), (T - 1, A, C, n)))
        valid = lay.valid[:, own]
        self.bet_valid = valid
        self.bet_uniform = np.ascontiguousarray(
            np.broadcast_to(valid / valid.sum(axis=0), (K, len(own), n)))
        self.throw_regret = np.zeros((T - 1, A, C, n))
        self.bet_regret = np.zeros((K, len(own), n))
        self.throw_sigma = self.throw_uniform.copy()
        self.bet_sigma = self.bet_uniform.copy()
        self.throw_avg = np.zeros_like(self.throw_regret)
        self.seq_avg = np.zeros((K, D, n))          # columns of his own nodes are used
        # Edge factors of the betting walk: his nodes carry his probabilities, the other
        # player's nodes pass his reach through (1 on valid slots).
        self.factor = np.repeat(lay.valid, n, axis=2)
        self.factor[:, own] = self.bet_sigma
        self.flows = np.zeros((T - 1, A, C, n))     # occupancy of (throw, action, hand)
        self.ends = np.zeros((T, C, n))             # probability of stopping at each throw
        self.reach = np.zeros((D, n))               # own reach of every node
        self.seq = np.zeros((K, D, n))              # own reach of every (action, node)
        self.leaf_reach = np.zeros((lay.num_leaves, n))


class _Engine:
    """The iteration. `run(k)` performs k iterations of `rule`, `iterate()` one.

    engine="numpy" runs the vectorized numpy code of this module; engine="compiled" runs
    the same arithmetic in C (`solver.cfr_kernel`) on the same arrays, without coming back
    to Python between iterations (about 7 times faster on the default game). The showdown
    form of the compiled engine is always the cumulative sums.
    """

    def __init__(self, model: HandModel, rule: Rule, alternating: bool = True,
                 average_played: bool = False, showdown: str = "dense",
                 engine: str = "numpy"):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        self.model = model
        self.rule = rule
        self.engine = engine
        self.alternating = alternating
        # Average the strategy a player updated *from* (the one he played in the pass, as
        # OpenSpiel does) instead of the one he updated *to* (the one the other then faces).
        self.average_played = average_played
        self.lay = lay = _build_layout(model, showdown)
        self.players = (_Player(lay, CAPTAIN), _Player(lay, OPPONENT))
        self.t = 0
        self.weight_sum = 0.0
        self._values = np.zeros((lay.num_leaves + lay.num_nodes + 1, lay.n))
        self._num_leaves = lay.num_leaves
        self._layers_up = tuple(reversed(lay.layers))
        # take(out=) is buffered unless mode is "clip" or "wrap" (indices are all valid)
        self._layer_buffers = tuple(np.empty(rows.shape + (lay.n,))
                                    for _, _, rows, _ in self._layers_up)
        self._other_value = (lay.other_value, -lay.other_value)      # to CAPTAIN, OPPONENT
        for pl in self.players:
            self._forward(pl)
        self._compiled = None
        if engine == "compiled":
            from solver import cfr_kernel

            self._compiled = cfr_kernel.bind(self)

    def run(self, iterations: int) -> None:
        """Perform `iterations` iterations."""
        if self._compiled is None:
            for _ in range(iterations):
                self.iterate()
            return
        self.weight_sum += self._compiled.run(iterations, self.t, self.alternating,
                                              self.average_played)
        self.t += iterations

    # --- reach (forward) --------------------------------------------------------------------

    def _forward(self, pl: _Player) -> None:
        """Occupancy of the throwing states, end of turn, own reach in the betting."""
        lay = self.lay
        T = lay.T
        sigma, flows, ends = pl.throw_sigma, pl.flows, pl.ends       # (T-1, A, C, n)
        mass = lay.prior
        for t in range(T - 1):
            np.multiply(mass, sigma[t], out=flows[t])                # (A, C, n)
            mass = np.add.reduce(flows[t, 1:], axis=2).T @ lay.outcome   # (C, n)
        ends[:T - 1] = flows[:, 0]
        ends[T - 1] = mass
        reach, seq, factor = pl.reach, pl.seq, pl.factor
        flat = seq.reshape(-1, lay.n)
        for s, e, _, parents in lay.layers:
            if s == 0:
                ends.reshape(-1, lay.n).take(pl.start_rows, axis=0, out=reach[:e], mode="clip")
            else:
                flat.take(parents, axis=0, out=reach[s:e], mode="clip")
            np.multiply(reach[s:e], factor[:, s:e], out=seq[:, s:e])
        flat.take(lay.leaf_edge, axis=0, out=pl.leaf_reach, mode="clip")

    # --- values (backward) ------------------------------------------------------------------

    def _leaf_values(self, role: int, reach: np.ndarray, out: np.ndarray) -> None:
        """Value to `role` of each leaf and own hand, against the other's leaf reach."""
        lay = self.lay
        m = lay.n_showdown
        r = reach[:m]
        if lay.showdown == "dense":
            for s, e, matrix, scale in lay.dense_groups[role]:
                np.matmul(r[s:e], matrix, out=out[s:e])
                if scale is not None:
                    out[s:e] *= scale
        else:
            cum = np.cumsum(r, axis=1)
            a_cum, a_total, a_self = lay.sd_coef[role]
            v = out[:m]
            np.multiply(a_cum, cum, out=v)
            v += a_total * cum[:, -1:]
            v += a_self * r
            for winner, loser in lay.exceptions:
                # `compare` says winner beats loser although the order says otherwise
                if role == CAPTAIN:
                    v[:, winner] += lay.exc_coef * r[:, loser]
                    v[:, loser] -= lay.exc_coef * r[:, winner]
                else:
                    v[:, loser] -= lay.exc_coef * r[:, winner]
                    v[:, winner] += lay.exc_coef * r[:, loser]
        np.multiply(self._other_value[role], np.add.reduce(reach[m:], axis=1, keepdims=True),
                    out=out[m:len(reach)])

    def _node_values(self, factor: np.ndarray) -> None:
        """Fill the node rows of V, deepest first: the factor-weighted sum of children."""
        L = self._num_leaves
        V = self._values
        add = np.add.reduce
        for (s, e, rows, _), c in zip(self._layers_up, self._layer_buffers):
            V.take(rows, axis=0, out=c, mode="clip")
            c *= factor[:, s:e]
            add(c, axis=0, out=V[L + s:L + e])

    def _stop_values(self, role: int) -> np.ndarray:
        """(T, C, n): value of ending the turn at each throw count, from the betting roots."""
        lay = self.lay
        root = self._values[lay.num_leaves:lay.num_leaves + len(lay.pub_tc)]   # (P, n)
        if role == CAPTAIN:
            return (lay.captain_sum @ root)[:, None, :]
        return root[lay.pub_index].transpose(1, 0, 2)              # (to, tc, n)

    def _backward(self, pl: _Player, other: _Player):
        """Instantaneous regrets of `pl` (throw, betting) against `other`'s current reach."""
        lay = self.lay
        T = lay.T
        V = self._values
        self._leaf_values(pl.role, other.leaf_reach, V)
        self._node_values(pl.factor)
        bet_regret = V.take(pl.own_children, axis=0)
        bet_regret -= V.take(pl.own_rows, axis=0)             # 0 on invalid slots
        stop = self._stop_values(pl.role)
        sigma = pl.throw_sigma
        throw_regret = np.empty_like(sigma)
        v = stop[T - 1]                                             # (C, n)
        for t in range(T - 2, -1, -1):
            q = throw_regret[t]                                     # (A, C, n)
            q[0] = stop[t]
            q[1:] = (v @ lay.outcome_t).T[:, :, None]
            v = np.add.reduce(sigma[t] * q, axis=0)
            q -= v
            q *= lay.legal
        return throw_regret, bet_regret

    # --- updates ----------------------------------------------------------------------------

    def _update(self, pl: _Player, regrets) -> None:
        t = self.t
        if self.average_played:
            self._accumulate(pl)
        weights = (self._weights(pl.throw_regret, regrets[0], t),
                   self._weights(pl.bet_regret, regrets[1], t))
        pl.throw_sigma = _normalized(weights[0], pl.throw_uniform, axis=1)
        pl.bet_sigma = _normalized(weights[1], pl.bet_uniform, axis=0)
        pl.factor[:, pl.own] = pl.bet_sigma
        self._forward(pl)
        if not self.average_played:
            self._accumulate(pl)

    def _weights(self, acc: np.ndarray, r: np.ndarray, t: int) -> np.ndarray:
        """Add the instantaneous regret r to the cumulative regret acc (in place, with the
        rule's clipping and discounts); return the nonnegative weights of the next play."""
        rule = self.rule
        acc += r
        if rule.plus:
            np.maximum(acc, 0.0, out=acc)
        if rule.alpha is not None:
            pos = t ** rule.alpha / (t ** rule.alpha + 1)
            if rule.plus:
                acc *= pos
            else:
                neg = t ** rule.beta / (t ** rule.beta + 1)
                acc *= np.where(acc > 0, pos, neg)
        if rule.predictive:
            w = acc + r
            return np.maximum(w, 0.0, out=w)
        return acc if rule.plus else np.maximum(acc, 0.0)

    def _accumulate(self, pl: _Player) -> None:
        w = float(self.t) ** self.rule.gamma
        if pl.flows.size:
            pl.throw_avg += w * pl.flows
        pl.seq_avg += w * pl.seq

    def iterate(self) -> None:
        if self._compiled is not None:
            self.run(1)
            return
        self.t += 1
        self.weight_sum += float(self.t) ** self.rule.gamma
        cap, opp = self.players
        if self.alternating:
            self._update(cap, self._backward(cap, opp))
            self._update(opp, self._backward(opp, cap))
        else:
            rc, ro = self._backward(cap, opp), self._backward(opp, cap)
            self._update(cap, rc)
            self._update(opp, ro)

    # --- exact exploitability of the average, vectorized -------------------------------------

    def average_exploitability(self) -> float:
        """Exploitability of the average strategy by a vectorized exact best response.

        The average realization plan is the accumulated one divided by the total weight,
        so no behaviour strategy is formed. About the cost of one iteration: a cheap
        trigger for the stopping test, which `solve_cfr` confirms with
        `solver.best_response` before it stops.
        """
        cap, opp = self.players
        lay = self.lay
        values = []
        for pl, other in ((cap, opp), (opp, cap)):
            leaf = np.take(other.seq_avg.reshape(-1, lay.n), lay.leaf_edge, axis=0)
            leaf /= self.weight_sum
            values.append(self._best_response_value(pl.role, leaf))
        return (values[0] + values[1]) / 2

    def _best_response_value(self, role: int, other_leaf_reach: np.ndarray) -> float:
        lay = self.lay
        T = lay.T
        L = lay.num_leaves
        V = self._values
        self._leaf_values(role, other_leaf_reach, V)
        own = (lay.node_actor == role)[:, None]
        for s, e, rows, _ in reversed(lay.layers):
            c = np.take(V, rows, axis=0)
            V[L + s:L + e] = np.where(own[s:e], (c + lay.invalid[:, s:e]).max(axis=0),
                                      c.sum(axis=0))
        stop = self._stop_values(role)
        v = stop[T - 1]
        for t in range(T - 2, -1, -1):
            q = np.empty((lay.legal.shape[0],) + v.shape)
            q[0] = stop[t]
            q[1:] = (v @ lay.outcome_t).T[:, :, None]
            v = (q + lay.illegal).max(axis=0)
        return float((v @ lay.prior).sum())

    # --- results ----------------------------------------------------------------------------

    def average_strategy(self) -> Strategy:
        return self._strategy(lambda pl: (pl.throw_avg, pl.seq_avg[:, pl.own]))

    def current_strategy(self) -> Strategy:
        return self._strategy(lambda pl: (pl.throw_sigma, pl.bet_sigma))

    def _strategy(self, pick) -> Strategy:
        lay = self.lay
        throws, betting = [], {}
        for pl in self.players:
            throw, bet = pick(pl)
            probs = _normalized(throw * pl.throw_legal, pl.throw_uniform, axis=1)
            throws.append(np.ascontiguousarray(probs.transpose(2, 0, 1, 3)[..., lay.inv]))
            probs = _normalized(bet * pl.bet_valid, pl.bet_uniform, axis=0)[..., lay.inv]
            for row, d in enumerate(pl.own):
                betting[lay.node_key[d]] = probs[:lay.node_k[d], row].copy()
        return Strategy((throws[0], throws[1]), betting)


# --- the solver ---------------------------------------------------------------------------------

class _Checker:
    """Exact exploitability by `solver.best_response`, leaf matrices built once."""

    def __init__(self, model: HandModel):
        self.model = model
        self.leaves = best_response.leaf_matrices(model)

    def __call__(self, strategy: Strategy) -> best_response.Exploitability:
        m, leaves = self.model, self.leaves
        return best_response.Exploitability(
            value=best_response.policy_value(m, strategy, leaves),
            captain_guaranteed=-best_response.best_response(m, strategy, OPPONENT, leaves).value,
            captain_best=best_response.best_response(m, strategy, CAPTAIN, leaves).value)


def _exact_schedule(check_every: int | None, cap: int) -> Callable[[int], int]:
    """The first iteration after `it` with an exact check: every `check_every`, or 10, 20,
    40, ... (doubling); always `cap`, the last one."""
    if check_every is not None:
        return lambda it: min(cap, (it // check_every + 1) * check_every)
    marks = [cap]
    x = 10
    while x < cap:
        marks.append(x)
        x *= 2
    marks.sort()
    return lambda it: marks[bisect.bisect_right(marks, it)]


# Far from the target (above TRIGGER_FAR times it) the average strategy is assumed to close
# in on it no faster than like 1/t^TRIGGER_RATE (CFR+ and PCFR+ go as 1/t to 1/t^2 here), so
# the next vectorized check can wait (`_trigger_interval`). Near it the exploitability
# oscillates (PCFR+ went from 1.43e-6 to 1e-6 in 5% more iterations) and checks stay at 1%.
TRIGGER_RATE, TRIGGER_FAR = 3.0, 2.0


def _trigger_interval(it: int, exploitability: float | None = None,
                      target: float | None = None) -> int:
    """Iterations between two vectorized checks: about 1% of the run, at least 5; and, when
    the last check saw `exploitability` above `target`, at least as many as it takes
    exploitability * (it / t)^TRIGGER_RATE to reach the target, if it is TRIGGER_FAR times
    the target or more."""
    step = max(5, it // 100)
    if exploitability is not None and target is not None and target > 0 \
            and exploitability > TRIGGER_FAR * target:
        step = max(step, int(it * ((exploitability / target) ** (1 / TRIGGER_RATE) - 1)))
    return step


def solve_cfr(model: HandModel, method: str, iterations: int | None = None,
              target_exploitability: float | None = None,
              progress: Callable[[int, float, float], None] | None = None,
              check_every: int | None = None, *, alternating: bool = True,
              averaging: str | None = None, showdown: str = "dense",
              rule: Rule | None = None, engine: str | None = None):
    """Run a CFR method on `model` until `iterations` or `target_exploitability`.

    method: "cfr" (regret matching, uniform averaging), "cfr+" (RM+, linear averaging),
    "dcfr" (alpha 1.5, beta 0, gamma 2) or "pcfr+" (predictive RM+, weights t^5).
    Updates alternate between the players unless `alternating=False`; `averaging`
    ("uniform", "linear", "quadratic") overrides the method's default weights; `showdown`
    ("dense" or "cumsum") picks how showdown values are computed (same numbers) by the
    numpy engine; `engine` is "compiled" (the C kernel, the default when it was built) or
    "numpy".

    Checks. The exploitability that is reported, recorded in `history` and passed to
    `progress(iteration, seconds, exploitability)` is always `solver.best_response`'s, on
    the average strategy: every `check_every` iterations, or by default at iterations
    10, 20, 40, ... and at the last one. With a target and the default schedule, a
    vectorized exact best response on the average realization plan (equal to
    `best_response`'s to rounding, and ~30 times cheaper) is also evaluated every ~2% of
    the iterations; when it reaches the target, `best_response` confirms before the solver
    stops. With neither a limit nor a target the target is 1e-6, with a cap of
    DEFAULT_MAX_ITERATIONS iterations.
    """

    if method not in METHODS:
        raise ValueError(f"CFR method must be one of {', '.join(METHODS)}, got {method!r}")
    if averaging not in (None, *AVERAGING):
        raise ValueError(f"averaging must be uniform, linear or quadratic, got {averaging!r}")
    if iterations is not None and (isinstance(iterations, bool) or iterations < 1):
        raise ValueError(f"iterations must be at least 1, got {iterations}")
    if target_exploitability is not None and not target_exploitability >= 0:
        raise ValueError(f"target_exploitability must be >= 0, got {target_exploitability}")
    if check_every is not None and check_every < 1:
        raise ValueError(f"check_every must be at least 1, got {check_every}")
    if iterations is None and target_exploitability is None:
        target_exploitability = DEFAULT_TARGET
    cap = iterations if iterations is not None else DEFAULT_MAX_ITERATIONS

    if engine is None:
        from solver import cfr_kernel
        engine = "compiled" if cfr_kernel.available() else "numpy"

    start = time.perf_counter()
    rule = rule or RULES[method]
    if averaging is not None:
        rule = dataclasses.replace(rule, gamma=AVERAGING[averaging])
    runner = _Engine(model, rule, alternating=alternating, showdown=showdown, engine=engine)
    checker = _Checker(model)
    next_exact = _exact_schedule(check_every, cap)
    use_trigger = target_exploitability is not None and check_every is None
    next_trigger = _trigger_interval(0)
    history: list[tuple[int, float, float]] = []
    converged = False
    result = None

    def exact_check() -> bool:
        nonlocal result
        result = checker(runner.average_strategy())
        seconds = time.perf_counter() - start
        history.append((runner.t, seconds, result.exploitability))
        if progress is not None:
            progress(runner.t, seconds, result.exploitability)
        return (target_exploitability is not None
                and result.exploitability <= target_exploitability)

    while runner.t < cap:
        due = next_exact(runner.t)
        runner.run((min(due, next_trigger) if use_trigger else due) - runner.t)
        it = runner.t
        if it == due:
            if exact_check():
                converged = True
                break
            if use_trigger and it >= next_trigger:
                next_trigger = it + _trigger_interval(it, result.exploitability,
                                                      target_exploitability)
        elif use_trigger and it >= next_trigger:
            fast = runner.average_exploitability()
            next_trigger = it + _trigger_interval(it, fast, target_exploitability)
            if fast <= target_exploitability and exact_check():
                converged = True
                break
    raw = runner.average_strategy()
    strategy = best_response.complete_unreached(model, raw)
    final = checker(strategy)
    seconds = time.perf_counter() - start
    engine_name = "C kernel" if engine == "compiled" else "numpy engine"
    message = (f"{method} ({engine_name}): {runner.t} iterations, exploitability "
               f"{final.exploitability:.3g} "
               f"({'target reached' if converged else 'iteration limit'})")
    drift = abs(final.exploitability - result.exploitability)
    if drift > 1e-9 * max(1.0, abs(result.exploitability)):
        # completing unreached decisions must not change the realization plan
        message += f"; completing unreached decisions changed it by {drift:.3g}"
    return Solution(
        model=model, method=method, value=final.value,
        status="converged" if converged else "iteration limit", converged=converged,
        message=message, seconds=seconds, iterations=runner.t, exploitability=final,
        strategy=strategy, history=tuple(history))
