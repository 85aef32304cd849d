"""The ranking table of Bidou hands: probabilities and showdown shares, exactly.

Everything here depends on one throw of three dice only, so of the game parameters only
`faces`, `ranking` and `aces_beat_bidou` matter; `throws`, `reroll` and `max_level` are
carried along in the JSON's "rules" for the record.

All numbers are `Fraction`s; `stats_json` adds floats (and keeps the exact value as a string
where it is useful) for consumers that cannot read fractions.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

from games.bidou import rules
from games.bidou.params import BidouParams
from games.bidou.rules import Hand

__all__ = ["HandStats", "ranking_table", "p_straight_or_better", "stats_json", "stats_text"]

LOWEST_STRAIGHT: Hand = (3, 2, 1)


@dataclasses.dataclass(frozen=True)
class HandStats:
    """One hand of the ranking table.

    probability: P(one throw of three dice gives `hand`).
    beats: share of all throws that `hand` beats under `rules.compare`.
    ties: share of all throws it ties with (only itself, in both rankings).
    """

    hand: Hand
    name: str
    source_name: str
    probability: Fraction
    beats: Fraction
    ties: Fraction

    @property
    def loses(self) -> Fraction:
        """Share of all throws that beat `hand`."""
        return 1 - self.beats - self.ties


def ranking_table(params: BidouParams) -> list[HandStats]:
    """Every hand with its probability and the shares of throws it beats and ties, strongest
    first (the order of `rules.ranked_hands`; with french `aces_beat_bidou` the one exception,
    1-1-1 over 2-1-1, is applied by `compare` in `beats` but does not move 1-1-1 up the table).
    """
    dist = rules.hand_distribution(params.faces)
    table = []
    for hand in rules.ranked_hands(params.faces, params.ranking):
        beats = ties = Fraction(0)
        for other, p in dist.items():
            result = rules.compare(hand, other, params.ranking, params.aces_beat_bidou)
            if result > 0:
                beats += p
            elif result == 0:
                ties += p
        table.append(HandStats(
            hand=hand,
            name=rules.hand_name(hand, params.ranking),
            source_name=rules.source_name(hand, params.ranking),
            probability=dist[hand],
            beats=beats,
            ties=ties))
    return table


def p_straight_or_better(params: BidouParams) -> Fraction:
    """Probability that one throw ranks at or above the lowest straight 3-2-1.

    Encyclopedia ranking: "a straight or better" of the Spanish source (000_), which says it
    comes up in one throw in six; with 6 faces this is exactly 1/6.
    French ranking: the same definition, i.e. the share of throws whose `rank_key` is at or
    above that of 3-2-1: bidou, bidet, 421, triples, échelles and straights (19/72 with 6
    faces). The `aces_beat_bidou` exception does not matter here, as both hands are above 3-2-1.
    With fewer than 3 faces no straight can be thrown, and the threshold is still 3-2-1's key.
    """
    threshold = rules.rank_key(LOWEST_STRAIGHT, params.ranking)
    return sum((p for hand, p in rules.hand_distribution(params.faces).items()
                if rules.rank_key(hand, params.ranking) >= threshold), Fraction(0))


def _fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def stats_json(params: BidouParams) -> dict[str, Any]:
    """The ranking table as plain JSON data (strongest hand first)."""
    p_sob = p_straight_or_better(params)
    return {
        "rules": params.to_dict(),
        "hands": [
            {
                "rank": rank,
                "hand": rules.format_hand(row.hand),
                "name": row.name,
                "source_name": row.source_name,
                "probability": float(row.probability),
                "probability_fraction": _fraction_text(row.probability),
                "beats": float(row.beats),
                "ties": float(row.ties),
            }
            for rank, row in enumerate(ranking_table(params), start=1)
        ],
        "p_straight_or_better": float(p_sob),
        "p_straight_or_better_fraction": _fraction_text(p_sob),
    }


def stats_text(params: BidouParams) -> str:
    """The ranking table as an aligned plain-text table, for people."""
    table = ranking_table(params)
    title = f"Bidou hands, strongest first: {params.faces} faces, {params.ranking} ranking"
    if params.ranking == "french":
        title += (" (1-1-1 beats 2-1-1)" if params.aces_beat_bidou
                  else " (2-1-1 beats everything)")
    headers = ("rank", "hand", "name", "source name", "P", "P (float)", "beats", "ties")
    rows = [
        (str(rank), rules.format_hand(row.hand), row.name, row.source_name,
         _fraction_text(row.probability), f"{float(row.probability):.6f}",
         f"{float(row.beats) * 100:.2f}%", f"{float(row.ties) * 100:.2f}%")
        for rank, row in enumerate(table, start=1)
    ]
    right = {0, 4, 5, 6, 7}
    widths = [max(len(r[i]) for r in (headers, *rows)) for i in range(len(headers))]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    p_sob = p_straight_or_better(params)
    out = [title, "", line(headers), line(tuple("-" * w for w in widths))]
    out += [line(r) for r in rows]
    out += ["", f"straight or better (at or above 3-2-1): {_fraction_text(p_sob)}"
                f" = {float(p_sob):.6f}"]
    return "\n".join(out) + "\n"
