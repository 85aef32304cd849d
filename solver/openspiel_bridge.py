"""Between the compact model and the faithful OpenSpiel game `python_bidou`.

A compact strategy conditions on (throws so far, current hand) and the public betting; the
faithful game's information states carry the whole dice history. Playing the compact
strategy in the faithful game means reading, at each information state, only the part the
compact strategy conditions on. Only small variants can be enumerated this way.
"""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

import games.bidou  # noqa: F401  (registers python_bidou)
from games.bidou.params import BidouParams
from solver.model import CAPTAIN, HandModel, build_model, throw_action_name
from solver.strategy import Strategy

BETTING_ACTIONS = ("pass", "bet", "fold", "call", "raise")


def load_game(params: BidouParams) -> pyspiel.Game:
    return pyspiel.load_game(params.to_game_string())


def to_openspiel_policy(game: pyspiel.Game, strategy: Strategy,
                        model: HandModel | None = None) -> policy_lib.TabularPolicy:
    """The compact strategy as a TabularPolicy of the faithful game (small variants only)."""
    model = model or build_model(game.params)
    tabular = policy_lib.TabularPolicy(game)
    hand_index = {h: i for i, h in enumerate(model.hands)}
    throw_index = {throw_action_name(a): i for i, a in enumerate(model.throw_actions)}
    for row, state in enumerate(tabular.states):
        player = state.current_player()
        legal = state.legal_actions()
        names = [state.action_to_string(player, a) for a in legal]
        hand = hand_index[tuple(state.hands[player])]
        counts = state.throw_counts
        if names[0] in BETTING_ACTIONS:
            history = "".join(name[0] for name in state.betting)
            node = model.tree(tuple(counts)).node(history)
            probs = strategy.betting[(counts[0], counts[1], history)][:, hand]
            by_name = dict(zip(node.actions, probs))
        else:
            context = 0 if player == CAPTAIN else counts[0] - 1
            decision = strategy.throw[player][context, counts[player] - 1]
            by_name = {name: decision[throw_index[name], hand] for name in names}
        probs = np.array([by_name[name] for name in names])
        tabular.action_probability_array[row, :] = 0.0
        tabular.action_probability_array[row, legal] = probs / probs.sum()
    return tabular
