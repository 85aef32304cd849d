"""A round of two-hand Bidou (docs/rules.md section 4) as an OpenSpiel game: `python_bidou_round`.

This is an independent check of the round solver: it is written from the rules, shares no
code with `solver/` (only `games.bidou.rules`, the throwing turn's tables of
`games/dice_game.py` that every game of the family plays on, and the parameter classes), and
is meant to be solved by OpenSpiel's own algorithms on tiny variants. Load it with

    pyspiel.load_game("python_bidou_round(chips=3,max_hands=2,faces=2,throws=1,max_level=1)")

after `import games.bidou.round_game`. Parameters: `chips` and every hand parameter
(validated by `RoundParams.from_mapping`, so errors name the parameter), plus:
  max_hands  the cap (1..40, default 4): the most *stages* played. A stage is a hand with
             betting, or one attempt of an open throw (a tie's replay is a new stage). After
             the cap-th stage, a round that is not over ends with 0 to both players (half a
             win each). Counting open-throw attempts keeps the tree finite (a replay could
             otherwise repeat forever) and matches a finite-horizon solve whose stage step is
             one hand or one open-throw attempt, with the replay worth the open throw's value
             with one stage fewer.
  start      "" (all chips in the centre) or "C;P0;P1": the chips in the centre and in the
             piles of players 0 and 1 when the round is picked up (they must add to `chips`,
             and the round must not be over), so any state of the round can be checked
             (";" because "," separates parameters in a game string).

Players 0 and 1. Player 0 is the captain of the first hand. The rules draw the first captain
with a die; by symmetry (the players are interchangeable) the round's value to the first
captain does not depend on who that is, so the game starts with the draw already made and
has no chance node for it. If the start is an open throw, there is no captain: the player
holding `chips - 1` throws second, whoever he is.

Returns: +1 to the round's winner, -1 to the loser (the player who ends with every chip), 0 to
both when the cap ends the round unfinished. So a player's chance of winning is
(1 + value) / 2.

Flow of one hand (section 3 with the changes of section 4): the captain's throwing turn, the
opponent's, then the betting, where a bet or raise is legal only if the bettor can supply its
chips (centre first, then his own pile) and the other player can then supply the one chip a
call needs; calls are therefore always covered. A showdown's loser takes every chip bet (on a
tie every chip goes back); a folder takes one penalty chip from the centre, or from his
opponent's pile if the centre is empty, after the chips bet go back; two passes move nothing.
Next captain: the showdown's winner, the player who did not fold, or after two passes or a
tie the captain's opponent. Before every stage: a player holding every chip has lost; a player
holding `chips - 1` faces the open throw: the other player (L) throws openly, then he (H),
each up to `throws` times under the reroll rule; L's hand beating H's ends the round (H takes
the last chip), H's beating L's moves one chip from H to L and H captains next, a tie replays.

Actions: as in `python_bidou` ("stop", "reroll", "keep X" for every one- or two-dice keep,
then "pass", "bet", "fold", "call", "raise"); chance outcomes are hand indices in
`rules.all_hands(faces)`, with exact probabilities from `exact_chance_outcomes()`.

Information state string (perfect recall), for player p: "p<p>" then one record per stage,
joined by " | ":
    hand k:  "h<k> chips:C,P0,P1 cap:<captain> c:<captain's turn> o:<opponent's turn>
              b:<betting>[ show:<captain's hand>/<opponent's hand>]"
    open k:  "t<k> chips:C,P0,P1 L:<player> l:<L's turn> h:<H's turn>"
A turn lists its throws and decisions as in `python_bidou`: the owner sees his hands and
decisions, the other player "?" and "stop"/"again". A call shows both hands; an open throw is
seen whole by both players. The chips at the start of each stage follow from the public
history; they are written to make the strings readable.
"""

from __future__ import annotations

import functools
from typing import Optional

import numpy as np
import pyspiel

from games.bidou import rules
from games.bidou.params import ParameterError
from games.bidou.round_params import RoundParams
from games.dice_game import KEEP_BASE, ThrowTables, game_type

MAX_HANDS_LIMIT = 40
_DEFAULT = RoundParams()
_DEFAULT_MAX_HANDS = 4
BETTING_NAMES = ("pass", "bet", "fold", "call", "raise")

_GAME_TYPE = game_type(
    "python_bidou_round", "Python Two-hand Bidou round (capped)",
    {"chips": _DEFAULT.chips, "max_hands": _DEFAULT_MAX_HANDS, "start": "",
     **{k: v for k, v in _DEFAULT.hand.to_dict().items()}},
    tensors=False, observations=False)

