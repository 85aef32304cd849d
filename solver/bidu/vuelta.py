"""The two-player vuelta of Bidú, its replay priced by the fixed point (docs/bidu.md).

A vuelta nobody bets on is played again with the same pot and captain and no new ante
(B12), so the captain's value V of a vuelta satisfies V = G(V), where G(x) is the value of
`python_bidu(replay_value=x)`: the one-vuelta game whose replay terminals pay x to the
captain. Every strategy pair pays c + p x (c from the terminals that are not replays, p the
probability of a replay, p <= 1), so G is continuous and G(y) - G(x) <= y - x for x < y:
G(x) - x never increases. Hence G(lo) > lo puts every fixed point above lo, G(hi) < hi
every one below hi, and one exists between (continuity).

G is not linear: the equilibrium's mixed strategies move with x, and on the small variants
V is a quadratic irrational (faces 2, throws 1, stack 1: the root (17 - sqrt 385)/32 of
32x^2 - 34x - 3), so no Fraction is V. What is proved is an interval: Newton's method
finds V (at x_k the exact LP, `solver.checks.openspiel_lp` and `openspiel_exact`, solves the
stage game and rationalises an equilibrium; its line c + p x, computed in Fractions, meets
the diagonal at x_{k+1} = c / (1 - p)), then the exact LP's proved bounds give
G(lo) > lo and G(hi) < hi at rational lo < hi around it: V is in [lo, hi]. When the exact
LP proves G(x) = x outright (a rational V), that x is returned as the exact value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import pyspiel

import games.bidu.game  # noqa: F401  (registers python_bidu)
from games.bidu.params import BiduParams
from solver.checks.openspiel_exact import Behaviour, ExactValue, prove
from solver.checks.openspiel_lp import solve_run
from solver.common.errors import SolverError

__all__ = ["MAX_STEPS", "WIDTH", "VueltaSolution", "replay_line", "solve_vuelta",
           "stage_game", "stage_value"]

# Newton's steps allowed before giving up: 3 or 4 settle the small variants.
MAX_STEPS = 12
# The proved interval's width: the LP's floats carry about 1e-9 of error, so bounds this far
# from V are proved with room to spare.
WIDTH = Fraction(1, 10**6)
# Newton's iterates are rounded to fractions of denominators up to this bound: exact
# iterates grow ever longer denominators and the LP reads its payoffs as floats anyway.
_DENOMINATOR = 10**12


@dataclass(frozen=True)
class VueltaSolution:
    """The captain's value of a vuelta, replay included: proved to lie in
    [`lower`, `upper`] (G(lower) > lower and G(upper) < upper with the exact LP), `exact`
    the value itself when the exact LP proves G(exact) = exact (None when V is
    irrational); `estimate` Newton's last iterate (inside the interval, to about 1e-12 of
    V on the small variants, not proved that close); `value` is `exact`, else `estimate`.
    `steps`: the Newton steps
    (LP solves before the bracket's two). `replay_probability`: the probability that the
    vuelta is replayed under the rational equilibrium of the last Newton step (the stage
    game whose replay pays the iterate before `estimate`)."""

    params: BiduParams
    lower: Fraction
    upper: Fraction
    exact: Fraction | None
    estimate: Fraction
    steps: int
    replay_probability: Fraction

    @property
    def value(self) -> Fraction:
        return self.exact if self.exact is not None else self.estimate


def stage_game(params: BiduParams, worth: Fraction) -> pyspiel.Game:
    """`python_bidu` of `params` whose replay terminals pay `worth` to the captain."""
    _check_two(params)
    return pyspiel.load_game("python_bidu", {**_spiel_params(params),
                                             "replay_value": str(Fraction(worth))})


def stage_value(params: BiduParams, worth: Fraction) -> ExactValue:
    """G(worth): the exact LP's proof of the stage game's value to the captain."""
    return prove(solve_run(stage_game(params, worth), exact=True))


def replay_line(params: BiduParams, policies: tuple[Behaviour, Behaviour]
                ) -> tuple[Fraction, Fraction]:
    """(c, p) of a strategy pair, exactly: the captain's expected payoff from the terminals
    that are not replays, and the probability of a replay; the pair pays c + p x when a
    replay pays x."""
    game = stage_game(params, Fraction(0))
    chance = dict(game.tables.exact_outcomes(None, ()))    # every throw rethrows all dice
    totals = [Fraction(0), Fraction(0)]

    def visit(state: pyspiel.State, reach: Fraction) -> None:
        if state.is_terminal():
            if state.replay:
                totals[1] += reach
            else:
                totals[0] += reach * state.exact_returns()[0]
            return
        if state.is_chance_node():
            for action, _ in state.chance_outcomes():
                visit(state.child(action), reach * chance[action])
            return
        player = state.current_player()
        probs = policies[player][state.information_state_string(player)]
        for action in state.legal_actions():
            weight = probs.get(action, Fraction(0))
            if weight:
                visit(state.child(action), reach * weight)

    visit(game.new_initial_state(), Fraction(1))
    return totals[0], totals[1]


def solve_vuelta(params: BiduParams, width: Fraction = WIDTH,
                 max_steps: int = MAX_STEPS) -> VueltaSolution:
    """The captain's value of the two-player vuelta with the replay priced (V = G(V)),
    proved by the exact LP to lie in an interval of `width` (or exactly, if G(x) = x is
    proved at a Newton iterate); `SolverError` if Newton's method has not settled within
    `max_steps` LP solves or the bracket's bounds are not proved."""
    _check_two(params)
    worth, step = Fraction(0), 0
    while True:
        step += 1
        proof = stage_value(params, worth)
        if proof.policies is None:
            raise SolverError(f"{params.describe()}: the exact LP proves nothing of the "
                              f"stage game whose replay pays {worth}: {proof.why_not}")
        c, p = replay_line(params, proof.policies)
        if proof.value == worth:
            return VueltaSolution(params, worth, worth, worth, worth, step, p)
        if p == 1:
            raise SolverError(f"{params.describe()}: an equilibrium never bets, so the "
                              f"vuelta has no value")
        following = (c / (1 - p)).limit_denominator(_DENOMINATOR)
        if abs(following - worth) < width / 100:
            break
        if step >= max_steps:
            raise SolverError(f"{params.describe()}: Newton's method on the replay's worth "
                              f"did not settle in {max_steps} steps (last worth {worth})")
        worth = following
    unit = width / 100                            # endpoints on a grid of short fractions
    lower = math.floor((following - width / 2) / unit) * unit
    upper = math.ceil((following + width / 2) / unit) * unit
    below, above = stage_value(params, lower), stage_value(params, upper)
    if below.lower is None or below.lower <= lower or above.upper is None \
            or above.upper >= upper:
        raise SolverError(f"{params.describe()}: the exact LP does not prove "
                          f"G({lower}) > {lower} and G({upper}) < {upper}")
    return VueltaSolution(params, lower, upper, None, following, step, p)


def _check_two(params: BiduParams) -> None:
    if params.players != 2:
        raise SolverError(f"the vuelta's fixed point is solved for two players, not "
                          f"{params.players}")


def _spiel_params(params: BiduParams) -> dict[str, object]:
    """The parameters as `pyspiel.load_game` takes them (every one but replay_value)."""
    return {k: v for k, v in params.to_dict().items() if k != "replay_value"}
