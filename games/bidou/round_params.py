"""Parameters of a round of two-hand Bidou (docs/rules.md section 4), validated in one place.

A round is the hand game of section 3 played over and over with `chips` penalty chips, so its
rules are the number of chips plus the rules of one hand (`BidouParams`). Entry points build
them through `RoundParams.from_mapping` with flat names (`chips`, `faces`, `throws`, ...), so a
bad value fails the same way as the hand's, with a `ParameterError` naming the parameter.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from games.bidou.params import BidouParams, ParameterError
from games.parameters import check_int, parse_value

MIN_CHIPS = 3
MAX_CHIPS = 12


@dataclasses.dataclass(frozen=True)
class RoundParams:
    """The rules of one round: `chips` penalty chips and the rules of each hand.

    chips: chips in play (default 9, the source's number). A player holding all of them loses;
        one holding `chips - 1` faces the open throw. Allowed 3..12:
        - at least 3, because with 2 chips both players could hold `chips - 1 = 1` chip at
          once, and the open-throw rule ("one player holds N - 1, the last chip is with the
          other or in the centre") would not say who throws first; from 3 on, `N - 1 > N / 2`
          so at most one player can hold `N - 1` chips;
        - at most 12, a little beyond the game's 9 for scaling studies: the round has
          O(N^2) chip states, each with a hand game to solve, and nothing larger is studied.
    hand: the rules of every hand (section 3): faces, throws, max_level, reroll, ranking,
        aces_beat_bidou. With 9 chips the supply of chips binds before `max_level` 4 does.
    """

    chips: int = 9
    hand: BidouParams = BidouParams()

    def __post_init__(self) -> None:
        check_int("chips", self.chips, MIN_CHIPS, MAX_CHIPS)
        if not isinstance(self.hand, BidouParams):
            raise ParameterError(f"hand must be a BidouParams, got {self.hand!r}")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "RoundParams":
        """Build from flat names (`chips` and the hand's parameters); strings are parsed."""
        values = dict(values)
        chips = values.pop("chips", cls.chips)
        known = ["chips"] + [f.name for f in dataclasses.fields(BidouParams)]
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ParameterError(f"unknown parameter {unknown[0]!r}; known: {', '.join(known)}")
        return cls(chips=parse_value("chips", chips, int), hand=BidouParams.from_mapping(values))

    def to_dict(self) -> dict[str, Any]:
        """Flat: `chips` then the hand's parameters (the inverse of `from_mapping`)."""
        return {"chips": self.chips, **self.hand.to_dict()}

    def describe(self) -> str:
        """A short human-readable statement of the rules, for titles and summaries."""
        return f"{self.chips} chips, {self.hand.describe()}"

    @property
    def open_throw_pile(self) -> int:
        """The pile (`chips - 1`) at which a player faces the open throw."""
        return self.chips - 1