# Stage phases.
_THROW_CHANCE, _THROW_DECISION, _BETTING, _TERMINAL = range(4)


def game_string(params: RoundParams, max_hands: int = _DEFAULT_MAX_HANDS,
                start: Optional[tuple[int, int, int]] = None) -> str:
    """The OpenSpiel game string of a capped round; `start` is (C, P0, P1) or None."""
    items = {**params.to_dict(), "max_hands": max_hands}
    if start is not None:
        items["start"] = ";".join(str(c) for c in start)
    text = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                    for k, v in items.items())
    return f"python_bidou_round({text})"


class _Tables:
    """Per-parameter constants shared by the game and its states: the throwing turn's
    (`dice`, games/dice_game.py, which also names every action), then the betting's."""

    def __init__(self, params: RoundParams, max_hands: int, start: tuple[int, int, int]):
        self.params, self.hand, self.max_hands, self.start = params, params.hand, max_hands, start
        self.dice = ThrowTables(params.hand)
        self.dice.name_actions(BETTING_NAMES)
        self.hands, self.hand_index = self.dice.hands, self.dice.hand_index
        self.names, self.ids = self.dice.action_names, self.dice.action_ids
        base = KEEP_BASE + len(self.dice.keeps)
        self.PASS, self.BET, self.FOLD, self.CALL, self.RAISE = range(base, base + 5)
        self.num_actions = base + 5

    def __deepcopy__(self, memo):
        return self


@functools.lru_cache(maxsize=None)
def _tables(items: tuple) -> _Tables:
    values = dict(items)
    max_hands = values.pop("max_hands", _DEFAULT_MAX_HANDS)
    start = values.pop("start", "")
    params = RoundParams.from_mapping(values)
    if isinstance(max_hands, bool) or not isinstance(max_hands, int) \
            or not 1 <= max_hands <= MAX_HANDS_LIMIT:
        raise ParameterError(
            f"max_hands must be an integer from 1 to {MAX_HANDS_LIMIT}, got {max_hands!r}")
    return _Tables(params, max_hands, _parse_start(start, params.chips))


def _parse_start(text: str, chips: int) -> tuple[int, int, int]:
    if not text:
        return (chips, 0, 0)
    parts = text.replace(";", ",").split(",")
    try:
        centre, p0, p1 = (int(p) for p in parts)
    except ValueError:
        raise ParameterError(f"start must be C,P0,P1 (three integers), got {text!r}") from None
    if min(centre, p0, p1) < 0 or centre + p0 + p1 != chips:
        raise ParameterError(f"start must be three chip counts adding to {chips}, got {text!r}")
    if max(p0, p1) == chips:
        raise ParameterError(f"start {text!r}: the round is over (a player holds every chip)")
    return (centre, p0, p1)


class BidouRoundGame(pyspiel.Game):
    """A capped round of two-hand Bidou; `game.round_params`, `game.max_hands`."""

    def __init__(self, params=None):
        tables = _tables(tuple(sorted(dict(params or {}).items())))
        hand = tables.hand
        stage_length = 2 * (hand.throws - 1) + hand.max_level + 2
        info = pyspiel.GameInfo(
            num_distinct_actions=tables.num_actions,
            max_chance_outcomes=len(tables.hands),
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=tables.max_hands * stage_length)
        values = {"chips": tables.params.chips, "max_hands": tables.max_hands,
                  "start": params.get("start", "") if params else "", **hand.to_dict()}
        super().__init__(_GAME_TYPE, info, values)

    @property
    def tables(self) -> _Tables:
        return _tables(tuple(sorted(self.get_parameters().items())))

    @property
    def round_params(self) -> RoundParams:
        return self.tables.params

    @property
    def max_hands(self) -> int:
        return self.tables.max_hands

    def new_initial_state(self):
        return BidouRoundState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _InfoStateObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=True), params)

    def action_id(self, name: str) -> int:
        return self.tables.ids[name]

    def action_name(self, action: int) -> str:
        return self.tables.names[action]

    def hand_action(self, hand) -> int:
        if isinstance(hand, str):
            hand = rules.parse_hand(hand, self.tables.hand.faces)
        return self.tables.hand_index[tuple(hand)]


