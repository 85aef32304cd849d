"""Two-hand Bidou (docs/rules.md, "The hand game") as an OpenSpiel game: `python_bidou`.

Importing this module registers it: `import games.bidou.game`, then
`pyspiel.load_game("python_bidou(faces=4,throws=2,reroll=keep)")`. Parameters (defaults from
`BidouParams()`): faces, throws, max_level, reroll, ranking, aces_beat_bidou. They are
validated by `BidouParams.from_mapping`, so a bad value raises `ParameterError` (a `ValueError`
naming the parameter) from `load_game`; an unknown name is rejected by OpenSpiel itself with
a `pyspiel.SpielError`.

Players: 0 = captain, 1 = opponent. Two-player, zero-sum, sequential, explicit stochastic
chance, imperfect information, terminal rewards, perfect recall.

Game flow
---------
1. Chance: the captain's first throw. After each throw except the `throws`-th he chooses
   "stop" or to throw again: "reroll" (all three dice), or under reroll=keep also
   "keep X" (the dice X are put aside, `rules.keep_options`); a chance node then gives the
   new hand (`rules.next_hand_distribution`).
2. The opponent throws the same way.
3. Betting (`games/bidou/betting.py`: who bets first, what is legal, what each leaf pays).
   The captain bets first if his throw count <= the opponent's, else the opponent.
   No bet standing: "pass" or "bet" (level 1); pass-pass ends the hand (0). Facing a bet at
   level k: "fold" (folder -1, other +1), "call" (showdown, +-2k, 0 on a tie) or "raise" (to
   k+1, only while k < max_level).

Action ids
----------
Player actions form one global space that depends only on `faces` (F):

    0                 "stop"
    1                 "reroll"          (throw all three dice again; = keep nothing)
    2 .. 1+F          "keep F" .. "keep 1"                  (one die kept, highest first)
    2+F .. 1+F+F(F+1)/2  "keep F-F", "keep F-(F-1)", ..., "keep 1-1"  (two dice kept,
                      descending lexicographic order)
    then              "pass", "bet", "fold", "call", "raise"

With F=6: stop 0, reroll 1, keep 6..keep 1 = 2..7, keep 6-6..keep 1-1 = 8..28, pass 29,
bet 30, fold 31, call 32, raise 33; num_distinct_actions = 34. The keep actions exist (but
are never legal) under reroll=all, so ids do not depend on the reroll mode. Use
`game.action_id(name)` / `game.action_name(id)` rather than hard-coding numbers.

Chance action ids are hand indices in `rules.all_hands(faces)` (6-6-6 is 0, 1-1-1 is the
last); their strings are "throw 6-3-1". `max_chance_outcomes` = number of hands.

Information state string (perfect recall), for player p
--------------------------------------------------------
    "p<p> | c:<captain turn> | o:<opponent turn> | b:<betting>"

A *turn* is a comma-separated list of tokens, alternating throw results and throw
decisions, in order: result of throw 1, decision after throw 1, result of throw 2, ...
(no decision follows the `throws`-th throw, and an unfinished turn ends with the token
of the latest event). Seen by its owner, a result is the hand ("5-5-2") and a decision
is the action string ("stop", "reroll", "keep 6-5"). Seen by the other player, a result
is "?" and a decision is "stop" or "again" (the dice and the kept dice are hidden; only
the number of throws is public). A turn not started yet is empty. <betting> is the
comma-separated betting actions ("pass", "bet", "fold", "call", "raise"), empty if none.

Examples (throws=3): the captain throws 6-3-1 and stops; the opponent throws 5-5-2,
rerolls, gets 2-1-1 and stops; the captain bets first (1 throw <= 2), the opponent raises:

    player 0: "p0 | c:6-3-1,stop | o:?,again,?,stop | b:bet,raise"
    player 1: "p1 | c:?,stop | o:5-5-2,reroll,2-1-1,stop | b:bet,raise"

Keep mode, opponent's view of his own turn: "o:6-4-1,keep 6,6-6-3,keep 6-6,6-6-1".
Tokens never contain "|" and, apart from the "keep X" strings, no spaces.

Observation string (no recall), for player p
--------------------------------------------
    "p<p> hand:<own current hand or -> throws:<captain count>,<opponent count>
     b:<betting> level:<standing bet level, 0 if none>"      (on one line)

Tensors: see `BidouObserver` (named pieces, available through
`open_spiel.python.observation.make_observation(game, ...).dict`).
"""

