"""An independent check that play is sensible everywhere, reached or not.

It shares no code with the LPs (solver/hand/lp/sequence_form.py, solver/hand/lp/perturbed.py) nor
with
solver/hand/best_response.py: only the model's data (hands, transitions, betting trees, leaf
payoffs, `compare`). Two tests, at every decision of both players and every hand:

- **Best response to trembles.** The other player's strategy is made to tremble (each
  action of each of his decisions gets at least `tremble`), and the player's action values
  are computed by backward induction, his own later play being the best response that
  trembles too (`(1 - k d) max + d sum`). An action played with positive probability whose
  value, per unit of the other player's reach there, is below the best by more than `tol`
  is a violation. Run at several tremble sizes: an equilibrium mixing on the path is off
  by O(tremble) at a positive size, a defect stays as the tremble shrinks.
- **Weak dominance in the betting.** With his own later play as the strategy says, action
  a is weakly dominated by b if, against every hand and every later play of the other
  player (chosen separately after a and after b: they are different histories), b does at
  least as well, and better against one. Any strategy playing a there is then weakly
  dominated.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT, BettingTree, Node
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy

PLAYED = 1e-9          # a probability above this is an action played
TOLERANCE = 1e-7       # chips (per unit of the other player's reach) an action may lose
TREMBLES = (1e-4, 1e-6, 1e-8)


@dataclasses.dataclass(frozen=True)
class Violation:
    """An action played where it should not be. `where`: ("throw", role, context, throw)
    or ("bet", (tc, to, history)); `loss` in chips per unit of reach; `kind` is
    "tremble" (loss against a trembling opponent of size `tremble`) or "dominated"
    (`loss`: the most it loses, against some hand and play, to `better`)."""

    kind: str
    player: int
    where: tuple
    hand: int
    action: int
    probability: float
    loss: float
    tremble: float = 0.0
    better: int = -1
    other_reaches: bool = True      # the other player's own strategy (no tremble) gets there


@dataclasses.dataclass(frozen=True)
class Report:
    """Every violation found, by test and tremble size; `persistent`: the tremble
    violations found at every tremble size (the defects), plus the dominated actions."""

    trembles: tuple[float, ...]
    by_tremble: dict[float, tuple[Violation, ...]]
    dominated: tuple[Violation, ...]

    @property
    def persistent(self) -> tuple[Violation, ...]:
        sizes = [{(v.player, v.where, v.hand, v.action) for v in self.by_tremble[t]}
                 for t in self.trembles]
        common = set.intersection(*sizes) if sizes else set()
        last = self.by_tremble[self.trembles[-1]] if self.trembles else ()
        kept = tuple(v for v in last if (v.player, v.where, v.hand, v.action) in common)
        return kept + self.dominated

    @property
    def passed(self) -> bool:
        return not self.persistent


def check(model: HandModel, strategy: Strategy, trembles: Sequence[float] = TREMBLES,
          tol: float = TOLERANCE) -> Report:
    """Both tests on both players' strategies."""
    by_tremble = {}
    for d in trembles:
        found: list[Violation] = []
        for player in (CAPTAIN, OPPONENT):
            found += tremble_violations(model, strategy, player, d, tol)
        by_tremble[d] = tuple(found)
    dominated = tuple(v for player in (CAPTAIN, OPPONENT)
                      for v in dominated_actions(model, strategy, player, tol))
    return Report(tuple(trembles), by_tremble, dominated)


# --- the other player's trembling play ----------------------------------------------------

def _shake(probs: np.ndarray, legal: np.ndarray, d: float) -> np.ndarray:
    """Every legal action at least d: (1 - k d) p + d on the k legal actions."""
    k = legal.sum(axis=0, keepdims=True)
    return np.where(legal, (1.0 - k * d) * probs + d, 0.0)


