"""Ranges and counterfactual values on the public tree (`solver/multi/tree.py`).

A strategy is an array `sigma[e, h]`: the probability that the player acting at edge e's
parent takes edge e holding hand h. `ranges` pushes each player's range down the tree;
`terminal_values` gives, at every terminal, each player's counterfactual value per own hand
(his payoff summed over the others' ranges; his own range left out).
"""

from __future__ import annotations

import numpy as np

from solver.multi.tree import PublicTree, TerminalGroup


def ranges(tree: PublicTree, sigma: np.ndarray) -> np.ndarray:
    """ranges[n, q, h]: probability of reaching public node n with hand h from player q's
    own dice and choices."""
    n, h = tree.players, len(tree.hands)
    out = np.zeros((tree.num_nodes, n, h))
    out[0] = tree.base
    for depth in tree.depth_edges:
        parent, child = tree.edge_parent[depth], tree.edge_child[depth]
        player, again = tree.edge_player[depth], tree.edge_again[depth]
        rows = np.arange(len(parent))
        reach = out[parent]
        own = reach[rows, player] * sigma[depth]
        if again.any():
            own[again] = own[again].sum(axis=1, keepdims=True) * tree.base
        reach[rows, player] = own
        out[child] = reach
    return out


def _spread(tree: PublicTree, group: TerminalGroup, reach: np.ndarray, q: int) -> np.ndarray:
    """spread[z, o, h]: the others' probability of outcome o at terminal z when q holds h.

    An outcome is pairwise: seat s is the loser when every other showdown seat's hand beats
    his, so its probability is a product over the others of "his range on the hands that
    beat h_s" (`cover`), summed over s's hand when q is not s. That is O(H^2) per terminal
    instead of the O(H^N) of the deals, for any ranking (the loser is unique even when the
    ranking is not transitive). A tie is what the other outcomes leave."""
    z, n, h = reach.shape
    total = reach.sum(axis=2)                                      # (z, n)
    if group.kind == "fixed":
        return np.prod(np.delete(total, q, axis=1), axis=1)[:, None, None] * np.ones((1, 1, h))
    # cover[z, j, x]: seat j's range on the hands that beat x (loser) / that x beats (highest)
    relation = tree.beats if group.kind == "loser" else tree.beats.T
    cover = reach @ relation
    seats = group.seats
    outside = [j for j in range(n) if j not in seats and j != q]
    factor = np.prod(total[:, outside], axis=1) if outside else np.ones(z)
    spread = np.zeros((z, len(seats) + 1, h))
    for k, s in enumerate(seats):
        rest = [j for j in seats if j not in (s, q)]
        product = np.prod(cover[:, rest, :], axis=1) if rest else np.ones((z, h))
        if q == s:
            value = product
        else:
            weight = reach[:, s, :] * product                      # over s's hand
            value = weight @ relation.T if q in seats else weight.sum(axis=1)[:, None]
        spread[:, k] = value * factor[:, None]
    spread[:, -1] = np.prod(np.delete(total, q, axis=1), axis=1)[:, None] - spread[:, :-1].sum(1)
    return spread


def terminal_values(tree: PublicTree, reach: np.ndarray, players=None) -> dict[int, np.ndarray]:
    """{q: values[n, h]} for each player q in `players` (all by default): at terminal n, q's
    payoff summed over the deals, weighted by the others' ranges; zero elsewhere."""
    n = tree.players
    wanted = range(n) if players is None else players
    out = {q: np.zeros((tree.num_nodes, len(tree.hands))) for q in wanted}
    for group in tree.terminals:
        r = reach[group.nodes]
        for q in wanted:
            spread = _spread(tree, group, r, q)
            out[q][group.nodes] = np.einsum("zo,zoh->zh", group.payoffs[:, :, q], spread)
    return out


def parent_runs(tree: PublicTree, depth: slice) -> tuple[np.ndarray, np.ndarray]:
    """The distinct parents of a depth's edges and where each one's edges start (local)."""
    parent = tree.edge_parent[depth]
    starts = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]])
    return parent[starts], starts


def action_values(tree: PublicTree, depth: slice, child_values: np.ndarray) -> np.ndarray:
    """Value of each edge to the player who takes it, per hand before it: a rethrow's value
    is the child's averaged over the new hand."""
    again = tree.edge_again[depth]
    if again.any():
        child_values = child_values.copy()
        child_values[again] = (child_values[again] @ tree.base)[:, None]
    return child_values
