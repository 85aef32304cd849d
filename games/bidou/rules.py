"""The rules of Bidou as pure functions: hands, exact probabilities, rankings, rerolls.

Probabilities are `Fraction`s so that every number downstream can be recovered exactly.
Rankings are exposed as `compare(a, b)`, not as a sort key, because the french ranking with
`aces_beat_bidou` is not transitive (1-1-1 > 2-1-1 > 6-6-6 > 1-1-1).
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction
from typing import Iterable, Union

from games.bidou.params import RANKINGS, ParameterError

Hand = tuple[int, int, int]
Kept = tuple[int, ...]
# A throw decision: "stop", or the dice kept before throwing again (() rethrows all three).
ThrowAction = Union[str, Kept]
STOP = "stop"

BIDOU: Hand = (2, 1, 1)
ACES: Hand = (1, 1, 1)


def normalize_hand(hand: Iterable[int]) -> Hand:
    """Any three dice, in any order (tuple, list, ...) -> the hand, highest first.

    Every public function taking a hand goes through this, so `(1, 1, 2)` is the bidou
    and not a "1 high" hand with probability 0.
    """
    dice = tuple(hand)
    if len(dice) != 3:
        raise ValueError(f"a hand is three dice, got {dice!r}")
    if dice[0] >= dice[1] >= dice[2]:
        return dice  # type: ignore[return-value]
    a, b, c = sorted(dice, reverse=True)
    return (a, b, c)


def _normalize_kept(kept: Iterable[int]) -> Kept:
    return tuple(sorted(kept, reverse=True))


def format_hand(hand: Iterable[int]) -> str:
    """`(6, 3, 1)` -> `"6-3-1"`; also formats kept dice such as `(6, 5)`."""
    return "-".join(str(d) for d in hand)


def parse_hand(text: str, faces: int = 6) -> Hand:
    """`"6-3-1"` (any order) -> `(6, 3, 1)`; raises ValueError on anything else."""
    parts = text.strip().split("-")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"a hand is three dice like 6-3-1, got {text!r}")
    dice = sorted((int(p) for p in parts), reverse=True)
    if not all(1 <= d <= faces for d in dice):
        raise ValueError(f"dice must be from 1 to {faces}, got {text!r}")
    return (dice[0], dice[1], dice[2])


@functools.lru_cache(maxsize=None)
def all_hands(faces: int) -> tuple[Hand, ...]:
    """Every hand (multiset of three dice, highest first), in descending lexicographic order."""
    return tuple(
        (a, b, c)
        for a in range(faces, 0, -1)
        for b in range(a, 0, -1)
        for c in range(b, 0, -1))


@functools.lru_cache(maxsize=None)
def throw_distribution(kept: Kept, faces: int) -> dict[Hand, Fraction]:
    """Exact distribution of the hand made by throwing `3 - len(kept)` dice beside `kept`."""
    kept = _normalize_kept(kept)
    free = 3 - len(kept)
    if free < 0:
        raise ValueError("at most three dice can be kept")
    total = faces ** free
    counts: dict[Hand, int] = {}
    for roll in itertools.product(range(1, faces + 1), repeat=free):
        dice = sorted(kept + roll, reverse=True)
        hand = (dice[0], dice[1], dice[2])
        counts[hand] = counts.get(hand, 0) + 1
    return {h: Fraction(n, total) for h, n in sorted(counts.items(), reverse=True)}


def hand_distribution(faces: int) -> dict[Hand, Fraction]:
    """P(hand) for one throw of all three dice: ordered throws giving it / faces**3."""
    return throw_distribution((), faces)


def hand_probability(hand: Hand, faces: int) -> Fraction:
    return hand_distribution(faces).get(normalize_hand(hand), Fraction(0))


def keep_options(hand: Hand) -> tuple[Kept, ...]:
    """The distinct sets of dice a player may put aside before rethrowing (zero, one or two).

    `()` rethrows all three; keeping all three is the same as stopping and is not listed.
    """
    return _keep_options(normalize_hand(hand))


@functools.lru_cache(maxsize=None)
def _keep_options(hand: Hand) -> tuple[Kept, ...]:
    options: set[Kept] = {()}
    for size in (1, 2):
        for combo in itertools.combinations(hand, size):
            options.add(tuple(sorted(combo, reverse=True)))
    return tuple(sorted(options, key=lambda k: (len(k), tuple(-d for d in k))))


def throw_action_name(action: ThrowAction) -> str:
    """Readable name of a throw decision, the same words in files and in the OpenSpiel game:
    "stop", "reroll" (all three dice again) or "keep 6-5"."""
    if action == STOP:
        return "stop"
    if action == ():
        return "reroll"
    return "keep " + format_hand(action)          # type: ignore[arg-type]


def next_hand_distribution(hand: Hand, kept: Kept, faces: int) -> dict[Hand, Fraction]:
    """Distribution of the next hand when `kept` (a sub-multiset of `hand`) is put aside."""
    kept = _normalize_kept(kept)
    if kept not in keep_options(hand):
        raise ValueError(f"cannot keep {format_hand(kept)} from {format_hand(hand)}")
    return throw_distribution(kept, faces)


# --- rankings -------------------------------------------------------------------------------

def _is_straight(hand: Hand) -> bool:
    return hand[0] == hand[1] + 1 == hand[2] + 2


def _encyclopedia_key(hand: Hand) -> tuple[int, ...]:
    a, b, c = hand
    if hand == BIDOU:
        return (5,)
    if a == b == c:
        return (4, a)
    if hand == (2, 2, 1):
        return (3,)
    if _is_straight(hand):
        return (2, a)
    return (1, a, b, c)


def _french_key(hand: Hand) -> tuple[int, ...]:
    a, b, c = hand
    if hand == BIDOU:
        return (9,)
    if hand == (2, 2, 1):
        return (8,)
    if hand == (4, 2, 1):
        return (7,)
    if a == b == c:
        return (6, a)
    if sorted(hand).count(3) == 2:          # echelle: two 3s and another die
        other = c if a == b == 3 else a
        return (5, other)
    if _is_straight(hand):
        return (4, a)
    if b == c == 1 and a >= 3:              # fourchette: two aces and a 3..6
        return (3, a)
    return (1, a, b, c)


_KEYS = {"encyclopedia": _encyclopedia_key, "french": _french_key}


def rank_key(hand: Hand, ranking: str) -> tuple[int, ...]:
    """Strict total order of the ranking's table (bigger is stronger), before exceptions.

    The only exception is french `aces_beat_bidou`, which `compare` applies on top.
    """
    if ranking not in _KEYS:
        raise ParameterError(f"ranking must be one of {', '.join(RANKINGS)}, got {ranking!r}")
    return _KEYS[ranking](normalize_hand(hand))


def compare(a: Hand, b: Hand, ranking: str = "encyclopedia",
            aces_beat_bidou: bool = True) -> int:
    """+1 if hand `a` beats `b`, -1 if it loses, 0 for a tie (identical hands)."""
    a, b = normalize_hand(a), normalize_hand(b)
    if ranking == "french" and aces_beat_bidou and {a, b} == {ACES, BIDOU}:
        return 1 if a == ACES else -1
    ka, kb = rank_key(a, ranking), rank_key(b, ranking)
    return (ka > kb) - (ka < kb)


def ranked_hands(faces: int, ranking: str) -> tuple[Hand, ...]:
    """Hands strongest first, by the ranking's table (see `rank_key` for the one exception)."""
    return tuple(sorted(all_hands(faces), key=lambda h: rank_key(h, ranking), reverse=True))


