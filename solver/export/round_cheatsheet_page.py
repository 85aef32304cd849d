"""The round cheat sheet on one sheet of paper, front and back (A4 and Letter PDF of two
pages, a PNG of each side), and in Markdown.

Front: the chip rules in words and the base hand rules they change. Back: what a player
needs beside them at the table: the hand ranking the rules count in, when to stop in an
open throw, the chance to win from each chip state, and what the sheet costs against a
best reply and against the equilibrium, beside the base's own costs.

Everything printed comes from the sheet's document (`solver.pipeline.round_cheatsheet.
sheet_document` and `back_data`): the rule lines are the ones `parse_chip_rule` reads back,
the costs the proved ones (rounded up where they bound a cost from above), the ranking, the
open throws and the map the solved round's.
"""

from __future__ import annotations

import io
import math
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import matplotlib
from matplotlib import patheffects
from matplotlib.figure import Figure

from solver.export.charts import RC, Canvas, figure_bytes, styled
from solver.export.cheatsheet_page import PAGES, wrap

# Two PNGs, one a side: each prints as one page and the front alone shows in docs.
FILES = ("cheatsheet.md", "cheatsheet_a4.pdf", "cheatsheet_letter.pdf", "cheatsheet.png",
         "cheatsheet_back.png")
MIN_PT = 8.0            # the smallest type printed (at the page's own size)
MAX_PT = 12.5           # the largest the front's rules grow to fill their side
MARGIN = 0.45           # inches around each side
GREY = "#555555"
_KEEPING = "throw again, keeping the dice the CSV names"


# --- words -------------------------------------------------------------------------------------

def _up(text: str) -> str:
    """A proved upper bound, as a percentage rounded up (two decimals)."""
    return f"{math.ceil(Fraction(text) * 10000) / 100:.2f}%"


def _near(lower: str, upper: str) -> str:
    """A cost proved to a tiny interval, as a percentage to three decimals, and the
    interval's width."""
    low, high = Fraction(lower), Fraction(upper)
    return f"{float((low + high) / 2) * 100:.3f}% (\u00b1{float(high - low) / 2:.0e})"


