"""docs/results.md's Montevideo section, rendered from the document's "montevideo" part
(`solver.pipeline.montevideo_results`, made by `python -m solver.app.montevideo_results`)."""

from __future__ import annotations

from typing import Any, Mapping

COMMAND = "python -m solver.app.montevideo_results"


def _interval(x: Mapping[str, Any]) -> str:
    return f"[{x['lower']}, {x['upper']}]"


def _where(x: Mapping[str, Any]) -> str:
    c, o = x["chips"]
    return f"captain {c} chip{'s' if c > 1 else ''} against {o}, ante {x['ante']}"


def _captaincy(low: Mapping[str, Any], high: Mapping[str, Any]) -> str:
    """What being captain is worth, from its lowest and highest proved intervals."""
    if float(high["upper"]) < 0:
        return (f"**Being captain is a cost at every state**: his chance minus his chance with "
                f"the same chips as the other player lies between {_interval(low)} "
                f"({_where(low)}) and {_interval(high)} ({_where(high)}).")
    return (f"**What the captaincy is worth** (his chance minus his chance with the same "
            f"chips as the other player): from {_interval(low)} ({_where(low)}) to "
            f"{_interval(high)} ({_where(high)}).")


def render(part: Mapping[str, Any], number: int) -> list[str]:
    """Section `number` of docs/results.md from the "montevideo" part of the document."""
    rules = part["rules"]
    total, half = rules["total"], rules["total"] // 2
    rows = "\n".join(
        f"| {row['ante']} | {_interval(row)} | [{row['chip_lower']}, {row['chip_upper']}] | "
        + ("all in by the ante" if row["all_in_hands"] is None else
           f"{row['all_in_hands']} of 56 | {row['check_hands']} of 56") + " |"
        for row in part["equal"])
    counts = part["no_betting"]
    no_bet = (f"{counts[0]['states']} of the {counts[0]['of']} states at ante "
              f"{counts[0]['ante']}, " + ", ".join(f"{row['states']} at ante {row['ante']}"
                                                  for row in counts[1:]))
    return [
        f"## {number}. Montevideo: the last two players",
        "",
        "The encyclopedia's tournament (docs/montevideo.md; rules V1-V16 in docs/rules.md "
        "section 8) once two players are left: both ante, throw in turn from the captain, bet "
        "as in poker (check, bet any amount, call, raise, fold, all in with a side pot), the "
        "**highest** hand takes the pot and its winner captains the next round; the ante rises "
        "by one a round from 2 to 6, and the last player with chips wins. A state is the "
        "captain's chips, the other's and the ante; its value, the captain's chance of ending "
        f"with every chip, is proved in exact arithmetic for all {part['states']} states of "
        f"{total} chips (three players of six; widest interval {part['max_width']:.0e}; "
        f"`bidou montevideo`, bounds below rounded outward to ten decimals). Every game ends "
        f"with probability 1 whatever either player does (proved: at most "
        f"{part['longest']:.1f} rounds expected at ante 6).",
        "",
        f"**The captain is behind.** At equal chips ({half} each) the captain's chance is "
        "below one half at every ante: when the throw counts are equal he speaks first, and "
        "in poker the first to speak is at a disadvantage. One more chip is worth about "
        f"1/{total} = {1 / total:.4f} of the chance to win, a little more or less:",
        "",
        f"| ante | captain's chance at {half}-{half} (proved) | one chip more ({half + 1}-"
        f"{half - 1} minus {half}-{half}) | of the 56 hands, those the leading captain pushes "
        "all in at least half the time | those he checks most often |",
        "|---|---|---|---|---|",
        rows,
        "",
        "The last two columns are the LP's stage equilibrium averaged over the throw counts "
        "(another equilibrium may differ); the push-or-fold chart shows them hand by hand "
        "(`outputs/montevideo/push_fold.png`). The higher the ante, the more of the stack it "
        f"already is, and the more hands go all in at once. Nobody bets at all in {no_bet} "
        "(a player is all in by his ante).",
        "",
        _captaincy(part["captaincy_lowest"], part["captaincy_highest"]),
        "",
        f"**What a chip is worth.** Heads-up, both the chip-proportional estimate and the "
        f"ICM's are the share of the chips; the proved chances stay close to it: at most "
        f"{_interval(part['below_share'])} below ({_where(part['below_share'])}) and "
        f"{_interval(part['above_share'])} above ({_where(part['above_share'])}); the lower "
        f"panel of `outputs/montevideo/win_probability.png` has every state.",
        "",
        f"Reproduce: `bidou montevideo --fresh --out outputs/montevideo` (minutes), then "
        f"`{COMMAND}`.",
        "",
    ]
