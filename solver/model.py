"""The compact model of one hand of two-hand Bidou, shared by every solver.

A player's payoff-relevant private state is only (throws so far, current hand): dice he
discarded never matter again and the opponent sees nothing but throw counts and bets. So
the throwing turn is a small decision process over (throw, hand), and the betting is one
small tree per public state (captain's throws, opponent's throws) with a row per hand.
docs/model.md explains why this loses nothing; the tests check it against the faithful
OpenSpiel game on small variants.

The betting trees are inputs (`games/bidou/betting.py` builds them, with each leaf's payoff),
so that the round solver reuses the same model with supply-limited trees and continuation
values at the leaves. Probabilities and payoffs are kept as fractions beside their float
arrays so an exact certificate can rebuild the same numbers.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT, BettingTree, Role, build_tree, first_bettor
from games.bidou.params import BidouParams


@dataclasses.dataclass(frozen=True)
class HandModel:
    """Everything a solver needs about one hand, as arrays over hands.

    Hands are indexed as `rules.all_hands(faces)`. `throw_actions` is the union of throw
    actions over hands; `throw_legal[a, h]` says which a hand may take; `transition[a, h]`
    is the distribution of the next hand after action a from hand h (zero for "stop");
    it depends on the dice kept only, so `outcome[a]` gives it once for all hands.
    """

    params: BidouParams
    hands: tuple[rules.Hand, ...]
    prior: np.ndarray                  # (n,) P(hand) of one throw of all dice
    prior_exact: tuple[Fraction, ...]
    strength: np.ndarray               # (n,) position in the ranking table, 0 = weakest
    exceptions: tuple[tuple[int, int], ...]   # (winner, loser) pairs overriding strength
    compare: np.ndarray                # (n, n) rules.compare(hand i, hand j): -1, 0, 1
    throw_actions: tuple[rules.ThrowAction, ...]
    throw_legal: np.ndarray            # (A, n) bool
    transition: np.ndarray             # (A, n, n) float
    outcome: np.ndarray                # (A, n): the next hand after action a, any hand
    public_states: tuple[tuple[int, int], ...]   # (captain's throws, opponent's throws)
    trees: dict[Role, BettingTree]     # by first bettor, each leaf with its payoff

    @property
    def num_hands(self) -> int:
        return len(self.hands)

    @property
    def throws(self) -> int:
        return self.params.throws

    def tree(self, public: tuple[int, int]) -> BettingTree:
        return self.trees[first_bettor(*public)]

    def exact_transition(self, action: rules.ThrowAction, hand: int) -> dict[int, Fraction]:
        """The exact next-hand distribution behind `transition[a, hand]`."""
        if action == rules.STOP:
            return {}
        dist = rules.next_hand_distribution(self.hands[hand], action, self.params.faces)
        index = {h: i for i, h in enumerate(self.hands)}
        return {index[h]: p for h, p in dist.items()}


def build_model(params: BidouParams,
                trees: dict[Role, BettingTree] | None = None) -> HandModel:
    """The compact model of one hand under `params`: the hand game's betting and chip
    payoffs unless `trees` (one per first bettor) are given."""
    if trees is None:
        trees = {first: build_tree(first, params.max_level) for first in (CAPTAIN, OPPONENT)}
    if sorted(trees) != [CAPTAIN, OPPONENT] or any(t.first != f for f, t in trees.items()):
        raise ValueError("a model needs one betting tree for each first bettor")
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
    compare = np.array([[rules.compare(a, b, params.ranking, params.aces_beat_bidou)
                         for b in hands] for a in hands], dtype=float)
    # Solvers read showdowns from the order (cumulative sums) plus the exceptions; the best
    # responses read `compare`. Both must say the same.
    ordered = np.sign(strength[:, None] - strength[None, :]).astype(float)
    for winner, loser in exceptions:
        ordered[winner, loser], ordered[loser, winner] = 1.0, -1.0
    if not np.array_equal(ordered, compare):
        raise ValueError("the ranking's order and exceptions disagree with rules.compare")

    if params.reroll == "all":
        actions: list[rules.ThrowAction] = [rules.STOP, ()]
    else:
        kept = sorted({k for h in hands for k in rules.keep_options(h)},
                      key=lambda k: (len(k), tuple(-d for d in k)))
        actions = [rules.STOP, *kept]
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
    return HandModel(
        params=params, hands=hands,
        prior=np.array([float(p) for p in prior_exact]), prior_exact=prior_exact,
        strength=strength, exceptions=exceptions, compare=compare, throw_actions=tuple(actions),
        throw_legal=legal, transition=transition, outcome=outcome, public_states=public,
        trees=dict(trees))
