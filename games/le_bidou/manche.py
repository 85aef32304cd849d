"""The manche and the match of Le Bidou (docs/rules.md section 5, "Manche" and "Match") as pure
functions of the rules: the states between two hands, where a hand leads, and the match's
score. The solver (solver/manche/) and nothing else reads them; the Monte Carlo check
(solver/manche/simulate.py) restates them on its own.

A state between two hands is (chips in the pool, the first player's chips, the second
player's chips), seen from the next hand's first player (`MancheState`). Chips received come
from the pool, so the pool only shrinks, except after a tie, where nobody receives and the
two players swap: (pool, a, b) leads to (pool, b, a). The manche ends when the pool is
empty; fewer chips wins. Once a player holds more than half of the chips the manche is
decided (he can only receive more), and the state's value is known without a hand.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, ClassVar, Mapping

from games.bidou.betting import CAPTAIN, FOLD, SHOWDOWN, Leaf, Role
from games.bidou.params import ParameterError
from games.le_bidou.params import LeBidouParams
from games.le_bidou.stakes import STAKE_LIMIT, withdrawal_penalty
from games.parameters import check_choice, check_int

# Who is the first player of the second manche and of the belle (the source is silent;
# docs/rules.md section 5, "The match"): the winner of the manche before, as the player who
# received no chips is first in the next hand; or its loser; or a die each time.
MATCH_STARTS = ("winner", "loser", "die")
MATCH_WINS = 2          # two manches and a belle: the first to win two


@dataclasses.dataclass(frozen=True, order=True)
class MancheState:
    """Chips in the pool, and those the next hand's first and second players have
    received. Its value: the probability that this first player wins the manche."""

    pool: int
    first: int
    second: int

    @property
    def chips(self) -> int:
        return self.pool + self.first + self.second

    def label(self) -> str:
        return f"{self.pool},{self.first},{self.second}"

    def swapped(self) -> "MancheState":
        """The state after a tie: nobody receives and the two players swap."""
        return MancheState(self.pool, self.second, self.first)


@dataclasses.dataclass(frozen=True)
class After:
    """Where a hand leads, for the value of the person who was its first player: `state`'s
    value if `same` (he is first again), one minus it otherwise; or the end of the manche,
    worth `end` to him (1 won, 0 lost, 1/2 a tie of an even number of chips)."""

    state: MancheState | None
    same: bool = True
    end: Fraction | None = None


def start(chips: int) -> MancheState:
    """Every chip in the pool (the first player drawn by a die)."""
    return MancheState(chips, 0, 0)


def all_states(chips: int) -> list[MancheState]:
    """Every state with chips in the pool, largest pool first: chips (chips + 1) / 2 + ...
    (45 at 9 chips)."""
    return [MancheState(pool, first, chips - pool - first)
            for pool in range(chips, 0, -1) for first in range(chips - pool + 1)]


def final_value(first: int, second: int) -> Fraction:
    """The first player's result once the pool is empty: fewer chips wins."""
    return Fraction(int(first < second)) if first != second else Fraction(1, 2)


def decided(state: MancheState) -> Fraction | None:
    """The value of a state whose result is already fixed (a player holds more than half
    of the chips, or the pool is empty), else None."""
    if state.pool == 0:
        return final_value(state.first, state.second)
    if 2 * state.first > state.chips:
        return Fraction(0)
    if 2 * state.second > state.chips:
        return Fraction(1)
    return None


def received(leaf: Leaf, outcome: int, half_stake: str) -> tuple[Role | None, int]:
    """Who receives how many chips when a hand ends at `leaf` with this showdown outcome
    (+1 the first player's hand is higher, 0 a tie, -1 lower): the withdrawer his penalty;
    after a call the lower hand the called stake; on a tie nobody (None, 0)."""
    if leaf.kind == FOLD and leaf.folder is not None:
        stakes = leaf.pot.from_pile
        return leaf.folder, withdrawal_penalty(stakes[leaf.folder], stakes[leaf.folder.other],
                                               half_stake)
    if leaf.kind != SHOWDOWN:
        raise ValueError(f"a Le Bidou hand ends by a call or a withdrawal, not {leaf}")
    if outcome == 0:
        return None, 0
    return (CAPTAIN.other if outcome > 0 else CAPTAIN), leaf.level


