"""What the OpenSpiel games of the family share: the game type, the throwing turn's tables
(hands, keep actions, throw outcomes), its legal decisions and its strings, and the view an
observer takes (whose private dice it sees, whether it recalls, whether it sees the public
part), and how a game gets its rules and tables and looks up its actions and hands.

`python_bidou` (games/bidou/game.py), `python_le_bidou` (games/le_bidou/game.py) and
`python_bidou_multi` (games/bidou_multi/game.py) differ only in their betting (and the
last in its number of players); each subclasses `DiceGame` (its rules, its tables, built on
`ThrowTables` and kept on the game by `cached_tables`, its lookups by name) and builds its
observer on `ObserverView`, so the dice are stated once; the capped round
`python_bidou_round` (games/bidou/round_game.py) plays its stages' throwing turns on
`ThrowTables` too. Importing this module registers no game.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any, Callable, Generic, Mapping, Sequence, TypeVar, cast

import pyspiel

from games.bidou import rules

NUM_PLAYERS = 2
T = TypeVar("T")
P = TypeVar("P")
TablesT = TypeVar("TablesT", bound="ThrowTables")

# Player action ids of the throwing turn (games/bidou/game.py's docstring): "stop",
# "reroll" (keep nothing), then every keep of one or two dice.
STOP_ID = 0
REROLL_ID = 1
KEEP_BASE = 2


def game_type(short_name: str, long_name: str, parameters: Mapping[str, Any],
              tensors: bool, players: tuple[int, int] = (NUM_PLAYERS, NUM_PLAYERS),
              zero_sum: bool = True, observations: bool = True) -> pyspiel.GameType:
    """The OpenSpiel game type of a game of the family: sequential, explicit chance,
    imperfect information, terminal rewards; two players and zero-sum unless `players`
    (fewest, most) and `zero_sum` say otherwise (multi-hand Bidou: 3 to 4, general-sum);
    `tensors` says whether it provides information-state and observation tensors;
    information-state strings it always provides, observation strings unless
    `observations` is false (the capped round: perfect recall only)."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(pyspiel.GameType.Utility.ZERO_SUM if zero_sum
                 else pyspiel.GameType.Utility.GENERAL_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players[1],
        min_num_players=players[0],
        provides_information_state_string=True,
        provides_information_state_tensor=tensors,
        provides_observation_string=observations,
        provides_observation_tensor=tensors,
        provides_factored_observation_string=False,
        parameter_specification=dict(parameters))


def cached_tables(game: Any, build: Callable[[], T]) -> T:
    """The lookup tables of `game` (a `pyspiel.Game` of the family), built by `build` once
    and kept on the game object. OpenSpiel clones a Python state by running its
    `__init__(game)` again and deep-copying its `__dict__`, so every clone asks the game for
    its tables: rebuilding the parameters from `get_parameters()` each time made a third
    of a best response's time. A game restored by pickle (no `__init__`) builds them on
    first use."""
    found = game.__dict__.get("_cached_tables")
    if found is None:
        found = game.__dict__["_cached_tables"] = build()
    return found


def all_keeps(faces: int) -> tuple[rules.Kept, ...]:
    """Every non-empty keep (one or two dice) possible with `faces`, in action-id order."""
    singles = tuple((a,) for a in range(faces, 0, -1))
    pairs = tuple((a, b) for a in range(faces, 0, -1) for b in range(a, 0, -1))
    return singles + pairs


