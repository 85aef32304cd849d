"""Monte Carlo simulation of whole rounds (docs/rules.md section 4), written from the rules.

An independent check of the round solver: it shares no code with it (only the rules layer,
`games.bidou.rules`, for comparing hands and listing keeps). Dice are thrown with a seeded
numpy Generator; chips move between the centre and the piles exactly as the rules say; the
players' choices come from two policies following the `RoundPolicy` protocol. The result is
the first captain's win rate with its standard error and how long rounds last.

Conventions passed to the policies:
- `chips` is (centre, captain's pile, opponent's pile) in a hand, and (centre, low pile,
  high pile) in an open throw, where "low" is the player with one chip or none who throws
  first and "high" the player holding `chips - 1`. Chips are those at the start of the stage.
- A throw action is "stop" or the tuple of dice kept before throwing again (`()` = all three;
  under reroll="all" that is the only way to throw again).
- Betting actions are "pass", "bet", "fold", "call", "raise"; `legal` lists those allowed
  (supply and `max_level` checked). A policy is asked only when there is a choice.
A policy returns a mapping {action: probability} over legal actions (missing actions have
probability 0; the probabilities must add up to 1).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable, Mapping, Optional, Protocol, Sequence, TypeVar, Union

import numpy as np

from games.bidou import rules
from games.bidou.round_params import RoundParams

Hand = rules.Hand
Action = Union[str, rules.Kept]
Chips = tuple[int, int, int]
Choice = TypeVar("Choice")          # a betting action, or a throw action
# Its own action and role names on purpose (not the solver's, nor games.bidou.rules.STOP):
# the simulator is the independent Monte Carlo check and shares no code with the solver.
STOP = "stop"
CAPTAIN, OPPONENT, LOW, HIGH = "captain", "opponent", "low", "high"


class RoundPolicy(Protocol):
    """A player's (possibly mixed) behaviour in every decision of a round."""

    def throw(self, chips: Chips, role: str, throws: int, hand: Hand,
              captain_throws: Optional[int]) -> Mapping[Action, float]:
        """After his `throws`-th throw of a hand, holding `hand`: stop or throw again.
        role: "captain" or "opponent"; captain_throws: the captain's count (None for him)."""

    def bet(self, chips: Chips, role: str, captain_throws: int, opponent_throws: int,
            history: tuple[str, ...], hand: Hand,
            legal: tuple[str, ...]) -> Mapping[str, float]:
        """A betting decision, after the betting actions `history` of this hand."""

    def open_throw(self, chips: Chips, role: str, throws: int, hand: Hand,
                   low_hand: Optional[Hand]) -> Mapping[Action, float]:
        """After his `throws`-th open throw: stop or throw again. role: "low" or "high";
        low_hand: the low player's final hand, which the high player sees (None for low)."""


class UniformPolicy:
    """Every legal action with equal probability: a deliberately weak baseline."""

    def __init__(self, params: RoundParams) -> None:
        self._reroll = params.hand.reroll

    def _throw(self, hand: Hand) -> dict[Action, float]:
        options: list[Action] = [STOP, *_again_options(self._reroll, hand)]
        return {a: 1 / len(options) for a in options}

    def throw(self, chips: Chips, role: str, throws: int, hand: Hand,
              captain_throws: Optional[int]) -> Mapping[Action, float]:
        return self._throw(hand)

    def bet(self, chips: Chips, role: str, captain_throws: int, opponent_throws: int,
            history: tuple[str, ...], hand: Hand,
            legal: tuple[str, ...]) -> Mapping[str, float]:
        return {a: 1 / len(legal) for a in legal}

    def open_throw(self, chips: Chips, role: str, throws: int, hand: Hand,
                   low_hand: Optional[Hand]) -> Mapping[Action, float]:
        return self._throw(hand)


@dataclasses.dataclass(frozen=True)
class SimulationResult:
    """Rounds played by policies[0] (the first captain, player 0) against policies[1].

    win_rate: player 0's share of rounds won, an unfinished round (cut at `max_stages`)
    counting one half; standard_error: of that mean. Stages are hands with betting plus
    open-throw attempts (each replay after a tie is one).
    """

    rounds: int
    wins: tuple[int, int]
    unfinished: int
    win_rate: float
    standard_error: float
    mean_hands: float
    mean_open_throws: float
    mean_stages: float
    longest: int


