"""The round with a cap on the number of stages: the finite-horizon game that the faithful
OpenSpiel round (`python_bidou_round(max_hands=H)`) is, solved by backward induction.

A stage is a hand, or one attempt of an open throw (a tie's replay is the next stage). When
the cap is reached with the round unfinished, each player has half a win. The capped values
approach the round's as the cap grows; the tests compare both with OpenSpiel's own solver.
"""

from __future__ import annotations

from fractions import Fraction

from games.bidou.round_params import RoundParams
from solver.hand.lp.sequence_form import solve_lp
from solver.hand.model import build_model
from solver.round.open_throw import open_throw_step
from solver.round.stage import stage_model
from solver.round.states import ChipState, OpenThrowState, State, after_open_throw, state_graph


def solve_capped(params: RoundParams, stages: int) -> dict[State, float]:
    """Every state's value with `stages` stages left (captain's win probability; the first
    thrower's at an open throw)."""
    graph = state_graph(params.chips, params.hand.max_level)
    base = build_model(params.hand)
    values: dict[State, float] = {s: 0.5 for s in graph}
    for _ in range(stages):
        new: dict[State, float] = {}
        for s in graph:
            if isinstance(s, OpenThrowState):
                c = Fraction(after_open_throw(s).value(values))
                step = open_throw_step(params.hand, c, Fraction(values[s]))
                new[s] = float(step.value)
            else:
                model = stage_model(base, s, lambda nxt: nxt.value(values))
                new[s] = solve_lp(model).value
        values = new
    return values


def state_of(chips: int, centre: int, captain: int, opponent: int) -> State:
    """The state with these chips, the first player named being the captain (or, at an open
    throw, whichever player holds one chip or none); `chips` is their sum."""
    if chips - 1 in (captain, opponent):
        low, high = sorted((captain, opponent))
        return OpenThrowState(centre, low, high)
    return ChipState(centre, captain, opponent)