class ThrowTables:
    """Lookup tables of the throwing turn for one parameter set (any object with faces,
    throws and reroll), shared by a game and all its states."""

    def __init__(self, params: Any):
        self.params = params
        self.faces = params.faces
        self.hands = rules.all_hands(params.faces)
        self.hand_index = {h: i for i, h in enumerate(self.hands)}
        self.keeps = all_keeps(params.faces)
        self.keep_action = {k: KEEP_BASE + i for i, k in enumerate(self.keeps)}
        self.keep_action[()] = REROLL_ID
        self.throw_names = ([rules.throw_action_name(rules.STOP), rules.throw_action_name(())]
                            + [rules.throw_action_name(k) for k in self.keeps])
        self.name_actions(())

    def name_actions(self, others: Sequence[str]) -> None:
        """Name every player action: the throwing turn's, then the game's own `others` (its
        betting), so that a game's ids follow the same order."""
        self.action_names = self.throw_names + list(others)
        self.action_ids = {name: i for i, name in enumerate(self.action_names)}

    def compare(self, hands: Sequence[Any]) -> Callable[[int, int], int]:
        """compare(seat a, seat b) on the seats' `hands`: +1 if a's beats b's, by the game's
        ranking (and, where the game has it, its aces_beat_bidou: the betting's settlement
        takes seats, not hands)."""
        ranking = self.params.ranking
        aces = getattr(self.params, "aces_beat_bidou", True)      # rules.compare's default
        return lambda a, b: rules.compare(hands[a], hands[b], ranking, aces)

    def action_string(self, player: int, action: int) -> str:
        """An action's string, as every state of the family writes it: "throw 6-3-1" for a
        chance action, the action's name for a player's."""
        if player == pyspiel.PlayerId.CHANCE:
            return "throw " + rules.format_hand(self.hands[action])
        return self.action_names[action]

    def kept_of(self, action: int) -> rules.Kept:
        return () if action == REROLL_ID else self.keeps[action - KEEP_BASE]

    def record_throw(self, action: int, player: int, hands: list, counts: list[int],
                     turns: list[list]) -> bool:
        """Record chance's `action`, the hand `player` throws, in his current hand, his count
        and his turn; whether that was his last throw (the states of every game of the family
        keep these three lists, so a throw is recorded the same way in each)."""
        hand = self.hands[action]
        hands[player] = hand
        counts[player] += 1
        turns[player].append(hand)
        return counts[player] >= self.params.throws

    def record_decision(self, action: int, player: int, turns: list[list]) -> rules.Kept | None:
        """Record `player`'s throw decision `action` in his turn: the dice he keeps to throw
        again, or None when he stops."""
        turns[player].append(action)
        return None if action == STOP_ID else self.kept_of(action)

    def legal_throws(self, hand: rules.Hand | None) -> list[int]:
        """The thrower's decisions with `hand`: stop or reroll, or under reroll=keep stop
        or any keep of his hand."""
        return list(self._legal_throws(hand))

    @functools.lru_cache(maxsize=None)
    def _legal_throws(self, hand: rules.Hand | None) -> tuple[int, ...]:
        if self.params.reroll == "all":
            return (STOP_ID, REROLL_ID)
        assert hand is not None
        return tuple(sorted([STOP_ID] + [self.keep_action[k] for k in rules.keep_options(hand)]))

    @functools.lru_cache(maxsize=None)
    def exact_outcomes(self, hand: rules.Hand | None, kept: rules.Kept
                       ) -> tuple[tuple[int, Fraction], ...]:
        """((chance action, Fraction), ...) of the throw that follows keeping `kept`."""
        dist = (rules.throw_distribution((), self.faces) if hand is None
                else rules.next_hand_distribution(hand, kept, self.faces))
        return tuple(sorted((self.hand_index[h], p) for h, p in dist.items()))

    @functools.lru_cache(maxsize=None)
    def outcomes(self, hand: rules.Hand | None, kept: rules.Kept
                 ) -> tuple[tuple[int, float], ...]:
        return tuple((a, float(p)) for a, p in self.exact_outcomes(hand, kept))

    @functools.lru_cache(maxsize=None)
    def outcome_actions(self, hand: rules.Hand | None, kept: rules.Kept) -> frozenset[int]:
        """The chance actions possible after keeping `kept` (to refuse an impossible one)."""
        return frozenset(a for a, _ in self.exact_outcomes(hand, kept))

    def turn_string(self, turn: Sequence[Any], names: Sequence[str], visible: bool) -> str:
        """A throwing turn (hands as tuples, decisions as action ids) as its owner sees it,
        or (not `visible`) as the other player does: "?" for each hand, "stop" or "again"
        for each decision."""
        tokens = []
        for token in turn:
            if isinstance(token, tuple):
                tokens.append(rules.format_hand(token) if visible else "?")
            elif visible:
                tokens.append(names[token])
            else:
                tokens.append("stop" if token == STOP_ID else "again")
        return ",".join(tokens)

    def __deepcopy__(self, memo: dict) -> "ThrowTables":     # immutable: states share it
        return self


