"""A strategy simple enough to remember, and what it costs.

The equilibrium mixes at a few decisions and its stopping sets are not always a single
"this hand or better". The simplified strategy:

* **betting**: at every decision point and for every hand, the single most likely action of
  the equilibrium (ties go to the first action in the model's order: pass, fold, call);
* **throwing**, ``reroll="all"``: one *threshold* per decision (player, captain's throw count
  for the opponent, throw): stop with the threshold hand or anything stronger in the
  ranking's table order, throw again with anything weaker. The threshold starts at the one
  that best matches the equilibrium (the one disagreeing with it least, weighted by how often
  the player holds each hand there), then each threshold in turn is moved to the one
  minimizing that player's exploitability, the others held fixed, until no move helps;
* **throwing**, ``reroll="keep"``: the same stop threshold per decision; below it, keep the
  dice the equilibrium keeps most often with that hand at that decision (if the equilibrium
  always stops there with it: the dice it keeps most often with that hand at any of the
  player's throw decisions, else rethrow all three). So a keep-mode rule is "stop with X or
  better, otherwise keep what the chart shows".

The exploitability of the pair (both players simplified) is measured exactly by
`best_response.exploitability`. A player's simplification changes only what the other can
win against him, so the two parts are separate: `captain_loss` is what a best-responding
opponent wins against the simplified captain beyond the game value, `opponent_loss` what a
best-responding captain wins against the simplified opponent; exploitability is their mean.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT, ROLE_NAMES
from games.bidou.rules import STOP, throw_action_name
from solver.cheatsheet.rulebook import positions
from solver.hand import best_response
from solver.hand.best_response import Exploitability, LossesBeyondValue
from solver.hand.evaluate import Evaluation, evaluate
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy

MAX_SWEEPS = 20
IMPROVEMENT = 1e-12


@dataclasses.dataclass(frozen=True)
class ThresholdRule:
    """Stop after `throw` with one of the `stop_count` strongest hands; throw again otherwise.

    `context` is the captain's throw count the opponent knows (0 for the captain).
    """

    player: int
    context: int
    throw: int
    stop_count: int

    def threshold_hand(self, model: HandModel) -> rules.Hand | None:
        """The weakest hand that stops (None: never stop)."""
        if self.stop_count == 0:
            return None
        return rules.ranked_hands(model.params.faces, model.params.ranking)[self.stop_count - 1]

    def describe(self, model: HandModel) -> str:
        who = ROLE_NAMES[self.player]
        if self.player == OPPONENT:
            who += f" (captain made {self.context})"
        hand = self.threshold_hand(model)
        n = model.num_hands
        if hand is None:
            rule = "never stop"
        elif self.stop_count == n:
            rule = "always stop"
        else:
            rule = f"stop with {rules.format_hand(hand)} or better"
        return f"{who}, after throw {self.throw}: {rule}"


@dataclasses.dataclass(frozen=True)
class Simplified(LossesBeyondValue):
    """The simplified strategy, its rules and its exact exploitability (chips per hand)."""

    model: HandModel
    strategy: Strategy
    thresholds: tuple[ThresholdRule, ...]
    exploitability: Exploitability
    game_value: float
    rounded_exploitability: float      # every decision rounded, no threshold rule
    exact_exploitability: float | None = None

    def describe(self) -> list[str]:
        """The throwing rules in words, one line each."""
        return [rule.describe(self.model) for rule in self.thresholds]

    def to_dict(self) -> dict[str, Any]:
        e = self.exploitability
        return {
            "exploitability": e.exploitability,
            "nash_conv": e.nash_conv,
            "captain_loss": self.captain_loss,
            "opponent_loss": self.opponent_loss,
            "on_policy_value": e.value,
            "captain_guaranteed": e.captain_guaranteed,
            "captain_best_response": e.captain_best,
            "game_value": self.game_value,
            "rounded_exploitability": self.rounded_exploitability,
            "exact_exploitability": self.exact_exploitability,
            "throw_rules": [
                {"player": ROLE_NAMES[r.player],
                 "captain_throws": r.context if r.player == OPPONENT else None,
                 "throw": r.throw, "stop_count": r.stop_count,
                 "threshold_hand": (rules.format_hand(h) if (h := r.threshold_hand(self.model))
                                    else None)}
                for r in self.thresholds],
        }


def round_strategy(model: HandModel, strategy: Strategy) -> Strategy:
    """Every decision replaced by its most likely action (first one on ties)."""
    out = strategy.copy()
    for role in (CAPTAIN, OPPONENT):
        probs = np.where(model.throw_legal, strategy.throw[role], -1.0)
        out.throw[role][...] = _one_hot(probs, axis=-2)
    for key, probs in strategy.betting.items():
        out.betting[key] = _one_hot(probs, axis=0)
    return out


def _one_hot(probs: np.ndarray, axis: int) -> np.ndarray:
    # Round first so float noise (0.5 vs 0.5000000001) cannot flip a tie between runs.
    best = np.argmax(np.round(probs, 9), axis=axis)
    out = np.zeros(probs.shape)
    np.put_along_axis(out, np.expand_dims(best, axis), 1.0, axis=axis)
    return out


def is_pure(strategy: Strategy, tol: float = 0.0) -> bool:
    arrays = list(strategy.throw) + list(strategy.betting.values())
    return all(np.all((np.abs(a) <= tol) | (np.abs(a - 1) <= tol)) for a in arrays)


def _keep_choices(model: HandModel, strategy: Strategy, player: int) -> np.ndarray:
    """(contexts, T-1, n): the action index used below the threshold."""
    throw = strategy.throw[player]
    if model.params.reroll == "all":
        return np.ones(throw.shape[:2] + (model.num_hands,), dtype=np.int64)
    moving = np.where(model.throw_legal[1:], throw[:, :, 1:], -1.0)      # (C, T-1, A-1, n)
    fallback_scores = np.where(model.throw_legal[1:], throw[:, :, 1:].sum(axis=(0, 1)), -1.0)
    fallback = np.where(fallback_scores.max(axis=0) > 0, fallback_scores.argmax(axis=0) + 1, 1)
    choice = np.round(moving, 9).argmax(axis=2) + 1
    return np.where(moving.max(axis=2) > 0, choice, fallback[None, None, :])


def _threshold_probs(model: HandModel, pos: np.ndarray, count: int,
                     keep: np.ndarray) -> np.ndarray:
    """(A, n) pure throw decision: stop if pos < count, else the keep action."""
    A, n = model.throw_legal.shape
    out = np.zeros((A, n))
    stop = pos < count
    out[0, stop] = 1.0
    out[keep[~stop], np.nonzero(~stop)[0]] = 1.0
    return out


def _majority_count(p_stop: np.ndarray, weight: np.ndarray, pos: np.ndarray) -> int:
    """The threshold disagreeing least with the equilibrium's stop probabilities."""
    n = p_stop.size
    order = np.argsort(pos)
    w = weight[order] if weight.sum() > 0 else np.ones(n)
    s = p_stop[order]
    # cost(k) = sum_{i<k} w (1 - s) + sum_{i>=k} w s
    above = np.concatenate([[0.0], np.cumsum(w * (1 - s))])
    below = np.concatenate([np.cumsum((w * s)[::-1])[::-1], [0.0]])
    cost = above + below
    return int(np.argmin(np.round(cost, 12)))


