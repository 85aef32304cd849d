"""One vuelta of Bidú (docs/rules.md section 7) as an OpenSpiel game: `python_bidu`.

Importing this module registers it: `import games.bidu.game`, then
`pyspiel.load_game("python_bidu(players=3,faces=2,throws=2,stack=2)")`. Parameters
(defaults from `BiduParams()`): players, faces, throws, ante, stack, ranking, throwing
("together" or "captain-first"), replay_value (a fraction as text, "3/7"); a bad value
raises `ParameterError` (one line naming the parameter) from `load_game`.

Players: seat 0 is the captain, seat 1 on his left, and so on clockwise. Sequential,
explicit stochastic chance, imperfect information, terminal rewards, perfect recall,
zero-sum (the pot is shared out whole; a tie's shares are fractions, given as floats;
`BiduState.exact_returns` gives them exactly).

Game flow
---------
1. The dice, with `throwing="together"` (the default; B5, B6): everyone throws at once.
   Throw 1: chance gives each seat's hand, seat 0 first. After each throw but the last
   allowed, every player still throwing chooses "stop" (stand) or "reroll" (throw all three
   dice again), seat order. The choices of one throw are simultaneous (B6): each player's
   information state shows only the choices of earlier throws, so a player who chooses
   after another does not see that other's choice of the same throw. Once all have chosen,
   the choices are announced: who stood at this throw is public. Chance then gives a new
   hand to each player who threw again; at the last allowed throw they stand.
2. The dice, with `throwing="captain-first"` (not a rule of the text: a variant to measure
   B5 against, as in Bidou): each seat in turn, the captain first, throws his whole turn
   alone: throw 1, then "stop" or "reroll" after each throw but the last allowed, which he
   keeps. His stand throw is announced as soon as he stands, so every later seat throws
   knowing at which throw each earlier one stood, never their dice.
3. The betting (`games/bidu/betting.py`), from the earliest stander (the captain, or the
   first clockwise from him, on a tie) clockwise: "pass", "call", "bet 1" .. "bet S",
   "raise to 2" .. "raise to S" (S = stack).
4. The returns (`betting.settle`): each player's net chips for the vuelta. When nobody bets
   the vuelta ends as a **replay** terminal (B12): `BiduState.replay` true, returns
   `replay_value` to the captain and its opposite to the other player (0 for everyone by
   default); the rules play the vuelta again with the same pot, so its true worth is the
   value of the vuelta itself, a fixed point: `solver.bidu.vuelta` finds the worth x at
   which this game's value is x. With the default a strategy's expected returns in this
   game are that value times P(no replay).

Why sequential moves and not simultaneous-move nodes: OpenSpiel's CFR, sequence-form LP and
exploitability (open_spiel/python/algorithms) accept sequential games only; hiding the other
players' choice of the same throw in the information states gives the same game (no player
learns anything between his choice and the announcement) with perfect recall.

Action ids: the throwing turn's ids of the family (games/dice_game.py: 0 "stop", 1
"reroll", then the keeps, which exist but are never legal: every throw rethrows all three
dice), then `betting.actions(stack)`. Chance action ids are hand indices in
`rules.all_hands(faces)`.

Information state string of player p (perfect recall):
    "p<p> | own:<his turn> | stood:<each seat's stand throw, - if not announced> | b:<bets>"
his turn as in `python_bidou` (hands and decisions: "6-3-1,reroll,5-5-2,stop"), the bets
comma-separated. Observation string (no recall):
    "p<p> hand:<own current hand or -> throw:<current throw> stood:<...> b:<bets>".
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional

import numpy as np
import pyspiel

from games.bidou import rules
from games.bidu import betting
from games.bidu.params import CAPTAIN_FIRST, BiduParams
from games.dice_game import (
    REROLL_ID,
    STOP_ID,
    DiceGame,
    ObserverView,
    ThrowTables,
    game_type,
)

__all__ = ["BiduGame", "BiduState", "BiduObserver", "STOP_ID", "REROLL_ID"]

_GAME_TYPE = game_type("python_bidu", "Python Bidú (one vuelta)",
                       BiduParams().to_dict(), tensors=False,
                       players=(2, 4), zero_sum=True)


class _Tables(ThrowTables):
    """Lookup tables of one parameter set, shared by the game and all its states: the
    throwing turn's (games/dice_game.py), then the betting's."""

    params: BiduParams

    def __init__(self, params: BiduParams):
        super().__init__(params)
        self.name_actions(betting.actions(params.stack))


def max_betting_actions(players: int, stack: int) -> int:
    """Betting actions in a vuelta at most: the passes before the first bet, then at each of
    at most `stack` bet levels the bettor and everyone else's answer."""
    return (players - 1) + stack * players


