"""The states of a round and where each hand leads: the rules of section "The round" of
docs/rules.md as pure functions, and the state graph (networkx) the solver walks.

A state between two hands is the chips in the centre and in each pile, seen from the
captain of the next hand (`ChipState`); by symmetry it does not matter which person is
captain. When a player holds all chips but one there is no hand but an open throw
(`OpenThrowState`), seen from the player with one chip or none, who throws first. A hand or
an open throw leads to another state, or ends the round; `Next` says which, and whether the
value there belongs to the same person as here.

Every state holds all its piles, so it knows the round's chip count (`chips`): chips only
move between the centre and the piles, and the functions below take it from the state.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Iterator, Mapping, Union

import networkx as nx

from games.bidou.betting import (
    CAPTAIN,
    OPPONENT,
    Leaf,
    LeafPayoff,
    Settlement,
    Supply,
    settle,
)

_NO_PAYOFF: LeafPayoff = (Fraction(0), Fraction(0), Fraction(0))   # the graph needs none


@dataclasses.dataclass(frozen=True, order=True)
class ChipState:
    """Chips in the centre and in the piles of the next hand's captain and opponent.
    Its value: the probability that the captain wins the round."""

    centre: int
    captain: int
    opponent: int

    @property
    def chips(self) -> int:
        """The chips in play (the round's total: no chip ever leaves it)."""
        return self.centre + self.captain + self.opponent

    def supply(self) -> Supply:
        return Supply(self.centre, (self.captain, self.opponent))

    def label(self) -> str:
        return f"{self.centre},{self.captain},{self.opponent}"


@dataclasses.dataclass(frozen=True, order=True)
class OpenThrowState:
    """An open throw: `low` chips with the player who throws first (one or none), `high`
    (all the others but one) with the other player, `centre` in the centre. Its value: the
    probability that the first thrower wins the round."""

    centre: int
    low: int
    high: int

    @property
    def chips(self) -> int:
        """The chips in play (the round's total)."""
        return self.centre + self.low + self.high

    def label(self) -> str:
        return f"open throw {self.centre},{self.low}"


State = Union[ChipState, OpenThrowState]


@dataclasses.dataclass(frozen=True)
class Next:
    """Where a hand leads, for the value of the person who was captain (or, after an open
    throw, first thrower): `state`'s value if `same`, one minus it otherwise; or the end
    of the round, worth `end` (1 won, 0 lost)."""

    state: State | None
    same: bool = True
    end: int | None = None

    def value(self, values: Mapping[State, float]) -> float:
        if self.state is None:
            assert self.end is not None
            return float(self.end)
        v = values[self.state]
        return v if self.same else 1 - v

    def seat(self, first: bool) -> int:
        """At `state`, the seat (0: captain or first thrower, 1: the other) of the person
        who held seat 0 in the hand if `first`, else seat 1."""
        return 0 if self.same == first else 1


def start(chips: int) -> ChipState:
    """A round starts with every chip in the centre (the first captain by a die throw)."""
    return ChipState(chips, 0, 0)


def arrive(centre: int, mine: int, other: int, i_am_captain: bool) -> Next:
    """The state reached with these chips, for the person holding `mine`: the round is over
    if a pile holds every chip (its holder loses), an open throw if one holds all but one,
    else the next hand, with this person captain or not."""
    chips = centre + mine + other
    if mine == chips:
        return Next(None, end=0)
    if other == chips:
        return Next(None, end=1)
    if chips - 1 in (mine, other):
        if mine == chips - 1:
            return Next(OpenThrowState(centre, other, mine), same=False)
        return Next(OpenThrowState(centre, mine, other), same=True)
    if i_am_captain:
        return Next(ChipState(centre, mine, other), same=True)
    return Next(ChipState(centre, other, mine), same=False)


def after_hand(state: ChipState, settlement: Settlement) -> Next:
    """Where a hand's settlement leads, for the hand's captain."""
    mine, other = settlement.piles[CAPTAIN], settlement.piles[OPPONENT]
    return arrive(settlement.centre, mine, other, settlement.next_captain == CAPTAIN)


def after_leaf(state: ChipState, leaf: Leaf, outcome: int) -> Next:
    """Where a betting leaf leads when compare(captain's hand, opponent's) is `outcome`."""
    return after_hand(state, settle(state.supply(), leaf.pot, leaf.kind, outcome,
                                    leaf.folder))


def after_open_throw(state: OpenThrowState) -> Next:
    """The open throw's thrower-first lost the throw: he takes a chip from the other, who
    becomes captain. Returned for the first thrower."""
    reached = arrive(state.centre, state.high - 1, state.low + 1, True)   # for the other
    return Next(reached.state, same=not reached.same, end=None if reached.end is None
                else 1 - reached.end)


def successors(state: State, max_level: int) -> Iterator[Next]:
    """Every place a state can lead to (for the graph; duplicates included)."""
    from games.bidou.betting import build_tree

    if isinstance(state, OpenThrowState):
        yield after_open_throw(state)
        return
    for first in (CAPTAIN, OPPONENT):
        tree = build_tree(first, max_level, state.supply(), payoff=lambda leaf: _NO_PAYOFF)
        for leaf in tree.leaves:
            for outcome in (1, 0, -1):
                yield after_leaf(state, leaf, outcome)


def state_graph(chips: int, max_level: int) -> nx.DiGraph:
    """Every state a round can reach from its start, an edge to each possible next state."""
    graph = nx.DiGraph()
    todo: list[State] = [start(chips)]
    graph.add_node(todo[0])
    while todo:
        state = todo.pop()
        for nxt in successors(state, max_level):
            if nxt.state is None:
                continue
            if nxt.state not in graph:
                graph.add_node(nxt.state)
                todo.append(nxt.state)
            graph.add_edge(state, nxt.state)
    return graph


def solve_order(graph: nx.DiGraph) -> list[list[State]]:
    """The strongly connected components, each after every component it leads to: solve
    them in this order and every continuation value outside a component is known."""
    condensed = nx.condensation(graph)
    order = list(reversed(list(nx.topological_sort(condensed))))
    return [sorted(condensed.nodes[c]["members"], key=_sort_key) for c in order]


def _sort_key(state: State) -> tuple[int, int, int, int]:
    if isinstance(state, ChipState):
        return (0, state.centre, state.captain, state.opponent)
    return (1, state.centre, state.low, 0)
