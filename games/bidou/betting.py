"""The betting of a hand, in one place: roles, actions, who bets first, what is legal, where
every chip goes (docs/rules.md, "Betting" and "The round").

Everything here is a pure function of the rules, shared by the faithful OpenSpiel game
(`games/bidou/game.py`) and the compact model (`solver/hand/model.py`), so neither restates them.
The hand game bets without limit of supply (`supply=None`); the round passes the chips each
player can draw from (`Supply`), which limits the legal bets and says where each chip comes
from and goes to (`settle`).

A betting tree is built once (`build_tree`); solvers walk it through `Node.edges` and ask
each leaf its payoff through `BettingTree.payoff` (per leaf, per showdown outcome), never by
rebuilding histories or reading per-level tables.
"""

from __future__ import annotations

import dataclasses
import enum
from fractions import Fraction
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")


class Role(enum.IntEnum):
    """The two seats of a hand: the captain throws first."""

    CAPTAIN = 0
    OPPONENT = 1

    @property
    def other(self) -> "Role":
        return Role(1 - self)

    @property
    def label(self) -> str:
        return self.name.lower()


CAPTAIN, OPPONENT = Role.CAPTAIN, Role.OPPONENT
ROLE_NAMES = (CAPTAIN.label, OPPONENT.label)


class Action(enum.StrEnum):
    """A betting action; its value is its name in strategy files and OpenSpiel strings."""

    PASS = "pass"
    BET = "bet"
    FOLD = "fold"
    CALL = "call"
    RAISE = "raise"

    @property
    def letter(self) -> str:
        """One letter per action: histories such as "pbr" are made of them."""
        return self.value[0]


ACTIONS = tuple(Action)          # the order of OpenSpiel's betting action ids


def first_bettor(captain_throws: int, opponent_throws: int) -> Role:
    """The captain bets first unless he made more throws than the opponent."""
    return CAPTAIN if captain_throws <= opponent_throws else OPPONENT


def chips_put_in(action: Action) -> int:
    """Chips the actor adds: one to bet or call, two to raise (one to match, one more)."""
    return {Action.BET: 1, Action.CALL: 1, Action.RAISE: 2}.get(action, 0)


@dataclasses.dataclass(frozen=True)
class Supply:
    """Where chips can come from in a hand of the round: the centre, then each own pile.

    `piles` is indexed by Role. The hand game has no such limit (`supply=None` everywhere).
    """

    centre: int
    piles: tuple[int, int]

    def __post_init__(self) -> None:
        if self.centre < 0 or min(self.piles) < 0:
            raise ValueError(f"chip counts cannot be negative: {self}")

    def take(self, player: Role, chips: int) -> tuple["Supply", int, int] | None:
        """The supply after `player` puts `chips` in, and how many came from the centre and
        from his pile; None if he cannot supply them."""
        from_centre = min(self.centre, chips)
        from_pile = chips - from_centre
        if from_pile > self.piles[player]:
            return None
        piles = list(self.piles)
        piles[player] -= from_pile
        return Supply(self.centre - from_centre, (piles[0], piles[1])), from_centre, from_pile

    def can_supply(self, player: Role, chips: int) -> bool:
        return self.centre + self.piles[player] >= chips


def may_raise(supply: Supply | None, actor: Role, action: Action) -> bool:
    """A bet or raise needs the actor's chips and then the one chip the other's call needs
    (RULES: every call is covered). Always true without a supply limit."""
    if supply is None:
        return True
    taken = supply.take(actor, chips_put_in(action))
    return taken is not None and taken[0].can_supply(actor.other, 1)


def legal_actions(level: int, max_level: int, actor: Role,
                  supply: Supply | None = None) -> tuple[Action, ...]:
    """No bet standing: pass, or bet; facing a bet at `level`: fold, call, or raise while
    level < max_level. A bet or raise also needs the chips (`may_raise`)."""
    if level == 0:
        return (Action.PASS,) + ((Action.BET,) if may_raise(supply, actor, Action.BET) else ())
    can_raise = level < max_level and may_raise(supply, actor, Action.RAISE)
    return (Action.FOLD, Action.CALL) + ((Action.RAISE,) if can_raise else ())


