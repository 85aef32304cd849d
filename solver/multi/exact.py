"""A rational bound on every seat's gain from deviating (docs/multi.md, "The rational
bound"): the solver's strategy rounded to exact fractions, then each seat's value and exact
best response against the others' rounded strategies computed in `Fraction` arithmetic.

The certificate is about the rounded profile (the one published with it): no seat can gain
more than `epsilon` (an exact rational) by deviating alone. The arithmetic shares the public
tree's shape (nodes, edges, who acts) with the float solver but none of its numerics: the
ranges are pushed down edge by edge in fractions, and a terminal's value is a sum over every
deal of the hands, whose outcome (the showdown's loser, the poor fish) is found by
`betting.loser` / `betting.highest` on the hands themselves, not by the float solver's
pairwise products (`values._spread`). The work is terminals x players x hands**players
fraction products, so this is for small variants (`MAX_WORK`).
"""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction
from typing import Sequence

import numpy as np

from games.bidou import rules
from games.bidou_multi import betting
from games.bidou_multi.params import ParameterError
from solver.multi.tree import PublicTree, TerminalGroup

DENOMINATOR = 2 ** 20            # every rounded probability is k / 2**20
MAX_WORK = 3_000_000             # terminals x players x deals, about a minute in fractions

Exact = list[list[Fraction]]     # [edge][hand]


def work(tree: PublicTree) -> int:
    """Fraction products the exact walk needs (checked against MAX_WORK before any work)."""
    terminals = sum(len(g.nodes) for g in tree.terminals)
    return terminals * tree.players * len(tree.hands) ** tree.players


def check_work(tree: PublicTree) -> None:
    if work(tree) > MAX_WORK:
        raise ParameterError(
            f"the exact bound needs {work(tree):,} fraction products, above {MAX_WORK:,} "
            "(try fewer --faces, --throws or --chips)")


def check_work_bound(public_nodes: int, players: int, hands: int) -> None:
    """Before the tree is built: public nodes bound the terminals from above."""
    bound = public_nodes * players * hands ** players
    if bound > MAX_WORK:
        raise ParameterError(
            f"--exact needs up to {bound:,} fraction products, above {MAX_WORK:,} "
            "(try fewer --faces, --throws or --chips)")


def rounded(tree: PublicTree, sigma: np.ndarray, denominator: int = DENOMINATOR) -> Exact:
    """sigma rounded to multiples of 1/denominator, each (node, hand) summing to exactly 1:
    the largest probability takes up the rounding."""
    out: Exact = [[Fraction(0)] * len(tree.hands) for _ in range(tree.num_edges)]
    ends = list(tree.edge_starts[1:]) + [tree.num_edges]
    for start, end in zip(tree.edge_starts, ends):
        for h in range(len(tree.hands)):
            probs = sigma[start:end, h] / sigma[start:end, h].sum()
            ks = [int(round(float(p) * denominator)) for p in probs]
            top = int(np.argmax(probs))
            ks[top] += denominator - sum(ks)
            for k, e in zip(ks, range(start, end)):
                out[e][h] = Fraction(k, denominator)
    return out


def _base(tree: PublicTree) -> list[Fraction]:
    dist = rules.hand_distribution(tree.params.faces)
    return [dist[h] for h in tree.hands]


def exact_ranges(tree: PublicTree, probs: Exact) -> list[list[list[Fraction]]]:
    """ranges[node][player][hand] in fractions, edge by edge from the root."""
    base = _base(tree)
    out: list = [None] * tree.num_nodes
    out[0] = [list(base) for _ in range(tree.players)]
    for e in range(tree.num_edges):
        parent, child = int(tree.edge_parent[e]), int(tree.edge_child[e])
        actor = int(tree.edge_player[e])
        reach = [list(r) for r in out[parent]]
        own = [r * p for r, p in zip(reach[actor], probs[e])]
        if tree.edge_again[e]:
            total = sum(own, Fraction(0))
            own = [total * b for b in base]
        reach[actor] = own
        out[child] = reach
    return out


