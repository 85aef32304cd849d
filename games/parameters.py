"""What every game's parameters share: one error, one check per kind of value, one parser
of values given as text, and reading and writing a parameter set (a mapping, an OpenSpiel
game string). `GameParameters.parse` is each game's one parser of the rules a user gives.

Two-hand Bidou (`games/bidou/params.py`) and Le Bidou (`games/le_bidou/params.py`) are
frozen dataclasses of their own fields built on `GameParameters`, so OpenSpiel's
`load_game`, the command line and strategy files read both the same way and fail with the
same one-line messages.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Iterable, Mapping, Sequence, TypeVar

P = TypeVar("P", bound="GameParameters")


class ParameterError(ValueError):
    """A game parameter is unknown or out of range; the message names it and what is allowed."""


def check_int(name: str, value: Any, low: int, high: int) -> None:
    """Fail, naming the parameter, unless `value` is an integer from `low` to `high`."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ParameterError(f"{name} must be an integer from {low} to {high}, got {value!r}")


def check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    """Fail, naming the parameter, unless `value` is one of `allowed`."""
    if value not in allowed:
        raise ParameterError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")


def check_bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ParameterError(f"{name} must be true or false, got {value!r}")


def parse_value(name: str, value: Any, kind: type) -> Any:
    """A value given as text (OpenSpiel strings, command lines) in the field's type; other
    values are returned as they are, for the dataclass's own checks."""
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


class GameParameters:
    """Reading and writing a frozen dataclass of parameters; `GAME` is the OpenSpiel short
    name its game string loads."""

    GAME: ClassVar[str]

    @classmethod
    def from_mapping(cls: type[P], values: Mapping[str, Any]) -> P:
        """Build from a mapping of names to values (strings are parsed); unknown names fail,
        so OpenSpiel's `load_game` and a command line fail the same way."""
        fields = {f.name: f for f in dataclasses.fields(cls)}   # type: ignore[arg-type]
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise ParameterError(
                f"unknown parameter {unknown[0]!r}; known: {', '.join(fields)}")
        return cls(**{name: parse_value(name, value, type(fields[name].default))
                      for name, value in values.items()})

    @classmethod
    def parse(cls: type[P], values: Mapping[str, Any]) -> P:
        """The game's one parser, for every caller that reads rules a user gave (the command
        line's options, a sweep's grid and its table): `from_mapping` (names not given take
        the defaults; the dataclass validates, once), then `canonical`, so that one game has
        one spelling whoever reads it."""
        return cls.from_mapping(values).canonical()

    @classmethod
    def values_of(cls, name: str, items: Sequence[str]) -> list[Any]:
        """The distinct values of one parameter given as texts (a sweep's list), each parsed
        and validated as the game's own, the first bad one named: values are checked before
        a grid multiplies them out (300 copies of one value once took 20 s)."""
        return list(dict.fromkeys(getattr(cls.from_mapping({name: item}), name)
                                  for item in items))

    def idle_rule(self, given: Iterable[str]) -> tuple[str, str, Any] | None:
        """The first of the rules `given` (those a user set, not left at their defaults)
        that changes nothing under these rules, as (that rule, the rule it depends on, the
        value it needs): `aces_beat_bidou` under a ranking other than the French one. A
        caller refuses it: `canonical` would drop the value without a word."""
        if "aces_beat_bidou" in given and self._aces_idle():
            return ("aces_beat_bidou", "ranking", "french")
        return None

    def _aces_idle(self) -> bool:
        return (hasattr(self, "aces_beat_bidou")
                and getattr(self, "ranking", "french") != "french")

    def canonical(self: P) -> P:
        """These rules with `aces_beat_bidou` at its default under a ranking other than the
        French one, where it changes nothing: without it one game had two spellings, two
        rows in a sweep table and two keys."""
        if not self._aces_idle():
            return self
        default = type(self)().aces_beat_bidou      # type: ignore[attr-defined]
        return dataclasses.replace(self, aces_beat_bidou=default)   # type: ignore[type-var]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)      # type: ignore[call-overload]

    def describe(self) -> str:
        """A short human-readable statement of the rules (each game words its own)."""
        return ", ".join(f"{name.replace('_', ' ')} {value}"
                         for name, value in self.to_dict().items())

    def to_game_string(self) -> str:
        """The OpenSpiel game string that loads exactly these rules."""
        items = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                         for k, v in self.to_dict().items())
        return f"{self.GAME}({items})"
