"""The hand played at a chip state, as a stage game: the compact hand model with betting
limited by the chips each player can supply, and each leaf paying the value, to the
captain, of the state it leads to."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Callable

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT, OUTCOMES, Leaf, Node, Role
from solver.hand.model import HandModel
from solver.hand.reach import end_mass
from solver.hand.strategy import Strategy
from solver.round.states import ChipState, Next, after_leaf

Value = Callable[[Next], float | Fraction]
NodeReach = tuple[np.ndarray, np.ndarray]      # both players' own reach at a node, by hand
# a stage decision's probabilities (actions, hands) from its actions, the hand game's actions
# at the same decision and the hand strategy's probabilities there
Rows = Callable[[tuple[str, ...], tuple[str, ...], np.ndarray], np.ndarray]


def stage_model(base: HandModel, state: ChipState, value: Value) -> HandModel:
    """`base` (the hand's rules) with the betting of `state`: supply-limited trees whose
    leaves pay `value(where the leaf leads)` by showdown outcome."""
    def payoff(leaf: Leaf) -> tuple[float | Fraction, ...]:
        return tuple(value(after_leaf(state, leaf, outcome)) for outcome in OUTCOMES)

    # betting.LeafPayoff names Fractions (the hand game's chips); a stage's leaves pay the
    # continuation values, floats while solving and Fractions in the certificate
    trees = base.description.trees(state.supply(), payoff)  # type: ignore[arg-type]
    return dataclasses.replace(base, trees=trees)


def hand_play_in_stage(stage: HandModel, hand: HandModel, strategy: Strategy,
                       rows: Rows) -> Strategy:
    """A strategy of the hand game's model `hand` played at a stage: the same throwing, and
    at each betting decision the probabilities `rows` gives over the actions the chips
    allow. The chip-counting comparison and the round sheet read a hand strategy at a chip
    state this way, differing only in what becomes of an action the chips forbid."""
    betting = {}
    for tc, to in stage.public_states:
        hand_tree, stage_tree = hand.tree((tc, to)), stage.tree((tc, to))
        for node in stage_tree.nodes:
            key = (tc, to, node.history)
            betting[key] = rows(node.actions, hand_tree.node(node.history).actions,
                                strategy.betting[key])
    return Strategy((strategy.throw[CAPTAIN].copy(), strategy.throw[OPPONENT].copy()), betting)


def leaf_probabilities(model: HandModel, strategy: Strategy
                       ) -> dict[tuple[int, int, int], float]:
    """P(first bettor, leaf, outcome) when both players follow `strategy`: where the hand
    ends, and how the showdown goes. They add up to 1."""
    T = model.throws
    out: dict[tuple[int, int, int], float] = {}
    captain_ends = end_mass(model, strategy.throw[CAPTAIN][0])
    masks = {o: (model.compare == o).astype(float) for o in OUTCOMES}
    for tc in range(1, T + 1):
        opponent_ends = end_mass(model, strategy.throw[OPPONENT][tc - 1])
        for to in range(1, T + 1):
            tree = model.tree((tc, to))
            reach = (captain_ends[tc - 1], opponent_ends[to - 1])

            def step(node: Node, a: int, pair: NodeReach) -> NodeReach:
                probs = strategy.betting[(tc, to, node.history)][a]
                own = list(pair)
                own[node.actor] = own[node.actor] * probs
                return own[0], own[1]

            _, at_leaf = tree.push(reach, step)
            for leaf, (rc, ro) in zip(tree.leaves, at_leaf):
                for o in OUTCOMES:
                    key = (int(tree.first), leaf.index, o)
                    out[key] = out.get(key, 0.0) + float(rc @ masks[o] @ ro)
    return out


def transitions(model: HandModel, state: ChipState, strategy: Strategy) -> dict[Next, float]:
    """Where the hand at `state` leads, with probabilities, under `strategy`."""
    out: dict[Next, float] = {}
    for (first, index, o), p in leaf_probabilities(model, strategy).items():
        if p <= 0:
            continue
        leaf = model.trees[Role(first)].leaves[index]
        nxt = after_leaf(state, leaf, o)
        out[nxt] = out.get(nxt, 0.0) + p
    return out
