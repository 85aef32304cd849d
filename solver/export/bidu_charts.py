"""Bidú's standing chart, read at the table: when to stand and when to throw again, by the
throw just made, the hand and what the player knows of the other's stand, for both seats
(matplotlib, Agg; PDF, PNG, SVG).

One A4 page, portrait: hands down, strongest first, as the project's other charts; one panel
a seat, one column a decision (the throw, then what is known of the other: still throwing,
or the throw he stood at). Standing is drawn in the throwing charts' colours (dark blue
stand, hatched orange throw again, `charts.THROW_STYLES`); a mixed decision keeps the right
end of its cell white for the chance of standing, written there, and splits the rest in the
two shares. At the last throw nothing is asked (a player still throwing keeps his hand,
B15), so it has no column.

The chart is drawn from plain data, `StandingChart`: the export layer sits beside
solver/bidu, not over it (pyproject.toml's layers), so the table is read from a solution by
the command (`solver.app.bidu_charts.standing_table`). The numbers are the published
equilibrium's, an LP vertex: where a hand is indifferent another equilibrium may stand
otherwise, and the page says so.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple, Optional, Sequence

import matplotlib
from matplotlib.figure import Figure

from games.bidou import rules
from games.bidou.rules import Hand
from solver.common.files import write_bytes_atomic, write_set
from solver.export import charts
from solver.export.chart_files import FORMATS

__all__ = ["STEM", "StandingChart", "StandingRow", "standing_chart", "standing_figure",
           "stand_rate", "write_standing_charts"]

STEM = "bidu-standing"
SEATS = ("The captain", "The other player")
MIN_PT = 8.0                 # the smallest type on the page
CELL_PT = 8.0                # hands, percentages
HEADER_PT = 8.5
TITLE_PT = 14.0
PAGE = charts.A4_PORTRAIT
MARGIN = 0.4
GROUP_W = 1.0                # inches: the hand groups' names ("6 high")
HAND_W = 0.5                 # inches: a column of hand names
PANEL_GAP = 0.1
THROW_GAP = 0.08             # inches between the columns of two throws
MAX_COLUMN_W = 0.95
MAX_ROW_H = 0.2
STAND = charts.Style(charts.THROW_STYLES["stop"].color, "", "stand")
AGAIN = charts.Style(charts.THROW_STYLES["reroll"].color, charts.THROW_STYLES["reroll"].hatch,
                     "throw again (all three dice)")
RULE_GREY = "#9A9A9A"
NUMBER_W = 0.36              # inches: a mixed cell's white end, for its number


class StandingRow(NamedTuple):
    """One decision of one seat: at `throw`, knowing `pub` of the other (None: he is still
    throwing; k: he stood at throw k), the chance of standing with each hand, weakest
    first, exactly."""

    seat: int
    throw: int
    pub: Optional[int]
    chances: tuple[Fraction, ...]


@dataclasses.dataclass(frozen=True)
class StandingChart:
    """What the page shows: the rules in words (`BiduParams.describe()`), the captain's
    value, the hands weakest first with one throw's chance of each, the decisions, and
    whether the captain throws his whole turn first (`VueltaModel.sequential`); `source`:
    the file the strategies come from, named on the page."""

    rules_text: str
    value: float
    hands: tuple[Hand, ...]
    hand_chances: tuple[Fraction, ...]
    rows: tuple[StandingRow, ...]
    sequential: bool = False
    source: str = "outputs/bidu/bidu-solution.json"


def stand_rate(chances: Sequence[Fraction], hand_chances: Sequence[Fraction]) -> Fraction:
    """How often a player stands at one decision over all his throws: every throw rethrows
    the three dice, so the hand there is distributed as one throw's, whatever came before."""
    return sum((c * p for c, p in zip(chances, hand_chances)), Fraction(0))


def percent(chance: Fraction) -> str:
    """A mixed chance in whole percent, never "0%" or "100%" (those mean a pure choice)."""
    whole = round(100 * chance)
    if whole < 1:
        return "<1%"
    if whole > 99:
        return ">99%"
    return f"{whole}%"


def situation(sequential: bool, throw: int, pub: Optional[int]) -> str:
    """What the player knows of the other, in two short lines (a column's header)."""
    if pub is not None:
        return f"he stood at\nthrow {pub}"
    if sequential:
        return "he throws\nafter you"
    return "nobody has\nstood yet" if throw == 1 else "he is still\nthrowing"


def group_name(hand: Hand) -> str:
    """The hand's group in the encyclopedia ranking ("" where the hand names itself)."""
    key = rules.rank_key(hand, "encyclopedia")
    return {5: "bidú", 4: "three of a kind", 3: "", 2: "straights"}.get(key[0],
                                                                         f"{hand[0]} high")


# --- the page ---------------------------------------------------------------------------------

class _Layout(NamedTuple):
    column_w: float
    row_h: float
    grid_top: float
    lefts: dict[tuple[int, int, Optional[int]], float]    # (seat, throw, pub) -> x
    mids: list[float]                            # x of each column of hand names


