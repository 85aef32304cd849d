"""The match: three rounds (reroll all, keep, all), the first to win two wins it.

Each round starts afresh with the first captain drawn by a die, so a player wins a round
from its start with probability 1/2 whatever the rules (the captain's chance p and the
other's 1 - p, each with probability 1/2); inside a round his chance is the state's value.
"""

from __future__ import annotations

from fractions import Fraction

ROUNDS = ("all", "keep", "all")


def match_win(wins: int, losses: int, round_win: Fraction | float = Fraction(1, 2)
              ) -> Fraction | float:
    """P(winning the match) for a player with `wins` and `losses` rounds so far, who wins
    the round now being played with probability `round_win` and each later round with 1/2."""
    if wins >= 2:
        return Fraction(1)
    if losses >= 2:
        return Fraction(0)
    half = Fraction(1, 2)
    after_win = _from_score(wins + 1, losses, half)
    after_loss = _from_score(wins, losses + 1, half)
    return round_win * after_win + (1 - round_win) * after_loss


def _from_score(wins: int, losses: int, half: Fraction) -> Fraction:
    if wins >= 2:
        return Fraction(1)
    if losses >= 2:
        return Fraction(0)
    return half * _from_score(wins + 1, losses, half) + half * _from_score(wins, losses + 1,
                                                                           half)


def match_table() -> list[dict]:
    """P(win the match) at the start of each round, for every score that can stand then."""
    rows = []
    for number, reroll in enumerate(ROUNDS, start=1):
        for wins in range(0, min(number, 2)):
            losses = number - 1 - wins
            if losses >= 2:
                continue
            rows.append({"round": number, "reroll": reroll, "wins": wins, "losses": losses,
                         "p_match": match_win(wins, losses)})
    return rows
