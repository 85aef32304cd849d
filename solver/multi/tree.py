"""The public tree of one multi-hand Bidou hand, with each player's private hand kept as a
vector beside it (docs/multi.md, "The compact tree").

Everything a player does is public except his dice: the throw decisions (stop or again), the
counts and every bet. So the game is a tree of public nodes, and at each node each player's
private state is his current hand. Two facts make that exact under reroll=all (the two-player
model's reduction, docs/rules.md "Why the solver may forget discarded dice"): a rethrow's
hand does not depend on the discarded one, and the others see only counts. The players'
hands are independent given the public history, so a player's *range* (the probability of
the public history and of each of his hands, from his own choices and his own dice) is one
vector of length H per node, and the chance of a deal is the product of the ranges.

Arrays (nodes in breadth-first order, so the children of a node and the edges of one depth
are contiguous):
    node_player[n]   who acts (-1 at a terminal)
    edge_parent[e], edge_child[e], edge_player[e], edge_again[e] (a rethrow: the new hand
    is drawn from `base` whatever the old one was), edge_name[e]
    depth_edges[d]   the slice of edges whose parent is at depth d
    terminals        grouped by how their payoff depends on the hands (`TerminalGroup`)
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Callable, Optional

import numpy as np

from games.bidou import rules
from games.bidou_multi import betting
from games.bidou_multi.params import MultiParams, ParameterError

STOP, AGAIN = "stop", "again"


@dataclasses.dataclass
class TerminalGroup:
    """Terminals whose payoff depends on the hands only through one outcome. `kind` "loser":
    outcome k < len(seats) is "seats[k] has the hand every other seat in `seats` beats" (the
    showdown's loser), the last outcome "nobody" (a tie); "highest": the same for the hand
    that beats every other (Poor Fish); "fixed": one outcome, whatever the hands.
    `payoffs[z, o, q]` is player q's payoff at the group's z-th terminal under outcome o."""

    name: str
    kind: str
    seats: tuple[int, ...]
    nodes: np.ndarray
    payoffs: np.ndarray


@dataclasses.dataclass
class PublicTree:
    params: MultiParams
    hands: tuple[rules.Hand, ...]
    base: np.ndarray                    # chance of each hand in one throw
    beats: np.ndarray                   # beats[a, b] = 1 if hand a beats hand b
    node_player: np.ndarray
    node_label: list[str]               # the public history, for strategy files
    edge_parent: np.ndarray
    edge_child: np.ndarray
    edge_player: np.ndarray
    edge_again: np.ndarray
    edge_name: list[str]
    edge_starts: np.ndarray             # first edge of each decision node, in edge order
    edge_group: np.ndarray              # edge -> index of its parent in edge_starts
    depth_edges: list[slice]
    terminals: list[TerminalGroup]

    @property
    def players(self) -> int:
        return self.params.players

    @property
    def num_nodes(self) -> int:
        return len(self.node_player)

    @property
    def num_edges(self) -> int:
        return len(self.edge_parent)

    def infosets(self) -> int:
        """Decision points: (decision node, hand of the player to act)."""
        return len(self.edge_starts) * len(self.hands)


def check_solvable(params: MultiParams) -> None:
    """The compact tree is exact under reroll=all only (under keep, which dice were kept is
    a private choice hidden behind the public "again", which this tree does not model)."""
    if params.reroll != "all":
        raise ParameterError("the multi-hand solver handles reroll=all only, got reroll=keep")


@dataclasses.dataclass
class _Node:
    player: int
    label: str
    depth: int
    table: Optional[betting.Table] = None
    children: list = dataclasses.field(default_factory=list)   # (name, again, _Node)


Stores = Optional[tuple[int, ...]]


def _throw_phase(params: MultiParams, stores: Stores, seat: int, count: int,
                 counts: tuple[int, ...], label: str, depth: int) -> _Node:
    """The node where `seat` has made `count` throws (after `counts` of the earlier seats)."""
    if count == params.throws:
        return _next_turn(params, stores, counts + (count,), f"{label}t{seat}:{count} ", depth)
    node = _Node(player=seat, label=f"{label}t{seat}:{count}?", depth=depth)
    node.children.append((STOP, False, _next_turn(params, stores, counts + (count,),
                                                  f"{label}t{seat}:{count} ", depth + 1)))
    node.children.append((AGAIN, True, _throw_phase(params, stores, seat, count + 1, counts,
                                                    label, depth + 1)))
    return node


def _next_turn(params: MultiParams, stores: Stores, counts: tuple[int, ...], label: str,
               depth: int) -> _Node:
    if len(counts) < params.players:
        return _throw_phase(params, stores, len(counts), 1, counts, label, depth)
    table = betting.new_table(params.players, params.chips, counts, stores)
    return _betting(params, table, label + "b:", depth)


def _betting(params: MultiParams, table: betting.Table, label: str, depth: int) -> _Node:
    if table.closed():
        return _Node(player=-1, label=label, depth=depth, table=table)
    assert table.to_act is not None
    node = _Node(player=table.to_act, label=label, depth=depth, table=table)
    for action in betting.legal_actions(table, params.max_bet, params.max_raise):
        child = _betting(params, betting.apply(table, action), f"{label}{action},", depth + 1)
        node.children.append((action, False, child))
    return node


def _fixed(kind: str, outcome: Optional[int]) -> Callable[[int, int], int]:
    """A compare() under which the showdown's loser (or the poor fish) is `outcome`."""
    sign = -1 if kind == "loser" else 1

    def compare(a: int, b: int) -> int:
        if outcome is None:
            return 0
        return sign if a == outcome else (-sign if b == outcome else 0)
    return compare


def _terminal_key(params: MultiParams, table: betting.Table) -> tuple[str, tuple[int, ...]]:
    kind = table.kind()
    if kind == betting.SHOWDOWN:
        return "loser", table.in_hand()
    if kind == betting.ALL_PASSED and params.poor_fish:
        return "highest", tuple(range(params.players))
    return "fixed", ()


def _terminal_payoffs(params: MultiParams, table: betting.Table, kind: str,
                      seats: tuple[int, ...]) -> np.ndarray:
    outcomes = list(seats) + [None] if kind != "fixed" else [None]
    rows = []
    for outcome in outcomes:
        stores = betting.settle(table, _fixed(kind if kind != "fixed" else "loser", outcome),
                                params.poor_fish, params.discard)
        rows.append(betting.payoffs(table, stores))
    return np.array(rows, dtype=float)


def build_tree(params: MultiParams, stores: Stores = None) -> PublicTree:
    """The public tree of `params` (reroll=all), as arrays. `stores` (by seat, the captain
    first) starts the hand with those stores instead of `params.chips` each, as later hands
    of a whole game do (`solver/multi/game_play.py`)."""
    check_solvable(params)
    if stores is not None and (len(stores) != params.players or min(stores) < 1):
        raise ParameterError(f"stores must be {params.players} positive counts, got {stores}")
    return _assemble(params, _throw_phase(params, stores, 0, 1, (), "", 0))


def build_betting_tree(params: MultiParams, counts: tuple[int, ...],
                       label: str = "") -> PublicTree:
    """The betting that follows the throw counts `counts` (one per seat, the captain first)
    as a tree of its own: the subtree of `build_tree(params)` below those counts, with the
    same actions, terminals and payoffs, its root the first bet (labelled `label` + "b:").
    It depends on the counts only through the leader (M3), so four players at the default
    dice need four of them, not 81 (solver/multi/four_stream.py walks them one at a time:
    the whole tree does not fit in memory)."""
    check_solvable(params)
    if len(counts) != params.players or not all(1 <= c <= params.throws for c in counts):
        raise ParameterError(f"counts must be {params.players} throw counts in 1.."
                             f"{params.throws}, got {counts}")
    table = betting.new_table(params.players, params.chips, counts)
    return _assemble(params, _betting(params, table, label + "b:", 0))


def _assemble(params: MultiParams, root: _Node) -> PublicTree:
    """The tree below `root` as arrays, nodes in breadth-first order."""
    hands = rules.all_hands(params.faces)
    dist = rules.hand_distribution(params.faces)
    base = np.array([float(dist[h]) for h in hands])
    beats = np.array([[float(rules.compare(a, b, params.ranking, params.aces_beat_bidou) > 0)
                       for b in hands] for a in hands])
    order: list[_Node] = []
    frontier = [root]
    while frontier:                                   # breadth first
        order.extend(frontier)
        frontier = [child for node in frontier for _, _, child in node.children]
    index = {id(node): i for i, node in enumerate(order)}
    parent: list[int] = []
    child: list[int] = []
    player: list[int] = []
    again: list[bool] = []
    names: list[str] = []
    starts: list[int] = []
    groups: list[int] = []
    depth_of_edges: list[int] = []
    for node in order:
        if node.children:
            starts.append(len(parent))
        for name, is_again, kid in node.children:
            parent.append(index[id(node)])
            child.append(index[id(kid)])
            player.append(node.player)
            again.append(is_again)
            names.append(name)
            groups.append(len(starts) - 1)
            depth_of_edges.append(node.depth)
    depths = np.array(depth_of_edges)
    depth_edges = [slice(int(np.searchsorted(depths, d)), int(np.searchsorted(depths, d, "right")))
                   for d in range(int(depths.max()) + 1)] if len(depths) else []
    return PublicTree(
        params=params, hands=hands, base=base, beats=beats,
        node_player=np.array([node.player for node in order]),
        node_label=[node.label for node in order],
        edge_parent=np.array(parent), edge_child=np.array(child),
        edge_player=np.array(player), edge_again=np.array(again, dtype=bool),
        edge_name=names, edge_starts=np.array(starts), edge_group=np.array(groups),
        depth_edges=depth_edges, terminals=_terminal_groups(params, order))


def _terminal_groups(params: MultiParams, order: list[_Node]) -> list[TerminalGroup]:
    by_key: dict[tuple[str, tuple[int, ...]], list[int]] = {}
    for i, node in enumerate(order):
        if node.table is not None and node.table.closed():
            by_key.setdefault(_terminal_key(params, node.table), []).append(i)
    groups = []
    for (kind, seats), nodes in sorted(by_key.items()):
        tables = [order[i].table for i in nodes]
        payoffs = np.array([_terminal_payoffs(params, table, kind, seats)
                            for table in tables if table is not None])
        groups.append(TerminalGroup(name=f"{kind} {seats}", kind=kind, seats=seats,
                                    nodes=np.array(nodes), payoffs=payoffs))
    return groups


@functools.lru_cache(maxsize=None)
def _betting_nodes(table: betting.Table, max_bet: int, max_raise: int) -> int:
    if table.closed():
        return 1
    return 1 + sum(_betting_nodes(betting.apply(table, a), max_bet, max_raise)
                   for a in betting.legal_actions(table, max_bet, max_raise))


def size(params: MultiParams) -> dict[str, int]:
    """Public nodes, hands and cells of the compact tree, counted without building it."""
    n, t = params.players, params.throws
    table = betting.new_table(n, params.chips, (1,) * n)
    bets = _betting_nodes(table, params.max_bet, params.max_raise)
    hands = len(rules.all_hands(params.faces))
    public = t ** n * bets          # one betting tree per throw counts (throw nodes are few)
    return {"betting_nodes": bets, "public_nodes": public, "hands": hands,
            "cells": public * n * hands}
