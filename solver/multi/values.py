"""Ranges and counterfactual values on the public tree (`solver/multi/tree.py`).

A strategy is an array `sigma[e, h]`: the probability that the player acting at edge e's
parent takes edge e holding hand h. `ranges` pushes each player's range down the tree;
`terminal_values` gives, at every terminal, each player's counterfactual value per own hand
(his payoff summed over the others' ranges; his own range left out).
"""

from __future__ import annotations

import string

import numpy as np

from solver.multi.tree import PublicTree


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


def _einsum_spec(players: int, q: int) -> str:
    letters = string.ascii_lowercase[:players]
    others = [f"z{letters[j]}" for j in range(players) if j != q]
    return f"o{letters}," + ",".join(others) + f"->zo{letters[q]}"


def terminal_values(tree: PublicTree, reach: np.ndarray, players=None) -> dict[int, np.ndarray]:
    """{q: values[n, h]} for each player q in `players` (all by default): at terminal n, q's
    payoff summed over the deals, weighted by the others' ranges; zero elsewhere."""
    n = tree.players
    wanted = range(n) if players is None else players
    out = {q: np.zeros((tree.num_nodes, len(tree.hands))) for q in wanted}
    for group in tree.terminals:
        r = reach[group.nodes]
        for q in wanted:
            others = [r[:, j, :] for j in range(n) if j != q]
            spread = np.einsum(_einsum_spec(n, q), group.masks, *others, optimize=True)
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
