"""The chip situations of a whole game (solver/multi/situations.py; docs/multi.md, "The whole
game"): which are the same game (`canonical_stores`), and the cache of solved ones."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from click.testing import CliRunner

from games.bidou_multi.params import MultiParams, ParameterError
from solver.app.cli import main
from solver.multi.situations import SituationCache, Situations, canonical_stores, hand_params
from solver.multi.tree import build_tree

# A small multi-hand variant: the default game is answered from its published solution.
SMALL_DICE = ("--faces", "2", "--throws", "1")
SMALL_GAME = (*SMALL_DICE, "--chips", "2")

SMALL = MultiParams(faces=2, throws=1, chips=3)


def _same_game(a, b) -> bool:
    """Two public trees are the same game: the same nodes, labels, edges, actors and, at
    every terminal, the same payoffs under every outcome."""
    if a.node_label != b.node_label or a.edge_name != b.edge_name:
        return False
    for name in ("node_player", "edge_parent", "edge_child", "edge_player", "edge_again"):
        if not np.array_equal(getattr(a, name), getattr(b, name)):
            return False
    groups = [(g.name, g.nodes.tolist(), g.payoffs.tolist()) for g in a.terminals]
    return groups == [(g.name, g.nodes.tolist(), g.payoffs.tolist()) for g in b.terminals]


def _deep_situations(players: int, shallow: int, beyond: int):
    """Every stores tuple whose others hold at most `shallow` chips and whose deepest store
    is cut by canonical_stores, up to `beyond` chips past the cut."""
    for others in itertools.product(range(1, shallow + 1), repeat=players - 1):
        cut = max(3, max(others) + 2) + players
        for extra in range(1, beyond + 1):
            for seat in range(players):
                yield others[:seat] + (cut + extra,) + others[seat:]


@pytest.mark.parametrize("players, shallow, beyond", [(2, 5, 3), (3, 2, 2)])
def test_a_store_deeper_than_any_bet_reaches_is_the_same_game(players, shallow, beyond):
    """The equivalence used: the tree (legal actions, labels) and every terminal's payoff
    of a situation are those of its canonical situation, built from the rules both times;
    every seat can hold the deep store (the captain, who leads with one throw, and the
    others)."""
    params = hand_params(SMALL, players)
    checked = 0
    for stores in _deep_situations(players, shallow, beyond):
        key = canonical_stores(stores, params.max_bet, params.max_raise)
        assert key != stores and max(key) < max(stores)
        assert canonical_stores(key, params.max_bet, params.max_raise) == key
        assert _same_game(build_tree(params, stores), build_tree(params, key)), stores
        checked += 1
    assert checked >= 24


def test_stores_within_reach_are_kept_and_do_change_the_game():
    """A store at or below the cut is kept as it is, and the cut is not vacuous: one chip
    fewer than what the betting can use changes the tree (a raise becomes impossible)."""
    params = hand_params(SMALL, 3)
    assert canonical_stores((6, 6, 6), 3, 2) == (6, 6, 6)
    assert canonical_stores((2, 11, 2), 3, 2) == (2, 7, 2)
    assert canonical_stores((3, 3), 3, 2) == (3, 3)
    assert canonical_stores((1, 14), 3, 2) == (1, 5)
    assert not _same_game(build_tree(params, (3, 1, 1)), build_tree(params, (4, 1, 1)))


@pytest.mark.slow
def test_whole_games_solve_each_distinct_game_once():
    """Situations met that are the same game share one solve: fewer solves than situations
    (with three chips each the deep ones, such as 7-1-1, are met), each from the canonical
    stores."""
    situations = Situations(SMALL, 40)
    from solver.multi.whole_game import simulate

    simulate(SMALL, situations.strategy, 150, seed=1)
    assert len(situations.solved) < len(situations.used)
    assert set(situations.solved) == {situations.key(s) for s in situations.used}


def test_the_cache_gives_back_each_solved_situation(tmp_path):
    """A solved situation is written once and read back identically by a second run with
    the same rules and settings; other settings use other files; a damaged file is refused
    in one line."""
    first = Situations(SMALL, 30, cache=SituationCache(tmp_path))
    first.strategy((3, 3, 3))
    first.strategy((2, 4))
    assert len(list(tmp_path.glob("*.json"))) == 2
    again = Situations(SMALL, 30, cache=SituationCache(tmp_path))
    for stores in ((3, 3, 3), (2, 4)):
        got, want = again.strategy(stores), first.strategy(stores)
        assert got.by_label.keys() == want.by_label.keys()
        for label, (names, probs) in want.by_label.items():
            assert got.by_label[label][0] == names
            assert np.array_equal(got.by_label[label][1], probs)
        assert again.solved[stores].epsilon == first.solved[stores].epsilon
    assert again.loaded == 2
    other = Situations(SMALL, 31, cache=SituationCache(tmp_path))
    other.strategy((3, 3, 3))
    assert other.loaded == 0 and len(list(tmp_path.glob("*.json"))) == 3
    path = SituationCache(tmp_path).path(hand_params(SMALL, 3), (3, 3, 3), first.settings)
    doc = json.loads(path.read_text())
    label = next(iter(doc["strategy"]))
    doc["strategy"][label]["probabilities"][0][0] += 0.5
    path.write_text(json.dumps(doc))
    with pytest.raises(ParameterError, match="not a distribution"):
        Situations(SMALL, 30, cache=SituationCache(tmp_path)).strategy((3, 3, 3))


def test_a_full_disk_while_writing_the_cache_is_a_note_and_the_simulation_goes_on(
        tmp_path, monkeypatch):
    """It aborted the whole --simulate (exit 2) where `round` only notes an unsaved file."""
    import errno
    import os

    from solver.common import files

    def no_space(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    cache = tmp_path / "cache"
    args = ["multi", *SMALL_GAME, "--iterations", "20", "--simulate", "10", "--cache",
            str(cache)]
    monkeypatch.setattr(files.os, "fsync", no_space)
    full = CliRunner().invoke(main, args)
    monkeypatch.undo()
    assert full.exit_code == 0, full.output
    notes = [line for line in full.output.splitlines() if line.startswith("bidou:")]
    assert len(notes) == 1 and notes[0].startswith("bidou: note: the cache was not written: ")
    assert "No space left on device" in notes[0] and "solved chip situations not kept" in notes[0]
    assert list(cache.iterdir()) == []                    # nothing half-written
    room = CliRunner().invoke(main, args)
    assert room.exit_code == 0 and "bidou:" not in room.output, room.output
    chances = [line for line in full.output.splitlines() if line.startswith("captain")]
    assert chances == [line for line in room.output.splitlines()
                       if line.startswith("captain")]


def test_command_reuses_its_cache(tmp_path):
    runner = CliRunner()
    cache = tmp_path / "cache"
    bad = runner.invoke(main, ["multi", *SMALL_GAME, "--cache", str(cache)])
    assert bad.exit_code == 2 and "--simulate" in bad.output
    (tmp_path / "file").write_text("")
    bad = runner.invoke(main, ["multi", *SMALL_GAME, "--simulate", "3", "--cache",
                               str(tmp_path / "file")])
    assert bad.exit_code == 2 and "is a file" in bad.output
    args = ["multi", *SMALL_GAME, "--iterations", "20", "--simulate", "10", "--cache",
            str(cache)]
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    assert "(0 from the cache;" in first.output
    second = runner.invoke(main, args)
    assert second.exit_code == 0, second.output
    assert "(0 from the cache;" not in second.output and "from the cache" in second.output
    chances = [line for line in first.output.splitlines() if line.startswith("captain")]
    assert chances == [line for line in second.output.splitlines()
                       if line.startswith("captain")]
