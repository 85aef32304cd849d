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
from matplotlib import patheffects
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from games.bidou.round_params import RoundParams
from solver.export.charts import RC, save_figure
from solver.round.match import match_table

FORMATS = ("pdf", "png", "svg")
COLOURS = "cividis"


def grid_page(height: float, grid_height: float) -> tuple[Figure, Any, Any, Any]:
    """A win-probability page, A4 wide and `height` inches high: (the figure, its grid's
    axes and colour bar, `grid_height` of the page high, the colour map). The round's and
    the manche's charts are drawn on it so that they look alike; call it inside
    `matplotlib.rc_context(RC)`."""
    figure = Figure(figsize=(8.27, height))
    FigureCanvasAgg(figure)
    cmap = matplotlib.colormaps[COLOURS]
    ax = figure.add_axes((0.1, 0.3, 0.74, grid_height))
    bar = figure.add_axes((0.87, 0.3, 0.025, grid_height))
    return figure, ax, bar, cmap


def grid_cell(ax: Any, x: int, y: int, colour: Any, hatched: bool) -> str:
    """Fill the grid's cell at (x, y) with `colour`, hatched or not; the ink that reads on
    it ("black" or "white")."""
    ax.add_patch(matplotlib.patches.Rectangle(
        (x - 0.5, y - 0.5), 1, 1, facecolor=colour, edgecolor="white",
        linewidth=1.2, hatch="///" if hatched else None))
    return "black" if sum(colour[:3]) / 3 > 0.45 else "white"


def finish_grid(figure: Figure, ax: Any, bar: Any, cmap: Any, chips: int, first_row: int,
                labels: tuple[str, str], scale_label: str) -> None:
    """The grid's axes (columns 0 to chips - 1, rows `first_row` to `chips`; `labels`:
    the x and y labels) and its colour scale from 0 to 1, the same on every page."""
    ax.set_xlim(-0.5, chips - 0.5)
    ax.set_ylim(first_row - 0.5, chips + 0.5)
    ax.set_xticks(range(chips))
    ax.set_yticks(range(first_row, chips + 1))
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_aspect("equal")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    scale = figure.colorbar(matplotlib.cm.ScalarMappable(
        norm=matplotlib.colors.Normalize(0, 1), cmap=cmap), cax=bar)
    scale.set_label(scale_label, fontsize=9)


def win_probability_figure(report: Mapping[str, Any]) -> Figure:
    """One page from a round report (`solver.round.report.round_report`).

    The chips add up to N, so the chips in the centre (rows) and the captain's pile
    (columns) fix the opponent's pile: the grid of every centre is one row of a triangle.
    A cell is the chance that the captain of the next hand, who holds that pile, wins the
    round; hatched cells are open throws, where there is no captain and the cell is the
    chance of the player holding that pile (the one with few chips, who throws first, or
    the one with all but one). The title, the axis and the scale say the same.
    """
    chips = report["rules"]["chips"]
    with matplotlib.rc_context(RC):
        figure, ax, bar, cmap = grid_page(8.9, 0.6)
        for entry in report["states"]:
            centre, mine, other = entry["centre"], entry["captain"], entry["opponent"]
            value = entry["value"]
            cells = [(mine, value)]
            if entry["open_throw"]:       # the value is the first thrower's (few chips)
                cells.append((other, 1 - value))
            for pile, v in cells:
                colour = cmap(v)
                ink = grid_cell(ax, pile, centre, colour, entry["open_throw"])
                # a halo of the cell's own colour keeps the hatching off the digits
                ax.text(pile, centre, f"{v:.3f}", ha="center", va="center",
                        fontsize=8 if chips <= 9 else 6.5, color=ink,
                        path_effects=[patheffects.withStroke(linewidth=3, foreground=colour)])
        finish_grid(figure, ax, bar, cmap, chips, 0,
                    ("chips in the captain's pile (the opponent holds the rest)",
                     "chips in the centre"),
                    "the captain's chance to win the round (hatched: the pile holder's)")
        lines = [f"Start (all {chips} chips in the centre): the first captain wins with "
                 f"probability {report['start_value']:.6f}.",
                 f"Every value is proved in exact arithmetic to within "
                 f"{width_bound(report['max_width'])} (round.json has the intervals).",
                 "Hatched: an open throw (a player holds all chips but one): no captain there,",
                 "the cell is the chance of the player holding that pile.", "",
                 "Match (all, keep, all; best of three), P(win) at the start of a round:"]
        lines += [f"  round {r['round']} ({r['reroll']}), score {r['wins']}-{r['losses']}: "
                  f"{float(r['p_match']):.3f}" for r in match_table()]
        figure.text(0.1, 0.25, "\n".join(lines), va="top", fontsize=8.5)
        rules = RoundParams.from_mapping(report["rules"])
        figure.suptitle(f"Bidou round, {chips} chips: the captain's chance to win the round\n"
                        f"(hand rules: {rules.hand.describe()})", fontsize=11)
    return figure


def width_bound(width: float) -> str:
    """A power of ten above every proved interval's width: "1e-11" (the bound the round's
    summary.md prints, stable when a re-solve moves the last digits)."""
    exponent = -12
    while 10.0 ** exponent < width:
        exponent += 1
    return f"1e{exponent}"


def write_round_chart(report: Mapping[str, Any], out_dir: str | os.PathLike,
                      formats: Sequence[str] = FORMATS, stem: str = "win_probability"
                      ) -> list[Path]:
    return save_figure(win_probability_figure(report), Path(out_dir) / stem, formats)


def write_state_charts(model, strategy, state_label: str, difference: str,
                       out_dir: str | os.PathLike, formats: Sequence[str] = FORMATS,
                       value: float | None = None, exploitability: float | None = None
                       ) -> list[Path]:
    """The reroll and betting charts of one chip state's hand, in the hand charts' style;
    the summary line gives the state, its value (a win probability) and how the strategy
    differs from the hand game's chip-counting one (`solver.round.compare`)."""
    from solver.export import charts

    summary = {"value": value, "unit": "win probability", "exploitability": exploitability,
               "note": f"state {state_label}: {difference}"}
    paths: list[Path] = []
    out = Path(out_dir)
    if model.throws > 1:
        paths += charts.save_figure(charts.make_figure(charts.reroll_figure, model, strategy,
                                                       summary), out / "reroll_chart", formats)
    for public in model.public_states:
        tc, to = public
        paths += charts.save_figure(
            charts.make_figure(charts.betting_figure, model, strategy, public, summary),
            out / f"betting_chart_c{tc}_o{to}", formats)
    return paths
