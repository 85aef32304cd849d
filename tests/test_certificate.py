"""Exact bounds on the game value (solver/hand/exact/certificate.py): the known exact values lie
inside, and the exact best responses equal the float ones (solver/hand/best_response.py), an
independent route, on equilibria and on strategies far from one."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from games.bidou.params import BidouParams
from solver.hand import best_response
from solver.hand.exact import certificate
from solver.hand.model import build_model
from solver.hand.solve import solve
from solver.hand.strategy import uniform_strategy

# exact values of small variants, from pygambit's rational LP on the faithful game
# (tests/test_crosscheck.py checks them against pygambit itself)
EXACT = [
    (dict(faces=2, throws=1, max_level=1), Fraction(-3, 40)),
    (dict(faces=2, throws=1, max_level=2, ranking="french"), Fraction(-17, 256)),
    (dict(faces=3, throws=1, max_level=1), Fraction(-2, 27)),
]


@pytest.mark.parametrize("kwargs, exact", EXACT)
def test_small_variants_proved_exactly(kwargs, exact):
    # the LP's probabilities are simple fractions there: the bounds meet at the value
    proof = solve(BidouParams(**kwargs)).certificate
    assert proof.exact == exact
    assert proof.to_dict()["exact"] == str(exact)


def test_binary_reading_alone_brackets_the_exact_value():
    kwargs, exact = EXACT[1]
    solution = solve(BidouParams(**kwargs))
    model = solution.model
    ints = certificate._assemble(model, solution.strategy,
                                 certificate._binary(model, solution.strategy))
    binary = certificate._prove(model, ints, certificate.Q)
    assert binary.contains(exact) and 0 <= binary.width < Fraction(1, 10 ** 15)


def test_a_larger_variant_proved_exactly():
    # proved here (no external peer finishes on it); the float LP agrees to 1e-12
    solution = solve(BidouParams(faces=4, throws=2))
    assert solution.certificate.exact == Fraction(-1571419, 39321600)
    assert solution.value == pytest.approx(-1571419 / 39321600, abs=1e-12)


@pytest.mark.parametrize("kwargs", [dict(), dict(reroll="keep"),
                                    dict(faces=4, throws=2, ranking="french",
                                         aces_beat_bidou=True)],
                         ids=["default", "keep", "f4t2-french-aces"])
def test_default_games_certified(kwargs):
    solution = solve(BidouParams(**kwargs))
    proof = solution.certificate
    e = solution.exploitability
    assert proof.width < 1e-14
    if "faces" not in kwargs:            # six faces: the LP's probabilities are not simple
        assert proof.exact is None
        assert certificate.simple_fractions(solution.model, solution.strategy) is None
    assert float(proof.lower) == pytest.approx(e.captain_guaranteed, abs=1e-13)
    assert float(proof.upper) == pytest.approx(e.captain_best, abs=1e-13)
    assert proof.lower <= Fraction(solution.value) + Fraction(1, 10 ** 14)


@pytest.mark.parametrize("kwargs", [dict(faces=3, throws=2, max_level=2),
                                    dict(faces=3, throws=3, reroll="keep"),
                                    dict(faces=4, throws=2, ranking="french")])
def test_exact_and_float_best_responses_agree_far_from_equilibrium(kwargs):
    model = build_model(BidouParams(**kwargs))
    strategy = uniform_strategy(model)
    rng = np.random.default_rng(3)
    for key, probs in strategy.betting.items():           # a lopsided, non-uniform strategy
        w = rng.exponential(size=probs.shape)
        strategy.betting[key] = w / w.sum(axis=0)
    proof = certificate.certify(model, strategy)
    e = best_response.exploitability(model, strategy)
    assert float(proof.lower) == pytest.approx(e.captain_guaranteed, abs=1e-12)
    assert float(proof.upper) == pytest.approx(e.captain_best, abs=1e-12)
    assert proof.width > 0.1                                 # far from equilibrium


def test_exact_probabilities_sum_to_one():
    ints = certificate.exact_probabilities(np.array([0.1, 0.2, 0.7000000000000001]))
    assert sum(ints) == certificate.Q and min(ints) >= 0
    ints = certificate.exact_probabilities(np.array([0.5, 0.5, 0.3]),
                                           legal=np.array([True, True, False]))
    assert ints[2] == 0 and sum(ints) == certificate.Q
    with pytest.raises(ValueError):
        certificate.exact_probabilities(np.array([0.9, 0.9]))


def test_decimals_round_outward():
    proof = certificate.Certificate(Fraction(-1, 3), Fraction(2, 3))
    assert proof.decimals(4) == ("-0.3334", "0.6667")
    assert certificate.Certificate.from_dict(proof.to_dict()) == proof