from __future__ import annotations

import functools
from typing import Any, Optional

import numpy as np
import pyspiel

from games.bidou import betting, rules
from games.bidou.betting import ACTIONS, CAPTAIN, OPPONENT, Action
from games.bidou.params import BidouParams
from games.dice_game import (
    KEEP_BASE,
    NUM_PLAYERS,
    REROLL_ID,
    STOP_ID,
    DiceGame,
    ObserverView,
    ThrowTables,
    game_type,
)

__all__ = ["BidouGame", "BidouState", "BidouObserver", "STOP_ID", "REROLL_ID"]

_GAME_TYPE = game_type("python_bidou", "Python Two-hand Bidou", BidouParams().to_dict(),
                       tensors=True)


class _Tables(ThrowTables):
    """Lookup tables of one parameter set, shared by the game and all its states: the
    throwing turn's (games/dice_game.py), then the betting's."""

    params: BidouParams

    def __init__(self, params: BidouParams):
        super().__init__(params)
        self.name_actions([action.value for action in ACTIONS])
        base = KEEP_BASE + len(self.keeps)
        self.bet_id = {action: base + i for i, action in enumerate(ACTIONS)}
        self.bet_action = {i: action for action, i in self.bet_id.items()}
        self.betting_actions = tuple(self.bet_id[action] for action in ACTIONS)
        # Longest betting sequence: pass, bet, (max_level - 1) raises, call/fold.
        self.max_bets = params.max_level + 2

    @functools.lru_cache(maxsize=None)
    def legal_bets(self, level: int, player: int) -> tuple[int, ...]:
        """The betting action ids legal for `player` at the standing bet `level`."""
        legal = betting.legal_actions(level, self.params.max_level, betting.Role(player))
        return tuple(self.bet_id[action] for action in legal)


class BidouGame(DiceGame[BidouParams, _Tables]):
    """Two-hand Bidou. `game.params` holds the `BidouParams`."""

    spiel_type, params_type, tables_type = _GAME_TYPE, BidouParams, _Tables

    @classmethod
    def game_info(cls, params: BidouParams, tables: _Tables) -> dict[str, Any]:
        level = params.max_level
        return dict(
            num_players=NUM_PLAYERS,
            min_utility=-2.0 * level,
            max_utility=2.0 * level,
            utility_sum=0.0,
            # Player decisions only: at most throws-1 per throwing turn, then the betting.
            # (Chance nodes, 2*throws at most, are bounded by this number as well.)
            max_game_length=2 * (params.throws - 1) + tables.max_bets)

    def new_initial_state(self):
        return BidouState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return BidouObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
            params, self.tables)


_THROW_CHANCE, _THROW_DECISION, _BETTING, _TERMINAL = range(4)


