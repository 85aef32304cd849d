"""The Monte Carlo of the manche (solver/manche/simulate.py), written from the rules and
sharing no code with the solver, against the solved start value."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import numpy as np
import pytest

from games.le_bidou.manche import MancheParams
from solver.manche.policy import SolvedPolicy, simulation_rules
from solver.manche.simulate import Rules, Uniforms, beats, estimate, play_hand
from solver.manche.solve import solve_manche

SIMULATOR = Path(__file__).resolve().parents[1] / "solver" / "manche" / "simulate.py"


def test_the_simulator_imports_nothing_of_the_project():
    tree = ast.parse(SIMULATOR.read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= {"__future__", "dataclasses", "functools", "itertools", "math",
                        "typing", "numpy"}


@pytest.mark.parametrize("aces", [True, False])
def test_its_ranking_is_the_models(aces):
    """Two implementations of RULES.md 2.2 agree on every pair of the 56 hands."""
    from games.le_bidou.params import LeBidouParams
    from solver.hand.model import build_model

    model = build_model(LeBidouParams(max_stake=1, aces_beat_bidou=aces))
    for (i, a), (j, b) in itertools.product(enumerate(model.hands), repeat=2):
        assert beats(a, b, aces) == model.compare[i, j], (a, b)


class _Always:
    """Stop at once; propose a fixed stake; then call (or withdraw)."""

    def __init__(self, stake: int, reply: str) -> None:
        self.stake, self.reply = stake, reply

    def throw(self, *args):  # type: ignore[no-untyped-def]
        return {"stop": 1.0}

    def bet(self, chips, seat, tf, ts, stakes, dice, legal):  # type: ignore[no-untyped-def]
        return {self.reply: 1.0} if stakes else {self.stake: 1.0}


def test_its_stakes_are_settled_as_the_rules_say():
    rng = Uniforms(3)
    rules = Rules(chips=9, faces=6, throws=1)
    # withdrawing from a first stake of 5: half of it, rounded up (3) or down (2)
    assert play_hand(rng, rules, _Always(5, "withdraw"), (9, 0, 0)) == ("second", 3)
    down = Rules(chips=9, faces=6, throws=1, half_stake="down")
    assert play_hand(rng, down, _Always(5, "withdraw"), (9, 0, 0)) == ("second", 2)
    assert play_hand(rng, down, _Always(1, "withdraw"), (9, 0, 0)) == ("second", 1)
    # a call: the lower hand receives the stake, a tie nobody
    seen = {play_hand(rng, rules, _Always(4, "call"), (9, 0, 0)) for _ in range(400)}
    assert seen == {("first", 4), ("second", 4), (None, 0)}


@pytest.fixture(scope="module")
def small():
    params = MancheParams(chips=3, faces=3, throws=2)
    return params, solve_manche(params)


def test_simulated_manches_agree_with_the_start_value(small):
    params, solution = small
    found = estimate(simulation_rules(params), SolvedPolicy(solution), 6000, seed=11)
    se = found.standard_error
    assert abs(found.rate - solution.start_value) < 4 * se
    # and it could tell: the other player's chance is 0.12 away, 15 standard errors
    assert abs(found.rate - (1 - solution.start_value)) > 8 * se
    assert 1 < found.mean_hands < 3


@pytest.mark.parametrize("rules", [dict(chips=4, faces=3, throws=1, half_stake="down"),
                                   dict(chips=3, faces=3, throws=2, reroll="all")])
def test_other_rules_agree_too(rules):
    """An even manche (a level end is half a win) with half stakes rounded down, and
    rethrowing all three dice."""
    params = MancheParams(**rules)
    solution = solve_manche(params)
    found = estimate(simulation_rules(params), SolvedPolicy(solution), 5000, seed=5)
    assert abs(found.rate - solution.start_value) < 4 * found.standard_error


def test_uniforms_are_a_seeded_stream():
    a, b = Uniforms(7, batch=8), Uniforms(7, batch=8)
    xs = [a() for _ in range(20)]
    assert xs == [b() for _ in range(20)]
    assert all(0 <= x < 1 for x in xs) and len(set(xs)) == 20
    assert np.isclose(np.mean([a() for _ in range(4000)]), 0.5, atol=0.03)
