"""Where a player's own strategy takes him: the mass (own chance included) meeting each of
his decisions and ending his throwing turn. Best responses, the exact recovery, tables and
charts all read it."""

from __future__ import annotations

import numpy as np

from games.bidou.betting import CAPTAIN, Node
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy


def throw_flow(model: HandModel, throw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mass (own chance included) meeting each throw decision, (T-1, n), and ending the turn
    at each throw, (T, n), when a player throws by `throw` (T-1, A, n)."""
    T = model.throws
    mass = model.prior.copy()
    before = np.zeros((T - 1, model.num_hands))
    ends = np.zeros((T, model.num_hands))
    for t in range(T - 1):
        before[t] = mass
        ends[t] = mass * throw[t][0]
        flows = mass[None, :] * throw[t]                  # (A, n)
        mass = np.einsum("ah,ahk->k", flows[1:], model.transition[1:])
    ends[T - 1] = mass
    return before, ends


def end_mass(model: HandModel, throw: np.ndarray) -> np.ndarray:
    """(T, n): probability (with chance) of ending the turn at throw t+1 holding each hand."""
    return throw_flow(model, throw)[1]


def own_reach(model: HandModel, strategy: Strategy, player: int
              ) -> tuple[np.ndarray, dict[tuple[int, int, str], np.ndarray]]:
    """Probability (own actions and own chance only) of meeting each of `player`'s decisions.

    Returns (throw reach shaped like Strategy.throw[player], betting reach per own node).
    """
    contexts = strategy.throw[player]
    throw_reach = np.zeros(contexts.shape)
    ends_by_context = []
    for c in range(contexts.shape[0]):
        before, ends = throw_flow(model, contexts[c])
        throw_reach[c] = before[:, None, :] * model.throw_legal
        ends_by_context.append(ends)
    betting: dict = {}
    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        ends = ends_by_context[0 if player == CAPTAIN else tc - 1]
        start = ends[(tc if player == CAPTAIN else to) - 1]

        at_node, _ = tree.push(start, own_step(strategy, (tc, to), player))
        for node in tree.nodes:
            if node.actor == player:
                betting[(tc, to, node.history)] = np.broadcast_to(
                    at_node[node.index], (len(node.edges), model.num_hands)).copy()
    return throw_reach, betting


def own_step(strategy: Strategy, public: tuple[int, int], player: int):
    """`BettingTree.push`'s step for `player`'s own reach: his nodes multiply by his
    probabilities, the other player's pass it through."""
    tc, to = public

    def step(node: Node, a: int, reach: np.ndarray) -> np.ndarray:
        if node.actor != player:
            return reach
        return reach * strategy.betting[(tc, to, node.history)][a]

    return step
