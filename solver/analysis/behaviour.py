"""What equilibrium play looks like: how hands end, how often players stop, bluff.

Pure functions of a model and a strategy pair. Everything is computed from the joint
probability of reaching each betting node and leaf with each pair of hands, which is the
product of the two players' own reaches (solver/hand/reach.py) and the public state's: the
players' private chances are independent, and each player's reach depends only on his
own hand.

Bluff, precisely. At a bet or raise to level L, the bettor's *range* is the distribution
of his hand given that he makes it (his reach at the node times the action's probability).
The responder's *indifference point* is the weakest hand (lowest in the ranking table) for
which calling — a showdown at level L against that range — is worth at least folding;
the option to raise is left out, so this is the hand with which a caller stops folding.
When no hand would call, the indifference point is above every hand. A bet or raise is a
*bluff* when the bettor's hand loses a showdown to the indifference hand (every bet, when
no hand would call).
"""

from __future__ import annotations

import dataclasses
from typing import Iterator

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT, Action, BettingTree, Node
from games.bidou.betting import Leaf as BettingLeaf
from games.bidou.rules import STOP
from solver.hand.model import HandModel
from solver.hand.reach import end_mass
from solver.hand.strategy import Strategy


@dataclasses.dataclass(frozen=True)
class Outcomes:
    """How hands end under a strategy pair, per hand played."""

    passed: float              # both passed: no chips move
    folded: float
    showdown: float
    value: float               # chips to the captain (the on-policy value)
    chips_moved: float         # E|payoff|: chips that change hands
    captain_throws: float      # E[throws] of each player
    opponent_throws: float
    by_public: dict[tuple[int, int], float]   # P(captain's throws, opponent's throws)

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out["by_public"] = {f"{tc},{to}": p for (tc, to), p in self.by_public.items()}
        return out


def turn_ends(model: HandModel, strategy: Strategy) -> tuple[np.ndarray, np.ndarray]:
    """(captain (T, n), opponent (T, T, n)): P(ending the turn at throw t+1 with hand h),
    the opponent's indexed by the captain's throws minus one."""
    captain = end_mass(model, strategy.throw[CAPTAIN][0])
    opponent = np.stack([end_mass(model, strategy.throw[OPPONENT][c])
                         for c in range(model.throws)])
    return captain, opponent


def walk(model: HandModel, strategy: Strategy) -> Iterator[tuple]:
    """Every betting node and leaf of every public state with both players' reach vectors:
    ("node", public, node, captain reach, opponent reach) and ("leaf", public, leaf, ...).
    The captain's reach includes his chance, the opponent's his own given the captain's
    throws; their outer product is the joint probability."""
    captain_ends, opponent_ends = turn_ends(model, strategy)
    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        start = [captain_ends[tc - 1], opponent_ends[tc - 1, to - 1]]

        def step(node: Node, a: int, reach: tuple, tc=tc, to=to) -> tuple:
            child = list(reach)
            child[node.actor] = reach[node.actor] * strategy.betting[(tc, to, node.history)][a]
            return child[0], child[1]

        at_node, at_leaf = tree.push((start[0], start[1]), step)
        for node, (rc, ro) in zip(tree.nodes, at_node):
            yield ("node", (tc, to), node, rc, ro)
        for leaf, (rc, ro) in zip(tree.leaves, at_leaf):
            yield ("leaf", (tc, to), leaf, rc, ro)


def leaf_payoffs(model: HandModel, tree: BettingTree, leaf: BettingLeaf) -> np.ndarray:
    """U[i, j]: the captain's payoff at `leaf` with captain hand i and opponent hand j."""
    compare = model.compare.astype(int)
    values = np.array([float(tree.payoff(leaf, o)) for o in (-1, 0, 1)])
    return values[compare + 1]


def outcomes(model: HandModel, strategy: Strategy) -> Outcomes:
    """How often hands end in a pass, a fold or a showdown; chips moved; throws made."""
    kinds = {"pass": 0.0, "fold": 0.0, "showdown": 0.0}
    value = moved = 0.0
    by_public: dict[tuple[int, int], float] = {}
    for kind, public, item, rc, ro in walk(model, strategy):
        joint = np.outer(rc, ro)
        if kind == "node":
            if item.history == "":
                by_public[public] = float(joint.sum())
            continue
        u = leaf_payoffs(model, model.tree(public), item)
        kinds[item.kind] += float(joint.sum())
        value += float((joint * u).sum())
        moved += float((joint * np.abs(u)).sum())
    return Outcomes(passed=kinds["pass"], folded=kinds["fold"], showdown=kinds["showdown"],
                    value=value, chips_moved=moved,
                    captain_throws=sum(tc * p for (tc, _), p in by_public.items()),
                    opponent_throws=sum(to * p for (_, to), p in by_public.items()),
                    by_public=by_public)


