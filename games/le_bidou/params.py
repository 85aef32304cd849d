"""The rules of one hand of Le Bidou (docs/rules.md section 5), validated in one place.

Every decision of section 5 a user may change is a field here; `description()` states the
hand as a game of the family (games/family.py), which is all the solvers read.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from games.bidou.params import RANKINGS, REROLL_MODES
from games.family import DicePhase, HandDescription, Ranking
from games.le_bidou.stakes import HALF_STAKE_ROUNDING, STAKE_LIMIT, FrenchStakes, StakePenalties
from games.parameters import GameParameters, check_bool, check_choice, check_int


@dataclasses.dataclass(frozen=True)
class LeBidouParams(GameParameters):
    """The rules of one hand of Le Bidou.

    faces, throws, reroll, ranking, aces_beat_bidou: the dice, as in two-hand Bidou, with
        the French source's defaults ("rejouer tout ou partie": keep; its own ranking).
    max_stake: the highest stake a player may propose (1..9; in a manche, the pool).
    half_stake: the fine for withdrawing from the first stake s1: half of it, an odd one
        rounded "up" (ceil(s1 / 2)) or "down" (max(1, floor(s1 / 2))), chips being whole;
        or "full": the whole of s1 (not the source's rule: the penalty the half-stake rule
        is measured against, docs/results.md).
    """

    faces: int = 6
    throws: int = 3
    reroll: str = "keep"
    ranking: str = "french"
    aces_beat_bidou: bool = True
    max_stake: int = 9
    half_stake: str = "up"

    GAME: ClassVar[str] = "python_le_bidou"

    def __post_init__(self) -> None:
        check_int("faces", self.faces, 2, 6)
        check_int("throws", self.throws, 1, 3)
        check_int("max_stake", self.max_stake, 1, STAKE_LIMIT)
        check_choice("reroll", self.reroll, REROLL_MODES)
        check_choice("ranking", self.ranking, RANKINGS)
        check_choice("half_stake", self.half_stake, HALF_STAKE_ROUNDING)
        check_bool("aces_beat_bidou", self.aces_beat_bidou)

    def describe(self) -> str:
        """A short human-readable statement of the rules, for titles and summaries."""
        penalty = ("full stake for withdrawing from the first" if self.half_stake == "full"
                   else f"half stake rounded {self.half_stake}")
        text = (f"Le Bidou: {self.faces} faces, {self.throws} throws, reroll {self.reroll}, "
                f"{self.ranking} ranking, stakes up to {self.max_stake}, {penalty}")
        if self.ranking == "french":
            text += ", aces beat bidou" if self.aces_beat_bidou else ", bidou unbeaten"
        return text

    def description(self) -> HandDescription:
        """This hand as a game of the family: the solvers' only input."""
        return HandDescription(
            dice=DicePhase(faces=self.faces, throws=self.throws, reroll=self.reroll),
            ranking=Ranking(self.ranking, self.aces_beat_bidou),
            betting=FrenchStakes(self.max_stake),
            settlement=StakePenalties(self.half_stake))

