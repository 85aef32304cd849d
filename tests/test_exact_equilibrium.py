"""Exact rational equilibria recovered from the LP (solver/hand/exact/equilibrium.py), proved by
the certificate: the value itself, where simple fractions do not suffice."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from games.bidou.params import BidouParams
from solver.hand.exact import certificate
from solver.hand.exact import equilibrium as exact_equilibrium
from solver.hand.solve import solve

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


@pytest.mark.slow
def test_recovery_from_the_raw_lp_strategy():
    # play at unreached decisions is arbitrary there: the responder's choices at them are
    # revised against the exact point, so no completion is needed
    from solver.hand.lp.sequence_form import solve_lp
    from solver.hand.model import build_model

    model = build_model(BidouParams(faces=4, throws=3))
    raw = solve_lp(model).strategy
    found = exact_equilibrium.exact_strategies(model, raw)
    assert certificate.prove_fractions(model, raw, found).exact == Fraction(-10422557, 301989888)
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


@pytest.mark.parametrize("kwargs, exact", [
    # a recovery that does not break ties at mixed and unreached decisions misses these
    (dict(faces=3, throws=2, max_level=3, reroll="keep", ranking="french"),
     Fraction(-29347004, 508943331)),
    (dict(faces=4, throws=2, max_level=2, reroll="keep", ranking="french"),
     Fraction(-19194593, 335544320)),
])
def test_variants_the_first_recovery_missed(kwargs, exact):
    solution = solve(BidouParams(**kwargs))
    assert solution.certificate.exact is None and solution.certificate.contains(exact)
    recovery = exact_equilibrium.recover(solution.model, solution.strategy)
    assert recovery.certificate.exact == exact and recovery.reason is None


@pytest.mark.slow
def test_french_keep_at_the_default_level():
    # `bidou solve --exact --reroll keep --ranking french` proves its exact value
    solution = solve(BidouParams(reroll="keep", ranking="french"), exact=True)
    exact = Fraction(-3199364025509, 63915771340800)
    assert solution.certificate.exact == exact
    assert float(exact) == pytest.approx(solution.value, abs=1e-15)


def test_progress_is_reported_step_by_step():
    solution = solve(BidouParams(faces=3, throws=2, max_level=3, reroll="keep",
                                 ranking="french"))
    calls = []
    exact_equilibrium.recover(solution.model, solution.strategy,
                              lambda step, done, total: calls.append((step, done, total)))
    plans = [exact_equilibrium.Plan(solution.model, solution.strategy, role)
             for role in (0, 1)]
    sizes = {step: total for step, _, total in calls}
    assert sizes == {"captain's strategy": len(plans[0].unknowns),
                     "opponent's strategy": len(plans[1].unknowns), "proof": 1}
    assert all(0 <= done <= total for _, done, total in calls)
    assert calls[-1] == ("proof", 1, 1)
    assert [done for step, done, _ in calls if step == "captain's strategy"] == \
        list(range(len(plans[0].unknowns) + 1))


def _perturbed():
    solution = solve(BidouParams(faces=3, throws=2, max_level=2))
    strategy = solution.strategy.copy()
    rng = np.random.default_rng(0)
    for key, probs in strategy.betting.items():
        w = probs + 0.3 * rng.random(probs.shape)
        strategy.betting[key] = w / w.sum(axis=0)
    return solution, strategy


def test_a_wrong_support_never_gives_a_wrong_value():
    # strategies far from equilibrium: whatever is recovered, the certificate only ever
    # proves true bounds, so the exact value stays inside them or nothing is claimed
    solution, strategy = _perturbed()
    exact = solution.certificate.exact                     # -794/19683 (simple fractions)
    assert exact == Fraction(-794, 19683)
    found = exact_equilibrium.exact_strategies(solution.model, strategy)
    assert found is None or certificate.prove_fractions(
        solution.model, strategy, found).contains(exact)


def test_strategies_away_from_equilibrium_are_refused_at_once():
    solution, strategy = _perturbed()
    calls = []
    recovery = exact_equilibrium.recover(solution.model, strategy,
                                         lambda *args: calls.append(args))
    assert recovery.certificate is None and calls == []        # no exact work started
    assert "from equilibrium (NashConv)" in recovery.reason


def test_cfr_averages_are_refused_quickly():
    # a CFR average mixes a little everywhere: far more unknowns than an LP vertex has
    solution = solve(BidouParams(), method="pcfr+", target_exploitability=1e-3)
    plans = [exact_equilibrium.Plan(solution.model, solution.strategy, role) for role in (0, 1)]
    assert max(len(p.unknowns) for p in plans) > exact_equilibrium.MAX_UNKNOWNS
    with pytest.raises(exact_equilibrium.RecoveryError, match="unknowns, more than 400"):
        exact_equilibrium.both_plans(solution.model, solution.strategy)
    assert exact_equilibrium.exact_value(solution.model, solution.strategy) is None
    solved = solve(BidouParams(), method="pcfr+", target_exploitability=1e-3, exact=True)
    assert solved.certificate.exact is None and "exact value not proved" in solved.message
