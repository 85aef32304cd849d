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
