"""Bidú's vuelta with one seat's throwing pinned (`solve_bidu`'s `captain_stands` and
`other_stands`; the folk advice's price in docs/results.md section 8): pinned to what the
equilibrium already does, nothing changes; pinned to something else, the pinned seat does
no better, and the other seat's solved strategy is a best reply to the pinned optimum."""

from __future__ import annotations

import numpy as np
import pytest

from games.bidu.params import BiduParams
from solver.bidu.proof import Q
from solver.bidu.solve import solve_bidu
from solver.pipeline.bidu_results import folk_rule


def _pure_stands(solution, seat):  # type: ignore[no-untyped-def]
    stands = {key: np.array(v, dtype=float) / Q
              for key, v in solution.strategies[seat].stand.items()}
    assert all(np.all((p < 1e-12) | (p > 1 - 1e-12)) for p in stands.values())
    return {key: p > 0.5 for key, p in stands.items()}


@pytest.mark.parametrize("faces, throws", [(2, 2), (2, 3)])
def test_pinned_to_the_equilibrium_s_own_throwing_nothing_changes(faces, throws):
    """On these variants both seats' equilibrium throwing is pure: pinning a seat to it
    leaves the proved value where it was (for the other seat: the rows of the sequences he
    never plays dropped from the captain's LP)."""
    params = BiduParams(faces=faces, throws=throws, stack=1)
    base = solve_bidu(params)
    other = solve_bidu(params, other_stands=_pure_stands(base, 1))
    assert float(other.upper) == pytest.approx(float(base.upper), abs=1e-12)
    captain = solve_bidu(params, captain_stands=_pure_stands(base, 0))
    assert float(captain.lower) == pytest.approx(float(base.lower), abs=1e-12)


def test_the_folk_advice_costs_the_seat_that_follows_it():
    params = BiduParams(faces=3, throws=3, stack=2)
    base = solve_bidu(params)
    rule = folk_rule(base.model)
    other = solve_bidu(params, other_stands={
        (t, pub): rule for t in range(1, params.throws) for pub in base.model.pubs(1, t)})
    captain = solve_bidu(params, captain_stands={
        (t, pub): rule for t in range(1, params.throws) for pub in base.model.pubs(0, t)})
    # the pinned seat does worse: the other concedes more, the captain guarantees less
    assert other.upper > base.upper + 1e-3
    assert captain.lower < base.lower - 1e-3
    # the free seat's solved strategy is a best reply to the pinned seat's optimum
    assert float(other.played) == pytest.approx(float(other.upper), abs=1e-9)
    assert float(captain.played) == pytest.approx(float(captain.lower), abs=1e-9)
    # the pinned strategies follow the rule at every decision they reach
    for (t, pub), stands in _pure_stands(other, 1).items():
        assert np.array_equal(stands, rule), (t, pub)
