"""The compact model of one hand of two-hand Bidou, shared by every solver.

A player's payoff-relevant private state is only (throws so far, current hand): dice he
discarded never matter again and the opponent sees nothing but throw counts and bets. So
the throwing turn is a small decision process over (throw, hand), and the betting is one
small tree per public state (captain's throws, opponent's throws) with a row per hand.
docs/model.md explains why this loses nothing; the tests check it against the faithful
OpenSpiel game on small variants.

Payoffs and betting limits are inputs, so that the round solver can reuse the same model
with continuation values at the leaves. Probabilities and payoffs are kept as fractions
beside their float arrays so an exact certificate can rebuild the same numbers.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Union

import numpy as np

from games.bidou import rules
from games.bidou.params import BidouParams

CAPTAIN, OPPONENT = 0, 1
ROLE_NAMES = ("captain", "opponent")

# Throw actions: "stop", or the dice kept before throwing again (() rethrows all three).
ThrowAction = Union[str, tuple[int, ...]]
STOP = "stop"

PASS, BET, FOLD, CALL, RAISE = "pass", "bet", "fold", "call", "raise"


def throw_action_name(action: ThrowAction) -> str:
    """Readable name of a throw action, the same words as the OpenSpiel game."""
    if action == STOP:
        return "stop"
    if action == ():
        return "reroll"
    return "keep " + rules.format_hand(action)


@dataclasses.dataclass(frozen=True)
class Payoffs:
    """Payoffs to the captain at the leaves of the betting, by bet level (index 0 unused).

    The hand game pays chips (RULES.md section 3); the round solver passes continuation values.
    """

    showdown_win: tuple[Fraction, ...]
    showdown_lose: tuple[Fraction, ...]
    showdown_tie: tuple[Fraction, ...]
    captain_folds: tuple[Fraction, ...]
    opponent_folds: tuple[Fraction, ...]
    both_pass: Fraction

    @classmethod
    def chips(cls, max_level: int) -> "Payoffs":
        levels = range(max_level + 1)
        return cls(
            showdown_win=tuple(Fraction(2 * k) for k in levels),
            showdown_lose=tuple(Fraction(-2 * k) for k in levels),
            showdown_tie=tuple(Fraction(0) for _ in levels),
            captain_folds=tuple(Fraction(-1) for _ in levels),
            opponent_folds=tuple(Fraction(1) for _ in levels),
            both_pass=Fraction(0))

    def leaf_value(self, leaf: "BettingLeaf", outcome: int) -> Fraction:
        """The captain's payoff at `leaf`; `outcome` is compare(captain's hand, opponent's)."""
        if leaf.kind == "showdown":
            by_outcome = {1: self.showdown_win, -1: self.showdown_lose, 0: self.showdown_tie}
            return by_outcome[outcome][leaf.level]
        if leaf.kind == "fold":
            folds = self.captain_folds if leaf.folder == CAPTAIN else self.opponent_folds
            return folds[leaf.level]
        return self.both_pass


@dataclasses.dataclass(frozen=True)
class BettingNode:
    """A decision in the betting: `history` is the public actions so far, e.g. "pbr"."""

    history: str
    actor: int                 # CAPTAIN or OPPONENT
    actions: tuple[str, ...]
    level: int                 # standing bet level (0: none)


@dataclasses.dataclass(frozen=True)
class BettingLeaf:
    history: str
    kind: str                  # "showdown", "fold" or "pass"
    level: int                 # bet level called (showdown) or standing (fold)
    folder: int | None = None


@dataclasses.dataclass(frozen=True)
class BettingTree:
    """The betting of one public state; `first` bets first. Nodes in pre-order."""

    first: int
    nodes: tuple[BettingNode, ...]
    leaves: tuple[BettingLeaf, ...]

    def node(self, history: str) -> BettingNode:
        for n in self.nodes:
            if n.history == history:
                return n
        raise KeyError(history)

    def is_leaf(self, history: str) -> bool:
        return any(leaf.history == history for leaf in self.leaves)


def build_betting_tree(first: int, max_level: int,
                       raise_cap: tuple[int, int] | None = None) -> BettingTree:
    """One-chip-limit betting: pass/bet with no bet standing; fold/call/raise facing one.

    `raise_cap[p]` is the highest level player p may bet or raise to (default max_level);
    the round solver lowers it when a player cannot supply the chip.
    """
    cap = raise_cap or (max_level, max_level)
    nodes: list[BettingNode] = []
    leaves: list[BettingLeaf] = []

    def visit(history: str, actor: int, level: int) -> None:
        other = 1 - actor
        if level == 0:
            actions = [PASS] + ([BET] if cap[actor] >= 1 else [])
        else:
            actions = [FOLD, CALL] + ([RAISE] if level < min(max_level, cap[actor]) else [])
        nodes.append(BettingNode(history, actor, tuple(actions), level))
        for action in actions:
            child = history + action[0]
            if action == PASS:
                if history == "":
                    visit(child, other, 0)
                else:
                    leaves.append(BettingLeaf(child, "pass", 0))
            elif action in (BET, RAISE):
                visit(child, other, level + 1)
            elif action == CALL:
                leaves.append(BettingLeaf(child, "showdown", level))
            else:
                leaves.append(BettingLeaf(child, "fold", level, folder=actor))

    visit("", first, 0)
    return BettingTree(first, tuple(nodes), tuple(leaves))


