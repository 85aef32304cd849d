"""The charts print: every kind of chart is drawn (the published default and keep games, the
round, the sweep) and checked as a printed A4 page is read.

- In grayscale every action still differs from every other: the grey of each colour the
  charts use (Rec. 601 luma, computed here from the hex codes, not by the code under test)
  is at least MIN_GRAY_GAP from every other action's, MIN_GRAY_GAP_KIND within throwing or
  within betting; the colours drawn are those of the palette; nothing is faded (an alpha
  below 1 turns blue into sky blue).
- No text is smaller than MIN_LABEL_PT (6.5 pt) once the figure is scaled to fit A4.
- A mixed cell names every action and its shares add up to 100.
- The remember chart prints its exploitability once; the round chart says whose chance it
  shows, in the rules' words, with the interval bound of its data; the booklet index and the
  cheat sheet say what they mean.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.text import Text

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.cheatsheet import rulebook
from solver.cheatsheet.search import measure
from solver.cheatsheet.simplify import simplify
from solver.export import charts
from solver.export.cheatsheet_page import cheatsheet_figure
from solver.export.round_charts import width_bound, win_probability_figure
from solver.hand.strategy import load_strategy_file

ROOT = Path(__file__).resolve().parent.parent
OUTPUTS = ROOT / "outputs"
A4 = (8.27, 11.69)
MIN_PT = 6.5


def luma(hex_colour: str) -> float:
    """Rec. 601 luma of "#RRGGBB" (the standard grayscale conversion)."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b


def a4_scale(figure) -> float:
    """How much a print shrinks the figure to fit A4, in its better orientation."""
    w, h = figure.get_size_inches()
    return min(1.0, max(min(A4[0] / w, A4[1] / h), min(A4[1] / w, A4[0] / h)))


def texts(figure) -> list[Text]:
    return [t for t in figure.findobj(Text) if t.get_visible() and t.get_text().strip()]


def smallest_print_size(figure) -> tuple[float, str]:
    scale = a4_scale(figure)
    return min((t.get_fontsize() * scale, t.get_text()) for t in texts(figure))


@pytest.fixture(scope="module")
def games():
    """The published default and keep games, read from their strategy files (no solving)."""
    return {name: load_strategy_file(OUTPUTS / name / "strategy.json")
            for name in ("default", "keep")}


@pytest.fixture(scope="module")
def figures(games):
    """One figure of every kind, at the size it prints."""
    out = {}
    for name, (model, strategy, summary) in games.items():
        out[f"{name} reroll"] = charts.make_figure(charts.reroll_figure, model, strategy,
                                                   summary)
        out[f"{name} betting c1 o1"] = charts.make_figure(charts.betting_figure, model,
                                                          strategy, (1, 1), summary)
    model, strategy, summary = games["keep"]          # the larger remember chart; its
    simple = simplify(model, strategy, summary["value"], optimize=False)   # thresholds unmoved
    out["keep remember"] = charts.make_figure(charts.remember_figure, simple, summary)
    model, strategy, summary = games["default"]
    out["betting c3 o1"] = charts.make_figure(charts.betting_figure, model, strategy, (3, 1),
                                              summary)
    out["booklet index"] = charts.make_figure(charts.booklet_index_figure, model, summary)
    out["round"] = win_probability_figure(json.loads((OUTPUTS / "round" / "round.json")
                                                     .read_text()))
    from solver.export.sweep_plot import sweep_figure
    from solver.pipeline.bidou_sweep import SWEEP

    out["sweep"] = sweep_figure(SWEEP.read_rows(ROOT / "docs" / "data"))
    return out


@pytest.fixture(scope="module")
def keep_sheet(games):
    """The published 12-rule keep cheat sheet, its rules read back from their words."""
    model, strategy, summary = games["keep"]
    _, _, front = load_strategy_file(OUTPUTS / "cheatsheet-front" / "front_keep_12.json")
    rules = [rulebook.parse_rule(model, line) for line in front["rules"]]
    return model, measure(model, rules, strategy, summary["value"])


# --- grayscale ------------------------------------------------------------------------------

def test_every_two_actions_differ_in_grayscale():
    throw = {k: s.color for k, s in charts.THROW_STYLES.items()}
    bet = {k: s.color for k, s in charts.BET_STYLES.items()}
    assert bet["bet"] == bet["raise"]                      # one meaning, one colour
    assert charts.MIN_GRAY_GAP >= 25 and charts.MIN_GRAY_GAP_KIND >= 50
    for kind in (throw, {k: c for k, c in bet.items() if k != "raise"}):
        for (a, ca), (b, cb) in itertools.combinations(kind.items(), 2):
            assert abs(luma(ca) - luma(cb)) >= charts.MIN_GRAY_GAP_KIND, (a, b)
    every = set(throw.values()) | set(bet.values())
    assert len(every) == 8
    gaps = [abs(luma(a) - luma(b)) for a, b in itertools.combinations(every, 2)]
    assert min(gaps) >= charts.MIN_GRAY_GAP
    # keep two and keep one must be told apart in gray (at 158 and 151 they could not)
    assert abs(luma(throw["keep2"]) - luma(throw["keep1"])) > 100
    assert charts.luminance(throw["keep2"]) == pytest.approx(luma(throw["keep2"]))


