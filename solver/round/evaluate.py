"""The chance to win of one person against another when both keep fixed strategies:
a Markov chain over (state, the person's role), solved as one linear system (`markov`). It
predicts what the Monte Carlo simulator must find when one side plays differently."""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Mapping, TypeVar

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy
from solver.round import markov
from solver.round.solve import RoundSolution
from solver.round.stage import transitions
from solver.round.states import ChipState, Next, OpenThrowState, State, after_open_throw

Change = Callable[[ChipState, Strategy], Strategy]
Key = tuple[State, int]          # (state, 0 if person A is captain or first thrower, else 1)
N = TypeVar("N", float, Fraction)


def combined(model: HandModel, captain: Strategy, opponent: Strategy) -> Strategy:
    """The captain's part of one strategy with the opponent's part of another."""
    betting = {}
    for (tc, to, history), probs in captain.betting.items():
        actor = model.tree((tc, to)).node(history).actor
        betting[(tc, to, history)] = (probs if actor == CAPTAIN
                                      else opponent.betting[(tc, to, history)]).copy()
    return Strategy((captain.throw[CAPTAIN].copy(), opponent.throw[OPPONENT].copy()), betting)


def pair_values(solution: RoundSolution, mine: Change, theirs: Change
                ) -> dict[Key, float]:
    """{(state, role): P(person A wins the round)} when A plays `mine(state, solved)` and
    B plays `theirs(state, solved)` at every chip state (both keep the solved open-throw
    policies); role 0: A is captain (or first thrower), 1: B is."""
    def moves(s: ChipState, a_first: bool) -> dict[Next, float]:
        stage = solution.stages[s]
        a, b = mine(s, stage.strategy), theirs(s, stage.strategy)
        pair = (combined(stage.model, a, b) if a_first
                else combined(stage.model, b, a))
        return transitions(stage.model, s, pair)

    rows = pair_rows(solution, moves, lambda s: solution.open_throws[s].p_low_wins, 0.0)
    return markov.solve(markov.chain(rows))


def pair_rows(solution: RoundSolution, moves: Callable[[ChipState, bool], Mapping[Next, N]],
              low_wins: Callable[[OpenThrowState], N], zero: N
              ) -> dict[Key, list[tuple[Key | None, N]]]:
    """The chain of person A's chance to win when both people's play is fixed, a row per
    (state, role): `moves(state, a_first)` is where the hand at a chip state leads with A
    captain (or not), `low_wins(state)` the chance that an open throw's low player wins,
    `zero` the number 0. In floats for `pair_values`, exactly for the round sheet's proof
    (`solver.cheatsheet.round_exact`), from the one statement of the chain."""
    rows: dict[Key, list[tuple[Key | None, N]]] = {}
    for s in solution.values:
        for role in (0, 1):
            a_first = role == 0
            if isinstance(s, OpenThrowState):
                p_low = low_wins(s)
                row: list[tuple[Key | None, N]] = [(None, p_low if a_first else zero)]
                after: Mapping[Next, N] = {after_open_throw(s): 1 - p_low}
            else:
                row, after = [], moves(s, a_first)
            for nxt, p in after.items():
                if nxt.state is None:
                    assert nxt.end is not None
                    row.append((None, p * (nxt.end if a_first else 1 - nxt.end)))
                else:
                    row.append(((nxt.state, nxt.seat(a_first)), p))
            rows[(s, role)] = row
    return rows


def uniform_betting(state: ChipState, strategy: Strategy) -> Strategy:
    """The solved strategy with every betting decision made uniformly at random: a
    deliberately weaker player (his throwing is still the solved one)."""
    out = strategy.copy()
    for key, probs in out.betting.items():
        out.betting[key] = np.full(probs.shape, 1.0 / probs.shape[0])
    return out


def solved(state: ChipState, strategy: Strategy) -> Strategy:
    return strategy
