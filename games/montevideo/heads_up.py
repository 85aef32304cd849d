"""Montevideo's heads-up end (docs/rules.md section 8, V15 and V16) as pure functions of the
rules: the states between two rounds once two players are left, one round's betting as the
family's tree (games/bidou/betting.py `BettingTree`, so the two-player hand solvers read it),
and where each end of a round leads.

A state is (the captain's chips, the other player's chips, the ante of the next round), seen
from the captain. A round's chips are settled by the pure rules of games/montevideo/betting.py
(`settle`, `next_captain`); the ante then rises by one, up to six (V15). A player with no chips
left is out and the other has won (V16): a state's value is the probability that its captain
ends with every chip.

Both players' chips and the ante bound the betting: each antes what he can (V4), and a bet can
be no larger than the other can match (V9), so the largest stage (nine chips each, ante one)
bets at most eight chips beyond the ante. A round in which a player is all in by his ante has
no betting: its tree is one decision with the single action `SHOW` (the family's trees start
with a decision), then the showdown.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, Callable, Sequence

from games.bidou.betting import (
    CAPTAIN,
    FOLD,
    OPPONENT,
    OUTCOMES,
    SHOWDOWN,
    BettingTree,
    Edge,
    Leaf,
    LeafPayoff,
    Node,
    PayoffRule,
    Pot,
    Role,
    Supply,
)
from games.bidou_multi.betting import leader
from games.family import DicePhase, HandDescription, Ranking
from games.montevideo import betting
from games.montevideo.params import (
    ANY,
    MAX_CHIPS,
    MontevideoParams,
    ParameterError,
    parse_bet_sizes,
)
from games.parameters import check_int

MAX_ANTE = 6                      # V15: the ante rises round by round to six
# The most chips a round of the heads-up end may let a player bet beyond his ante: its tree
# doubles with each chip (2^(n+1) decisions a first bettor), and 18 chips between the two
# (the default) bet at most 7, 20 at most 9.
MAX_BEHIND = 12
SHOW = "show"                     # the one action of a round without betting
Sizes = tuple[int | str, ...] | None


@dataclasses.dataclass(frozen=True, order=True)
class HeadsUpState:
    """The chips of the next round's captain and of the other player, and that round's ante.
    Its value: the probability that this captain ends with every chip."""

    captain: int
    opponent: int
    ante: int

    @property
    def total(self) -> int:
        return self.captain + self.opponent

    @property
    def stacks(self) -> tuple[int, int]:
        return (self.captain, self.opponent)

    def label(self) -> str:
        return f"{self.captain},{self.opponent},{self.ante}"

    def mirror(self) -> "HeadsUpState":
        """The same chips and ante with the other player as captain."""
        return HeadsUpState(self.opponent, self.captain, self.ante)


@dataclasses.dataclass(frozen=True)
class After:
    """Where a round leads, for the value of the person who was its captain: `state`'s value
    if `same` (he is captain again), one minus it otherwise; or the end of the game, worth
    `end` to him (1: he holds every chip, 0: he is out)."""

    state: HeadsUpState | None
    same: bool = True
    end: int | None = None


@dataclasses.dataclass(frozen=True)
class HeadsUpParams:
    """The heads-up end of a game of Montevideo: `total` chips between the two players left,
    the dice (`faces`, `throws`), the bets allowed (`bet_sizes`, as `MontevideoParams`), and
    the ante of the first round of two (V15: 2 once a third player is out; 1 in a game of
    two, whose first round is at the starting ante)."""

    total: int = 18
    faces: int = 6
    throws: int = 3
    bet_sizes: str = ANY
    first_ante: int = 2

    def __post_init__(self) -> None:
        check_int("total chips", self.total, 2, 4 * MAX_CHIPS)
        check_int("faces", self.faces, 2, 6)
        check_int("throws", self.throws, 1, 3)
        check_int("first ante", self.first_ante, 1, MAX_ANTE)
        behind = self.total // 2 - self.first_ante
        if behind > MAX_BEHIND:
            raise ParameterError(
                f"total chips {self.total}: the largest round of two would let a player bet "
                f"{behind} chips beyond his ante, a betting tree of 2^{behind + 1} decisions; "
                f"at most {MAX_BEHIND} are solved ({2 * (MAX_BEHIND + self.first_ante) + 1} "
                f"chips in all)")
        sizes = parse_bet_sizes(self.bet_sizes)
        object.__setattr__(self, "bet_sizes", ANY if sizes is None
                           else "/".join(str(s) for s in sizes))

    @classmethod
    def of_game(cls, params: MontevideoParams) -> "HeadsUpParams":
        """The heads-up end of `params`' game: every chip of the start between two players."""
        return cls(total=sum(params.start_stacks), faces=params.faces, throws=params.throws,
                   bet_sizes=params.bet_sizes, first_ante=1 if params.players == 2 else 2)

    @property
    def sizes(self) -> Sizes:
        return parse_bet_sizes(self.bet_sizes)

    def states(self) -> tuple[HeadsUpState, ...]:
        """Every state of the heads-up end: each split of the chips, each ante from the
        first, either player captain (a split and its mirror)."""
        return all_states(self.total, range(self.first_ante, MAX_ANTE + 1))

    def check_state(self, state: HeadsUpState) -> None:
        """A one-line `ParameterError` unless `state` is one of `states()`."""
        if state.total != self.total:
            raise ParameterError(f"state {state.label()} holds {state.total} chips; the "
                                 f"heads-up end here has {self.total}")
        if state.ante < self.first_ante:
            raise ParameterError(f"state {state.label()}: the ante of a round of two is at "
                                 f"least {self.first_ante} here")

    def round(self, state: HeadsUpState) -> HandDescription:
        return describe_round(state, self.faces, self.throws, self.bet_sizes)

    def describe(self) -> str:
        sizes = "" if self.bet_sizes == ANY else f", bets {self.bet_sizes}"
        throws = f"{self.throws} throw{'s' if self.throws > 1 else ''}"
        return (f"Montevideo heads-up: {self.total} chips, {self.faces} faces, {throws}, "
                f"ante {self.first_ante} rising to {MAX_ANTE}{sizes}")

    def to_dict(self) -> dict[str, Any]:
        return {"game": "montevideo-heads-up", **dataclasses.asdict(self)}

    @classmethod
    def from_dict(cls, rules: Any) -> "HeadsUpParams":
        """The rules a report states (`to_dict`); a one-line `ParameterError` otherwise."""
        if not isinstance(rules, dict) or rules.get("game") != "montevideo-heads-up":
            raise ParameterError("not the rules of Montevideo's heads-up end")
        fields = {k: v for k, v in rules.items() if k != "game"}
        if set(fields) != {f.name for f in dataclasses.fields(cls)}:
            raise ParameterError(f"the heads-up rules name {sorted(fields)}")
        return cls(**fields)