@pytest.mark.parametrize("name", ["keep reroll", "default betting c1 o1", "keep remember"])
def test_the_colours_drawn_are_the_palette_and_never_faded(figures, name):
    palette = {c.lower() for c in
               [s.color for s in charts.THROW_STYLES.values()]
               + [s.color for s in charts.BET_STYLES.values()]}
    drawn = set()
    for collection in figures[name].findobj(PolyCollection):
        for face in collection.get_facecolors():
            assert face[3] == 1.0, "a faded cell: its colour would read as another action"
            hex_colour = "#" + "".join(f"{round(255 * c):02x}" for c in face[:3])
            if hex_colour != "#ffffff":                   # frames of never-reached cells
                drawn.add(hex_colour)
    assert drawn <= palette
    assert len(drawn) >= 4


# --- type sizes -----------------------------------------------------------------------------

def test_no_text_prints_below_the_minimum_at_a4(figures):
    assert charts.MIN_LABEL_PT == MIN_PT
    for name, figure in figures.items():
        size, text = smallest_print_size(figure)
        assert size >= MIN_PT - 1e-9, f"{name}: {text!r} prints at {size:.2f} pt"


def test_the_size_check_can_fail(figures):
    """A 5 pt label, like the old two-line mixed labels, is caught."""
    figure = figures["booklet index"]
    figure.axes[0].text(0, 0, "stop 58% / 2 42%", fontsize=5)
    try:
        assert smallest_print_size(figure)[0] == pytest.approx(5.0)
    finally:
        figure.axes[0].texts[-1].remove()


# --- mixed cells ----------------------------------------------------------------------------

def test_shares_add_up_to_100_by_largest_remainder():
    assert charts.shares([1 / 3, 1 / 3, 1 / 3]) == [34, 33, 33]
    assert charts.shares([0.585, 0.415]) == [59, 41]          # rounding each gives 59 + 42
    assert charts.shares([0.105, 0.105, 0.79]) == [11, 10, 79]
    assert charts.shares([0.9996, 0.0004]) == [99, 1]          # a slice drawn shows 1%
    assert charts.shares([0.5, 0.5]) == [50, 50]


def _mixed_cells(model, strategy):
    T = model.throws
    for player, contexts in ((CAPTAIN, [0]), (OPPONENT, range(T))):
        for context in contexts:
            for throw in range(1, T):
                yield from charts.throw_cells(model, strategy, player, context, throw)
    for public in model.public_states:
        for player in (CAPTAIN, OPPONENT):
            for history in charts.player_decisions(model, public, player):
                yield from charts.betting_cells(model, strategy, public, history)


@pytest.mark.parametrize("game", ["default", "keep"])
def test_mixed_labels_name_each_action_and_add_up_to_100(games, game):
    model, strategy, _ = games[game]
    names = {"stop", "throw", "all", "pass", "bet", "call", "fold", "raise"}
    count = 0
    for cell in _mixed_cells(model, strategy):
        if not cell.mixed:
            continue
        count += 1
        texts_ = charts.slice_texts(cell)
        parsed = [re.fullmatch(r"(\S+) (\d+)%", t) for t in texts_]
        assert all(parsed), texts_
        assert sum(int(m.group(2)) for m in parsed) == 100, texts_
        for match, seg in zip(parsed, cell.segments):
            word = match.group(1)
            assert word in names or re.fullmatch(r"\d(-\d){0,1}", word), texts_
            if seg.style.startswith("keep"):
                assert word == seg.label                    # the dice to keep
    assert count > 10


def test_a_cell_too_narrow_gets_a_letter_spelled_out_under_the_grid(figures):
    words = [t.get_text() for t in texts(figures["keep reroll"])]
    assert "Lettered cells (too narrow for their mix):" in words
    notes = [w for w in words if re.fullmatch(r"[a-z]+  \d-\d-\d: .*", w)]
    assert len(notes) >= 5
    for note in notes:
        letter = note.split()[0]
        assert letter in words                              # the mark in the cell
        assert sum(int(p) for p in re.findall(r"(\d+)%", note)) == 100


# --- the numbers of a values chart ----------------------------------------------------------

