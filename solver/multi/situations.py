"""The hand strategies a whole game needs (docs/multi.md, "The whole game"): one solved hand
for every chip situation that occurs.

Later in a game the stores differ (6, 6, 6 becomes 4, 9, 5, then one player is out). The
hand's legal bets, who can go all in and what a call costs all depend on the stores, so a
six-chip strategy with its bets capped would be a strategy for another game, with no
certificate for the one played. Instead every distinct situation (the stores of the players
still holding chips, the captain first) is solved on its own, the first time a simulated
game reaches it, by the same CFR+ and best response as `bidou multi`, and its certified
epsilon is kept. Two players left (situation 8) play on under the multi-hand betting rules
with two players (`TwoLeftParams`, rule M19).

The strategies are myopic: each hand is played to get rid of the most chips in that hand,
not to lower the chance of losing the game (the game-level stochastic game, as the two-hand
round is solved in solver/round/, is not done for three players).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from games.bidou_multi.params import MultiParams, TwoLeftParams
from solver.multi import best_response, cfr, kernel
from solver.multi.tree import PublicTree, build_tree

Stores = tuple[int, ...]


class HandStrategy:
    """One solved hand's strategy by public history (the tree's node labels, the keys of the
    strategy file): `probabilities(label, hand)` gives the actions there and the chance of
    each for that hand (an index into `rules.all_hands(faces)`)."""

    def __init__(self, tree: PublicTree, sigma: np.ndarray):
        self.by_label: dict[str, tuple[list[str], np.ndarray]] = {}
        ends = list(tree.edge_starts[1:]) + [tree.num_edges]
        for start, end in zip(tree.edge_starts, ends):
            label = tree.node_label[int(tree.edge_parent[start])]
            self.by_label[label] = (tree.edge_name[start:end], sigma[start:end].copy())

    def probabilities(self, label: str, hand: int) -> tuple[list[str], np.ndarray]:
        names, probs = self.by_label[label]
        return names, probs[:, hand]


@dataclasses.dataclass
class Solved:
    strategy: HandStrategy
    epsilon: float
    values: tuple[float, ...]


def hand_params(params: MultiParams, players: int) -> MultiParams:
    """The rules of a hand among `players` of the game's players (2: situation 8)."""
    fields = {**params.to_dict(), "players": players}
    return TwoLeftParams.from_mapping(fields) if players == 2 else MultiParams.from_mapping(
        fields)


class Situations:
    """Solved hands by stores, each solved once with `iterations` CFR+ iterations; each
    one's certificate by numpy's best response whatever the engine."""

    def __init__(self, params: MultiParams, iterations: int, engine: str = "numpy"):
        self.params = params
        self.iterations = iterations
        self.engine = engine                  # "c": the iterations in solver/multi/kernel.py
        self.solved: dict[Stores, Solved] = {}
        self.used: dict[Stores, int] = {}

    def strategy(self, stores: Stores) -> HandStrategy:
        if stores not in self.solved:
            self.solved[stores] = self._solve(stores)
        self.used[stores] = self.used.get(stores, 0) + 1
        return self.solved[stores].strategy

    def _solve(self, stores: Stores) -> Solved:
        tree = build_tree(hand_params(self.params, len(stores)), stores)
        state = cfr.CFRState.start(tree)
        if self.engine == "c":
            kernel.Kernel(tree).iterate(state, self.iterations)
        else:
            cfr.iterate(tree, state, self.iterations)
        sigma = cfr.average_strategy(tree, state)
        measured = best_response.gains(tree, sigma)
        return Solved(HandStrategy(tree, sigma), measured.epsilon, measured.values)

    def worst_epsilon(self) -> float:
        """The largest certified epsilon among the situations solved."""
        return max((s.epsilon for s in self.solved.values()), default=0.0)