class BiduGame(DiceGame[BiduParams, _Tables]):
    """One vuelta of Bidú. `game.params` holds the `BiduParams`."""

    spiel_type, params_type, tables_type = _GAME_TYPE, BiduParams, _Tables

    @classmethod
    def game_info(cls, params: BiduParams, tables: _Tables) -> dict[str, Any]:
        n, risk = params.players, params.ante + params.stack
        worth = float(abs(params.replay_worth))
        return dict(num_players=n, min_utility=-max(float(risk), worth),
                    max_utility=max(float((n - 1) * risk), worth),
                    utility_sum=0.0,
                    max_game_length=n * (params.throws - 1)
                    + max_betting_actions(n, params.stack))

    def new_initial_state(self) -> "BiduState":
        return BiduState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None
                         ) -> "BiduObserver":
        return BiduObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


_THROW, _CHOOSE, _BETTING, _TERMINAL = range(4)


class BiduState(pyspiel.State):
    """A state of one vuelta; `hands`, `stands`, `throw`, `betting` read it directly."""

    def __init__(self, game: BiduGame):
        super().__init__(game)
        self._t = game.tables
        n = self._t.params.players
        self._phase = _THROW
        self.throw = 1                   # the throw being made or chosen after (seats throwing)
        # Seats throwing at the same time: all of them, or one at a time, the captain first.
        together = self._t.params.throwing != CAPTAIN_FIRST
        groups = [tuple(range(n))] if together else [(s,) for s in range(n)]
        self._group, self._waiting = groups[0], groups[1:]
        self._queue: list[int] = list(self._group)       # seats still to throw (chance)
        self._deciders: list[int] = []                   # seats still to choose this throw
        self._chosen: dict[int, int] = {}                # this throw's choices, unannounced
        self.hands: list[Optional[rules.Hand]] = [None] * n
        self.counts = [0] * n
        self.turns: list[list] = [[] for _ in range(n)]
        self.stands: list[Optional[int]] = [None] * n   # announced stand throws (public)
        self.bets: list[str] = []
        self.betting: Optional[betting.Betting] = None
        self._returns: tuple[Fraction, ...] = (Fraction(0),) * n

    def __deepcopy__(self, memo: dict) -> "BiduState":
        other = BiduState.__new__(BiduState)
        pyspiel.State.__init__(other, self.get_game())
        other.__dict__.update(self.__dict__)
        other._queue, other._deciders = list(self._queue), list(self._deciders)
        other._waiting = list(self._waiting)
        other._chosen, other.hands = dict(self._chosen), list(self.hands)
        other.counts, other.turns = list(self.counts), [list(t) for t in self.turns]
        other.stands, other.bets = list(self.stands), list(self.bets)
        return other

    def current_player(self) -> int:
        if self._phase == _TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if self._phase == _THROW:
            return pyspiel.PlayerId.CHANCE
        if self._phase == _CHOOSE:
            return self._deciders[0]
        assert self.betting is not None and self.betting.to_act is not None
        return self.betting.to_act

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player():
            return []
        if self._phase == _CHOOSE:
            return [STOP_ID, REROLL_ID]
        assert self.betting is not None
        return sorted(self._t.action_ids[a] for a in betting.legal_actions(self.betting))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self._phase == _THROW
        return list(self._t.outcomes(None, ()))

    def _apply_action(self, action: int) -> None:
        if self._phase == _THROW:
            self._throw(action)
        elif self._phase == _CHOOSE:
            if action not in (STOP_ID, REROLL_ID):
                raise ValueError(f"illegal action {action}: stop or reroll")
            seat = self._deciders.pop(0)
            self._t.record_decision(action, seat, self.turns)
            self._chosen[seat] = action
            if not self._deciders:
                self._announce()
        else:
            self._bet(action)

    def _throw(self, action: int) -> None:
        seat = self._queue.pop(0)
        last = self._t.record_throw(action, seat, self.hands, self.counts, self.turns)
        if self._queue:
            return
        throwing = [s for s in self._group if self.stands[s] is None]
        if last:                                         # B15: the last throw is kept
            for s in throwing:
                self.stands[s] = self.throw
            self._next_group()
        else:
            self._deciders, self._phase = throwing, _CHOOSE

    def _announce(self) -> None:
        """B6: this throw's choices become public; who threw again throws the next."""
        for seat, choice in self._chosen.items():
            if choice == STOP_ID:
                self.stands[seat] = self.throw
        self._queue = sorted(s for s, c in self._chosen.items() if c == REROLL_ID)
        self._chosen = {}
        if self._queue:
            self.throw += 1
            self._phase = _THROW
        else:
            self._next_group()

    def _next_group(self) -> None:
        """Once the seats throwing have all stood, the next seat's turn (captain-first), or
        the betting."""
        if not self._waiting:
            self._start_betting()
            return
        self._group = self._waiting.pop(0)
        self._queue, self.throw, self._phase = list(self._group), 1, _THROW

    def _start_betting(self) -> None:
        stands = [s for s in self.stands if s is not None]
        assert len(stands) == len(self.stands)
        self.betting = betting.new_betting(stands, self._t.params.stack)
        self._phase = _BETTING

    def _bet(self, action: int) -> None:
        assert self.betting is not None
        name = self._t.action_names[action]
        self.betting = betting.apply(self.betting, name)
        self.bets.append(name)
        if self.betting.closed():
            p = self._t.params
            self._returns = betting.settle(self.betting, self._t.compare(self.hands), p.ante)
            self._phase = _TERMINAL
            if self.replay and p.replay_worth:       # two players (BiduParams checks it)
                self._returns = (p.replay_worth, -p.replay_worth)

    @property
    def replay(self) -> bool:
        """Whether the vuelta ended with nobody betting: it is played again (B12)."""
        return (self._phase == _TERMINAL and self.betting is not None
                and self.betting.kind() == betting.REPLAY)

    def _action_to_string(self, player: int, action: int) -> str:
        return self._t.action_string(player, action)

    def is_terminal(self) -> bool:
        return self._phase == _TERMINAL

    def returns(self) -> list[float]:
        return [float(r) for r in self._returns]

    def exact_returns(self) -> tuple[Fraction, ...]:
        """The returns as fractions (a tie's shares are not all floats)."""
        return self._returns

    def turn_string(self, seat: int) -> str:
        """Seat `seat`'s throws and choices, as he sees them."""
        return self._t.turn_string(self.turns[seat], self._t.action_names, True)

    def stood_string(self) -> str:
        """Each seat's announced stand throw, "-" while it is not announced."""
        return ",".join("-" if s is None else str(s) for s in self.stands)

    def __str__(self) -> str:
        turns = " | ".join(f"t{s}:{self.turn_string(s)}" for s in range(len(self.hands)))
        end = " | replay" if self.replay else ""
        return f"{turns} | stood:{self.stood_string()} | b:{','.join(self.bets)}{end}"


class BiduObserver(ObserverView):
    """Strings only (the game provides no tensors): perfect recall gives the information
    state string, otherwise the observation string (see the module docstring); the dice of
    the seats the observer sees, then the public part."""

    def __init__(self, iig_obs_type: Any, params: Any):
        super().__init__(iig_obs_type, params)
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: BiduState, player: int) -> None:
        pass

    def string_from(self, state: BiduState, player: int) -> str:
        seats = [s for s in range(len(state.hands)) if self.sees(player, s)]
        who = [f"p{player}"] if self.with_player else []
        public = f"stood:{state.stood_string()}", f"b:{','.join(state.bets)}"
        if self.recall:
            own = [("own" if self.single else f"t{s}") + ":" + state.turn_string(s)
                   for s in seats]
            return " | ".join(who + own + list(public))
        hands = []
        for s in seats:
            hand = state.hands[s]
            shown = rules.format_hand(hand) if hand is not None else "-"
            hands.append(("hand" if self.single else f"hand{s}") + ":" + shown)
        return " ".join(who + hands + [f"throw:{state.throw}", *public])


pyspiel.register_game(_GAME_TYPE, BiduGame)
