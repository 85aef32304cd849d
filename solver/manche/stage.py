"""The hand played at a manche state, as a stage game: Le Bidou's hand with stakes up to
the pool, each leaf paying, by showdown outcome, the first player's value of where it leads
(games/le_bidou/manche.py says where)."""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Callable

from games.bidou.betting import OUTCOMES, Role
from games.le_bidou.manche import After, MancheParams, MancheState, after_hand, received
from solver.hand.model import HandModel, build_model, paid_by
from solver.hand.strategy import Strategy
from solver.round.stage import leaf_probabilities

Value = Callable[[After], float | Fraction]


@functools.lru_cache(maxsize=16)
def base_model(params: MancheParams, pool: int) -> HandModel:
    """The hand's model with stakes up to the pool (its own chip payoffs, replaced below)."""
    return build_model(params.hand(pool))


@functools.lru_cache(maxsize=64)
def leaf_leads(params: MancheParams, state: MancheState
               ) -> dict[Role, tuple[tuple[After, ...], ...]]:
    """Where each leaf of the hand at `state` leads, by showdown outcome (OUTCOMES), per
    betting tree: the same whatever the values, so worked out once a state."""
    return {first: tuple(tuple(after_hand(state, *received(leaf, o, params.half_stake))
                               for o in OUTCOMES) for leaf in tree.leaves)
            for first, tree in base_model(params, state.pool).trees.items()}


def stage_model(params: MancheParams, state: MancheState, value: Value) -> HandModel:
    """The stage game of `state`: every leaf pays `value(where it leads)` by outcome (the
    base model's trees with their payoffs replaced, `paid_by`)."""
    return paid_by(base_model(params, state.pool), leaf_leads(params, state), value)


def transitions(params: MancheParams, model: HandModel, state: MancheState,
                strategy: Strategy) -> dict[After, float]:
    """Where the hand at `state` leads, with probabilities, under `strategy`."""
    out: dict[After, float] = {}
    for (first, index, o), p in leaf_probabilities(model, strategy).items():
        if p <= 0:
            continue
        leaf = model.trees[Role(first)].leaves[index]
        nxt = after_hand(state, *received(leaf, o, params.half_stake))
        out[nxt] = out.get(nxt, 0.0) + p
    return out
