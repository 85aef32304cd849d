"""The whole multi-hand game simulated from the rules (docs/multi.md, "The whole game"): each
player starts with `chips` chips; hands are played until one player alone holds chips, and
he has lost. Each seat's chance to lose is estimated with its standard error.

Written from the rules, sharing nothing with the solver's public tree: dice are drawn from
`rules.hand_distribution`, the betting and the settling are `games/bidou_multi/betting.py`,
the hand strategies are read only through their public-history labels (the keys of the
strategy file), and the rules between hands (M18, M19 in docs/rules.md) are here:

- Players with no chips have left the game; a hand is played by those still holding chips,
  seated clockwise from the captain, each with his own store.
- M18, the next captain: "The winner of each round becomes captain of the next. If all
  players pass, the player to the left of the captain of that round becomes captain of the
  next." The winner of a hand is the player who got rid of the most chips in it (the largest
  payoff; on equal payoffs the first clockwise from the captain, captain included). If the
  new captain has no chips left, the next player clockwise who has becomes captain.
- M19, situation 8: two players left play on as a two-player hand under the same betting
  rules (the hand strategy for two players, `TwoLeftParams`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable, Optional, Protocol, Sequence

import numpy as np

from games.bidou import rules
from games.bidou_multi import betting
from games.bidou_multi.params import MultiParams
from solver.common.progress import Step, quiet

STOP = "stop"
MAX_HANDS = 10_000          # a game longer than this is counted as unfinished


class HandPolicy(Protocol):
    def probabilities(self, label: str, hand: int) -> tuple[list[str], np.ndarray]: ...


PolicyFor = Callable[[tuple[int, ...]], HandPolicy]     # stores (captain first) -> strategy


def _choose(rng: np.random.Generator, policy: HandPolicy, label: str, hand: int,
            legal: Optional[Sequence[str]] = None) -> str:
    names, probs = policy.probabilities(label, hand)
    if legal is not None and sorted(names) != sorted(legal):
        raise ValueError(f"the strategy at {label!r} has actions {names}, the rules {legal}")
    return names[int(rng.choice(len(names), p=probs / probs.sum()))]


def play_hand(rng: np.random.Generator, params: MultiParams, stores: tuple[int, ...],
              policy: HandPolicy) -> tuple[tuple[int, ...], betting.Table]:
    """One hand among len(stores) players, seat 0 the captain: each final store, and the
    closed table."""
    hands = rules.all_hands(params.faces)
    dist = rules.hand_distribution(params.faces)
    chance = np.array([float(dist[h]) for h in hands])
    n = len(stores)
    held: list[int] = []
    counts: list[int] = []
    label = ""
    for seat in range(n):
        count, hand = 1, int(rng.choice(len(hands), p=chance))
        while count < params.throws:
            if _choose(rng, policy, f"{label}t{seat}:{count}?", hand) == STOP:
                break
            count, hand = count + 1, int(rng.choice(len(hands), p=chance))
        label += f"t{seat}:{count} "
        held.append(hand)
        counts.append(count)
    table = betting.new_table(n, params.chips, counts, stores)
    label += "b:"
    while not table.closed():
        assert table.to_act is not None
        legal = betting.legal_actions(table, params.max_bet, params.max_raise)
        action = _choose(rng, policy, label, held[table.to_act], legal)
        table = betting.apply(table, action)
        label += f"{action},"

    def compare(a: int, b: int) -> int:
        return rules.compare(hands[held[a]], hands[held[b]], params.ranking,
                             params.aces_beat_bidou)
    return betting.settle(table, compare, params.poor_fish, params.discard), table


def next_captain(chips: Sequence[int], active: Sequence[int], table: betting.Table,
                 final: Sequence[int]) -> int:
    """M18: the hand's winner (or, if all passed, the captain's left-hand neighbour), moved on
    clockwise to the first player still holding chips."""
    if not table.opened:
        choice = active[1 % len(active)]
    else:
        gains = betting.payoffs(table, final)
        choice = active[max(range(len(active)), key=lambda k: (gains[k], -k))]
    n = len(chips)
    return next(((choice + k) % n for k in range(n) if chips[(choice + k) % n] > 0), choice)


def play_game(rng: np.random.Generator, params: MultiParams, policy_for: PolicyFor
              ) -> tuple[Optional[int], int]:
    """One whole game: (the seat that lost, None if nobody holds a chip at the end or the
    game was unfinished after MAX_HANDS hands; the number of hands)."""
    n = params.players
    chips = [params.chips] * n
    captain = 0
    for played in range(1, MAX_HANDS + 1):
        active = [(captain + k) % n for k in range(n) if chips[(captain + k) % n] > 0]
        stores = tuple(chips[s] for s in active)
        final, table = play_hand(rng, params, stores, policy_for(stores))
        for k, seat in enumerate(active):
            chips[seat] = final[k]
        holding = [s for s in range(n) if chips[s] > 0]
        if len(holding) <= 1:
            return (holding[0] if holding else None), played
        captain = next_captain(chips, active, table, final)
    return None, MAX_HANDS


@dataclasses.dataclass(frozen=True)
class GameEstimate:
    """Each seat's chance to lose (seat 0 the first captain) over `games` simulated games,
    with its standard error; `no_loser`: games that ended with nobody holding chips."""

    games: int
    losses: tuple[int, ...]
    no_loser: int
    mean_hands: float

    @property
    def chance(self) -> tuple[float, ...]:
        return tuple(k / self.games for k in self.losses)

    @property
    def standard_error(self) -> tuple[float, ...]:
        return tuple(math.sqrt(p * (1 - p) / self.games) for p in self.chance)


def simulate(params: MultiParams, policy_for: PolicyFor, games: int, seed: int = 0,
             progress: Step = quiet) -> GameEstimate:
    """`games` whole games from one seed (the same seed, the same games); `progress` told
    before each game."""
    rng = np.random.default_rng(seed)
    losses = [0] * params.players
    nobody = hands = 0
    for game in range(games):
        progress("whole games", game + 1, games)
        lost, played = play_game(rng, params, policy_for)
        hands += played
        if lost is None:
            nobody += 1
        else:
            losses[lost] += 1
    return GameEstimate(games=games, losses=tuple(losses), no_loser=nobody,
                        mean_hands=hands / games)
