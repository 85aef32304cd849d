"""Printable strategy charts, read at the table (matplotlib, Agg; PDF, PNG, SVG).

A chart's axes are what the player sees: the throw he has just made and his own hand (rows,
strongest first, in the ranking's table order); for the betting, the public state (both throw
counts) picks the page and the decision point (who acts, facing what) picks the column. The
colour of a cell is the action; a mixed strategy is drawn as side-by-side bars whose widths
are the frequencies, each slice named with its share (the shares add up to 100; a cell too
narrow for them at MIN_LABEL_PT gets a letter, spelled out under the grid). Colours are
Okabe–Ito hues (safe for colour-blind readers) at well separated lightness (MIN_GRAY_GAP),
and throwing all, folding and betting are hatched, so the charts survive grayscale printing.
A thin band of colour in a grey frame is a decision the player never reaches with that hand
under his own strategy.

Charts:

* `reroll_figure` — one page: the captain's throwing decisions, then the opponent's for each
  number of throws the captain made;
* `betting_figure` — one page per public state (captain's throws, opponent's throws);
* `remember_figure` — one landscape page: the simplified strategy (solver/cheatsheet/simplify.py)
  and its exploitability.

Figures are drawn on the Agg canvas directly (`Figure` + `FigureCanvasAgg`), never through
pyplot, so importing this module changes no global backend and keeps no figure alive.
Output is deterministic: no dates, fixed SVG ids, fixed software fields; files are rendered to
memory and written atomically.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import matplotlib
import numpy as np
from matplotlib import patheffects
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Rectangle
from matplotlib.textpath import TextToPath

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT, ROLE_NAMES
from games.bidou.rules import STOP
from solver.common.files import write_bytes_atomic
from solver.common.progress import Step
from solver.common.types import Reach
from solver.export.chart_files import (
    BOOKLET,
    FORMATS,
    chart_stems,
    game_title,
    one_chip_betting,
)
from solver.export.numbers import NOISE, NOISE_TEXT, quality
from solver.export.tables import PURE_TOL, REACH_TOL, hand_label, ranked_indices
from solver.hand.model import HandModel
from solver.hand.reach import own_reach
from solver.hand.strategy import Strategy

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

A4_PORTRAIT = (8.27, 11.69)
A4_LANDSCAPE = (11.69, 8.27)
DEFAULT_DPI = 150

RC: dict[RcKeyType, Any] = {
    "svg.hashsalt": "bidou-solver",
    "svg.fonttype": "path",
    "pdf.fonttype": 3,
    "hatch.linewidth": 0.6,
    "font.family": "DejaVu Sans",
    "path.simplify": False,
}


@dataclasses.dataclass(frozen=True)
class Style:
    color: str
    hatch: str
    label: str


# One colour for one meaning on every chart (throwing, betting, cheat sheet), in Okabe–Ito
# hues (safe for colour-blind readers) with the lightness set so that a grayscale print
# tells every action apart: the Rec. 601 luminance (`luminance`) of any two actions differs
# by at least MIN_GRAY_GAP, of two actions of one kind of decision (throwing, betting) by at
# least MIN_GRAY_GAP_KIND. From dark to light: stop 52, call 78, keep one 103, fold 129,
# throw all 157, bet or raise 182, keep two 209, pass 235. Throw all, fold and bet are also
# hatched.
THROW_STYLES = {
    "stop": Style("#00407F", "", "stop"),
    "keep2": Style("#AADDF8", "", "keep two dice, throw one"),
    "keep1": Style("#A5447C", "", "keep one die, throw two"),
    "reroll": Style("#E89400", "////", "throw again (all three dice)"),
}
BET_STYLES = {
    "pass": Style("#FCF48F", "", "pass"),
    "fold": Style("#818181", "\\\\", "fold"),
    "call": Style("#00754F", "", "call"),
    "bet": Style("#F5A17A", "////", "bet / raise (one chip more)"),
    "raise": Style("#F5A17A", "////", "bet / raise (one chip more)"),
}
MIN_GRAY_GAP = 25
MIN_GRAY_GAP_KIND = 50
# The smallest type on any chart, in points on the A4 page the charts are drawn on: a mixed
# cell's label that does not fit at this size becomes a letter, spelled out under the grid.
MIN_LABEL_PT = 6.5
# What a slice of a mixed cell says when it has no dice to show.
SLICE_NAMES = {"stop": "stop", "reroll": "throw", "keep2": "keep", "keep1": "keep"}
OFF_PATH_EDGE = "#8A8A8A"   # a cell never reached: a thin band of the colour in a grey frame
OFF_PATH_BAND = 0.4         # the band's share of the row height
BLANK_EDGE = "#B0B0B0"      # a decision that never happens (remember chart): an empty frame
BLOCK_GAP = 0.05
INK = "#222222"
OFF_PATH_INK = "#555555"


def luminance(colour: str) -> float:
    """Rec. 601 luma (0 black .. 255 white): the grey a colour prints as in grayscale."""
    r, g, b = (round(255 * c) for c in to_rgba(colour)[:3])
    return 0.299 * r + 0.587 * g + 0.114 * b


_OUTLINE = [patheffects.withStroke(linewidth=1.6, foreground="white")]
# A cell's numbers (the action values) read on what lies under them: white where the cell
# is dark (call, fold), dark where it is light (pass, bet); a hatched colour reads darker than
# its face (its lines are black): HATCH_SHADE of its luma. Under the numbers the hatch is
# cleared (the colours stay, and the hatch shows on either side); in a mixed cell, whose
# numbers cross several colours, a thin halo of the other ink sets them off. Where a cell is
# never reached they stay dark, on a white patch over the thin band (`draw_cell`).
DARK_CELL = 140.0            # luma (0 black .. 255 white) under which the numbers are white
HATCH_SHADE = 0.8
MIXED_HALO = 1.0             # points: the halo's stroke in a mixed cell
VALUE_MARGIN = 0.02          # inches of cleared hatch on either side of the numbers


# --- cell data ------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Segment:
    fraction: float
    style: str
    label: str = ""            # e.g. "6-6" for a kept pair ("" for none)


@dataclasses.dataclass(frozen=True)
class Cell:
    segments: tuple[Segment, ...]
    reached: bool
    text: str = ""             # printed over the bars instead of their labels (values)
    ties: tuple[str, ...] = ()  # "any of these": equally good actions (`any_cells`)

    @property
    def mixed(self) -> bool:
        return len(self.segments) > 1


def _throw_style(action) -> str:
    if action == STOP:
        return "stop"
    if action == ():
        return "reroll"
    return f"keep{len(action)}"


def throw_cells(model: HandModel, strategy: Strategy, player: int, context: int, throw: int,
                reach: np.ndarray | None = None) -> list[Cell]:
    """Cells of one throw decision, strongest hand first (`throw` 1-based, `context` index)."""
    if reach is None:
        reach = own_reach(model, strategy, player)[0]
    probs = strategy.throw[player][context, throw - 1]
    order = sorted(range(len(model.throw_actions)),
                   key=lambda a: (-3 if model.throw_actions[a] == STOP
                                  else -len(model.throw_actions[a])))
    keep = model.game_params.reroll == "keep"
    cells = []
    for h in ranked_indices(model):
        segments = tuple(
            Segment(float(probs[a, h]), _throw_style(model.throw_actions[a]),
                    _keep_label(model.throw_actions[a], keep, probs[:, h]))
            for a in order if probs[a, h] > PURE_TOL)
        cells.append(Cell(_normalized(segments), bool(reach[context, throw - 1, 0, h] > REACH_TOL)))
    return cells


def _keep_label(action, keep: bool, probs: np.ndarray) -> str:
    """What a throw slice says: the dice kept; under reroll=keep, in a mixed cell, also
    "stop" and "all" (throw all three), so that every slice names what to do."""
    if action not in (STOP, ()):
        return rules.format_hand(action)
    mixed = int(np.sum(probs > PURE_TOL)) > 1
    if not (keep and mixed):
        return ""
    return "stop" if action == STOP else "all"


def betting_cells(model: HandModel, strategy: Strategy, public: tuple[int, int], history: str,
                  reach: Mapping | None = None) -> list[Cell]:
    """Cells of one betting decision point, strongest hand first."""
    tc, to = public
    node = model.tree(public).node(history)
    if reach is None:
        reach = own_reach(model, strategy, node.actor)[1]
    probs = strategy.betting[(tc, to, history)]
    node_reach = reach[(tc, to, history)][0]
    cells = []
    for h in ranked_indices(model):
        segments = tuple(Segment(float(probs[i, h]), action)
                         for i, action in enumerate(node.actions) if probs[i, h] > PURE_TOL)
        cells.append(Cell(_normalized(segments), bool(node_reach[h] > REACH_TOL)))
    return cells


# Two actions whose values (chips, or win probability in a round's stage) differ by at most
# this are equally good: float rounding of exact equal values is below 1e-12.
TIE_TOL = 1e-9


def any_cells(cells: Sequence[Cell], hands: Sequence[int], decision: Any,
              tol: float = TIE_TOL) -> list[Cell]:
    """The cells of one betting decision with "any of these" marked (`Cell.ties`) where
    the other player's strategy never leads (`decision.off_path`: the values are the limit
    of his uniform slips, `solver.analysis.action_values`), the player's own strategy
    does, and two or more actions are best within `tol` with every action played among
    them: nothing is lost against the other's strategy by any of them, and against his
    slips they are equally good, so the strategy's own pick is not printed as if it
    mattered. On the path a tie is not marked: there the equilibrium's choice (how often
    a weak hand bets, say) is what keeps the other player indifferent."""
    if not decision.off_path:
        return list(cells)
    out = []
    for cell, h in zip(cells, hands):
        row = decision.values[h]
        legal = [float(v) for v in row if v is not None]
        tied = [name for name, v in zip(decision.actions, row)
                if v is not None and float(v) >= max(legal) - tol]
        played = {seg.style for seg in cell.segments}
        if cell.reached and not cell.text and len(tied) > 1 and played <= set(tied):
            cell = dataclasses.replace(cell, ties=tuple(tied))
        out.append(cell)
    return out


def _normalized(segments: tuple[Segment, ...]) -> tuple[Segment, ...]:
    total = sum(s.fraction for s in segments)
    return tuple(dataclasses.replace(s, fraction=s.fraction / total) for s in segments)


def player_decisions(model: HandModel, public: tuple[int, int], player: int) -> list[str]:
    """The histories where `player` acts in one public state, by standing bet level.

    In one-chip-limit betting a player's decision points in a public state are told apart by
    the standing level alone (0: nothing bet, 1: a bet, k: a raise to k).
    """
    nodes = [n for n in model.tree(public).nodes if n.actor == player]
    return [n.history for n in sorted(nodes, key=lambda n: n.level)]


def decision_title(model: HandModel, public: tuple[int, int], history: str) -> str:
    """Column header: what the player to act faces ("opens", "faces a raise to 2")."""
    node = model.tree(public).node(history)
    if not history:
        head = "opens"
    elif node.level == 0:
        head = "after\na pass"
    elif node.level == 1:
        head = "faces\na bet"
    else:
        head = f"faces a\nraise to {node.level}"
    if node.level and node.level == _top_level(model):
        head += "\n(no raise)"
    return head


def _top_level(model: HandModel) -> int:
    return max(n.level for tree in model.trees.values() for n in tree.nodes)


def plain_history(history: str, first: int, reader: int) -> str:
    """The betting so far in words for the player about to act, one action a line:
    "you passed\nhe bet" (empty history: "nothing bet yet")."""
    if not history:
        return "nothing\nbet yet"
    words = {"p": "passed", "b": "bet", "r": "raised"}
    return "\n".join(f"{'you' if (first if i % 2 == 0 else 1 - first) == reader else 'he'} "
                     f"{words[ch]}" for i, ch in enumerate(history))


def history_line(history: str, first: int, reader: int) -> str:
    """`plain_history` on one line: "you passed, he bet" (empty history: "nothing bet yet")."""
    if not history:
        return "nothing bet yet"
    return plain_history(history, first, reader).replace("\n", ", ")


def short_history(history: str, first: int) -> str:
    """"C bet, O raise" — who did what before this decision."""
    if not history:
        return "first\nto act"
    letters = {"p": "pass", "b": "bet", "r": "raise"}
    out = []
    for i, ch in enumerate(history):
        actor = "CO"[first if i % 2 == 0 else 1 - first]
        out.append(f"{actor} {letters[ch]}")
    return ", ".join(out)


# --- drawing helpers ------------------------------------------------------------------------

def _char_width(fontsize: float) -> float:
    """A generous average glyph width in inches (DejaVu Sans)."""
    return 0.62 * fontsize / 72


@functools.lru_cache(maxsize=4096)
def text_width(text: str, fontsize: float) -> float:
    """The width in inches of one line of `text` in DejaVu Sans at `fontsize` points, as
    matplotlib lays it out (its own glyph metrics, so the same on every machine)."""
    width, _, _ = _TEXT_PATHS.get_text_width_height_descent(
        text, FontProperties(family="DejaVu Sans", size=fontsize), ismath=False)
    return width / 72


_TEXT_PATHS = TextToPath()


def _fits(text: str, width: float, fontsize: float) -> bool:
    return text_width(text, fontsize) + 0.03 <= width


def shares(fractions: Sequence[float]) -> list[int]:
    """Whole percentages that add up to 100 (largest-remainder rounding), none below 1.

    A slice drawn is at least PURE_TOL of the cell, so it shows at least 1%: that percent is
    taken from the largest slice.
    """
    total = sum(fractions)
    exact = [100 * f / total for f in fractions]
    whole = [int(np.floor(round(x, 6))) for x in exact]
    order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - whole[i]), i))
    for i in order[:100 - sum(whole)]:
        whole[i] += 1
    for i, value in enumerate(whole):
        if value == 0:
            whole[i] = 1
            whole[max(range(len(whole)), key=lambda j: whole[j])] -= 1
    return whole


def slice_texts(cell: "Cell") -> list[str]:
    """What each slice of a mixed cell says: the action (or the dice kept) and its share
    ("stop 58%", "6-6 42%", "bet 10%"); the shares add up to 100."""
    return [f"{seg.label or SLICE_NAMES.get(seg.style, seg.style)} {share}%"
            for seg, share in zip(cell.segments, shares([s.fraction for s in cell.segments]))]


class Canvas:
    """A figure with one axes in inches, y growing downwards.

    Rectangles are gathered by look and drawn as one collection each by `finish`, which
    keeps the hundreds of cells of a chart fast to render in every format.
    """

    def __init__(self, size: tuple[float, float]):
        self.width, self.height = size
        self.figure = Figure(figsize=size)
        FigureCanvasAgg(self.figure)
        ax = self.figure.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, self.width)
        ax.set_ylim(self.height, 0)
        ax.axis("off")
        self.ax = ax
        self._groups: dict[tuple, list] = {}

    def text(self, x: float, y: float, text: str, size: float = 7, **kw: Any) -> None:
        kw.setdefault("va", "center")
        kw.setdefault("ha", "left")
        kw.setdefault("color", INK)
        kw.setdefault("zorder", 4)
        self.ax.text(x, y, text, fontsize=size, **kw)

    def rect(self, x: float, y: float, w: float, h: float, style: Style | None = None,
             alpha: float = 1.0, facecolor: str | None = None, edgecolor: str = "none",
             linewidth: float = 0.0) -> None:
        """A rectangle; a white one (a frame) is drawn under every coloured one."""
        face = facecolor or (style.color if style else "white")
        hatch = style.hatch if style is not None and style.hatch else None
        hatch_color = (0, 0, 0, round(0.55 * alpha + 0.1, 3)) if hatch else None
        key = (face != "white", face, hatch, hatch_color, alpha, edgecolor, linewidth)
        self._groups.setdefault(key, []).append(
            [(x, y), (x + w, y), (x + w, y + h), (x, y + h)])

    def patch(self, x: float, y: float, w: float, h: float, colour: str) -> None:
        """A plain rectangle over the bars (and their hatch), under the text and lines."""
        self.ax.add_patch(Rectangle((x, y), w, h, facecolor=colour, edgecolor="none",
                                    linewidth=0, zorder=2.5))

    def line(self, xs: Sequence[float], ys: Sequence[float], **kw: Any) -> None:
        kw.setdefault("color", INK)
        kw.setdefault("linewidth", 0.6)
        kw.setdefault("zorder", 3)
        self.ax.plot(xs, ys, solid_capstyle="butt", **kw)

    def finish(self) -> Figure:
        for key in sorted(self._groups, key=lambda k: k[0]):       # frames first
            _, face, hatch, hatch_color, alpha, edge, lw = key
            verts = self._groups[key]
            kw: dict[str, Any] = {}
            if hatch:
                kw.update(hatch=hatch, hatchcolors=[hatch_color])
            self.ax.add_collection(PolyCollection(
                verts, facecolors=[to_rgba(face, alpha)], edgecolors=[edge], linewidths=lw,
                antialiaseds=True, zorder=2, **kw))
        self._groups.clear()
        return self.figure


def draw_cell(canvas: Canvas, x: float, y: float, w: float, h: float, cell: Cell,
              styles: Mapping[str, Style], fontsize: float, labels: bool = True,
              off_path: str = "fade", notes: list[str] | None = None, tag: str = "") -> None:
    """Proportional bars for the actions; the kept dice and, in a mixed cell, every slice's
    action and share, where they fit at `MIN_LABEL_PT` or more.

    A mixed cell whose labels fit nowhere gets a letter, and "<letter> <tag>: stop 58% | 2
    42%" is appended to `notes`, for the page to print under the grid. A cell never reached
    is drawn as a thin band of its colours in a grey frame (`off_path="fade"`: the colours
    stay the action's, only the shape says "never reached") or as an empty frame ("blank").
    """
    pad = min(0.012, h * 0.08)
    xpad = min(0.012, w * 0.06)
    top, height = y + pad, h - 2 * pad
    if cell.ties and labels:
        _draw_any(canvas, x + xpad, top, w - 2 * xpad, height, cell.ties, styles, fontsize)
        return
    if not cell.reached:
        canvas.rect(x + xpad, top, w - 2 * xpad, height, facecolor="white",
                    edgecolor=BLANK_EDGE if off_path == "blank" else OFF_PATH_EDGE,
                    linewidth=0.5)
        if off_path == "blank":
            return
        top, height = y + h / 2 - h * OFF_PATH_BAND / 2, h * OFF_PATH_BAND
    left = x + xpad
    spans = []
    for seg in cell.segments:
        width = (w - 2 * xpad) * seg.fraction
        canvas.rect(left, top, width, height, styles[seg.style])
        spans.append((left, width))
        left += width
    if not labels:
        return
    color = INK if cell.reached else OFF_PATH_INK
    if cell.text:
        points = _largest_fit([cell.text], w - 2 * xpad, fontsize) or MIN_LABEL_PT
        if cell.reached:        # the hatch cleared from under the numbers, colours kept
            half = text_width(cell.text, points) / 2 + VALUE_MARGIN
            lo, hi = x + w / 2 - half, x + w / 2 + half
            for seg, (left, width) in zip(cell.segments, spans):
                a, b = max(lo, left), min(hi, left + width)
                if b > a and styles[seg.style].hatch:
                    canvas.patch(a, top, b - a, height, styles[seg.style].color)
        canvas.text(x + w / 2, y + h / 2, cell.text, ha="center", size=points,
                    **value_ink(cell, styles))
        return
    if not cell.mixed:
        seg = cell.segments[0]
        size = _largest_fit([seg.label], w, fontsize)
        if seg.label and size is not None:
            canvas.text(x + w / 2, y + h / 2, seg.label, size=size, ha="center",
                        color=color, path_effects=_OUTLINE)
        return
    kind, size = label_plan(cell, w, fontsize)
    texts = slice_texts(cell)
    if kind == "inside":
        for text, (left, width) in zip(texts, spans):
            canvas.text(left + width / 2, y + h / 2, text, size=size, ha="center",
                        color=color, path_effects=_OUTLINE)
    elif kind == "line":
        canvas.text(x + w / 2, y + h / 2, " | ".join(texts), size=size, ha="center",
                    color=color, path_effects=_OUTLINE)
    elif notes is not None:
        letter = note_letter(len(notes))
        notes.append(f"{letter}  {tag}: {' | '.join(texts)}" if tag
                     else f"{letter}  {' | '.join(texts)}")
        canvas.text(x + w / 2, y + h / 2, letter, size=MIN_LABEL_PT, ha="center",
                    color=color, weight="bold", path_effects=_OUTLINE)


def value_ink(cell: Cell, styles: Mapping[str, Style]) -> dict[str, Any]:
    """How a cell's numbers are printed (`canvas.text`'s colour, and its halo or its white
    patch), by the luma under them: the actions' lumas weighted by their shares, a hatched
    one shaded (`DARK_CELL`). A cell never reached: dark on white."""
    if not cell.reached:
        return {"color": INK, "bbox": {"boxstyle": "square,pad=0.1", "facecolor": "white",
                                       "edgecolor": "none"}}
    shade = sum(seg.fraction * luminance(styles[seg.style].color)
                * (HATCH_SHADE if styles[seg.style].hatch else 1.0) for seg in cell.segments)
    ink, other = ("white", INK) if shade < DARK_CELL else (INK, "white")
    if not cell.mixed:
        return {"color": ink}
    return {"color": ink,
            "path_effects": [patheffects.withStroke(linewidth=MIXED_HALO, foreground=other)]}


ANY_LABEL = "any"
ANY_LEGEND = ("any: the other player's strategy never leads here, and these actions are "
              "equally good against his slips (colours below the word)")
ANY_BAND = 0.45            # the tied actions' colours: this share of the cell's height, below


def _draw_any(canvas: Canvas, x: float, y: float, w: float, h: float, ties: Sequence[str],
              styles: Mapping[str, Style], fontsize: float) -> None:
    """An "any of these" cell: a dashed dark frame, the word "any" above, and the tied
    actions' colours side by side in equal parts below (no shares: none is preferred)."""
    band = h * ANY_BAND
    canvas.rect(x, y, w, h, facecolor="white")
    part = w / len(ties)
    for i, name in enumerate(ties):
        canvas.rect(x + i * part, y + h - band, part, band, styles[name])
    canvas.line([x, x + w, x + w, x, x], [y, y, y + h, y + h, y], linestyle=(0, (2, 1.2)),
                linewidth=0.7, zorder=3.5)
    size = _largest_fit([ANY_LABEL], w, min(fontsize, 7.5)) or MIN_LABEL_PT
    canvas.text(x + w / 2, y + h * 0.42, ANY_LABEL, size=size, ha="center", color=INK,
                weight="bold", path_effects=_OUTLINE)


