"""The multi-hand solver (solver/multi/): its best response agrees with OpenSpiel's on the
faithful game, its walks agree with each other, CFR drives every seat's gain down, and
`bidou multi` reports, writes and refuses as documented (docs/multi.md)."""

from __future__ import annotations

import json

import numpy as np
import pyspiel
import pytest
from click.testing import CliRunner

import games.bidou_multi.game  # noqa: F401  (registers python_bidou_multi)
from games.bidou_multi.params import MultiParams, ParameterError
from solver.app.cli import main
from solver.multi import best_response, cfr
from solver.multi.faithful import openspiel_gains
from solver.multi.solve import check_size, solve
from solver.multi.tree import AGAIN, build_tree

# A small multi-hand variant: the default game is answered from its published solution.
SMALL_DICE = ("--faces", "2", "--throws", "1")
SMALL_GAME = (*SMALL_DICE, "--chips", "2")


def _random_strategy(tree, seed):
    rng = np.random.default_rng(seed)
    return cfr.normalise(tree, rng.random((tree.num_edges, len(tree.hands))))


def _cfr_strategy(tree, iterations):
    state = cfr.CFRState.start(tree)
    cfr.iterate(tree, state, iterations)
    return cfr.average_strategy(tree, state)


@pytest.mark.parametrize("rules, which", [
    (dict(faces=2, throws=1, chips=1), "cfr"),
    (dict(faces=2, throws=1, chips=1, poor_fish=True), "random"),
])
def test_best_response_and_values_agree_with_openspiel_on_the_faithful_game(rules, which):
    params = MultiParams(**rules)
    tree = build_tree(params)
    sigma = _cfr_strategy(tree, 30) if which == "cfr" else _random_strategy(tree, 7)
    ours = best_response.gains(tree, sigma)
    values, improvements = openspiel_gains(pyspiel.load_game(params.to_game_string()), tree,
                                           sigma)
    np.testing.assert_allclose(values, ours.values, atol=1e-12)
    np.testing.assert_allclose(improvements, ours.gains, atol=1e-12)
    assert min(ours.gains) > 1e-4          # a real deviation gain, not a trivial zero


@pytest.mark.parametrize("rules", [dict(faces=2, throws=2, chips=2),
                                   dict(players=4, faces=2, throws=1, chips=2, poor_fish=True)])
def test_the_policy_walk_and_cfrs_walk_give_the_same_values(rules):
    tree = build_tree(MultiParams(**rules))
    sigma = _random_strategy(tree, 3)
    values, _ = cfr.evaluate(tree, sigma)
    by_cfr = cfr.seat_values(tree, values)
    by_policy = [best_response.policy_value(tree, sigma, q) for q in range(tree.players)]
    np.testing.assert_allclose(by_cfr, by_policy, atol=1e-12)
    gains = best_response.gains(tree, sigma)
    assert all(b >= v for b, v in zip(gains.best, gains.values))


@pytest.mark.parametrize("always", ["stop", "again"])
def test_two_throws_played_as_one_give_the_one_throw_game(always):
    """Everyone stopping after one throw, or everyone rethrowing once, deals the hands of a
    one-throw game with equal counts: the values must be the one-throw game's (this checks
    the rethrow edges of the ranges and values)."""
    one = build_tree(MultiParams(faces=2, throws=1, chips=2))
    two = build_tree(MultiParams(faces=2, throws=2, chips=2))
    sigma_one = _random_strategy(one, 5)
    by_label = {(one.node_label[one.edge_parent[e]], one.edge_name[e]): sigma_one[e]
                for e in range(one.num_edges)}
    counts = "t0:1 t1:1 t2:1 " if always == "stop" else "t0:2 t1:2 t2:2 "
    sigma_two = np.zeros((two.num_edges, len(two.hands)))
    for e in range(two.num_edges):
        label = two.node_label[two.edge_parent[e]]
        if "b:" in label:
            key = ("t0:1 t1:1 t2:1 " + label[label.index("b:"):], two.edge_name[e])
            sigma_two[e] = by_label[key] if label.startswith(counts) else 0.5
        else:
            sigma_two[e] = 1.0 if (two.edge_name[e] == AGAIN) == (always == "again") else 0.0
    expected = best_response.gains(one, sigma_one).values
    got = best_response.gains(two, sigma_two).values
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_cfr_drives_every_seats_gain_down():
    tree = build_tree(MultiParams(faces=2, throws=1, chips=2))
    early = best_response.gains(tree, _cfr_strategy(tree, 5))
    late = best_response.gains(tree, _cfr_strategy(tree, 300))
    assert early.epsilon > 0.1
    assert late.epsilon < 0.02 and late.nash_conv < early.nash_conv / 5


