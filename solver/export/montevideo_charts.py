"""Montevideo's heads-up charts, drawn from a report (`solver.montevideo.report`): the win
probability of every state (the captain's chips across, the ante down, the number printed in
each cell) beside what the captaincy and the play are worth over counting chips; and the
push-or-fold chart: for each ante, the captain's chips across and his final hand down, how
often he goes all in at once when he leads the betting, and how often the other player
calls it.

Drawn as the round's and the manche's charts are (solver/export/round_charts.py: cividis,
the Agg canvas, no pyplot, deterministic output).
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any, Mapping, Sequence

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from games.montevideo.heads_up import MAX_ANTE, HeadsUpParams
from solver.export.charts import RC, save_figure
from solver.export.round_charts import COLOURS, FORMATS, grid_cell, width_bound

UNREACHED_GREY = (0.86, 0.86, 0.86, 1.0)


def _antes(params: HeadsUpParams) -> list[int]:
    return list(range(params.first_ante, MAX_ANTE + 1))


def win_probability_figure(report: Mapping[str, Any]) -> Figure:
    """Top: P(the captain ends with every chip) by his chips (across) and the ante (down).
    Bottom: the same minus his share of the chips, one line per ante."""
    params = HeadsUpParams.from_dict(report["rules"])
    total, antes = params.total, _antes(params)
    with matplotlib.rc_context(RC):
        figure = Figure(figsize=(11.69, 8.27))
        FigureCanvasAgg(figure)
        cmap = matplotlib.colormaps[COLOURS]
        ax = figure.add_axes((0.07, 0.5, 0.83, 0.36))
        bar = figure.add_axes((0.92, 0.5, 0.015, 0.36))
        for e in report["states"]:
            colour = cmap(e["value"])
            ink = grid_cell(ax, e["captain"], e["ante"], colour, False)
            ax.text(e["captain"], e["ante"], f"{e['value']:.3f}", ha="center", va="center",
                    color=ink, fontsize=7 if total <= 18 else 5)
        ax.set_xlim(0.5, total - 0.5)
        ax.set_ylim(MAX_ANTE + 0.5, antes[0] - 0.5)
        ax.set_xticks(range(1, total))
        ax.set_yticks(antes)
        ax.set_xlabel(f"the captain's chips (the other player holds the rest of {total})")
        ax.set_ylabel("ante of the round")
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        scale = figure.colorbar(matplotlib.cm.ScalarMappable(
            norm=matplotlib.colors.Normalize(0, 1), cmap=cmap), cax=bar)
        scale.set_label("the captain's chance to end with every chip")
        edge = figure.add_axes((0.07, 0.13, 0.83, 0.28))
        for ante in antes:
            mine = sorted((e for e in report["states"] if e["ante"] == ante),
                          key=lambda e: e["captain"])
            edge.plot([e["captain"] for e in mine],
                      [e["value"] - e["chip_share"] for e in mine],
                      marker="o", markersize=3, linewidth=1.2,
                      color=cmap((ante - antes[0]) / max(1, len(antes) - 1) * 0.85),
                      label=f"ante {ante}")
        edge.axhline(0, color="black", linewidth=0.6)
        edge.set_xlim(0.5, total - 0.5)
        edge.set_xticks(range(1, total))
        edge.set_xlabel("the captain's chips")
        edge.set_ylabel("chance minus chip share")
        edge.legend(fontsize=7, ncols=len(antes), loc="upper center", frameon=False)
        for side in ("top", "right"):
            edge.spines[side].set_visible(False)
        figure.text(0.07, 0.01, textwrap.fill(
            f"Every value is proved in exact arithmetic to within "
            f"{width_bound(report['max_width'])} (heads-up.json has the intervals). Above "
            f"zero in the lower panel: the captain's chance is more than his share of the "
            f"chips; below zero, less (he speaks first when the throw counts are equal).",
            170), fontsize=8, va="bottom")
        figure.suptitle(textwrap.fill(
            f"Montevideo, the last two players: the captain's chance to end with every "
            f"chip ({params.describe()})", 110), fontsize=11)
    return figure


def push_fold_figure(report: Mapping[str, Any]) -> Figure:
    """For each ante, two panels: how often the captain leading the betting goes all in at
    once with each final hand (rows, strongest at the top), by his chips (columns); and how
    often the other player calls that all in with his hand. Grey: a hand never met there;
    blank columns: a player is all in by the ante, nobody bets."""
    params = HeadsUpParams.from_dict(report["rules"])
    total, antes, hands = params.total, _antes(params), report["hands"]
    rows = len(antes)
    with matplotlib.rc_context(RC):
        figure = Figure(figsize=(8.27, 3.0 * rows + 1.2))
        FigureCanvasAgg(figure)
        cmap = matplotlib.colormaps[COLOURS]
        height = 3.0 * rows + 1.2
        grid = figure.add_gridspec(rows, 2, left=0.1, right=0.9, top=1 - 1.2 / height,
                                   bottom=0.45 / height, hspace=0.35, wspace=0.12)
        for r, ante in enumerate(antes):
            mine = {e["captain"]: e for e in report["states"] if e["ante"] == ante}
            for c, (key, title) in enumerate((("all_in", "captain leads: all in at once"),
                                               ("call", "other player: calls the all in"))):
                ax = figure.add_subplot(grid[r, c])
                image = [[UNREACHED_GREY] * (total - 1) for _ in hands]
                for chips, e in mine.items():
                    push = e["push_fold"]
                    for h in range(len(hands)):
                        if push is None:
                            image[h][chips - 1] = (1.0, 1.0, 1.0, 1.0)
                        elif push[key][h] is not None:
                            image[h][chips - 1] = cmap(push[key][h])
                ax.imshow(image, aspect="auto", interpolation="nearest",
                          extent=(0.5, total - 0.5, len(hands) - 0.5, -0.5))
                ax.set_title(f"ante {ante}: {title}", fontsize=8)
                step = max(1, len(hands) // 14)
                ax.set_yticks(range(0, len(hands), step))
                ax.set_yticklabels(hands[::step] if c == 0 else [], fontsize=6)
                ax.set_xticks(range(1, total, 2 if total > 12 else 1))
                ax.tick_params(axis="x", labelsize=6)
                if r == rows - 1:
                    ax.set_xlabel("the captain's chips", fontsize=7)
        bar = figure.add_axes((0.92, 0.3, 0.015, 0.4))
        scale = figure.colorbar(matplotlib.cm.ScalarMappable(
            norm=matplotlib.colors.Normalize(0, 1), cmap=cmap), cax=bar)
        scale.set_label("how often (0 never, 1 always)")
        figure.suptitle(textwrap.fill(
            f"Montevideo, the last two players: push or fold ({params.describe()}). Rows: "
            f"the hand after the last throw, strongest at the top; grey: never met there; "
            f"white: all in by the ante. The LP's stage equilibrium, averaged over the "
            f"throw counts.", 120), fontsize=8.5)
    return figure


def write_montevideo_charts(report: Mapping[str, Any], out_dir: str | os.PathLike,
                            formats: Sequence[str] = FORMATS) -> list[Path]:
    out = Path(out_dir)
    return (save_figure(win_probability_figure(report), out / "win_probability", formats)
            + save_figure(push_fold_figure(report), out / "push_fold", formats))
