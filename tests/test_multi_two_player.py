"""The two-player equilibrium played by every seat of a multi-hand hand
(solver/multi/two_player_profile.py; docs/multi.md, "The two-player equilibrium played by
all three"): the mapped profile is a strategy, it reads the two-hand strategy where the rule
says, and its certified gains are OpenSpiel's on the faithful game."""

from __future__ import annotations

import functools
import json

import numpy as np
import pyspiel
import pytest
from click.testing import CliRunner

import games.bidou_multi.game  # noqa: F401  (registers python_bidou_multi)
from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from games.bidou_multi.params import MultiParams, ParameterError
from solver.app.cli import main
from solver.hand.solve import solve
from solver.hand.strategy import strategy_to_json
from solver.multi import best_response
from solver.multi.faithful import openspiel_gains
from solver.multi.tree import build_tree
from solver.multi.two_player_profile import check_compatible, mapped_profile


@functools.lru_cache(maxsize=None)
def _two_hand(faces: int, throws: int):
    solution = solve(BidouParams(faces=faces, throws=throws))
    return solution.model, solution.strategy


def _decisions(tree, sigma):
    ends = list(tree.edge_starts[1:]) + [tree.num_edges]
    for start, end in zip(tree.edge_starts, ends):
        node = int(tree.edge_parent[start])
        yield tree.node_label[node], tree.edge_name[start:end], sigma[start:end]


def test_the_mapped_profile_is_a_strategy_playing_the_smallest_sizes():
    model, strategy = _two_hand(2, 2)
    tree = build_tree(MultiParams(faces=2, throws=2, chips=3))
    sigma = mapped_profile(tree, model, strategy)
    for label, names, probs in _decisions(tree, sigma):
        np.testing.assert_allclose(probs.sum(axis=0), 1.0, atol=1e-12, err_msg=label)
        assert probs.min() >= 0
        for name, row in zip(names, probs):
            if name in ("bet 2", "bet 3", "raise 2"):
                assert not row.any(), label
    assert sigma[[n == "raise 1" for n in tree.edge_name]].max() > 0   # raises are played


def _at(tree, sigma, label):
    start = next(int(s) for s in tree.edge_starts
                 if tree.node_label[int(tree.edge_parent[s])] == label)
    end = start + sum(1 for e in range(start, tree.num_edges)
                      if tree.node_label[int(tree.edge_parent[e])] == label)
    return dict(zip(tree.edge_name[start:end], sigma[start:end]))


def test_each_decision_reads_the_two_hand_strategy_the_rule_names():
    model, strategy = _two_hand(2, 2)
    tree = build_tree(MultiParams(faces=2, throws=2, chips=3))
    sigma = mapped_profile(tree, model, strategy)
    stop = model.throw_actions.index(rules.STOP)
    # throwing: the captain as the two-hand captain; seat 2 against the fewest earlier throws
    np.testing.assert_array_equal(_at(tree, sigma, "t0:1?")["stop"],
                                  strategy.throw[CAPTAIN][0, 0, stop])
    np.testing.assert_array_equal(_at(tree, sigma, "t0:2 t1:1 t2:1?")["stop"],
                                  strategy.throw[OPPONENT][0, 0, stop])
    np.testing.assert_array_equal(_at(tree, sigma, "t0:2 t1:2 t2:1?")["stop"],
                                  strategy.throw[OPPONENT][1, 0, stop])

    def two(tc, to, history):
        return strategy.betting[(tc, to, history)]
    # the leader (seat 1, one throw) opens against the captain (two throws): the two-hand
    # opponent, first to bet at (2, 1)
    got = _at(tree, sigma, "t0:2 t1:1 t2:2 b:")
    np.testing.assert_array_equal(got["bet 1"], two(2, 1, "")[1])
    assert not got["bet 2"].any()
    # seat 2 after the leader's pass: "p" against the leader (seat 1, the two-hand captain)
    got = _at(tree, sigma, "t0:2 t1:1 t2:2 b:pass,")
    np.testing.assert_array_equal(got["bet 1"], two(1, 2, "p")[1])
    # seat 2 facing seat 1's raise of the captain's bet: against seat 1, the two-hand
    # captain at (1, 1); the history ending with seat 1's action with seat 2 to speak: "pbr"
    got = _at(tree, sigma, "t0:1 t1:1 t2:1 b:bet 1,raise 1,")
    np.testing.assert_array_equal(got["pass"], two(1, 1, "pbr")[0])
    np.testing.assert_array_equal(got["call"], two(1, 1, "pbr")[1])
    np.testing.assert_array_equal(got["raise 1"], two(1, 1, "pbr")[2])


@pytest.mark.parametrize("poor_fish", [False, True])
def test_its_gains_are_openspiels_on_the_faithful_game(poor_fish):
    """The certified gains of the mapped profile by the solver's best response equal
    OpenSpiel's best response on the faithful game (three players, one chip each, with and
    without Poor Fish)."""
    model, strategy = _two_hand(2, 1)
    params = MultiParams(faces=2, throws=1, chips=1, poor_fish=poor_fish)
    tree = build_tree(params)
    sigma = mapped_profile(tree, model, strategy)
    ours = best_response.gains(tree, sigma)
    values, gains = openspiel_gains(pyspiel.load_game(params.to_game_string()), tree, sigma)
    np.testing.assert_allclose(values, ours.values, atol=1e-12)
    np.testing.assert_allclose(gains, ours.gains, atol=1e-12)
    assert ours.epsilon > 1e-3                  # the two-hand play is not a three-hand one


def test_other_dice_are_refused():
    model, _ = _two_hand(2, 1)
    with pytest.raises(ParameterError, match="faces"):
        check_compatible(MultiParams(faces=3, throws=1), model)


def test_command_prints_each_seats_gain(tmp_path):
    model, strategy = _two_hand(2, 1)
    path = tmp_path / "two.json"
    path.write_text(json.dumps(strategy_to_json(model, strategy)))
    runner = CliRunner()
    result = runner.invoke(main, ["multi", "--faces", "2", "--throws", "1", "--chips", "2",
                                  "--two-player", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    written = json.loads((tmp_path / "o" / "multi-two-player.json").read_text())
    assert "two-player map" in result.output and "captain" in result.output
    tree = build_tree(MultiParams(faces=2, throws=1, chips=2))
    want = best_response.gains(tree, mapped_profile(tree, model, strategy))
    assert f"epsilon {want.epsilon:.3e}" in result.output
    assert written["gains"] == pytest.approx(list(want.gains), abs=1e-15)
    bad = runner.invoke(main, ["multi", "--faces", "3", "--throws", "1", "--two-player",
                               str(path)])
    assert bad.exit_code == 2 and "faces" in bad.output
