"""Sequential rationality where a player's own strategy never goes but the other's does.

The perturbed LP weighs a decision that a player reaches only by his own tremble by eta
times its chance, so a loss of 1e-3 chips there is below HiGHS's tolerance and the limit
may keep a slightly worse action (default game: 7 such decisions, up to 0.002 chips;
docs/refined.md). There the other player's strategy does reach the decision, so Bayes's
rule gives the belief, and the best reply to it is what a perfect equilibrium plays.

Changing play at a decision its player never reaches changes no payoff of any strategy
pair (his reach below it is zero), so the result is the same equilibrium with the same
value: the caller proves it again anyway. Decisions neither player reaches keep the
limit's play (no belief follows from either strategy; solver/refine/sequential.py checks
that some belief justifies it).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver import best_response
from solver.model import HandModel
from solver.reach import end_mass, own_reach, own_step
from solver.strategy import Strategy
from solver.types import Exact


def complete_sequentially(model: HandModel, strategy: Strategy, exact: Exact
                          ) -> tuple[Strategy, Exact, int]:
    """(strategy, its exact probabilities, decisions changed): at every decision a player
    never reaches and the other player's strategy does (every throwing decision counts as
    reached by the other), his pure best reply to the other's own strategy."""
    out, fractions, changed = strategy.copy(), dict(exact), 0
    leaves = best_response.leaf_matrices(model)
    for player in (CAPTAIN, OPPONENT):
        br = best_response.best_response(model, strategy, player, leaves)
        throw_reach, betting_reach = own_reach(model, strategy, player)
        throw = out.throw[player]
        for c, t, h in zip(*np.nonzero(throw_reach.sum(axis=-2) == 0)):
            pure = br.throw[c, t, :, h]
            if not np.array_equal(throw[c, t, :, h], pure):
                throw[c, t, :, h] = pure
                fractions[("throw", player, int(c), int(t), int(h))] = _pure(pure)
                changed += 1
        other = _other_reach(model, strategy, 1 - player)
        for key, reach in betting_reach.items():
            for h in np.nonzero((reach[0] == 0) & (other[key].sum() > 0))[0]:
                pure = br.betting[key][:, h]
                if not np.array_equal(out.betting[key][:, h], pure):
                    out.betting[key][:, h] = pure
                    fractions[("bet", key, int(h))] = _pure(pure)
                    changed += 1
    return out, fractions, changed


def _pure(probs: np.ndarray) -> list[Fraction]:
    return [Fraction(int(p == 1.0)) for p in probs]


def _other_reach(model: HandModel, strategy: Strategy, other: int) -> dict:
    """The `other` player's reach (his own actions and chance, per his hand) at every
    node of the betting where the first player acts, keyed like Strategy.betting."""
    ends = [end_mass(model, strategy.throw[other][c])
            for c in range(strategy.throw[other].shape[0])]
    out = {}
    for tc, to in model.public_states:
        start = ends[0][tc - 1] if other == CAPTAIN else ends[tc - 1][to - 1]
        tree = model.tree((tc, to))
        at_node, _ = tree.push(start, own_step(strategy, (tc, to), other))
        for node in tree.nodes:
            if node.actor != other:
                out[(tc, to, node.history)] = at_node[node.index]
    return out