# --- the chips a finished hand moves ------------------------------------------------------

SHOWDOWN, FOLD, PASS = "showdown", "fold", "pass"
# A showdown's outcome, from the captain's side: his hand wins, ties or loses.
OUTCOMES = (1, 0, -1)


@dataclasses.dataclass(frozen=True)
class Pot:
    """The chips bet so far in a hand, by player and by where they came from."""

    from_centre: tuple[int, int] = (0, 0)
    from_pile: tuple[int, int] = (0, 0)

    @property
    def total(self) -> int:
        return sum(self.from_centre) + sum(self.from_pile)

    def add(self, player: Role, centre: int, pile: int) -> "Pot":
        c, p = list(self.from_centre), list(self.from_pile)
        c[player] += centre
        p[player] += pile
        return Pot((c[0], c[1]), (p[0], p[1]))


@dataclasses.dataclass(frozen=True)
class Settlement:
    """Where a hand of the round leaves the chips, and who is captain next."""

    centre: int
    piles: tuple[int, int]        # by the hand's roles
    next_captain: Role


def settle(supply: Supply, pot: Pot, kind: str, outcome: int = 0,
           folder: Role | None = None) -> Settlement:
    """The chips after a leaf of the round (docs/rules.md, "The round").

    Showdown: the loser takes every chip bet, wherever it came from; on a tie every chip
    goes back. Fold: every chip goes back, then the folder takes one penalty chip from the
    centre, or from his opponent's pile when the centre is empty. Both pass: nothing moves.
    Next captain: the showdown's winner, the player who did not fold; after two passes or
    a tie, the player who threw second (the hand's opponent).
    """
    centre, piles = supply.centre, list(supply.piles)
    if kind == SHOWDOWN and outcome != 0:
        loser = OPPONENT if outcome > 0 else CAPTAIN
        for p in (CAPTAIN, OPPONENT):
            centre -= pot.from_centre[p]
            piles[p] -= pot.from_pile[p]
        piles[loser] += pot.total
        return Settlement(centre, (piles[0], piles[1]), loser.other)
    if kind == FOLD:
        assert folder is not None
        piles[folder] += 1
        if centre > 0:
            centre -= 1
        else:
            piles[folder.other] -= 1
        return Settlement(centre, (piles[0], piles[1]), folder.other)
    return Settlement(centre, (piles[0], piles[1]), OPPONENT)


def hand_payoff(kind: str, level: int, folder: Role | None
                ) -> tuple[Fraction, Fraction, Fraction]:
    """The hand game's payoff to the captain, by outcome (wins, ties, loses): a showdown
    at level k moves 2k chips to the lower hand, a fold costs the folder one chip."""
    if kind == SHOWDOWN:
        return (Fraction(2 * level), Fraction(0), Fraction(-2 * level))
    if kind == FOLD:
        value = Fraction(-1 if folder == CAPTAIN else 1)
        return (value, value, value)
    return (Fraction(0), Fraction(0), Fraction(0))


# --- betting trees -------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Edge:
    """An action and where it leads: a decision (`node`) or the end of the hand (`leaf`).
    `action` is its name: an `Action` of the one-chip ladder, or another betting
    structure's name ("stake 3", "withdraw"); solvers only walk edges, never read names."""

    action: str
    node: int | None = None
    leaf: int | None = None


@dataclasses.dataclass(frozen=True)
class Node:
    """A betting decision. `history` names it (one token per action so far, e.g. "pbr" in
    the ladder): strategies and files key decisions by it; nothing rebuilds it."""

    index: int
    history: str
    actor: Role
    level: int                  # standing bet level (0: none)
    edges: tuple[Edge, ...]

    @property
    def actions(self) -> tuple[str, ...]:
        return tuple(edge.action for edge in self.edges)


@dataclasses.dataclass(frozen=True)
class Leaf:
    """The end of a hand's betting: a showdown (a call), a fold, or two passes."""

    index: int
    history: str
    kind: str                   # SHOWDOWN, FOLD or PASS
    level: int                  # level called (showdown) or standing (fold); 0 after passes
    folder: Role | None
    pot: Pot                    # chips bet, by player and source (all "pile" without a supply)


