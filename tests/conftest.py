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
def default_solution(published):
    """The default game, solved by the LP with its exact value proved."""
    return published["default"].solution


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
    from solver.model import build_model
    from solver.refine.quasi_perfect import refined_equilibrium
    from solver.solve import solve

    params = BidouParams(faces=3, throws=2, max_level=2)
    model = build_model(params)
    return model, refined_equilibrium(model), solve(params, model=model)
