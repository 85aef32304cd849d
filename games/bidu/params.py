"""The rules of one vuelta of Bidú (docs/rules.md section 7), validated in one place. Every
entry point (OpenSpiel's `load_game`, tests, later solvers) builds them through
`BiduParams.from_mapping`, so a bad value fails with the same one-line `ParameterError`."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import ClassVar

from games.parameters import GameParameters, ParameterError, check_choice, check_int

__all__ = ["BiduParams", "ParameterError", "RANKINGS", "STACK_LIMIT", "THROWING"]

RANKINGS = ("encyclopedia",)      # B2: the Spanish text's own table
# B5: everyone throws at once ("together"); "captain-first" is not a rule of the text but a
# variant to measure it against: the captain throws his whole turn, then the other player,
# who knows at which throw the captain stood, as in Bidou.
TOGETHER, CAPTAIN_FIRST = "together", "captain-first"
THROWING = (TOGETHER, CAPTAIN_FIRST)
STACK_LIMIT = 10                   # most chips a `stack` may be (action ids grow with it)


@dataclasses.dataclass(frozen=True)
class BiduParams(GameParameters):
    """players: 2..4 (seat 0 is the captain, seat 1 on his left, and so on clockwise).
    faces: sides of each die (2..6; fewer faces make small test variants).
    throws: most throws in a vuelta (1..3); every throw rethrows all three dice.
    ante: chips each player puts in the pot before the vuelta (B3).
    stack: most chips a player may put in the pot in one vuelta beyond his ante (B4).
    ranking: "encyclopedia" only (B2).
    throwing: "together" (B5: everyone throws at once) or "captain-first" (a variant to
    compare with: the captain throws his whole turn first, the other knows his stand throw).
    replay_value: what a replay terminal pays the captain (the other player its opposite),
    an exact fraction "p/q" ("0/1", "-3/7"; a game string takes no float, and reads a
    whole number as an integer, not text): the worth of the vuelta
    played again (B12), so that a solver can price the replay by the fixed point of that
    worth (`solver.bidu.vuelta`); two players only unless 0. Default 0: the replay paid
    nothing, the vuelta's value times P(no replay).
    """

    players: int = 2
    faces: int = 6
    throws: int = 3
    ante: int = 1
    stack: int = 5
    ranking: str = "encyclopedia"
    throwing: str = TOGETHER
    replay_value: str = "0/1"

    GAME: ClassVar[str] = "python_bidu"

    def __post_init__(self) -> None:
        check_int("players", self.players, 2, 4)
        check_int("faces", self.faces, 2, 6)
        check_int("throws", self.throws, 1, 3)
        check_int("ante", self.ante, 1, 10)
        check_int("stack", self.stack, 1, STACK_LIMIT)
        check_choice("ranking", self.ranking, RANKINGS)
        check_choice("throwing", self.throwing, THROWING)
        worth = _fraction("replay_value", self.replay_value)
        if worth and self.players != 2:
            raise ParameterError(f"replay_value must be 0 with {self.players} players "
                                 f"(a replay's worth is priced for two players only), "
                                 f"got {self.replay_value!r}")
        # one spelling per value, "p/q" always: OpenSpiel reads a bare "0" back as an integer
        object.__setattr__(self, "replay_value", f"{worth.numerator}/{worth.denominator}")

    @property
    def replay_worth(self) -> Fraction:
        """`replay_value` as a Fraction: what a replay terminal pays the captain."""
        return Fraction(self.replay_value)

    @property
    def reroll(self) -> str:
        """Always "all" ("debe tirar los tres dados"): what the family's throw tables read."""
        return "all"

    def describe(self) -> str:
        """A short human-readable statement of the rules, for titles and summaries."""
        replay = f", replay worth {self.replay_value}" if self.replay_worth else ""
        order = ", the captain throwing first" if self.throwing == CAPTAIN_FIRST else ""
        return (f"Bidú: {self.players} players, {self.faces} faces, {self.throws} throws, "
                f"ante {self.ante}, stack {self.stack}, {self.ranking} ranking{order}{replay}")


def _fraction(name: str, value: object) -> Fraction:
    """An exact fraction from text ("3/7", "0.25") or a number (a float read exactly as
    its decimal spelling), or a one-line `ParameterError`."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Fraction)):
        raise ParameterError(f"{name} must be a fraction such as 3/7, got {value!r}")
    try:
        return Fraction(repr(value) if isinstance(value, float) else value)
    except (ValueError, ZeroDivisionError):
        raise ParameterError(f"{name} must be a fraction such as 3/7, got {value!r}") from None
