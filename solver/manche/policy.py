"""The solved manche as a policy the Monte Carlo simulator (`solver.manche.simulate`) plays:
each decision looked up in the stage equilibrium of its state. This adapter is the only
place where the simulator meets the solver. In a decided state (no stage game: the result
is fixed) it stops after one throw, proposes one chip and calls: any play gives the same."""

from __future__ import annotations

from typing import Mapping, Optional

from games.bidou.betting import CAPTAIN, OPPONENT
from games.le_bidou.manche import MancheParams, MancheState
from solver.manche.simulate import CALL, STOP, WITHDRAW, BetChoice, Chips, Dice, Rules, ThrowChoice
from solver.manche.solve import MancheSolution

SEATS = {"first": CAPTAIN, "second": OPPONENT}


def simulation_rules(params: MancheParams) -> Rules:
    """The manche's rules as the simulator spells them (French ranking only)."""
    if params.ranking != "french":
        raise ValueError("the simulator knows Le Bidou's French ranking only")
    return Rules(chips=params.chips, faces=params.faces, throws=params.throws,
                 reroll=params.reroll, aces_beat_bidou=params.aces_beat_bidou,
                 half_stake=params.half_stake, max_stake=params.max_stake)


def _bet_name(stakes: tuple[int, ...], choice: BetChoice) -> str:
    if choice in (WITHDRAW, CALL):
        return str(choice)
    return f"stake {choice}" if not stakes else f"raise to {choice}"


def _bet_choice(action: str) -> BetChoice:
    if action in (WITHDRAW, CALL):
        return action
    return int(action.split()[-1])


class SolvedPolicy:
    """Play the solved stage strategies of `solution`."""

    def __init__(self, solution: MancheSolution) -> None:
        self.solution = solution
        self._index: dict[MancheState, dict[Dice, int]] = {}
        self._throws: dict[tuple, Mapping[ThrowChoice, float]] = {}
        self._bets: dict[tuple, Mapping[BetChoice, float]] = {}

    def _stage(self, chips: Chips):  # type: ignore[no-untyped-def]
        state = MancheState(*chips)
        stage = self.solution.stages.get(state)
        if stage is not None and state not in self._index:
            self._index[state] = {h: i for i, h in enumerate(stage.model.hands)}
        return state, stage

    def throw(self, chips: Chips, seat: str, throws: int, dice: Dice,
              first_throws: Optional[int]) -> Mapping[ThrowChoice, float]:
        key = (chips, seat, throws, dice, first_throws)
        if key not in self._throws:
            self._throws[key] = self._throw(chips, seat, throws, dice, first_throws)
        return self._throws[key]

    def _throw(self, chips: Chips, seat: str, throws: int, dice: Dice,
               first_throws: Optional[int]) -> Mapping[ThrowChoice, float]:
        state, stage = self._stage(chips)
        if stage is None:
            return {STOP: 1.0}
        player = SEATS[seat]
        context = 0 if player == CAPTAIN else (first_throws or 1) - 1
        probs = stage.strategy.throw[player][context, throws - 1, :,
                                             self._index[state][dice]]
        return {(STOP if action == "stop" else tuple(action)): float(p)
                for action, p in zip(stage.model.throw_actions, probs) if p > 0}

    def bet(self, chips: Chips, seat: str, first_throws: int, second_throws: int,
            stakes: tuple[int, ...], dice: Dice,
            legal: tuple[BetChoice, ...]) -> Mapping[BetChoice, float]:
        key = (chips, first_throws, second_throws, stakes, dice)
        if key not in self._bets:
            self._bets[key] = self._bet(chips, first_throws, second_throws, stakes, dice, legal)
        return self._bets[key]

    def _bet(self, chips: Chips, first_throws: int, second_throws: int,
             stakes: tuple[int, ...], dice: Dice,
             legal: tuple[BetChoice, ...]) -> Mapping[BetChoice, float]:
        state, stage = self._stage(chips)
        if stage is None:
            return {CALL: 1.0} if stakes else {1: 1.0}
        tree = stage.model.tree((first_throws, second_throws))
        node = tree.node("".join(str(s) for s in stakes))
        probs = stage.strategy.betting[(first_throws, second_throws, node.history)]
        column = probs[:, self._index[state][dice]].clip(min=0.0)
        total = float(column.sum())
        out = {_bet_choice(a): float(p) / total for a, p in zip(node.actions, column) if p > 0}
        assert set(out) <= set(legal), (out, legal, _bet_name(stakes, next(iter(out))))
        return out
