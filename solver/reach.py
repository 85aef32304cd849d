"""Where a player's own strategy takes him: the mass (own chance included) meeting each of
his decisions and ending his throwing turn. Best responses, the exact recovery, tables and
charts all read it."""

from __future__ import annotations

import numpy as np

from solver.model import CAPTAIN, HandModel
from solver.strategy import Strategy


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

        def walk(history: str, reach: np.ndarray) -> None:
            if tree.is_leaf(history):
                return
            node = tree.node(history)
            if node.actor == player:
                betting[(tc, to, history)] = np.broadcast_to(reach, (len(node.actions),
                                                                     reach.size)).copy()
                probs = strategy.betting[(tc, to, history)]
                for i, a in enumerate(node.actions):
                    walk(history + a[0], reach * probs[i])
            else:
                for a in node.actions:
                    walk(history + a[0], reach)

        walk("", start)
    return throw_reach, betting