def simplify(model: HandModel, strategy: Strategy, game_value: float | None = None,
             optimize: bool = True, evaluation: Evaluation | None = None) -> Simplified:
    """The simplified strategy of `strategy` (an equilibrium, normally) and its exploitability.

    `game_value` defaults to the on-policy value of `strategy`. With `optimize=False` the
    thresholds are the majority ones, without the exploitability search. `evaluation` (of
    `strategy`) saves measuring it again.
    """
    leaves = best_response.leaf_matrices(model)
    evaluation = evaluation or evaluate(model, strategy)
    exact = evaluation.exploitability
    if game_value is None:
        game_value = exact.value
    rounded = round_strategy(model, strategy)
    rounded_e = best_response.exploitability(model, rounded)
    pos = positions(model)
    T = model.throws
    simple = rounded.copy()
    rules_out: list[ThresholdRule] = []
    for player in (CAPTAIN, OPPONENT):
        if T == 1:
            continue
        reach = evaluation.reach[player][0]
        keep = _keep_choices(model, strategy, player)
        contexts = strategy.throw[player].shape[0]
        counts = {}
        for c in range(contexts):
            for t in range(T - 1):
                counts[(c, t)] = _majority_count(strategy.throw[player][c, t, 0],
                                                 reach[c, t, 0], pos)
                simple.throw[player][c, t] = _threshold_probs(model, pos, counts[(c, t)],
                                                              keep[c, t])
        if optimize:
            _descend(model, simple, player, counts, keep, pos, leaves)
        rules_out += [ThresholdRule(player, 0 if player == CAPTAIN else c + 1, t + 1, k)
                      for (c, t), k in sorted(counts.items())]
    e = best_response.exploitability(model, simple)
    return Simplified(model=model, strategy=simple, thresholds=tuple(rules_out),
                      exploitability=e, game_value=float(game_value),
                      rounded_exploitability=rounded_e.exploitability,
                      exact_exploitability=exact.exploitability)


def _loss(model: HandModel, strategy: Strategy, player: int, leaves: dict) -> float:
    """What the other player's best response wins against `player`'s part (up to a constant)."""
    other = OPPONENT if player == CAPTAIN else CAPTAIN
    return best_response.best_response(model, strategy, other, leaves).value


def _descend(model: HandModel, simple: Strategy, player: int, counts: dict, keep: np.ndarray,
             pos: np.ndarray, leaves: dict) -> None:
    """Coordinate descent on the thresholds of `player` (in place)."""
    n = model.num_hands
    current = _loss(model, simple, player, leaves)
    for _ in range(MAX_SWEEPS):
        moved = False
        for (c, t), k0 in sorted(counts.items()):
            best_k, best = k0, current
            for k in range(n + 1):
                if k == k0:
                    continue
                simple.throw[player][c, t] = _threshold_probs(model, pos, k, keep[c, t])
                value = _loss(model, simple, player, leaves)
                if value < best - IMPROVEMENT:
                    best_k, best = k, value
            simple.throw[player][c, t] = _threshold_probs(model, pos, best_k, keep[c, t])
            if best_k != k0:
                counts[(c, t)] = best_k
                current = best
                moved = True
        if not moved:
            return


def keep_label(action_index: int, model: HandModel) -> str:
    """Name of the throw action, for rule texts ("stop", "reroll", "keep 6-6")."""
    action = model.throw_actions[action_index]
    return "stop" if action == STOP else throw_action_name(action)
