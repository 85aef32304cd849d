"""The compact model of one hand of a two-player game of the family, shared by every solver.

A player's payoff-relevant private state is only (throws so far, current hand): dice he
discarded never matter again and the opponent sees nothing but throw counts and bets. So
the throwing turn is a small decision process over (throw, hand), and the betting is one
small tree per public state (captain's throws, opponent's throws) with a row per hand.
docs/model.md explains why this loses nothing; the tests check it against the faithful
OpenSpiel game on small variants.

The model is built from a game description (`games/family.py`: dice phase, ranking, betting
structure, settlement); nothing here knows which betting structure it is. The betting trees
are inputs (the description's betting structure builds them, with each leaf's payoff), so
that the round solver reuses the same model with supply-limited trees and continuation
values at the leaves. Probabilities and payoffs are kept as fractions beside their float
arrays so an exact certificate can rebuild the same numbers.
"""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction
from typing import Any, Callable, Hashable, Mapping, Sequence, TypeVar

import numpy as np

from games.bidou import rules
from games.bidou.betting import BettingTree, Role
from games.bidou.params import BidouParams
from games.catalog import GameParams, description_of, params_of, rules_of
from games.family import SEQUENTIAL, THROW_COUNTS, HandDescription


@dataclasses.dataclass(frozen=True)
class HandModel:
    """Everything a solver needs about one hand, as arrays over hands.

    Hands are indexed as `rules.all_hands(faces)`. `throw_actions` is the union of throw
    actions over hands; `throw_legal[a, h]` says which a hand may take; `transition[a, h]`
    is the distribution of the next hand after action a from hand h (zero for "stop");
    it depends on the dice kept only, so `outcome[a]` gives it once for all hands.
    """

    description: HandDescription
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

    @functools.cached_property
    def params(self) -> BidouParams:
        """The two-hand Bidou parameters of the description (ParameterError for another
        game of the family); many callers read it, so it is built once."""
        return self.description.params()

    @functools.cached_property
    def game_params(self) -> GameParams:
        """The parameters of whichever game of the family the description states (two-hand
        Bidou's or Le Bidou's; ParameterError for a description of neither)."""
        return params_of(self.description)

    @property
    def game_rules(self) -> dict:
        """The rules as files and summaries record them (games/catalog.py `rules_of`)."""
        return rules_of(self.game_params)

    @property
    def num_hands(self) -> int:
        return len(self.hands)

    @property
    def faces(self) -> int:
        return self.description.dice.faces

    @property
    def throws(self) -> int:
        return self.description.dice.throws

    def tree(self, public: tuple[int, int]) -> BettingTree:
        return self.trees[self.description.betting.first_bettor(*public)]

    def exact_transition(self, action: rules.ThrowAction, hand: int) -> dict[int, Fraction]:
        """The exact next-hand distribution behind `transition[a, hand]`."""
        if action == rules.STOP:
            return {}
        assert not isinstance(action, str)
        dist = rules.next_hand_distribution(self.hands[hand], action, self.faces)
        index = {h: i for i, h in enumerate(self.hands)}
        return {index[h]: p for h, p in dist.items()}


def build_model(game: GameParams | HandDescription,
                trees: dict[Role, BettingTree] | None = None) -> HandModel:
    """The compact model of one hand of `game` (two-hand Bidou's or Le Bidou's parameters,
    or any two-player description of the family): its betting structure's trees, paid by
    its settlement, unless `trees` (one per first bettor) are given."""
    description = description_of(game)
    _check_reducible(description)
    dice = description.dice
    if trees is None:
        trees = description.trees()
    needed = {description.betting.first_bettor(*public) for public in dice.public_states()}
    if not needed <= set(trees) or any(t.first != f for f, t in trees.items()):
        raise ValueError("a model needs one betting tree for each first bettor")
    hands = dice.hands()
    index = {h: i for i, h in enumerate(hands)}
    prior_exact = tuple(rules.hand_probability(h, dice.faces) for h in hands)
    strength, exceptions, compare = _showdowns(description, hands)
    actions = dice.throw_actions()
    legal, transition, outcome = _throw_arrays(dice.faces, hands, actions, index)
    return HandModel(
        description=description, hands=hands,
        prior=np.array([float(p) for p in prior_exact]), prior_exact=prior_exact,
        strength=strength, exceptions=exceptions, compare=compare, throw_actions=tuple(actions),
        throw_legal=legal, transition=transition, outcome=outcome,
        public_states=dice.public_states(), trees=dict(trees))