def exceptions(faces: int, ranking: str, aces_beat_bidou: bool) -> tuple[tuple[Hand, Hand], ...]:
    """Pairs (winner, loser) where `compare` overrides `rank_key`'s order."""
    if ranking == "french" and aces_beat_bidou and faces >= 2:
        return ((ACES, BIDOU),)
    return ()


# --- names ----------------------------------------------------------------------------------

_NUMBER_WORDS = {1: "aces", 2: "2s", 3: "3s", 4: "4s", 5: "5s", 6: "6s"}


def hand_name(hand: Hand, ranking: str = "encyclopedia") -> str:
    """English name of the combination under the ranking."""
    a, b, c = hand = normalize_hand(hand)
    if hand == BIDOU:
        return "bidou"
    if a == b == c:
        return f"three {_NUMBER_WORDS[a]}"
    if hand == (2, 2, 1) and ranking in ("encyclopedia", "french"):
        return "2-2-1" if ranking == "encyclopedia" else "bidet (2-2-1)"
    if ranking == "french":
        key = _french_key(hand)
        if key[0] == 7:
            return "4-2-1"
        if key[0] == 5:
            return f"two 3s and {key[1]}"
        if key[0] == 3:
            return f"two aces and {a}"
    if _is_straight(hand):
        return f"straight {format_hand(hand)}"
    return f"{a} high"


def source_name(hand: Hand, ranking: str = "encyclopedia") -> str:
    """The name the source text gives the combination ("" where it gives none)."""
    a, b, c = hand = normalize_hand(hand)
    if ranking == "encyclopedia":
        if hand in (BIDOU, (2, 2, 1)):
            return "Bidú"
        if hand == (6, 5, 4):
            return "Escalera mayor"
        if _is_straight(hand):
            return "Escalera"
        return ""
    key = _french_key(hand)
    if hand == BIDOU:
        return "Bidou"
    if hand == (2, 2, 1):
        return "Bidet"
    if key[0] == 7:
        return "421"
    if key[0] == 6:
        return "Brelan d'as" if a == 1 else f"Brelan de {a}"
    if key[0] == 5:
        return "Échelle"
    if key[0] == 4:
        return "Séquence"
    if key[0] == 3:
        return "Fourchette"
    return ""
