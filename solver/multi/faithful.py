"""The solver's strategies played in the faithful OpenSpiel game `python_bidou_multi`, and
OpenSpiel's own measures of them (its best response and NashConv), for the cross-check of
docs/multi.md on small variants. The faithful game remembers every discarded hand; the
strategies ignore them, which under reroll=all loses nothing (`solver/multi/tree.py`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from solver.multi.tree import AGAIN, STOP, PublicTree

# The faithful game is walked whole by OpenSpiel's Python best response; above this many
# histories that takes minutes (measured: 6e3 histories, 1 s), so the cross-check refuses.
MAX_HISTORIES = 200_000


def public_label(state: Any) -> str:
    """The public tree's label of an OpenSpiel state at a decision (`tree.node_label`)."""
    game = state.get_game()
    throws = game.params.throws
    player = state.current_player()
    done = [f"t{s}:{state.throw_counts[s]} " for s in range(game.params.players)
            if state.turns[s] and (s < player or state.table is not None
                                   or state.throw_counts[s] == throws)]
    if state.table is None:
        return "".join(done) + f"t{player}:{state.throw_counts[player]}?"
    return "".join(done) + "b:" + "".join(f"{a}," for a in state.bets)


class TreePolicy:
    """An OpenSpiel policy (duck-typed: `action_probabilities(state, player_id)`) playing a
    strategy `sigma[e, h]` of the public tree in the faithful game."""

    def __init__(self, game: Any, tree: PublicTree, sigma: np.ndarray):
        from open_spiel.python import policy

        self._policy = policy.Policy(game, list(range(game.num_players())))
        self.game, self.player_ids = game, self._policy.player_ids
        self.tree, self.sigma = tree, sigma
        self.nodes = {label: n for n, label in enumerate(tree.node_label)
                      if tree.node_player[n] >= 0}
        ends = list(tree.edge_starts[1:]) + [tree.num_edges]
        self.edges = {int(tree.edge_parent[s]): range(int(s), int(e))
                      for s, e in zip(tree.edge_starts, ends)}
        self.action_of = [game.action_id({STOP: "stop", AGAIN: "reroll"}.get(name, name))
                          for name in tree.edge_name]
        self.hand_index = {h: i for i, h in enumerate(tree.hands)}

    def action_probabilities(self, state: Any, player_id: Any = None) -> dict[int, float]:
        node = self.nodes[public_label(state)]
        player = state.current_player()
        hand = self.hand_index[state.hands[player]]
        return {self.action_of[e]: float(self.sigma[e, hand]) for e in self.edges[node]}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._policy, name)


def openspiel_gains(game: Any, tree: PublicTree, sigma: np.ndarray) -> tuple[np.ndarray,
                                                                              np.ndarray]:
    """(values, gains) by OpenSpiel: each seat's on-policy value and its best response's
    improvement (`exploitability.nash_conv`'s player_improvements), on the faithful game."""
    from open_spiel.python.algorithms import expected_game_score, exploitability

    policy = TreePolicy(game, tree, sigma)
    result = exploitability.nash_conv(game, policy, return_only_nash_conv=False)
    values = expected_game_score.policy_value(game.new_initial_state(), [policy] *
                                              game.num_players())
    return np.asarray(values), np.asarray(result.player_improvements)
