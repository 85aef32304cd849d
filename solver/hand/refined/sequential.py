"""What a perfect equilibrium guarantees at every decision, checked with code of its own.

The uniform-tremble test of check.py asks more than the refinement promises: a perfect (or
quasi-perfect) equilibrium is a best reply to SOME sequence of vanishing trembles, and the
trembles that make it one are the equilibrium's own, not uniform ones (docs/refined.md,
"The independent check"). What every such limit satisfies, and what is tested here at
every decision of both players, every hand, reached or not (one-shot deviations, each
player's own later play as the strategy says: by the one-shot deviation principle this is
sequential rationality):

- **Where the other player's strategy goes** (his reach, without trembles, is positive at
  the decision; every throwing decision, whose values do not depend on beliefs), the
  beliefs are Bayes's: each action played must be a best reply to them, within `tol`
  chips per unit of the other's reach (`kind="sequential"`).
- **Where only his trembles lead** (no belief follows from his strategy), each action
  played must be a best reply to SOME belief about his hand (his later play as his
  strategy says): it is not strictly dominated there by a mix of the others
  (`kind="belief"`). The limit's belief is one such belief.
- **Nowhere weakly dominated** (check.py's `dominated_actions`).

Like check.py it shares no code with the LPs (solver/hand/lp/sequence_form.py, perturbed_lp.py) nor
with
solver/hand/best_response.py: only the model's data and check.py's own helpers.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT, Node
from solver.hand.model import HandModel
from solver.hand.refined.check import (
    PLAYED,
    TOLERANCE,
    Violation,
    dominated_actions,
    ending_mass,
    leaf_payoffs,
)
from solver.hand.strategy import Strategy


@dataclasses.dataclass(frozen=True)
class SequentialReport:
    """Every action played that no belief justifies (`sequential`: against the other's
    own strategy; `belief`: against any belief where only trembles lead) and every weakly
    dominated one; `passed` when there is none."""

    sequential: tuple[Violation, ...]
    belief: tuple[Violation, ...]
    dominated: tuple[Violation, ...]
    decisions: int                  # (decision, hand) pairs checked, both players

    @property
    def violations(self) -> tuple[Violation, ...]:
        return self.sequential + self.belief + self.dominated

    @property
    def passed(self) -> bool:
        return not self.violations


def verify(model: HandModel, strategy: Strategy, tol: float = TOLERANCE) -> SequentialReport:
    """The three tests of the module's docstring, on both players' strategies."""
    found: list[Violation] = []
    count = 0
    for player in (CAPTAIN, OPPONENT):
        count += _player(model, strategy, player, tol, found)
    dominated = tuple(v for player in (CAPTAIN, OPPONENT)
                      for v in dominated_actions(model, strategy, player, tol))
    return SequentialReport(tuple(v for v in found if v.kind == "sequential"),
                            tuple(v for v in found if v.kind == "belief"), dominated, count)


def _player(model: HandModel, strategy: Strategy, player: int, tol: float,
            found: list[Violation]) -> int:
    """Betting of every public state, then the throwing turns; returns the count checked."""
    other = 1 - player
    T, n = model.throws, model.num_hands
    contexts = strategy.throw[player].shape[0]
    stop = np.zeros((contexts, T, n))
    other_ends = [ending_mass(model, strategy.throw[other][c], 0.0)
                  for c in range(strategy.throw[other].shape[0])]
    count = 0
    for tc, to in model.public_states:
        if player == CAPTAIN:
            c, own_t, reach = 0, tc, other_ends[tc - 1][to - 1]
        else:
            c, own_t, reach = tc - 1, to, other_ends[0][tc - 1]
        value, checked = _betting(model, strategy, (tc, to), player, reach, tol, found)
        stop[c, own_t - 1] += value
        count += checked
    for c in range(contexts):
        count += _throwing(model, strategy, player, c, stop[c], tol, found)
    return count


def _betting(model: HandModel, strategy: Strategy, public: tuple[int, int], player: int,
             reach: np.ndarray, tol: float, found: list[Violation]) -> tuple[np.ndarray, int]:
    """One public state's betting: values V[own hand, other's hand] pulled up with both
    players' play as given, each decision of `player` checked on the way. Returns his
    value per own hand at the root (weighted by the other's reach there) and the count."""
    tree = model.tree(public)
    tc, to = public
    probs = {node.index: strategy.betting[(tc, to, node.history)] for node in tree.nodes}

    def step(node: Node, a: int, r: np.ndarray) -> np.ndarray:
        return r if node.actor == player else r * probs[node.index][a]

    other_at, _ = tree.push(reach, step)
    checked = [0]

    def combine(node: Node, children: list[np.ndarray]) -> np.ndarray:
        q = np.array(children)                          # (k, own hand, other's hand)
        p = probs[node.index]
        if node.actor != player:
            return np.einsum("kj,khj->hj", p, q)
        where = ("bet", (tc, to, node.history))
        belief = other_at[node.index]
        checked[0] += q.shape[1]
        if belief.sum() > 0:
            values = q @ (belief / belief.sum())        # (k, own hand)
            _record(found, "sequential", player, where, p, values.max(axis=0) - values, tol)
        else:
            _unjustified(found, player, where, p, q, tol)
        return np.einsum("kh,khj->hj", p, q)

    payoffs = leaf_payoffs(model, tree, player)
    root = tree.pull(payoffs, combine)[0]
    return root @ reach, checked[0]


def _throwing(model: HandModel, strategy: Strategy, player: int, context: int,
              stop: np.ndarray, tol: float, found: list[Violation]) -> int:
    """Backward induction over the throwing turn, later throws as the strategy plays them:
    each throwing decision's actions against the other's own strategy."""
    legal = model.throw_legal
    throw = strategy.throw[player][context]
    v = stop[-1]
    for t in range(model.throws - 2, -1, -1):
        q = np.array([stop[t] if a == 0 else model.transition[a] @ v
                      for a in range(legal.shape[0])])
        best = np.where(legal, q, -np.inf).max(axis=0)
        loss = np.where(legal, best - q, 0.0)           # chips, per unit of own reach
        _record(found, "sequential", player, ("throw", player, context, t), throw[t], loss,
                tol)
        v = np.where(legal, throw[t] * q, 0.0).sum(axis=0)
    return (model.throws - 1) * model.num_hands


def _record(found: list[Violation], kind: str, player: int, where: tuple, probs: np.ndarray,
            loss: np.ndarray, tol: float, other_reaches: bool = True) -> None:
    bad = (probs > PLAYED) & (loss > tol)
    for a, h in zip(*np.nonzero(bad)):
        found.append(Violation(kind, player, where, int(h), int(a), float(probs[a, h]),
                               float(loss[a, h]), other_reaches=other_reaches))


def _unjustified(found: list[Violation], player: int, where: tuple, probs: np.ndarray,
                 q: np.ndarray, tol: float) -> None:
    """Actions played at a decision the other's strategy never reaches that no belief
    about his hand makes a best reply: a played a needs a belief b (a distribution over
    his hands) with b . (Q[a] - Q[c]) >= 0 for every other action c."""
    k = q.shape[0]
    for h in range(q.shape[1]):
        for a in range(k):
            if probs[a, h] <= PLAYED:
                continue
            diff = np.array([q[a, h] - q[c, h] for c in range(k) if c != a])   # (k-1, n)
            margin = _best_margin(diff)
            if margin < -tol:
                found.append(Violation("belief", player, where, h, a, float(probs[a, h]),
                                       -margin, other_reaches=False))


def _best_margin(diff: np.ndarray) -> float:
    """max over beliefs b of min over rows of diff @ b (>= 0: some belief makes the action
    a best reply), exactly for one or two rows (decisions of two or three actions)."""
    if diff.shape[0] == 0:
        return 0.0
    if diff.shape[0] == 1:
        return float(diff[0].max())
    if diff.shape[0] != 2:
        raise NotImplementedError("decisions of more than three actions")
    u, w = diff                                      # a point per hand j: (u_j, w_j)
    best = float(np.minimum(u, w).max())             # a belief on one hand
    # on two hands i, j: the best mix of points (u_i, w_i), (u_j, w_j) where the two rows
    # cross: t u_i + (1 - t) u_j = t w_i + (1 - t) w_j
    d = u - w
    i, j = np.nonzero((d[:, None] > 0) & (d[None, :] < 0))
    if len(i):
        t = -d[j] / (d[i] - d[j])
        best = max(best, float((t * u[i] + (1 - t) * u[j]).max()))
    return best
