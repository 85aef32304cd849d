"""The rules of one vuelta of Bidú (docs/rules.md section 7), validated in one place. Every
entry point (OpenSpiel's `load_game`, tests, later solvers) builds them through
`BiduParams.from_mapping`, so a bad value fails with the same one-line `ParameterError`."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from games.parameters import GameParameters, ParameterError, check_choice, check_int

__all__ = ["BiduParams", "ParameterError", "RANKINGS", "STACK_LIMIT"]

RANKINGS = ("encyclopedia",)      # B2: the Spanish text's own table
STACK_LIMIT = 10                   # most chips a `stack` may be (action ids grow with it)


@dataclasses.dataclass(frozen=True)
class BiduParams(GameParameters):
    """players: 2..4 (seat 0 is the captain, seat 1 on his left, and so on clockwise).
    faces: sides of each die (2..6; fewer faces make small test variants).
    throws: most throws in a vuelta (1..3); every throw rethrows all three dice.
    ante: chips each player puts in the pot before the vuelta (B3).
    stack: most chips a player may put in the pot in one vuelta beyond his ante (B4).
    ranking: "encyclopedia" only (B2).
    """

    players: int = 2
    faces: int = 6
    throws: int = 3
    ante: int = 1
    stack: int = 5
    ranking: str = "encyclopedia"

    GAME: ClassVar[str] = "python_bidu"

    def __post_init__(self) -> None:
        check_int("players", self.players, 2, 4)
        check_int("faces", self.faces, 2, 6)
        check_int("throws", self.throws, 1, 3)
        check_int("ante", self.ante, 1, 10)
        check_int("stack", self.stack, 1, STACK_LIMIT)
        check_choice("ranking", self.ranking, RANKINGS)

    @property
    def reroll(self) -> str:
        """Always "all" ("debe tirar los tres dados"): what the family's throw tables read."""
        return "all"

    def describe(self) -> str:
        """A short human-readable statement of the rules, for titles and summaries."""
        return (f"Bidú: {self.players} players, {self.faces} faces, {self.throws} throws, "
                f"ante {self.ante}, stack {self.stack}, {self.ranking} ranking")