def ending_mass(model: HandModel, throw: np.ndarray, d: float) -> np.ndarray:
    """(T, n): mass (chance included) ending the turn at each throw with each hand, when
    throwing by `throw` (T-1, A, n) shaken by d."""
    T = model.throws
    mass = model.prior.astype(float).copy()
    ends = np.zeros((T, model.num_hands))
    for t in range(T - 1):
        p = _shake(throw[t], model.throw_legal, d)
        ends[t] = mass * p[0]
        moved = mass[None, :] * p
        mass = sum(moved[a] @ model.transition[a] for a in range(1, p.shape[0]))
    ends[T - 1] = mass
    return ends


def leaf_payoffs(model: HandModel, tree: BettingTree, player: int) -> list[np.ndarray]:
    """Per leaf, the player's payoff U[own hand, other's hand]."""
    out = []
    outcome = model.compare.astype(int) + 1          # -1, 0, 1 as indices 0, 1, 2
    for leaf in tree.leaves:
        # indexed, not np.vectorize'd (0.18 s of the refined command's 0.32 s check)
        captain = np.array([float(tree.payoff(leaf, o)) for o in (-1, 0, 1)])[outcome]
        out.append(captain if player == CAPTAIN else -captain.T)
    return out


# --- best response to trembles ------------------------------------------------------------

def tremble_violations(model: HandModel, strategy: Strategy, player: int, d: float,
                       tol: float = TOLERANCE) -> list[Violation]:
    """Actions `player` plays that lose more than `tol` against the other player trembling
    by d, his own later play being the trembling best response."""
    other = 1 - player
    T = model.throws
    found: list[Violation] = []
    contexts = strategy.throw[player].shape[0]
    stop = np.zeros((contexts, T, model.num_hands))
    other_ends = {size: [ending_mass(model, strategy.throw[other][c], size)
                         for c in range(strategy.throw[other].shape[0])] for size in (d, 0.0)}
    for tc, to in model.public_states:
        if player == CAPTAIN:          # the captain's turn has one context; he stopped at tc
            c, own_t, reach = 0, tc, {k: v[tc - 1][to - 1] for k, v in other_ends.items()}
        else:                          # the opponent's turn depends on tc; he stopped at to
            c, own_t, reach = tc - 1, to, {k: v[0][tc - 1] for k, v in other_ends.items()}
        stop[c, own_t - 1] += _betting(model, strategy, (tc, to), player, reach, d, tol,
                                       found)
    for c in range(contexts):
        _throwing(model, strategy, player, c, stop[c], d, tol, found)
    return found


def _betting(model: HandModel, strategy: Strategy, public: tuple[int, int], player: int,
             reach: dict[float, np.ndarray], d: float, tol: float, found: list[Violation]
             ) -> np.ndarray:
    """The player's value per own hand at the root of one public state's betting (per unit
    of his own reach), recording his violations on the way. `reach`: the other player's at
    the root, trembling by d, and by 0 (to tell where his own strategy goes)."""
    tree = model.tree(public)
    tc, to = public
    probs = {node.index: strategy.betting[(tc, to, node.history)] for node in tree.nodes}

    def stepper(size: float):
        def step(node: Node, a: int, r: np.ndarray) -> np.ndarray:
            if node.actor == player:
                return r
            p = probs[node.index]
            return r * _shake(p, np.ones(p.shape, bool), size)[a]
        return step

    at_node, at_leaf = tree.push(reach[d], stepper(d))
    on_path, _ = tree.push(reach[0.0], stepper(0.0))
    payoffs = leaf_payoffs(model, tree, player)
    leaf_values = [u @ r for u, r in zip(payoffs, at_leaf)]

    def combine(node: Node, children: list[np.ndarray]) -> np.ndarray:
        q = np.array(children)                      # (k, own hands)
        if node.actor != player:
            return q.sum(axis=0)
        weight = float(at_node[node.index].sum())
        loss = (q.max(axis=0) - q) / weight
        _record(found, "tremble", player, ("bet", (tc, to, node.history)),
                probs[node.index], loss, tol, d, bool(on_path[node.index].sum() > 0))
        return (1.0 - len(q) * d) * q.max(axis=0) + d * q.sum(axis=0)

    return tree.pull(leaf_values, combine)[0]