def label_plan(cell: Cell, width: float, fontsize: float) -> tuple[str, float]:
    """How a mixed cell `width` inches wide is labelled: ("inside", size) every slice in its
    bar, ("line", size) the whole cell on one line ("stop 58% | 2 42%"), or ("note",
    MIN_LABEL_PT) a letter spelled out under the grid; sizes from `fontsize` down to
    MIN_LABEL_PT, the larger one kept."""
    texts = slice_texts(cell)
    inner = width - 2 * min(0.012, width * 0.06)
    inside = next((size for size in _sizes(fontsize)
                   if all(_fits(text, inner * seg.fraction, size)
                          for text, seg in zip(texts, cell.segments))), None)
    line = _largest_fit([" | ".join(texts)], width, fontsize)
    if inside is not None and (line is None or inside >= line):
        return "inside", inside
    if line is not None:
        return "line", line
    return "note", MIN_LABEL_PT


def note_letter(index: int) -> str:
    """a, b, ..., z, aa, ab, ...: the marks of the cells spelled out under the grid."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[index] if index < 26 else note_letter(index // 26 - 1) + letters[index % 26]


def _largest_fit(lines: Sequence[str], width: float, start: float) -> float | None:
    """The largest type size, from `start` down to MIN_LABEL_PT, at which every line fits
    (None if none does)."""
    return next((size for size in _sizes(start)
                 if all(_fits(line, width, size) for line in lines)), None)


def _sizes(start: float) -> list[float]:
    """Type sizes to try, largest first: `start`, then down by quarter points, ending at
    MIN_LABEL_PT exactly."""
    sizes = []
    size = start
    while size > MIN_LABEL_PT + 1e-9:
        sizes.append(size)
        size -= 0.25
    return sizes + [MIN_LABEL_PT]


def draw_notes(canvas: Canvas, x: float, y: float, notes: Sequence[str], width: float,
               size: float = 7) -> float:
    """The mixed cells too narrow for their labels, spelled out in columns under the grid;
    returns the y below them."""
    if not notes:
        return y
    canvas.text(x, y, "Lettered cells (too narrow for their mix):", size=size, weight="bold")
    column_w = max(text_width(n, size) for n in notes) + 0.25
    per_row = max(1, int(width // column_w))
    line_h = size / 72 * 1.35
    for i, note in enumerate(notes):
        canvas.text(x + (i % per_row) * column_w, y + line_h * (1 + i // per_row), note,
                    size=size)
    return y + line_h * (1 + (len(notes) + per_row - 1) // per_row) + 0.05


def notes_height(count: int, width: float, size: float = 7, sample: str = "") -> float:
    """The height `draw_notes` takes for `count` notes as long as `sample`."""
    if not count:
        return 0.0
    column_w = text_width(sample or "aa  6-6-6: stop 50% | 6-6 25% | all 25%", size) + 0.25
    per_row = max(1, int(width // column_w))
    return size / 72 * 1.35 * (1 + (count + per_row - 1) // per_row) + 0.05


@dataclasses.dataclass
class Column:
    header: str
    cells: list[Cell]
    width: float = 0.0
    gap_before: float = 0.0
    subheader: str = ""
    key: tuple = ()            # what the column decides, for charts that label groups


@dataclasses.dataclass
class Panel:
    title: str
    columns: list[Column]


def _group_key(hand: rules.Hand, ranking: str) -> tuple:
    key = rules.rank_key(hand, ranking)
    return key[:2] if key[0] == 1 else key[:1]


def header_height(panels: Sequence[Panel], header_size: float,
                  title_size: float | None = None) -> float:
    """Height of the panel titles and column headers `draw_grid` draws."""
    title_size = title_size or header_size + 1
    title_lines = max(p.title.count("\n") + 1 for p in panels)
    tallest = 0.0
    for panel in panels:
        for column in panel.columns:
            h = (column.header.count("\n") + 1) * header_size / 72 * 1.2 if column.header else 0
            if column.subheader:
                h += (column.subheader.count("\n") + 1) * (header_size - 0.5) / 72 * 1.2 + 0.04
            tallest = max(tallest, h)
    return title_lines * title_size / 72 * 1.2 + 0.1 + tallest + 0.08


def draw_grid(canvas: Canvas, model: HandModel, panels: Sequence[Panel], *, x0: float,
              y0: float, row_h: float, col_w: float, gap: float, header_h: float,
              styles: Mapping[str, Style], label_w: float, right_label_w: float,
              fontsize: float, header_size: float, cell_labels: bool = True,
              title_size: float | None = None, mid_labels: Sequence[int] = (),
              off_path: str = "fade", notes: list[str] | None = None,
              mid_label_w: float | None = None) -> float:
    """Hands down, panels of columns across. Returns the y below the grid.

    `mid_labels`: indices of panels before which the hand labels are repeated; `notes`
    gathers the mixed cells too narrow for their labels (`draw_cell`).
    """
    ranking = model.game_params.ranking
    ranked = rules.ranked_hands(model.game_params.faces, ranking)
    n = len(ranked)
    grid_top = y0 + header_h
    title_size = title_size or header_size + 1
    title_lines = max(p.title.count("\n") + 1 for p in panels)
    title_h = title_lines * title_size / 72 * 1.2 + 0.02

    def labels_at(x: float, width: float, align: str, full: bool) -> None:
        for r, hand in enumerate(ranked):
            text = hand_label(hand, ranking) if full else rules.format_hand(hand)
            yy = grid_top + (r + 0.5) * row_h
            if align == "left":
                canvas.text(x, yy, text, size=fontsize)
            else:
                canvas.text(x + width, yy, text, size=fontsize, ha="right")

    labels_at(x0, label_w, "left", True)
    x = x0 + label_w
    spans = []
    for p, panel in enumerate(panels):
        if p in mid_labels:
            x += gap
            labels_at(x, mid_label_w or label_w, "left", mid_label_w is None)
            x += (mid_label_w or label_w) + (gap if mid_label_w else 0)
        elif p:
            x += gap
        start = x
        for c, column in enumerate(panel.columns):
            if c:
                x += column.gap_before
            w = column.width or col_w
            sub_h = 0.0
            if column.subheader:
                canvas.text(x + w / 2, grid_top - 0.04, column.subheader, size=header_size - 0.5,
                            ha="center", va="bottom", linespacing=1.05, color="#555555")
                sub_h = ((column.subheader.count("\n") + 1) * (header_size - 0.5) / 72 * 1.2
                         + 0.04)
            canvas.text(x + w / 2, grid_top - 0.04 - sub_h, column.header, size=header_size,
                        ha="center", va="bottom", linespacing=1.05, weight="bold")
            for r, cell in enumerate(column.cells):
                draw_cell(canvas, x, grid_top + r * row_h, w, row_h, cell, styles,
                          fontsize, labels=cell_labels, off_path=off_path, notes=notes,
                          tag=rules.format_hand(ranked[r]))
            x += w
        spans.append((start, x))
        canvas.text((start + x) / 2, y0 + title_h, panel.title, size=title_size, ha="center",
                    va="bottom", weight="bold", linespacing=1.05)
        canvas.line([start, x], [y0 + title_h + 0.03, y0 + title_h + 0.03], linewidth=0.8)
    labels_at(x + 0.06, right_label_w - 0.06, "left", False)
    # separators between groups of hands (bidou | triples | 2-2-1 | straights | 6 high | ...)
    bottom = grid_top + n * row_h
    for r in range(1, n):
        if _group_key(ranked[r], ranking) != _group_key(ranked[r - 1], ranking):
            yy = grid_top + r * row_h
            for start, end in spans:
                canvas.line([start, end], [yy, yy], color="white", linewidth=1.4)
                canvas.line([start, end], [yy, yy], color=INK, linewidth=0.5)
            canvas.line([x0, x0 + label_w * 0.9], [yy, yy], color="#999999", linewidth=0.4)
    for start, end in spans:
        canvas.line([start, end], [bottom, bottom], linewidth=0.8)
    return bottom


def draw_legend(canvas: Canvas, x: float, y: float, entries: Sequence[Style],
                fontsize: float = 7.5, off_path: str | None = "fade",
                max_width: float | None = None, any_of: Sequence[str] = ()) -> float:
    """Swatches in a row (wrapping), then, with `any_of` (two action styles), what an
    "any" cell means; returns the y below the legend."""
    max_width = max_width or canvas.width - 2 * x
    seen: list[Style] = []
    for entry in entries:
        if entry.label not in [s.label for s in seen]:
            seen.append(entry)
    items: list[tuple[Style | None, str]] = [(s, s.label) for s in seen]
    if off_path == "fade":
        items.append((None, "thin band: never reached with this hand under the player's "
                            "own strategy (off the path of play)"))
    elif off_path == "blank":
        items.append((None, "empty: never happens with this hand under this strategy"))
    if any_of:
        items.append((None, ANY_LEGEND))
    sw, sh = 0.32, 0.15
    cx, cy = x, y
    for style, label in items:
        width = sw + 0.08 + len(label) * _char_width(fontsize) * 0.92 + 0.25
        if cx + width > x + max_width and cx > x:
            cx, cy = x, cy + 0.24
        if label == ANY_LEGEND:
            canvas.rect(cx - 0.04, cy - sh / 2 - 0.03, sw + 0.08, sh + 0.06,
                        facecolor="white")
            _draw_any(canvas, cx - 0.04, cy - sh / 2 - 0.03, sw + 0.08, sh + 0.06, any_of,
                      {name: BET_STYLES[name] for name in any_of}, fontsize)
        elif style is None and off_path == "blank":
            canvas.rect(cx, cy - sh / 2, sw, sh, facecolor="white", edgecolor=BLANK_EDGE,
                        linewidth=0.5)
        elif style is None:
            band = sh * OFF_PATH_BAND
            canvas.rect(cx, cy - sh / 2, sw, sh, facecolor="white", edgecolor=OFF_PATH_EDGE,
                        linewidth=0.5)
            canvas.rect(cx, cy - band / 2, sw / 2, band, seen[0])
            canvas.rect(cx + sw / 2, cy - band / 2, sw / 2, band, seen[-1])
        else:
            canvas.rect(cx, cy - sh / 2, sw, sh, style, edgecolor=INK, linewidth=0.4)
        canvas.text(cx + sw + 0.08, cy, label, size=fontsize)
        cx += width
    return cy + 0.2


def _numbers_line(model: HandModel, summary: Mapping[str, Any] | None) -> str:
    summary = summary or {}
    parts = []
    unit = summary.get("unit", "chips per hand")     # a round's stage pays win probability
    if summary.get("value") is not None:
        if unit == "chips per hand":
            parts.append(f"value to the captain {signed(summary['value'])} chips per hand")
        else:
            parts.append(f"captain wins {summary['value']:.4f}")
    label = quality(summary)
    if label:
        parts.append(label if unit == "chips per hand" else label.replace(" chips per hand",
                                                                          ""))
    if summary.get("note"):
        parts.append(summary["note"])
    return " · ".join(parts)


def signed(x: float, digits: int = 4) -> str:
    """"+0.0123" / "−0.0369" (a true minus sign)."""
    return f"{x:+.{digits}f}".replace("-", "−")


def format_exploitability(e: float) -> str:
    """A measured exploitability (no proof behind it): "< 1e-12" at float noise level."""
    return quality({"exploitability": e})


def draw_title(canvas: Canvas, title: str, model: HandModel, summary: Mapping[str, Any] | None,
               y: float = 0.38, extra: str = "") -> float:
    canvas.text(canvas.width / 2, y, title, size=14, ha="center", weight="bold")
    canvas.text(canvas.width / 2, y + 0.27, "Rules: " + model.game_params.describe(), size=9,
                ha="center")
    line = _numbers_line(model, summary)
    if extra:
        line = f"{line} · {extra}" if line else extra
    canvas.text(canvas.width / 2, y + 0.47, line, size=9, ha="center")
    return y + 0.62


def styled(builder):
    """Run a figure builder under the charts' rc settings (fonts, hatch width, SVG salt)."""
    @functools.wraps(builder)
    def wrapper(*args, **kwargs):
        with matplotlib.rc_context(RC):
            return builder(*args, **kwargs)
    return wrapper