class _Stage:
    """One stage: a hand with betting (`open` False) or one open-throw attempt (`open` True).

    In a hand, `first` is the captain; in an open throw, the player with one chip or none.
    """

    __slots__ = ("open", "first", "chips", "thrower", "hands", "counts", "kept", "turns",
                 "bets", "level", "to_bet", "from_centre", "from_pile", "index")

    def __init__(self, index: int, is_open: bool, first: int, chips: tuple[int, int, int]):
        self.index, self.open, self.first, self.chips = index, is_open, first, chips
        self.thrower = first
        self.hands: list[Optional[rules.Hand]] = [None, None]
        self.counts = [0, 0]
        self.kept: rules.Kept = ()
        self.turns: list[list] = [[], []]     # per player: hand tuples and decision ids
        self.bets: list[int] = []             # (player, action) pairs would be redundant
        self.level = 0
        self.to_bet = first
        self.from_centre = [0, 0]             # chips each player put in from the centre
        self.from_pile = [0, 0]               # ... and from his own pile

    def copy(self) -> "_Stage":
        other = _Stage.__new__(_Stage)
        for name in ("index", "open", "first", "chips", "thrower", "kept", "level", "to_bet"):
            setattr(other, name, getattr(self, name))
        other.hands, other.counts = list(self.hands), list(self.counts)
        other.turns = [list(self.turns[0]), list(self.turns[1])]
        other.bets = list(self.bets)
        other.from_centre, other.from_pile = list(self.from_centre), list(self.from_pile)
        return other


class _Core:
    """The mutable part of a state; copies itself cheaply (OpenSpiel clones by deepcopy)."""

    __slots__ = ("centre", "piles", "phase", "returns", "done", "stage")

    def __init__(self, start: tuple[int, int, int]):
        self.centre = start[0]
        self.piles = [start[1], start[2]]
        self.phase = _THROW_CHANCE
        self.returns = [0.0, 0.0]
        self.done: list[list[str]] = [[], []]     # finished stage records, per viewer
        self.stage: Optional[_Stage] = None

    def __deepcopy__(self, memo):
        other = _Core.__new__(_Core)
        other.centre, other.piles = self.centre, list(self.piles)
        other.phase, other.returns = self.phase, list(self.returns)
        other.done = [list(self.done[0]), list(self.done[1])]
        other.stage = self.stage.copy()
        return other


