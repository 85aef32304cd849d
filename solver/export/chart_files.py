"""The names of a solved hand's chart files, apart from the drawing (no matplotlib here):
what an export lists, deletes or compares must not need the plotting library."""

from __future__ import annotations

import os
import re
from typing import Sequence

from games.family import OneChipLadder
from solver.hand.model import HandModel

FORMATS = ("pdf", "png", "svg")
BOOKLET = "betting_charts.pdf"     # the betting pages as one PDF, with an index page

_CHART_NAME = re.compile(r"(reroll_chart|remember_chart|betting_charts|betting_chart_c\d+_o\d+)"
                         r"\.(\w+)")


def one_chip_betting(model: HandModel) -> bool:
    """Whether the betting is two-hand Bidou's one-chip ladder, the only betting the
    betting charts, the booklet and the simplified strategy (remember chart) can draw: a
    Le Bidou decision has up to ten actions and a public state 2**max_stake decisions
    (512), which no page of columns holds. Its throwing is charted as any other."""
    return isinstance(model.description.betting, OneChipLadder)


def game_title(model: HandModel) -> str:
    """The game a chart's title names: "Bidou", or "Le Bidou" for the French stakes."""
    return "Bidou" if one_chip_betting(model) else "Le Bidou"


def chart_stems(model: HandModel) -> list[str]:
    """File stems of the charts `charts.write_charts` writes, in order (Le Bidou: the
    reroll chart alone, `one_chip_betting`)."""
    stems = ["reroll_chart"] if model.throws > 1 else []
    if not one_chip_betting(model):
        return stems
    stems += [f"betting_chart_c{tc}_o{to}" for tc, to in model.public_states]
    return stems + ["remember_chart"]


def old_charts(out_dir: str | os.PathLike, formats: Sequence[str]) -> list[str]:
    """Chart files already in `out_dir` in these formats (stale unless written again)."""
    try:
        names = os.listdir(out_dir)
    except OSError:
        return []
    return [name for name in names
            if (match := _CHART_NAME.fullmatch(name)) and match.group(2) in formats]
