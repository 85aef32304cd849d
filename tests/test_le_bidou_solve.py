"""Le Bidou's hand through the project's exact tools, unchanged: the LP, the exact best
response, the certificate, the exact recovery and CFR, on variants small enough for the
suite (the default hand's timings are in benchmarks/bench_le_bidou.py and docs/le-bidou.md).

The exact values were found by `exact_equilibrium.recover` and are pinned here; each is
also inside the certificate's interval, proved from the LP's float strategies alone.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from games.le_bidou.params import LeBidouParams
from solver.hand import best_response
from solver.hand.cfr import iterations as cfr
from solver.hand.exact.certificate import certify
from solver.hand.exact.equilibrium import recover
from solver.hand.lp import sequence_form as lp
from solver.hand.model import build_model
from solver.hand.strategy import uniform_strategy

EXACT = [
    (dict(faces=3, throws=2, max_stake=3), Fraction(1401991, 9447840)),
    # rounding half of an odd first stake down turns the first player's edge into a loss
    (dict(faces=3, throws=2, max_stake=3, half_stake="down"), Fraction(-128779, 3280500)),
    (dict(faces=3, throws=3, max_stake=2), Fraction(-116715707, 9908717445)),
]


def solved(kwargs: dict):
    model = build_model(LeBidouParams(**kwargs).description())
    solution = lp.solve_lp(model)
    return model, solution, best_response.complete_unreached(model, solution.strategy)


@pytest.mark.parametrize("kwargs, value", EXACT, ids=str)
def test_lp_value_is_proved_and_recovered_exactly(kwargs, value):
    model, solution, strategy = solved(kwargs)
    assert solution.value == pytest.approx(float(value), abs=1e-12)
    e = best_response.exploitability(model, strategy)
    assert 0 <= e.nash_conv <= 1e-12                       # the exact best response: ~0
    proof = certify(model, strategy)
    assert proof.upper - proof.lower <= Fraction(1, 10 ** 9) and proof.contains(value)
    recovery = recover(model, strategy)
    assert recovery.reason is None and recovery.certificate is not None
    assert recovery.certificate.exact == value


def test_cfr_agrees_with_the_lp_within_its_exploitability():
    model, solution, _ = solved(dict(faces=3, throws=2, max_stake=3))
    run = cfr.solve_cfr(model, "pcfr+", target_exploitability=1e-6)
    assert run.converged and run.exploitability.exploitability <= 1e-6
    e = run.exploitability
    assert e.captain_guaranteed - 1e-12 <= solution.value <= e.captain_best + 1e-12
    assert run.value == pytest.approx(solution.value, abs=2 * e.exploitability)


def test_the_default_hand_builds_and_is_measured_by_the_exact_best_response():
    """The default hand (max_stake 9, keep, french) has 512 decisions a public state; its
    LP is too slow for the suite (docs/le-bidou.md), but the model and the exact best
    response work on it: uniform play leaves the first player exploitable."""
    model = build_model(LeBidouParams().description())
    tree = model.trees[0]
    assert (len(tree.nodes), len(tree.leaves), model.num_hands) == (512, 1022, 56)
    e = best_response.exploitability(model, uniform_strategy(model))
    assert e.captain_guaranteed < e.value < e.captain_best
    assert e.nash_conv > 1
