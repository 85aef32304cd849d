"""One hand of Le Bidou (docs/rules.md section 5) as an OpenSpiel game: `python_le_bidou`.

Load it with `pyspiel.load_game("python_le_bidou(faces=3,throws=2,max_stake=3)")` after
`import games.le_bidou.game`, which registers it. Parameters (defaults from
`LeBidouParams()`): faces, throws, reroll, ranking, aces_beat_bidou, max_stake, half_stake,
validated by `LeBidouParams.from_mapping` (a bad value raises `ParameterError`).

Players: 0 = the first player (the captain, who throws first), 1 = the other. Two-player,
zero-sum, sequential, explicit stochastic chance, imperfect information, terminal rewards,
perfect recall.

The throwing turns are those of `python_bidou` (games/bidou/game.py): chance gives each
throw's hand, the thrower then stops or throws again ("reroll", or under reroll=keep
"keep X"); the captain's whole turn comes first; the other player sees only his count. The
stakes are then walked on the one stakes tree (games/le_bidou/stakes.py), which also pays
each leaf, so the rules of the stakes are stated once for this game and the compact model.

Action ids: the throw decisions of `python_bidou` with the same faces ("stop" 0, "reroll"
1, the keeps), then "withdraw", "call", "stake 1" .. "stake M", "raise to 2" .. "raise to
M" (M = max_stake). Chance action ids are hand indices in `rules.all_hands(faces)`.

Information state string (perfect recall) for player p:
    "p<p> | c:<captain's turn> | o:<other's turn> | s:<stakes actions, comma-separated>"
A turn alternates throw results and decisions; the other player's results show as "?" and
his decisions as "stop" or "again". The observation string (no recall) is
    "p<p> hand:<own current hand or -> throws:<c>,<o> s:<stakes actions>".
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT, BettingTree, Leaf
from games.dice_game import (
    NUM_PLAYERS,
    DiceGame,
    ObserverView,
    ThrowTables,
    game_type,
)
from games.le_bidou.params import LeBidouParams
from games.le_bidou.stakes import CALL, WITHDRAW, raise_action, stake_action

_GAME_TYPE = game_type("python_le_bidou", "Python Le Bidou (one hand)",
                       LeBidouParams().to_dict(), tensors=False)


class _Tables(ThrowTables):
    """What one parameter set needs, shared by the game and all its states: the throwing
    turn's tables (games/dice_game.py), then the stakes tree and its action ids."""

    params: LeBidouParams

    def __init__(self, params: LeBidouParams):
        super().__init__(params)
        description = params.description()
        self.tree: BettingTree = description.trees()[CAPTAIN]
        top = params.max_stake + 1
        self.name_actions([WITHDRAW, CALL] + [stake_action(s) for s in range(1, top)]
                          + [raise_action(s) for s in range(2, top)])
        self.max_speeches = params.max_stake + 1      # stakes 1..M one by one, then an answer


class LeBidouGame(DiceGame[LeBidouParams, _Tables]):
    """One hand of Le Bidou. `game.params` holds the `LeBidouParams`."""

    spiel_type, params_type, tables_type = _GAME_TYPE, LeBidouParams, _Tables

    @classmethod
    def game_info(cls, params: LeBidouParams, tables: _Tables) -> dict[str, Any]:
        top = float(params.max_stake)
        return dict(num_players=NUM_PLAYERS, min_utility=-top, max_utility=top, utility_sum=0.0,
                    max_game_length=2 * (params.throws - 1) + tables.max_speeches)

    def new_initial_state(self) -> "LeBidouState":
        return LeBidouState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None
                         ) -> "LeBidouObserver":
        if params:
            raise ValueError(f"Observation parameters not supported; passed {params}")
        return LeBidouObserver(iig_obs_type or pyspiel.IIGObservationType(
            perfect_recall=False))


