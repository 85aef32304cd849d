"""docs/results.md, section 3: what the French ranking's cycle (three aces beat the bidou)
changes, in value across the sweep and in play."""

from __future__ import annotations

from typing import Any, Mapping

from solver.export.results_wording import cell_value, pct, proved


def cycle_section(doc: Mapping[str, Any]) -> list[str]:
    """Section 3: the value with and without the cycle, and where play changes."""
    s, g = doc["sweep"], doc["games"]
    on, off = g["french"], g["french_unbeaten"]
    lines = [
        "## 3. The French ranking's cycle (three aces beat the bidou)",
        "",
        f"With `--ranking french` the default game is worth {cell_value(on, 6)} "
        f"({proved(on['certificate'])}) with the cycle and {cell_value(off, 6)} "
        f"({proved(off['certificate'])}) without it (`--no-aces-beat-bidou`): the cycle "
        f"moves the value by {on['value'] - off['value']:+.2e} chips per hand.",
        "",
        "Value with the cycle minus without it, by faces (rows) and throws (columns), level 4:",
        "",
        "| faces | reroll all: 1 | 2 | 3 | reroll keep: 1 | 2 | 3 |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in range(2, 7):
        lines.append(f"| {f} | " + " | ".join(f"{s['cycle'][r][f'{f},{t}']:+.2e}"
                                              for r in ("all", "keep") for t in range(1, 4))
                     + " |")
    lines += [
        "",
        "Where play changes (6 faces, reroll all): per player and hand, the reach-weighted "
        "total variation between the two exact equilibria's mixes, summed over his "
        "decisions (largest first; this table and the outcomes below depend on the "
        "equilibria chosen, the value differences above do not):",
        "",
        "| player | part | hand | shift |",
        "|---|---|---|---|",
    ]
    for row in doc["cycle_shift"]:
        lines.append(f"| {row['player']} | {row['part']} | {row['hand']} | "
                     f"{row['shift']:.4f} |")
    lines += [
        "",
        "Outcomes with and without the cycle: both passing "
        f"{pct(on['outcomes']['passed'])} / {pct(off['outcomes']['passed'])}, folds "
        f"{pct(on['outcomes']['folded'])} / {pct(off['outcomes']['folded'])}, showdowns "
        f"{pct(on['outcomes']['showdown'])} / {pct(off['outcomes']['showdown'])}, bluff "
        f"share {pct(on['bluff_share'])} / {pct(off['bluff_share'])}. With the betting "
        f"removed (section 4) the value is {on['no_betting']['value']:+.12f} with the cycle "
        f"and {off['no_betting']['value']:+.12f} without it: the cycle acts through the "
        "betting.",
        "",
    ]
    return lines