# --- the charts -----------------------------------------------------------------------------

def _summary(model: HandModel, strategy: Strategy,
             summary: Mapping[str, Any] | None) -> dict[str, Any]:
    """The summary as given: charts draw what was measured (`solver.hand.evaluate`, through
    `export.measure`), they do not measure; a number not given is not printed."""
    return dict(summary or {})


def _own_reach(model: HandModel, strategy: Strategy, reach: Reach | None) -> Reach:
    """Both players' own reach: the measured one when given (`solver.hand.evaluate`), else
    computed for this chart (a strategy no solver measured, the simplified one say)."""
    return reach or (own_reach(model, strategy, CAPTAIN), own_reach(model, strategy, OPPONENT))


def _throw_panels(model: HandModel, strategy: Strategy, reach: Reach | None = None
                  ) -> list[Panel]:
    T = model.throws
    panels = []
    both = _own_reach(model, strategy, reach)
    throw_reach = {p: both[p][0] for p in (CAPTAIN, OPPONENT)}
    panels.append(Panel("Captain", [
        Column(f"after\nthrow {t}",
               throw_cells(model, strategy, CAPTAIN, 0, t, throw_reach[CAPTAIN]))
        for t in range(1, T)]))
    for tc in range(1, T + 1):
        panels.append(Panel(f"Opponent, captain\nmade {tc} throw{'s' * (tc > 1)}", [
            Column(f"after\nthrow {t}",
                   throw_cells(model, strategy, OPPONENT, tc - 1, t, throw_reach[OPPONENT]))
            for t in range(1, T)]))
    return panels