def _layout(table: Sequence[StandingRow], hands: int, top: float, bottom_h: float
            ) -> _Layout:
    """Columns as wide as the page allows (at most MAX_COLUMN_W), rows as tall as it allows
    (at most MAX_ROW_H); hand names left of each seat's panel."""
    seats = sorted({row.seat for row in table})
    throw_gaps = sum(len({row.throw for row in table if row.seat == seat}) - 1
                     for seat in seats)
    fixed = (2 * MARGIN + GROUP_W + HAND_W * len(seats) + PANEL_GAP * (len(seats) - 1)
             + THROW_GAP * throw_gaps)
    column_w = min(MAX_COLUMN_W, (PAGE[0] - fixed) / len(table))
    header_h = 0.95
    row_h = min(MAX_ROW_H, (PAGE[1] - top - header_h - bottom_h - MARGIN) / hands)
    used = fixed + column_w * len(table)
    x = (PAGE[0] - used) / 2 + MARGIN + GROUP_W
    lefts, mids = {}, []
    for seat in seats:
        if seat != seats[0]:
            x += PANEL_GAP
        mids.append(x)
        x += HAND_W
        mine = [row for row in table if row.seat == seat]
        for k, row in enumerate(mine):
            if k and row.throw != mine[k - 1].throw:
                x += THROW_GAP
            lefts[(row.seat, row.throw, row.pub)] = x
            x += column_w
    return _Layout(column_w, row_h, top + header_h, lefts, mids)


def _title(canvas: charts.Canvas, chart: StandingChart) -> float:
    """Title, rules and what the numbers are; returns the y below them."""
    middle = canvas.width / 2
    canvas.text(middle, 0.45, "Bidú: when to stand, when to throw again", size=TITLE_PT,
                ha="center", weight="bold")
    canvas.text(middle, 0.75, chart.rules_text, size=9.5, ha="center")
    notes = (
        f"The published equilibrium ({chart.source}), an LP vertex: where a hand is "
        "indifferent,\nanother equilibrium may stand otherwise. Captain's value "
        f"{chart.value:+.4f} chips per vuelta, replays included.",
        "Find your hand (rows, strongest first) under the throw you just made and what you "
        "know of the other player\n(\"he\"). At the last throw nothing is asked: a player "
        "still throwing keeps his hand.",
    )
    y = 1.02
    for note in notes:
        canvas.text(middle, y, note, size=8.5, ha="center", va="top", linespacing=1.25)
        y += 0.36
    return y + 0.05


def _headers(canvas: charts.Canvas, table: Sequence[StandingRow], layout: _Layout,
             sequential: bool) -> None:
    """Seat names over their panels; the throw over its columns; what is known, a column."""
    w, top = layout.column_w, layout.grid_top
    for seat in sorted({row.seat for row in table}):
        mine = [layout.lefts[(r.seat, r.throw, r.pub)] for r in table if r.seat == seat]
        left, right = min(mine), max(mine) + w
        canvas.text((left + right) / 2, top - 0.78, SEATS[seat], size=10, ha="center",
                    weight="bold")
        canvas.line([left, right], [top - 0.66, top - 0.66], linewidth=0.8)
        for throw in sorted({r.throw for r in table if r.seat == seat}):
            xs = [layout.lefts[(r.seat, r.throw, r.pub)] for r in table
                  if (r.seat, r.throw) == (seat, throw)]
            span = max(xs) + w - min(xs)
            words = f"after throw {throw}"
            if charts.text_width(words, HEADER_PT) > span - 0.04:     # one narrow column
                words = f"throw {throw}"
            canvas.text((min(xs) + max(xs) + w) / 2, top - 0.52, words, size=HEADER_PT,
                        ha="center", weight="bold")
            canvas.line([min(xs) + 0.04, max(xs) + w - 0.04], [top - 0.42, top - 0.42],
                        linewidth=0.5, color=RULE_GREY)
        for row in table:
            if row.seat == seat:
                x = layout.lefts[(row.seat, row.throw, row.pub)]
                canvas.text(x + w / 2, top - 0.04, situation(sequential, row.throw, row.pub),
                            size=CELL_PT, ha="center", va="bottom", linespacing=1.1)


def _cell(canvas: charts.Canvas, x: float, y: float, w: float, h: float,
          chance: Fraction) -> None:
    """Blue for standing, hatched orange for throwing again. A mixed cell keeps its right
    end white for the chance of standing, written there, and splits the rest of its bar in
    the two shares: the number never hides where the shares meet."""
    pad_x, pad_y = 0.015, min(0.012, h * 0.08)
    left, top, width, height = x + pad_x, y + pad_y, w - 2 * pad_x, h - 2 * pad_y
    if 0 < chance < 1:
        width -= NUMBER_W
        canvas.rect(left + width, top, NUMBER_W, height, facecolor="white",
                    edgecolor=charts.OFF_PATH_EDGE, linewidth=0.5)
        canvas.text(left + width + NUMBER_W / 2, y + h / 2, percent(chance), size=CELL_PT,
                    ha="center", weight="bold")
    stand = width * float(chance)
    if chance > 0:
        canvas.rect(left, top, stand, height, STAND)
    if chance < 1:
        canvas.rect(left + stand, top, width - stand, height, AGAIN)


