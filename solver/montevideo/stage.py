"""The round played at a heads-up state, as a stage game: the family's two-player hand model
(solver/hand/model.py) with poker betting bounded by the chips, each leaf paying, by showdown
outcome, the captain's value of where it leads (games/montevideo/heads_up.py says where)."""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Callable

from games.bidou.betting import Role
from games.montevideo.heads_up import (
    After,
    HeadsUpBetting,
    HeadsUpParams,
    HeadsUpState,
    RoundTree,
    round_leads,
)
from solver.hand.model import HandModel, build_model, paid_by
from solver.hand.strategy import Strategy
from solver.round.markov import lead_value
from solver.round.stage import leaf_probabilities

Value = Callable[[After], float | Fraction]
Values = dict[HeadsUpState, float]


@functools.lru_cache(maxsize=256)
def _round(params: HeadsUpParams, state: HeadsUpState
           ) -> tuple[HandModel, dict[Role, tuple[tuple[After, ...], ...]]]:
    """The round's model (paying its own net chips, replaced below) and where each leaf leads:
    the same whatever the values, so built once a state."""
    description = params.round(state)
    assert isinstance(description.betting, HeadsUpBetting)
    trees: dict[Role, RoundTree] = description.betting.round_trees()
    model = build_model(description, {first: rt.tree for first, rt in trees.items()})
    return model, round_leads(state, trees)


def base_model(params: HeadsUpParams, state: HeadsUpState) -> HandModel:
    """The round at `state` as a hand: its leaves pay the captain's net chips."""
    return _round(params, state)[0]


def stage_model(params: HeadsUpParams, state: HeadsUpState, value: Value) -> HandModel:
    """The stage game of `state`: every leaf pays `value(where it leads)` by outcome (the
    round's trees with their payoffs replaced, `paid_by`)."""
    base, leads = _round(params, state)
    return paid_by(base, leads, value)


def model_at(params: HeadsUpParams, state: HeadsUpState, values: Values) -> HandModel:
    return stage_model(params, state, lambda nxt: lead_value(nxt, values))


def transitions(params: HeadsUpParams, state: HeadsUpState, strategy: Strategy
                ) -> dict[After, float]:
    """Where the round at `state` leads, with probabilities, under `strategy`."""
    model, leads = _round(params, state)
    out: dict[After, float] = {}
    for (first, index, o), p in leaf_probabilities(model, strategy).items():
        if p > 0:
            nxt = leads[Role(first)][index][1 - o]
            out[nxt] = out.get(nxt, 0.0) + p
    return out
