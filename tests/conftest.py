"""Fixtures shared by the whole suite: the published games are solved once per session."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def published():
    """The games kept in outputs/ ("default", "keep", "french"), solved as `bidou outputs`
    solves them (LP, certificate, exact value): about 30 s, once per test session."""
    from solver.app.outputs import fresh_solutions

    return fresh_solutions()


@pytest.fixture(scope="session")
def default_solution():
    """The default game, solved as `bidou outputs` solves it (the LP, its exact value
    proved): about 3 s, without the keep variant's half minute that `published` adds."""
    from solver.app.outputs import VARIANTS
    from solver.pipeline.hand import solve_hand

    return solve_hand(VARIANTS["default"], exact=True).solution


@pytest.fixture(autouse=True, scope="session")
def private_cache(tmp_path_factory):
    """`bidou round` keeps every round it solves in the user's cache folder
    ($XDG_CACHE_HOME/bidou-solver, solver/round/store.py): the suite's go to a folder of
    its own, which the commands it starts inherit, never to the user's."""
    import os

    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture(scope="session")
def refined_small():
    """(model, refined equilibrium, plain LP solution) of faces 3, throws 2, max level 2:
    the small variant tests/test_refine.py and tests/test_refine_check.py both examine."""
    from games.bidou.params import BidouParams
    from solver.hand.model import build_model
    from solver.hand.refined.quasi_perfect import refined_equilibrium
    from solver.hand.solve import solve

    params = BidouParams(faces=3, throws=2, max_level=2)
    model = build_model(params)
    return model, refined_equilibrium(model), solve(params, model=model)


# --- two workers ----------------------------------------------------------------------------
# The suite runs on two pytest-xdist workers unless told otherwise: `-n N` (`-n 0`: one
# process), `-p no:xdist` (xdist not loaded at all), --pdb (which needs one process). Set
# here rather than in addopts, where `-n` would be an unknown option under `-p no:xdist`.

WORKERS = 2


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    if (config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput")
            and config.option.numprocesses is None and not config.option.usepdb):
        config.option.numprocesses = WORKERS


# --- slow tools started early -------------------------------------------------------------
# mypy on solver/ and games/ takes about 20 s of CPU from a cold cache (a fresh clone, CI):
# in one process, a test marked `background(command)` has its command started as soon as the
# tests are collected, beside the first tests (on the second core), and waits for its result;
# on xdist workers (both cores busy already) the test starts it when it runs.

def _tool_command(command):
    """The command with its first word found in this interpreter's environment first."""
    import shutil
    import sys
    from pathlib import Path

    found = shutil.which(command[0], path=str(Path(sys.executable).parent))
    return [found or shutil.which(command[0]) or command[0], *command[1:]]


def _start(command):
    import subprocess
    from pathlib import Path

    return subprocess.Popen(_tool_command(command), cwd=Path(__file__).resolve().parent.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def pytest_collection_finish(session):
    """The selected tests are known (after -k, -m and deselection). Not in a pytest-xdist
    worker: each collects every test, so each would start the command (the fixture starts
    it in the worker that runs the test)."""
    if session.config.option.collectonly or hasattr(session.config, "workerinput"):
        return
    started = session.config.stash.setdefault(_BACKGROUND, {})
    for item in session.items:
        marker = item.get_closest_marker("background")
        if marker is not None and item.nodeid not in started:
            started[item.nodeid] = _start(marker.args[0])


def pytest_unconfigure(config):
    for process in config.stash.get(_BACKGROUND, {}).values():
        if process.poll() is None:         # its test never ran (deselected, interrupted)
            process.kill()
            process.wait()


_BACKGROUND = pytest.StashKey()


@pytest.fixture
def background_run(request):
    """The test's `background` command, finished: (return code, stdout, stderr), from the
    process started at collection (or started now)."""
    marker = request.node.get_closest_marker("background")
    started = request.config.stash.setdefault(_BACKGROUND, {})
    process = started.pop(request.node.nodeid, None) or _start(marker.args[0])
    stdout, stderr = process.communicate(timeout=900)
    return process.returncode, stdout, stderr
