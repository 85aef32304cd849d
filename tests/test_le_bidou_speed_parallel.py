"""The large Le Bidou hand's two cores (solver/common/side_by_side.py): the double oracle's check
and the certificate's proof run each player's half in a forked child, and give exactly
what one process gives; a child that fails or dies has its half computed here."""

from __future__ import annotations

import os

import numpy as np
import pytest

from games.le_bidou.params import LeBidouParams
from solver.common.side_by_side import can_fork, side_by_side
from solver.hand.exact import certificate
from solver.hand.exact.certificate import certify
from solver.hand.lp.restricted import double_oracle
from solver.hand.model import build_model

needs_fork = pytest.mark.skipif(not can_fork(), reason="no second process can be forked here")


def test_side_by_side_returns_both_results_in_order():
    assert side_by_side(lambda: os.getpid(), lambda: 2 * 21) == (os.getpid(), 42)
    assert side_by_side(lambda: "a", lambda: "b", parallel=False) == ("a", "b")


@needs_fork
def test_the_other_half_runs_in_another_process():
    here, there = side_by_side(os.getpid, os.getpid)
    assert here == os.getpid() and there != here


@needs_fork
def test_the_child_leaves_ctrl_c_to_this_process():
    import signal

    here, there = side_by_side(lambda: signal.getsignal(signal.SIGINT),
                               lambda: signal.getsignal(signal.SIGINT))
    assert there == signal.SIG_IGN and here != signal.SIG_IGN


@needs_fork
def test_a_child_that_fails_or_dies_has_its_half_computed_here():
    calls = []

    def fails():
        calls.append(os.getpid())
        if len(calls) == 1 and os.getpid() != parent:
            raise ValueError("only in the child")
        return os.getpid()

    parent = os.getpid()
    assert side_by_side(lambda: 1, fails) == (1, parent)       # the child raised
    assert side_by_side(lambda: 1, lambda: os._exit(3) if os.getpid() != parent
                        else "here") == (1, "here")          # the child died
    with pytest.raises(ZeroDivisionError):                   # raised here, not hidden
        side_by_side(lambda: 1, lambda: 1 // 0)
    with pytest.raises(KeyError):                            # this half's error propagates
        side_by_side(lambda: {}["x"], lambda: 1)


@needs_fork
@pytest.mark.slow
def test_the_double_oracle_side_by_side_is_the_one_process_double_oracle():
    model = build_model(LeBidouParams(faces=3, throws=2, max_stake=5).description())
    one = double_oracle(model, parallel=False)
    two = double_oracle(model, parallel=True)
    assert (one.kept, one.rounds, one.solution.value) == (two.kept, two.rounds,
                                                           two.solution.value)
    assert one.decisions < one.full_decisions == 32             # it did restrict the tree
    for key, probs in one.solution.strategy.betting.items():
        np.testing.assert_array_equal(probs, two.solution.strategy.betting[key])
    for a, b in zip(one.solution.strategy.throw, two.solution.strategy.throw):
        np.testing.assert_array_equal(a, b)


@needs_fork
def test_the_certificate_side_by_side_proves_the_same_interval(monkeypatch):
    from solver.hand import best_response
    from solver.hand.lp import sequence_form as lp

    model = build_model(LeBidouParams(faces=3, throws=2, max_stake=3).description())
    strategy = best_response.complete_unreached(model, lp.solve_lp(model).strategy)
    alone = certify(model, strategy)
    monkeypatch.setattr(certificate, "SIDE_BY_SIDE_ROWS", 0)
    calls = []
    monkeypatch.setattr("solver.hand.exact.certificate.side_by_side",
                        lambda here, there, parallel: calls.append(parallel)
                        or side_by_side(here, there, parallel))
    assert certify(model, strategy) == alone and calls and all(calls)
    assert alone.width < 1e-12


@needs_fork
def test_the_solutions_best_responses_side_by_side_are_the_one_process_ones():
    from solver.hand import best_response
    from solver.hand.lp import sequence_form as lp

    model = build_model(LeBidouParams(faces=3, throws=2, max_stake=3).description())
    raw = lp.solve_lp(model).strategy
    alone = best_response.complete_unreached(model, raw)
    both = best_response.complete_unreached(model, raw, parallel=True)
    for key, probs in alone.betting.items():
        np.testing.assert_array_equal(probs, both.betting[key])
    for a, b in zip(alone.throw, both.throw):
        np.testing.assert_array_equal(a, b)
    one = best_response.exploitability(model, alone)
    two = best_response.exploitability(model, alone, parallel=True)
    assert one == two and one.nash_conv < 1e-9
    assert one.value == pytest.approx(certify(model, alone).lower, abs=1e-9)
