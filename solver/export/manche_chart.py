"""The manche's win-probability chart: for each number of chips left in the pool, the first
player's received chips against the second's, each cell coloured by the first player's
chance to win the manche, the number printed in it; then the start and the match.

Drawn on the round chart's page (solver/export/round_charts.py: cividis, the Agg canvas, no
pyplot, deterministic output).
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any, Mapping, Sequence

import matplotlib
from matplotlib.figure import Figure

from games.le_bidou.manche import MancheParams
from solver.export.charts import RC, save_figure
from solver.export.round_charts import FORMATS, finish_grid, grid_cell, grid_page, width_bound

RULES_IN_WORDS = {"winner": "the winner of a manche is first in the next",
                  "loser": "the loser of a manche is first in the next",
                  "die": "a die draws the first player of every manche"}


def win_probability_figure(report: Mapping[str, Any]) -> Figure:
    """One page from a manche report (`solver.manche.report.manche_report`). Rows: the
    chips left in the pool; columns: the chips the next hand's first player has received
    (the second player holds the rest). Hatched cells are decided: a player holds more
    than half of the chips, the hands left change nothing."""
    params = MancheParams.from_mapping(report["rules"])
    chips = params.chips
    with matplotlib.rc_context(RC):
        figure, ax, bar, cmap = grid_page(7.8, 0.58)
        for entry in report["states"]:
            pool, first, value = entry["centre"], entry["captain"], entry["value"]
            colour = cmap(value)
            ink = grid_cell(ax, first, pool, colour, entry["decided"])
            text = ("won" if value == 1 else "lost" if value == 0 else f"{value:.2f}") \
                if entry["decided"] else f"{value:.3f}"
            ax.text(first, pool, text, ha="center", va="center", color=ink,
                    fontsize=8 if chips <= 9 else 6.5,
                    bbox=dict(boxstyle="square,pad=0.1", facecolor=colour, edgecolor="none")
                    if entry["decided"] else None)
        finish_grid(figure, ax, bar, cmap, chips, 1,
                    ("chips the next hand's first player has received (the second "
                     "player has the rest)", "chips left in the pool"),
                    "the first player's chance to win the manche")
        match = report["match"]
        lines = [f"Start (all {chips} chips in the pool): the first player wins the manche "
                 f"with probability {report['start_value']:.6f}.",
                 f"Every value is proved in exact arithmetic to within "
                 f"{width_bound(report['max_width'])} (manche.json has the intervals).",
                 "Hatched: decided (a player has received more than half of the chips).",
                 "",
                 f"Match (two manches and a belle; {RULES_IN_WORDS[match['match_start']]}):",
                 f"  the first manche's first player wins it with probability "
                 f"{match['value']:.6f};",
                 "  he is drawn by a die, so either person wins the match with probability "
                 "1/2 before the draw."]
        figure.text(0.1, 0.21, "\n".join(lines), va="top", fontsize=8.5)
        rules = textwrap.fill(f"({params.describe().rsplit('; ', 1)[0]})", 90)
        figure.suptitle(f"Le Bidou, a manche of {chips} chips: the first player's chance to "
                        f"win it\n{rules}", fontsize=10)
    return figure


def write_manche_chart(report: Mapping[str, Any], out_dir: str | os.PathLike,
                       formats: Sequence[str] = FORMATS, stem: str = "win_probability"
                       ) -> list[Path]:
    return save_figure(win_probability_figure(report), Path(out_dir) / stem, formats)
