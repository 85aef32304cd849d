"""Exact best responses and exploitability, by backward induction on behaviour strategies.

This deliberately shares nothing with the LP or CFR code beyond the model's basic data:
it walks the throwing turns forward for the reach of the fixed player, then solves the
responder's betting per public state and his throwing turns by dynamic programming, with
showdowns from a dense `compare` matrix built from the rules. Definitions follow OpenSpiel:
NashConv is the sum over players of (best-response value - on-policy value), and
exploitability is NashConv / 2.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT, Node
from solver.common.side_by_side import side_by_side
from solver.hand.model import HandModel
from solver.hand.reach import end_mass, own_reach
from solver.hand.strategy import Strategy


@dataclasses.dataclass(frozen=True)
class BestResponse:
    """A pure best response of `player` and its value to that player."""

    player: int
    value: float
    throw: np.ndarray                                   # like Strategy.throw[player]
    betting: dict[tuple[int, int, str], np.ndarray]     # only the player's own nodes


@dataclasses.dataclass(frozen=True)
class Exploitability:
    """How far a strategy pair is from equilibrium, in chips per hand (to the captain)."""

    value: float                 # u(x, y): the pair played against itself
    captain_guaranteed: float    # min over opponent replies of u(x, .)
    captain_best: float          # max over captain replies of u(., y)

    @property
    def captain_exploitability(self) -> float:
        """What a best-responding opponent gains against the captain's strategy."""
        return self.value - self.captain_guaranteed

    @property
    def opponent_exploitability(self) -> float:
        """What a best-responding captain gains against the opponent's strategy."""
        return self.captain_best - self.value

    def captain_loss(self, game_value: float) -> float:
        """What a best-responding opponent wins against the captain's strategy, beyond the
        game value (not the pair's own value: see `captain_exploitability`)."""
        return game_value - self.captain_guaranteed

    def opponent_loss(self, game_value: float) -> float:
        """What a best-responding captain wins against the opponent's strategy, beyond the
        game value."""
        return self.captain_best - game_value

    @property
    def nash_conv(self) -> float:
        return self.captain_exploitability + self.opponent_exploitability

    @property
    def exploitability(self) -> float:
        return self.nash_conv / 2

    def to_dict(self) -> dict[str, float]:
        return {"on_policy_value": self.value,
                "captain_guaranteed": self.captain_guaranteed,
                "captain_best_response": self.captain_best,
                "captain_exploitability": self.captain_exploitability,
                "opponent_exploitability": self.opponent_exploitability,
                "nash_conv": self.nash_conv,
                "exploitability": self.exploitability}


class LossesBeyondValue:
    """`captain_loss` and `opponent_loss` for a measured strategy that keeps its
    `exploitability` and the `game_value` (the cheat sheet's rule books, the simplified
    strategy): each seat's loss against a best reply, beyond the value, stated once."""

    exploitability: Exploitability
    game_value: float

    @property
    def captain_loss(self) -> float:
        """What a best-responding opponent wins against the captain, beyond the value."""
        return self.exploitability.captain_loss(self.game_value)

    @property
    def opponent_loss(self) -> float:
        """What a best-responding captain wins against the opponent, beyond the value."""
        return self.exploitability.opponent_loss(self.game_value)


def leaf_matrices(model: HandModel) -> dict[tuple[int, int], np.ndarray]:
    """Captain's payoff U[i, j] (captain hand i, opponent hand j) per (first bettor, leaf
    index), from `rules.compare` and each leaf's payoff."""
    outcome = model.compare.astype(int)
    out: dict[tuple[int, int], np.ndarray] = {}
    for first, tree in model.trees.items():
        for leaf in tree.leaves:
            by_outcome = [float(tree.payoff(leaf, o)) for o in (-1, 0, 1)]
            out[(first, leaf.index)] = np.choose(outcome + 1, by_outcome)
    return out


def _betting_values(model: HandModel, strategy: Strategy, public: tuple[int, int],
                    responder: int, other_reach: np.ndarray, leaves: dict,
                    fixed_responder: bool) -> tuple[np.ndarray, dict]:
    """Responder's counterfactual value per hand at the root of one public state's betting.

    With `fixed_responder`, the responder follows `strategy` instead of maximizing.
    """
    tree = model.tree(public)
    tc, to = public
    sign = 1.0 if responder == CAPTAIN else -1.0
    choices: dict[tuple[int, int, str], np.ndarray] = {}

    probs = {node.index: strategy.betting[(tc, to, node.history)] for node in tree.nodes}

    def step(node: Node, a: int, reach: np.ndarray) -> np.ndarray:
        return reach if node.actor == responder else reach * probs[node.index][a]

    _, leaf_reach = tree.push(other_reach, step)
    leaf_values = [sign * (leaves[(tree.first, leaf.index)] @ r if responder == CAPTAIN
                           else r @ leaves[(tree.first, leaf.index)])
                   for leaf, r in zip(tree.leaves, leaf_reach)]

    def combine(node: Node, children: list[np.ndarray]) -> np.ndarray:
        child = np.array(children)
        if node.actor != responder:
            return child.sum(axis=0)
        if fixed_responder:
            return (probs[node.index] * child).sum(axis=0)
        best = child.argmax(axis=0)
        choices[(tc, to, node.history)] = np.eye(len(node.edges))[best].T
        return child.max(axis=0)

    return tree.pull(leaf_values, combine)[0], choices


