""""any" cells (charts.any_cells, docs/charts.md): where the other player's strategy never
leads and several actions are equally good against his slips, the betting charts print
"any" over the tied actions' colours instead of the strategy's own pick at full colour,
with a printed legend; on the path a tie is not marked (the equilibrium's pick keeps the
other player indifferent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.text import Text

from solver.analysis.action_values import DecisionValues, action_values
from solver.export import charts
from solver.export.tables import ranked_indices
from solver.hand.strategy import load_strategy_file

OUTPUTS = Path(__file__).resolve().parent.parent / "outputs"
A4_MIN_PT = 6.5


def _decision(values, off_path=True):
    return DecisionValues(player=0, where=("bet", (1, 1, "pbr")),
                          actions=("fold", "call", "raise"), values=tuple(values),
                          mix=tuple(0.0 for _ in values), off_path=off_path)


def _cell(*styles, reached=True):
    return charts.Cell(tuple(charts.Segment(1 / len(styles), s) for s in styles), reached)


def test_ties_are_marked_only_off_the_path_among_the_actions_played():
    values = [(-1.0, 5.7, 5.7 + 1e-12),      # call and raise tie (within TIE_TOL)
              (-1.0, 5.7, 5.7 - 1e-6),       # raise is worse by 1e-6: no tie
              (-1.0, -1.0, None),            # fold and call tie; raise not legal
              (-1.0, 2.0, 2.0)]              # a tie, but the strategy folds: not "any"
    cells = [_cell("call"), _cell("call"), _cell("fold"), _cell("fold")]
    marked = charts.any_cells(cells, range(4), _decision(values))
    assert [c.ties for c in marked] == [("call", "raise"), (), ("fold", "call"), ()]
    assert all(not c.ties for c in charts.any_cells(cells, range(4),
                                                    _decision(values, off_path=False)))
    unreached = charts.any_cells([_cell("call", reached=False)], [0], _decision(values[:1]))
    assert unreached[0].ties == ()


@pytest.fixture(scope="module")
def published():
    return load_strategy_file(OUTPUTS / "default" / "strategy.json")


def _texts(figure):
    return [t for t in figure.findobj(Text) if t.get_visible() and t.get_text().strip()]


@pytest.mark.slow
def test_every_marked_cell_prints_any_with_its_legend(published):
    """Pages of the published default strategy: as many "any" words as marked cells, the
    legend line on a page that has one (and only there), each at 6.5 pt or more on A4;
    the default game has some (the captain's 2-1-1 facing a check-raise after he passed,
    e.g. C3 O1: call and raise tie, the opponent never check-raises there). Two pages are
    drawn, the first with marks and the first without (drawing all nine takes a minute)."""
    model, strategy, summary = published
    values = action_values(model, strategy)
    marks = {}
    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        marks[(tc, to)] = sum(
            bool(c.ties)
            for player in (tree.first, 1 - tree.first)
            for history in charts.player_decisions(model, (tc, to), player)
            for c in charts.any_cells(charts.betting_cells(model, strategy, (tc, to), history),
                                      ranked_indices(model), values.bet(tc, to, history)))
    total = sum(marks.values())
    drawn = [next(p for p in marks if marks[p]), next(p for p in marks if not marks[p])]
    for tc, to in drawn:
        marked = marks[(tc, to)]
        figure = charts.make_figure(charts.betting_figure, model, strategy, (tc, to),
                                    summary, ties=values)
        words = [t for t in _texts(figure) if t.get_text() == charts.ANY_LABEL]
        legend = [t for t in _texts(figure) if t.get_text() == charts.ANY_LEGEND]
        assert len(words) == marked + bool(marked), (tc, to)      # + the legend's sample
        assert len(legend) == bool(marked)
        scale = min(1.0, 8.27 / figure.get_size_inches()[0])
        assert all(t.get_fontsize() * scale >= A4_MIN_PT - 1e-9 for t in words + legend)
    assert total >= 1
    c3_o1 = charts.betting_cells(model, strategy, (3, 1), "pbr")
    marked_cells = charts.any_cells(c3_o1, ranked_indices(model), values.bet(3, 1, "pbr"))
    assert marked_cells[0].ties == ("call", "raise")      # 2-1-1, the strongest hand
