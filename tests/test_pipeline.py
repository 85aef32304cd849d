"""The library pipelines: one exact recovery shared by every caller, one round pipeline."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from solver.common.errors import SolverError
from solver.hand import best_response
from solver.hand.exact_solution import exact_solution
from solver.hand.solve import solve
from solver.pipeline.hand import solve_hand, with_exact
from solver.pipeline.round import prove_round

SMALL = BidouParams(faces=3, throws=2, max_level=2)      # exact value -794/19683


def test_solve_hand_exact_keeps_the_rounding_of_the_exact_strategy():
    steps = []
    result = solve_hand(SMALL, exact=True, progress=lambda *step: steps.append(step))
    assert result.proved and result.why_not is None
    assert result.solution.certificate.exact == Fraction(-794, 19683)
    assert result.exact is not None
    # the strategy kept is the float rounding of the exact probabilities, measured again
    key, row = next((k, r) for k, r in result.exact.items() if k[0] == "bet")
    assert list(result.solution.strategy.betting[key[1]][:, key[2]]) == [float(p) for p in row]
    again = best_response.exploitability(result.solution.model, result.solution.strategy)
    assert result.solution.exploitability.nash_conv == again.nash_conv
    assert result.document()["exact"]
    assert steps and all(isinstance(w, str) and isinstance(d, int) for w, d, _ in steps)


def test_solve_exact_and_the_pipeline_share_one_proof():
    lp = solve(SMALL)
    proved = solve(SMALL, exact=True)
    piped = with_exact(lp)
    shared = exact_solution(lp).solution.certificate
    assert proved.certificate == piped.solution.certificate == shared
    # solve(exact=True) keeps the LP's strategy (the sweep and docs/results.md tabulate it)
    assert all(np.array_equal(proved.strategy.betting[k], lp.strategy.betting[k])
               for k in lp.strategy.betting)
    assert proved.exploitability == lp.exploitability


def test_a_cfr_average_is_not_recovered_and_says_why():
    result = solve_hand(SMALL, "cfr+", iterations=20, exact=True)
    assert not result.proved and result.exact is None
    assert "from equilibrium" in result.why_not
    assert result.document().get("exact") is None
    assert solve_hand(SMALL).why_not is None


def test_the_round_pipeline_proves_every_state():
    steps = []
    proved = prove_round(RoundParams(chips=3, hand=BidouParams(faces=2, throws=1,
                                                               max_level=1)),
                         progress=lambda *step: steps.append(step), timed=False)
    report = proved.report
    assert report["seconds"] == 0.0 and report["states"]
    for entry in report["states"]:
        assert Fraction(entry["lower"]) <= Fraction(entry["upper"])
        assert entry["exploitability"] < 1e-9
    entries = [proved.state(s) for s in proved.certificate.states]
    assert len(entries) == len(report["states"])
    assert all(entry in report["states"] for entry in entries)
    assert steps[-1] == ("proving", 0, 1)


def test_disjoint_proofs_are_refused(monkeypatch):
    import solver.hand.exact_solution
    from solver.hand.exact.certificate import Certificate

    lp = solve(SMALL)
    exact_solution = solver.hand.exact_solution
    monkeypatch.setattr(exact_solution, "recover", lambda model, strategy, progress=None:
                        exact_solution.Recovered(Certificate(Fraction(1), Fraction(1))))
    with pytest.raises(SolverError, match="refusing to report either"):
        with_exact(lp)
