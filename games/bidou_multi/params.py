"""The rules of one hand of multi-hand Bidou, validated in one place (docs/rules.md,
"Multi-hand Bidou"). Every entry point (OpenSpiel's `load_game`, `bidou multi`, strategy
files) builds them through `MultiParams.from_mapping`, so a bad value fails the same way."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from games.bidou.params import RANKINGS, REROLL_MODES
from games.parameters import (
    GameParameters,
    ParameterError,
    check_bool,
    check_choice,
    check_int,
)

__all__ = ["MultiParams", "ParameterError", "TwoLeftParams"]


@dataclasses.dataclass(frozen=True)
class MultiParams(GameParameters):
    """players: 3 or 4 (seat 0 is the captain, seat 1 on his left, ...).
    chips: each player's store when the hand starts (the source: six).
    faces, throws, reroll, ranking, aces_beat_bidou: as in two-hand Bidou.
    max_bet: most chips an opening bet may be ("the maximum bet is three chips").
    max_raise: most chips a raise may add ("the maximum raise two chips").
    poor_fish: when everyone passes, the highest hand receives a chip from each other player.
    discard: situation 7, a lone bettor whom everyone else passes discards one chip.
    """

    players: int = 3
    chips: int = 6
    faces: int = 6
    throws: int = 3
    reroll: str = "all"
    ranking: str = "encyclopedia"
    aces_beat_bidou: bool = True
    max_bet: int = 3
    max_raise: int = 2
    poor_fish: bool = False
    discard: bool = True

    GAME: ClassVar[str] = "python_bidou_multi"
    PLAYERS: ClassVar[tuple[int, int]] = (3, 4)

    def __post_init__(self) -> None:
        check_int("players", self.players, *self.PLAYERS)
        check_int("chips", self.chips, 1, 12)
        check_int("faces", self.faces, 2, 6)
        check_int("throws", self.throws, 1, 3)
        check_int("max_bet", self.max_bet, 1, 3)
        check_int("max_raise", self.max_raise, 1, 2)
        check_choice("reroll", self.reroll, REROLL_MODES)
        check_choice("ranking", self.ranking, RANKINGS)
        for name in ("aces_beat_bidou", "poor_fish", "discard"):
            check_bool(name, getattr(self, name))

    @property
    def zero_sum(self) -> bool:
        """Never: a tie at a showdown removes chips from the game (situation 6) under every
        rule set, and situation 7's discard removes one more when `discard` is on."""
        return False



@dataclasses.dataclass(frozen=True)
class TwoLeftParams(MultiParams):
    """Situation 8 of a whole game (docs/rules.md, M19): the two players left with chips play
    on under the multi-hand betting rules with `players=2`. Only the whole-game simulation
    (`solver/multi/situations.py`) uses it; the OpenSpiel game takes 3 or 4 players."""

    players: int = 2
    PLAYERS: ClassVar[tuple[int, int]] = (2, 2)
