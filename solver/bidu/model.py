"""The two-player vuelta of Bidú reduced to what its solvers need (docs/bidu.md, "The
compact model").

What a player knows when he chooses to stand or throw again is his current hand, the throw,
and who has already stood at which throw (B6); his earlier hands are his alone and say
nothing of what is to come (every throw rethrows all three dice), so neither the other
player nor the future depends on them. A strategy that ignores them loses nothing, and the
mass of "still throwing at throw t" is then one number per public history, whatever hands
led there: the realization weights with the dice's chance folded in,

    y(t, pub, h) + z(t, pub, h) = P(h) r(t, pub)      (stand with h at t, or throw again)
    r(t + 1, pub') = sum_h z(t, pub, h)              (pub' = pub, or "the other stood at t")

are linear, as the sequence form's are (von Stengel 1996), with 3 x 56 decisions a player
at the default dice instead of the 56^3 dice histories of the faithful tree. The betting
then starts from the stand throws (s0, s1), public, and each player's final hand; its tree
depends only on who bets first (B7, B8), so two trees serve the nine stand pairs. Hands are
numbered weakest first: the encyclopedia's ranking is strict, so two hands tie only when
they are the same hand.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Optional

from games.bidou import rules
from games.bidu import betting
from games.bidu.params import CAPTAIN_FIRST, BiduParams
from solver.common.errors import SolverError

__all__ = ["Tree", "VueltaModel", "build_model", "NO_STAND"]

NO_STAND = None          # the other player is still throwing (a `pub` value)
Pub = Optional[int]      # what a player knows of the other's stand: NO_STAND or its throw


@dataclasses.dataclass(frozen=True)
class Tree:
    """One betting tree, its first bettor fixed, flattened in preorder (node 0 the root).

    `to_act[n]`: the seat to speak at node n, None at a terminal; `children[n]` one per
    action of `labels[n]`. At a terminal, `kind[n]` is REPLAY, ONE_LEFT or SHOWDOWN and
    `amount[n]` the captain's net chips: at ONE_LEFT what he gets, at SHOWDOWN what he gets
    if his hand is the higher (the opposite if lower, 0 on a tie). `edges[seat]`: that
    seat's (node, action) pairs, in order; `parent_edge[seat][n]` the seat's edge before
    node n (-1: none, the betting starts from his stand); `last_edges[n]` at a terminal:
    each seat's last edge on the way there (both always spoke, B11)."""

    first: int
    to_act: tuple[Optional[int], ...]
    labels: tuple[tuple[str, ...], ...]
    children: tuple[tuple[int, ...], ...]
    kind: tuple[Optional[str], ...]
    amount: tuple[Fraction, ...]
    edges: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]
    parent_edge: tuple[dict[int, int], dict[int, int]]
    last_edges: dict[int, tuple[int, int]]

    def terminals(self) -> list[int]:
        return [n for n, seat in enumerate(self.to_act) if seat is None]

    def edge_index(self, seat: int) -> dict[tuple[int, int], int]:
        return {edge: i for i, edge in enumerate(self.edges[seat])}


def _build_tree(stands: tuple[int, int], stack: int, ante: int) -> Tree:
    to_act: list[Optional[int]] = []
    labels: list[tuple[str, ...]] = []
    children: list[tuple[int, ...]] = []
    kind: list[Optional[str]] = []
    amount: list[Fraction] = []
    edges: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])
    parent_edge: tuple[dict[int, int], dict[int, int]] = ({}, {})
    last_edges: dict[int, tuple[int, int]] = {}

    def visit(state: betting.Betting, last: tuple[int, int]) -> int:
        node = len(to_act)
        to_act.append(state.to_act)
        labels.append(())
        children.append(())
        kind.append(None)
        amount.append(Fraction(0))
        if state.closed():
            kind[node] = state.kind()
            if min(last) < 0:
                raise SolverError("a betting ended before both players spoke")
            last_edges[node] = last
            wins = betting.settle(state, lambda a, b: 1 if a == 0 else -1, ante)[0]
            amount[node] = wins
            return node
        seat = state.to_act
        assert seat is not None
        parent_edge[seat][node] = last[seat]
        actions = tuple(betting.legal_actions(state))
        labels[node] = actions
        kids = []
        for k, action in enumerate(actions):
            edges[seat].append((node, k))
            mine = len(edges[seat]) - 1
            following = (mine, last[1]) if seat == 0 else (last[0], mine)
            kids.append(visit(betting.apply(state, action), following))
        children[node] = tuple(kids)
        return node

    visit(betting.new_betting(stands, stack), (-1, -1))
    return Tree(first=betting.first_bettor(stands), to_act=tuple(to_act), labels=tuple(labels),
                children=tuple(children), kind=tuple(kind), amount=tuple(amount),
                edges=(tuple(edges[0]), tuple(edges[1])), parent_edge=parent_edge,
                last_edges=last_edges)


