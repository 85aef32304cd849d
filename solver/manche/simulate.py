"""Monte Carlo simulation of whole manches of Le Bidou, written from the rules (docs/rules.md
sections 1, 2.2 and 5).

An independent check of the manche solver: it shares no code with it nor with the rules
layer (games/): its own dice (a seeded numpy Generator), its own French ranking, its own
stakes, withdrawal penalties and settlement, its own chips and first players. The players'
choices come from a `Policy` (solver/manche/policy.py adapts the solved strategies: the only
place the two meet). The result is how often the first player of the first hand wins the
manche, with its standard error.

Conventions passed to a policy:
- `chips` is (pool, first player's chips, second player's chips) at the start of the hand;
  `seat` is "first" or "second".
- A throw action is "stop" or the tuple of dice kept before throwing again, highest first
  (`()` throws all three again; under reroll "all" that is the only way).
- A betting action is a stake (an int: the first proposal or a raise), "withdraw" or "call";
  `stakes` are the stakes proposed so far, in order.
A policy returns {action: probability} over legal actions.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from typing import Mapping, Optional, Protocol, Union

import numpy as np

Dice = tuple[int, int, int]
ThrowChoice = Union[str, tuple[int, ...]]
BetChoice = Union[int, str]
Chips = tuple[int, int, int]
STOP, WITHDRAW, CALL = "stop", "withdraw", "call"
FIRST, SECOND = "first", "second"


class Policy(Protocol):
    def throw(self, chips: Chips, seat: str, throws: int, dice: Dice,
              first_throws: Optional[int]) -> Mapping[ThrowChoice, float]:
        """After his `throws`-th throw, holding `dice`: stop or keep some and throw again.
        `first_throws`: the first player's count (None for him)."""

    def bet(self, chips: Chips, seat: str, first_throws: int, second_throws: int,
            stakes: tuple[int, ...], dice: Dice,
            legal: tuple[BetChoice, ...]) -> Mapping[BetChoice, float]:
        """A betting decision after the stakes proposed so far."""


@dataclasses.dataclass(frozen=True)
class Rules:
    """What the simulator needs of the rules, spelled its own way."""

    chips: int = 9
    faces: int = 6
    throws: int = 3
    reroll: str = "keep"
    aces_beat_bidou: bool = True
    half_stake: str = "up"
    max_stake: int | None = None


# --- the French ranking (docs/rules.md 2.2), from the table, highest first ---------------------

def _category(dice: Dice) -> tuple[int, ...]:
    hi, mid, lo = dice
    if dice == (2, 1, 1):
        return (90,)
    if dice == (2, 2, 1):
        return (80,)
    if dice == (4, 2, 1):
        return (70,)
    if hi == lo:
        return (60, hi)
    threes = dice.count(3)
    if threes == 2:
        return (50, sum(dice) - 6)
    if hi - mid == 1 and mid - lo == 1:
        return (40, hi)
    if mid == 1 and lo == 1 and hi >= 3:
        return (30, hi)
    return (10, hi, mid, lo)


def beats(a: Dice, b: Dice, aces_beat_bidou: bool) -> int:
    """+1 if `a` is the higher hand, -1 the lower, 0 the same hand."""
    if a == b:
        return 0
    if aces_beat_bidou and {a, b} == {(1, 1, 1), (2, 1, 1)}:
        return 1 if a == (1, 1, 1) else -1
    return 1 if _category(a) > _category(b) else -1


# --- one hand -----------------------------------------------------------------------------

class Uniforms:
    """Uniform numbers in [0, 1) from a seeded numpy Generator, drawn in batches (one
    Generator call a number is most of a simulation's time)."""

    def __init__(self, seed: int, batch: int = 1 << 14) -> None:
        self.rng = np.random.default_rng(seed)
        self.batch = batch
        self.buffer: list[float] = []

    def __call__(self) -> float:
        if not self.buffer:
            self.buffer = self.rng.random(self.batch).tolist()
        return self.buffer.pop()


def _pick(rng: Uniforms, options: Mapping, what: str):  # type: ignore[no-untyped-def]
    items = [(k, p) for k, p in options.items() if p > 0]
    total = sum(p for _, p in items)
    if not items or abs(total - 1) > 1e-6:
        raise ValueError(f"{what}: not a distribution: {dict(options)}")
    u = rng() * total
    for key, p in items:
        u -= p
        if u < 0:
            return key
    return items[-1][0]