def stop_table(model: HandModel, strategy: Strategy) -> list[dict]:
    """For each player, context (captain's throws, for the opponent) and throw before the
    last: P(stop | hand) for every hand, and the probability of stopping there at all."""
    from solver.hand.reach import throw_flow

    rows = []
    for role in (CAPTAIN, OPPONENT):
        for c, context in enumerate(strategy.throw[role]):
            before, _ = throw_flow(model, context)
            for t in range(model.throws - 1):
                stop = context[t][model.throw_actions.index(STOP)]
                rows.append({"player": ("captain", "opponent")[role],
                             "captain_throws": None if role == CAPTAIN else c + 1,
                             "throw": t + 1, "stop": stop.copy(),
                             "reach": before[t].copy(),
                             "stop_overall": float(before[t] @ stop)})
    return rows


@dataclasses.dataclass(frozen=True)
class Bluffs:
    """Bets and raises, and the part of them that are bluffs (module docstring), per hand
    played; keyed by (player, "bet" or "raise")."""

    bets: dict[tuple[str, str], float]
    bluffs: dict[tuple[str, str], float]

    def frequency(self, player: str | None = None, action: str | None = None) -> float:
        """Bluffs as a fraction of the bets and raises selected (0 if there are none)."""
        keys = [k for k in self.bets if (player in (None, k[0])) and (action in (None, k[1]))]
        total = sum(self.bets[k] for k in keys)
        return sum(self.bluffs[k] for k in keys) / total if total > 0 else 0.0

    def to_dict(self) -> dict:
        return {f"{p} {a}": {"per_hand": self.bets[(p, a)], "bluffs_per_hand":
                             self.bluffs[(p, a)], "bluff_share": self.frequency(p, a)}
                for p, a in sorted(self.bets)}


def indifference_hand(model: HandModel, tree: BettingTree, facing: Node,
                      bettor_range: np.ndarray) -> int | None:
    """The weakest hand with which the player to act at `facing` (a bet or raise to call)
    calls at least as well as he folds, against `bettor_range` (unnormalized); None if no
    hand should call."""
    called, folded = tree.child(facing, Action.CALL), tree.child(facing, Action.FOLD)
    assert isinstance(called, BettingLeaf) and isinstance(folded, BettingLeaf), \
        "a call and a fold end the betting"
    return indifference_between(model, tree, facing.actor, called, folded, bettor_range)


def indifference_between(model: HandModel, tree: BettingTree, responder: int,
                         called: BettingLeaf, folded: BettingLeaf, bettor_range: np.ndarray
                         ) -> int | None:
    """The weakest hand with which `responder` does at least as well at the showdown
    `called` as at the fold (a withdrawal, in Le Bidou) `folded`, against `bettor_range`
    (unnormalized); None if no hand should call. Any betting structure's leaves."""
    compare = model.compare                           # [captain hand, opponent hand]
    showdown = np.array([float(tree.payoff(called, o)) for o in (-1, 0, 1)])
    weights = bettor_range / bettor_range.sum()
    if responder == CAPTAIN:
        call = showdown[compare.astype(int) + 1] @ weights          # by captain hand
        fold = float(tree.payoff(folded, 0))
    else:
        call = -(weights @ showdown[compare.astype(int) + 1])       # by opponent hand
        fold = -float(tree.payoff(folded, 0))
    callers = [h for h in np.argsort(model.strength) if call[h] >= fold - 1e-12]
    return int(callers[0]) if callers else None


def bluffs(model: HandModel, strategy: Strategy) -> Bluffs:
    """Bet and raise frequencies per hand played, and how many of them are bluffs."""
    compare = model.compare
    bets = {(p, a): 0.0 for p in ("captain", "opponent") for a in ("bet", "raise")}
    bluff = dict(bets)
    for kind, (tc, to), node, rc, ro in walk(model, strategy):
        if kind != "node":
            continue
        reach = (rc, ro)
        mine, theirs = reach[node.actor], reach[1 - node.actor]
        probs = strategy.betting[(tc, to, node.history)]
        for i, action in enumerate(node.actions):
            if action not in (Action.BET, Action.RAISE):
                continue
            bettor_range = mine * probs[i]
            mass = bettor_range * theirs.sum()               # P(this bet, with hand h)
            if mass.sum() <= 0:
                continue
            key = (("captain", "opponent")[node.actor], action)
            bets[key] += float(mass.sum())
            tree = model.tree((tc, to))
            facing = tree.child(node, action)
            assert isinstance(facing, Node), "a bet or a raise is answered"
            r = indifference_hand(model, tree, facing, bettor_range)
            if r is None:
                loses = np.ones(model.num_hands, dtype=bool)
            elif node.actor == CAPTAIN:
                loses = compare[:, r] < 0
            else:
                loses = compare[r, :] > 0
            bluff[key] += float(mass[loses].sum())
    return Bluffs(bets, bluff)
