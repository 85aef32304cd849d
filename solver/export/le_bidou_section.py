"""docs/results.md's Le Bidou section (section 6): what stakes change against one-chip
betting, rendered from the document's "le_bidou" part (`solver.pipeline.le_bidou_results`),
and its plot (docs/img/results_le_bidou_stakes.png)."""

from __future__ import annotations

from typing import Any, Mapping

PLOT = "results_le_bidou_stakes.png"


def _pct(x: float) -> str:
    return "<0.1%" if 0 < x < 0.0005 else f"{100 * x:.1f}%"


def _exploitability(x: float) -> str:
    """Kept to 12 decimals (the document's float_decimals): 0 means below 5e-13."""
    return "< 5e-13" if x == 0 else f"{x:.1e}"


def _share(cell: Mapping[str, float]) -> str:
    return _pct(cell["bluffs_per_hand"] / cell["per_hand"]) if cell["per_hand"] > 0 else "–"


def _mean_first(hand: Mapping[str, Any]) -> float:
    """The expected first stake (the first player always proposes one)."""
    return sum(int(s) * c["per_hand"] for s, c in hand["first"].items())


def _interval(hand: Mapping[str, Any]) -> str:
    if hand.get("exact"):
        return f"exactly {hand['exact']}"
    return f"proved in [{hand['lower']}, {hand['upper']}]"


def render(lb: Mapping[str, Any], number: int) -> list[str]:
    """Section `number` of docs/results.md from the "le_bidou" part of the document."""
    hands, chip = lb["hands"], lb["one_chip"]
    up = lb["headline"]
    lines = [
        f"## {number}. Le Bidou: stakes instead of one-chip bets",
        "",
        "Le Bidou (docs/le-bidou.md, docs/rules.md section 5) is the French game: the first "
        "player proposes a stake of 1 to 9 chips, the other withdraws (fined half of it), "
        "calls (the lower hand receives the stake) or raises, and so on. Its default hand "
        "(6 faces, 3 throws, `reroll keep`, `ranking french`, stakes up to 9, half stake "
        "rounded up) is solved by the restricted LP and its value proved on the full game; "
        "Le Bidou has no refined equilibrium on its stakes trees, so everything below but "
        "the values describes the LP's vertex, one equilibrium among many "
        "(*these numbers depend on the equilibrium chosen*). Reproduce: "
        f"`{lb['command']}` (it solves the {_count(lb)} hands of this section, each by "
        "the LP and its certificate).",
        "",
        f"**The first player's value.** With stakes he wins **{up['value']:+.6f}** chips per "
        f"hand ({_interval(up)}; exploitability by the exact best response: "
        f"{_exploitability(up['captain_exploitability'])} against him, "
        f"{_exploitability(up['opponent_exploitability'])} against the other; LP status "
        f"{up['status']}). The one-chip game with the same dice and ranking "
        f"(`--reroll keep --ranking french`, `--max-level 4`) is worth {chip['value']:+.6f} "
        f"to him ({_interval(chip)}, docs/data/sweep.csv): stakes move his value by "
        f"{up['value'] - chip['value']:+.6f} chips per hand. He must speak first in both "
        "games; with the whole range of stakes to choose from, speaking first is "
        + ("worth more to him than it costs" if up["value"] > 0 else "still a cost to him")
        + ". Chips received per hand, E\\|payoff\\|: "
        f"{up['chips_moved']:.4f}; hands ending in a withdrawal {_pct(up['folded'])}, in a "
        f"call {_pct(up['showdown'])}.",
        "",
    ]
    lines += _stakes_table(up)
    lines += _penalty_lines(hands, up)
    return lines + [f"![first stakes and their bluffs, by penalty](img/{PLOT})", ""]


def _count(lb: Mapping[str, Any]) -> str:
    """How many distinct hands the section solves, in words (the headline may be one of
    the penalties' hands)."""
    rules = {str(sorted(h["rules"].items())) for h in [lb["headline"], *lb["hands"].values()]}
    return {1: "one", 2: "two", 3: "three", 4: "four"}.get(len(rules), str(len(rules)))


def _stakes_table(up: Mapping[str, Any]) -> list[str]:
    answer = up["answers"]
    lines = [
        "**How often each stake is proposed, and the bluffs.** Per hand played, default hand: "
        "how often the first player proposes each first stake, the share of those proposals "
        "that are bluffs, and the same for raises to each stake (by either player). A "
        "*bluff*, as for the one-chip game (section 2, `solver/analysis/behaviour.py`): a "
        "proposal of s whose hand loses a showdown to the responder's indifference hand, "
        "the weakest hand with which calling s against the proposer's range is worth at "
        "least withdrawing (every proposal, when no hand should call). The other answers a "
        f"first stake by withdrawing {_pct(answer['withdraw'])} of the time, calling "
        f"{_pct(answer['call'])}, raising {_pct(answer['raise'])}.",
        "",
        "| stake | first stake, per hand | its bluff share | raise to it, per hand | "
        "its bluff share |",
        "|---|---|---|---|---|",
    ]
    for s in up["first"]:
        first, raised = up["first"][s], up["raise"][s]
        lines.append(f"| {s} | {_pct(first['per_hand'])} | {_share(first)} | "
                     f"{_pct(raised['per_hand'])} | {_share(raised)} |")
    return lines + [""]


