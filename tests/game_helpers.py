"""What the tests of the OpenSpiel games (python_bidou, python_bidou_round,
python_bidou_multi) share: a hand played from readable moves."""

from __future__ import annotations

from typing import Any, Iterable


def play(game: Any, moves: Iterable[str]) -> Any:
    """The state after `moves`: hands as "6-3-1" (chance), the rest by action name ("stop",
    "keep 6", "bet", "bet 2"); each must be possible where it is played."""
    state = game.new_initial_state()
    for move in moves:
        if state.is_chance_node():
            action = game.hand_action(move)
            assert action in [a for a, _ in state.chance_outcomes()], move
        else:
            action = game.action_id(move)
            assert action in state.legal_actions(), (move, str(state))
        state.apply_action(action)
    return state
