"""docs/results.md's Bidú section, rendered from the document's "bidu" part
(`solver.pipeline.bidu_results`, made by `python -m solver.app.bidu_results`)."""

from __future__ import annotations

from typing import Any, Mapping

COMMAND = "python -m solver.app.bidu_results"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def render(part: Mapping[str, Any], number: int) -> list[str]:
    """Section `number` of docs/results.md from the "bidu" part of the document."""
    d, folk, play = part["default"], part["folk"], part["betting"]
    stacks = "\n".join(f"| {row['stack']} | [{row['lower']}, {row['upper']}] | "
                       f"{_pct(row['replay'])} |" for row in part["by_stack"])
    opening = ", ".join(f"{label} {_pct(p)}" for label, p in play["opening"].items()
                        if p >= 0.0005)
    raises = ", ".join(f"{label} {_pct(p)}" for label, p in play["raises"].items()
                       if p >= 0.0005)
    ends = play["ends"]
    seats = ("captain", "other player")
    standing = "; ".join(
        f"the {seats[row['seat']]} after throw {row['throw']}: "
        + (f"{row['weakest_stood']} or better, by and large ({_pct(row['chance_of_standing'])}"
           " of throws stood on)" if row["weakest_stood"] else "never")
        for row in part["standing"])
    return [
        f"## {number}. Bidú: the Spanish pot game, two players",
        "",
        "The Spanish text's own game (docs/bidu.md; rules B1-B17 in docs/rules.md section "
        "7): everyone antes one chip and throws at once, each stands or throws all three dice "
        "again (up to three throws), who stood when is announced, the first to stand speaks "
        "first (the captain on a tie), bets and raises name any total up to the stack (five "
        "chips beyond the ante), the **highest** hand takes the pot, and a vuelta nobody bets "
        "on is played again with the same pot. Its value is the fixed point of the replay, "
        "proved in exact arithmetic by the best replies to both strategies over the whole "
        "vuelta (`bidou solve --game bidu`; bounds printed rounded outward).",
        "",
        f"**The captain loses.** At the default rules the captain's value is in "
        f"[{d['lower']}, {d['upper']}] chips per vuelta (width {d['width']:.0e}): he speaks "
        f"first whenever both stand at the same throw, and speaking first in a pot game "
        f"gives information away. Nobody bets in {_pct(d['replay'])} of vueltas, which are "
        f"played again. The stack, the most a player may put in beyond his ante, changes "
        f"the value so:",
        "",
        "| stack | captain's value per vuelta (proved) | chance of a replay |",
        "|---|---|---|",
        stacks,
        "",
        f"**Bet sizes at equilibrium** (default rules; chances per vuelta; *these depend on "
        f"the equilibrium chosen*: the LP's vertex): openings {opening}; raises {raises}. "
        f"A vuelta ends at a showdown {_pct(ends['showdown'])} of the time, with one player "
        f"left {_pct(ends['one left'])}, and is replayed {_pct(ends['replay'])}.",
        "",
        f"**Standing** (the same equilibrium): {standing}. The text's \"6-3-1 estará justo "
        f"por encima del promedio\" speaks of one throw's average; the players stand on "
        f"less than half their throws.",
        "",
        f"**The folk advice** (\"A los jugadores que hayan sacado un 6 o un valor mayor, se "
        f"les aconseja no volver a tirar\"): read as stand with {folk['hand']} or better "
        f"({folk['hands']} of 56 hands, {_pct(folk['chance'])} of throws). A captain whose "
        f"throwing follows it and who bets as well as he can (his betting and all of the "
        f"other's play solved with his throwing pinned) guarantees {folk['captain_guarantees']}"
        f" chips per vuelta, exactly, against a best reply: a cost of "
        f"[{folk['cost_lower']}, {folk['cost_upper']}] chips per vuelta.",
        "",
        f"Reproduce: `{COMMAND}` (minutes: a fresh solve per stack and for the folk advice).",
        "",
    ]
