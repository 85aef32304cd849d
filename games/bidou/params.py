"""Game parameters of two-hand Bidou, validated in one place.

Every rule of docs/rules.md that a user may change is a field here; every entry point
(OpenSpiel's `load_game`, the command line, strategy files) builds its rules through
`BidouParams.from_mapping` so that a bad value fails the same way everywhere.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from games.parameters import (
    GameParameters,
    ParameterError,
    check_bool,
    check_choice,
    check_int,
)

__all__ = ["BidouParams", "ParameterError", "check_int", "REROLL_MODES", "RANKINGS",
           "MAX_LEVEL_LIMIT"]

REROLL_MODES = ("all", "keep")
RANKINGS = ("encyclopedia", "french")
MAX_LEVEL_LIMIT = 20


@dataclasses.dataclass(frozen=True)
class BidouParams(GameParameters):
    """The rules of one hand of two-hand Bidou (docs/rules.md section 3).

    faces: sides of each die (2..6; fewer faces make small test variants).
    throws: most throws a player may make in his turn (1..3).
    max_level: highest bet level a raise may reach (the nine chips allow 4).
    reroll: "all" (every throw rethrows all three dice) or "keep" (dice may be put aside).
    ranking: "encyclopedia" (English/Spanish source) or "french" ("Le Bidou").
    aces_beat_bidou: french ranking only: 1-1-1 beats 2-1-1.
    """

    faces: int = 6
    throws: int = 3
    max_level: int = 4
    reroll: str = "all"
    ranking: str = "encyclopedia"
    aces_beat_bidou: bool = True

    GAME: ClassVar[str] = "python_bidou"

    def __post_init__(self) -> None:
        check_int("faces", self.faces, 2, 6)
        check_int("throws", self.throws, 1, 3)
        check_int("max_level", self.max_level, 1, MAX_LEVEL_LIMIT)
        check_choice("reroll", self.reroll, REROLL_MODES)
        check_choice("ranking", self.ranking, RANKINGS)
        check_bool("aces_beat_bidou", self.aces_beat_bidou)

    def describe(self) -> str:
        """A short human-readable statement of the rules, for titles and summaries."""
        text = (f"{self.faces} faces, {self.throws} throws, reroll {self.reroll}, "
                f"{self.ranking} ranking, max level {self.max_level}")
        if self.ranking == "french":
            text += ", aces beat bidou" if self.aces_beat_bidou else ", bidou unbeaten"
        return text
