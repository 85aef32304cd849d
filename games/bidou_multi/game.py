"""Multi-hand Bidou (docs/rules.md, "Multi-hand Bidou") as an OpenSpiel game:
`python_bidou_multi`.

Importing this module registers it: `import games.bidou_multi.game`, then
`pyspiel.load_game("python_bidou_multi(players=3,faces=2,throws=1)")`. Parameters (defaults
from `MultiParams()`): players, chips, faces, throws, reroll, ranking, aces_beat_bidou,
max_bet, max_raise, poor_fish, discard; a bad value raises `ParameterError` (one line naming
the parameter) from `load_game`.

Players: seat 0 is the captain, seat 1 on his left, and so on clockwise. Sequential, explicit
stochastic chance, imperfect information, terminal rewards, perfect recall, **general-sum**:
a tie removes chips from the game (situation 6) under every rule set, so the payoffs of a
hand need not add up to zero (`MultiParams.zero_sum`).

Game flow
---------
1. Each seat in turn, the captain first, throws as in two-hand Bidou: up to `throws` throws,
   "stop" or throw again after each but the last ("reroll", or under reroll=keep "keep X").
   His dice stay hidden; his number of throws is public (M1, M2).
2. The betting (`games/bidou_multi/betting.py`), led by the player with the fewest throws
   nearest the captain (M3) and going clockwise: "pass", "bet 1".."bet 3", "call",
   "raise 1", "raise 2".
3. The returns: each player's chips received, negated (`betting.payoffs`).

Action ids: 0 "stop", 1 "reroll", then the keeps as in `python_bidou` (`games.dice_game.
all_keeps`), then the seven betting actions of `betting.ACTIONS`. Chance action ids are hand
indices in `rules.all_hands(faces)`.

Information state string of player p (perfect recall):
    "p<p> | t0:<seat 0's turn> | t1:... | b:<betting actions, comma-separated>"
a turn as in `python_bidou` (own hands and decisions; another's results "?" and decisions
"stop" or "again"). Observation string: "p<p> hand:<own hand> throws:<counts> b:<betting>".
"""

from __future__ import annotations

from typing import Any, Optional

import pyspiel

from games.bidou import rules
from games.bidou_multi import betting
from games.bidou_multi.params import MultiParams
from games.dice_game import (
    KEEP_BASE,
    REROLL_ID,
    STOP_ID,
    DiceGame,
    ObserverView,
    ThrowTables,
    game_type,
)

__all__ = ["MultiGame", "MultiState", "MultiObserver", "STOP_ID", "REROLL_ID"]

_GAME_TYPE = game_type("python_bidou_multi", "Python Multi-hand Bidou",
                       MultiParams().to_dict(), tensors=False,
                       players=(3, 4), zero_sum=False)


class _Tables(ThrowTables):
    """Lookup tables of one parameter set, shared by the game and all its states: the
    throwing turn's (games/dice_game.py), then the betting's."""

    params: MultiParams

    def __init__(self, params: MultiParams):
        super().__init__(params)
        self.name_actions(betting.ACTIONS)
        self.bet_base = KEEP_BASE + len(self.keeps)


def _max_bets(params: MultiParams) -> int:
    """Betting actions in a hand at most: each of them puts a chip in, or is a pass (once
    each before the bet, once each to drop out), so a hand has at most players*chips + 2*players."""
    return params.players * (params.chips + 2)


class MultiGame(DiceGame[MultiParams, _Tables]):
    """Multi-hand Bidou. `game.params` holds the `MultiParams`."""

    spiel_type, params_type, tables_type = _GAME_TYPE, MultiParams, _Tables

    @classmethod
    def game_info(cls, params: MultiParams, tables: _Tables) -> dict[str, Any]:
        n, chips = params.players, params.chips
        return dict(
            num_players=n,
            min_utility=float(chips - n * chips),
            max_utility=float(chips),
            utility_sum=None,
            max_game_length=n * (params.throws - 1) + _max_bets(params))

    def new_initial_state(self):
        return MultiState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return MultiObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


_THROW_CHANCE, _THROW_DECISION, _BETTING, _TERMINAL = range(4)


