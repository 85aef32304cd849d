"""Game parameters of two-hand Bidou, validated in one place.

Every decision of RULES.md that a user may change is a field here; every entry point
(OpenSpiel's `load_game`, the command line, strategy files) builds its rules through
`BidouParams.from_mapping` so that a bad value fails the same way everywhere.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

REROLL_MODES = ("all", "keep")
RANKINGS = ("encyclopedia", "french")
MAX_LEVEL_LIMIT = 20


class ParameterError(ValueError):
    """A game parameter is unknown or out of range; the message names it and what is allowed."""


@dataclasses.dataclass(frozen=True)
class BidouParams:
    """The rules of one hand of two-hand Bidou (RULES.md section 3).

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

    def __post_init__(self) -> None:
        check_int("faces", self.faces, 2, 6)
        check_int("throws", self.throws, 1, 3)
        check_int("max_level", self.max_level, 1, MAX_LEVEL_LIMIT)
        if self.reroll not in REROLL_MODES:
            raise ParameterError(
                f"reroll must be one of {', '.join(REROLL_MODES)}, got {self.reroll!r}")
        if self.ranking not in RANKINGS:
            raise ParameterError(
                f"ranking must be one of {', '.join(RANKINGS)}, got {self.ranking!r}")
        if not isinstance(self.aces_beat_bidou, bool):
            raise ParameterError(
                f"aces_beat_bidou must be true or false, got {self.aces_beat_bidou!r}")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "BidouParams":
        """Build from a mapping of names to values (strings are parsed); unknown names fail."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise ParameterError(
                f"unknown parameter {unknown[0]!r}; known: {', '.join(fields)}")
        parsed: dict[str, Any] = {}
        for name, value in values.items():
            default = fields[name].default
            parsed[name] = _parse(name, value, type(default))
        return cls(**parsed)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_game_string(self) -> str:
        """The OpenSpiel game string that loads exactly these rules."""
        items = ",".join(
            f"{k}={str(v).lower() if isinstance(v, bool) else v}"
            for k, v in self.to_dict().items())
        return f"python_bidou({items})"

    def describe(self) -> str:
        """A short human-readable statement of the rules, for titles and summaries."""
        text = (f"{self.faces} faces, {self.throws} throws, reroll {self.reroll}, "
                f"{self.ranking} ranking, max level {self.max_level}")
        if self.ranking == "french":
            text += ", aces beat bidou" if self.aces_beat_bidou else ", bidou unbeaten"
        return text


def check_int(name: str, value: Any, low: int, high: int) -> None:
    """Fail, naming the parameter, unless `value` is an integer from `low` to `high`."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ParameterError(f"{name} must be an integer from {low} to {high}, got {value!r}")


def _parse(name: str, value: Any, kind: type) -> Any:
    if not isinstance(value, str):
        return value
    text = value.strip()
    if kind is bool:
        if text.lower() in ("true", "1", "yes"):
            return True
        if text.lower() in ("false", "0", "no"):
            return False
        raise ParameterError(f"{name} must be true or false, got {value!r}")
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise ParameterError(f"{name} must be an integer, got {value!r}") from None
    return text


_check_int = check_int       # the name games/bidou/round_params.py imports
