"""docs/results.md, sections 4 and 5: the value with the betting removed, and the folk
advice (stop with a 6 or better) with and without betting, and chip counting in the round."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from solver.export.results_wording import pct, points, proved


def folk_sections(doc: Mapping[str, Any]) -> list[str]:
    """Sections 4 and 5: throwing against betting, and the folk advice."""
    g = doc["games"]
    lines = [
        "## 4. Throwing against betting: the value with betting removed",
        "",
        "Both players always go to a showdown at level 1 (the captain wins 2 chips, loses 2, "
        "or ties); only the throwing is left. `solver/analysis/no_betting.py` solves this "
        "throw-only game with its own maximin LP over throwing strategies and proves the "
        "value with exact best responses (`tests/test_no_betting.py` checks the LP against "
        "the normal form's LP over every pure strategy).",
        "",
        "| game | with betting | betting removed | the betting's share |",
        "|---|---|---|---|",
    ]
    labels = {"default": "default", "keep": "`--reroll keep`", "french": "`--ranking french`",
              "french_unbeaten": "`--ranking french --no-aces-beat-bidou`"}
    for name, label in labels.items():
        x = g[name]
        nb = x["no_betting"]["value"]
        lines.append(f"| {label} | {x['value']:+.6f} | {nb:+.6f} "
                     f"({proved(x['no_betting']['certificate'])}) | "
                     f"{x['value'] - nb:+.6f} |")
    folk = g["default"]["folk"]
    lines += [
        "",
        "## 5. The folk advice: stop with a 6 or better",
        "",
        "Seed 000: \"A los jugadores que hayan sacado un 6 o un valor mayor, se les aconseja "
        f"no volver a tirar\". Read as: stop with any hand at least as good as 6-1-1 "
        f"({folk['stop_hands']} of 56 hands, {pct(folk['stop_probability'])} of throws), "
        "throw again otherwise.",
        "",
        "*With the betting removed* (section 4), exactly, against a best response: a captain "
        f"following the rule guarantees {float(Fraction(folk['captain_guarantee'])):+.6f}, "
        f"that is {folk['captain_cost']:.6f} chips per hand less than the game's value; an "
        "opponent following it (whatever the captain's count) concedes "
        f"{float(Fraction(folk['opponent_guarantee'])):+.6f}, a cost of "
        f"{folk['opponent_cost']:.6f} to him.",
        "",
        "*With the betting*: the restricted game where one player's throwing follows the "
        "rule and the rest of his play (all his betting) and all of the other's is "
        "optimized: the sequence-form LP with his throwing pinned "
        "(`solve_lp(model, fixed_throw=...)`), and what his solved strategy guarantees, "
        "exactly, against a best response. " + _folk_betting(folk["with_betting"],
                                                             g["default"]["value"]),
        "",
    ]
    if "round" in doc:
        lines += _round_folk(doc["round"])
    return lines


def _round_folk(r: Mapping[str, Any]) -> list[str]:
    return [
        "*In the round*: the other piece of folk wisdom is to play every hand as the hand "
        "game says, counting chips as chips whatever the piles. One player plays the hand "
        "game's equilibrium at every state of the nine-chip round (the same throwing; the "
        "same betting probabilities over the bets the chips allow; open throws played as "
        "in the solved round). From the round's first state, where the first captain wins "
        f"with probability {r['value']:.9f} at equilibrium:",
        "",
        "| chip counter's seat | P(the first captain wins), other player best-replies "
        "(proved) |",
        "|---|---|",
        f"| first captain | at least {float(Fraction(r['captain_guarantee'])):.6f} (a loss of "
        f"{points(r['captain_cost'])}) |",
        f"| opponent | at most {float(Fraction(r['opponent_concedes'])):.6f} (a loss of "
        f"{points(r['opponent_cost'])} to him) |",
        "",
        "A player who knows the round exploits chip counting hand after hand: in a single "
        "hand the hand strategy concedes little with chips in the centre and up to about "
        "3 points of win probability once the centre is empty (`bidou round --state 0,4,5 "
        "--charts --out DIR` says 3.4%), where chips flow both ways and hands repeat, and "
        "the losses add up. The best reply is proved by the "
        "round's certificate (a super-solution checked in exact arithmetic). *These numbers "
        "depend on the equilibrium chosen*: the chip counter plays the hand's refined "
        "equilibrium (another hand equilibrium plays otherwise where the round reaches what "
        "the hand does not). What he gets against a player of the round's equilibrium "
        "rather than a best reply is not printed: it depends on which of the round's many "
        "equilibria that player follows, and the solved one (LP vertices of degenerate "
        "stage games) moves with the machine's floats: for the first captain 0.422378 on "
        "one machine, 0.422402 with another CPU's BLAS kernels, 0.422505 on a fresh clone "
        "(`docs/verification.md`, reproducibility). Reproduce: `bidou results` "
        "(`solver/round/compare.py`: `chip_counting_round`).",
        "",
    ]


def _folk_betting(folk: Mapping[str, Any], value: float) -> str:
    captain, opponent = folk["captain"], folk["opponent"]
    return (f"A captain who stops with a 6 or better and bets well guarantees "
            f"{float(Fraction(captain['guarantee'])):+.6f} (the game: {value:+.6f}), a cost of "
            f"{captain['cost']:.6f} chips per hand; an opponent doing so concedes "
            f"{float(Fraction(opponent['guarantee'])):+.6f}, a cost of {opponent['cost']:.6f}.")
