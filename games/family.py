"""A game of the dice-bluffing family as one description made of named parts.

The sources describe several games that share dice, rankings and a bluffing structure
(docs/model.md, "A game description"). What varies between them is said by small frozen
value objects, each with its own rules:

    HandDescription = DicePhase (faces, throws, reroll rule, who throws when, what is public)
                    + Ranking (compare(a, b))
                    + BettingStructure (betting trees: children, legal actions given supply)
                    + SettlementRule (each leaf's chips to the captain; zero-sum or not)
                    + players

The compact model (`solver/hand/model.py`) and every solver read a description only through
these parts, so a new betting structure (Le Bidou's stakes, docs/rules.md section 5) is a new
class here beside `OneChipLadder`, and nothing in the solvers changes. `describe(params)`
gives two-hand Bidou as it is solved today.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from games.bidou import rules
from games.bidou.betting import (
    CAPTAIN,
    OPPONENT,
    BettingTree,
    Leaf,
    LeafPayoff,
    PayoffRule,
    Role,
    Supply,
    build_tree,
    first_bettor,
    hand_game_payoff,
)
from games.bidou.params import RANKINGS, REROLL_MODES, BidouParams, ParameterError, check_int

# The only dice phase the compact model reduces exactly (docs/model.md): the captain throws
# his whole turn, then the opponent; throw counts are public, dice are not.
SEQUENTIAL = (CAPTAIN, OPPONENT)
THROW_COUNTS = "throw counts"


@dataclasses.dataclass(frozen=True)
class DicePhase:
    """Three dice of `faces` sides, up to `throws` throws a turn, rerolled by `reroll`;
    `order` is who throws his turn first and `public` what the other then sees."""

    faces: int = 6
    throws: int = 3
    reroll: str = "all"
    order: tuple[Role, Role] = SEQUENTIAL
    public: str = THROW_COUNTS

    def __post_init__(self) -> None:
        check_int("faces", self.faces, 2, 6)
        check_int("throws", self.throws, 1, 3)
        if self.reroll not in REROLL_MODES:
            raise ParameterError(
                f"reroll must be one of {', '.join(REROLL_MODES)}, got {self.reroll!r}")

    def hands(self) -> tuple[rules.Hand, ...]:
        return rules.all_hands(self.faces)

    def throw_actions(self) -> list[rules.ThrowAction]:
        """Stop, then each set of dice a player may keep before throwing again (`()`:
        all three rethrown), fewest kept first."""
        if self.reroll == "all":
            return [rules.STOP, ()]
        kept = sorted({k for h in self.hands() for k in rules.keep_options(h)},
                      key=lambda k: (len(k), tuple(-d for d in k)))
        return [rules.STOP, *kept]

    def public_states(self) -> tuple[tuple[int, int], ...]:
        """What both players know when the betting starts: (captain's throws, opponent's)."""
        counts = range(1, self.throws + 1)
        return tuple((tc, to) for tc in counts for to in counts)

    def to_dict(self) -> dict[str, Any]:
        return {"faces": self.faces, "throws": self.throws, "reroll": self.reroll,
                "order": [role.label for role in self.order], "public": self.public}


@dataclasses.dataclass(frozen=True)
class Ranking:
    """Who wins a showdown: `compare(a, b)` (not a sort key: one ranking is not transitive),
    read by solvers as an order plus the pairs that override it (`exceptions`)."""

    name: str = "encyclopedia"
    aces_beat_bidou: bool = True

    def __post_init__(self) -> None:
        if self.name not in RANKINGS:
            raise ParameterError(
                f"ranking must be one of {', '.join(RANKINGS)}, got {self.name!r}")

    def compare(self, a: rules.Hand, b: rules.Hand) -> int:
        return rules.compare(a, b, self.name, self.aces_beat_bidou)

    def ranked(self, faces: int) -> tuple[rules.Hand, ...]:
        """Hands from strongest to weakest in the order (exceptions aside)."""
        return rules.ranked_hands(faces, self.name)

    def exceptions(self, faces: int) -> tuple[tuple[rules.Hand, rules.Hand], ...]:
        """(winner, loser) pairs where `compare` overrides the order."""
        return rules.exceptions(faces, self.name, self.aces_beat_bidou)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "aces_beat_bidou": self.aces_beat_bidou}


class BettingStructure(Protocol):
    """The betting of a hand after the dice: who bets first and one tree per first bettor.

    A tree (games/bidou/betting.py `BettingTree`) is the one traversal API every solver
    walks; its leaves' payoffs come from `payoff` (a settlement rule, or the round's
    continuation values) and its legal bets may be limited by a `supply` of chips.
    """

    @property
    def name(self) -> str: ...

    def first_bettor(self, captain_throws: int, opponent_throws: int) -> Role: ...

    def trees(self, payoff: PayoffRule, supply: Supply | None = None
              ) -> dict[Role, BettingTree]: ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclasses.dataclass(frozen=True)
class OneChipLadder:
    """Two-hand Bidou's betting (docs/rules.md section 3): pass or bet one chip, then fold, call
    or raise one chip more while the level is below `max_level`; the captain bets first
    unless he threw more times than the opponent."""

    max_level: int = 4
    name: str = "one-chip ladder"

    def first_bettor(self, captain_throws: int, opponent_throws: int) -> Role:
        return first_bettor(captain_throws, opponent_throws)

    def trees(self, payoff: PayoffRule, supply: Supply | None = None
              ) -> dict[Role, BettingTree]:
        return {first: build_tree(first, self.max_level, supply, payoff)
                for first in (CAPTAIN, OPPONENT)}

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "max_level": self.max_level}


class SettlementRule(Protocol):
    """Where the chips of a finished hand go, as the captain's payoff at each leaf by
    showdown outcome (captain wins, ties, loses)."""

    @property
    def name(self) -> str: ...

    @property
    def zero_sum(self) -> bool: ...

    def payoff(self, leaf: Leaf) -> LeafPayoff: ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclasses.dataclass(frozen=True)
class PenaltyChips:
    """Two-hand Bidou's settlement: chips are penalties; after a call at level k the lower
    hand takes the 2k chips bet, a folder takes one chip, two passes move none."""

    name: str = "penalty chips"
    zero_sum: bool = True

    def payoff(self, leaf: Leaf) -> LeafPayoff:
        return hand_game_payoff(leaf)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "zero_sum": self.zero_sum}


@dataclasses.dataclass(frozen=True)
class HandDescription:
    """One hand of a game of the family, part by part."""

    dice: DicePhase
    ranking: Ranking
    betting: BettingStructure
    settlement: SettlementRule
    players: int = 2

    def trees(self, supply: Supply | None = None,
              payoff: PayoffRule | None = None) -> dict[Role, BettingTree]:
        """The betting trees, paid by the settlement unless `payoff` (the round's
        continuation values) replaces it."""
        return self.betting.trees(payoff or self.settlement.payoff, supply)

    def params(self) -> BidouParams:
        """The two-hand Bidou parameters this description states (ParameterError when it
        is another game: the parameter files and OpenSpiel strings only know that one)."""
        if (not isinstance(self.betting, OneChipLadder)
                or not isinstance(self.settlement, PenaltyChips) or self.players != 2
                or self.dice.order != SEQUENTIAL or self.dice.public != THROW_COUNTS):
            raise ParameterError(f"not a two-hand Bidou description: {self.to_dict()}")
        return BidouParams(faces=self.dice.faces, throws=self.dice.throws,
                           max_level=self.betting.max_level, reroll=self.dice.reroll,
                           ranking=self.ranking.name,
                           aces_beat_bidou=self.ranking.aces_beat_bidou)

    def to_dict(self) -> dict[str, Any]:
        return {"dice": self.dice.to_dict(), "ranking": self.ranking.to_dict(),
                "betting": self.betting.to_dict(), "settlement": self.settlement.to_dict(),
                "players": self.players}


def describe(params: BidouParams) -> HandDescription:
    """Two-hand Bidou under `params`, as a description."""
    return HandDescription(
        dice=DicePhase(faces=params.faces, throws=params.throws, reroll=params.reroll),
        ranking=Ranking(params.ranking, params.aces_beat_bidou),
        betting=OneChipLadder(params.max_level),
        settlement=PenaltyChips())
