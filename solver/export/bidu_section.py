"""docs/results.md's Bidú section, rendered from the document's "bidu" part
(`solver.pipeline.bidu_results`, made by `python -m solver.app.bidu_results`)."""

from __future__ import annotations

import math
from typing import Any, Mapping

COMMAND = "python -m solver.app.bidu_results"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _order_gain(together: Mapping[str, Any], first: Mapping[str, Any]) -> str:
    """Which way of throwing the captain prefers, and by how much (from the proved bounds:
    both ends of the difference, rounded outward to four decimals, are given when they
    differ)."""
    low = float(together["lower"]) - float(first["upper"])
    high = float(together["upper"]) - float(first["lower"])
    if low > 0:
        way, a, b = "throwing at once", low, high
    elif high < 0:
        way, a, b = "throwing first, in turn,", -high, -low
    else:
        return "the two ways of throwing are worth the same to the captain, within the proof."
    amount = (f"{math.floor(a * 1e4) / 1e4:.4f}" if math.floor(a * 1e4) == math.floor(b * 1e4)
              else f"between {math.floor(a * 1e4) / 1e4:.4f} and {math.ceil(b * 1e4) / 1e4:.4f}")
    return (f"{way} is worth {amount} chips per vuelta to the captain (the other player "
            f"{'no longer knows' if way == 'throwing at once' else 'knows'} at which throw "
            f"the captain stood while he throws).")


def render(part: Mapping[str, Any], number: int) -> list[str]:
    """Section `number` of docs/results.md from the "bidu" part of the document."""
    d, folk, play = part["default"], part["folk"], part["betting"]
    stacks = "\n".join(f"| {row['stack']} | [{row['lower']}, {row['upper']}] | "
                       f"{_pct(row['replay'])} |" for row in part["by_stack"])
    opening = ", ".join(f"{label} {_pct(p)}" for label, p in play["opening"].items()
                        if p >= 0.0005)
    raises = ", ".join(f"{label.replace('raise to', 'to')} {_pct(p)}"
                       for label, p in play["raises"].items() if p >= 0.0005)
    ends = play["ends"]
    seats = ("captain", "other player")
    standing = "; ".join(
        f"the {seats[row['seat']]} after throw {row['throw']} stands with every hand from "
        f"{row['every_hand_from']} up"
        + (f" and {row['weaker_stood']} weaker hands besides" if row["weaker_stood"] else "")
        + f" ({_pct(row['chance_of_standing'])} of throws, mixed hands counted by their "
        f"chance)" for row in part["standing"])
    stood_least = max(row["chance_of_standing"] for row in part["standing"]) < 0.5
    first = part["captain_first"]
    width = ("narrower than 1e-12" if d["width"] < 1e-12 else f"width {d['width']:.0e}")
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
        f"[{d['lower']}, {d['upper']}] chips per vuelta (an interval {width}). The rules "
        f"treat the two players alike but for one thing: when both stand at the same throw "
        f"the captain speaks first (B8). Nobody bets in {_pct(d['replay'])} of vueltas, "
        f"which are played again. The stack, the most a player may put in beyond his ante, "
        f"changes the value so:",
        "",
        "| stack | captain's value per vuelta (proved) | chance of a replay (the equilibrium "
        "found; another may differ) |",
        "|---|---|---|",
        stacks,
        "",
        f"**Throwing at once against throwing in turn.** Played with the same dice, ranking "
        f"and betting but the captain throwing his whole turn first, the other player "
        f"knowing at which throw he stood all through his own turn (as in Bidou; "
        f"`--throwing captain-first`), the captain's value is in [{first['lower']}, "
        f"{first['upper']}]: " + _order_gain(d, first),
        "",
        f"**Bet sizes at equilibrium** (default rules; chances per vuelta; *these depend on "
        f"the equilibrium chosen*: the LP's vertex): openings {opening}; raises {raises}. "
        f"A vuelta ends at a showdown {_pct(ends['showdown'])} of the time, with one player "
        f"left {_pct(ends['one left'])}, and is replayed {_pct(ends['replay'])}.",
        "",
        f"**Standing** (the same equilibrium; the whole of it, hand by hand: "
        f"[img/bidu-standing.png](img/bidu-standing.png), `python -m solver.app.bidu_charts --out "
        f"DIR`): {standing}. The text's \"6-3-1 estará justo "
        f"por encima del promedio\" speaks of one throw's average"
        + ("; the players stand on less than half their throws." if stood_least else "."),
        "",
        f"**The folk advice** (\"A los jugadores que hayan sacado un 6 o un valor mayor, se "
        f"les aconseja no volver a tirar\"): read as stand with {folk['hand']} or better "
        f"({folk['hands']} of 56 hands, {_pct(folk['chance'])} of throws). A captain whose "
        f"throwing follows it and who bets as well as he can (his betting and all of the "
        f"other's play solved with his throwing pinned) guarantees {folk['captain_guarantees']}"
        f" chips per vuelta, exactly, against a best reply: a cost of "
        f"[{folk['cost_lower']}, {folk['cost_upper']}] chips per vuelta."
        + (f" The other player following it the same way concedes {folk['other_concedes']}"
           f" chips per vuelta to the captain, exactly, against a best reply: a cost to him "
           f"of [{folk['other_cost_lower']}, {folk['other_cost_upper']}] chips per vuelta."
           if "other_concedes" in folk else ""),
        "",
        *(_sweep(part["sweep"]) if "sweep" in part else []),
        f"Reproduce: `{COMMAND}` (minutes: a fresh solve per stack and for the folk advice).",
        "",
    ]


def _sweep(sweep: Mapping[str, Any]) -> list[str]:
    """The paragraph and table of the sweep over faces, throws and stack."""
    throws = sorted({row["throws"] for row in sweep["by_faces_throws"]})
    faces = sorted({row["faces"] for row in sweep["by_faces_throws"]})
    value = {(row["faces"], row["throws"]): row["value"] for row in sweep["by_faces_throws"]}
    table = ["| faces | " + " | ".join(f"{t} throw{'s' if t > 1 else ''}" for t in throws)
             + " |", "|---|" + "---|" * len(throws)]
    table += [f"| {f} | " + " | ".join(f"{value[(f, t)]:+.4f}" for t in throws) + " |"
              for f in faces]
    gain = sweep["together_over_first"]
    behind = ("the captain's value is negative in every one"
              if sweep["captain_always_behind"] else "the captain's value is not always negative")
    width = ("narrower than 1e-12" if sweep["widest"] < 1e-12 else f"{sweep['widest']:.0e}")
    worth = (f"never less than nothing and at most {gain['most']:.4f}"
             if gain["least"] > -1e-12 else
             f"between {gain['least']:.4f} and {gain['most']:.4f}")
    fewer = all(value[(f, a)] < value[(f, b)] for f in faces for a, b in zip(throws, throws[1:]))
    return [
        f"**Every rule set** (`{sweep['command']}`, `docs/data/bidu_sweep.csv`, on Dask): "
        f"{sweep['proved']} of {sweep['rule_sets']} rule sets proved, the widest interval "
        f"{width}; throwing together, {behind}. Over the {gain['pairs']} pairs of rule sets, "
        f"throwing at once is worth {worth} chips per vuelta to the captain against "
        f"throwing first" + (" (nothing with one throw, where nobody chooses)"
                            if sweep["one_throw_same"] else "")
        + f". The captain's value at stack {sweep['stack']}, by faces and throws"
        + (" (each throw more, less of a disadvantage)" if fewer else "") + ":",
        "",
        *table,
        "",
    ]