def _throw_legend(model: HandModel) -> list[Style]:
    if model.game_params.reroll == "all":
        return [THROW_STYLES["stop"], THROW_STYLES["reroll"]]
    return [THROW_STYLES[k] for k in ("stop", "keep2", "keep1", "reroll")]


def _layout_rows(n: int, available: float, cap: float = 0.24) -> float:
    return min(cap, available / n)


@styled
def reroll_figure(model: HandModel, strategy: Strategy,
                  summary: Mapping[str, Any] | None = None, reach: Reach | None = None
                  ) -> Figure:
    """One page: when to stop throwing (and, under reroll=keep, which dice to keep)."""
    summary = _summary(model, strategy, summary)
    canvas = Canvas(A4_PORTRAIT)
    keep = model.game_params.reroll == "keep"
    title = ("When to stop throwing, which dice to keep" if keep
             else "When to stop throwing")
    y = draw_title(canvas, f"{game_title(model)} — {title}", model, summary)
    T = model.throws
    if T == 1:
        canvas.text(canvas.width / 2, y + 1, "One throw allowed: there is no throwing decision.",
                    size=11, ha="center")
        return canvas.finish()
    note = ("Rows: your hand, strongest first. Columns: the throw you have just made. "
            "The opponent reads the panel for the number of throws the captain declared. "
            "Mixed cells: bar widths are the frequencies.")
    if keep:
        note += " Dice written in a cell are the dice to keep."
    _hand_grid_page(canvas, model, _throw_panels(model, strategy, reach), y, gap=0.14,
                    max_col_w=1.5, header_size=7.5, legend_h=1.15, styles=THROW_STYLES,
                    legend=_throw_legend(model), note=note)
    return canvas.finish()


