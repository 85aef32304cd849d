"""Proof of the manche's numbers: every state's value bracketed in exact arithmetic, as the
round's (solver/round/certify.py), from the smallest pool up.

Fix the solved stage strategies and let one person, X, follow them at every state, in
either seat. What he guarantees, g(s, seat) (his least chance of winning the manche against
every reply of the other person), brackets the value of the game from both sides:

    g(s, first) <= value(s) <= 1 - g(s, second)

A stage's step is the exact best response of the hand (`certificate.exact_best_response`)
against X's stage strategy, with leaves paying X's guarantee where they lead: outside the
component, the bounds proved already (rounded outward to floats, so that the numbers stay
small); inside, after a tie, his guarantee at the swap in the other seat. That step T is
monotone, and it is a contraction: a tie is the only way to stay in the component, and
whatever the reply, a tie happens with probability at most q < 1, q computed exactly
(the best reply to "make it a tie", `_tie_bound`). So any g- with g- <= T(g-), checked in
exact arithmetic at every state and seat, is below the guarantee (T^n(g-) grows to it), and
T(g-) is a proof as well. g- is found in floating point (value iteration from the solved
values) and lowered by a margin; if the exact check fails the margin grows, and after a few
tries the certificate gives up (`MancheCertificateError`) rather than report a wrong
interval. Every manche ends with probability 1, whatever either player does, for the same
reason: each hand empties some of the pool unless it ties.

The components of one pool are proved side by side, as they are solved (the worker processes
of solver/manche/stage_solve.py), each from the bounds of the pools below, and beside them
the tie bounds of the pool's states, which read only their stage strategies. Exact numbers
do not depend on which process found them. A pool's proof reads nothing of the pools above
it, so `bidou manche` runs it beside the next pool's first stage solves, on workers those
would leave idle (`PoolProofs`, `solve_manche`'s `beside`): only the last pool's proof is
left when the solve ends.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, Callable

from games.le_bidou.manche import After, MancheParams, MancheState
from solver.common.workers import Runner
from solver.hand.exact.certificate import exact_best_response, float_down, float_up
from solver.hand.strategy import Strategy
from solver.manche.solve import MancheSolution
from solver.manche.stage import stage_model
from solver.manche.stage_solve import call, default_workers
from solver.round.guarantee import FIRST, SECOND, guarantee_step, responder

Key = tuple[MancheState, int]                  # a state and X's seat there
MARGINS = (1e-14, 1e-12, 1e-10, 1e-8)
FLOAT_STEPS = 60


class MancheCertificateError(Exception):
    """The solved strategies could not be proved to the margins tried."""


@dataclasses.dataclass(frozen=True)
class StateProof:
    """lower <= value <= upper, exact; q: the largest tie probability any reply can
    force at this state (exact, < 1)."""

    lower: Fraction
    upper: Fraction
    tie_bound: Fraction

    @property
    def width(self) -> Fraction:
        return self.upper - self.lower


@dataclasses.dataclass(frozen=True)
class MancheCertificate:
    states: dict[MancheState, StateProof]

    @property
    def max_width(self) -> float:
        return max(float(p.width) for p in self.states.values())


@dataclasses.dataclass(frozen=True)
class _Part:
    """What the proof of some states reads of the solution: the rules, their stage
    strategies and solved values (what a worker process is sent)."""

    params: MancheParams
    strategies: dict[MancheState, Strategy]
    values: dict[MancheState, float]


def _tie_bound(part: _Part, state: MancheState, seat: int) -> Fraction:
    """The most probability of a tie (the only hand that stays at this pool) that any reply
    to X's stage strategy can force, exactly."""
    sign = 1 if seat == SECOND else -1          # the responder's payoff is the tie's

    def tie(nxt: After) -> Fraction:
        stays = nxt.state is not None and nxt.state.pool == state.pool
        return Fraction(sign * int(stays))

    model = stage_model(part.params, state, tie)
    return exact_best_response(model, part.strategies[state], responder(seat))


def _max_tie(part: _Part, state: MancheState) -> Fraction:
    """The tie bound q of `state`: the larger of its two seats'."""
    return max(_tie_bound(part, state, seat) for seat in (FIRST, SECOND))


class PoolProofs:
    """The proof pool by pool, smallest first (module docstring), as the pools are solved:
    `calls(...)` gives the worker tasks that prove one pool's components and their tie
    bounds, `take(...)` records their results. A pool's proof reads the proved bounds of
    the pools below it, so each pool's results are taken before the next pool's calls are
    made. The solve runs these calls beside its own stage solves (`solve_manche`'s
    `beside`), or `certify_manche` runs them after it: the same exact numbers."""

    def __init__(self, params: MancheParams, known: dict[MancheState, Fraction]) -> None:
        self.params = params
        self.proofs: dict[MancheState, StateProof] = {
            s: StateProof(v, v, Fraction(0)) for s, v in known.items()}
        self.floats: dict[Key, Fraction] = {}   # proved guarantees, rounded down to floats
        for s, v in known.items():
            self.floats[(s, FIRST)], self.floats[(s, SECOND)] = v, 1 - v
        self._asked: list[tuple[MancheState, ...]] | None = None

    def calls(self, components: list[tuple[MancheState, ...]],
              strategies: dict[MancheState, Strategy], values: dict[MancheState, float]
              ) -> list[tuple[Any, ...]]:
        """The tasks proving one pool: each component's proof, then each state's tie bound
        (in one batch, so that a pool of one component keeps both workers busy)."""
        assert self._asked is None, "the pool below is not recorded yet"
        self._asked = list(components)

        def part(states: tuple[MancheState, ...]) -> _Part:
            return _Part(self.params, {s: strategies[s] for s in states},
                         {s: values[s] for s in states})
        floats = dict(self.floats)
        return ([(_prove_component, part(c), c, floats) for c in components]
                + [(_max_tie, part((s,)), s) for c in components for s in c])

    def take(self, found: list[Any]) -> None:
        """Record the results of the last `calls`; MancheCertificateError if a component
        is not proved."""
        assert self._asked is not None, "no pool asked"
        mine, self._asked = self._asked, None
        states = [s for c in mine for s in c]
        ties = dict(zip(states, found[len(mine):]))
        for component, bounds in zip(mine, found):
            _record(component, bounds, ties, self.proofs, self.floats)

    def certificate(self) -> MancheCertificate:
        assert self._asked is None, "a pool is not recorded yet"
        return MancheCertificate(dict(self.proofs))


