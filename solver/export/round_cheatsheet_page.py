"""The round cheat sheet on one printable page (A4 PDF, PNG) and in Markdown: the chip
rules in words, the base they change, and what the sheet costs from the round's start
against a best reply and against the equilibrium, beside the base's own costs.

Everything printed comes from the sheet's document (`solver.pipeline.round_cheatsheet.
sheet_document`): the rule lines are the ones `parse_chip_rule` reads back, the costs the
proved ones (rounded up where they bound a cost from above, down where from below).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

from matplotlib.figure import Figure

from solver.export.charts import A4_PORTRAIT, MIN_LABEL_PT, Canvas, figure_bytes, styled
from solver.export.cheatsheet_page import wrap

FILES = ("cheatsheet.md", "cheatsheet.pdf", "cheatsheet.png")


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
            f"forbid is a call, a bet they forbid a pass. Open throws: bidou round --open-throw "
            f"(open_throw.md).")


EQUILIBRIUM_NOTE = ("The column against the equilibrium is against the round's solved "
                    "equilibrium (its stage games refined), one of many: another would give "
                    "other numbers there. The column against a best reply does not depend "
                    "on which.")


def search_line(document: Mapping[str, Any]) -> str:
    """How the rules were found, and the cost (floating point) after each (no timing: the
    published page must not change with the machine's speed; the JSON has the seconds)."""
    steps = document["search"]["steps"]
    costs = ", ".join(f"{100 * s['best_reply_cost']:.2f}%" for s in steps)
    bound = document["search"]["seconds_bound"]
    limit = f"; bound {bound:.0f} s" if bound is not None else ""
    return (f"Searched greedily (at most 12 rules{limit}): each step adds the candidate "
            f"estimated to lower the cost against a best reply most, once measured to lower "
            f"it. That cost (floating point) after 0, 1, ... rules: {costs}.")


def round_cheatsheet_markdown(document: Mapping[str, Any]) -> str:
    """The sheet as text: numbered chip rules that `parse_chip_rules` reads back."""
    lines = [f"# Bidou round cheat sheet: {len(document['chip_rules'])} chip rules", "",
             f"Round: {document['rules_text']}.", "", intro(document), "",
             "## The chip rules", ""]
    lines += [f"{i}. {line}." for i, line in enumerate(document["chip_rules"], 1)]
    if not document["chip_rules"]:
        lines.append("(none: no chip rule lowered the cost)")
    if document["base_rules"]:
        lines += ["", f"## The base: {document['base']}", ""]
        lines += [f"- {line}." for line in document["base_rules"]]
    lines += ["", "## What it costs", "",
              "Loss of win probability from the round's start (all chips in the centre, "
              "the first captain by a die; the equilibrium wins 50%), proved:", "",
              "| playing | against a best reply | against the equilibrium |",
              "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in cost_rows(document)]
    lines += ["", EQUILIBRIUM_NOTE, "", search_line(document), ""]
    return "\n".join(lines)


def _page(canvas: Canvas, document: Mapping[str, Any], size: float, draw: bool) -> float:
    """Everything at type `size`; returns the y below it."""
    W = canvas.width
    x, y, width = 0.5, 0.5, W - 1.0
    per_line = int(width / (0.5 * size / 72))
    line_h = size / 72 * 1.3

    def put(xx: float, text: str, **kw: Any) -> None:
        if draw:
            canvas.text(xx, y, text, **kw)

    put(W / 2, f"Bidou round cheat sheet: {len(document['chip_rules'])} chip rules",
        size=15, ha="center", weight="bold")
    y += 0.27
    put(W / 2, "Round: " + document["rules_text"], size=8, ha="center")
    y += 0.3
    for line in wrap(intro(document), per_line):
        put(x, line, size=size, style="italic")
        y += line_h
    y += 0.12
    put(x, "The chip rules", size=size + 2.5, weight="bold")
    y += 0.24
    for i, rule in enumerate(document["chip_rules"], 1):
        put(x, f"{i}.", size=size, weight="bold")
        for line in wrap(rule + ".", per_line - 4):
            put(x + 0.25, line, size=size)
            y += line_h
        y += 0.05
    y += 0.12
    put(x, "What it costs (win probability lost from the round's start, proved)",
        size=size + 2.5, weight="bold")
    y += 0.26
    columns = (x, x + 3.6, x + 5.4)
    for cells, weight in [(("playing", "against a best reply", "against the equilibrium"),
                           "bold")] + [(row, "normal") for row in cost_rows(document)]:
        for cx, cell in zip(columns, cells):
            put(cx, cell, size=size, weight=weight)
        y += line_h * 1.1
    y += 0.05
    small = max(MIN_LABEL_PT, size - 1)
    for line in wrap(EQUILIBRIUM_NOTE + " " + search_line(document), per_line):
        put(x, line, size=small, color="#555555")
        y += line_h
    if document["base_rules"]:
        y += 0.15
        put(x, f"The base: {document['base']}", size=size + 1.5, weight="bold")
        y += 0.22
        for i, rule in enumerate(document["base_rules"], 1):
            for j, line in enumerate(wrap(rule + ".", int(per_line * size / small) - 4)):
                if j == 0:
                    put(x, f"{i}.", size=small)
                put(x + 0.25, line, size=small)
                y += small / 72 * 1.3
    return y


@styled
def round_cheatsheet_figure(document: Mapping[str, Any]) -> Figure:
    """The printable page (A4): the largest type at which everything fits."""
    canvas = Canvas(A4_PORTRAIT)
    size = 9.0
    while size > MIN_LABEL_PT and _page(canvas, document, size, draw=False) > \
            canvas.height - 0.3:
        size -= 0.25
    _page(canvas, document, size, draw=True)
    return canvas.finish()


def round_cheatsheet_files(document: Mapping[str, Any], dpi: float = 150) -> dict[str, bytes]:
    """cheatsheet.md, cheatsheet.pdf and cheatsheet.png, by name (the caller writes them
    together: `solver.common.files.write_set`)."""
    figure = round_cheatsheet_figure(document)
    return {"cheatsheet.md": round_cheatsheet_markdown(document).encode(),
            "cheatsheet.pdf": figure_bytes(figure, "pdf"),
            "cheatsheet.png": figure_bytes(figure, "png", dpi)}