def _hand_grid_page(canvas: Canvas, model: HandModel, panels: Sequence[Panel], y: float, *,
                    gap: float, max_col_w: float, header_size: float, legend_h: float,
                    styles: Mapping[str, Style], legend: Sequence[Style], note: str) -> None:
    """The body shared by the reroll and betting pages: a row per hand, panels of columns,
    then the legend, the lettered cells and a note, sized to fill the rest of the page.

    The hand columns are as wide as their longest label, which leaves the cells as wide as
    the page allows, so that most mixed cells carry their labels themselves."""
    margin = 0.3
    ranked = rules.ranked_hands(model.game_params.faces, model.game_params.ranking)
    top_size = 7.5
    label_w = max(text_width(hand_label(h, model.game_params.ranking), top_size)
                  for h in ranked) + 0.1
    right_w = max(text_width(rules.format_hand(h), top_size) for h in ranked) + 0.14
    columns = sum(len(p.columns) for p in panels)
    col_w = min(max_col_w, (canvas.width - 2 * margin - label_w - right_w
                            - gap * (len(panels) - 1)) / columns)
    lettered = [cell for panel in panels for column in panel.columns for cell in column.cells
                if cell.mixed and not cell.ties
                and label_plan(cell, column.width or col_w, MIN_LABEL_PT)[0] == "note"]
    tied = next((cell.ties for panel in panels for column in panel.columns
                 for cell in column.cells if cell.ties), ())
    notes_h = notes_height(len(lettered), canvas.width - 2 * margin)
    header_h = header_height(panels, header_size)
    row_h = _layout_rows(model.num_hands,
                         canvas.height - y - header_h - legend_h - notes_h - 0.3)
    fontsize = max(MIN_LABEL_PT, min(top_size, row_h * 72 * 0.62))
    notes: list[str] = []
    bottom = draw_grid(canvas, model, panels, x0=margin, y0=y, row_h=row_h, col_w=col_w,
                       gap=gap, header_h=header_h, styles=styles, label_w=label_w,
                       right_label_w=right_w, fontsize=fontsize, header_size=header_size,
                       notes=notes)
    ly = draw_legend(canvas, margin, bottom + 0.25, legend, any_of=tied)
    ly = draw_notes(canvas, margin, ly + 0.02, notes, canvas.width - 2 * margin)
    _wrap_text(canvas, margin, ly + 0.08, note, canvas.width - 2 * margin, 7)