def first_bettor(captain_throws: int, opponent_throws: int) -> int:
    """The captain bets first unless he made more throws than the opponent."""
    return CAPTAIN if captain_throws <= opponent_throws else OPPONENT


@dataclasses.dataclass(frozen=True)
class HandModel:
    """Everything a solver needs about one hand, as arrays over hands.

    Hands are indexed as `rules.all_hands(faces)`. `throw_actions` is the union of throw
    actions over hands; `throw_legal[a, h]` says which a hand may take; `transition[a, h]`
    is the distribution of the next hand after action a from hand h (zero for "stop");
    it depends on the dice kept only, so `outcome[a]` gives it once for all hands.
    """

    params: BidouParams
    payoffs: Payoffs
    hands: tuple[rules.Hand, ...]
    prior: np.ndarray                  # (n,) P(hand) of one throw of all dice
    prior_exact: tuple[Fraction, ...]
    strength: np.ndarray               # (n,) position in the ranking table, 0 = weakest
    exceptions: tuple[tuple[int, int], ...]   # (winner, loser) pairs overriding strength
    throw_actions: tuple[ThrowAction, ...]
    throw_legal: np.ndarray            # (A, n) bool
    transition: np.ndarray             # (A, n, n) float
    outcome: np.ndarray                # (A, n): the next hand after action a, any hand
    public_states: tuple[tuple[int, int], ...]   # (captain's throws, opponent's throws)
    trees: dict[int, BettingTree]      # by first bettor

    @property
    def num_hands(self) -> int:
        return len(self.hands)

    @property
    def throws(self) -> int:
        return self.params.throws

    def tree(self, public: tuple[int, int]) -> BettingTree:
        return self.trees[first_bettor(*public)]

    def compare_matrix(self) -> np.ndarray:
        """C[i, j] = compare(hand i, hand j), built from the rules (used by best responses)."""
        p = self.params
        return np.array([[rules.compare(a, b, p.ranking, p.aces_beat_bidou)
                          for b in self.hands] for a in self.hands], dtype=float)

    def exact_transition(self, action: ThrowAction, hand: int) -> dict[int, Fraction]:
        """The exact next-hand distribution behind `transition[a, hand]`."""
        if action == STOP:
            return {}
        dist = rules.next_hand_distribution(self.hands[hand], action, self.params.faces)
        index = {h: i for i, h in enumerate(self.hands)}
        return {index[h]: p for h, p in dist.items()}


def build_model(params: BidouParams, payoffs: Payoffs | None = None,
                raise_cap: tuple[int, int] | None = None) -> HandModel:
    """The compact model of one hand under `params` (chip payoffs unless given)."""
    payoffs = payoffs or Payoffs.chips(params.max_level)
    if len(payoffs.showdown_win) != params.max_level + 1:
        raise ValueError("payoffs must give a value for every bet level 0..max_level")
    hands = rules.all_hands(params.faces)
    index = {h: i for i, h in enumerate(hands)}
    n = len(hands)
    prior_exact = tuple(rules.hand_probability(h, params.faces) for h in hands)
    ranked = rules.ranked_hands(params.faces, params.ranking)
    strength = np.empty(n, dtype=np.int64)
    for position, hand in enumerate(reversed(ranked)):
        strength[index[hand]] = position
    exceptions = tuple(
        (index[w], index[l])
        for w, l in rules.exceptions(params.faces, params.ranking, params.aces_beat_bidou)
        if w in index and l in index)

    if params.reroll == "all":
        actions: list[ThrowAction] = [STOP, ()]
    else:
        kept = sorted({k for h in hands for k in rules.keep_options(h)},
                      key=lambda k: (len(k), tuple(-d for d in k)))
        actions = [STOP, *kept]
    legal = np.zeros((len(actions), n), dtype=bool)
    transition = np.zeros((len(actions), n, n))
    outcome = np.zeros((len(actions), n))
    legal[0, :] = True
    for a, action in enumerate(actions[1:], start=1):
        for h, p in rules.throw_distribution(action, params.faces).items():
            outcome[a, index[h]] = float(p)
        for i, hand in enumerate(hands):
            if action in rules.keep_options(hand):
                legal[a, i] = True
                for h, p in rules.next_hand_distribution(hand, action, params.faces).items():
                    transition[a, i, index[h]] = float(p)

    throws = params.throws
    public = tuple((tc, to) for tc in range(1, throws + 1) for to in range(1, throws + 1))
    trees = {first: build_betting_tree(first, params.max_level, raise_cap)
             for first in (CAPTAIN, OPPONENT)}
    return HandModel(
        params=params, payoffs=payoffs, hands=hands,
        prior=np.array([float(p) for p in prior_exact]), prior_exact=prior_exact,
        strength=strength, exceptions=exceptions, throw_actions=tuple(actions),
        throw_legal=legal, transition=transition, outcome=outcome, public_states=public,
        trees=trees)
