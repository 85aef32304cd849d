"""One round of Montevideo (docs/rules.md section 8) as an OpenSpiel game: `python_montevideo`.

Importing this module registers it: `import games.montevideo.game`, then
`pyspiel.load_game("python_montevideo(players=3,faces=2,throws=1,chips=3)")`. Parameters
(defaults from `MontevideoParams()`): players, chips, stacks ("equal" or "8/4/6"), faces,
throws, ante, ranking, bet_sizes ("any" or a set such as "1/2/pot/all"); lists are written
with "/" since a game string separates its parameters with commas. A bad value raises
`ParameterError` (one line naming the parameter) from `load_game`.

Players: seat 0 is the captain, seat 1 on his left, and so on clockwise. Sequential,
explicit stochastic chance, imperfect information, terminal rewards, perfect recall,
zero-sum (every chip put in goes out to a winner, in whole chips).

Game flow
---------
1. The antes (V4): each player puts `ante` chips in the pot, all he has if he holds fewer.
2. The throws (V5, V6), as in multi-hand Bidou: each seat in turn, the captain first, throws
   up to `throws` times, "stop" or "reroll" (all three dice) after each but the last. His
   dice stay hidden; his number of throws is public.
3. The betting (`games/montevideo/betting.py`), led by the player with the fewest throws
   nearest the captain (V7) and going clockwise: "check", "fold", "call", "bet 1" .. "bet T",
   "raise to 2" .. "raise to T" (T the most any player can bet, `betting.max_level`);
   `bet_sizes` restricts which amounts are legal.
4. The returns (`betting.settle`): each player's net chips for the round, the main pot and
   the side pots each to the highest hand among its players still in.

Action ids: the throwing turn's ids of the family (games/dice_game.py: 0 "stop", 1 "reroll",
then the keeps, which exist but are never legal), then `betting.actions(T)`. Chance action
ids are hand indices in `rules.all_hands(faces)`.

Information state string of player p (perfect recall):
    "p<p> | t0:<seat 0's turn> | t1:... | b:<bets, comma-separated>"
a turn as in `python_bidou_multi` (his own hands and decisions; another's hands "?" and his
decisions "stop" or "again", so every throw count is public). Everybody's chips and the
ante are the game's parameters, known to all. Observation string (no recall):
    "p<p> hand:<own current hand or -> throws:<counts> b:<bets>".
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pyspiel

from games.bidou import rules
from games.dice_game import (
    REROLL_ID,
    STOP_ID,
    DiceGame,
    ObserverView,
    ThrowTables,
    game_type,
)
from games.montevideo import betting
from games.montevideo.params import MontevideoParams

__all__ = ["MontevideoGame", "MontevideoState", "MontevideoObserver", "STOP_ID", "REROLL_ID"]

_GAME_TYPE = game_type("python_montevideo", "Python Montevideo (one round)",
                       MontevideoParams().to_dict(), tensors=False,
                       players=(2, 4), zero_sum=True)


class _Tables(ThrowTables):
    """Lookup tables of one parameter set, shared by the game and all its states: the
    throwing turn's (games/dice_game.py), then the betting's."""

    params: MontevideoParams

    def __init__(self, params: MontevideoParams):
        super().__init__(params)
        self.stacks = params.start_stacks
        self.sizes = params.sizes
        self.top = betting.max_level(self.stacks, params.ante)
        self.name_actions(betting.actions(self.top))


class MontevideoGame(DiceGame[MontevideoParams, _Tables]):
    """One round of Montevideo. `game.params` holds the `MontevideoParams`."""

    spiel_type, params_type, tables_type = _GAME_TYPE, MontevideoParams, _Tables

    @classmethod
    def game_info(cls, params: MontevideoParams, tables: _Tables) -> dict[str, Any]:
        stacks = tables.stacks
        # A player wins at most, from each other player, what he himself put at risk, and
        # loses at most what another can match: the second largest stack.
        most = max(sum(min(other, own) for j, other in enumerate(stacks) if j != i)
                   for i, own in enumerate(stacks))
        return dict(num_players=params.players, min_utility=-float(sorted(stacks)[-2]),
                    max_utility=float(most), utility_sum=0.0,
                    max_game_length=params.players * (params.throws - 1)
                    + betting.max_betting_actions(params.players, tables.top))

    def new_initial_state(self) -> "MontevideoState":
        return MontevideoState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None
                         ) -> "MontevideoObserver":
        return MontevideoObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


_THROW_CHANCE, _THROW_DECISION, _BETTING, _TERMINAL = range(4)


class MontevideoState(pyspiel.State):
    """A state of one round; `hands`, `throw_counts`, `betting` read it directly."""

    def __init__(self, game: MontevideoGame):
        super().__init__(game)
        self._t = game.tables
        n = self._t.params.players
        self._phase = _THROW_CHANCE
        self._thrower = 0
        self.hands: list[Optional[rules.Hand]] = [None] * n
        self.throw_counts = [0] * n
        self.turns: list[list] = [[] for _ in range(n)]
        self.bets: list[str] = []
        self.betting: Optional[betting.Betting] = None
        self._returns: tuple[int, ...] = (0,) * n

    def __deepcopy__(self, memo: dict) -> "MontevideoState":
        other = type(self).__new__(type(self))
        pyspiel.State.__init__(other, self.get_game())
        other.__dict__.update(self.__dict__)
        other.hands, other.throw_counts = list(self.hands), list(self.throw_counts)
        other.turns, other.bets = [list(t) for t in self.turns], list(self.bets)
        return other

    def current_player(self) -> int:
        if self._phase == _TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if self._phase == _THROW_CHANCE:
            return pyspiel.PlayerId.CHANCE
        if self._phase == _THROW_DECISION:
            return self._thrower
        assert self.betting is not None and self.betting.to_act is not None
        return self.betting.to_act

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player():
            return []
        if self._phase == _THROW_DECISION:
            return self._t.legal_throws(self.hands[player])
        assert self.betting is not None
        legal = betting.legal_actions(self.betting, self._t.sizes)
        return sorted(self._t.action_ids[a] for a in legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self._phase == _THROW_CHANCE
        return list(self._t.outcomes(None, ()))

    def _apply_action(self, action: int) -> None:
        t = self._t
        if self._phase == _THROW_CHANCE:
            if t.record_throw(action, self._thrower, self.hands, self.throw_counts, self.turns):
                self._end_turn()
            else:
                self._phase = _THROW_DECISION
            return
        if action not in self._legal_actions(self.current_player()):
            raise ValueError(f"illegal action {action} for player {self.current_player()}")
        if self._phase == _THROW_DECISION:
            if t.record_decision(action, self._thrower, self.turns) is None:
                self._end_turn()
            else:
                self._phase = _THROW_CHANCE
            return
        assert self.betting is not None
        name = t.action_names[action]
        self.bets.append(name)
        self.betting = betting.apply(self.betting, name, t.sizes)
        self._close_if_done()

    def _end_turn(self) -> None:
        """V5: the next seat clockwise throws his turn; after the last, the betting."""
        p = self._t.params
        if self._thrower + 1 < p.players:
            self._thrower += 1
            self._phase = _THROW_CHANCE
            return
        self.betting = betting.new_betting(self._t.stacks, p.ante, self.throw_counts)
        self._phase = _BETTING
        self._close_if_done()

    def _close_if_done(self) -> None:
        assert self.betting is not None
        if self.betting.closed():
            self._returns = betting.settle(self.betting, self._t.compare(self.hands))
            self._phase = _TERMINAL

    def _action_to_string(self, player: int, action: int) -> str:
        return self._t.action_string(player, action)

    def is_terminal(self) -> bool:
        return self._phase == _TERMINAL

    def returns(self) -> list[float]:
        return [float(r) for r in self._returns]

    def net_chips(self) -> tuple[int, ...]:
        """The returns as whole numbers of chips (zero everywhere before the end)."""
        return self._returns

    def turn_string(self, owner: int, visible: bool) -> str:
        """Seat `owner`'s turn, his dice shown or not."""
        return self._t.turn_string(self.turns[owner], self._t.action_names, visible)

    def __str__(self) -> str:
        turns = " | ".join(f"t{s}:{self.turn_string(s, True)}" for s in range(len(self.hands)))
        return f"{turns} | b:{','.join(self.bets)}"


class MontevideoObserver(ObserverView):
    """Strings only (the game provides no tensors): perfect recall gives the information
    state string, otherwise the observation string (see the module docstring). Every
    string shows the public part, whatever `public_info` says."""

    def __init__(self, iig_obs_type: Any, params: Any):
        super().__init__(iig_obs_type, params)
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: MontevideoState, player: int) -> None:
        pass

    def string_from(self, state: MontevideoState, player: int) -> str:
        n = len(state.hands)
        bets = f"b:{','.join(state.bets)}"
        if self.recall:
            turns = " | ".join(f"t{s}:{state.turn_string(s, self.sees(player, s))}"
                               for s in range(n))
            return f"p{player} | {turns} | {bets}"
        hand = state.hands[player]
        shown = rules.format_hand(hand) if hand is not None and self.single else "-"
        counts = ",".join(str(c) for c in state.throw_counts)
        return f"p{player} hand:{shown} throws:{counts} {bets}"


pyspiel.register_game(_GAME_TYPE, MontevideoGame)