def _wrap_text(canvas: Canvas, x: float, y: float, text: str, width: float, size: float,
               line_h: float | None = None) -> float:
    per_line = max(20, int(width / (_char_width(size) * 0.9)))
    words, lines, current = text.split(), [], ""
    for word in words:
        if len(current) + len(word) + 1 > per_line and current:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    if current:
        lines.append(current)
    line_h = line_h or size / 72 * 1.45
    for i, line in enumerate(lines):
        canvas.text(x, y + i * line_h, line, size=size)
    return y + len(lines) * line_h


@styled
def betting_figure(model: HandModel, strategy: Strategy, public: tuple[int, int],
                   summary: Mapping[str, Any] | None = None, reach: Reach | None = None,
                   values: Any = None, decider: int | None = None,
                   ties: Any = None) -> Figure:
    """One page for one public state: every hand's betting at every decision point; where
    the other player's strategy never leads and several actions are equally good, the
    cell says "any" (`any_cells`, from `ties`: the strategy's action values, computed here
    when not given).

    With `values` (`solver.analysis.action_values.action_values` of the strategy) the page
    is what each action is worth to `decider` (captain or opponent: his decisions alone, so
    that the numbers get room): each cell prints every legal action's expected chips by
    its first letter ("f-1 c+2.8 r+2.9"), its bars' colours still showing the play; "†"
    ends a cell where the other player's strategy never leads.
    """
    summary = _summary(model, strategy, summary)
    tc, to = public
    tree = model.tree(public)
    canvas = Canvas(A4_PORTRAIT)
    first = ROLE_NAMES[tree.first]
    title = (f"Bidou — betting when the captain made {tc} throw{'s' * (tc > 1)} "
             f"and the opponent {to}")
    if values is not None:
        if decider not in (CAPTAIN, OPPONENT):
            raise ValueError("a chart of values is drawn for one decider: captain or opponent")
        title = f"Bidou — what each bet is worth to the {ROLE_NAMES[decider]}"
    y = draw_title(canvas, title, model, summary)
    where = ("" if values is None else
             f"Captain {tc} throw{'s' * (tc > 1)}, opponent {to}. ")
    canvas.text(canvas.width / 2, y + 0.02,
                f"{where}The {first} bets first (the captain does unless he made more throws).",
                size=9, ha="center", style="italic")
    y += 0.22
    both = _own_reach(model, strategy, reach)
    bet_reach: dict[int, Mapping] = {p: both[p][1] for p in (CAPTAIN, OPPONENT)}
    players: tuple[int, ...] = ((tree.first, 1 - tree.first) if decider is None or values is None
                                else (decider,))
    if values is None and ties is None:
        from solver.analysis.action_values import action_values

        ties = action_values(model, strategy)
    panels = []
    for player in players:
        columns = []
        for history in player_decisions(model, public, player):
            cells = betting_cells(model, strategy, public, history, bet_reach[player])
            if values is not None:
                cells = _with_values(model, cells, values.bet(tc, to, history))
            else:
                cells = any_cells(cells, ranked_indices(model), ties.bet(tc, to, history))
            columns.append(Column(decision_title(model, public, history), cells,
                                  subheader=plain_history(history, tree.first, player)))
        panels.append(Panel(f"{ROLE_NAMES[player].capitalize()} decides", columns))
    note = ("Rows: your hand, strongest first. Columns: your decision; find yours by the "
            "betting so far, written above each column. Each bet or raise is one "
            "chip more; folding costs one chip, a called showdown 2 chips per level to the "
            "lower hand. Mixed cells: bar widths are the frequencies.")
    if values is not None:
        note += (" Numbers: each action's expected chips to you (p pass, b bet, f fold, "
                 "c call, r raise; positive: the other player takes them) against the other "
                 "player's strategy, both of you playing it afterwards; the highest is the "
                 "best action. † : his strategy never leads here, the numbers are against "
                 "his smallest slips (docs/charts.md, \"What each action is worth\").")
    _hand_grid_page(canvas, model, panels, y, gap=0.16,
                    max_col_w=1.2 if values is None else 1.25, header_size=7,
                    legend_h=1.1 if values is None else 1.3, styles=BET_STYLES,
                    legend=[BET_STYLES[k] for k in ("pass", "bet", "fold", "call")], note=note)
    return canvas.finish()


def value_text(actions: Sequence[str], row: Sequence[Any], off_path: bool) -> str:
    """"f−1 c+2.8 r+2.9": each legal action's first letter and its expected chips to one
    decimal (a true minus sign; "0" for nothing either way), "†" at the end off the path."""
    parts = []
    for name, value in zip(actions, row):
        if value is None:
            continue
        tenths = round(float(value) * 10)
        number = "0" if tenths == 0 else (f"{tenths / 10:+.1f}".replace(".0", "")
                                          if tenths % 10 == 0 else f"{tenths / 10:+.1f}")
        parts.append(f"{str(name)[0]}{number.replace('-', '−')}")
    return " ".join(parts) + ("†" if off_path else "")


def _with_values(model: HandModel, cells: list[Cell], decision: Any) -> list[Cell]:
    """The cells (strongest hand first) with their decision's action values as text."""
    return [dataclasses.replace(cell, text=value_text(decision.actions, decision.values[h],
                                                      decision.off_path))
            for cell, h in zip(cells, ranked_indices(model))]