def _penalty_lines(hands: Mapping[str, Any], headline: Mapping[str, Any]) -> list[str]:
    """The penalties compared: a table of values and the first stakes under each."""
    up, down, full = hands["up"], hands["down"], hands["full"]
    top = up["rules"]["max_stake"]
    lines = [
        "**The half-stake rule against a full-stake penalty, and the rounding.** The hand "
        f"with stakes up to {top}"
        + (" (the default hand above)" if top == headline["rules"]["max_stake"] else
           f" (`--max-stake {top}`)")
        + ", the fine for withdrawing from the first stake changed "
        f"(`bidou solve --game le-bidou --max-stake {top} --half-stake up|down|full`): "
        "half of it rounded up "
        "(the default), half rounded down (at least one chip), or the whole stake (not the "
        "source's rule: the penalty the half-stake rule is measured against). Values are "
        "proved; the stakes proposed are the LP vertex's.",
        "",
        "| penalty | value to the first player | exploitability (vs first, vs other) | "
        "mean first stake | hands ending in a withdrawal | in a call |",
        "|---|---|---|---|---|---|",
    ]
    for rule, label in (("up", "half, rounded up"), ("down", "half, rounded down"),
                        ("full", "full stake")):
        h = hands[rule]
        lines.append(f"| {label} | {h['value']:+.6f} ({_interval(h)}) | "
                     f"{_exploitability(h['captain_exploitability'])}, "
                     f"{_exploitability(h['opponent_exploitability'])} | "
                     f"{_mean_first(h):.3f} | {_pct(h['folded'])} | {_pct(h['showdown'])} |")
    lines += [
        "",
        "Against a full-stake penalty, the half-stake rule changes the first player's value "
        f"by {up['value'] - full['value']:+.6f} chips per hand (rounded up; rounded down: "
        f"{down['value'] - full['value']:+.6f}), the other's by the opposite; rounding the "
        f"half down instead of up changes it by {down['value'] - up['value']:+.6f}.",
        "",
        "First stakes proposed, per hand played, under each penalty (what the first player "
        "should propose; the LP vertex's choice where several are as good):",
        "",
        "| stake | half, up | half, down | full stake |",
        "|---|---|---|---|",
    ]
    for s in up["first"]:
        lines.append(f"| {s} | " + " | ".join(_pct(h["first"][s]["per_hand"])
                                              for h in (up, down, full)) + " |")
    return lines + [""]


def plot(lb: Mapping[str, Any]) -> bytes:
    """The first stakes proposed under each penalty, and the bluff share of each (Agg
    canvas, no global state): docs/img/results_le_bidou_stakes.png."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    hands = lb["hands"]
    stakes = [int(s) for s in hands["up"]["first"]]
    figure = Figure(figsize=(10, 3.9), dpi=100)
    FigureCanvasAgg(figure)
    often, bluffs = figure.add_subplot(1, 2, 1), figure.add_subplot(1, 2, 2)
    width = 0.27
    for k, (rule, label) in enumerate((("up", "half, rounded up (default)"),
                                       ("down", "half, rounded down"), ("full", "full stake"))):
        cells = [hands[rule]["first"][str(s)] for s in stakes]
        x = [s + (k - 1) * width for s in stakes]
        shares = [100 * c["per_hand"] for c in cells]
        bars = often.bar(x, shares, width, label=label)
        often.bar_label(bars, [f"{v:.0f}" if v > 0 else "" for v in shares], fontsize=6)
        bluff = [100 * c["bluffs_per_hand"] / c["per_hand"] if c["per_hand"] > 0
                 else float("nan") for c in cells]                 # no bar: never proposed
        bars = bluffs.bar(x, bluff, width, label=label)
        bluffs.bar_label(bars, [f"{v:.0f}" if v == v else "" for v in bluff], fontsize=6)
    often.set_ylabel("first stakes proposed (% of hands)")
    bluffs.set_ylabel("bluffs among them (%)")
    for axes, title in ((often, "how often each first stake is proposed"),
                        (bluffs, "bluff share of each first stake proposed")):
        axes.set_xticks(stakes)
        axes.set_xlabel("first stake")
        axes.set_title(title, fontsize=9)
        axes.margins(y=0.12)
    often.legend(fontsize=7, title="withdrawal from the first stake", title_fontsize=7)
    figure.suptitle(f"Le Bidou, stakes up to {stakes[-1]}, by withdrawal penalty (the LP "
                    f"vertex's equilibrium)", fontsize=10)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()
