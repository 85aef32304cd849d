"""The solved round as a policy the Monte Carlo simulator (`solver.round.simulate`) plays:
each decision looked up in the stage equilibrium of its chip state, or in the open throw's
solved policy. This adapter is the only place where the simulator meets the solver."""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from solver.round.solve import RoundSolution
from solver.round.states import ChipState, OpenThrowState
from solver.strategy import Strategy

ROLES = {"captain": CAPTAIN, "opponent": OPPONENT}


class SolvedPolicy:
    """Play the solved strategies; `betting` may replace a stage's strategy (to make a
    deliberately different player: `betting(state, strategy) -> strategy`)."""

    def __init__(self, solution: RoundSolution,
                 betting: Callable[[ChipState, Strategy], Strategy] | None = None):
        self.solution = solution
        self.betting = betting
        first = next(iter(solution.stages.values())).model
        self.index = {h: i for i, h in enumerate(first.hands)}
        self.actions = first.throw_actions
        self._strategies: dict[ChipState, Strategy] = {}

    def _strategy(self, chips) -> tuple[ChipState, Strategy]:
        state = ChipState(*chips)
        if state not in self._strategies:
            strategy = self.solution.stages[state].strategy
            if self.betting is not None:
                strategy = self.betting(state, strategy)
            self._strategies[state] = strategy
        return state, self._strategies[state]

    def throw(self, chips, role, throws, hand, captain_throws) -> Mapping:
        _, strategy = self._strategy(chips)
        player = ROLES[role]
        context = 0 if player == CAPTAIN else captain_throws - 1
        probs = strategy.throw[player][context, throws - 1, :, self.index[tuple(hand)]]
        return {self.actions[a]: float(p) for a, p in enumerate(probs) if p > 0}

    def bet(self, chips, role, captain_throws, opponent_throws, history, hand, legal):
        state, strategy = self._strategy(chips)
        model = self.solution.stages[state].model
        node = model.tree((captain_throws, opponent_throws)).after(history)
        probs = strategy.betting[(captain_throws, opponent_throws, node.history)]
        column = np.maximum(probs[:, self.index[tuple(hand)]], 0.0)
        return {str(a): float(p) / float(column.sum()) for a, p in zip(node.actions, column)}

    def open_throw(self, chips, role, throws, hand, low_hand) -> Mapping:
        solved = self.solution.open_throws[OpenThrowState(*chips)].solved
        hand = rules.normalize_hand(hand)
        if role == "low":
            return {solved.l_policy[(throws, hand)]: 1.0}
        return {solved.h_policy[(rules.normalize_hand(low_hand), throws, hand)]: 1.0}