def parse_state(text: str) -> HeadsUpState:
    """"CAPTAIN,OPPONENT,ANTE" (chips of each, the next round's ante) as a state; a bad text
    raises a one-line `ParameterError`."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ParameterError(f"a heads-up state is CAPTAIN,OPPONENT,ANTE such as 10,8,2, "
                             f"got {text!r}")
    captain, opponent, ante = (int(p) for p in parts)
    check_int("the captain's chips", captain, 1, 4 * MAX_CHIPS)
    check_int("the other player's chips", opponent, 1, 4 * MAX_CHIPS)
    check_int("ante", ante, 1, MAX_ANTE)
    return HeadsUpState(captain, opponent, ante)


def all_states(total: int, antes: Sequence[int] = tuple(range(1, MAX_ANTE + 1))
               ) -> tuple[HeadsUpState, ...]:
    """Every state with `total` chips between the two players, at each of `antes`."""
    return tuple(HeadsUpState(c, total - c, a) for a in antes for c in range(1, total))


def next_ante(ante: int) -> int:
    """V15: the next round's ante, one more, at most six."""
    return min(ante + 1, MAX_ANTE)


def after_round(state: HeadsUpState, net: int, next_captain: int) -> After:
    """Where a round at `state` leads when its captain's net result is `net` chips and seat
    `next_captain` (0: the captain, 1: the other) captains the next round."""
    captain, opponent = state.captain + net, state.opponent - net
    assert captain >= 0 and opponent >= 0
    if opponent == 0:
        return After(None, end=1)
    if captain == 0:
        return After(None, end=0)
    ante = next_ante(state.ante)
    if next_captain == 0:
        return After(HeadsUpState(captain, opponent, ante), same=True)
    return After(HeadsUpState(opponent, captain, ante), same=False)


def _compare(outcome: int) -> Callable[[int, int], int]:
    """The seats' comparison when the captain's hand wins (1), ties (0) or loses (-1)."""
    return lambda a, b: 0 if a == b else (outcome if a == 0 else -outcome)


def round_result(closed: betting.Betting, outcome: int) -> tuple[int, int]:
    """The captain's net chips and the next captain's seat, by the pure rules (V12-V14)."""
    compare = _compare(outcome)
    return betting.settle(closed, compare)[0], betting.next_captain(closed, compare)


@dataclasses.dataclass(frozen=True)
class RoundTree:
    """One round's betting when `first` leads: the family's tree, paying the captain's net
    chips, and the closed betting behind each of its leaves (by leaf index)."""

    tree: BettingTree
    closed: tuple[betting.Betting, ...]


def _token(action: str) -> str:
    """A history's token for an action: k (check), f, c, b3 (bet 3), r5 (raise to 5)."""
    if action in (betting.CHECK, betting.FOLD, betting.CALL):
        return {betting.CHECK: "k", betting.FOLD: "f", betting.CALL: "c"}[action]
    if action == SHOW:
        return "s"
    return ("b" if action.startswith("bet") else "r") + str(betting.amount_of(action))