@dataclasses.dataclass(frozen=True)
class VueltaModel:
    """The two-player vuelta of `params`: hands weakest first with their exact chances, and
    the betting tree of each first bettor. `sequential` (`throwing="captain-first"`): a
    variant to compare with, not a rule of the text: the captain throws his whole turn
    first and the other player knows his stand throw all through his own, as in Bidou; the
    betting is the same."""

    params: BiduParams
    hands: tuple[rules.Hand, ...]
    chances: tuple[Fraction, ...]
    trees: tuple[Tree, Tree]
    sequential: bool = False

    @property
    def num_hands(self) -> int:
        return len(self.hands)

    @property
    def throws(self) -> int:
        return self.params.throws

    def stand_pairs(self) -> list[tuple[int, int]]:
        throws = range(1, self.throws + 1)
        return [(s0, s1) for s0 in throws for s1 in throws]

    def tree(self, stands: tuple[int, int]) -> Tree:
        return self.trees[betting.first_bettor(stands)]

    def pubs(self, seat: int, throw: int) -> tuple[Pub, ...]:
        """What `seat`, still throwing at `throw`, may know of the other: still throwing,
        or stood at an earlier throw (B6). Sequential: the captain knows nothing (the other
        has not thrown yet), the other knows the captain's stand throw."""
        if self.sequential:
            return (NO_STAND,) if seat == 0 else tuple(range(1, self.throws + 1))
        return (NO_STAND,) + tuple(range(1, throw))

    def pub_at_stand(self, seat: int, mine: int, other: int) -> Pub:
        """What `seat`, who stood at `mine`, knew of the other, who stood at `other`, when he
        stood: the choices of one throw are simultaneous (B6)."""
        if self.sequential:
            return NO_STAND if seat == 0 else other
        return other if other < mine else NO_STAND

    def next_pub(self, seat: int, pub: Pub, throw: int) -> tuple[Pub, ...]:
        """What `seat`, throwing again at `throw` with `pub`, may know at the next throw."""
        if self.sequential or pub is not NO_STAND:
            return (pub,)
        return (NO_STAND, throw)

    def previous_pub(self, seat: int, pub: Pub, throw: int) -> Pub:
        """What `seat`, at `throw` (>= 2) with `pub`, knew at the throw before."""
        if self.sequential:
            return pub
        return NO_STAND if pub is NO_STAND or pub == throw - 1 else pub

    def others(self, seat: int, throw: int, pub: Pub) -> list[int]:
        """The other's stand throws that standing at `throw` with `pub` may meet."""
        if pub is not NO_STAND:
            return [pub]
        return list(range(1 if self.sequential else throw, self.throws + 1))


def build_model(params: BiduParams) -> VueltaModel:
    """The compact model of `params` (two players; any faces, throws, ante, stack; the
    throwing together or the captain first)."""
    if params.players != 2:
        raise SolverError(f"the compact vuelta is solved for two players, not "
                          f"{params.players}")
    dist = rules.hand_distribution(params.faces)
    hands = tuple(sorted(dist, key=lambda h: rules.rank_key(h, params.ranking)))
    keys = {rules.rank_key(h, params.ranking) for h in hands}
    if len(keys) != len(hands):
        raise SolverError(f"the {params.ranking} ranking ties different hands")
    captain_first = _build_tree((1, 1), params.stack, params.ante)
    other_first = _build_tree((2, 1), params.stack, params.ante)
    return VueltaModel(params=params, hands=hands, chances=tuple(dist[h] for h in hands),
                       trees=(captain_first, other_first),
                       sequential=params.throwing == CAPTAIN_FIRST)