class MultiState(pyspiel.State):
    """A state of multi-hand Bidou; `hands`, `throw_counts`, `table` read it directly."""

    def __init__(self, game):
        super().__init__(game)
        self._t = game.tables
        n = self._t.params.players
        self._phase = _THROW_CHANCE
        self._thrower = 0
        self.hands: list[Optional[rules.Hand]] = [None] * n
        self.throw_counts = [0] * n
        self._kept: rules.Kept = ()
        self.turns: list[list] = [[] for _ in range(n)]
        self.bets: list[str] = []
        self.table: Optional[betting.Table] = None
        self._returns = [0.0] * n

    def __deepcopy__(self, memo):
        other = MultiState.__new__(MultiState)
        pyspiel.State.__init__(other, self.get_game())
        other._t, other._phase, other._thrower = self._t, self._phase, self._thrower
        other.hands, other.throw_counts = list(self.hands), list(self.throw_counts)
        other._kept, other.turns = self._kept, [list(t) for t in self.turns]
        other.bets, other.table, other._returns = list(self.bets), self.table, list(
            self._returns)
        return other

    def current_player(self):
        if self._phase == _TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if self._phase == _THROW_CHANCE:
            return pyspiel.PlayerId.CHANCE
        if self._phase == _THROW_DECISION:
            return self._thrower
        assert self.table is not None and self.table.to_act is not None
        return self.table.to_act

    def _legal_actions(self, player):
        t = self._t
        if player != self.current_player():
            return []
        if self._phase == _THROW_DECISION:
            return t.legal_throws(self.hands[player])
        assert self.table is not None
        legal = betting.legal_actions(self.table, t.params.max_bet, t.params.max_raise)
        return sorted(t.action_ids[a] for a in legal)

    def chance_outcomes(self):
        assert self._phase == _THROW_CHANCE
        return list(self._t.outcomes(self.hands[self._thrower], self._kept))

    def _apply_action(self, action):
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
            kept = t.record_decision(action, self._thrower, self.turns)
            if kept is None:
                self._end_turn()
            else:
                self._kept, self._phase = kept, _THROW_CHANCE
            return
        assert self.table is not None
        name = t.action_names[action]
        self.bets.append(name)
        self.table = betting.apply(self.table, name)
        if self.table.closed():
            p = t.params
            stores = betting.settle(self.table, t.compare(self.hands), p.poor_fish, p.discard)
            self._returns = [float(x) for x in betting.payoffs(self.table, stores)]
            self._phase = _TERMINAL

    def _end_turn(self):
        p = self._t.params
        self._kept = ()
        if self._thrower + 1 < p.players:
            self._thrower += 1
            self._phase = _THROW_CHANCE
            return
        self.table = betting.new_table(p.players, p.chips, self.throw_counts)
        self._phase = _BETTING

    def _action_to_string(self, player, action):
        return self._t.action_string(player, action)

    def is_terminal(self):
        return self._phase == _TERMINAL

    def returns(self):
        return list(self._returns)

    def turn_string(self, owner: int, viewer: Optional[int]) -> str:
        """Seat `owner`'s turn as seen by `viewer` (None: everything shown)."""
        return self._t.turn_string(self.turns[owner], self._t.action_names,
                                   viewer in (None, owner))

    def __str__(self):
        turns = " | ".join(f"t{s}:{self.turn_string(s, None)}"
                           for s in range(self._t.params.players))
        return f"{turns} | b:{','.join(self.bets)}"


class MultiObserver(ObserverView):
    """Strings only (the game provides no tensors): perfect recall gives the information
    state string, otherwise the observation string (see the module docstring). Every
    string shows the public part, whatever `public_info` says."""

    def __init__(self, iig_obs_type, params):
        super().__init__(iig_obs_type, params)
        self.tensor = None
        self.dict: dict = {}

    def set_from(self, state, player):
        pass

    def string_from(self, state: MultiState, player: int) -> str:
        n = len(state.hands)
        if self.recall:
            turns = " | ".join(f"t{s}:{state.turn_string(s, s if self.sees(player, s) else -1)}"
                               for s in range(n))
            return f"p{player} | {turns} | b:{','.join(state.bets)}"
        hand = state.hands[player]
        shown = rules.format_hand(hand) if hand is not None and self.single else "-"
        counts = ",".join(str(c) for c in state.throw_counts)
        return f"p{player} hand:{shown} throws:{counts} b:{','.join(state.bets)}"


pyspiel.register_game(_GAME_TYPE, MultiGame)
