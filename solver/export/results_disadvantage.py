"""docs/results.md, section 1: the captain's disadvantage across the sweep, and why."""

from __future__ import annotations

from typing import Any, Mapping

from solver.export.results_wording import cell_value, pct, proved, variant_tables


def disadvantage_section(s: Mapping[str, Any], d: Mapping[str, Any]) -> list[str]:
    """Section 1: how much the captain loses across the sweep, and why."""
    o = d["outcomes"]
    lines = [
        "## 1. The captain's disadvantage, and why",
        "",
        f"The captain loses in **{s['captain_behind']} of the {s['rule_sets']}** rule sets of "
        "the sweep (proved: the upper end of the certified interval is negative). In the "
        f"default game he loses **{cell_value(d, 6)}** chips per hand "
        f"({proved(d['certificate'])}).",
        "",
        "Value to the captain (chips per hand) by number of faces (rows) and most throws "
        "(columns), `--max-level 4`:",
        "",
    ]
    lines += variant_tables(s["faces_throws"], "faces", range(2, 7),
                             ["1 throw", "2 throws", "3 throws"], range(1, 4))
    nb = d["no_betting"]
    one = s["faces_throws"]["all, encyclopedia"]["6,1"]
    first = sum(p for k, p in o["by_public"].items()
                if int(k.split(",")[0]) <= int(k.split(",")[1]))
    lines += [
        "![value by faces and throws](img/results_value.png)",
        "",
        "Why. Two things act against the captain, and the sweep separates them:",
        "",
        "- *He bets first.* With one throw nobody chooses anything before the betting, yet "
        f"the captain, who must open, loses {cell_value(one)} (6 faces, 1 throw): acting first in "
        "the betting costs him that much. With more throws he opens only when he made no "
        f"more throws than the opponent: {pct(first)} of hands in the default game.",
        f"- *He shows his throw count first.* With more throws the opponent throws knowing how "
        f"many throws the captain needed. With the betting removed (both always go to a "
        f"showdown at level 1, section 4) the default game is worth {nb['value']:+.6f} to the "
        f"captain ({proved(nb['certificate'])}): the information alone costs him more than "
        f"the whole game does ({cell_value(d, 6)}); the betting gives "
        f"{d['value'] - nb['value']:+.6f} of it back.",
        "",
        "The one-chip limit: value by most throws (rows) and `--max-level` (columns), 6 faces:",
        "",
    ]
    lines += variant_tables(s["levels"], "throws", range(1, 4),
                             [f"level {m}" for m in range(1, 5)], range(1, 5))
    effect = s["level_effect"]
    six, every = effect["6 faces"], effect["all"]
    lines += [
        "How much each limit changes the value, the largest difference from `--max-level 4` "
        "over every throw count, reroll rule and ranking of the sweep (chips per hand):",
        "",
        "| | level 1 (no raise) | level 2 | level 3 |",
        "|---|---|---|---|",
        "| 6 faces | " + " | ".join(f"{six[m]:.2e}" for m in "123") + " |",
        "| 2 to 6 faces | " + " | ".join(f"{every[m]:.2e}" for m in "123") + " |",
        "",
        "![value by max level](img/results_levels.png)",
        "",
    ]
    return lines