def _throw_dp(model: HandModel, stop_value: np.ndarray, throw: np.ndarray | None
              ) -> tuple[float, np.ndarray]:
    """Value of a throwing turn given the value of stopping at each (throw, hand).

    Maximizes when `throw` is None (returning the pure best throw strategy), else follows it.
    """
    T, (A, n) = model.throws, model.throw_legal.shape
    choice = np.zeros((T - 1, A, n))
    v = stop_value[T - 1]
    for t in range(T - 2, -1, -1):
        options = np.einsum("ahk,k->ah", model.transition, v)
        options[0] = stop_value[t]
        options = np.where(model.throw_legal, options, -np.inf)
        if throw is None:
            best = options.argmax(axis=0)
            choice[t, best, np.arange(n)] = 1.0
            v = options.max(axis=0)
        else:
            v = (np.where(model.throw_legal, options, 0.0) * throw[t]).sum(axis=0)
    return float(model.prior @ v), choice


def best_response(model: HandModel, strategy: Strategy, player: int,
                  leaves: dict | None = None) -> BestResponse:
    """The exact best response of `player` to the other player's part of `strategy`."""
    return _respond(model, strategy, player, leaves or leaf_matrices(model), fixed=False)


def _respond(model: HandModel, strategy: Strategy, player: int, leaves: dict,
             fixed: bool) -> BestResponse:
    T = model.throws
    betting: dict = {}
    if player == CAPTAIN:
        stop = np.zeros((T, model.num_hands))
        for tc in range(1, T + 1):
            opponent_ends = end_mass(model, strategy.throw[OPPONENT][tc - 1])
            for to in range(1, T + 1):
                v, choices = _betting_values(model, strategy, (tc, to), CAPTAIN,
                                             opponent_ends[to - 1], leaves, fixed)
                stop[tc - 1] += v
                betting.update(choices)
        own = strategy.throw[CAPTAIN][0] if fixed else None
        value, choice = _throw_dp(model, stop, own)
        throw = choice[None]
    else:
        captain_ends = end_mass(model, strategy.throw[CAPTAIN][0])
        value, throws = 0.0, []
        for tc in range(1, T + 1):
            stop = np.zeros((T, model.num_hands))
            for to in range(1, T + 1):
                v, choices = _betting_values(model, strategy, (tc, to), OPPONENT,
                                             captain_ends[tc - 1], leaves, fixed)
                stop[to - 1] = v
                betting.update(choices)
            own = strategy.throw[OPPONENT][tc - 1] if fixed else None
            v_tc, choice = _throw_dp(model, stop, own)
            value += v_tc
            throws.append(choice)
        throw = np.array(throws)
    return BestResponse(player, value, throw, betting)


def policy_value(model: HandModel, strategy: Strategy, leaves: dict | None = None) -> float:
    """u(x, y): the captain's expected chips per hand when both follow `strategy`."""
    leaves = leaves or leaf_matrices(model)
    return _respond(model, strategy, CAPTAIN, leaves, fixed=True).value


def exploitability(model: HandModel, strategy: Strategy,
                   leaves: dict | None = None, parallel: bool = False) -> Exploitability:
    """The pair's value and what each player's best response gets against it; with
    `parallel` the opponent's best response in a forked child (solver/common/side_by_side.py:
    the same numbers; Le Bidou's large trees, where each takes a fifth of a second)."""
    leaves = leaves or leaf_matrices(model)
    (value, best), guaranteed = side_by_side(
        lambda: (policy_value(model, strategy, leaves),
                 best_response(model, strategy, CAPTAIN, leaves).value),
        lambda: best_response(model, strategy, OPPONENT, leaves).value, parallel)
    return Exploitability(value=value, captain_guaranteed=-guaranteed, captain_best=best)


def complete_unreached(model: HandModel, strategy: Strategy, tremble: float = 1e-6,
                       tol: float = 1e-12, leaves: dict | None = None,
                       parallel: bool = False) -> Strategy:
    """Replace play at decisions a player's own strategy never reaches by a best response.

    Such decisions do not change the realization plan, so the result is exactly as good
    against every opponent; a chart simply shows sensible play there. The opponent is made
    to tremble (mix in `tremble` of uniform play) so that ties at decisions nobody reaches
    are broken by what would happen if he slipped, not by action order. With `parallel`
    the opponent's best response is computed in a forked child (the same result).
    """
    out = strategy.copy()
    shaky = _trembled(model, strategy, tremble)
    leaves = leaves or leaf_matrices(model)
    responses = side_by_side(lambda: best_response(model, shaky, CAPTAIN, leaves),
                             lambda: best_response(model, shaky, OPPONENT, leaves), parallel)
    for player, br in zip((CAPTAIN, OPPONENT), responses):
        throw_reach, betting_reach = own_reach(model, strategy, player)
        unreached = throw_reach.sum(axis=-2, keepdims=True) <= tol
        out.throw[player][...] = np.where(unreached, br.throw, strategy.throw[player])
        for key, reach in betting_reach.items():
            dead = reach[:1] <= tol
            out.betting[key] = np.where(dead, br.betting[key], strategy.betting[key])
    return out


def _trembled(model: HandModel, strategy: Strategy, eps: float) -> Strategy:
    out = strategy.copy()
    legal = model.throw_legal / model.throw_legal.sum(axis=0)
    for role in (CAPTAIN, OPPONENT):
        out.throw[role][...] = (1 - eps) * strategy.throw[role] + eps * legal
    for key, probs in strategy.betting.items():
        out.betting[key] = (1 - eps) * probs + eps / probs.shape[0]
    return out