class _Core:
    """The mutable part of a state. OpenSpiel clones Python states with `copy.deepcopy`;
    this class copies itself with a few list copies, which makes cloning several times
    faster than a generic deep copy."""

    __slots__ = ("phase", "thrower", "hands", "counts", "kept", "turns", "bets", "level",
                 "to_bet", "returns")

    def __init__(self) -> None:
        self.phase = _THROW_CHANCE
        self.thrower = CAPTAIN
        self.hands: list[Optional[rules.Hand]] = [None, None]   # current hand of each player
        self.counts = [0, 0]                                     # throws made by each player
        self.kept: rules.Kept = ()                               # dice kept for the next throw
        # Per player: tokens of his throwing turn, alternating hand (tuple) and decision (int).
        self.turns: list[list] = [[], []]
        self.bets: list[int] = []                                # betting action ids
        self.level = 0                                           # standing bet level
        self.to_bet = CAPTAIN
        self.returns = [0.0, 0.0]

    def __deepcopy__(self, memo):
        other = _Core.__new__(_Core)
        other.phase, other.thrower, other.kept = self.phase, self.thrower, self.kept
        other.level, other.to_bet = self.level, self.to_bet
        other.hands, other.counts = list(self.hands), list(self.counts)
        other.turns = [list(self.turns[0]), list(self.turns[1])]
        other.bets, other.returns = list(self.bets), list(self.returns)
        return other


class BidouState(pyspiel.State):
    """A state of two-hand Bidou. `hands`, `throw_counts`, `betting` read it directly."""

    def __init__(self, game):
        super().__init__(game)
        self._t = game.tables
        self._c = _Core()

    # --- read-only views for the solver and tests ----------------------------------------

    @property
    def hands(self) -> tuple:
        """Each player's current hand (a tuple like (6, 3, 1)), None before his first throw."""
        return tuple(self._c.hands)

    @property
    def throw_counts(self) -> tuple:
        """Number of throws each player has made so far (public)."""
        return tuple(self._c.counts)

    @property
    def betting(self) -> tuple:
        """Betting actions so far, as strings."""
        return tuple(self._t.action_names[a] for a in self._c.bets)

    @property
    def level(self) -> int:
        """Level of the standing bet (0 if none)."""
        return self._c.level

    @property
    def turns(self) -> tuple:
        """Both throwing turns as token lists (hands as tuples, decisions as strings)."""
        return tuple(
            tuple(tok if isinstance(tok, tuple) else self._t.action_names[tok] for tok in turn)
            for turn in self._c.turns)

    def exact_chance_outcomes(self) -> list:
        """Chance outcomes with exact `Fraction` probabilities."""
        assert self._c.phase == _THROW_CHANCE
        return list(self._t.exact_outcomes(self._c.hands[self._c.thrower], self._c.kept))

    # --- OpenSpiel API --------------------------------------------------------------------

    def current_player(self):
        c = self._c
        if c.phase == _TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if c.phase == _THROW_CHANCE:
            return pyspiel.PlayerId.CHANCE
        if c.phase == _THROW_DECISION:
            return c.thrower
        return c.to_bet

    def _legal_actions(self, player):
        assert player >= 0
        t, c = self._t, self._c
        if c.phase == _THROW_DECISION:
            if player != c.thrower:
                return []
            return t.legal_throws(c.hands[player])
        if c.phase == _BETTING:
            if player != c.to_bet:
                return []
            return list(t.legal_bets(c.level, player))
        return []

    def chance_outcomes(self):
        c = self._c
        assert c.phase == _THROW_CHANCE
        return list(self._t.outcomes(c.hands[c.thrower], c.kept))

    def _apply_action(self, action):
        t, c = self._t, self._c
        if c.phase == _THROW_CHANCE:
            p = c.thrower
            if action not in t.outcome_actions(c.hands[p], c.kept):
                raise ValueError(f"impossible throw {action} after keeping {c.kept}")
            if t.record_throw(action, p, c.hands, c.counts, c.turns):
                self._end_turn()
            else:
                c.phase = _THROW_DECISION
            return
        player = self.current_player()
        if action not in self._legal_actions(player):
            raise ValueError(
                f"illegal action {action} ({self._name(action)}) for player {player} "
                f"in state {self}")
        if c.phase == _THROW_DECISION:
            kept = t.record_decision(action, player, c.turns)
            if kept is None:
                self._end_turn()
            else:
                c.kept, c.phase = kept, _THROW_CHANCE
            return
        # Betting.
        c.bets.append(action)
        bet = t.bet_action[action]
        if bet in (Action.BET, Action.RAISE):
            c.level += 1
        if bet in (Action.BET, Action.RAISE) or (bet == Action.PASS and len(c.bets) == 1):
            c.to_bet = 1 - player
            return
        kind = {Action.PASS: betting.PASS, Action.FOLD: betting.FOLD,
                Action.CALL: betting.SHOWDOWN}[bet]
        folder = betting.Role(player) if bet == Action.FOLD else None
        outcome = rules.compare(c.hands[CAPTAIN], c.hands[OPPONENT],
                                t.params.ranking, t.params.aces_beat_bidou)
        wins, ties, loses = betting.hand_payoff(kind, c.level, folder)
        captain = float({1: wins, 0: ties, -1: loses}[outcome])
        self._finish(captain, -captain)

    def _end_turn(self):
        c = self._c
        c.kept = ()
        if c.thrower == CAPTAIN:
            c.thrower = OPPONENT
            c.phase = _THROW_CHANCE
        else:
            c.phase = _BETTING
            c.to_bet = int(betting.first_bettor(c.counts[CAPTAIN], c.counts[OPPONENT]))

    def _finish(self, captain: float, opponent: float):
        self._c.returns = [captain + 0.0, opponent + 0.0]   # + 0.0: no negative zeros
        self._c.phase = _TERMINAL

    def _name(self, action):
        t = self._t
        return t.action_names[action] if 0 <= action < len(t.action_names) else "?"

    def _action_to_string(self, player, action):
        return self._t.action_string(player, action)

    def is_terminal(self):
        return self._c.phase == _TERMINAL

    def returns(self):
        return list(self._c.returns)

    def __str__(self):
        """Full (omniscient) description, e.g. "c:6-3-1,stop o:5-5-2,reroll,2-1-1 b:"."""
        return " ".join([
            "c:" + _turn_string(self._c.turns[CAPTAIN], self._t, True),
            "o:" + _turn_string(self._c.turns[OPPONENT], self._t, True),
            "b:" + ",".join(self._t.action_names[a] for a in self._c.bets)])