Lead = TypeVar("Lead", bound=Hashable)


def paid_by(base: HandModel, leads: Mapping[Role, Sequence[Sequence[Lead]]],
            value: Callable[[Lead], Any]) -> HandModel:
    """`base` with every leaf paying `value(where it leads)`, by showdown outcome
    (`leads[first][leaf]` in the order of `betting.OUTCOMES`), `value` asked once for each
    place: the stage games of a stochastic game over hands, built for every solve and every
    step of a proof, whose trees' shape does not depend on what their leaves pay. The
    payoffs are floats while solving, Fractions in a proof."""
    paid: dict[Lead, Any] = {}

    def pay(nxt: Lead) -> Any:
        if nxt not in paid:
            paid[nxt] = value(nxt)
        return paid[nxt]

    trees = {first: dataclasses.replace(tree, payoffs=tuple(
                 tuple(pay(nxt) for nxt in leaf) for leaf in leads[first]))
             for first, tree in base.trees.items()}
    return dataclasses.replace(base, trees=trees)


def _check_reducible(description: HandDescription) -> None:
    """The compact model is exact for two players who throw in turn, seeing only each
    other's throw counts (docs/model.md); other descriptions need the faithful game."""
    dice = description.dice
    if description.players != 2 or dice.order != SEQUENTIAL or dice.public != THROW_COUNTS:
        raise ValueError(
            f"the compact model needs two players throwing in turn with public throw counts, "
            f"got {description.players} players, order {dice.order}, public {dice.public!r}")


def _showdowns(description: HandDescription, hands: tuple[rules.Hand, ...]
               ) -> tuple[np.ndarray, tuple[tuple[int, int], ...], np.ndarray]:
    """The ranking as solvers read it: each hand's position in the order (0 = weakest),
    the (winner, loser) pairs overriding it, and the whole comparison matrix."""
    ranking, faces = description.ranking, description.dice.faces
    index = {h: i for i, h in enumerate(hands)}
    strength = np.empty(len(hands), dtype=np.int64)
    for position, hand in enumerate(reversed(ranking.ranked(faces))):
        strength[index[hand]] = position
    exceptions = tuple((index[w], index[l]) for w, l in ranking.exceptions(faces)
                       if w in index and l in index)
    compare = np.array([[ranking.compare(a, b) for b in hands] for a in hands], dtype=float)
    # Solvers read showdowns from the order (cumulative sums) plus the exceptions; the best
    # responses read `compare`. Both must say the same.
    ordered = np.sign(strength[:, None] - strength[None, :]).astype(float)
    for winner, loser in exceptions:
        ordered[winner, loser], ordered[loser, winner] = 1.0, -1.0
    if not np.array_equal(ordered, compare):
        raise ValueError("the ranking's order and exceptions disagree with rules.compare")
    return strength, exceptions, compare


def _throw_arrays(faces: int, hands: tuple[rules.Hand, ...],
                  actions: list[rules.ThrowAction], index: dict[rules.Hand, int]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which hand may take which throw action, and the next hand's distribution after it:
    from each hand (`transition`) and from any (`outcome`)."""
    n = len(hands)
    legal = np.zeros((len(actions), n), dtype=bool)
    transition = np.zeros((len(actions), n, n))
    outcome = np.zeros((len(actions), n))
    legal[0, :] = True
    for a, action in enumerate(actions[1:], start=1):
        assert not isinstance(action, str)          # only the first action stops
        for h, p in rules.throw_distribution(action, faces).items():
            outcome[a, index[h]] = float(p)
        for i, hand in enumerate(hands):
            if action in rules.keep_options(hand):
                legal[a, i] = True
                for h, p in rules.next_hand_distribution(hand, action, faces).items():
                    transition[a, i, index[h]] = float(p)
    return legal, transition, outcome