class BidouRoundState(pyspiel.State):
    """A state of the capped round; the read-only properties below expose it to tests."""

    def __init__(self, game):
        super().__init__(game)
        self._t = game.tables
        self._c = _Core(self._t.start)
        self._begin_stage(0, captain=0)

    # --- read-only views ---------------------------------------------------------------

    @property
    def centre(self) -> int:
        return self._c.centre

    @property
    def piles(self) -> tuple[int, int]:
        return tuple(self._c.piles)

    @property
    def stages(self) -> int:
        """Stages (hands and open-throw attempts) finished so far."""
        return len(self._c.done[0])

    @property
    def in_open_throw(self) -> bool:
        return self._c.stage.open

    @property
    def stage_hands(self) -> tuple:
        """Each player's current hand in this stage (None before his first throw)."""
        return tuple(self._c.stage.hands)

    @property
    def stage_chips(self) -> tuple[int, int, int]:
        """(centre, player 0's pile, player 1's pile) when this stage began."""
        return self._c.stage.chips

    @property
    def captain(self) -> Optional[int]:
        """The captain of the current hand; None during an open throw."""
        return None if self._c.stage.open else self._c.stage.first

    @property
    def low_player(self) -> Optional[int]:
        """During an open throw, the player with one chip or none (he throws first)."""
        return self._c.stage.first if self._c.stage.open else None

    @property
    def is_betting(self) -> bool:
        """Whether the current decision is a betting one (else a throw, or chance/terminal)."""
        return self._c.phase == _BETTING

    @property
    def throw_counts(self) -> tuple[int, int]:
        """Throws each player has made in this stage."""
        return tuple(self._c.stage.counts)

    @property
    def betting(self) -> tuple[str, ...]:
        """Betting actions of this hand so far, as strings."""
        return tuple(self._t.names[a] for a in self._c.stage.bets)

    def exact_chance_outcomes(self) -> list:
        assert self._c.phase == _THROW_CHANCE
        s = self._c.stage
        return list(self._t.dice.exact_outcomes(s.hands[s.thrower], s.kept))

    # --- OpenSpiel API -----------------------------------------------------------------

    def current_player(self):
        if self._c.phase == _TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if self._c.phase == _THROW_CHANCE:
            return pyspiel.PlayerId.CHANCE
        if self._c.phase == _THROW_DECISION:
            return self._c.stage.thrower
        return self._c.stage.to_bet

    def chance_outcomes(self):
        assert self._c.phase == _THROW_CHANCE
        s = self._c.stage
        return list(self._t.dice.outcomes(s.hands[s.thrower], s.kept))

    def _legal_actions(self, player):
        t, s = self._t, self._c.stage
        if self._c.phase == _THROW_DECISION:
            if player != s.thrower:
                return []
            return t.dice.legal_throws(s.hands[player])
        if self._c.phase != _BETTING or player != s.to_bet:
            return []
        other = 1 - player
        if s.level == 0:
            return [t.PASS, t.BET] if self._can_put(player, 1, other) else [t.PASS]
        actions = [t.FOLD, t.CALL]
        if s.level < t.hand.max_level and self._can_put(player, 2, other):
            actions.append(t.RAISE)
        return actions

    def _can_put(self, player: int, n: int, other: int) -> bool:
        """Can `player` supply `n` chips, and then `other` the one chip of a call?"""
        s = self._c.stage
        centre_left = self._c.centre - s.from_centre[0] - s.from_centre[1]
        own_left = self._c.piles[player] - s.from_pile[player]
        if centre_left + own_left < n:
            return False
        centre_after = max(0, centre_left - n)
        return centre_after + self._c.piles[other] - s.from_pile[other] >= 1

    def _put(self, player: int, n: int) -> None:
        s = self._c.stage
        for _ in range(n):
            if self._c.centre - s.from_centre[0] - s.from_centre[1] > 0:
                s.from_centre[player] += 1
            else:
                s.from_pile[player] += 1
                assert s.from_pile[player] <= self._c.piles[player], "supply rule broken"

    def _apply_action(self, action):
        t, s = self._t, self._c.stage
        if self._c.phase == _THROW_CHANCE:
            if action not in t.dice.outcome_actions(s.hands[s.thrower], s.kept):
                raise ValueError(f"impossible throw {action} after keeping {s.kept}")
            if t.dice.record_throw(action, s.thrower, s.hands, s.counts, s.turns):
                self._end_turn()
            else:
                self._c.phase = _THROW_DECISION
            return
        player = self.current_player()
        if action not in self._legal_actions(player):
            raise ValueError(f"illegal action {action} for player {player} in {self}")
        if self._c.phase == _THROW_DECISION:
            kept = t.dice.record_decision(action, player, s.turns)
            if kept is None:
                self._end_turn()
            else:
                s.kept, self._c.phase = kept, _THROW_CHANCE
            return
        s.bets.append(action)
        other = 1 - player
        if action == t.PASS:
            if len(s.bets) == 2:
                self._end_hand(next_captain=1 - s.first)
            else:
                s.to_bet = other
        elif action == t.BET:
            self._put(player, 1)
            s.level, s.to_bet = 1, other
        elif action == t.RAISE:
            self._put(player, 2)
            s.level += 1
            s.to_bet = other
        elif action == t.FOLD:
            # Chips bet go back; the folder takes a penalty chip from the centre, or from
            # his opponent's pile when the centre is empty.
            if self._c.centre > 0:
                self._c.centre -= 1
            else:
                self._c.piles[other] -= 1
            self._c.piles[player] += 1
            self._end_hand(next_captain=other)
        elif action == t.CALL:
            self._put(player, 1)
            sign = rules.compare(s.hands[0], s.hands[1], t.hand.ranking, t.hand.aces_beat_bidou)
            if sign == 0:
                self._end_hand(next_captain=1 - s.first)     # every chip goes back
            else:
                winner = 0 if sign > 0 else 1
                loser = 1 - winner
                self._c.centre -= s.from_centre[0] + s.from_centre[1]
                self._c.piles[0] -= s.from_pile[0]
                self._c.piles[1] -= s.from_pile[1]
                self._c.piles[loser] += 2 * s.level
                self._end_hand(next_captain=winner)

    def _end_turn(self):
        s = self._c.stage
        s.kept = ()
        if s.thrower == s.first:
            s.thrower = 1 - s.first
            self._c.phase = _THROW_CHANCE
            return
        if s.open:
            self._end_open_throw()
            return
        self._c.phase = _BETTING
        captain = s.first
        s.to_bet = captain if s.counts[captain] <= s.counts[1 - captain] else 1 - captain

    def _end_open_throw(self):
        s, t = self._c.stage, self._t
        low, high = s.first, 1 - s.first
        sign = rules.compare(s.hands[low], s.hands[high], t.hand.ranking, t.hand.aces_beat_bidou)
        if sign > 0:             # H is beaten: he takes the last chip and loses the round
            self._record_stage()
            self._finish(winner=low)
            return
        if sign < 0:             # L takes one chip from H; H captains the next hand
            self._c.piles[high] -= 1
            self._c.piles[low] += 1
            self._next_stage(captain=high)
        else:                    # tie: the open throw is played again, same order
            self._next_stage(captain=None)   # piles unchanged: _begin_stage replays

    def _end_hand(self, next_captain: int):
        self._next_stage(captain=next_captain)

    def _next_stage(self, captain: Optional[int]):
        self._record_stage()
        for p in (0, 1):
            if self._c.piles[p] == self._t.params.chips:
                self._finish(winner=1 - p)
                return
        index = self._c.stage.index + 1
        if index >= self._t.max_hands:
            self._c.returns = [0.0, 0.0]
            self._c.phase = _TERMINAL
            return
        self._begin_stage(index, captain)

    def _begin_stage(self, index: int, captain: Optional[int]):
        """A new hand with `captain`, or an open throw if a player holds chips - 1."""
        top = self._t.params.chips - 1
        if top in self._c.piles:
            high = self._c.piles.index(top)
            self._c.stage = _Stage(index, True, 1 - high, self._chips())
        else:
            assert captain is not None, "a hand has a captain (None only replays an open throw)"
            self._c.stage = _Stage(index, False, captain, self._chips())
        self._c.phase = _THROW_CHANCE

    def _chips(self) -> tuple[int, int, int]:
        return (self._c.centre, self._c.piles[0], self._c.piles[1])

    def _finish(self, winner: int):
        self._c.returns = [-1.0, -1.0]
        self._c.returns[winner] = 1.0
        self._c.phase = _TERMINAL

    def _record_stage(self):
        for viewer in (0, 1):
            self._c.done[viewer].append(_stage_record(self._c.stage, self._t, viewer))

    # --- strings -----------------------------------------------------------------------

    def information_state_for(self, player: int) -> str:
        records = list(self._c.done[player])
        if self._c.phase != _TERMINAL:
            records.append(_stage_record(self._c.stage, self._t, player))
        return " | ".join([f"p{player}"] + records)

    def _action_to_string(self, player, action):
        return self._t.dice.action_string(player, action)

    def is_terminal(self):
        return self._c.phase == _TERMINAL

    def returns(self):
        return list(self._c.returns)

    def __str__(self):
        """Omniscient: the chips now, then the current stage with every die shown."""
        text = f"chips:{self._c.centre},{self._c.piles[0]},{self._c.piles[1]}"
        if self._c.phase != _TERMINAL:
            text += " | " + _stage_record(self._c.stage, self._t, None)
        return text