def _throwing(model: HandModel, strategy: Strategy, player: int, context: int,
              stop: np.ndarray, d: float, tol: float, found: list[Violation]) -> None:
    """Backward induction over the throwing turn from the value of stopping (T, n)."""
    legal = model.throw_legal
    v = stop[-1]
    for t in range(model.throws - 2, -1, -1):
        q = np.array([stop[t] if a == 0 else model.transition[a] @ v
                      for a in range(legal.shape[0])])
        best = np.where(legal, q, -np.inf).max(axis=0)
        loss = np.where(legal, best - q, 0.0)
        _record(found, "tremble", player, ("throw", player, context, t),
                strategy.throw[player][context, t], loss, tol, d)
        k = legal.sum(axis=0)
        v = (1.0 - k * d) * best + d * np.where(legal, q, 0.0).sum(axis=0)


def _record(found: list[Violation], kind: str, player: int, where: tuple,
            probs: np.ndarray, loss: np.ndarray, tol: float, d: float,
            other_reaches: bool = True) -> None:
    bad = (probs > PLAYED) & (loss > tol)
    for a, h in zip(*np.nonzero(bad)):
        found.append(Violation(kind, player, where, int(h), int(a), float(probs[a, h]),
                               float(loss[a, h]), tremble=d, other_reaches=other_reaches))


def describe(model: HandModel, violation: Violation) -> str:
    """One line for a person: who, where, which hand, what he plays and what it costs."""
    v = violation
    hand = rules.format_hand(model.hands[v.hand])
    if v.where[0] == "throw":
        _, _, context, throw = v.where
        names = [rules.throw_action_name(a) for a in model.throw_actions]
        place = f"throw {throw + 1}" + (f" (captain threw {context + 1})" if v.player else "")
    else:
        tc, to, history = v.where[1]
        names = [str(a) for a in model.tree((tc, to)).node(history).actions]
        place = f"C{tc} O{to} after {history or 'nothing'!r}"
    cost = (f"loses up to {v.loss:.3g} to {names[v.better]} (weakly dominated)"
            if v.kind == "dominated" else
            f"loses {v.loss:.3g} per unit of reach against trembles of {v.tremble:g}"
            + ("" if v.other_reaches else ", reached only by the other's trembles"))
    return (f"{('captain', 'opponent')[v.player]} at {place} with {hand}: "
            f"{names[v.action]} (p={v.probability:.3g}) {cost}")


# --- weak dominance in the betting --------------------------------------------------------

def dominated_actions(model: HandModel, strategy: Strategy, player: int,
                      tol: float = TOLERANCE) -> list[Violation]:
    """Betting actions the player plays that another action of the same decision weakly
    dominates (his own later play as `strategy` says)."""
    found: list[Violation] = []
    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        probs = {node.index: strategy.betting[(tc, to, node.history)] for node in tree.nodes}
        payoffs = leaf_payoffs(model, tree, player)

        def combine(node: Node, children: list[tuple[np.ndarray, np.ndarray]]
                    ) -> tuple[np.ndarray, np.ndarray]:
            lo = np.array([c[0] for c in children])     # (k, own hand, other's hand)
            hi = np.array([c[1] for c in children])
            if node.actor != player:
                return lo.min(axis=0), hi.max(axis=0)
            p = probs[node.index]
            for a in range(len(children)):
                for b in range(len(children)):
                    if a == b:
                        continue
                    never_worse = (lo[b] - hi[a]).min(axis=1) >= -tol
                    gap = (hi[b] - lo[a]).max(axis=1)
                    bad = never_worse & (gap > tol) & (p[a] > PLAYED)
                    for h in np.nonzero(bad)[0]:
                        found.append(Violation("dominated", player,
                                               ("bet", (tc, to, node.history)), int(h), a,
                                               float(p[a, h]), float(gap[h]), better=b))
            return (np.einsum("kh,khj->hj", p, lo), np.einsum("kh,khj->hj", p, hi))

        tree.pull([(u, u) for u in payoffs], combine)
    return found
