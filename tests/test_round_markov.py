"""The absorbing-Markov-chain helper (solver/round/markov.py) on chains whose answers are
known in closed form."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from solver.round import markov


def _ruin(n: int, up: Fraction) -> dict[int, list[tuple[int | None, Fraction]]]:
    """Gambler's ruin on 0..n: from i one step up with probability `up`, else down; reaching
    n pays 1 (collected, None), reaching 0 pays nothing."""
    rows: dict[int, list[tuple[int | None, Fraction]]] = {}
    for i in range(1, n):
        rows[i] = [(i + 1, up) if i + 1 < n else (None, up)]
        if i - 1 > 0:
            rows[i].append((i - 1, 1 - up))
    return rows


def test_gamblers_ruin_exactly_and_in_floats():
    # up 1/3: P(reach 5 from i) = (2^i - 1) / (2^5 - 1)
    rows = _ruin(5, Fraction(1, 3))
    exact = markov.solve_exact(rows)
    assert exact == {1: Fraction(1, 31), 2: Fraction(3, 31), 3: Fraction(7, 31),
                     4: Fraction(15, 31)}
    floats = markov.solve(markov.chain({k: [(t, float(p)) for t, p in row]
                                        for k, row in rows.items()}))
    assert list(floats) == [1, 2, 3, 4]
    assert all(abs(floats[k] - float(exact[k])) < 1e-15 for k in exact)


def test_terms_are_added_in_order_and_a_negative_weight_is_one_minus_a_value():
    # x_a = 1/2 (1 - x_b) + 1/4 x_a, x_b = 1/3 + 1/3 x_a: the "one minus" of the other
    # person's value is the term pair (None, p), (key, -p), as the solver writes it
    rows = {"a": [(None, Fraction(1, 2)), ("b", Fraction(-1, 2)), ("a", Fraction(1, 4))],
            "b": [(None, Fraction(1, 3)), ("a", Fraction(1, 3))]}
    exact = markov.solve_exact(rows)
    # 3/4 x_a = 1/2 - 1/2 (1/3 + x_a / 3)  ->  x_a = 4/11, x_b = 1/3 + 4/33 = 5/11
    assert exact == {"a": Fraction(4, 11), "b": Fraction(5, 11)}
    system = markov.chain({k: [(t, float(p)) for t, p in row] for k, row in rows.items()})
    assert system.M.tolist() == [[0.25, -0.5], [1 / 3, 0.0]]
    assert system.r.tolist() == [0.5, 1 / 3]
    assert markov.solve(system) == pytest.approx({"a": 4 / 11, "b": 5 / 11}, abs=1e-15)


def test_a_chain_that_can_stay_forever_is_singular():
    rows = {"stuck": [("stuck", 1.0)], "leaves": [(None, 0.5), ("stuck", 0.5)]}
    with pytest.raises(np.linalg.LinAlgError):
        markov.solve(markov.chain(rows))
    with pytest.raises(ZeroDivisionError):
        markov.solve_exact({k: [(t, Fraction(p)) for t, p in row] for k, row in rows.items()})
    # the least solution from below: what is collected before being stuck
    assert markov.iterate(markov.chain(rows), 50) == {"stuck": 0.0, "leaves": 0.5}