def cost_rows(document: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(way of playing, against a best reply, against the equilibrium), proved: the first
    an upper bound rounded up, the second the middle of its interval and half its width."""
    return [(c["name"], f"at most {_up(c['best_reply_upper'])}",
             _near(c["equilibrium_lower"], c["equilibrium_upper"]))
            for c in document["costs"]]


def intro(document: Mapping[str, Any]) -> str:
    base = document["base"]
    return (f"Play {base} at every chip state, except where a chip rule below applies "
            f"(the first one that does). \"You\" is the player deciding; a raise the chips "
            f"forbid is a call, a bet they forbid a pass. \"X or better\" counts in the "
            f"hand ranking (back). Open throws, the chance to win by chips and what this "
            f"sheet costs: on the back.")


EQUILIBRIUM_NOTE = ("The column against the equilibrium is against the round's solved "
                    "equilibrium (its stage games refined), one of many: another would give "
                    "other numbers there. The column against a best reply does not depend "
                    "on which.")


def stop_line(document: Mapping[str, Any]) -> str | None:
    """What the search's end means for the reader, when the time limit cut it short."""
    search = document["search"]
    if search.get("stopped") != "time_limit":
        return None
    return (f"Search stopped by the time limit ({search['seconds_bound']:g} s) after "
            f"{search['candidates']} candidates: more chip rules may lower the cost.")


def no_rules_line(document: Mapping[str, Any]) -> str:
    """Why the sheet has no chip rule."""
    if document["search"].get("stopped") == "time_limit":
        return "(none found before the time limit)"
    return "(none: no chip rule lowered the cost)"


def search_line(document: Mapping[str, Any]) -> str:
    """How the rules were found, and the cost (floating point) after each (no timing: the
    published page must not change with the machine's speed; the JSON has the seconds)."""
    steps = document["search"]["steps"]
    costs = ", ".join(f"{100 * s['best_reply_cost']:.2f}%" for s in steps)
    bound = document["search"]["seconds_bound"]
    limit = f"; bound {bound:g} s" if bound is not None else ""
    stopped = stop_line(document)
    return (f"Searched greedily (at most 12 rules{limit}): each step adds the candidate "
            f"estimated to lower the cost against a best reply most, once measured to lower "
            f"it. That cost (floating point) after 0, 1, ... rules: {costs}."
            + (f" {stopped}" if stopped is not None else ""))


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def _chips(n: int) -> str:
    return f"{n} chip{'s' * (n != 1)}"


def title(document: Mapping[str, Any]) -> str:
    n = len(document["chip_rules"])
    return f"Bidou round cheat sheet: {n} chip rule{'s' * (n != 1)}"


def open_throw_groups(document: Mapping[str, Any]) -> list[list[Mapping[str, Any]]]:
    """The open throws, those with the same stopping lines together (printed once)."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for entry in document["back"]["open_throws"]:
        key = repr((entry["first"], entry["second_tied"], entry["second_exceptions"]))
        groups.setdefault(key, []).append(entry)
    return list(groups.values())


def _else(row: Mapping[str, Any]) -> str:
    return ("throw again (the dice to keep: open_throw.csv)" if row["else"] == _KEEPING
            else row["else"])


def open_throw_lines(document: Mapping[str, Any]) -> list[str]:
    """The open throws in a few sentences: who throws first, when each player stops (the
    first thrower by throw, the second on a tie), and the first thrower's chance."""
    out = []
    chips = document["rules"]["chips"]
    for group in open_throw_groups(document):
        where = "; ".join(f"{_chips(e['first_thrower_chips'])} against "
                          f"{e['second_thrower_chips']} (centre {e['centre']}): the first "
                          f"thrower wins {_pct(e['value'])}%" for e in group)
        first = group[0]
        stops = ", ".join(f"after throw {r['after_throw']} with {r['stop_with']}"
                          for r in first["first"])
        again = sorted({_else(r) for r in first["first"]})
        ties = ", ".join(f"after throw {r['after_throw']} with {r['stop_with']}"
                         for r in first["second_tied"])
        tie_again = sorted({_else(r) for r in first["second_tied"]})
        exceptions = first["second_exceptions"]
        second = ("The second thrower stops as soon as he beats the hand to beat and "
                  "throws again while behind" + (
                      "." if not exceptions else
                      f", but for {exceptions} decisions (open_throw.csv)."))
        out += [f"When a player holds {chips - 1} chips, the other (one chip or none) "
                f"throws first, in the open; the second then throws knowing the hand to "
                f"beat. {where}.",
                f"First thrower: stop {stops}; otherwise {' or '.join(again)}.",
                f"{second} On a tie he stops (the throw is thrown again) {ties}; "
                f"otherwise {' or '.join(tie_again)}."]
    return out


def win_map(document: Mapping[str, Any]) -> dict[tuple[int, int], tuple[float, bool]]:
    """(centre, the captain's pile) -> (his chance to win the round, an open throw?); at an
    open throw each pile's holder's chance (no captain there)."""
    out = {}
    for s in document["back"]["states"]:
        out[(s["centre"], s["captain"])] = (s["value"], s["open_throw"])
        if s["open_throw"]:
            out[(s["centre"], s["opponent"])] = (1 - s["value"], True)
    return out


MAP_NOTE = ("The captain's chance (%) to win the round at the start of a hand, by the chips "
            "in the centre (rows) and in his pile (columns); the opponent holds the rest. "
            "{mark}: an open throw (no captain), the chance of the pile's holder.")


def map_markdown(document: Mapping[str, Any]) -> list[str]:
    chips = document["rules"]["chips"]
    cells = win_map(document)
    lines = ["| centre \\ captain's pile | " + " | ".join(str(c) for c in range(chips)) + " |",
             "|---" * (chips + 1) + "|"]
    for centre in range(chips, -1, -1):
        row = []
        for pile in range(chips):
            got = cells.get((centre, pile))
            row.append("" if got is None else _pct(got[0]) + ("*" if got[1] else ""))
        lines.append(f"| {centre} | " + " | ".join(row) + " |")
    return lines


def ranking_markdown(document: Mapping[str, Any]) -> list[str]:
    back = document["back"]
    return ([f"- {i}: {label}" for i, label in enumerate(back["ranking"], 1)]
            + [f"- Exception: {e}." for e in back["ranking_exceptions"]])


def round_cheatsheet_markdown(document: Mapping[str, Any]) -> str:
    """The sheet as text, front then back: numbered chip rules that `parse_chip_rules`
    reads back, the base, the hand ranking, the open throws, the map and the costs."""
    lines = [f"# {title(document)}", "",
             f"Round: {document['rules_text']}.", "", intro(document), ""]
    stopped = stop_line(document)
    if stopped is not None:
        lines += [f"**{stopped}**", ""]
    lines += ["## Front: the chip rules", ""]
    lines += [f"{i}. {line}." for i, line in enumerate(document["chip_rules"], 1)]
    if not document["chip_rules"]:
        lines.append(no_rules_line(document))
    if document["base_rules"]:
        lines += ["", f"## The base: {document['base']}", ""]
        lines += [f"- {line}." for line in document["base_rules"]]
    lines += ["", "## Back: hand ranking (strongest first)", ""] + ranking_markdown(document)
    lines += ["", "## Open throws", ""] + [f"- {line}" for line in open_throw_lines(document)]
    lines += ["", "## The chance to win the round by chips", "",
              MAP_NOTE.format(mark="Starred"), ""]
    lines += map_markdown(document)
    lines += ["", "## What it costs", "",
              "Loss of win probability from the round's start (all chips in the centre, "
              "the first captain by a die; the equilibrium wins 50%), proved:", "",
              "| playing | against a best reply | against the equilibrium |",
              "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in cost_rows(document)]
    lines += ["", EQUILIBRIUM_NOTE, "", search_line(document), ""]
    return "\n".join(lines)


# --- the pages -----------------------------------------------------------------------------------

class _Flow:
    """Text laid down a column, y growing downwards; with `draw` False it only measures."""

    def __init__(self, canvas: Canvas, x: float, width: float, y: float, draw: bool):
        self.canvas, self.x, self.width, self.y, self.draw = canvas, x, width, y, draw

    def per_line(self, size: float, indent: float = 0.0, bold: bool = False) -> int:
        """Characters a line holds (DejaVu Sans: about 0.53 em a character, 0.6 bold)."""
        return int((self.width - indent) / ((0.6 if bold else 0.53) * size / 72))

    def text(self, x: float, text: str, size: float, **kw: Any) -> None:
        if self.draw:
            self.canvas.text(x, self.y, text, size=size, **kw)

    def paragraph(self, text: str, size: float, indent: float = 0.0, label: str = "",
                  gap: float = 0.0, **kw: Any) -> None:
        """`text` wrapped at `indent`, `label` ("3.") at the left of its first line."""
        step = size / 72 * 1.28
        self.y += step / 2
        bold = kw.get("weight") == "bold"
        for i, line in enumerate(wrap(text, self.per_line(size, indent, bold))):
            if i == 0 and label:
                self.text(self.x, label, size, weight="bold", **kw)
            self.text(self.x + indent, line, size, **kw)
            self.y += step
        self.y += gap - step / 2

    def heading(self, text: str, size: float) -> None:
        self.y += size / 72 * 0.75
        self.text(self.x, text, size, weight="bold")
        self.y += size / 72 * 0.85


def _front(canvas: Canvas, document: Mapping[str, Any], size: float, gap: float,
           draw: bool) -> float:
    """The front at type `size`, `gap` inches between rules; the y below it."""
    W = canvas.width
    flow = _Flow(canvas, MARGIN, W - 2 * MARGIN, MARGIN + 0.1, draw)
    flow.text(W / 2, title(document), 16, ha="center", weight="bold")
    flow.y += 0.27
    flow.text(W / 2, f"Round: {document['rules_text']}.", MIN_PT + 1, ha="center",
              color=GREY)
    flow.y += 0.22
    flow.paragraph(intro(document), size, style="italic", gap=0.06)
    stopped = stop_line(document)
    if stopped is not None:
        flow.paragraph(stopped, size, weight="bold", color="#B00020", gap=0.06)
    indent = 2.4 * size / 72                  # room for "12." in bold
    flow.heading("The chip rules", size + 2.5)
    for i, rule in enumerate(document["chip_rules"], 1):
        flow.paragraph(rule + ".", size, indent=indent, label=f"{i}.", gap=gap)
    if not document["chip_rules"]:
        flow.paragraph(no_rules_line(document), size, gap=gap)
    if document["base_rules"]:
        flow.y += 0.08
        flow.heading(f"The base: {document['base']} (where no chip rule applies)",
                     size + 1.5)
        for i, rule in enumerate(document["base_rules"], 1):
            flow.paragraph(rule + ".", size, indent=indent, label=f"{i}.", gap=gap)
    return flow.y


def _fit(measure: Callable[[float, float], float], room: float, sizes: Sequence[float],
         rules: int) -> tuple[float, float]:
    """The largest type size whose text fits `room`, then the gap between rules that fills
    what is left (at most 0.18 in)."""
    size = next((s for s in sizes if measure(s, 0.0) <= room), sizes[-1])
    spare = room - measure(size, 0.0)
    return size, max(0.0, min(0.18, spare / max(rules, 1)))


@styled
def front_figure(document: Mapping[str, Any], page: str = "a4") -> Figure:
    """The front: the chip rules and the base, at the largest type that fills the side."""
    canvas = Canvas(PAGES[page])
    sizes = [MAX_PT - 0.25 * i for i in range(int((MAX_PT - MIN_PT) / 0.25) + 1)]
    rules = len(document["chip_rules"]) + len(document["base_rules"])
    size, gap = _fit(lambda s, g: _front(canvas, document, s, g, False),
                     canvas.height - MARGIN, sizes, rules)
    _front(canvas, document, size, gap, True)
    return canvas.finish()


def _ranking(flow: _Flow, document: Mapping[str, Any], size: float) -> None:
    """The ranking in columns, read down then across."""
    back = document["back"]
    labels = back["ranking"]
    columns = 4
    per = math.ceil(len(labels) / columns)
    width = flow.width / columns
    step = size / 72 * 1.3
    top = flow.y + step / 2
    for i, label in enumerate(labels):
        x = flow.x + (i // per) * width
        y = top + (i % per) * step
        if flow.draw:
            flow.canvas.text(x + 0.28, y, f"{i + 1}", size=size, ha="right", color=GREY)
            flow.canvas.text(x + 0.36, y, label, size=size)
    flow.y = top + per * step - step / 2
    if back["ranking_exceptions"]:
        flow.y += 0.05
        flow.paragraph("Exceptions: " + "; ".join(back["ranking_exceptions"]) + ".", size)


def _map(canvas: Canvas, document: Mapping[str, Any], x: float, y: float, cell: float,
         size: float) -> tuple[float, float]:
    """The win-probability map (the captain's chance, %), its top left at (x, y) after
    room for the row labels; its width and height."""
    chips = document["rules"]["chips"]
    cells = win_map(document)
    cmap = matplotlib.colormaps["cividis"]
    left = x + 0.32
    for row, centre in enumerate(range(chips, -1, -1)):
        cy = y + row * cell
        canvas.text(left - 0.06, cy + cell / 2, str(centre), size=size, ha="right")
        for pile in range(chips):
            got = cells.get((centre, pile))
            if got is None:
                continue
            value, opening = got
            colour = cmap(value)
            canvas.ax.add_patch(matplotlib.patches.Rectangle(
                (left + pile * cell, cy), cell, cell, facecolor=colour, edgecolor="white",
                linewidth=1.0, hatch="///" if opening else None, zorder=2))
            ink = "black" if sum(colour[:3]) / 3 > 0.45 else "white"
            canvas.ax.text(left + (pile + 0.5) * cell, cy + cell / 2, _pct(value),
                           fontsize=size, ha="center", va="center", color=ink, zorder=4,
                           path_effects=[patheffects.withStroke(linewidth=2.5,
                                                                foreground=colour)])
    bottom = y + (chips + 1) * cell
    for pile in range(chips):
        canvas.text(left + (pile + 0.5) * cell, bottom + 0.1, str(pile), size=size,
                    ha="center")
    canvas.text(left + chips * cell / 2, bottom + 0.28, "chips in the captain's pile",
                size=size, ha="center")
    canvas.text(x - 0.02, y + (chips + 1) * cell / 2, "chips in the centre", size=size,
                ha="center", rotation=90)
    return left - x + chips * cell, bottom + 0.38 - y


def _costs(flow: _Flow, document: Mapping[str, Any], size: float) -> None:
    flow.heading("What it costs: win probability lost from the round's start, proved",
                 min(size, 10.0) + 2)
    size = min(size, 9.5)           # the longest name and both columns on one line
    widths = (0.5, 0.24, 0.26)
    step = size / 72 * 1.45
    head = ("playing", "against a best reply", "against the equilibrium")
    for cells, weight in [(head, "bold")] + [(row, "normal") for row in cost_rows(document)]:
        flow.y += step / 2
        cx = flow.x
        for w, cell in zip(widths, cells):
            flow.text(cx, cell, size, weight=weight)
            cx += w * flow.width
        flow.y += step / 2
    flow.y += 0.06
    flow.paragraph("From all chips in the centre, the first captain drawn by a die; the "
                   "equilibrium wins 50%. " + EQUILIBRIUM_NOTE + " " + search_line(document),
                   MIN_PT, color=GREY)


def _back(canvas: Canvas, document: Mapping[str, Any], size: float, cell: float,
          spread: float, draw: bool) -> float:
    """The back at type `size`, the map's cells `cell` inches wide, `spread` inches added
    between its parts; the y below it."""
    W = canvas.width
    flow = _Flow(canvas, MARGIN, W - 2 * MARGIN, MARGIN + 0.1, draw)
    flow.text(W / 2, "Bidou round cheat sheet: the back", 14, ha="center", weight="bold")
    flow.y += 0.2
    flow.heading("Hand ranking (strongest first)", size + 2)
    _ranking(flow, document, size)
    flow.y += spread
    flow.heading("Open throws and the chance to win by chips", size + 2)
    chips = document["rules"]["chips"]
    top = flow.y + 0.05
    if draw:
        width, height = _map(canvas, document, MARGIN + 0.1, top, cell, MIN_PT)
    else:
        width, height = 0.32 + chips * cell, (chips + 1) * cell + 0.38
    right = _Flow(canvas, MARGIN + 0.1 + width + 0.3, 0.0, top, draw)
    right.width = W - MARGIN - right.x
    for line in open_throw_lines(document):
        right.paragraph(line, size, gap=0.08)
    right.paragraph(MAP_NOTE.format(mark="Hatched"), MIN_PT, color=GREY)
    flow.y = max(top + height, right.y) + spread
    _costs(flow, document, size)
    return flow.y


@styled
def back_figure(document: Mapping[str, Any], page: str = "a4") -> Figure:
    """The back: the hand ranking, the open throws beside the map, the costs; the largest
    type that fits, then the largest map (at most half the side wide), the parts spread
    over what is left."""
    canvas = Canvas(PAGES[page])
    room = canvas.height - MARGIN
    chips = document["rules"]["chips"]
    widest = (canvas.width / 2 - MARGIN - 0.3) / chips
    cells = [widest - 0.01 * i for i in range(int((widest - 0.3) / 0.01) + 1)]
    sizes = [11.0 - 0.25 * i for i in range(int((11.0 - MIN_PT) / 0.25) + 1)]

    def height(size: float, cell: float, spread: float = 0.0) -> float:
        return _back(canvas, document, size, cell, spread, False)

    size = next((s for s in sizes if height(s, cells[-1]) <= room), sizes[-1])
    cell = next((c for c in cells if height(size, c) <= room), cells[-1])
    spread = max(0.0, min(0.4, (room - height(size, cell)) / 2))
    _back(canvas, document, size, cell, spread, True)
    return canvas.finish()


def sides(document: Mapping[str, Any], page: str = "a4") -> tuple[Figure, Figure]:
    """The sheet's front and back on `page` ("a4" or "letter")."""
    return front_figure(document, page), back_figure(document, page)


def pdf_bytes(figures: Sequence[Figure]) -> bytes:
    """The pages as one PDF, deterministically (no dates; `charts.figure_bytes`' fields)."""
    from matplotlib.backends.backend_pdf import PdfPages

    buffer = io.BytesIO()
    metadata = {"CreationDate": None, "ModDate": None, "Producer": None,
                "Creator": "bidou-solver"}
    with matplotlib.rc_context(RC), PdfPages(buffer, metadata=metadata) as pdf:
        for figure in figures:
            pdf.savefig(figure)
    return buffer.getvalue()


def round_cheatsheet_files(document: Mapping[str, Any], dpi: float = 150) -> dict[str, bytes]:
    """FILES by name (the caller writes them together: `solver.common.files.write_set`):
    the Markdown, a two-page PDF (front, back) in A4 and in Letter, a PNG of each A4 side."""
    front, back = sides(document, "a4")
    files = {"cheatsheet.md": round_cheatsheet_markdown(document).encode(),
             "cheatsheet_a4.pdf": pdf_bytes([front, back]),
             "cheatsheet_letter.pdf": pdf_bytes(list(sides(document, "letter"))),
             "cheatsheet.png": figure_bytes(front, "png", dpi),
             "cheatsheet_back.png": figure_bytes(back, "png", dpi)}
    return files