def build_round_tree(stacks: tuple[int, int], ante: int, first: Role, sizes: Sizes = None
                     ) -> RoundTree:
    """The betting of a round between `stacks` (the captain's, the other's) at `ante` when
    `first` leads, by the pure rules (`betting.new_betting`, `legal_actions`, `apply`).
    Histories join the tokens of `_token` with "." ("b3.r5.c"); leaves pay the captain's
    net chips by showdown outcome."""
    counts = (1, 1) if first == CAPTAIN else (2, 1)
    assert leader(counts) == int(first)
    nodes: list[Node] = []
    leaves: list[Leaf] = []
    closed: list[betting.Betting] = []
    payoffs: list[LeafPayoff] = []

    def end(history: str, state: betting.Betting) -> Edge:
        kind = SHOWDOWN if state.kind() == betting.SHOWDOWN else FOLD
        folder = None if kind == SHOWDOWN else Role(state.folded.index(True))
        put = state.put
        leaf = Leaf(len(leaves), history, kind, state.bet, folder,
                    Pot(from_pile=(put[0], put[1])))
        leaves.append(leaf)
        closed.append(state)
        payoffs.append(tuple(Fraction(round_result(state, o)[0])  # type: ignore[arg-type]
                             for o in OUTCOMES))
        return Edge("", leaf=leaf.index)

    def visit(history: str, state: betting.Betting) -> int:
        index = len(nodes)
        actor = Role(first if state.to_act is None else state.to_act)
        nodes.append(Node(index, history, actor, state.bet, ()))       # reserved: pre-order
        edges = []
        if state.closed():                     # all in by the ante: nobody bets
            edges.append(dataclasses.replace(end(_join(history, SHOW), state), action=SHOW))
        for action in betting.legal_actions(state, sizes):
            after = betting.apply(state, action, sizes)
            child = _join(history, action)
            if after.closed():
                edges.append(dataclasses.replace(end(child, after), action=action))
            else:
                edges.append(Edge(action, node=visit(child, after)))
        nodes[index] = Node(index, history, actor, state.bet, tuple(edges))
        return index

    visit("", betting.new_betting(stacks, ante, counts))
    return RoundTree(BettingTree(first, tuple(nodes), tuple(leaves), tuple(payoffs)),
                     tuple(closed))


def _join(history: str, action: str) -> str:
    return _token(action) if not history else f"{history}.{_token(action)}"


@dataclasses.dataclass(frozen=True)
class HeadsUpBetting:
    """A heads-up round's betting as a betting structure of the family (games/family.py): the
    leader is the player with fewer throws, the captain on equal counts (V7); bets of every
    whole amount or of a restricted set (V8-V11), bounded by both players' chips."""

    stacks: tuple[int, int]
    ante: int
    sizes: Sizes = None
    name: str = "poker betting"

    def first_bettor(self, captain_throws: int, opponent_throws: int) -> Role:
        return Role(leader((captain_throws, opponent_throws)))

    def round_trees(self) -> dict[Role, RoundTree]:
        return {first: build_round_tree(self.stacks, self.ante, first, self.sizes)
                for first in (CAPTAIN, OPPONENT)}

    def trees(self, payoff: PayoffRule, supply: Supply | None = None
              ) -> dict[Role, BettingTree]:
        if supply is not None:
            raise ValueError("a Montevideo round's bets are bounded by its stacks, "
                             "not by a supply")
        return {first: dataclasses.replace(rt.tree, payoffs=tuple(
                    payoff(leaf) for leaf in rt.tree.leaves))
                for first, rt in self.round_trees().items()}

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "stacks": list(self.stacks), "ante": self.ante,
                "bet_sizes": "any" if self.sizes is None else list(self.sizes)}


@dataclasses.dataclass(frozen=True)
class PotChips:
    """A heads-up round's settlement as the captain's net chips: a showdown moves the smaller
    of the two contributions to the higher hand (the rest of the larger one is a side pot of
    one player and comes back); a folder loses what he put in."""

    name: str = "pot chips"
    zero_sum: bool = True

    def payoff(self, leaf: Leaf) -> LeafPayoff:
        put = leaf.pot.from_pile
        if leaf.kind == SHOWDOWN:
            moved = Fraction(min(put))
            return (moved, Fraction(0), -moved)
        value = Fraction(-put[0] if leaf.folder == CAPTAIN else put[1])
        return (value, value, value)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "zero_sum": self.zero_sum}


def describe_round(state: HeadsUpState, faces: int = 6, throws: int = 3,
                   bet_sizes: str = "any") -> HandDescription:
    """The round played at `state` as a two-player hand of the family: Bidou's dice thrown in
    turn from the captain with public counts (V5, V6), the encyclopedia's ranking with the
    highest hand winning (V3), poker betting bounded by the chips (V8-V11)."""
    return HandDescription(
        dice=DicePhase(faces=faces, throws=throws, reroll="all"),
        ranking=Ranking("encyclopedia"),
        betting=HeadsUpBetting(state.stacks, state.ante, parse_bet_sizes(bet_sizes)),
        settlement=PotChips())


def round_leads(state: HeadsUpState, trees: dict[Role, RoundTree]
                ) -> dict[Role, tuple[tuple[After, ...], ...]]:
    """Where each leaf of the round at `state` leads, by showdown outcome (OUTCOMES)."""
    return {first: tuple(tuple(after_round(state, *round_result(closed, o)) for o in OUTCOMES)
                         for closed in rt.closed)
            for first, rt in trees.items()}
