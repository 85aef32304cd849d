"""Each seat's gain from deviating: an exact best response of one player against the others'
fixed strategies, on the public tree (docs/multi.md, "What is certified").

A player's decision point is (public node, his current hand): under reroll=all his earlier,
discarded hands change neither his future nor what the others see, so the best response
picks, bottom-up, the best edge at each point separately. This walk is written apart from
CFR's (`cfr.evaluate` weights children by the strategy; this one takes a maximum and never
reads the deviating player's strategy), and tests/test_multi_solver.py checks it against
OpenSpiel's own best response on the faithful game `python_bidou_multi`.

The gain of seat q is BR_q - V_q >= 0, with V_q his value when nobody deviates; NashConv is
their sum. Every gain <= epsilon certifies an epsilon-equilibrium: no player alone can gain
more than epsilon chips per hand. With three players that says nothing about uniqueness:
other equilibria may give other values.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from solver.multi.tree import PublicTree
from solver.multi.values import parent_runs, ranges, terminal_values


def best_response_value(tree: PublicTree, sigma: np.ndarray, seat: int) -> float:
    """Seat's best expected payoff (chips per hand) when every other seat plays `sigma`."""
    return _walk(tree, sigma, seat, deviate=True)


def policy_value(tree: PublicTree, sigma: np.ndarray, seat: int) -> float:
    """Seat's expected payoff when everybody plays `sigma`, by the same walk with the seat's
    own edges weighted by his strategy instead of maximised."""
    return _walk(tree, sigma, seat, deviate=False)


def _walk(tree: PublicTree, sigma: np.ndarray, seat: int, deviate: bool) -> float:
    """Bottom-up over the public tree: at the seat's own nodes the best edge for each hand
    (`deviate`: his strategy is never read) or his strategy's average; elsewhere the sum
    of the edges, the others' strategies already in the reach."""
    reach = ranges(tree, sigma)
    values = terminal_values(tree, reach, [seat])[seat]
    return float(tree.base @ root_values(tree, sigma, values, seat, deviate))


def root_values(tree: PublicTree, sigma: np.ndarray, values: np.ndarray, seat: int,
                deviate: bool) -> np.ndarray:
    """The seat's value at the root for each of his hands there, from his terminal values
    `values[n, h]` (the others' ranges in them; overwritten on the way up): a best response
    (`deviate`) or his own strategy. solver/multi/four_stream.py calls it on one betting
    subtree at a time, whose root ranges are not `base`."""
    for depth in reversed(tree.depth_edges):
        child = tree.edge_child[depth]
        mine = tree.edge_player[depth] == seat
        below = values[child].copy()
        rethrow = mine & tree.edge_again[depth]
        below[rethrow] = (below[rethrow] @ tree.base)[:, None]
        parents, starts = parent_runs(tree, depth)
        if deviate:
            best = np.maximum.reduceat(below, starts, axis=0)
            total = np.add.reduceat(below, starts, axis=0)
            values[parents] = np.where(mine[starts][:, None], best, total)
        else:
            below[mine] *= sigma[depth][mine]
            values[parents] = np.add.reduceat(below, starts, axis=0)
    return values[0]


@dataclasses.dataclass(frozen=True)
class Gains:
    """values[q]: seat q's expected payoff; best[q]: his best response; gains[q] = best - value.

    Reported as measured, never clamped: in exact arithmetic a best response is never worse
    than the strategy it replaces, so a negative gain (a few 1e-16 when a seat already plays
    a best response) is the floating point's rounding, and shown as such, sign and size;
    clamping it to 0 would hide that the float certificate is only good to rounding (the
    exact one, exact.ExactGains, is a Fraction and never negative)."""

    values: tuple[float, ...]
    best: tuple[float, ...]

    @property
    def gains(self) -> tuple[float, ...]:
        return tuple(b - v for b, v in zip(self.best, self.values))

    @property
    def nash_conv(self) -> float:
        return float(sum(self.gains))

    @property
    def epsilon(self) -> float:
        """The certified epsilon: the largest gain any one seat has from deviating (as
        measured: below 0 only by rounding, when every seat plays a best response)."""
        return max(self.gains)


def gains(tree: PublicTree, sigma: np.ndarray) -> Gains:
    """Every seat's value and best-response value against the others' `sigma`."""
    seats = range(tree.players)
    return Gains(values=tuple(policy_value(tree, sigma, q) for q in seats),
                 best=tuple(best_response_value(tree, sigma, q) for q in seats))
