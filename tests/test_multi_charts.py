"""What the multi-hand strategy does (solver/multi/charts.py): averages over the public
histories, the bluff share, and the three charts."""

from __future__ import annotations

import io

import numpy as np
import pytest

from games.bidou_multi.params import MultiParams
from solver.multi import cfr, charts
from solver.multi.tree import build_tree
from solver.multi.values import ranges


def test_averages_of_a_known_strategy():
    tree = build_tree(MultiParams(faces=2, throws=2, chips=2))
    uniform = cfr.normalise(tree, np.ones((tree.num_edges, len(tree.hands))))
    reach = ranges(tree, uniform)
    opening, weight = charts.opening(tree, uniform, reach)
    assert set(opening) == {"pass", "bet 1", "bet 2"}      # two chips: bets of 1 and 2
    for p in opening.values():
        np.testing.assert_allclose(p, 1 / 3)
    np.testing.assert_allclose(weight.sum(), 1.0)        # one opening per hand, reached surely
    np.testing.assert_allclose(charts.stopping(tree, uniform, reach, 1), 0.5)
    # a strategy that always stops shows P(stop) = 1 for every seat and hand
    stops = np.array([[1.0 if name == "stop" else 0.0] * len(tree.hands)
                      for name in tree.edge_name])
    sigma = np.where(np.isin(np.array(tree.edge_name), ["stop", "again"])[:, None], stops,
                     uniform)
    for seat in range(3):
        np.testing.assert_allclose(charts.stopping(tree, sigma, ranges(tree, sigma), seat), 1)


def test_bluff_share_and_the_charts():
    tree = build_tree(MultiParams(faces=3, throws=2, chips=2))
    state = cfr.iterate(tree, cfr.CFRState.start(tree), 50)
    sigma = cfr.average_strategy(tree, state)
    reach = ranges(tree, sigma)
    opening, weight = charts.opening(tree, sigma, reach)
    share = charts.bluff_share(tree, opening, weight)
    assert 0.0 < share < 0.5                              # some bluffs, mostly value bets
    order = charts.hand_order(tree)
    wins = tree.beats.sum(axis=1)
    assert list(wins[order]) == sorted(wins)
    pngs = charts.figures(tree, sigma, "test")
    assert set(pngs) == {"multi-stop.png", "multi-open.png", "multi-answer.png"}
    assert all(data.startswith(b"\x89PNG") for data in pngs.values())
    summary = charts.summary(tree, sigma)
    assert summary["bluff_share"] == round(share, 4)
    assert len(summary["stop_after_one_throw"]) == 3
    assert abs(sum(summary["leader_opens"].values()) - 1) < 1e-3


@pytest.mark.slow
def test_the_charts_read_at_the_width_the_docs_show():
    """At a quarter of an inch a hand and 7 pt, the default game's 56 hands made charts 1760
    pixels wide, whose hands and axes a page 900 pixels wide showed 5 pixels high: they are
    as narrow as the hands allow, in type that stays 10 pixels high or more there."""
    from PIL import Image

    tree = build_tree(MultiParams(faces=6, throws=1, chips=2))
    assert len(tree.hands) == 56
    uniform = cfr.normalise(tree, np.ones((tree.num_edges, len(tree.hands))))
    pngs = charts.figures(tree, uniform, "test")
    assert set(pngs) == {"multi-open.png", "multi-answer.png"}        # one throw: no stop
    for name, data in pngs.items():
        width = Image.open(io.BytesIO(data)).size[0]
        shown = min(1.0, 900 / width)
        assert width <= 1100, name
        assert min(charts.TICK_PT, charts.LABEL_PT - 1) * charts.DPI / 72 * shown >= 10, name