def certify_manche(solution: MancheSolution, workers: int | None = None
                   ) -> MancheCertificate:
    """Every state's proved interval (module docstring), on `workers` processes
    (`stage_solve.default_workers`; 1: this one); MancheCertificateError if a component
    cannot be proved. (`solver.pipeline.manche` proves beside the solve instead.)"""
    proofs = PoolProofs(solution.params, solution.known)
    strategies = {s: stage.strategy for s, stage in solution.stages.items()}
    runner = Runner(default_workers(solution.params) if workers is None else workers,
                    "manche")
    try:
        for pool in sorted({c[0].pool for c in solution.components}):
            mine = [c for c in solution.components if c[0].pool == pool]
            proofs.take(runner.map(call, proofs.calls(mine, strategies, solution.values)))
    finally:
        runner.close()
    return proofs.certificate()


def _record(component: tuple[MancheState, ...], found: dict[Key, Fraction],
            ties: dict[MancheState, Fraction], proofs: dict[MancheState, StateProof],
            floats: dict[Key, Fraction]) -> None:
    """A component's proved bounds, into `proofs` and (rounded down) `floats`."""
    for s in component:
        lower, upper = found[(s, FIRST)], 1 - found[(s, SECOND)]
        if lower > upper:
            raise MancheCertificateError(f"state {s.label()}: the bounds cross")
        if ties[s] >= 1:
            raise MancheCertificateError(f"state {s.label()}: a reply can make every "
                                         f"hand a tie")
        proofs[s] = StateProof(lower, upper, ties[s])
        floats[(s, FIRST)] = Fraction(float_down(lower))
        floats[(s, SECOND)] = Fraction(float_down(1 - upper))


def _prove_component(part: _Part, component: tuple[MancheState, ...],
                     proved: dict[Key, Fraction]) -> dict[Key, Fraction]:
    """X's exact guarantees T(g-) at every state and seat of the component."""
    keys = [(s, seat) for s in component for seat in (FIRST, SECOND)]
    g = _float_fixed_point(part, component, keys, proved)
    for margin in MARGINS:
        low = {key: Fraction(g[key] - margin) for key in keys}
        step = {key: _exact_step(part, key, low, proved) for key in keys}
        if all(low[key] <= step[key] for key in keys):
            return step
    raise MancheCertificateError(f"state {component[0].label()}: no sub-solution within a "
                                 f"margin of {MARGINS[-1]:g}")


def _float_fixed_point(part: _Part, component: tuple[MancheState, ...],
                       keys: list[Key], proved: dict[Key, Fraction]) -> dict[Key, float]:
    """X's guarantees in floating point: value iteration from the solved values."""
    g = {(s, seat): part.values[s] if seat == FIRST else 1 - part.values[s]
         for s, seat in keys}
    for _ in range(FLOAT_STEPS):
        new = {key: _float_step(part, key, g, proved) for key in keys}
        change = max(abs(new[key] - g[key]) for key in keys)
        g = new
        if change < 1e-16:
            break
    return g


def _lookup(inside: dict[Key, float] | dict[Key, Fraction], proved: dict[Key, Fraction],
            exact: bool) -> Callable[[MancheState, int], Fraction | float]:
    def g(state: MancheState, seat: int) -> Fraction | float:
        key = (state, seat)
        v = inside[key] if key in inside else proved[key]
        return Fraction(v) if exact else float(v)
    return g


def _float_step(part: _Part, key: Key, g: dict[Key, float],
                proved: dict[Key, Fraction]) -> float:
    state, seat = key
    return float(guarantee_step(lambda pay: stage_model(part.params, state, pay),
                                part.strategies[state], seat,
                                _lookup(g, proved, exact=False), exact=False))


def _exact_step(part: _Part, key: Key, g: dict[Key, Fraction],
                proved: dict[Key, Fraction]) -> Fraction:
    state, seat = key
    return Fraction(guarantee_step(lambda pay: stage_model(part.params, state, pay),
                                   part.strategies[state], seat,
                                   _lookup(g, proved, exact=True), exact=True))


def rounded(proof: StateProof) -> tuple[float, float]:
    """The interval as floats, rounded outward (still proved)."""
    return float_down(proof.lower), float_up(proof.upper)
