"""The rational bound (solver/multi/exact.py): the rounded strategy's exact values and best
responses in fractions agree with the float walks, and certify the rounded profile."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from games.bidou_multi.params import MultiParams, ParameterError
from solver.multi import best_response, cfr, exact
from solver.multi.tree import build_tree

# A small multi-hand variant: the default game is answered from its published solution.
SMALL_DICE = ("--faces", "2", "--throws", "1")
SMALL_GAME = (*SMALL_DICE, "--chips", "2")


def _on_the_grid(tree, seed):
    """A random strategy whose every probability is a multiple of 2**-20, so rounding it
    changes nothing and the float and exact walks measure the same profile."""
    rng = np.random.default_rng(seed)
    sigma = cfr.normalise(tree, rng.random((tree.num_edges, len(tree.hands))) + 0.05)
    grid = exact.rounded(tree, sigma)
    return np.array([[float(p) for p in row] for row in grid]), grid


@pytest.mark.parametrize("rules", [dict(faces=2, throws=1, chips=2),
                                   dict(faces=2, throws=2, chips=1, poor_fish=True),
                                   dict(players=4, faces=2, throws=1, chips=1)])
def test_exact_gains_equal_the_float_walks_on_a_profile_on_the_grid(rules):
    tree = build_tree(MultiParams(**rules))
    sigma, grid = _on_the_grid(tree, 5)
    assert exact.rounded(tree, sigma) == grid                 # rounding is the identity
    got = exact.exact_gains(tree, sigma)
    floats = best_response.gains(tree, sigma)
    assert all(isinstance(g, Fraction) for g in got.gains)
    np.testing.assert_allclose([float(v) for v in got.values], floats.values, atol=1e-12)
    np.testing.assert_allclose([float(b) for b in got.best], floats.best, atol=1e-12)
    assert min(got.gains) > Fraction(1, 1000)                 # a real gain, not zero


def test_the_rounded_cfr_strategy_is_certified_near_its_float_epsilon():
    tree = build_tree(MultiParams(faces=2, throws=1, chips=2))
    state = cfr.iterate(tree, cfr.CFRState.start(tree), 300)
    sigma = cfr.average_strategy(tree, state)
    got = exact.exact_gains(tree, sigma)
    floats = best_response.gains(tree, sigma)
    assert all(g >= 0 for g in got.gains)
    assert abs(float(got.epsilon) - floats.epsilon) < 1e-5    # rounding moves it by ~2**-20
    assert float(got.epsilon) < 0.02
    rows = exact.rounded(tree, sigma)
    for start, end in zip(tree.edge_starts, list(tree.edge_starts[1:]) + [tree.num_edges]):
        assert all(sum(rows[e][h] for e in range(start, end)) == 1
                   for h in range(len(tree.hands)))


def test_a_tree_too_big_for_fractions_is_refused_before_any_work():
    tree = build_tree(MultiParams(faces=6, throws=1, chips=1))
    assert exact.work(tree) > exact.MAX_WORK
    with pytest.raises(ParameterError, match="fraction products"):
        exact.exact_gains(tree, np.ones((tree.num_edges, len(tree.hands))))


def test_command_prints_and_writes_the_exact_bound(tmp_path):
    import json

    from click.testing import CliRunner

    from solver.app.cli import main

    runner = CliRunner()
    result = runner.invoke(main, ["multi", *SMALL_GAME, "--iterations", "100", "--exact",
                                  "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "epsilon exactly" in result.output
    doc = json.loads((tmp_path / "multi-strategy.json").read_text())
    gains = [Fraction(g) for g in doc["exact"]["gains"]]
    assert Fraction(doc["exact"]["epsilon"]) == max(gains)
    assert abs(float(max(gains)) - doc["epsilon"]) < 1e-5
    big = runner.invoke(main, ["multi", "--faces", "6", "--chips", "1", "--exact"])
    assert big.exit_code == 2 and "fraction products" in big.output
