"""Bidú's standing chart (solver/export/bidu_charts.py, drawn from the table that
solver/app/bidu_charts.py reads from the published solution): the table is the strategies'
standing exactly, the page prints what the table says in type of 8 pt or more with no text
over another, and the files are written in every format."""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from matplotlib.text import Text

from games.bidu.params import BiduParams
from solver.app.bidu_charts import main, solution_path, standing_chart_of, standing_table
from solver.bidu.model import NO_STAND
from solver.bidu.proof import Q
from solver.bidu.solution_file import read_solution
from solver.export import bidu_charts

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "outputs" / "bidu" / "bidu-solution.json"
MAGIC = {"pdf": b"%PDF", "png": b"\x89PNG", "svg": b"<?xml"}
NUMBER = re.compile(r"<1%|>99%|\d+%")


@pytest.fixture(scope="module")
def solution():
    """The published default vuelta, its value proved again as it is read (about 1 s)."""
    return read_solution(SOLUTION, BiduParams())


@pytest.fixture(scope="module")
def chart(solution):
    return standing_chart_of(solution, "outputs/bidu/bidu-solution.json")


@pytest.fixture(scope="module")
def figure(chart):
    figure = bidu_charts.standing_figure(chart)
    figure.canvas.draw()
    return figure


def _texts(figure) -> list[Text]:
    return [t for t in figure.findobj(Text) if t.get_visible() and t.get_text().strip()]


def test_the_table_is_each_seats_standing_exactly(solution):
    """One row a decision of a seat, the chances its strategy's integers over Q, hands
    weakest first; every decision of the strategies is there, and none at the last throw."""
    model = solution.model
    table = standing_table(solution)
    assert [(r.seat, r.throw, r.pub) for r in table] == [
        (0, 1, NO_STAND), (0, 2, NO_STAND), (0, 2, 1),
        (1, 1, NO_STAND), (1, 2, NO_STAND), (1, 2, 1)]
    for seat in (0, 1):
        stand = solution.strategies[seat].stand
        mine = [r for r in table if r.seat == seat]
        assert {(r.throw, r.pub) for r in mine} == set(stand)
        for row in mine:
            assert row.throw < model.throws
            assert len(row.chances) == model.num_hands == 56
            assert list(row.chances) == [Fraction(s, Q) for s in stand[(row.throw, row.pub)]]
            assert all(0 <= c <= 1 for c in row.chances)


def test_the_strongest_hands_stand_and_the_rate_weighs_by_the_dice(solution):
    """The bidú and the triples are stood on everywhere; a column's rate is the hands'
    chances weighted by one throw's dice (all hands standing: exactly 1)."""
    model = solution.model
    assert sum(model.chances) == 1
    assert bidu_charts.stand_rate([Fraction(1)] * 56, model.chances) == 1
    for row in standing_table(solution):
        assert row.chances[-1] == 1 and all(c == 1 for c in row.chances[-7:])
        rate = bidu_charts.stand_rate(row.chances, model.chances)
        assert rate == sum(c * p for c, p in zip(row.chances, model.chances))
        assert 0 < rate < 1


def test_a_mixed_chance_is_never_printed_as_pure():
    assert bidu_charts.percent(Fraction(1, 1000)) == "<1%"
    assert bidu_charts.percent(Fraction(999, 1000)) == ">99%"
    assert bidu_charts.percent(Fraction(2, 3)) == "67%"


def test_the_page_prints_every_mixed_cell_and_each_column_rate(solution, chart, figure):
    """The numbers on the page are the mixed cells' chances, the columns' rates and the
    legend's example: nothing else, nothing missing."""
    model = solution.model
    table = chart.rows
    assert list(table) == standing_table(solution)
    assert chart.hands == model.hands and chart.hand_chances == model.chances
    expected = Counter(bidu_charts.percent(c) for row in table for c in row.chances
                       if 0 < c < 1)
    expected.update(f"{round(100 * float(bidu_charts.stand_rate(row.chances, model.chances)))}%"
                    for row in table)
    expected.update(["25%"])                                   # the legend's mixed cell
    printed = Counter(t.get_text() for t in _texts(figure) if NUMBER.fullmatch(t.get_text()))
    assert printed == expected
    words = " ".join(t.get_text() for t in _texts(figure))
    assert solution.params.describe() in words
    assert "LP vertex" in words and "another equilibrium may stand otherwise" in words


def test_no_text_is_under_8_pt_off_the_page_or_over_another(figure):
    texts = _texts(figure)
    assert min(t.get_fontsize() for t in texts) >= bidu_charts.MIN_PT >= 8
    renderer = figure.canvas.get_renderer()
    width, height = figure.bbox.width, figure.bbox.height
    boxes = [t.get_window_extent(renderer) for t in texts]
    for t, box in zip(texts, boxes):
        assert 0 <= box.x0 and box.x1 <= width and 0 <= box.y0 and box.y1 <= height, \
            t.get_text()
    inner = [box.padded(-1.5) for box in boxes]        # touching is not over
    for i, a in enumerate(inner):
        for j in range(i):
            assert not a.overlaps(inner[j]), (texts[i].get_text(), texts[j].get_text())


@pytest.mark.parametrize("fmt", ["pdf", "png", "svg"])
def test_the_chart_is_written_in_each_format(chart, tmp_path, fmt):
    path = bidu_charts.standing_chart(chart, tmp_path / f"chart.{fmt}")
    assert path == tmp_path / f"chart.{fmt}"
    assert path.read_bytes().startswith(MAGIC[fmt])
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"chart.{fmt}"]   # nothing left


def test_a_suffix_that_is_no_format_is_refused(chart, tmp_path):
    with pytest.raises(ValueError, match="pdf, png, svg"):
        bidu_charts.standing_chart(chart, tmp_path / "chart.jpg")
    assert not list(tmp_path.iterdir())


def test_the_command_writes_the_formats_asked_for(tmp_path, capsys):
    assert solution_path() == SOLUTION
    assert main(["--out", str(tmp_path), "--format", "svg"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bidu-standing.svg"]
    assert capsys.readouterr().out.strip() == str(tmp_path / "bidu-standing.svg")
