"""The names of a solved hand's chart files, apart from the drawing (no matplotlib here):
what an export lists, deletes or compares must not need the plotting library."""

from __future__ import annotations

import os
import re
from typing import Sequence

from solver.model import HandModel

FORMATS = ("pdf", "png", "svg")
BOOKLET = "betting_charts.pdf"     # the betting pages as one PDF, with an index page

_CHART_NAME = re.compile(r"(reroll_chart|remember_chart|betting_charts|betting_chart_c\d+_o\d+)"
                         r"\.(\w+)")


def chart_stems(model: HandModel) -> list[str]:
    """File stems of the charts `charts.write_charts` writes, in order."""
    stems = ["reroll_chart"] if model.throws > 1 else []
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
