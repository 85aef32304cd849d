"""Proof of the heads-up end's numbers: every state's value bracketed in exact arithmetic.

Fix the solved stage strategies and let one person, X, follow them at every state, as captain
or as the other player. What he guarantees, g(s, seat) (his least chance of ending with every
chip against every reply of the other person), brackets the value from both sides:

    g(s, captain) <= value(s) <= 1 - g(s, other)

A stage's step T is the exact best response of the round (`certificate.exact_best_response`)
against X's stage strategy, the leaves paying X's guarantee where they lead. Below the top
ante a round leads to the ante above or ends the game, so g there is T of the bounds proved
above (rounded down to floats, so that the numbers stay small): exact, no search.

At the top ante the rounds stay among the top ante's states and T is monotone but not a
contraction (chips flow both ways). Termination is proved first: a function D+ with
1 + T_D(D+) <= D+ at every state and seat, checked exactly, T_D being the other person's
best reply to "make the game last" (leaves pay D+ where they lead, 0 at the end), bounds the
expected number of rounds any reply can make the game last from there, so every reply ends
the game with probability 1. Then a sub-solution: g- = g - m D+, g being X's guarantee in
floating point (value iteration), with g- <= T(g-) checked exactly; since play ends, T^n(g-)
grows to the guarantee, so T(g-) is a proof. A step of T lowers the margin m D+ by at least
m (D+ falls by one a round in expectation), which absorbs the rounding of g once m exceeds
it; the margins of MARGINS are tried in turn, and if none works the certificate gives up
(`HeadsUpCertificateError`) rather than report a wrong interval.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from games.montevideo.heads_up import MAX_ANTE, After, HeadsUpState
from solver.hand import best_response
from solver.hand.exact.certificate import exact_best_response, float_down, float_up
from solver.montevideo.solve import HeadsUpSolution
from solver.montevideo.stage import stage_model
from solver.round.guarantee import FIRST, SECOND, Guarantee, guarantee_step, responder

Key = tuple[HeadsUpState, int]
MARGINS = (1e-13, 1e-11, 1e-9)
FLOAT_STEPS = 2000
DURATION_SLACK = (Fraction(1, 1000), Fraction(1, 1000))   # D+ = D (1 + a) + b


class HeadsUpCertificateError(Exception):
    """The solved strategies could not be proved to the margins tried."""


@dataclasses.dataclass(frozen=True)
class StateProof:
    """lower <= value <= upper, exact."""

    lower: Fraction
    upper: Fraction

    @property
    def width(self) -> Fraction:
        return self.upper - self.lower

    def rounded(self) -> tuple[float, float]:
        """The interval as floats, rounded outward (still proved)."""
        return float_down(self.lower), float_up(self.upper)


@dataclasses.dataclass(frozen=True)
class HeadsUpCertificate:
    states: dict[HeadsUpState, StateProof]
    longest: float          # the largest proved bound on the expected rounds left (top ante)
    margin: float           # the sub-solution's margin that was proved

    @property
    def max_width(self) -> float:
        return max(float(p.width) for p in self.states.values())


def _step(solution: HeadsUpSolution, key: Key, g: Guarantee, exact: bool) -> Fraction | float:
    state, seat = key
    return guarantee_step(lambda pay: stage_model(solution.params, state, pay),
                          solution.stages[state].strategy, seat, g, exact)


def _duration_step(solution: HeadsUpSolution, key: Key, d: dict[Key, Fraction] | dict[Key, float],
                   exact: bool) -> Fraction | float:
    """1 + the most the other person can make E[D where the round leads] (0 at the end)."""
    state, seat = key
    sign = 1 if seat == SECOND else -1                # the responder's payoff is D's

    def pay(nxt: After) -> Fraction | float:
        if nxt.state is None:
            return 0
        return sign * d[(nxt.state, seat if nxt.same else 1 - seat)]

    model = stage_model(solution.params, state, pay)
    strategy = solution.stages[state].strategy
    if exact:
        return 1 + exact_best_response(model, strategy, responder(seat))
    return 1 + best_response.best_response(model, strategy, responder(seat)).value


def _lookup(values: dict[Key, Fraction] | dict[Key, float], exact: bool) -> Guarantee:
    def g(state: HeadsUpState, seat: int) -> Fraction | float:
        v = values[(state, seat)]
        return Fraction(v) if exact else float(v)
    return g


def _prove_duration(solution: HeadsUpSolution, keys: list[Key]) -> dict[Key, Fraction]:
    """D+ with 1 + T_D(D+) <= D+ exactly at every key (module docstring)."""
    d: dict[Key, float] = {key: 1.0 for key in keys}
    for _ in range(FLOAT_STEPS):
        new = {key: float(_duration_step(solution, key, d, exact=False)) for key in keys}
        change = max(abs(new[key] - d[key]) / new[key] for key in keys)
        d = new
        if change < 1e-9:
            break
    else:
        raise HeadsUpCertificateError("a reply can make the game last too long to bound")
    a, b = DURATION_SLACK
    bound = {key: Fraction(d[key]) * (1 + a) + b for key in keys}
    for key in keys:
        if _duration_step(solution, key, bound, exact=True) > bound[key]:
            raise HeadsUpCertificateError(f"state {key[0].label()}: the bound on how long "
                                          f"the game lasts does not hold")
    return bound


def _prove_top(solution: HeadsUpSolution, top: list[HeadsUpState]
               ) -> tuple[dict[Key, Fraction], dict[Key, Fraction], float]:
    keys = [(s, seat) for s in top for seat in (FIRST, SECOND)]
    duration = _prove_duration(solution, keys)
    g: dict[Key, float] = {(s, seat): solution.values[s] if seat == FIRST
                           else 1 - solution.values[s] for s, seat in keys}
    for _ in range(FLOAT_STEPS):
        new = {key: float(_step(solution, key, _lookup(g, False), exact=False))
               for key in keys}
        change = max(abs(new[key] - g[key]) for key in keys)
        g = new
        if change < 1e-16:
            break
    for margin in MARGINS:
        low = {key: Fraction(g[key]) - Fraction(margin) * duration[key] for key in keys}
        step = {key: Fraction(_step(solution, key, _lookup(low, True), exact=True))
                for key in keys}
        if all(low[key] <= step[key] for key in keys):
            return step, duration, margin
    raise HeadsUpCertificateError(f"ante {MAX_ANTE}: no sub-solution within a margin of "
                                  f"{MARGINS[-1]:g} rounds")


def certify_heads_up(solution: HeadsUpSolution) -> HeadsUpCertificate:
    """Every state's proved interval (module docstring); HeadsUpCertificateError if the
    strategies cannot be proved."""
    states = solution.params.states()
    top = [s for s in states if s.ante == MAX_ANTE]
    found, duration, margin = _prove_top(solution, top)
    floats = {key: Fraction(float_down(v)) for key, v in found.items()}
    for ante in range(MAX_ANTE - 1, solution.params.first_ante - 1, -1):
        for s in (s for s in states if s.ante == ante):
            for seat in (FIRST, SECOND):
                v = Fraction(_step(solution, (s, seat), _lookup(floats, True), exact=True))
                found[(s, seat)] = v
                floats[(s, seat)] = Fraction(float_down(v))
    proofs = {}
    for s in states:
        lower, upper = found[(s, FIRST)], 1 - found[(s, SECOND)]
        if lower > upper:
            raise HeadsUpCertificateError(f"state {s.label()}: the bounds cross")
        proofs[s] = StateProof(lower, upper)
    return HeadsUpCertificate(proofs, float(max(duration.values())), margin)
