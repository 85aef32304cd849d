"""The rules of one round of Montevideo (docs/rules.md section 8), validated in one place.
Every entry point (OpenSpiel's `load_game`, tests, later solvers) builds them through
`MontevideoParams.from_mapping`, so a bad value fails with the same one-line
`ParameterError`.

A round is played at a given ante from given chips, the captain in seat 0: the ante's
escalation once two players are left, and who is captain, are the business of the game
across rounds, which a caller builds from rounds.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from games.parameters import GameParameters, ParameterError, check_choice, check_int

__all__ = ["MontevideoParams", "ParameterError", "RANKINGS", "ANY", "EQUAL", "POT", "ALL_IN",
           "parse_bet_sizes", "parse_stacks"]

RANKINGS = ("encyclopedia",)      # V3: the English source's own table, the highest wins
ANY = "any"                       # bet_sizes: every whole amount (the full game)
EQUAL = "equal"                   # stacks: every player holds `chips`
POT, ALL_IN = "pot", "all"        # named sizes of a restricted bet_sizes
MAX_CHIPS = 24                    # most chips one player may hold (four players' six each)
MAX_SIZE = 99                     # the largest number a restricted bet_sizes may name
# Lists are written with "/" in a game string (its parameters are separated by commas);
# a mapping given from Python may use commas too.
SEPARATOR = "/"


def _items(name: str, text: str) -> list[str]:
    items = text.replace(",", SEPARATOR).split(SEPARATOR)
    if not text.strip() or any(not item.strip() for item in items):
        raise ParameterError(f"{name} must be a list such as 1/2/pot/all, got {text!r}")
    return [item.strip().lower() for item in items]


def parse_bet_sizes(text: str) -> tuple[int | str, ...] | None:
    """The amounts a restricted game allows, whole numbers ascending then "pot" and "all";
    None for "any" (every whole amount). A bad list raises a one-line `ParameterError`."""
    if str(text).strip().lower() == ANY:
        return None
    numbers: set[int] = set()
    named: set[str] = set()
    for item in _items("bet_sizes", str(text)):
        if item in (POT, ALL_IN):
            named.add(item)
        elif item.isdigit() and 1 <= int(item) <= MAX_SIZE:
            numbers.add(int(item))
        else:
            raise ParameterError(f"bet_sizes must be {ANY} or whole numbers 1..{MAX_SIZE}, "
                                 f"{POT} and {ALL_IN} such as 1/2/pot/all, got {text!r}")
    return tuple(sorted(numbers)) + tuple(n for n in (POT, ALL_IN) if n in named)


def parse_stacks(text: str, players: int) -> tuple[int, ...] | None:
    """Each seat's chips from the captain, or None for "equal". A bad list raises a one-line
    `ParameterError`."""
    if str(text).strip().lower() == EQUAL:
        return None
    items = _items("stacks", str(text))
    if len(items) != players or not all(item.isdigit() for item in items):
        raise ParameterError(f"stacks must be {EQUAL} or {players} whole numbers, one per "
                             f"seat from the captain, such as 8/4/6, got {text!r}")
    chips = tuple(int(item) for item in items)
    for count in chips:
        check_int("each of stacks", count, 1, MAX_CHIPS)
    return chips


@dataclasses.dataclass(frozen=True)
class MontevideoParams(GameParameters):
    """players: 2..4 (seat 0 is the captain, seat 1 on his left, and so on clockwise).
    chips: each player's chips when the round starts (V2: six at the start of play).
    stacks: "equal" (everybody holds `chips`), or each seat's chips from the captain, "8/4/6"
    (later in a game they differ); `chips` is then left at its default.
    faces: sides of each die (2..6; fewer faces make small test variants).
    throws: most throws in a player's turn (1..3; 1 is the pure poker reading, V5).
    ante: chips each player antes before throwing (V4; 1..6, six being the escalation's
    maximum); a player holding fewer antes all he has and is all in.
    ranking: "encyclopedia" only (V3).
    bet_sizes: "any" (every whole amount, the full game), or a restricted set such as
    "1/2/pot/all" (V9): a number n is a bet of n or a raise by n, "pot" a bet or raise of
    the pot, "all" all in.
    """

    players: int = 3
    chips: int = 6
    stacks: str = EQUAL
    faces: int = 6
    throws: int = 3
    ante: int = 1
    ranking: str = "encyclopedia"
    bet_sizes: str = ANY

    GAME: ClassVar[str] = "python_montevideo"

    def __post_init__(self) -> None:
        check_int("players", self.players, 2, 4)
        check_int("chips", self.chips, 1, MAX_CHIPS)
        check_int("faces", self.faces, 2, 6)
        check_int("throws", self.throws, 1, 3)
        check_int("ante", self.ante, 1, 6)
        check_choice("ranking", self.ranking, RANKINGS)
        if isinstance(self.bet_sizes, int) and not isinstance(self.bet_sizes, bool):
            # a game string reads "bet_sizes=2" as a number
            object.__setattr__(self, "bet_sizes", str(self.bet_sizes))
        if not isinstance(self.bet_sizes, str):
            raise ParameterError(f"bet_sizes must be {ANY} or a list such as 1/2/pot/all, "
                                 f"got {self.bet_sizes!r}")
        if not isinstance(self.stacks, str):
            raise ParameterError(f"stacks must be {EQUAL} or a list such as 8/4/6, "
                                 f"got {self.stacks!r}")
        sizes = parse_bet_sizes(self.bet_sizes)
        stacks = parse_stacks(self.stacks, self.players)
        # One spelling per rule set: the lists written with "/", equal stacks as `chips`.
        object.__setattr__(self, "bet_sizes", ANY if sizes is None
                           else SEPARATOR.join(str(s) for s in sizes))
        if stacks is not None:
            default = type(self).__dataclass_fields__["chips"].default
            if self.chips != default:
                raise ParameterError(f"give chips or stacks, not both (chips={self.chips}, "
                                     f"stacks={self.stacks!r})")
            equal = len(set(stacks)) == 1
            object.__setattr__(self, "chips", stacks[0] if equal else default)
            object.__setattr__(self, "stacks", EQUAL if equal
                               else SEPARATOR.join(str(s) for s in stacks))

    @property
    def start_stacks(self) -> tuple[int, ...]:
        """Each seat's chips when the round starts, from the captain."""
        stacks = parse_stacks(self.stacks, self.players)
        return stacks if stacks is not None else (self.chips,) * self.players

    @property
    def sizes(self) -> tuple[int | str, ...] | None:
        """The allowed amounts of a restricted game, None for every whole amount."""
        return parse_bet_sizes(self.bet_sizes)

    @property
    def reroll(self) -> str:
        """Always "all": the throws are multi-hand Bidou's, whose default rethrows every
        die (what the family's throw tables read)."""
        return "all"

    def describe(self) -> str:
        """A short human-readable statement of the rules, for titles and summaries."""
        chips = (f"{self.chips} chips each" if self.stacks == EQUAL
                 else f"chips {self.stacks}")
        sizes = "" if self.bet_sizes == ANY else f", bets {self.bet_sizes}"
        return (f"Montevideo: {self.players} players, {chips}, {self.faces} faces, "
                f"{self.throws} throws, ante {self.ante}, {self.ranking} ranking{sizes}")
