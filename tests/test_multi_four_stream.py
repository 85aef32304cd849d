"""The streaming best response (solver/multi/four_stream.py): one throw-count combination at a
time, it gives the same values and gains as the best response on the whole built tree, the
proof that the decomposition is right; the one-throw betting it maps onto several throws is
the one-throw game's, the seats relabelled from the leader."""

from __future__ import annotations

import numpy as np
import pytest

from games.bidou_multi.params import MultiParams, ParameterError
from solver.multi import best_response, cfr, four_stream
from solver.multi.four_stream import Profile
from solver.multi.tree import build_betting_tree, build_tree


def _random_strategy(tree, seed):
    rng = np.random.default_rng(seed)
    return cfr.normalise(tree, rng.random((tree.num_edges, len(tree.hands))) ** 3)


def _cfr_strategy(tree, iterations):
    state = cfr.CFRState.start(tree, "alt-cfr+2")
    cfr.iterate(tree, state, iterations, "alt-cfr+2")
    return cfr.average_strategy(tree, state)


@pytest.mark.parametrize("rules, which", [
    (dict(players=4, faces=2, throws=2, chips=2), "random"),
    (dict(players=4, faces=3, throws=2, chips=1, poor_fish=True), "cfr"),
    (dict(players=3, faces=2, throws=3, chips=2), "cfr"),
])
def test_the_stream_gives_the_whole_trees_gains(rules, which):
    params = MultiParams(**rules)
    tree = build_tree(params)
    sigma = _random_strategy(tree, 5) if which == "random" else _cfr_strategy(tree, 20)
    whole = best_response.gains(tree, sigma)
    streamed = four_stream.stream_gains(params, four_stream.profile_from_tree(tree, sigma))
    np.testing.assert_allclose(streamed.gains.values, whole.values, rtol=0, atol=1e-9)
    np.testing.assert_allclose(streamed.gains.best, whole.best, rtol=0, atol=1e-9)
    assert min(whole.gains) > 1e-3                   # real deviations, not zeros
    assert streamed.combinations == params.throws ** params.players
    for value, kept, best in zip(whole.values, streamed.reroll_only, whole.best):
        assert value - 1e-12 <= kept <= best + 1e-12


def test_the_best_stops_with_the_betting_kept_are_worth_what_the_stream_says():
    """Seat q alone plays `StreamResult.stops` (his best stops, his betting kept): his
    value is `reroll_only[q]`, and the others' strategies do not change."""
    params = MultiParams(players=4, faces=2, throws=2, chips=2)
    tree = build_tree(params)
    profile = four_stream.profile_from_tree(tree, _random_strategy(tree, 9))
    first = four_stream.stream_gains(params, profile)
    q = 2
    better = four_stream.rule_of(first.stops)

    def stop(seat, k, earlier):
        return better(seat, k, earlier) if seat == q else profile.stop(seat, k, earlier)
    second = four_stream.stream_gains(params, Profile(stop=stop, betting=profile.betting))
    assert second.gains.values[q] == pytest.approx(first.reroll_only[q], abs=1e-12)
    assert first.reroll_only[q] > first.gains.values[q] + 1e-3
    assert second.gains.best[q] == pytest.approx(first.gains.best[q], abs=1e-12)


def test_one_throw_betting_mapped_onto_two_throws_rotates_the_seats():
    """Seat 0 always throws twice and the others once: the leader is seat 1 (M3), and under
    reroll=all a second throw is a fresh hand, so the hand is the one-throw game with the
    seats turned by one: seat s gets the one-throw value of seat s - 1."""
    one = build_tree(MultiParams(players=4, faces=2, throws=1, chips=2))
    sigma = _cfr_strategy(one, 20)
    one_values = [best_response.policy_value(one, sigma, q) for q in range(4)]
    profile = Profile(
        stop=lambda seat, k, earlier: np.full(len(one.hands), float(seat != 0)),
        betting=four_stream.relabelled_betting(one, sigma, lambda counts: (1, 1, 1, 1)))
    streamed = four_stream.stream_gains(MultiParams(players=4, faces=2, throws=2, chips=2),
                                        profile)
    np.testing.assert_allclose(streamed.gains.values, np.roll(one_values, 1), atol=1e-12)
    assert len(set(np.round(one_values, 6))) == 4            # the seats differ: a real test
    assert streamed.combinations == 1 + 4                    # (2,1,1,1), and one deviator's


def test_count_ranges_share_out_each_seats_chance():
    tree = build_betting_tree(MultiParams(players=4, faces=3, throws=3, chips=1), (1, 2, 3, 1))
    assert tree.node_label[0] == "b:" and not tree.edge_again.any()
    rule = four_stream.threshold_stop(tree)
    ranges = four_stream.count_ranges(tree.base, 3, rule, 1, (2,))
    assert ranges.sum() == pytest.approx(1.0, abs=1e-15)
    strong = tree.beats @ tree.base >= 0.5
    assert 0 < strong.sum() < len(tree.hands)
    np.testing.assert_allclose(ranges[0], tree.base * strong)      # stops at once if strong
    weak = float(tree.base[~strong].sum())
    np.testing.assert_allclose(ranges[2], weak * weak * tree.base)  # two weak, then any


def test_a_betting_tree_for_impossible_counts_is_refused():
    with pytest.raises(ParameterError, match="throw counts"):
        build_betting_tree(MultiParams(players=4, throws=2), (1, 3, 1, 1))
