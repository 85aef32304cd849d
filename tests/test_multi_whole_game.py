"""The whole multi-hand game simulated from the rules (solver/multi/whole_game.py) with a
solved hand for every chip situation (solver/multi/situations.py; docs/multi.md, "The whole
game")."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from games.bidou_multi import betting
from games.bidou_multi.params import MultiParams, ParameterError, TwoLeftParams
from solver.app.cli import main
from solver.multi import best_response, cfr
from solver.multi.situations import HandStrategy, Situations, hand_params
from solver.multi.tree import build_tree
from solver.multi.whole_game import next_captain, play_hand, simulate

# A small multi-hand variant: the default game is answered from its published solution.
SMALL_DICE = ("--faces", "2", "--throws", "1")
SMALL_GAME = (*SMALL_DICE, "--chips", "2")

SMALL = MultiParams(faces=2, throws=1, chips=2)


@pytest.mark.parametrize("stores", [(2, 2, 2), (1, 3, 2), (3, 1)])
def test_simulated_hands_average_the_solvers_values(stores):
    """The simulator (rules, dice, betting.py) and the public tree (ranges and values) are
    written apart: hands played from the rules with the tree's strategy must average the
    tree's values, within four standard errors, for equal and unequal stores and for the
    two-player hand of situation 8."""
    params = hand_params(SMALL, len(stores))
    tree = build_tree(params, stores)
    state = cfr.iterate(tree, cfr.CFRState.start(tree), 40)
    sigma = cfr.average_strategy(tree, state)
    expected = best_response.gains(tree, sigma).values
    rng = np.random.default_rng(11)
    policy = HandStrategy.of_tree(tree, sigma)
    start = np.array(stores)
    payoffs = np.array([start - np.array(play_hand(rng, params, stores, policy)[0])
                        for _ in range(1200)])
    error = payoffs.std(axis=0) / np.sqrt(len(payoffs))
    assert np.all(np.abs(payoffs.mean(axis=0) - expected) <= 4 * error + 1e-9)
    assert max(abs(v) for v in expected) > 0.05         # not a game where nothing happens


def test_unequal_stores_change_the_hand():
    """A store of one chip cannot bet two: the tree of (1, 3, 2) has fewer betting nodes than
    (2, 2, 2), and a bad store is refused."""
    assert build_tree(SMALL, (1, 3, 2)).num_nodes < build_tree(SMALL, (2, 2, 2)).num_nodes
    with pytest.raises(ParameterError, match="stores"):
        build_tree(SMALL, (2, 0, 2))
    with pytest.raises(ParameterError, match="players"):
        TwoLeftParams(players=3)


def test_next_captain_is_the_winner_or_the_captains_left():
    table = betting.new_table(3, 2, (1, 1, 1))
    for action in ("pass", "pass", "pass"):
        table = betting.apply(table, action)
    # all passed: the player to the captain's left (seat 1), or the next holding chips
    assert next_captain([2, 2, 2], [0, 1, 2], table, (2, 2, 2)) == 1
    assert next_captain([2, 0, 2], [0, 1, 2], table, (2, 2, 2)) == 2
    table = betting.new_table(3, 2, (1, 1, 1))
    for action in ("bet 1", "pass", "pass"):      # seat 0 alone bet: back, then discard
        table = betting.apply(table, action)
    final = betting.settle(table, lambda a, b: 0, discard=True)
    assert final == (1, 2, 2)
    assert next_captain(list(final), [0, 1, 2], table, final) == 0


def test_whole_games_give_each_seats_chance_to_lose_with_its_error():
    situations = Situations(SMALL, 60)
    first = simulate(SMALL, situations.strategy, 100, seed=3)
    again = simulate(SMALL, situations.strategy, 100, seed=3)
    other = simulate(SMALL, situations.strategy, 100, seed=4)
    assert first == again and first != other                # seeded: the same games
    assert sum(first.losses) + first.no_loser == 100
    assert all(0.15 < p < 0.55 for p in first.chance)       # three seats, nobody sure to lose
    for p, se in zip(first.chance, first.standard_error):
        assert se == pytest.approx(np.sqrt(p * (1 - p) / 100))
    assert first.mean_hands > 1.5
    stores = set(situations.solved)
    assert (2, 2, 2) in stores and any(len(s) == 2 for s in stores)   # situation 8 reached
    assert situations.worst_epsilon() < 0.2


def test_command_simulates_whole_games(tmp_path):
    runner = CliRunner()
    bad = runner.invoke(main, ["multi", *SMALL_GAME, "--simulate", "0"])
    assert bad.exit_code == 2 and "--simulate" in bad.output
    result = runner.invoke(main, ["multi", *SMALL_GAME, "--iterations", "20",
                                  "--simulate", "10", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "chance to lose" in result.output
    import json
    whole = json.loads((tmp_path / "multi-strategy.json").read_text())["whole_game"]
    assert whole["games"] == 10 and len(whole["chance_to_lose"]) == 3
    assert abs(sum(whole["chance_to_lose"]) + whole["no_loser"] / 10 - 1) < 1e-12
