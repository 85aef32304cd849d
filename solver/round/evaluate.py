"""The chance to win of one person against another when both keep fixed strategies:
a Markov chain over (state, the person's role), solved as one linear system (`markov`). It
predicts what the Monte Carlo simulator must find when one side plays differently."""

from __future__ import annotations

from typing import Callable

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy
from solver.round import markov
from solver.round.solve import RoundSolution
from solver.round.stage import transitions
from solver.round.states import ChipState, OpenThrowState, State, after_open_throw

Change = Callable[[ChipState, Strategy], Strategy]
Key = tuple[State, int]          # (state, 0 if person A is captain or first thrower, else 1)


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
    rows: dict[Key, list[markov.Term[Key]]] = {}
    for s in solution.values:
        for role in (0, 1):
            a_first = role == 0
            if isinstance(s, OpenThrowState):
                p_low = solution.open_throws[s].p_low_wins
                row: list[markov.Term[Key]] = [(None, p_low if a_first else 0.0)]
                moves = {after_open_throw(s): 1 - p_low}
            else:
                stage = solution.stages[s]
                a, b = mine(s, stage.strategy), theirs(s, stage.strategy)
                pair = (combined(stage.model, a, b) if a_first
                        else combined(stage.model, b, a))
                row, moves = [], transitions(stage.model, s, pair)
            for nxt, p in moves.items():
                if nxt.state is None:
                    assert nxt.end is not None
                    row.append((None, p * (nxt.end if a_first else 1 - nxt.end)))
                else:
                    row.append(((nxt.state, nxt.seat(a_first)), p))
            rows[(s, role)] = row
    return markov.solve(markov.chain(rows))


def uniform_betting(state: ChipState, strategy: Strategy) -> Strategy:
    """The solved strategy with every betting decision made uniformly at random: a
    deliberately weaker player (his throwing is still the solved one)."""
    out = strategy.copy()
    for key, probs in out.betting.items():
        out.betting[key] = np.full(probs.shape, 1.0 / probs.shape[0])
    return out


def solved(state: ChipState, strategy: Strategy) -> Strategy:
    return strategy
