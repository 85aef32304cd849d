"""The round's win-probability chart: for each number of chips in the centre, a grid of the
captain's pile against the opponent's, each cell coloured by the captain's chance to win the
round and the number printed in it; then the open throws and the match table.

Colours: matplotlib's cividis (designed to be read alike by colour-blind readers, and
monotone in lightness, so a grayscale print keeps the order). Drawn on the Agg canvas, never
through pyplot; output is deterministic (see `solver.export.charts`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from solver.export.charts import RC, figure_bytes
from solver.files import write_bytes_atomic
from solver.round.match import match_table

FORMATS = ("pdf", "png", "svg")
COLOURS = "cividis"


def win_probability_figure(report: Mapping[str, Any]) -> Figure:
    """One page from a round report (`solver.round.report.round_report`).

    The chips add up to N, so the chips in the centre (rows) and the captain's pile
    (columns) fix the opponent's pile: the grid of every centre is one row of a triangle.
    A cell is the chance that the player holding that pile wins the round, he being the
    next hand's captain; hatched cells are open throws, where he is the player with few
    chips (who throws first) or with all but one.
    """
    chips = report["rules"]["chips"]
    with matplotlib.rc_context(RC):
        figure = Figure(figsize=(8.27, 8.9))
        FigureCanvasAgg(figure)
        cmap = matplotlib.colormaps[COLOURS]
        ax = figure.add_axes((0.1, 0.3, 0.74, 0.6))
        bar = figure.add_axes((0.87, 0.3, 0.025, 0.6))
        for entry in report["states"]:
            centre, mine, other = entry["centre"], entry["captain"], entry["opponent"]
            value = entry["value"]
            cells = [(mine, value)]
            if entry["open_throw"]:       # the value is the first thrower's (few chips)
                cells.append((other, 1 - value))
            for pile, v in cells:
                colour = cmap(v)
                ax.add_patch(matplotlib.patches.Rectangle(
                    (pile - 0.5, centre - 0.5), 1, 1, facecolor=colour, edgecolor="white",
                    linewidth=1.2, hatch="///" if entry["open_throw"] else None))
                ink = "black" if sum(colour[:3]) / 3 > 0.45 else "white"
                ax.text(pile, centre, f"{v:.3f}", ha="center", va="center",
                        fontsize=8 if chips <= 9 else 6.5, color=ink)
        ax.set_xlim(-0.5, chips - 0.5)
        ax.set_ylim(-0.5, chips + 0.5)
        ax.set_xticks(range(chips))
        ax.set_yticks(range(chips + 1))
        ax.set_xlabel("chips in the captain's pile (the opponent holds the rest)")
        ax.set_ylabel("chips in the centre")
        ax.set_aspect("equal")
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        scale = figure.colorbar(matplotlib.cm.ScalarMappable(
            norm=matplotlib.colors.Normalize(0, 1), cmap=cmap), cax=bar)
        scale.set_label("chance to win the round", fontsize=9)
        lines = [f"Start (all {chips} chips in the centre): the first captain wins with "
                 f"probability {report['start_value']:.6f}; every value is proved in exact "
                 f"arithmetic to within 1e-9.",
                 "Hatched: an open throw (a player holds all chips but one); the cell is the "
                 "chance of the player holding that pile.", "",
                 "Match (all, keep, all; best of three), P(win) at the start of a round:"]
        lines += [f"  round {r['round']} ({r['reroll']}), score {r['wins']}-{r['losses']}: "
                  f"{float(r['p_match']):.3f}" for r in match_table()]
        figure.text(0.1, 0.25, "\n".join(lines), va="top", fontsize=8.5)
        hand = {k: v for k, v in report["rules"].items() if k != "chips"}
        figure.suptitle(f"Bidou round, {chips} chips: each player's chance to win the round\n"
                        f"({', '.join(f'{k} {v}' for k, v in hand.items())})", fontsize=11)
    return figure


def write_round_chart(report: Mapping[str, Any], out_dir: str | os.PathLike,
                      formats: Sequence[str] = FORMATS, stem: str = "win_probability"
                      ) -> list[Path]:
    figure = win_probability_figure(report)
    paths = []
    for fmt in formats:
        path = Path(out_dir) / f"{stem}.{fmt}"
        write_bytes_atomic(path, figure_bytes(figure, fmt))
        paths.append(path)
    return paths
