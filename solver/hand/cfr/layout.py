"""The arrays one CFR iteration reads and writes, laid out once per model.

`solver.hand.cfr.iterations` runs its numpy iteration on them and `solver.hand.cfr.kernel` hands
the same
arrays, in place, to the C kernel (solver/hand/cfr/_kernel.c), whose structs mirror `Layout`
and `PlayerArrays` field by field (the kernel module checks the offsets when it loads).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT, BettingTree, Leaf
from solver.hand.model import HandModel


@dataclasses.dataclass(frozen=True)
class Layout:
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


def build_layout(model: HandModel, showdown: str = "dense") -> Layout:
    """The layout of `model`'s arrays for CFR, with showdowns in the `showdown` form
    ("dense" or "cumsum"; same numbers)."""
    if showdown not in ("dense", "cumsum"):
        raise ValueError(f"showdown must be dense or cumsum, got {showdown!r}")
    n, T = model.num_hands, model.throws
    perm, inv = _hand_order(model)
    legal = model.throw_legal[:, None, perm].astype(float)
    pubs = model.public_states
    pub_index, captain_sum = _public_index(pubs, T)
    nodes = _flat_nodes(model)
    showdowns = [tree.payoffs[leaf.index] for _, tree, leaf in nodes.found
                 if tree.compares_hands(leaf)]
    others = [tree.payoffs[leaf.index][0] for _, tree, leaf in nodes.found
              if not tree.compares_hands(leaf)]
    # each showdown leaf's payoff to the captain: (wins, ties, loses)
    win = np.array([float(w) for w, _, _ in showdowns]).reshape(-1, 1)
    tie = np.array([float(t) for _, t, _ in showdowns]).reshape(-1, 1)
    lose = np.array([float(lo) for _, _, lo in showdowns]).reshape(-1, 1)
    actors = nodes.actors
    return Layout(
        n=n, T=T, perm=perm, inv=inv, prior=model.prior[perm].copy(), legal=legal,
        illegal=np.where(legal > 0, 0.0, -np.inf),
        outcome=model.outcome[1:][:, perm].copy(),
        outcome_t=np.ascontiguousarray(model.outcome[1:][:, perm].T), pub_index=pub_index,
        pub_tc=np.array([tc - 1 for tc, _ in pubs]), pub_to=np.array([to - 1 for _, to in pubs]),
        captain_sum=captain_sum, K=nodes.K, node_key=nodes.keys, node_actor=actors,
        node_k=nodes.node_k, valid=nodes.valid,
        invalid=np.where(nodes.valid > 0, 0.0, -np.inf), layers=nodes.layers,
        leaf_edge=np.array([edge for edge, _, _ in nodes.found]), n_showdown=len(showdowns),
        showdown=showdown, dense_groups=_dense_groups(model, perm, win, tie, lose),
        sd_coef=_cumsum_coefficients(win, tie, lose),
        other_value=np.array([float(v) for v in others]).reshape(-1, 1),
        exceptions=tuple((int(inv[w]), int(inv[l])) for w, l in model.exceptions),
        exc_coef=(win - lose)[:, 0], own=(np.nonzero(actors == CAPTAIN)[0],
                                          np.nonzero(actors == OPPONENT)[0]))


def _hand_order(model: HandModel) -> tuple[np.ndarray, np.ndarray]:
    """Hands weakest first (`perm[u]`: the model's index of internal hand u) and back."""
    n = model.num_hands
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
    return perm, inv


def _public_index(pubs: tuple[tuple[int, int], ...], T: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The public state of each (tc, to), and the (T, P) matrix summing over `to`."""
    pub_index = np.zeros((T, T), dtype=np.int64)
    captain_sum = np.zeros((T, len(pubs)))
    for p, (tc, to) in enumerate(pubs):
        pub_index[tc - 1, to - 1] = p
        captain_sum[tc - 1, p] = 1.0
    return pub_index, captain_sum


# A leaf met in the flattened trees: (its edge, slot * D + parent node; its tree; itself).
Found = tuple[int, BettingTree, Leaf]


@dataclasses.dataclass(frozen=True)
class _Nodes:
    """The betting nodes of every public state in one depth-sorted array, and the leaves."""

    K: int
    keys: tuple                    # (tc, to, history) per node
    actors: np.ndarray
    node_k: np.ndarray
    valid: np.ndarray              # (K, D, 1)
    layers: tuple
    found: list[Found]             # showdowns first, by level; then folds and passes


def _flat_nodes(model: HandModel) -> _Nodes:
    """Nodes sorted by depth, then public state, then index in their tree; each layer's
    rows of children in the value array V (leaves [0, L), nodes [L, L + D), a zero row)."""
    pubs = model.public_states
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
    depth = np.array([r[0] for r in raw])
    valid = np.zeros((K, D, 1))
    parent_edge = np.full(D, -1)
    node_children = np.full((K, D), -1)
    found: list[Found] = []
    for d, (_, p, _, node) in enumerate(raw):
        tree = model.tree(pubs[p])
        valid[:len(node.edges), d] = 1.0
        for a, edge in enumerate(node.edges):
            if edge.leaf is not None:
                found.append((a * D + d, tree, tree.leaves[edge.leaf]))
            else:
                assert edge.node is not None
                c = index[(p, edge.node)]
                parent_edge[c] = a * D + d
                node_children[a, d] = c
    # leaves that compare hands (showdowns) first, by level; then folds and passes
    found.sort(key=lambda x: (not x[1].compares_hands(x[2]), x[2].level, x[0]))
    L = len(found)
    child_row = np.full((K, D), L + D)
    has_node = node_children >= 0
    child_row[has_node] = L + node_children[has_node]
    for row, (slot, _, _) in enumerate(found):
        child_row[slot // D, slot % D] = row
    layers = []
    for level in range(depth.max() + 1):
        where = np.nonzero(depth == level)[0]
        s, e = int(where[0]), int(where[-1]) + 1
        layers.append((s, e, np.ascontiguousarray(child_row[:, s:e]), parent_edge[s:e].copy()))
    assert all(index[(p, 0)] == p for p in range(len(pubs)))
    return _Nodes(
        K=K, keys=tuple((pubs[p][0], pubs[p][1], node.history) for _, p, _, node in raw),
        actors=np.array([node.actor for *_, node in raw]),
        node_k=np.array([len(node.actions) for *_, node in raw]), valid=valid,
        layers=tuple(layers), found=found)


def _cumsum_coefficients(win: np.ndarray, tie: np.ndarray, lose: np.ndarray) -> dict:
    """The cumsum form. With hands weakest first, r the other's reach, cum = cumsum(r), and
    below = cum - r:
      captain's hand i:  win*below + lose*(total - below - r_i) + tie*r_i
                       = (win - lose)*cum + lose*total + (tie - win)*r_i
      opponent's hand j: -(lose*below + win*(total - below - r_j) + tie*r_j)
                       = (win - lose)*cum - win*total + (lose - tie)*r_j
    """
    return {CAPTAIN: (win - lose, lose, tie - win),
            OPPONENT: (win - lose, -win, lose - tie)}


def _dense_groups(model: HandModel, perm: np.ndarray, win: np.ndarray, tie: np.ndarray,
                  lose: np.ndarray) -> dict:
    """The dense form: one (n, n) payoff matrix for all showdowns with a row scale when
    their payoffs are proportional (the hand game's: +-2k), else one per run of equal
    payoffs."""
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
    return dense_groups


def normalized(weights: np.ndarray, uniform: np.ndarray, axis: int) -> np.ndarray:
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


class PlayerArrays:
    """One player's regrets, current and average strategies, and reach under the current one.

    Throw arrays are (T-1, A, C, n): throw, action, context (the captain's throw count for
    the opponent; one for the captain), hand. Betting arrays are (K, nodes, n).
    """

    def __init__(self, lay: Layout, role: int):
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