# A leaf's payoff to the captain by showdown outcome: (captain wins, tie, captain loses);
# the three are equal where no hands are compared (folds, passes).
LeafPayoff = tuple[Fraction, Fraction, Fraction]


@dataclasses.dataclass(frozen=True)
class BettingTree:
    """The betting of one hand when `first` bets first. Nodes in pre-order (node 0 is the
    root, a parent before its children), leaves in the order they are met."""

    first: Role
    nodes: tuple[Node, ...]
    leaves: tuple[Leaf, ...]
    payoffs: tuple[LeafPayoff, ...]       # by leaf index
    supply: Supply | None = None

    def __post_init__(self) -> None:
        named: dict[str, Node | Leaf] = {n.history: n for n in self.nodes}
        named.update({leaf.history: leaf for leaf in self.leaves})
        parent = {}
        for node in self.nodes:
            for a, edge in enumerate(node.edges):
                parent[self.target(edge).history] = (node, a)
        object.__setattr__(self, "_named", named)
        object.__setattr__(self, "_parent", parent)

    @property
    def root(self) -> Node:
        return self.nodes[0]

    def node(self, history: str) -> Node:
        """The decision named `history` (KeyError if there is none)."""
        found = self.at(history)
        if not isinstance(found, Node):
            raise KeyError(history)
        return found

    def at(self, history: str) -> Node | Leaf:
        """The decision or leaf named `history` (KeyError if there is none)."""
        return self._named[history]           # type: ignore[attr-defined]

    def target(self, edge: Edge) -> Node | Leaf:
        """Where `edge` leads: a decision or a leaf."""
        if edge.leaf is not None:
            return self.leaves[edge.leaf]
        return self.nodes[_index(edge.node)]

    def child(self, node: Node, action: str) -> Node | Leaf:
        """Where `action` leads from `node` (KeyError if it is not legal there)."""
        for edge in node.edges:
            if edge.action == action:
                return self.target(edge)
        raise KeyError(f"{action!r} is not legal at {node.history!r}")

    def path(self, history: str) -> list[tuple[Node, int]]:
        """The (decision, action index) pairs from the root to the point named `history`."""
        steps = []
        while history in self._parent:        # type: ignore[attr-defined]
            node, a = self._parent[history]   # type: ignore[attr-defined]
            steps.append((node, a))
            history = node.history
        return steps[::-1]

    def after(self, actions: Sequence[str]) -> Node | Leaf:
        """Where the betting is after `actions` (names, from the root): a decision or a leaf.
        KeyError if an action is not legal on the way."""
        node = self.root
        for i, name in enumerate(actions):
            edge = next((e for e in node.edges if e.action == name), None)
            if edge is None:
                raise KeyError(f"{name!r} is not legal after {list(actions[:i])}")
            if edge.leaf is not None:
                if i != len(actions) - 1:
                    raise KeyError(f"the betting is over after {list(actions[:i + 1])}")
                return self.leaves[edge.leaf]
            node = self.nodes[_index(edge.node)]
        return node

    def payoff(self, leaf: Leaf, outcome: int) -> Fraction:
        """The captain's payoff at `leaf` when compare(captain's hand, opponent's) is
        `outcome` (1, 0 or -1)."""
        return self.payoffs[leaf.index][1 - outcome]

    def compares_hands(self, leaf: Leaf) -> bool:
        """Whether the leaf's payoff depends on the hands (else it is a constant)."""
        win, tie, lose = self.payoffs[leaf.index]
        return not win == tie == lose

    def push(self, start: T, step: Callable[[Node, int, T], T]) -> tuple[list[T], list[T]]:
        """Carry a value from the root down every edge (reach, say): `step(node, a, value at
        node)` is the value after action a. Returns the value at each node and each leaf."""
        at_node: list = [None] * len(self.nodes)
        at_leaf: list = [None] * len(self.leaves)
        at_node[0] = start
        for node in self.nodes:                   # pre-order: a parent before its children
            here = at_node[node.index]
            for a, edge in enumerate(node.edges):
                after = step(node, a, here)
                if edge.leaf is not None:
                    at_leaf[edge.leaf] = after
                else:
                    at_node[_index(edge.node)] = after
        return at_node, at_leaf

    def pull(self, at_leaf: Sequence[T], combine: Callable[[Node, list[T]], T]) -> list[T]:
        """Values from the leaves up (backward induction): a node's value is
        `combine(node, [value after each action])`. Returns the value at each node."""
        at_node: list = [None] * len(self.nodes)
        for node in reversed(self.nodes):
            children = [at_leaf[e.leaf] if e.leaf is not None else at_node[_index(e.node)]
                        for e in node.edges]
            at_node[node.index] = combine(node, children)
        return at_node

    def parent_sequence(self, player: int) -> list[tuple[int, int] | None]:
        """For each node and leaf of the tree, `player`'s last own (node, action index)
        before it, or None at his first decision: sequence form needs it."""
        nodes: list = [None] * len(self.nodes)
        leaves: list = [None] * len(self.leaves)

        def visit(node: Node, last: tuple[int, int] | None) -> None:
            nodes[node.index] = last
            for a, edge in enumerate(node.edges):
                mine = (node.index, a) if node.actor == player else last
                if edge.leaf is not None:
                    leaves[edge.leaf] = mine
                else:
                    visit(self.nodes[_index(edge.node)], mine)

        visit(self.root, None)
        return nodes + leaves


