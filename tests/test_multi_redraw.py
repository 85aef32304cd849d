"""`bidou multi --redraw FILE --out DIR`: the charts and summary figures of a saved strategy
file, without solving again (the same charts a solve writes: docs/img/multi-*.png are the
default game's), and the answer chart's layout."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from games.bidou_multi.params import MultiParams
from solver.app.cli import main
from solver.multi import cfr
from solver.multi.strategy_file import strategy_of_document
from solver.multi.tree import build_tree


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    out = tmp_path_factory.mktemp("solved")
    result = CliRunner().invoke(main, ["multi", "--faces", "3", "--throws", "2", "--chips", "2",
                                       "--iterations", "40", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_the_file_gives_back_the_strategy_it_was_written_from(solved):
    doc = json.loads((solved / "multi-strategy.json").read_text())
    tree = build_tree(MultiParams.from_mapping(doc["rules"]))
    sigma = strategy_of_document(doc, tree)
    np.testing.assert_allclose(np.add.reduceat(sigma, tree.edge_starts, axis=0), 1.0)
    label = next(iter(doc["strategy"]))
    del doc["strategy"][label]
    with pytest.raises(ValueError, match="missing"):
        strategy_of_document(doc, tree)
    assert cfr.normalise(tree, sigma).shape == sigma.shape


def test_redraw_gives_the_runs_figures_and_charts(solved, tmp_path):
    result = CliRunner().invoke(main, ["multi", "--redraw", str(solved / "multi-strategy.json"),
                                       "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    names = {p.name for p in tmp_path.iterdir()}
    assert {"multi-stop.png", "multi-open.png", "multi-answer.png", "multi-play.json"} <= names
    play = json.loads((tmp_path / "multi-play.json").read_text())["play"]
    want = json.loads((solved / "multi-strategy.json").read_text())["play"]
    assert play["bluff_share"] == pytest.approx(want["bluff_share"], abs=2e-4)
    for action, p in want["leader_opens"].items():
        assert play["leader_opens"][action] == pytest.approx(p, abs=2e-4)
    assert play["stop_after_one_throw"] == pytest.approx(want["stop_after_one_throw"], abs=2e-4)
    bad = CliRunner().invoke(main, ["multi", "--redraw", str(solved / "multi-strategy.json")])
    assert bad.exit_code == 2 and "--out" in bad.output
    (tmp_path / "junk.json").write_text("{}")
    bad = CliRunner().invoke(main, ["multi", "--redraw", str(tmp_path / "junk.json"), "--out",
                                    str(tmp_path / "o")])
    assert bad.exit_code == 2 and "multi-strategy" in bad.output


def test_the_answer_chart_stacks_its_three_panels(solved):
    from PIL import Image

    with Image.open(solved / "multi-answer.png") as answer, \
            Image.open(solved / "multi-open.png") as opening:
        assert answer.width == opening.width          # as wide as the other charts
        assert answer.height > 2 * opening.height     # three panels, one under the other