def after_hand(state: MancheState, receiver: Role | None, chips: int) -> After:
    """Where the hand at `state` leads when `receiver` receives `chips` from the pool: the
    next first player is the one who received none; after a tie (`receiver` None) the two
    swap."""
    if receiver is None:
        return After(state.swapped(), same=False)
    if chips < 1 or chips > state.pool:
        raise ValueError(f"{chips} chips cannot be received from a pool of {state.pool}")
    if receiver == CAPTAIN:
        nxt, same = MancheState(state.pool - chips, state.second, state.first + chips), False
    else:
        nxt, same = MancheState(state.pool - chips, state.first, state.second + chips), True
    if nxt.pool == 0:
        end = final_value(nxt.first, nxt.second)
        return After(None, end=end if same else 1 - end)
    return After(nxt, same)


def match_win(manche: Fraction, rule: str) -> Fraction:
    """P(the first manche's first player wins the match) when the first player of any
    manche wins it with probability `manche`, and `rule` (MATCH_STARTS) names the first
    player of the next manche. Exact for an exact `manche`; increasing in it."""
    check_choice("match_start", rule, MATCH_STARTS)
    half = Fraction(1, 2)

    def win(mine: int, theirs: int, i_start: bool | None) -> Fraction:
        if mine == MATCH_WINS:
            return Fraction(1)
        if theirs == MATCH_WINS:
            return Fraction(0)
        p = half if i_start is None else (manche if i_start else 1 - manche)
        nxt = {"winner": (True, False), "loser": (False, True), "die": (None, None)}[rule]
        return p * win(mine + 1, theirs, nxt[0]) + (1 - p) * win(mine, theirs + 1, nxt[1])

    return win(0, 0, True)


@dataclasses.dataclass(frozen=True)
class MancheParams:
    """The rules of a manche of Le Bidou: its chips, the hand's dice and half-stake rule,
    an optional cap on stakes below the pool, and who starts the later manches of the match.

    chips: chips in the pool at the start (1..9: a stake is one digit).
    max_stake: None (a stake is at most the chips left in the pool, docs/rules.md section
        5) or a cap 1..chips: a stake is then at most min(max_stake, pool), a variant.
    match_start: the first player of the second manche and the belle (MATCH_STARTS).
    """

    chips: int = 9
    faces: int = 6
    throws: int = 3
    reroll: str = "keep"
    ranking: str = "french"
    aces_beat_bidou: bool = True
    half_stake: str = "up"
    max_stake: int | None = None
    match_start: str = "winner"

    GAME: ClassVar[str] = "le-bidou manche"

    def __post_init__(self) -> None:
        check_int("chips", self.chips, 1, STAKE_LIMIT)
        self._hand_rules(self.chips)        # the dice, ranking and penalty, checked as a hand's
        check_choice("match_start", self.match_start, MATCH_STARTS)
        if self.max_stake is not None:
            self._hand_rules(self.max_stake)     # checked as a hand's cap on its stakes
            if self.max_stake > self.chips:
                raise ParameterError(f"max_stake {self.max_stake} is above the pool ({self.chips} "
                                     f"chips): a stake is at most the chips left in the pool")

    def stake_limit(self, pool: int) -> int:
        """The highest stake of a hand played with `pool` chips left."""
        return pool if self.max_stake is None else min(pool, self.max_stake)

    def hand(self, pool: int) -> LeBidouParams:
        """The rules of the hand played with `pool` chips left in the pool."""
        return self._hand_rules(self.stake_limit(pool))

    def _hand_rules(self, max_stake: int) -> LeBidouParams:
        return LeBidouParams(faces=self.faces, throws=self.throws, reroll=self.reroll,
                             ranking=self.ranking, aces_beat_bidou=self.aces_beat_bidou,
                             max_stake=max_stake, half_stake=self.half_stake)

    def describe(self) -> str:
        text = self.hand(self.chips).describe().replace(
            f"stakes up to {self.stake_limit(self.chips)}",
            "stakes up to the pool" if self.max_stake is None
            else f"stakes up to {self.max_stake} (and the pool)")
        return f"{text}; a manche of {self.chips} chips"

    def to_dict(self) -> dict[str, Any]:
        return {"game": "le-bidou", "chips": self.chips, "faces": self.faces,
                "throws": self.throws, "reroll": self.reroll, "ranking": self.ranking,
                "aces_beat_bidou": self.aces_beat_bidou, "half_stake": self.half_stake,
                "max_stake": self.max_stake, "match_start": self.match_start}

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> "MancheParams":
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})