@functools.lru_cache(maxsize=None)
def _rules_of(params_type: Any, items: tuple) -> Any:
    return params_type.from_mapping(dict(items))


@functools.lru_cache(maxsize=None)
def _tables_of(tables_type: Any, params: Any) -> Any:
    return tables_type(params)


class DiceGame(pyspiel.Game, Generic[P, TablesT]):
    """What every game of the family does the same way around its betting: its rules and
    tables from its OpenSpiel parameters, and the lookups by name that tests and tools use.
    A game sets `spiel_type` (its registered `pyspiel.GameType`), `params_type` (its
    parameter class, with `from_mapping`) and `tables_type` (its `ThrowTables` subclass, on
    which `name_actions` has run), and says the rest of its `pyspiel.GameInfo` in
    `game_info`."""

    spiel_type: Any
    params_type: Any
    tables_type: Any

    def __init__(self, params: Mapping[str, Any] | None = None):
        rules_ = self.params_type.from_mapping(dict(params or {}))
        tables = self.tables_for(rules_)
        info = pyspiel.GameInfo(num_distinct_actions=len(tables.action_names),
                                max_chance_outcomes=len(tables.hands),
                                **self.game_info(rules_, tables))
        super().__init__(self.spiel_type, info, rules_.to_dict())

    @classmethod
    def game_info(cls, params: P, tables: TablesT) -> dict[str, Any]:
        """The `pyspiel.GameInfo` fields that depend on the betting: num_players,
        min_utility, max_utility, utility_sum and max_game_length."""
        raise NotImplementedError

    @classmethod
    def tables_for(cls, params: P) -> TablesT:
        """The tables of `params`, built once per parameter set (for `__init__`, before the
        game has its parameters)."""
        return _tables_of(cls.tables_type, params)

    # Computed from the OpenSpiel parameters rather than stored, so that a game restored by
    # pickle (which does not run __init__) has them too.
    @property
    def params(self) -> P:
        """The rules of this game."""
        return _rules_of(self.params_type, tuple(sorted(self.get_parameters().items())))

    @property
    def tables(self) -> TablesT:
        return cached_tables(self, lambda: self.tables_for(self.params))

    def action_id(self, name: str) -> int:
        """Player action id of "stop", "reroll", "keep 6-5", then the game's betting."""
        return self.tables.action_ids[name]

    def action_name(self, action: int) -> str:
        return self.tables.action_names[action]

    def hand_action(self, hand: str | Sequence[int]) -> int:
        """Chance action id of a hand, given as a tuple or as "6-3-1"."""
        if isinstance(hand, str):
            hand = rules.parse_hand(hand, self.tables.faces)
        return self.tables.hand_index[cast(rules.Hand, tuple(hand))]


class ObserverView:
    """What an observer of `iig_obs_type` sees: every player's private dice (`all`), the
    observing player's only (`single`), the public part (`public`), with or without
    perfect recall (`recall`); `with_player` whether its strings name the player."""

    def __init__(self, iig_obs_type: Any, params: Any = None):
        if params:
            raise ValueError(f"Observation parameters not supported; passed {params}")
        private = iig_obs_type.private_info
        self.single = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.all = private == pyspiel.PrivateInfoType.ALL_PLAYERS
        self.public = iig_obs_type.public_info
        self.recall = iig_obs_type.perfect_recall
        # A public observation (private_info NONE) is the same for both players.
        self.with_player = self.single or self.all

    def sees(self, observer: int, owner: int) -> bool:
        """Whether `observer` sees `owner`'s dice."""
        return self.all or (self.single and observer == owner)
