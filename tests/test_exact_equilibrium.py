"""Exact rational equilibria recovered from the LP (solver/exact_equilibrium.py), proved by
the certificate: the value itself, where simple fractions do not suffice."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from games.bidou.params import BidouParams
from solver import certificate, exact_equilibrium
from solver.solve import solve

OUTPUTS = Path(__file__).resolve().parent.parent / "outputs"


@pytest.mark.parametrize("kwargs, exact", [
    (dict(faces=3, throws=3, reroll="keep"), Fraction(-7221187, 258280326)),
    (dict(faces=4, throws=3), Fraction(-10422557, 301989888)),
])
def test_recovered_equilibrium_proves_the_value(kwargs, exact):
    solution = solve(BidouParams(**kwargs))
    # the LP's probabilities are not simple fractions here: the interval is all we had
    assert certificate.simple_fractions(solution.model, solution.strategy) is None
    assert solution.certificate.exact is None and solution.certificate.contains(exact)
    proof = exact_equilibrium.exact_value(solution.model, solution.strategy)
    assert proof.exact == exact
    assert solve(BidouParams(**kwargs), exact=True).certificate.exact == exact
    assert float(exact) == pytest.approx(solution.value, abs=1e-13)


def test_recovery_from_the_raw_lp_strategy():
    # play at unreached decisions is arbitrary there; exact_value retries on its completion
    from solver.lp import solve_lp
    from solver.model import build_model

    model = build_model(BidouParams(faces=4, throws=3))
    raw = solve_lp(model).strategy
    assert exact_equilibrium.exact_value(model, raw).exact == Fraction(-10422557, 301989888)


def test_recovered_strategies_are_distributions():
    solution = solve(BidouParams(faces=3, throws=3, reroll="keep"))
    found = exact_equilibrium.exact_strategies(solution.model, solution.strategy)
    keys = {where for where, _, _ in certificate.decisions(solution.model, solution.strategy)}
    assert set(found) == keys
    for row in found.values():
        assert sum(row) == 1 and min(row) >= 0


def test_the_published_games_are_proved_exactly():
    # outputs/ is re-solved and compared with exact=True by tests/test_outputs.py, so these
    # are the values the code proves today
    expected = {"default": "-67764799477/1836660096000",
                "keep": "-341442512050376231/5562034043169853440",
                "french": "-409263139735053181/11089871661615430320"}
    for name, exact in expected.items():
        summary = json.loads((OUTPUTS / name / "summary.json").read_text())
        assert summary["certified_value"]["exact"] == exact
        # published numbers are rounded to 12 decimals (solver/export/numbers.py)
        assert float(Fraction(exact)) == pytest.approx(summary["value"], abs=1e-12)


def test_a_wrong_support_never_gives_a_wrong_value():
    # strategies far from equilibrium: whatever is recovered, the certificate only ever
    # proves true bounds, so the exact value stays inside them or nothing is claimed
    solution = solve(BidouParams(faces=3, throws=2, max_level=2))
    exact = solution.certificate.exact                     # -794/19683 (simple fractions)
    strategy = solution.strategy.copy()
    rng = np.random.default_rng(0)
    for key, probs in strategy.betting.items():
        w = probs + 0.3 * rng.random(probs.shape)
        strategy.betting[key] = w / w.sum(axis=0)
    proof = exact_equilibrium.exact_value(solution.model, strategy)
    assert proof is None or proof.contains(exact)


def test_cfr_averages_are_refused_quickly():
    # a CFR average mixes a little everywhere: far more unknowns than an LP vertex has
    solution = solve(BidouParams(), method="pcfr+", target_exploitability=1e-3)
    plans = [exact_equilibrium._Plan(solution.model, solution.strategy, role) for role in (0, 1)]
    assert max(len(p.unknowns) for p in plans) > exact_equilibrium.MAX_UNKNOWNS
    assert exact_equilibrium.exact_value(solution.model, solution.strategy) is None