@dataclasses.dataclass(frozen=True)
class RoundRecord:
    """One simulated round: the winner (None if cut at the stage limit), and its length."""

    winner: Optional[int]
    hands: int
    open_throws: int


def simulate_rounds(params: RoundParams, policies: Sequence[RoundPolicy], rounds: int,
                    rng: np.random.Generator, *, start: Optional[Chips] = None,
                    max_stages: int = 100_000) -> SimulationResult:
    """Play `rounds` rounds; player 0 (policies[0]) captains the first hand.

    start: (centre, player 0's pile, player 1's pile), all chips in the centre by default.
    """
    if rounds < 2:
        raise ValueError(f"rounds must be at least 2, got {rounds}")
    records = [play_round(params, policies, rng, start=start, max_stages=max_stages)
               for _ in range(rounds)]
    scores = np.array([1.0 if r.winner == 0 else 0.0 if r.winner == 1 else 0.5
                       for r in records])
    stages = np.array([r.hands + r.open_throws for r in records])
    return SimulationResult(
        rounds=rounds,
        wins=(sum(r.winner == 0 for r in records), sum(r.winner == 1 for r in records)),
        unfinished=sum(r.winner is None for r in records),
        win_rate=float(scores.mean()),
        standard_error=float(scores.std(ddof=1) / math.sqrt(rounds)),
        mean_hands=float(np.mean([r.hands for r in records])),
        mean_open_throws=float(np.mean([r.open_throws for r in records])),
        mean_stages=float(stages.mean()),
        longest=int(stages.max()))


def play_round(params: RoundParams, policies: Sequence[RoundPolicy], rng: np.random.Generator,
               *, start: Optional[Chips] = None, max_stages: int = 100_000) -> RoundRecord:
    """One round from `start` (see `simulate_rounds`), player 0 captain of the first hand."""
    n = params.chips
    centre, p0, p1 = start if start is not None else (n, 0, 0)
    if min(centre, p0, p1) < 0 or centre + p0 + p1 != n or max(p0, p1) == n:
        raise ValueError(f"start must be a round in play with {n} chips, got {start}")
    table = _Table(params, rng, policies, centre, [p0, p1])
    captain = 0
    hands = open_throws = 0
    while True:
        for player in (0, 1):
            if table.piles[player] == n:
                return RoundRecord(1 - player, hands, open_throws)
        if hands + open_throws >= max_stages:
            return RoundRecord(None, hands, open_throws)
        if n - 1 in table.piles:
            open_throws += 1
            high = table.piles.index(n - 1)
            outcome = table.open_throw(1 - high)
            if outcome > 0:                 # the high player is beaten: he takes the last chip
                return RoundRecord(1 - high, hands, open_throws)
            if outcome < 0:                 # the low player takes one chip from him
                table.piles[high] -= 1
                table.piles[1 - high] += 1
                captain = high
            continue                        # a tie: the open throw is played again
        hands += 1
        captain = table.hand(captain)


