"""Counterfactual regret minimisation on the public tree of multi-hand Bidou.

An iteration walks the tree: ranges down (`values.ranges`), counterfactual values up, each
edge's regret per hand updated. `METHODS` names the ways of doing it (`Method`): all seats
at once from one walk (simultaneous: `cfr`, `cfr+`) or one seat after the other, each
against the others' newest strategies (alternating: the rest); regrets floored at zero
(CFR+), discounted (DCFR) or plain; the average weighted by t^gamma; predictive (the
strategy from the regrets plus the last iteration's). benchmarks/bench_multi.py runs them
side by side. With three players CFR has no guarantee of converging to an equilibrium;
what it reaches is measured afterwards by `best_response.gains`, not assumed.

This numpy walk is the reference the C kernel (kernel.py) is tested against, iterate by
iterate; the kernel is what runs the big trees.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Optional

import numpy as np

from solver.multi.tree import PublicTree
from solver.multi.values import action_values, parent_runs, ranges, terminal_values


@dataclasses.dataclass(frozen=True)
class Method:
    """How regrets and the average accumulate (the C kernel's MultiMethod, field by field).

    gamma: the average weights iteration t by t^gamma. plus: regrets floored at zero.
    discount: DCFR's, accumulated positive regrets times t^alpha / (t^alpha + 1), negative
    ones times t^beta / (t^beta + 1). alternate: seats updated one after the other.
    predictive: the strategy from regret + the last instantaneous regret (PCFR+)."""

    gamma: float
    plus: bool = False
    discount: bool = False
    alpha: float = 0.0
    beta: float = 0.0
    alternate: bool = False
    predictive: bool = False


METHODS = {
    "cfr": Method(gamma=0.0),
    "cfr+": Method(gamma=1.0, plus=True),
    "alt-cfr+": Method(gamma=1.0, plus=True, alternate=True),
    "alt-cfr+2": Method(gamma=2.0, plus=True, alternate=True),
    "dcfr": Method(gamma=2.0, discount=True, alpha=1.5, beta=0.0, alternate=True),
    "pcfr+": Method(gamma=2.0, plus=True, alternate=True, predictive=True),
}
VARIANTS = tuple(METHODS)


def method(variant: str) -> Method:
    """The named method; ValueError naming the choices otherwise."""
    if variant not in METHODS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    return METHODS[variant]


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
    """What a run carries from one iteration to the next (and what a checkpoint holds);
    `last`, the last instantaneous regrets, only for a predictive method."""

    regrets: np.ndarray
    strategy_sum: np.ndarray
    iterations: int = 0
    seconds: float = 0.0
    last: Optional[np.ndarray] = None

    @classmethod
    def start(cls, tree: PublicTree, variant: str = "cfr+") -> "CFRState":
        shape = (tree.num_edges, len(tree.hands))
        last = np.zeros(shape) if method(variant).predictive else None
        return cls(np.zeros(shape), np.zeros(shape), last=last)


def iterate(tree: PublicTree, state: CFRState, iterations: int, variant: str = "cfr+",
            after: Optional[Callable[[CFRState], None]] = None, every: int = 0) -> CFRState:
    """Run `iterations` more iterations; `after(state)` every `every` of them (where a
    checkpoint is saved; progress is the caller's, between calls)."""
    how = method(variant)
    if how.predictive and state.last is None:
        state.last = np.zeros_like(state.regrets)
    seats = [tree.edge_player == q for q in range(tree.players)] if how.alternate else [
        np.ones(tree.num_edges, dtype=bool)]
    for _ in range(iterations):
        started = time.perf_counter()
        t = state.iterations + 1
        for mine in seats:
            _step(tree, state, how, t, mine)
        state.iterations = t
        state.seconds += time.perf_counter() - started
        if after is not None and every and t % every == 0:
            after(state)
    return state


def _step(tree: PublicTree, state: CFRState, how: Method, t: int, mine: np.ndarray) -> None:
    """One update of the edges `mine` (one seat's, or all) against everybody's current
    strategies: the kernel's `update` in numpy."""
    guess = state.regrets + state.last if how.predictive and state.last is not None \
        else state.regrets
    sigma = regret_matching(tree, guess)
    reach = ranges(tree, sigma)
    values, own = evaluate(tree, sigma, reach)
    now = (own - values[tree.edge_parent, tree.edge_player])[mine]
    total = state.regrets[mine] + now
    if how.plus:
        np.maximum(total, 0.0, out=total)
    if how.discount:
        up, down = float(t) ** how.alpha, float(t) ** how.beta
        total *= np.where(total > 0.0, up / (up + 1.0), down / (down + 1.0))
    state.regrets[mine] = total
    if how.predictive and state.last is not None:
        state.last[mine] = now
    weight = 1.0 if how.gamma == 0.0 else float(t) ** how.gamma
    state.strategy_sum[mine] += (weight * reach[tree.edge_parent, tree.edge_player])[mine] \
        * sigma[mine]


def average_strategy(tree: PublicTree, state: CFRState) -> np.ndarray:
    """The average strategy: what CFR's guarantees (two players) and our measures are about."""
    return normalise(tree, state.strategy_sum)
