"""Le Bidou's stakes (docs/rules.md section 5) as a betting structure and a settlement rule of the
family (games/family.py), in the one tree API of games/bidou/betting.py.

The first player (the captain, who threw first) proposes a stake s1 in 1..max_stake, whatever
the throw counts; facing a stake s_k the other player withdraws, calls or raises to any
stake above s_k up to max_stake, and so on. Nothing is put in while the players speak: chips
are *received* when the hand ends, so a leaf records the stakes standing, each player's
last proposal, in its `pot` (as chips from his pile), and the settlement reads the penalty
from them:

- withdraw facing s_1: the withdrawer receives half of s_1, `ceil(s1 / 2)` ("up") or
  `max(1, floor(s1 / 2))` ("down"), or, under the full-stake penalty ("full", not the
  source's rule: a rule to measure the half-stake rule against), the whole of s_1;
- withdraw facing s_k, k >= 2: he receives his own last stake s_{k-1};
- call facing s_k: the lower hand receives s_k; on a tie nobody receives any.

The captain's payoff is the chips the opponent receives minus the chips he receives.

Histories name each decision by one token per action: the stake proposed (a digit, since
stakes are at most 9), "w" for a withdrawal, "c" for a call; "35c" is: stake 3, raise to 5,
call.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

from games.bidou.betting import (
    CAPTAIN,
    FOLD,
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
from games.bidou.params import ParameterError, check_int

# The penalty for withdrawing from the first stake: half of it rounded up or down (the
# source's "la moitié de l'enjeu"), or the whole stake ("full": a rule to compare with).
HALF_STAKE_ROUNDING = ("up", "down", "full")
# Nine chips start in the pool: no stake can exceed them, and a stake is one digit.
STAKE_LIMIT = 9

WITHDRAW, CALL = "withdraw", "call"


def stake_action(stake: int) -> str:
    """The first player's proposal: "stake 3"."""
    return f"stake {stake}"


def raise_action(stake: int) -> str:
    """A raise, named by the stake it proposes: "raise to 5"."""
    return f"raise to {stake}"


def half_stake(stake: int, rounding: str) -> int:
    """The fine for withdrawing from a first stake, in whole chips: half of it rounded up,
    or down but at least one; under "full", the whole stake."""
    if rounding == "full":
        return stake
    if rounding == "up":
        return (stake + 1) // 2
    return max(1, stake // 2)


def withdrawal_penalty(own_stake: int, other_stake: int, rounding: str) -> int:
    """The chips a withdrawing player receives: his own last stake, or, if he has proposed
    none (he faces the first stake), half of the first stake (or all of it, "full")."""
    return own_stake if own_stake > 0 else half_stake(other_stake, rounding)


@dataclasses.dataclass(frozen=True)
class FrenchStakes:
    """Le Bidou's betting: the captain always proposes first; every proposal is a whole
    stake above the standing one, up to `max_stake`."""

    max_stake: int = STAKE_LIMIT
    name: str = "french stakes"

    def __post_init__(self) -> None:
        check_int("max_stake", self.max_stake, 1, STAKE_LIMIT)

    def first_bettor(self, captain_throws: int, opponent_throws: int) -> Role:
        return CAPTAIN

    def trees(self, payoff: PayoffRule, supply: Supply | None = None
              ) -> dict[Role, BettingTree]:
        if supply is not None:
            raise ValueError("Le Bidou's stakes are limited by max_stake (in a manche: the "
                             "pool), not by a supply of chips")
        return {CAPTAIN: build_stakes_tree(self.max_stake, payoff)}

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "max_stake": self.max_stake}


@dataclasses.dataclass(frozen=True)
class StakePenalties:
    """Le Bidou's settlement: a withdrawal's penalty or the called stake, received by the
    withdrawer or the lower hand (module docstring)."""

    half_stake: str = "up"
    name: str = "stake penalties"
    zero_sum: bool = True

    def __post_init__(self) -> None:
        if self.half_stake not in HALF_STAKE_ROUNDING:
            raise ParameterError(f"half_stake must be one of {', '.join(HALF_STAKE_ROUNDING)}"
                                 f", got {self.half_stake!r}")

    def payoff(self, leaf: Leaf) -> LeafPayoff:
        if leaf.kind == SHOWDOWN:
            return (Fraction(leaf.level), Fraction(0), Fraction(-leaf.level))
        if leaf.kind != FOLD or leaf.folder is None:
            raise ValueError(f"a Le Bidou hand ends by a call or a withdrawal, not {leaf}")
        stakes = leaf.pot.from_pile
        penalty = withdrawal_penalty(stakes[leaf.folder], stakes[leaf.folder.other],
                                     self.half_stake)
        value = Fraction(-penalty if leaf.folder == CAPTAIN else penalty)
        return (value, value, value)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "half_stake": self.half_stake, "zero_sum": self.zero_sum}


def build_stakes_tree(max_stake: int, payoff: PayoffRule) -> BettingTree:
    """The stakes tree: the captain's proposal at the root, then withdraw, call or raise.
    Nodes in pre-order; 2**max_stake nodes and 2 * (2**max_stake - 1) leaves."""
    nodes: list[Node] = []
    leaves: list[Leaf] = []

    def visit(history: str, actor: Role, standing: int, pot: Pot) -> int:
        index = len(nodes)
        nodes.append(Node(index, history, actor, standing, ()))     # reserved: pre-order
        edges = []
        if standing > 0:
            for action, kind in ((WITHDRAW, FOLD), (CALL, SHOWDOWN)):
                leaf = Leaf(len(leaves), history + action[0], kind, standing,
                            actor if kind == FOLD else None, pot)
                leaves.append(leaf)
                edges.append(Edge(action, leaf=leaf.index))
        name = raise_action if standing > 0 else stake_action
        for stake in range(standing + 1, max_stake + 1):
            after = pot.add(actor, 0, stake - pot.from_pile[actor])
            edges.append(Edge(name(stake),
                              node=visit(history + str(stake), actor.other, stake, after)))
        nodes[index] = Node(index, history, actor, standing, tuple(edges))
        return index

    visit("", CAPTAIN, 0, Pot())
    return BettingTree(CAPTAIN, tuple(nodes), tuple(leaves),
                       tuple(payoff(leaf) for leaf in leaves))