def _roll(rng: Uniforms, kept: tuple[int, ...], faces: int) -> Dice:
    new = [1 + int(rng() * faces) for _ in range(3 - len(kept))]
    hi, mid, lo = sorted(list(kept) + new, reverse=True)
    return (hi, mid, lo)


@functools.lru_cache(maxsize=None)
def _keeps(dice: Dice, reroll: str) -> list[tuple[int, ...]]:
    if reroll == "all":
        return [()]
    return sorted({tuple(sorted(c, reverse=True)) for n in (0, 1, 2)
                   for c in itertools.combinations(dice, n)})


def _turn(rng: Uniforms, rules: Rules, policy: Policy, chips: Chips, seat: str,
          first_throws: Optional[int]) -> tuple[Dice, int]:
    dice = _roll(rng, (), rules.faces)
    throws = 1
    while throws < rules.throws:
        legal = [STOP, *_keeps(dice, rules.reroll)]
        choice = _pick(rng, policy.throw(chips, seat, throws, dice, first_throws),
                       f"throw {seat} {dice}")
        if choice not in legal:
            raise ValueError(f"{choice!r} is no throw choice with {dice}")
        if choice == STOP:
            break
        dice = _roll(rng, tuple(choice), rules.faces)
        throws += 1
    return dice, throws


def _half(stake: int, rounding: str) -> int:
    return math.ceil(stake / 2) if rounding == "up" else max(1, stake // 2)


def play_hand(rng: Uniforms, rules: Rules, policy: Policy, chips: Chips
              ) -> tuple[Optional[str], int]:
    """One hand at `chips`: who receives ("first", "second", None on a tie) and how many."""
    pool = chips[0]
    top = pool if rules.max_stake is None else min(pool, rules.max_stake)
    first_dice, tf = _turn(rng, rules, policy, chips, FIRST, None)
    second_dice, ts = _turn(rng, rules, policy, chips, SECOND, tf)
    dice = {FIRST: first_dice, SECOND: second_dice}
    stakes: list[int] = []
    actor = FIRST
    while True:
        raises: list[BetChoice] = list(range((stakes[-1] if stakes else 0) + 1, top + 1))
        legal = tuple(raises) if not stakes else (WITHDRAW, CALL, *raises)
        choice = _pick(rng, policy.bet(chips, actor, tf, ts, tuple(stakes), dice[actor], legal),
                       f"bet {actor} {stakes}")
        if choice not in legal:
            raise ValueError(f"{choice!r} is not legal after stakes {stakes}")
        if choice == WITHDRAW:
            own = stakes[-2] if len(stakes) >= 2 else 0
            return actor, own if own else _half(stakes[0], rules.half_stake)
        if choice == CALL:
            order = beats(dice[FIRST], dice[SECOND], rules.aces_beat_bidou)
            if order == 0:
                return None, 0
            return (SECOND if order > 0 else FIRST), stakes[-1]
        assert isinstance(choice, int)
        stakes.append(choice)
        actor = SECOND if actor == FIRST else FIRST


def play_manche(rng: Uniforms, rules: Rules, policy: Policy) -> tuple[bool, int]:
    """One manche from a full pool: whether the first hand's first player wins it, and
    how many hands it took."""
    pool = rules.chips
    held = {"A": 0, "B": 0}
    first, second = "A", "B"
    hands = 0
    while pool > 0:
        who, amount = play_hand(rng, rules, policy, (pool, held[first], held[second]))
        hands += 1
        if who is None:
            first, second = second, first
            continue
        person = first if who == FIRST else second
        held[person] += amount
        pool -= amount
        if person == first:                 # the one who received none is first next
            first, second = second, first
    if held["A"] == held["B"]:
        return rng() < 0.5, hands   # an even manche drawn: half a win
    return held["A"] < held["B"], hands


@dataclasses.dataclass(frozen=True)
class Estimate:
    manches: int
    wins: int
    mean_hands: float

    @property
    def rate(self) -> float:
        return self.wins / self.manches

    @property
    def standard_error(self) -> float:
        p = self.rate
        return math.sqrt(max(p * (1 - p), 1e-12) / self.manches)


def estimate(rules: Rules, policy: Policy, manches: int, seed: int = 0) -> Estimate:
    """The first player's win rate over `manches` simulated manches."""
    rng = Uniforms(seed)
    wins = hands = 0
    for _ in range(manches):
        won, n = play_manche(rng, rules, policy)
        wins += won
        hands += n
    return Estimate(manches, wins, hands / manches)