def test_the_numbers_of_a_values_chart_read_on_their_cells():
    """The action values printed over the cells (docs/img/betting_values_*) were dark with a
    wide white halo: over the dark and hatched cells they read as white blots. Their ink
    follows the grey under them (a hatched colour reads darker), the hatch is cleared under
    them, and over a cell never reached they are dark on white."""
    styles = charts.BET_STYLES

    def cell(*parts, reached=True):
        return charts.Cell(tuple(charts.Segment(f, s) for s, f in parts), reached,
                           text="f\u22121 c+2.4 r+1\u2020")

    for action in ("pass", "bet", "fold", "call"):
        ink = charts.value_ink(cell((action, 1.0)), styles)
        under = luma(styles[action].color) * (charts.HATCH_SHADE if styles[action].hatch
                                              else 1.0)
        printed = 255 if ink["color"] == "white" else luma(charts.INK)
        assert abs(printed - under) >= 90, action
        assert "path_effects" not in ink and "bbox" not in ink, action
    assert [charts.value_ink(cell((a, 1.0)), styles)["color"] for a in ("call", "fold")] == \
        ["white", "white"]
    mixed = charts.value_ink(cell(("call", 0.6), ("bet", 0.4)), styles)
    assert mixed["color"] == "white" and mixed["path_effects"]          # a halo of dark ink
    off = charts.value_ink(cell(("fold", 1.0), reached=False), styles)
    assert off["color"] == charts.INK and off["bbox"]["facecolor"] == "white"
    canvas = charts.Canvas((2.0, 0.3))
    charts.draw_cell(canvas, 0, 0, 2.0, 0.3, cell(("fold", 1.0)), styles, 7)
    figure = canvas.finish()
    assert len(figure.axes[0].patches) == 1           # the hatch cleared under the numbers
    assert [t.get_color() for t in texts(figure)] == ["white"]


# --- what the pages say ---------------------------------------------------------------------

def test_remember_chart_prints_the_exploitability_once(figures, games):
    words = " ".join(t.get_text() for t in texts(figures["keep remember"]))
    assert words.count("xploitability ") == 2       # "Exploitability 0.068" and "(the ... mean)"
    assert len(re.findall(r"xploitability \d", words)) == 1
    model, strategy, summary = games["keep"]        # the figure's simplification, measured
    simple = simplify(model, strategy, summary["value"], optimize=False)
    assert f"Exploitability {simple.exploitability.exploitability:.3f} chips per hand" in words
    assert not re.search(r"0\.\d{4}\d* chips per hand", words.replace("−0.0614", ""))


def test_round_chart_says_whose_chance_in_the_rules_words(figures):
    report = json.loads((OUTPUTS / "round" / "round.json").read_text())
    page = (OUTPUTS / "round" / "summary.md").read_text()      # what the page says
    bound = re.search(r"every interval narrower than (1e-\d+)", page).group(1)
    figure = figures["round"]
    title = figure._suptitle.get_text()
    assert "captain's chance" in title and "each player" not in title
    assert "_" not in title and "True" not in title
    assert "encyclopedia ranking" in title
    words = " ".join(t.get_text() for t in texts(figure))
    assert f"to within {width_bound(report['max_width'])} " in words
    # the published round is refined: its stage games on a 2^-40 grid, intervals under 1e-10
    assert width_bound(report["max_width"]) == bound == "1e-10" and "1e-9" not in words
    assert width_bound(2e-12) == "1e-11" and width_bound(1e-12) == "1e-12"


def test_booklet_index_and_cheat_sheet_say_what_they_mean(figures, keep_sheet):
    index = [t.get_text() for t in texts(figures["booklet index"])]
    assert "nothing bet yet" in index and not any("nothing, bet" in t for t in index)
    model, point = keep_sheet
    sheet = cheatsheet_figure(model, point)
    words = " ".join(t.get_text() for t in texts(sheet))
    keep_rules = [str(i) for i, r in enumerate(point.rules, 1) if r.kind == "keep"]
    assert keep_rules                    # the published keep sheet has keep rules (one a throw)
    if len(keep_rules) == 1:
        assert f"Rule {keep_rules[0]} (which dice to keep) has no column" in words
    else:
        names = ", ".join(keep_rules[:-1]) + f" and {keep_rules[-1]}"
        assert f"Rules {names} (which dice to keep) have no column:" in words
    assert "the captain bets first, unless he threw more times" in words.replace("\n", " ")
    columns = [t.get_text() for t in texts(sheet) if t.get_text().isdigit()
               and t.get_fontweight() == "bold"]
    others = {str(i) for i in range(1, len(point.rules) + 1)} - set(keep_rules)
    assert not set(keep_rules) & set(columns) and others <= set(columns)
    size, text = smallest_print_size(sheet)
    assert size >= MIN_PT, text


def test_sweep_series_are_told_apart(figures):
    figure = figures["sweep"]
    for axes in figure.axes:
        looks = [(line.get_color(), line.get_marker(), line.get_linestyle())
                 for line in axes.get_lines() if line.get_label() and
                 not line.get_label().startswith("_")]
        assert len(looks) == len(set(looks)) == 12
        assert len({c for c, _, _ in looks}) == 4 and len({m for _, m, _ in looks}) == 3
    assert np.isclose(a4_scale(figure), 11.69 / figure.get_size_inches()[0])


def test_remember_chart_cells_are_big_enough_to_print(figures):
    """The old page had a column for every bet level: 98 columns of 1.8 mm (0.07 in); only
    the levels the simplified strategy meets are drawn now, about 3 mm wide (2.7 mm inside
    the padding under reroll=keep)."""
    widths = [verts[:, 0].max() - verts[:, 0].min()
              for collection in figures["keep remember"].findobj(PolyCollection)
              for verts in (np.asarray(p.vertices) for p in collection.get_paths())]
    assert len(widths) > 56 * 40
    assert np.median(widths) >= 0.09                   # inches (the old page: 0.056)
