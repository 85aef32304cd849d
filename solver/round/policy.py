"""The solved round as a policy the Monte Carlo simulator (`solver.round.simulate`) plays:
each decision looked up in the stage equilibrium of its chip state, or in the open throw's
solved policy. This adapter is the only place where the simulator meets the solver."""

from __future__ import annotations

from typing import Callable, Mapping, Optional

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT, Node
from solver.hand.strategy import Strategy
from solver.round.simulate import Action, Chips, Hand
from solver.round.solve import RoundSolution
from solver.round.states import ChipState, OpenThrowState

ROLES = {"captain": CAPTAIN, "opponent": OPPONENT}


class SolvedPolicy:
    """Play the solved strategies; `betting` may replace a stage's strategy (to make a
    deliberately different player: `betting(state, strategy) -> strategy`)."""

    def __init__(self, solution: RoundSolution,
                 betting: Callable[[ChipState, Strategy], Strategy] | None = None) -> None:
        self.solution = solution
        self.betting = betting
        first = next(iter(solution.stages.values())).model
        self.index = {h: i for i, h in enumerate(first.hands)}
        self.actions = first.throw_actions
        self._strategies: dict[ChipState, Strategy] = {}

    def _strategy(self, chips: Chips) -> tuple[ChipState, Strategy]:
        state = ChipState(*chips)
        if state not in self._strategies:
            strategy = self.solution.stages[state].strategy
            if self.betting is not None:
                strategy = self.betting(state, strategy)
            self._strategies[state] = strategy
        return state, self._strategies[state]

    def throw(self, chips: Chips, role: str, throws: int, hand: Hand,
              captain_throws: Optional[int]) -> Mapping[Action, float]:
        _, strategy = self._strategy(chips)
        player = ROLES[role]
        if player == CAPTAIN:
            context = 0
        else:
            assert captain_throws is not None, "the opponent is told the captain's throws"
            context = captain_throws - 1
        probs = strategy.throw[player][context, throws - 1, :, self.index[hand]]
        return {self.actions[a]: float(p) for a, p in enumerate(probs) if p > 0}

    def bet(self, chips: Chips, role: str, captain_throws: int, opponent_throws: int,
            history: tuple[str, ...], hand: Hand,
            legal: tuple[str, ...]) -> Mapping[str, float]:
        state, strategy = self._strategy(chips)
        model = self.solution.stages[state].model
        node = model.tree((captain_throws, opponent_throws)).after(history)
        assert isinstance(node, Node), "a policy is asked at decisions only"
        probs = strategy.betting[(captain_throws, opponent_throws, node.history)]
        column = np.maximum(probs[:, self.index[hand]], 0.0)
        return {str(a): float(p) / float(column.sum()) for a, p in zip(node.actions, column)}

    def open_throw(self, chips: Chips, role: str, throws: int, hand: Hand,
                   low_hand: Optional[Hand]) -> Mapping[Action, float]:
        solved = self.solution.open_throws[OpenThrowState(*chips)].solved
        hand = rules.normalize_hand(hand)
        if role == "low":
            return {solved.l_policy[(throws, hand)]: 1.0}
        assert low_hand is not None, "the high player sees the low player's hand"
        return {solved.h_policy[(rules.normalize_hand(low_hand), throws, hand)]: 1.0}
