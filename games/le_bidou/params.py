"""The rules of one hand of Le Bidou (RULES.md section 5), validated in one place.

Every decision of section 5 a user may change is a field here; `description()` states the
hand as a game of the family (games/family.py), which is all the solvers read.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from games.bidou.params import RANKINGS, REROLL_MODES, ParameterError, check_int
from games.family import DicePhase, HandDescription, Ranking
from games.le_bidou.stakes import HALF_STAKE_ROUNDING, STAKE_LIMIT, FrenchStakes, StakePenalties


@dataclasses.dataclass(frozen=True)
class LeBidouParams:
    """The rules of one hand of Le Bidou.

    faces, throws, reroll, ranking, aces_beat_bidou: the dice, as in two-hand Bidou, with
        the French source's defaults ("rejouer tout ou partie": keep; its own ranking).
    max_stake: the highest stake a player may propose (1..9; in a manche, the pool).
    half_stake: how half of an odd first stake is rounded for a withdrawal: "up"
        (ceil(s1 / 2)) or "down" (max(1, floor(s1 / 2))): chips are whole.
    """

    faces: int = 6
    throws: int = 3
    reroll: str = "keep"
    ranking: str = "french"
    aces_beat_bidou: bool = True
    max_stake: int = 9
    half_stake: str = "up"

    def __post_init__(self) -> None:
        check_int("faces", self.faces, 2, 6)
        check_int("throws", self.throws, 1, 3)
        check_int("max_stake", self.max_stake, 1, STAKE_LIMIT)
        _check_choice("reroll", self.reroll, REROLL_MODES)
        _check_choice("ranking", self.ranking, RANKINGS)
        _check_choice("half_stake", self.half_stake, HALF_STAKE_ROUNDING)
        if not isinstance(self.aces_beat_bidou, bool):
            raise ParameterError(
                f"aces_beat_bidou must be true or false, got {self.aces_beat_bidou!r}")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "LeBidouParams":
        """Build from a mapping of names to values (strings are parsed); unknown names fail,
        so OpenSpiel's `load_game` and a command line fail the same way."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise ParameterError(
                f"unknown parameter {unknown[0]!r}; known: {', '.join(fields)}")
        return cls(**{name: _parse(name, value, type(fields[name].default))
                      for name, value in values.items()})

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_game_string(self) -> str:
        """The OpenSpiel game string that loads exactly these rules."""
        items = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                         for k, v in self.to_dict().items())
        return f"python_le_bidou({items})"

    def describe(self) -> str:
        """A short human-readable statement of the rules, for titles and summaries."""
        text = (f"Le Bidou: {self.faces} faces, {self.throws} throws, reroll {self.reroll}, "
                f"{self.ranking} ranking, stakes up to {self.max_stake}, half stake "
                f"rounded {self.half_stake}")
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


def _check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ParameterError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")


def _parse(name: str, value: Any, kind: type) -> Any:
    """A value given as text (OpenSpiel strings, command lines) in the field's type."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if kind is bool:
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise ParameterError(f"{name} must be true or false, got {value!r}")
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise ParameterError(f"{name} must be an integer, got {value!r}") from None
    return text