@styled
def booklet_index_figure(model: HandModel, summary: Mapping[str, Any] | None = None) -> Figure:
    """The first page of the betting booklet: which page, then which column."""
    canvas = Canvas(A4_PORTRAIT)
    y = draw_title(canvas, "Bidou — betting charts", model, summary)
    T = model.throws
    canvas.text(canvas.width / 2, y + 0.2, "1. Find your page by the two throw counts",
                size=12, ha="center", weight="bold")
    cell_w, cell_h = 1.55, 0.62
    x0 = canvas.width / 2 - cell_w * T / 2 + 0.45
    top = y + 0.85
    canvas.text(x0 + cell_w * T / 2, top - 0.34, "the opponent threw", size=9, ha="center")
    canvas.text(x0 - 0.95, top + cell_h * T / 2, "the captain\nthrew", size=9, ha="center")
    page = 2
    for tc in range(1, T + 1):
        canvas.text(x0 - 0.25, top + (tc - 0.5) * cell_h, str(tc), size=10, ha="center",
                    weight="bold")
        for to in range(1, T + 1):
            if tc == 1:
                canvas.text(x0 + (to - 0.5) * cell_w, top - 0.06, str(to), size=10,
                            ha="center", weight="bold", va="bottom")
            first = ROLE_NAMES[model.tree((tc, to)).first]
            cx, cy = x0 + (to - 1) * cell_w, top + (tc - 1) * cell_h
            canvas.rect(cx + 0.03, cy + 0.03, cell_w - 0.06, cell_h - 0.06, facecolor="#F2F2F2",
                        edgecolor=INK, linewidth=0.5)
            canvas.text(cx + cell_w / 2, cy + cell_h * 0.38, f"page {page}", size=11,
                        ha="center", weight="bold")
            canvas.text(cx + cell_w / 2, cy + cell_h * 0.7, f"{first} bets first", size=7.5,
                        ha="center")
            page += 1
    y = top + cell_h * T + 0.55
    canvas.text(canvas.width / 2, y, "2. Find your column by the betting so far", size=12,
                ha="center", weight="bold")
    y += 0.35
    for who, player in (("If you bet first", CAPTAIN), ("If the other player bets first",
                                                        OPPONENT)):
        tree = model.trees[CAPTAIN]
        canvas.text(0.9, y, f"{who} ({'left' if player == CAPTAIN else 'right'} half of the "
                    "page; he is the other player):", size=9.5, weight="bold")
        y += 0.25
        for node in sorted((nd for nd in tree.nodes if nd.actor == player),
                           key=lambda nd: nd.level):
            said = history_line(node.history, CAPTAIN, player)
            column = decision_title(model, (1, 1), node.history).replace("\n", " ")
            canvas.text(1.1, y, said, size=9)
            canvas.text(4.75, y, "→  column \u201c" + column + "\u201d", size=9)
            y += 0.22
        y += 0.2
    _wrap_text(canvas, 0.9, y + 0.1,
               "On every page your hand is the row (strongest first) and the colour is what "
               "you do: pale yellow pass, light vermillion (hatched) bet or raise, dark green "
               "call, grey (hatched) fold. A cell split into bars is a mixed decision: the "
               "widths and the percentages are how often to take each action (a lettered cell "
               "is spelled out under its grid). A thin band in a grey frame is a decision you "
               "never reach with that hand.", canvas.width - 1.8, 9)
    return canvas.finish()


def booklet_bytes(model: HandModel, strategy: Strategy,
                  summary: Mapping[str, Any] | None = None, reach: Reach | None = None
                  ) -> bytes:
    """The betting charts as one PDF: the index page, then one page per public state."""
    from matplotlib.backends.backend_pdf import PdfPages

    from solver.analysis.action_values import action_values

    summary = _summary(model, strategy, summary)
    buffer = io.BytesIO()
    metadata = {"CreationDate": None, "ModDate": None, "Producer": None,
                "Creator": "bidou-solver"}
    with matplotlib.rc_context(RC), PdfPages(buffer, metadata=metadata) as pdf:
        pdf.savefig(booklet_index_figure(model, summary))
        ties = action_values(model, strategy)
        for public in model.public_states:
            pdf.savefig(betting_figure(model, strategy, public, summary, reach, ties=ties))
    return buffer.getvalue()


# --- the "remember this" chart -----------------------------------------------------------

@styled
def remember_figure(simplified, summary: Mapping[str, Any] | None = None) -> Figure:
    """One landscape A4 page: the simplified strategy of `simplify.simplify` and its cost.

    Left the captain, right the opponent; each with his throwing decisions (the stop
    threshold drawn as a black line) and his betting, one block of columns per public state,
    one column per standing bet level that the simplified strategy can meet: a level it
    never meets with any hand has no column, which leaves the rest cells about twice as wide
    as one column for every level (and every label at MIN_LABEL_PT or more). A decision
    it never meets with one hand is an empty cell. The exploitability is printed once, in
    the cost lines.
    """
    model, strategy = simplified.model, simplified.strategy
    canvas = Canvas(A4_LANDSCAPE)
    W = canvas.width
    canvas.text(W / 2, 0.28, "Bidou \u2014 remember this: a simplified strategy", size=14,
                ha="center", weight="bold")
    canvas.text(W / 2, 0.5, "Rules: " + model.game_params.describe(), size=8.5, ha="center")
    for i, line in enumerate(_remember_cost(simplified, summary)):
        canvas.text(W / 2, 0.67 + 0.14 * i, line, size=7.5, ha="center")
    y = 0.9
    keep = model.game_params.reroll == "keep"
    panels, mid = _remember_panels(model, strategy)
    margin, gap = 0.2, 0.08
    fontsize = MIN_LABEL_PT
    ranked = rules.ranked_hands(model.game_params.faces, model.game_params.ranking)
    label_w = max(text_width(hand_label(h, model.game_params.ranking), fontsize) for h in ranked) \
        + 0.08
    short_w = max(text_width(rules.format_hand(h), fontsize) for h in ranked) + 0.1
    throw_w = text_width("6-6", fontsize) + 0.08 if keep else 0.2     # at most two dice kept
    throw_cols = sum(len(p.columns) for p in panels if p.title.endswith("throws"))
    bet_cols = sum(len(p.columns) for p in panels if p.title.endswith("betting"))
    gaps = sum(c.gap_before for p in panels for c in p.columns)
    fixed = 2 * margin + label_w + 2 * short_w + gap * len(panels) + gaps \
        + throw_w * throw_cols
    bet_w = min(0.3, (W - fixed) / max(1, bet_cols))
    for panel in panels:
        for column in panel.columns:
            column.width = throw_w if panel.title.endswith("throws") else bet_w
    header_h = 0.68
    legend_h = 0.9
    row_h = _layout_rows(model.num_hands, canvas.height - y - header_h - legend_h - 0.1)
    bottom = draw_grid(canvas, model, panels, x0=margin, y0=y, row_h=row_h, col_w=bet_w,
                       gap=gap, header_h=header_h, styles={**THROW_STYLES, **BET_STYLES},
                       label_w=label_w, right_label_w=short_w, fontsize=fontsize,
                       header_size=MIN_LABEL_PT, title_size=7.5, cell_labels=keep,
                       mid_labels=mid, mid_label_w=short_w, off_path="blank")
    _remember_headers(canvas, model, panels, simplified, x0=margin, y0=y, row_h=row_h,
                      label_w=label_w, mid_label_w=short_w, gap=gap, header_h=header_h,
                      mid=mid)
    entries = _throw_legend(model) + [BET_STYLES[k] for k in ("pass", "bet", "fold", "call")]
    ly = draw_legend(canvas, margin, bottom + 0.14, entries, fontsize=7, off_path="blank")
    note = ("Throws: the number is the throw just made (opponent: C1..C3, the captain's throw "
            "count); stop above the black line, throw again below it"
            + (" keeping the dice written in the cell" if keep else "")
            + ". Betting: a block per public state (C2 O1: the captain made 2 throws, the "
            "opponent 1; the captain bets first unless he made more), a column per standing "
            "bet: 0 nothing bet yet (you open, or the other passed), 1 you face a bet, 2 and up "
            "a raise to that level; a level never met in a block has no column.")
    _wrap_text(canvas, margin, ly - 0.04, note, W - 2 * margin, 7, line_h=0.13)
    return canvas.finish()


def _remember_cost(simplified, summary: Mapping[str, Any] | None) -> list[str]:
    """The value and what simplifying costs, each number once."""
    value = (summary or {}).get("value", simplified.game_value)
    e = simplified.exploitability
    return [f"Value to the captain {signed(value)} chips per hand. Every action is the solved "
            f"strategy's most likely one; stopping is a threshold per throw. Exploitability "
            f"{e.exploitability:.3f} chips per hand (the solved strategy's: "
            f"{_tiny(simplified.exact_exploitability)}):",
            f"against the simplified captain a best-responding opponent wins "
            f"{simplified.captain_loss:.3f} chips per hand more than the value; against the "
            f"simplified opponent a best-responding captain {simplified.opponent_loss:.3f} "
            "more (the exploitability is their mean)."]


