"""Counterfactual regret minimisation on the public tree of multi-hand Bidou.

Every iteration walks the whole tree once for all players at the same time: ranges down
(`values.ranges`), counterfactual values up, each edge's regret per hand updated. The
default is CFR+ (regrets floored at zero, the average weighted by the iteration number),
which on these trees reaches a given NashConv in far fewer iterations than plain CFR
(benchmarks/bench_multi.py). With three players CFR has no guarantee of converging to an
equilibrium; what it reaches is measured afterwards by `best_response.gains`, not assumed.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Optional

import numpy as np

from solver.multi.tree import PublicTree
from solver.multi.values import action_values, parent_runs, ranges, terminal_values

VARIANTS = ("cfr+", "cfr")


def regret_matching(tree: PublicTree, regrets: np.ndarray) -> np.ndarray:
    """Each decision point's strategy: positive regrets normalised, uniform if none."""
    positive = np.maximum(regrets, 0.0)
    return normalise(tree, positive)


def normalise(tree: PublicTree, weights: np.ndarray) -> np.ndarray:
    """Weights per edge made into probabilities over each node's edges (uniform where all
    are zero)."""
    totals = np.add.reduceat(weights, tree.edge_starts, axis=0)[tree.edge_group]
    counts = np.diff(np.r_[tree.edge_starts, tree.num_edges])[tree.edge_group]
    uniform = np.broadcast_to((1.0 / counts)[:, None], weights.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, weights / np.where(totals > 0, totals, 1.0), uniform)


def evaluate(tree: PublicTree, sigma: np.ndarray,
             reach: Optional[np.ndarray] = None) -> tuple[np.ndarray, np.ndarray]:
    """(values[n, q, h], own[e, h]): each player's counterfactual value at each node per own
    hand when everyone plays `sigma`, and each edge's value to the player who takes it."""
    if reach is None:
        reach = ranges(tree, sigma)
    n = tree.players
    values = np.zeros((tree.num_nodes, n, len(tree.hands)))
    for q, v in terminal_values(tree, reach).items():
        values[:, q] = v
    own_all = np.zeros((tree.num_edges, len(tree.hands)))
    for depth in reversed(tree.depth_edges):
        child, player = tree.edge_child[depth], tree.edge_player[depth]
        rows = np.arange(len(child))
        below = values[child]
        own = action_values(tree, depth, below[rows, player])
        below[rows, player] = sigma[depth] * own
        parents, starts = parent_runs(tree, depth)
        values[parents] = np.add.reduceat(below, starts, axis=0)
        own_all[depth] = own
    return values, own_all


def seat_values(tree: PublicTree, values: np.ndarray) -> np.ndarray:
    """Each seat's expected payoff (chips per hand) from the root's values."""
    return values[0] @ tree.base


@dataclasses.dataclass
class CFRState:
    """What a run carries from one iteration to the next (and what a checkpoint would hold)."""

    regrets: np.ndarray
    strategy_sum: np.ndarray
    iterations: int = 0
    seconds: float = 0.0

    @classmethod
    def start(cls, tree: PublicTree) -> "CFRState":
        shape = (tree.num_edges, len(tree.hands))
        return cls(np.zeros(shape), np.zeros(shape))


def iterate(tree: PublicTree, state: CFRState, iterations: int, variant: str = "cfr+",
            report: Optional[Callable[[CFRState], None]] = None, every: int = 0) -> CFRState:
    """Run `iterations` more iterations; `report(state)` every `every` of them."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    for _ in range(iterations):
        started = time.perf_counter()
        t = state.iterations + 1
        sigma = regret_matching(tree, state.regrets)
        reach = ranges(tree, sigma)
        values, own = evaluate(tree, sigma, reach)
        node_value = values[tree.edge_parent, tree.edge_player]
        state.regrets += own - node_value
        weight = float(t) if variant == "cfr+" else 1.0
        if variant == "cfr+":
            np.maximum(state.regrets, 0.0, out=state.regrets)
        state.strategy_sum += weight * reach[tree.edge_parent, tree.edge_player] * sigma
        state.iterations = t
        state.seconds += time.perf_counter() - started
        if report is not None and every and t % every == 0:
            report(state)
    return state


def average_strategy(tree: PublicTree, state: CFRState) -> np.ndarray:
    """The average strategy: what CFR's guarantees (two players) and our measures are about."""
    return normalise(tree, state.strategy_sum)