def _hand_names(canvas: charts.Canvas, ranked: Sequence[Hand], layout: _Layout) -> None:
    """The hands beside each panel, the groups' names at the far left, a rule between
    groups across the whole grid."""
    top, h = layout.grid_top, layout.row_h
    right = max(layout.lefts.values()) + layout.column_w
    far_left = layout.mids[0] - GROUP_W
    for x in layout.mids:
        for r, hand in enumerate(ranked):
            canvas.text(x + HAND_W - 0.06, top + (r + 0.5) * h, rules.format_hand(hand),
                        size=CELL_PT, ha="right")
    start = 0
    for name, members in itertools.groupby(ranked, key=lambda hand: group_name(hand)
                                           or rules.format_hand(hand)):
        end = start + len(list(members))
        if group_name(ranked[start]):
            canvas.text(far_left, top + (start + end) / 2 * h, name, size=CELL_PT,
                        style="italic")
        if end < len(ranked):
            canvas.line([far_left, right], [top + end * h, top + end * h], linewidth=0.5,
                        color=RULE_GREY, zorder=3)
        start = end


def _rates(canvas: charts.Canvas, table: Sequence[StandingRow], layout: _Layout,
           hand_chances: Sequence[Fraction], y: float) -> None:
    """Under each column: how often the player stands there, over all his throws."""
    canvas.text(layout.mids[0] - GROUP_W, y, "chance of standing,\nover all hands",
                size=CELL_PT, weight="bold", linespacing=1.1)
    for row in table:
        x = layout.lefts[(row.seat, row.throw, row.pub)]
        rate = stand_rate(row.chances, hand_chances)
        canvas.text(x + layout.column_w / 2, y, f"{round(100 * float(rate))}%",
                    size=CELL_PT, ha="center", weight="bold")


def _legend(canvas: charts.Canvas, y: float, swatch_w: float) -> None:
    """The three kinds of cell, one line each, each drawn as the grid draws it."""
    x = MARGIN + 0.1
    entries = ((Fraction(1), "stand"), (Fraction(0), "throw again (all three dice)"),
               (Fraction(1, 4), "mixed: stand with the chance written (the blue share of the "
                                "bar), else throw again; let a die decide"))
    for k, (chance, words) in enumerate(entries):
        yy = y + k * 0.24
        _cell(canvas, x, yy - 0.09, swatch_w, 0.18, chance)
        canvas.text(x + swatch_w + 0.1, yy, words, size=8.5)


def standing_figure(chart: StandingChart) -> Figure:
    """The standing chart on one A4 page (ValueError if it has no decision to stand: one
    throw)."""
    table = chart.rows
    if not table:
        raise ValueError("with one throw there is no choice to stand: nothing to chart")
    ranked = tuple(reversed(chart.hands))
    with matplotlib.rc_context(charts.RC):
        canvas = charts.Canvas(PAGE)
        top = _title(canvas, chart)
        layout = _layout(table, len(ranked), top, bottom_h=1.2)
        _headers(canvas, table, layout, chart.sequential)
        for row in table:
            x = layout.lefts[(row.seat, row.throw, row.pub)]
            for r, chance in enumerate(reversed(row.chances)):
                _cell(canvas, x, layout.grid_top + r * layout.row_h, layout.column_w,
                      layout.row_h, chance)
        _hand_names(canvas, ranked, layout)
        bottom = layout.grid_top + len(ranked) * layout.row_h
        _rates(canvas, table, layout, chart.hand_chances, bottom + 0.2)
        _legend(canvas, bottom + 0.6, layout.column_w)
        return canvas.finish()


def standing_chart(chart: StandingChart, path: str | os.PathLike) -> Path:
    """Draw the chart and write it at `path`, atomically, in the format its suffix names
    (.pdf, .png, .svg)."""
    target = Path(path)
    fmt = target.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise ValueError(f"a chart is written as {', '.join(FORMATS)}, not {target.name}")
    write_bytes_atomic(target, charts.figure_bytes(standing_figure(chart), fmt))
    return target


def write_standing_charts(chart: StandingChart, out_dir: str | os.PathLike,
                          formats: Sequence[str] = FORMATS) -> list[Path]:
    """bidu-standing.<format> in `out_dir` for each format, drawn once, written together
    (all or none: `write_set`)."""
    figure = standing_figure(chart)
    files = {Path(out_dir) / f"{STEM}.{fmt}": charts.figure_bytes(figure, fmt)
             for fmt in dict.fromkeys(formats)}
    write_set(files)
    return list(files)
