"""What the tests of the OpenSpiel games (python_bidou, python_bidou_round,
python_bidou_multi, python_bidu) share: a hand played from readable moves, and every
information state with what its player knows there."""

from __future__ import annotations

from typing import Any, Callable, Iterable


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


def information_sets(game: Any, stop: Callable[[Any], bool] = lambda state: False) -> dict:
    """For each (player, information state string): the legal actions there and the
    player's own past (his information states and actions before it), the same wherever
    it is met, over the whole tree (or up to the states where `stop` holds)."""
    found: dict = {}

    def walk(state: Any, pasts: list) -> None:
        if state.is_terminal() or stop(state):
            return
        if state.is_chance_node():
            for action, _ in state.chance_outcomes():
                walk(state.child(action), pasts)
            return
        player = state.current_player()
        key = (player, state.information_state_string(player))
        seen = (tuple(state.legal_actions()), pasts[player])
        assert found.setdefault(key, seen) == seen, key
        for action in state.legal_actions():
            after = list(pasts)
            after[player] = pasts[player] + ((key[1], action),)
            walk(state.child(action), after)

    walk(game.new_initial_state(), [()] * game.num_players())
    return found