def test_solve_stops_at_the_target_and_records_the_curve():
    solution = solve(MultiParams(faces=2, throws=1, chips=2), 1000, target=0.05, every=10)
    assert solution.gains.epsilon <= 0.05 and solution.iterations < 1000
    assert [p["iterations"] for p in solution.curve] == list(
        range(10, solution.iterations + 1, 10))


def test_the_default_game_is_refused_before_any_work_except_on_the_kernel():
    with pytest.raises(ParameterError, match="public nodes"):
        check_size(MultiParams())
    assert check_size(MultiParams(), engine="c")["public_nodes"] == 27 * 8143   # the kernel
    with pytest.raises(ParameterError, match="public nodes"):
        check_size(MultiParams(players=4), engine="c")
    with pytest.raises(ParameterError, match="reroll=all only"):
        check_size(MultiParams(faces=2, throws=1, reroll="keep"))


def test_command_prints_values_and_epsilons_and_writes_the_strategy(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["multi", *SMALL_GAME,
                                  "--iterations", "200", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "certified epsilon" in result.output and "seat 2" in result.output
    doc = json.loads((tmp_path / "multi-strategy.json").read_text())
    assert doc["schema"] == "bidou-multi-strategy" and doc["schema_version"] == 1
    assert doc["rules"]["players"] == 3 and doc["rules"]["chips"] == 2
    assert doc["epsilon"] == max(doc["gains"]) and len(doc["values"]) == 3
    first = next(iter(doc["strategy"].values()))
    assert set(first) == set(doc["hands"])
    assert all(abs(sum(p.values()) - 1) < 1e-6 for p in first.values())


@pytest.mark.parametrize("args, message", [
    (["--players", "5"], "players must be an integer from 3 to 4"),
    (["--players", "4", "--faces", "6", "--throws", "3"], "public nodes"),
    (["--faces", "6", "--throws", "3", "--engine", "numpy"], "public nodes"),
    (["--iterations", "0"], "--iterations must be at least 1"),
    (["--faces", "3", "--throws", "2", "--check-openspiel"], "--check-openspiel walks"),
])
def test_command_refuses_bad_input_with_one_line_and_exit_2(args, message):
    result = CliRunner().invoke(main, ["multi", *args])
    assert result.exit_code == 2
    assert message in result.output and result.output.count("\n") == 1


def test_command_exits_1_when_the_target_is_not_reached():
    result = CliRunner().invoke(main, ["multi", *SMALL_DICE, "--chips",
                                       "2", "--iterations", "5", "--target", "1e-6"])
    assert result.exit_code == 1
    assert "above --target" in result.output


@pytest.mark.parametrize("rules", [
    dict(players=4, faces=2, throws=1, chips=2, poor_fish=True),
    dict(faces=2, throws=1, chips=2, ranking="french", aces_beat_bidou=True, poor_fish=True),
])
def test_terminal_values_equal_a_sum_over_every_deal(rules):
    """The pairwise showdown algebra of `values._spread` against the deals one by one (the
    french ranking with aces beating the bidou is not transitive on two faces: a cycle)."""
    import itertools

    from games.bidou import rules as dice
    from games.bidou_multi import betting
    from solver.multi.values import terminal_values

    params = MultiParams(**rules)
    tree = build_tree(params)
    n, h = tree.players, len(tree.hands)
    reach = np.random.default_rng(11).random((tree.num_nodes, n, h))
    got = terminal_values(tree, reach)
    for group in tree.terminals:
        for row, node in list(enumerate(group.nodes))[:12]:
            expected = np.zeros((n, h))
            for deal in itertools.product(range(h), repeat=n):
                def compare(a, b):
                    return dice.compare(tree.hands[deal[a]], tree.hands[deal[b]],
                                        params.ranking, params.aces_beat_bidou)
                if group.kind == "fixed":
                    outcome = 0
                else:
                    pick = betting.loser if group.kind == "loser" else betting.highest
                    who = pick(group.seats, compare)
                    outcome = group.seats.index(who) if who is not None else len(group.seats)
                for q in range(n):
                    weight = np.prod([reach[node, j, deal[j]] for j in range(n) if j != q])
                    expected[q, deal[q]] += weight * group.payoffs[row, outcome, q]
            for q in range(n):
                np.testing.assert_allclose(got[q][node], expected[q], atol=1e-12)


def test_a_resumed_run_continues_bit_identically(tmp_path):
    """2 x 50 iterations with a checkpoint in between equal 100 straight, to the last bit."""
    from solver.multi.solve import Checkpointing

    params = MultiParams(faces=2, throws=1, chips=2)
    straight = solve(params, 100, every=25)
    saved = tmp_path / "run.npz"
    first = solve(params, 50, every=25, checkpoints=Checkpointing(path=saved, iterations=20))
    assert first.iterations == 50
    resumed = solve(params, 100, every=25, checkpoints=Checkpointing(resume=saved))
    assert resumed.iterations == 100
    assert np.array_equal(resumed.strategy, straight.strategy)
    assert resumed.gains == straight.gains
    assert [p["iterations"] for p in resumed.curve] == [25, 50, 75, 100]
    assert [p["epsilon"] for p in resumed.curve] == [p["epsilon"] for p in straight.curve]


def test_a_checkpoint_is_written_every_k_iterations_and_refused_for_other_rules(tmp_path):
    from solver.multi import checkpoint
    from solver.multi.solve import DEFAULT_METHOD, Checkpointing

    params = MultiParams(faces=2, throws=1, chips=2)
    saved = tmp_path / "run.npz"
    seen = []
    solve(params, 30, every=30, checkpoints=Checkpointing(path=saved, iterations=7),
          progress=lambda *_: seen.append(checkpoint.check(saved, params, DEFAULT_METHOD)))
    assert seen == [28]                       # saved at 7, 14, 21, 28; measured at 30
    assert checkpoint.check(saved, params, DEFAULT_METHOD) == 30      # and at the end
    with np.load(saved, allow_pickle=False) as archive:
        assert set(archive.files) == {"meta", "regrets", "strategy_sum"}
    other = MultiParams(faces=2, throws=1, chips=3)
    with pytest.raises(ParameterError, match="is a checkpoint of .*chips=2"):
        checkpoint.check(saved, other, DEFAULT_METHOD)
    runner = CliRunner()
    result = runner.invoke(main, ["multi", *SMALL_DICE, "--chips", "3", "--resume", str(saved)])
    assert result.exit_code == 2 and "is a checkpoint of" in result.output
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    result = runner.invoke(main, ["multi", *SMALL_GAME, "--resume",
                                  str(tmp_path / "junk.npz")])
    assert result.exit_code == 2 and "not a readable" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_command_resumes_from_its_checkpoint(tmp_path):
    saved = tmp_path / "run.npz"
    runner = CliRunner()
    first = runner.invoke(main, ["multi", *SMALL_GAME, "--iterations", "40",
                                 "--checkpoint", str(saved), "--checkpoint-every", "10"])
    assert first.exit_code == 0, first.output
    second = runner.invoke(main, ["multi", *SMALL_GAME, "--iterations", "80",
                                  "--resume", str(saved), "--out", str(tmp_path)])
    assert second.exit_code == 0, second.output
    assert "resuming from" in second.output and "80 iterations" in second.output
    doc = json.loads((tmp_path / "multi-strategy.json").read_text())
    assert doc["solver"]["iterations"] == 80
    assert [p["iterations"] for p in doc["curve"]][:2] == [4, 8]


def test_a_gain_is_reported_as_measured_even_below_zero():
    """A best response is never worse in exact arithmetic, so a negative float gain is
    rounding: it is shown as measured, not clamped to 0 (best_response.Gains)."""
    from solver.multi.best_response import Gains

    g = Gains(values=(0.1 + 0.2, 1.0), best=(0.3, 1.5))
    assert g.gains[0] == 0.3 - (0.1 + 0.2) < 0
    assert g.epsilon == 0.5 and g.nash_conv == 0.5 + (0.3 - (0.1 + 0.2))
    only_rounding = Gains(values=(0.1 + 0.2,), best=(0.3,))
    assert -1e-15 < only_rounding.epsilon < 0


def test_the_command_lines_methods_are_the_solvers():
    from solver.app.commands.multi import METHODS
    from solver.multi.cfr import VARIANTS
    from solver.multi.solve import DEFAULT_METHOD

    assert sorted(METHODS) == sorted(VARIANTS) and METHODS[0] == DEFAULT_METHOD