class LeBidouState(pyspiel.State):
    """A state of one hand. `hands`, `throw_counts` and `stakes` read it directly."""

    def __init__(self, game: LeBidouGame):
        super().__init__(game)
        self._t = game.tables
        self.hands: list[rules.Hand | None] = [None, None]   # current hand of each player
        self.throw_counts = [0, 0]
        self.turns: list[list] = [[], []]       # hands (tuples) and decision ids, in order
        self.thrower = CAPTAIN
        self.kept: rules.Kept = ()
        self.deciding = False                   # a thrower's decision (else: chance)
        self.node: int | None = None            # the stakes decision, once both have thrown
        self.stakes: list[str] = []             # the stakes actions so far
        self.leaf: Leaf | None = None
        self._returns = [0.0, 0.0]

    def current_player(self) -> int:
        if self.leaf is not None:
            return pyspiel.PlayerId.TERMINAL
        if self.node is not None:
            return int(self._t.tree.nodes[self.node].actor)
        return int(self.thrower) if self.deciding else pyspiel.PlayerId.CHANCE

    def _legal_actions(self, player: int) -> list[int]:
        t = self._t
        if self.node is not None:
            return sorted(t.action_ids[e.action] for e in t.tree.nodes[self.node].edges)
        return t.legal_throws(self.hands[player])

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self._t.outcomes(self.hands[self.thrower], self.kept))

    def _apply_action(self, action: int) -> None:
        if self.node is not None:
            self._speak(self._t.action_names[action])
        elif self.deciding:
            kept = self._t.record_decision(action, self.thrower, self.turns)
            if kept is None:
                self._end_turn()
            else:
                self.kept, self.deciding = kept, False
        elif self._t.record_throw(action, self.thrower, self.hands, self.throw_counts,
                                  self.turns):
            self._end_turn()
        else:
            self.deciding = True

    def _end_turn(self) -> None:
        self.kept, self.deciding = (), False
        if self.thrower == CAPTAIN:
            self.thrower = OPPONENT
        else:
            self.node = 0                      # the captain proposes, whatever the counts

    def _speak(self, name: str) -> None:
        tree = self._t.tree
        assert self.node is not None
        after = tree.child(tree.nodes[self.node], name)
        self.stakes.append(name)
        if isinstance(after, Leaf):
            p = self._t.params
            captain, other = self.hands
            assert captain is not None and other is not None
            outcome = rules.compare(captain, other, p.ranking, p.aces_beat_bidou)
            value = float(tree.payoff(after, outcome))
            self.leaf, self.node, self._returns = after, None, [value + 0.0, -value + 0.0]
        else:
            self.node = after.index

    def _action_to_string(self, player: int, action: int) -> str:
        return self._t.action_string(player, action)

    def is_terminal(self) -> bool:
        return self.leaf is not None

    def returns(self) -> list[float]:
        return list(self._returns)

    def __str__(self) -> str:
        """Everything, both players' dice included."""
        return " ".join([f"c:{self.turn_string(CAPTAIN, True)}",
                         f"o:{self.turn_string(OPPONENT, True)}", "s:" + ",".join(self.stakes)])

    def turn_string(self, owner: int, visible: bool) -> str:
        """A throwing turn as its owner sees it, or (not `visible`) as the other does."""
        return self._t.turn_string(self.turns[owner], self._t.action_names, visible)


class LeBidouObserver(ObserverView):
    """Strings only (the game provides no tensors): the PyObserver interface of
    open_spiel/python/observation.py with an empty tensor."""

    def __init__(self, iig_obs_type: Any):
        super().__init__(iig_obs_type)
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: LeBidouState, player: int) -> None:
        pass

    def string_from(self, state: LeBidouState, player: int) -> str:
        pieces = [f"p{player}"] if self.single or self.all else []
        stakes = "s:" + ",".join(state.stakes)
        if self.recall:
            for owner, label in ((CAPTAIN, "c"), (OPPONENT, "o")):
                if self.sees(player, owner) or self.public:
                    pieces.append(f"{label}:" + state.turn_string(
                        owner, self.sees(player, owner)))
            return " | ".join(pieces + ([stakes] if self.public else []))
        for owner in (CAPTAIN, OPPONENT):
            if self.sees(player, owner):
                hand = state.hands[owner]
                label = "hand" if self.single else f"hand{owner}"
                pieces.append(f"{label}:" + (rules.format_hand(hand) if hand else "-"))
        if self.public:
            counts = state.throw_counts
            pieces += [f"throws:{counts[CAPTAIN]},{counts[OPPONENT]}", stakes]
        return " ".join(pieces)


pyspiel.register_game(_GAME_TYPE, LeBidouGame)
