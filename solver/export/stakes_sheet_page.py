"""The Le Bidou stakes cheat sheet as one printable page (cheatsheet.png): its rules, what
they cost, and the hand ranking the rules count in. Plain data in, so that the page knows
nothing of how the rules were found (solver/pipeline/stakes_cheatsheet.py).

Drawn as the other charts are (the Agg canvas, no pyplot, `charts.RC`: deterministic).
"""

from __future__ import annotations

import textwrap
from typing import Sequence

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from solver.export.charts import RC

WIDTH = 96              # characters a line of the page holds at its font size
COLUMNS = 4             # of the hand ranking


NOTE = ("Each decision is covered by exactly one rule, whatever the throw counts and the "
        "stakes before; \"X or better\" counts in the ranking below. Throw as the "
        "equilibrium does (reroll.md).")


def sheet_figure(title: str, game: str, rules: Sequence[str], costs: Sequence[str],
                 ranking: Sequence[str], notes: Sequence[str] = ()) -> Figure:
    """An A4 page: the title and the game, the numbered rules and their `notes`, the costs,
    the ranking."""
    with matplotlib.rc_context(RC):
        figure = Figure(figsize=(8.27, 11.69))
        FigureCanvasAgg(figure)
        y = 0.96
        figure.text(0.06, y, title, fontsize=15, weight="bold", va="top")
        y -= 0.03
        for line in textwrap.wrap(f"Rules of the game: {game}. {NOTE}", WIDTH + 10):
            figure.text(0.06, y, line, fontsize=8, va="top", color="0.3")
            y -= 0.016
        y = _block(figure, y - 0.015, "The rules",
                   [f"{i}. {text}" for i, text in enumerate(rules, start=1)]
                   + [f"* {note}" for note in notes], 9.5)
        y = _block(figure, y - 0.01, "What they cost", [f"- {text}" for text in costs], 8.5)
        figure.text(0.06, y - 0.01, "Hand ranking (strongest first)", fontsize=11,
                    weight="bold", va="top")
        y -= 0.035
        rows = -(-len(ranking) // COLUMNS)
        for i, name in enumerate(ranking):
            column, row = divmod(i, rows)
            figure.text(0.06 + column * 0.22, y - row * 0.0125, f"{i + 1:>2}: {name}",
                        fontsize=8, va="top", family="DejaVu Sans Mono")
    return figure


def _block(figure: Figure, y: float, heading: str, items: Sequence[str], size: float
           ) -> float:
    """A heading and its items wrapped (continuation lines indented); the next y."""
    figure.text(0.06, y, heading, fontsize=11, weight="bold", va="top")
    y -= 0.025
    step = size * 0.0019
    width = int(WIDTH * 9.0 / size)
    for item in items:
        for line in textwrap.wrap(item, width, subsequent_indent="   "):
            figure.text(0.06, y, line, fontsize=size, va="top")
            y -= step
        y -= step * 0.4
    return y