def _outcomes(tree: PublicTree, group: TerminalGroup) -> dict[tuple[int, ...], int]:
    """The outcome index of every deal (a hand index per seat) at the group's terminals."""
    p = tree.params

    def outcome(deal: Sequence[int]) -> int:
        if group.kind == "fixed":
            return 0

        def compare(a: int, b: int) -> int:
            return rules.compare(tree.hands[deal[a]], tree.hands[deal[b]], p.ranking,
                                 p.aces_beat_bidou)
        find = betting.loser if group.kind == "loser" else betting.highest
        who = find(group.seats, compare)
        return len(group.seats) if who is None else group.seats.index(who)
    deals = itertools.product(range(len(tree.hands)), repeat=tree.players)
    return {deal: outcome(deal) for deal in deals}


def _terminal_values(tree: PublicTree, reach: list, seat: int) -> dict[int, list[Fraction]]:
    """Seat's counterfactual value per own hand at every terminal: a sum over the deals."""
    out: dict[int, list[Fraction]] = {}
    for group in tree.terminals:
        outcome = _outcomes(tree, group)
        for z, node in enumerate(group.nodes):
            pay = [Fraction(int(round(x))) for x in group.payoffs[z, :, seat]]
            values = [Fraction(0)] * len(tree.hands)
            r = reach[int(node)]
            for deal, o in outcome.items():
                weight = Fraction(1)
                for j, h in enumerate(deal):
                    if j != seat:
                        weight *= r[j][h]
                if weight and pay[o]:
                    values[deal[seat]] += weight * pay[o]
            out[int(node)] = values
    return out


def _walk(tree: PublicTree, probs: Exact, reach: list, seat: int, deviate: bool) -> Fraction:
    """Seat's exact value (deviate=False) or exact best-response value (True)."""
    base = _base(tree)
    values = _terminal_values(tree, reach, seat)
    ends = list(tree.edge_starts[1:]) + [tree.num_edges]
    for start, end in reversed(list(zip(tree.edge_starts, ends))):
        node = int(tree.edge_parent[start])
        edges = []
        for e in range(start, end):
            child = values[int(tree.edge_child[e])]
            if tree.edge_again[e] and int(tree.edge_player[e]) == seat:
                mean = sum((b * v for b, v in zip(base, child)), Fraction(0))
                child = [mean] * len(base)
            edges.append((e, child))
        if int(tree.node_player[node]) != seat:
            values[node] = [sum((c[h] for _, c in edges), Fraction(0))
                            for h in range(len(base))]
        elif deviate:
            values[node] = [max(c[h] for _, c in edges) for h in range(len(base))]
        else:
            values[node] = [sum((probs[e][h] * c[h] for e, c in edges), Fraction(0))
                            for h in range(len(base))]
    return sum((b * v for b, v in zip(base, values[0])), Fraction(0))


@dataclasses.dataclass(frozen=True)
class ExactGains:
    """Exact values and best-response values of the rounded profile, by seat."""

    denominator: int
    values: tuple[Fraction, ...]
    best: tuple[Fraction, ...]

    @property
    def gains(self) -> tuple[Fraction, ...]:
        return tuple(b - v for b, v in zip(self.best, self.values))

    @property
    def epsilon(self) -> Fraction:
        return max(self.gains)


def exact_gains(tree: PublicTree, sigma: np.ndarray, denominator: int = DENOMINATOR
                ) -> ExactGains:
    """Round `sigma`, then every seat's exact value and best response (refused above
    MAX_WORK before any work)."""
    check_work(tree)
    probs = rounded(tree, sigma, denominator)
    reach = exact_ranges(tree, probs)
    seats = range(tree.players)
    return ExactGains(denominator=denominator,
                      values=tuple(_walk(tree, probs, reach, q, False) for q in seats),
                      best=tuple(_walk(tree, probs, reach, q, True) for q in seats))