def _turn_string(turn, tables: _Tables, visible: bool) -> str:
    return tables.turn_string(turn, tables.action_names, visible)


class BidouObserver(ObserverView):
    """Observer conforming to the PyObserver interface (see open_spiel observation.py).

    Tensor pieces (H = number of hands, T = throws, K = number of keep actions,
    B = max_level + 2 betting slots; betting columns pass, bet, fold, call, raise):
      unless private_info is NONE: "player" (2,) (and the string starts with "p<player>")
      perfect recall, private info of the observer (SINGLE_PLAYER):
                              "own_hands" (T, H): hand after own throw t
                              "own_decisions" (T, 2+K): own decision after throw t
                                (columns stop, reroll, keep actions in id order)
        with ALL_PLAYERS instead: "hands" (2, T, H) and "decisions" (2, T, 2+K)
      perfect recall, public: "throw_decisions" (2, T, 2): [stop, again] of each player
                              "betting" (B, 5)
      no recall, private:     "hand" (H,) own current hand  (ALL_PLAYERS: "hands" (2, H))
      no recall, public:      "throw_counts" (2, T+1) one-hot; "betting" (B, 5);
                              "level" (max_level+1,) one-hot
    """

    def __init__(self, iig_obs_type, params, tables: _Tables):
        super().__init__(iig_obs_type, params)
        self._type = iig_obs_type
        self._t = tables
        T = tables.params.throws
        H = len(tables.hands)
        D = KEEP_BASE + len(tables.keeps)
        pieces: list[tuple[str, tuple[int, ...]]] = [("player", (2,))] if self.with_player else []
        if self.recall:
            if self.single:
                pieces += [("own_hands", (T, H)), ("own_decisions", (T, D))]
            elif self.all:
                pieces += [("hands", (2, T, H)), ("decisions", (2, T, D))]
            if self.public:
                pieces += [("throw_decisions", (2, T, 2)), ("betting", (tables.max_bets, 5))]
        else:
            if self.single:
                pieces.append(("hand", (H,)))
            elif self.all:
                pieces.append(("hands", (2, H)))
            if self.public:
                pieces += [("throw_counts", (2, T + 1)), ("betting", (tables.max_bets, 5)),
                           ("level", (tables.params.max_level + 1,))]
        total = sum(int(np.prod(shape)) for _, shape in pieces)
        self.tensor = np.zeros(total, np.float32)
        self.dict = {}
        index = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[index:index + size].reshape(shape)
            index += size

    def set_from(self, state: BidouState, player: int) -> None:
        self.tensor.fill(0)
        d = self.dict
        if self.with_player:
            d["player"][player] = 1
        if self.recall:
            for owner in (CAPTAIN, OPPONENT):
                self._set_turn(state, player, owner)
        else:
            self._set_current(state, player)
        if self.public:
            for i, action in enumerate(state._c.bets):
                d["betting"][i, self._t.betting_actions.index(action)] = 1

    def _set_turn(self, state: BidouState, player: int, owner: int) -> None:
        """Perfect recall: every hand `owner` threw and every decision he made, as far as
        `player` sees them."""
        d = self.dict
        hands: np.ndarray | None
        decisions: np.ndarray | None
        if self.single and owner == player:
            hands, decisions = d["own_hands"], d["own_decisions"]
        elif self.all:
            hands, decisions = d["hands"][owner], d["decisions"][owner]
        else:
            hands = decisions = None
        throw = -1
        for tok in state._c.turns[owner]:
            if isinstance(tok, tuple):
                throw += 1
                if hands is not None:
                    hands[throw, self._t.hand_index[tok]] = 1
            else:
                if decisions is not None:
                    decisions[throw, tok] = 1
                if self.public:
                    d["throw_decisions"][owner, throw, 0 if tok == STOP_ID else 1] = 1

    def _set_current(self, state: BidouState, player: int) -> None:
        """Without recall: the current hands `player` sees, throw counts and bet level."""
        t = self._t
        d = self.dict
        if self.single and state._c.hands[player] is not None:
            d["hand"][t.hand_index[state._c.hands[player]]] = 1
        elif self.all:
            for owner in (CAPTAIN, OPPONENT):
                if state._c.hands[owner] is not None:
                    d["hands"][owner, t.hand_index[state._c.hands[owner]]] = 1
        if self.public:
            for owner in (CAPTAIN, OPPONENT):
                d["throw_counts"][owner, state._c.counts[owner]] = 1
            d["level"][state._c.level] = 1

    def string_from(self, state: BidouState, player: int) -> str:
        t = self._t
        bets = ",".join(t.action_names[a] for a in state._c.bets)
        if self.recall:
            pieces = [f"p{player}"] if self.with_player else []
            for owner, label in ((CAPTAIN, "c"), (OPPONENT, "o")):
                if self.sees(player, owner):
                    pieces.append(f"{label}:" + _turn_string(state._c.turns[owner], t, True))
                elif self.public:
                    pieces.append(f"{label}:" + _turn_string(state._c.turns[owner], t, False))
            if self.public:
                pieces.append(f"b:{bets}")
            return " | ".join(pieces)
        pieces = [f"p{player}"] if self.with_player else []
        for owner in (CAPTAIN, OPPONENT):
            if self.sees(player, owner):
                hand = state._c.hands[owner]
                label = "hand" if self.single else f"hand{owner}"
                pieces.append(f"{label}:" + (rules.format_hand(hand) if hand else "-"))
        if self.public:
            pieces.append(f"throws:{state._c.counts[CAPTAIN]},{state._c.counts[OPPONENT]}")
            pieces.append(f"b:{bets}")
            pieces.append(f"level:{state._c.level}")
        return " ".join(pieces)


pyspiel.register_game(_GAME_TYPE, BidouGame)