def _index(position: int | None) -> int:
    """An edge's node index, known to be there (an edge leads to a node or to a leaf)."""
    assert position is not None
    return position


PayoffRule = Callable[[Leaf], LeafPayoff]


def hand_game_payoff(leaf: Leaf) -> LeafPayoff:
    """The hand game's payoff rule (`hand_payoff` at the leaf)."""
    return hand_payoff(leaf.kind, leaf.level, leaf.folder)


def build_tree(first: Role, max_level: int, supply: Supply | None = None,
               payoff: PayoffRule | None = None) -> BettingTree:
    """The one-chip-limit betting tree (pass/bet; fold/call/raise), limited by `supply`
    when given, with each leaf's payoff from `payoff` (the hand game's chips by default)."""
    nodes: list[Node | None] = []
    leaves: list[Leaf] = []
    rule = payoff or hand_game_payoff

    def visit(history: str, actor: Role, level: int, pot: Pot, left: Supply | None) -> int:
        index = len(nodes)
        nodes.append(None)                    # reserve: pre-order
        edges = []
        for action in legal_actions(level, max_level, actor, left):
            child = history + action.letter
            after, new_pot = left, pot
            if chips_put_in(action):
                if left is not None:
                    taken = left.take(actor, chips_put_in(action))
                    assert taken is not None                # legal_actions checked it
                    after, from_centre, from_pile = taken
                    new_pot = pot.add(actor, from_centre, from_pile)
                else:
                    new_pot = pot.add(actor, 0, chips_put_in(action))
            if action == Action.PASS and history == "":
                edges.append(Edge(action, node=visit(child, actor.other, 0, pot, left)))
            elif action in (Action.BET, Action.RAISE):
                edges.append(Edge(action, node=visit(child, actor.other, level + 1, new_pot,
                                                     after)))
            else:
                kind = {Action.PASS: PASS, Action.CALL: SHOWDOWN, Action.FOLD: FOLD}[action]
                leaf = Leaf(len(leaves), child, kind, level,
                            actor if action == Action.FOLD else None,
                            new_pot if action == Action.CALL else pot)
                leaves.append(leaf)
                edges.append(Edge(action, leaf=leaf.index))
        nodes[index] = Node(index, history, actor, level, tuple(edges))
        return index

    visit("", first, 0, Pot(), supply)
    built = tuple(node for node in nodes if node is not None)
    assert len(built) == len(nodes)
    return BettingTree(first, built, tuple(leaves),
                       tuple(_three(rule(leaf)) for leaf in leaves), supply)


def _three(payoff: Sequence[Fraction]) -> LeafPayoff:
    """A payoff rule's answer as the (wins, ties, loses) tuple a tree stores."""
    win, tie, lose = payoff
    return (win, tie, lose)