def _turn_string(turn, t: _Tables, visible: bool) -> str:
    return t.dice.turn_string(turn, t.names, visible)


def _stage_record(s: _Stage, t: _Tables, viewer: Optional[int]) -> str:
    """The record of a stage as `viewer` knows it (None: everything)."""
    chips = "chips:" + ",".join(str(c) for c in s.chips)
    if s.open:
        return (f"t{s.index} {chips} L:{s.first} l:{_turn_string(s.turns[s.first], t, True)} "
                f"h:{_turn_string(s.turns[1 - s.first], t, True)}")
    cap, opp = s.first, 1 - s.first
    bets = ",".join(t.names[a] for a in s.bets)
    text = (f"h{s.index} {chips} cap:{cap} "
            f"c:{_turn_string(s.turns[cap], t, viewer in (None, cap))} "
            f"o:{_turn_string(s.turns[opp], t, viewer in (None, opp))} b:{bets}")
    if s.bets and s.bets[-1] == t.CALL:
        shown, seen = s.hands[cap], s.hands[opp]
        assert shown is not None and seen is not None, "a call is made with both hands thrown"
        text += f" show:{rules.format_hand(shown)}/{rules.format_hand(seen)}"
    return text


class _InfoStateObserver:
    """Perfect-recall information state strings only (the game provides no tensors)."""

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"Observation parameters not supported; passed {params}")
        if not iig_obs_type.perfect_recall or \
                iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError("python_bidou_round provides information state strings only")
        self.tensor = np.zeros(0, np.float32)
        self.dict = {}

    def set_from(self, state: BidouRoundState, player: int):
        pass

    def string_from(self, state: BidouRoundState, player: int) -> str:
        return state.information_state_for(player)


pyspiel.register_game(_GAME_TYPE, BidouRoundGame)
