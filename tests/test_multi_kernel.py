"""The multi-hand C kernel (solver/multi/_multi_kernel.c) against the numpy walks: the same
iterates and the same best responses, to rounding."""

from __future__ import annotations

import numpy as np
import pytest

from games.bidou_multi.params import MultiParams
from solver.multi import best_response, cfr, kernel
from solver.multi.tree import build_tree

pytestmark = pytest.mark.skipif(not kernel.available(), reason="C kernel not built")


@pytest.mark.parametrize("rules, variant", [
    (dict(faces=2, throws=2, chips=2), "cfr+"),
    (dict(faces=3, throws=1, chips=2, poor_fish=True), "cfr"),
    (dict(players=4, faces=2, throws=1, chips=2), "cfr+"),
])
def test_the_kernel_iterates_as_numpy_does(rules, variant):
    tree = build_tree(MultiParams(**rules))
    by_numpy = cfr.iterate(tree, cfr.CFRState.start(tree), 30, variant)
    by_c = kernel.Kernel(tree).iterate(cfr.CFRState.start(tree), 30, variant)
    assert by_c.iterations == 30
    np.testing.assert_allclose(by_c.regrets, by_numpy.regrets, rtol=1e-9, atol=1e-9)
    assert np.abs(by_numpy.regrets).max() > 0.1           # something was learnt
    # Where every regret of a point is zero but for rounding (1e-16), regret matching picks
    # uniform on one side and a pure action on the other: the averages then differ at points
    # of tiny weight, so they are compared by what they are worth, every seat's gain.
    ours = best_response.gains(tree, cfr.average_strategy(tree, by_c))
    theirs = best_response.gains(tree, cfr.average_strategy(tree, by_numpy))
    np.testing.assert_allclose(ours.gains, theirs.gains, atol=1e-6)


@pytest.mark.parametrize("rules", [dict(faces=2, throws=2, chips=2, poor_fish=True),
                                   dict(players=4, faces=2, throws=1, chips=2)])
def test_the_kernels_best_response_is_numpys(rules):
    tree = build_tree(MultiParams(**rules))
    rng = np.random.default_rng(2)
    sigma = cfr.normalise(tree, rng.random((tree.num_edges, len(tree.hands))))
    ours = kernel.Kernel(tree).gains(sigma)
    theirs = best_response.gains(tree, sigma)
    np.testing.assert_allclose(ours.values, theirs.values, atol=1e-12)
    np.testing.assert_allclose(ours.best, theirs.best, atol=1e-12)
    assert min(theirs.gains) > 1e-3


def test_a_kernel_run_resumes_where_it_stopped():
    tree = build_tree(MultiParams(faces=2, throws=1, chips=2))
    k = kernel.Kernel(tree)
    straight = k.iterate(cfr.CFRState.start(tree), 40)
    halves = k.iterate(k.iterate(cfr.CFRState.start(tree), 20), 20)
    assert np.array_equal(straight.regrets, halves.regrets)
    assert np.array_equal(straight.strategy_sum, halves.strategy_sum)


def test_solve_on_the_kernel_certifies_with_numpy_and_resumes(tmp_path):
    from solver.multi import checkpoint
    from solver.multi.solve import Checkpointing, solve

    params = MultiParams(faces=2, throws=1, chips=2)
    by_c = solve(params, 200, every=50, engine="c")
    by_numpy = solve(params, 200, every=50, engine="numpy")
    assert by_c.engine == "c" and by_numpy.engine == "numpy"
    np.testing.assert_allclose(by_c.gains.gains, by_numpy.gains.gains, atol=1e-6)
    saved = tmp_path / "c.npz"
    solve(params, 100, every=50, engine="c", checkpoints=Checkpointing(path=saved, iterations=30))
    assert checkpoint.check(saved, params, "cfr+") == 100
    resumed = solve(params, 200, every=50, engine="c", checkpoints=Checkpointing(resume=saved))
    assert np.array_equal(resumed.strategy, by_c.strategy)


def test_the_ordered_showdown_is_the_pairwise_one():
    """Running sums along the ranking (O(H)) and the pairwise products (O(H^2)) give the
    same values; the french ranking with aces beating the bidou has no order (a cycle)."""
    tree = build_tree(MultiParams(faces=3, throws=1, chips=2, poor_fish=True))
    assert kernel.levels(tree.beats) is not None
    rng = np.random.default_rng(4)
    sigma = cfr.normalise(tree, rng.random((tree.num_edges, len(tree.hands))))
    fast, slow = kernel.Kernel(tree).gains(sigma), kernel.Kernel(tree, ordered=False).gains(sigma)
    np.testing.assert_allclose(fast.best + fast.values, slow.best + slow.values, atol=1e-13)
    french = build_tree(MultiParams(faces=6, throws=1, chips=1, ranking="french"))
    assert kernel.levels(french.beats) is None
