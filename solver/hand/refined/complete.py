"""Sequential rationality where a player's own strategy never goes but the other's does,
and no dominated ending action where only the other's trembles lead.

The perturbed LP weighs a decision that a player reaches only by his own tremble by eta
times its chance, so a loss of 1e-3 chips there is below HiGHS's tolerance and the limit
may keep a slightly worse action (default game: 7 such decisions, up to 0.002 chips;
docs/refined.md). There the other player's strategy does reach the decision, so Bayes's
rule gives the belief, and the best reply to it is what a perfect equilibrium plays.

Changing play at a decision its player never reaches changes no payoff of any strategy
pair (his reach below it is zero), so the result is the same equilibrium with the same
value: the caller proves it again anyway. Decisions the other's strategy never reaches
keep the limit's play (no belief follows from his strategy; solver/hand/refined/sequential.py
checks that some belief justifies it), except an action that a fold or call beats against
every hand of his (`_ending_replies`: safe, see there).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.common.types import Exact
from solver.hand import best_response
from solver.hand.model import HandModel
from solver.hand.reach import end_mass, own_reach, own_step
from solver.hand.strategy import Strategy

MAX_PASSES = 4        # of the two completions in turn; a pass that changes nothing ends them


def complete_sequentially(model: HandModel, strategy: Strategy, exact: Exact
                          ) -> tuple[Strategy, Exact, int]:
    """(strategy, its exact probabilities, decisions changed): at every decision a player
    never reaches and the other player's strategy does (every throwing decision counts as
    reached by the other), his pure best reply to the other's own strategy; at decisions
    the other's strategy never reaches, ending actions for the actions they beat
    (`_ending_replies`). In turn until nothing changes: moving mass to an ending action
    changes the other's beliefs after the action it left."""
    out, fractions, changed = strategy.copy(), dict(exact), 0
    leaves = best_response.leaf_matrices(model)
    for _ in range(MAX_PASSES):
        moved = 0
        for player in (CAPTAIN, OPPONENT):
            other = _other_reach(model, out, 1 - player)
            for tc, to in model.public_states:
                moved += _ending_replies(model, out, fractions, leaves, (tc, to), player,
                                         other)
        replied = _bayes_replies(model, out, fractions, leaves)
        changed += moved + replied
        if not moved and not replied:
            break
    return out, fractions, changed


def _bayes_replies(model: HandModel, out: Strategy, fractions: dict, leaves: dict) -> int:
    """Where a player never goes and the other does, his best reply to the other's own
    strategy (Bayes's beliefs), in place; how many (decision, hand) pairs changed."""
    strategy, changed = out.copy(), 0
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
    return changed


def _ending_replies(model: HandModel, out: Strategy, fractions: dict, leaves: dict,
                    public: tuple[int, int], player: int, other: dict) -> int:
    """At decisions of `player` the other's strategy never reaches: an action played that
    an action ending the betting (a fold, a call) beats against every hand of the other,
    his later play as given, and strictly against one, gives its mass to that action.

    The other's value there can only fall, for each of his hands, below what his best
    continuation earned before (after an ending action he has no choice left), so no
    deviation of his gains; and nothing changes where his strategy goes. Returns how many
    (decision, hand) pairs changed; the perturbed LP at eta 1e-5 leaves such play where
    only several trembles lead (keep: the opponent's 6-6-6 raising a check-raise)."""
    tree = model.tree(public)
    tc, to = public
    changed = 0

    def payoff(index: int) -> np.ndarray:
        u = leaves[(tree.first, index)]
        return u if player == CAPTAIN else -u.T

    def combine(node, children: list[np.ndarray]) -> np.ndarray:
        nonlocal changed
        key = (tc, to, node.history)
        q = np.array(children)                          # (k, own hand, other's hand)
        p = out.betting[key]
        if node.actor != player:
            return np.einsum("kj,khj->hj", p, q)
        ending = [b for b, edge in enumerate(node.edges) if edge.leaf is not None]
        if other[key].sum() == 0:
            for h in range(q.shape[1]):
                for a in np.nonzero(p[:, h] > 1e-9)[0]:
                    better = [b for b in ending if b != a
                              and (q[b, h] - q[a, h]).min() >= -1e-12
                              and (q[b, h] - q[a, h]).max() > 1e-9]
                    if better:
                        row = list(fractions[("bet", key, h)])
                        row[better[0]] += row[a]
                        row[a] = Fraction(0)
                        fractions[("bet", key, h)] = row
                        p[:, h] = [float(x) for x in row]
                        changed += 1
        return np.einsum("kh,khj->hj", p, q)

    tree.pull([payoff(leaf.index) for leaf in tree.leaves], combine)
    return changed


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