class _Table:
    """The chips and dice of one round, and the moves of one hand or open throw."""

    def __init__(self, params: RoundParams, rng: np.random.Generator,
                 policies: Sequence[RoundPolicy], centre: int, piles: list[int]) -> None:
        self.hand_rules = params.hand
        self.rng = rng
        self.policies = policies
        self.centre = centre
        self.piles = piles

    # --- dice ---------------------------------------------------------------------------

    def _roll(self, kept: rules.Kept) -> Hand:
        dice = self.rng.integers(1, self.hand_rules.faces + 1, size=3 - len(kept))
        return rules.normalize_hand(tuple(kept) + tuple(int(d) for d in dice))

    def _choose(self, probabilities: Mapping[Choice, float], legal: Sequence[Choice]
                ) -> Choice:
        total = 0.0
        for action, p in probabilities.items():
            if p < 0 or (p > 0 and action not in legal):
                raise ValueError(f"policy gave probability {p} to {action!r}; legal: {legal}")
            total += p
        if abs(total - 1) > 1e-9:
            raise ValueError(f"policy probabilities add up to {total}, not 1")
        u = self.rng.random() * total
        for action in legal:
            u -= probabilities.get(action, 0.0)
            if u < 0:
                return action
        return max(legal, key=lambda a: probabilities.get(a, 0.0))

    def _turn(self, decide: Callable[[int, Hand], Mapping[Action, float]]
              ) -> tuple[Hand, int]:
        """A throwing turn: the hand kept and the number of throws made."""
        hand, throws = self._roll(()), 1
        while throws < self.hand_rules.throws:
            legal: list[Action] = [STOP, *_again_options(self.hand_rules.reroll, hand)]
            action = self._choose(decide(throws, hand), legal)
            if not isinstance(action, tuple):   # STOP; any other action is the dice kept
                break
            hand, throws = self._roll(action), throws + 1
        return hand, throws

    def _compare(self, a: Hand, b: Hand) -> int:
        return rules.compare(a, b, self.hand_rules.ranking, self.hand_rules.aces_beat_bidou)

    # --- open throw ---------------------------------------------------------------------

    def open_throw(self, low: int) -> int:
        """One open-throw attempt: +1 if the low player's hand wins, -1 if it loses, 0 tie."""
        high = 1 - low
        chips = (self.centre, self.piles[low], self.piles[high])
        low_hand, _ = self._turn(lambda t, h: self.policies[low].open_throw(
            chips, LOW, t, h, None))
        high_hand, _ = self._turn(lambda t, h: self.policies[high].open_throw(
            chips, HIGH, t, h, low_hand))
        return self._compare(low_hand, high_hand)

    # --- a hand with betting ------------------------------------------------------------

    def hand(self, captain: int) -> int:
        """Play one hand, move the chips; returns the next hand's captain."""
        opponent = 1 - captain
        chips = (self.centre, self.piles[captain], self.piles[opponent])
        hands, counts = {}, {}
        hands[captain], counts[captain] = self._turn(lambda t, h: self.policies[captain].throw(
            chips, CAPTAIN, t, h, None))
        hands[opponent], counts[opponent] = self._turn(
            lambda t, h: self.policies[opponent].throw(chips, OPPONENT, t, h, counts[captain]))
        actor = captain if counts[captain] <= counts[opponent] else opponent
        roles = {captain: CAPTAIN, opponent: OPPONENT}
        from_centre = {0: 0, 1: 0}      # chips each player has put in, and from where
        from_pile = {0: 0, 1: 0}
        level = 0
        history: list[str] = []

        def can_supply(player: int, count: int) -> bool:
            """`player` can put in `count` chips and his opponent then one for a call."""
            centre_left = self.centre - from_centre[0] - from_centre[1]
            if centre_left + self.piles[player] - from_pile[player] < count:
                return False
            other = 1 - player
            return max(0, centre_left - count) + self.piles[other] - from_pile[other] >= 1

        def put(player: int, count: int) -> None:
            for _ in range(count):
                if self.centre - from_centre[0] - from_centre[1] > 0:
                    from_centre[player] += 1
                else:
                    from_pile[player] += 1

        while True:
            other = 1 - actor
            legal: tuple[str, ...]
            if level == 0:
                legal = ("pass", "bet") if can_supply(actor, 1) else ("pass",)
            elif level < self.hand_rules.max_level and can_supply(actor, 2):
                legal = ("fold", "call", "raise")
            else:
                legal = ("fold", "call")
            if len(legal) == 1:
                action = legal[0]
            else:
                action = self._choose(self.policies[actor].bet(
                    chips, roles[actor], counts[captain], counts[opponent], tuple(history),
                    hands[actor], legal), legal)
            history.append(action)
            if action == "pass":
                if len(history) == 2:
                    return opponent                      # two passes: nothing moves
            elif action == "bet":
                put(actor, 1)
                level = 1
            elif action == "raise":
                put(actor, 2)
                level += 1
            elif action == "fold":
                # The chips bet go back; the folder takes a penalty chip from the centre,
                # or from his opponent's pile when the centre is empty.
                if self.centre > 0:
                    self.centre -= 1
                else:
                    self.piles[other] -= 1
                self.piles[actor] += 1
                return other
            else:                                       # call: showdown
                put(actor, 1)
                result = self._compare(hands[captain], hands[opponent])
                if result == 0:
                    return opponent                      # tie: every chip goes back
                winner = captain if result > 0 else opponent
                self.centre -= from_centre[0] + from_centre[1]
                for player in (0, 1):
                    self.piles[player] -= from_pile[player]
                self.piles[1 - winner] += 2 * level
                return winner
            actor = other


def _again_options(reroll: str, hand: Hand) -> tuple[rules.Kept, ...]:
    return rules.keep_options(hand) if reroll == "keep" else ((),)