def _remember_panels(model: HandModel, strategy: Strategy) -> tuple[list[Panel], list[int]]:
    """Each player's throw panel and betting panel (only the bet levels some hand meets),
    and the panels before which the hands are written again (the opponent's)."""
    T = model.throws
    reach = {p: own_reach(model, strategy, p) for p in (CAPTAIN, OPPONENT)}
    panels: list[Panel] = []
    mid = []
    for player in (CAPTAIN, OPPONENT):
        if player == OPPONENT:
            mid.append(len(panels))
        name = ROLE_NAMES[player].capitalize()
        if T > 1:
            contexts = [0] if player == CAPTAIN else list(range(T))
            panels.append(Panel(f"{name}:\nthrows", [
                Column(str(t), throw_cells(model, strategy, player, c, t, reach[player][0]),
                       key=(player, 0 if player == CAPTAIN else c + 1, t))
                for c in contexts for t in range(1, T)]))
        columns: list[Column] = []
        for public in model.public_states:
            live: list[Column] = []
            for history in player_decisions(model, public, player):
                cells = betting_cells(model, strategy, public, history, reach[player][1])
                if any(c.reached for c in cells):
                    level = model.tree(public).node(history).level
                    live.append(Column("", cells, key=public + (level,)))
            if live and columns:
                live[0].gap_before = BLOCK_GAP
            columns += live
        panels.append(Panel(f"{name}: betting", columns))
    return panels, mid


def _tiny(e: float | None) -> str:
    if e is None:
        return "not measured"
    return NOISE_TEXT if e < NOISE else f"{e:.2g}"


def _remember_headers(canvas: Canvas, model: HandModel, panels: Sequence[Panel], simplified,
                      *, x0: float, y0: float, row_h: float, label_w: float,
                      mid_label_w: float, gap: float, header_h: float, mid: Sequence[int]
                      ) -> None:
    """Group labels over the columns (C1 O2 blocks, captain's throw counts, bet levels) and
    the stop threshold lines, at the x positions `draw_grid` used."""
    x = x0 + label_w
    grid_top = y0 + header_h
    rules_by_key = {(r.player, r.context, r.throw): r for r in simplified.thresholds}
    size = MIN_LABEL_PT
    for p, panel in enumerate(panels):
        if p:
            x += gap + (mid_label_w + gap if p in mid else 0)
        groups: list[tuple[tuple, float, float]] = []      # (group key, start, end)
        for column in panel.columns:
            x += column.gap_before
            throws = panel.title.endswith("throws")
            if throws:
                rule = rules_by_key.get(column.key)
                if rule is not None:
                    yy = grid_top + rule.stop_count * row_h
                    canvas.line([x, x + column.width], [yy, yy], linewidth=2.2, color="black")
                group = column.key[:2]
            else:
                canvas.text(x + column.width / 2, grid_top - 0.03, str(column.key[2]),
                            size=size, ha="center", va="bottom")
                group = column.key[:2]
            if groups and groups[-1][0] == group:
                groups[-1] = (group, groups[-1][1], x + column.width)
            else:
                groups.append((group, x, x + column.width))
            x += column.width
        for group, start, end in groups:
            centre = (start + end) / 2
            if panel.title.endswith("throws"):
                label = "after\nthrow" if group[0] == CAPTAIN else f"C{group[1]}"
                canvas.text(centre, grid_top - 0.15, label, size=size, ha="center",
                            va="bottom", weight="bold", linespacing=1.0)
                continue
            tc, to = group
            narrow = text_width(f"C{tc} O{to}", size) > end - start + 0.02
            canvas.text(centre, grid_top - 0.14, f"C{tc}\nO{to}" if narrow else f"C{tc} O{to}",
                        size=size, ha="center", va="bottom", weight="bold", linespacing=1.0)


# --- output ---------------------------------------------------------------------------------

def figure_bytes(figure: Figure, fmt: str, dpi: float | None = None) -> bytes:
    """Render to bytes, deterministically (no dates, fixed SVG ids, fixed software fields)."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    metadata = {"pdf": {"CreationDate": None, "ModDate": None, "Producer": None,
                        "Creator": "bidou-solver"},
                "svg": {"Date": None, "Creator": "bidou-solver"},
                "png": {"Software": "bidou-solver"}}[fmt]
    buffer = io.BytesIO()
    with matplotlib.rc_context(RC):
        figure.savefig(buffer, format=fmt, dpi=dpi or DEFAULT_DPI, metadata=metadata)
    return buffer.getvalue()


def save_figure(figure: Figure, stem: str | os.PathLike, formats: Sequence[str] = FORMATS,
                dpi: float | None = None) -> list[Path]:
    """Write `<stem>.<fmt>` for each format, atomically."""
    paths = []
    for fmt in formats:
        path = Path(f"{os.fspath(stem)}.{fmt}")
        write_bytes_atomic(path, figure_bytes(figure, fmt, dpi))
        paths.append(path)
    return paths


def make_figure(builder, *args, **kwargs) -> Figure:
    """Call a figure builder under the charts' rc settings (the builders do it themselves)."""
    with matplotlib.rc_context(RC):
        return builder(*args, **kwargs)


def write_charts(model: HandModel, strategy: Strategy, out_dir: str | os.PathLike,
                 summary: Mapping[str, Any] | None = None, formats: Sequence[str] = FORMATS,
                 dpi: float | None = None, simplified=None, progress: Step | None = None,
                 reach: Reach | None = None) -> list[Path]:
    """Every chart, in every format: reroll_chart, betting_chart_c<tc>_o<to>, remember_chart,
    and (with PDF) the betting booklet betting_charts.pdf: an index page, then the nine pages.

    `simplified` (from `simplify.simplify`) is computed if not given; `progress(what, done,
    total)`, if given, hears of each chart before it is drawn; `reach` is both players' own
    reach as measured (`solver.hand.evaluate`), computed once here if not given.
    """
    out = Path(out_dir)
    reach = _own_reach(model, strategy, reach)
    paths: list[Path] = []
    for stem, figure in chart_figures(model, strategy, summary, simplified, progress, reach):
        paths += save_figure(figure, out / stem, formats, dpi)
    if "pdf" in formats and one_chip_betting(model):
        path = out / BOOKLET
        write_bytes_atomic(path, booklet_bytes(model, strategy, _summary(model, strategy,
                                                                           summary), reach))
        paths.append(path)
    return paths


def chart_figures(model: HandModel, strategy: Strategy, summary: Mapping[str, Any] | None = None,
                  simplified=None, progress: Step | None = None, reach: Reach | None = None):
    """(stem, figure) of every chart, in `chart_stems` order, drawn one at a time."""
    from solver.analysis.action_values import action_values
    from solver.cheatsheet.simplify import simplify

    summary = _summary(model, strategy, summary)
    reach = _own_reach(model, strategy, reach)
    stems = chart_stems(model)
    ties = action_values(model, strategy)
    for done, stem in enumerate(stems, start=1):
        if progress is not None:
            progress(f"drawing {stem}", done, len(stems))
        if stem == "reroll_chart":
            yield stem, make_figure(reroll_figure, model, strategy, summary, reach)
        elif stem == "remember_chart":
            if simplified is None:
                simplified = simplify(model, strategy, summary.get("value"))
            yield stem, make_figure(remember_figure, simplified, summary)
        else:
            tc, to = (int(part[1:]) for part in stem.split("_")[2:])
            yield stem, make_figure(betting_figure, model, strategy, (tc, to), summary, reach,
                                    ties=ties)
