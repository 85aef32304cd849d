"""Absorbing Markov chains over a round's states: the one linear system x = r + M x that the
solver's policy evaluation, the certificate's best replies and durations, P(the round ends)
and the evaluation of two fixed strategies all solve.

Each transient state (a round state, or a state and a role) is given as a row of terms in
order: `(None, amount)` adds `amount` to r (what is collected on leaving the transient
states: a win, a known continuation value, a hand counted), `(key, weight)` adds `weight`
to M[row, key] (probability mass that stays, possibly scaled). Terms are added in the order
given, so a caller decides the floating-point order of every sum, and results do not move
when the callers share this module. `lead_value` and `lead_terms` read where a hand leads
the one way the manche and Montevideo's heads-up end state it (`Lead`).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, Generic, Hashable, Iterable, Mapping, Protocol, TypeVar

import numpy as np

Key = TypeVar("Key", bound=Hashable)
Term = tuple[Key | None, float]
ExactTerm = tuple[Key | None, Fraction]


class Lead(Protocol):
    """Where a hand of a stochastic game over states leads, for the value of the person who
    was its first player (the manche's `After`, Montevideo's heads-up `After`): `state`'s
    value if `same` (he is first again), one minus it otherwise; or the end, worth `end`."""

    @property
    def state(self) -> Any: ...

    @property
    def same(self) -> bool: ...

    @property
    def end(self) -> Any: ...


def lead_value(nxt: Lead, values: Mapping[Any, float]) -> float:
    """The first player's value of where a hand leads, from the states' `values`."""
    if nxt.state is None:
        assert nxt.end is not None
        return float(nxt.end)
    v = values[nxt.state]
    return v if nxt.same else 1 - v


def lead_terms(nxt: Lead, p: float, inside: set, values: Mapping[Any, float]
               ) -> list[Term]:
    """A row's terms for reaching `nxt` with probability `p`: the chain's own unknown if it
    leads inside (p V, or p (1 - V) when the other person is first there), else its known
    value (`lead_value`)."""
    if nxt.state is not None and nxt.state in inside:
        return [(nxt.state, p)] if nxt.same else [(None, p), (nxt.state, -p)]
    return [(None, p * lead_value(nxt, values))]


@dataclasses.dataclass(frozen=True)
class Chain(Generic[Key]):
    """x = r + M x over `keys` (row i of M and r belongs to keys[i])."""

    keys: list[Key]
    M: np.ndarray
    r: np.ndarray


def chain(rows: Mapping[Key, Iterable[Term[Key]]]) -> Chain[Key]:
    """The transient matrix M and the reward vector r of these rows (see the module
    docstring); a term's key must be one of the rows'."""
    keys = list(rows)
    index = {key: i for i, key in enumerate(keys)}
    k = len(keys)
    M, r = np.zeros((k, k)), np.zeros(k)
    for i, key in enumerate(keys):
        for target, amount in rows[key]:
            if target is None:
                r[i] += amount
            else:
                M[i, index[target]] += amount
    return Chain(keys, M, r)


def solve(system: Chain[Key]) -> dict[Key, float]:
    """x = (I - M)^-1 r in floating point. Raises numpy.linalg.LinAlgError when I - M is
    singular (play that can stay among the transient states forever)."""
    k = len(system.keys)
    x = np.linalg.solve(np.eye(k) - system.M, system.r)
    return {key: float(x[i]) for i, key in enumerate(system.keys)}


def iterate(system: Chain[Key], steps: int) -> dict[Key, float]:
    """x_steps of x_0 = 0, x_n+1 = r + M x_n: the least solution's approximation from below,
    which exists even when I - M is singular."""
    x = np.zeros(len(system.keys))
    for _ in range(steps):
        x = system.r + system.M @ x
    return {key: float(x[i]) for i, key in enumerate(system.keys)}


def solve_exact(rows: Mapping[Key, Iterable[ExactTerm[Key]]]) -> dict[Key, Fraction]:
    """x = r + M x in rational arithmetic (Gauss-Jordan on I - M, no rounding anywhere).
    Raises ZeroDivisionError when I - M is singular."""
    keys = list(rows)
    index = {key: i for i, key in enumerate(keys)}
    k = len(keys)
    # the augmented matrix [I - M | r]
    a = [[Fraction(int(i == j)) for j in range(k)] + [Fraction(0)] for i in range(k)]
    for i, key in enumerate(keys):
        for target, amount in rows[key]:
            if target is None:
                a[i][k] += amount
            else:
                a[i][index[target]] -= amount
    for col in range(k):
        pivot = next((row for row in range(col, k) if a[row][col] != 0), None)
        if pivot is None:
            raise ZeroDivisionError("I - M is singular: play can stay forever")
        a[col], a[pivot] = a[pivot], a[col]
        head = a[col][col]
        a[col] = [v / head for v in a[col]]
        for row in range(k):
            factor = a[row][col]
            if row != col and factor != 0:
                a[row] = [v - factor * p for v, p in zip(a[row], a[col])]
    return {key: a[i][k] for i, key in enumerate(keys)}
