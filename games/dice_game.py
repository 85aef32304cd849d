"""What the OpenSpiel games of the family share: the game type, the throwing turn's tables
(hands, keep actions, throw outcomes), its legal decisions and its strings, and the view an
observer takes (whose private dice it sees, whether it recalls, whether it sees the public
part).

`python_bidou` (games/bidou/game.py), `python_le_bidou` (games/le_bidou/game.py) and
`python_bidou_multi` (games/bidou_multi/game.py) differ only in their betting (and the
last in its number of players); each builds its tables on `ThrowTables`, keeps them on the
game (`cached_tables`) and builds its observer on `ObserverView`, so the dice are stated
once. Importing this module registers no game.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence, TypeVar

import pyspiel

from games.bidou import rules

NUM_PLAYERS = 2
T = TypeVar("T")

# Player action ids of the throwing turn (games/bidou/game.py's docstring): "stop",
# "reroll" (keep nothing), then every keep of one or two dice.
STOP_ID = 0
REROLL_ID = 1
KEEP_BASE = 2


def game_type(short_name: str, long_name: str, parameters: Mapping[str, Any],
              tensors: bool, players: tuple[int, int] = (NUM_PLAYERS, NUM_PLAYERS),
              zero_sum: bool = True) -> pyspiel.GameType:
    """The OpenSpiel game type of a hand of the family: sequential, explicit chance,
    imperfect information, terminal rewards; two players and zero-sum unless `players`
    (fewest, most) and `zero_sum` say otherwise (multi-hand Bidou: 3 to 4, general-sum);
    `tensors` says whether it provides information-state and observation tensors (strings
    it always provides)."""
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
        provides_observation_string=True,
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

    def kept_of(self, action: int) -> rules.Kept:
        return () if action == REROLL_ID else self.keeps[action - KEEP_BASE]

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
