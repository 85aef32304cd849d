"""Montevideo's heads-up end as a stochastic game over (captain's chips, other's chips, ante),
solved ante by ante from the top.

The ante only rises until six (V15), so a round at ante a < 6 leads to ante a + 1 or ends the
game: the states of one ante below six are solved once each, after every state of the ante
above, with the values of those known. At ante six the rounds stay at ante six and chips flow
both ways: those states form one component whose values solve V = val(stage games paying V).
As for the round and the manche (solver/round/solve.py), every round of stage solves is
followed by a policy evaluation (the stage strategies held fixed, the values they give solved
from the component's linear system, `solver.round.markov`): Newton's method on V - val(V); a
step that does not shrink the residual falls back to a Shapley step (the stage values). It
stops when the stage values reproduce V to STOP_RESIDUAL; the numbers are proved by
`certify`, never by this residual.

A stage whose tree is large (more than DOUBLE_ORACLE_ROWS betting rows) is solved by the
double oracle on restricted trees, the others by one LP, each later solve of a stage from
where its last ended (solver/hand/lp/resolve.py). The states of one ante are independent and run
side by side on worker processes.
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Sequence

import numpy as np

from games.montevideo.heads_up import MAX_ANTE, HeadsUpParams, HeadsUpState
from solver.common.errors import SolverError
from solver.common.progress import Step, quiet
from solver.common.workers import Runner
from solver.hand.lp.resolve import Start, solve_again
from solver.hand.strategy import Strategy
from solver.montevideo.stage import Values, model_at, transitions
from solver.round import markov

STOP_RESIDUAL = 1e-13
MAX_ROUNDS = 60
DOUBLE_ORACLE_ROWS = 2048


@dataclasses.dataclass(frozen=True)
class Stage:
    """A solved round: the stage equilibrium, its value to the captain, how it was found."""

    strategy: Strategy
    value: float
    method: str
    seconds: float


@dataclasses.dataclass(frozen=True)
class HeadsUpSolution:
    params: HeadsUpParams
    values: dict[HeadsUpState, float]
    stages: dict[HeadsUpState, Stage]
    residuals: tuple[float, ...]          # the top ante's component, one per round of solves
    seconds: float
    equilibrium: str = "plain LP vertex"


def solve_stage(params: HeadsUpParams, state: HeadsUpState, values: Values,
                start: Start | None) -> tuple[Stage, Start]:
    """The stage equilibrium of `state` at `values`, from `start` (its last solve)."""
    begin = time.perf_counter()
    lp, method, after = solve_again(model_at(params, state, values), start,
                                    DOUBLE_ORACLE_ROWS)
    return Stage(lp.strategy, lp.value, method, time.perf_counter() - begin), after


def default_workers(params: HeadsUpParams) -> int:
    """The machine's cores (at most 4) for six faces, whose stages take seconds; else one."""
    if params.faces < 6:
        return 1
    return max(1, min(4, os.cpu_count() or 1))


def _evaluate(params: HeadsUpParams, component: Sequence[HeadsUpState],
              stages: dict[HeadsUpState, Stage], values: Values) -> Values:
    """The component's values when every stage keeps its strategy: V = r + M V."""
    inside = set(component)
    rows = {s: [term for nxt, p in transitions(params, s, stages[s].strategy).items()
                for term in markov.lead_terms(nxt, p, inside, values)]
            for s in component}
    return markov.solve(markov.chain(rows))


def _first_guess(state: HeadsUpState) -> float:
    """The captain's share of the chips: what a chip-counting player would say."""
    return state.captain / state.total


def solve_heads_up(params: HeadsUpParams, progress: Step | None = None,
                   workers: int | None = None) -> HeadsUpSolution:
    """Every state's value and stage equilibrium (module docstring); SolverError if a stage
    fails or the top ante's component does not settle in MAX_ROUNDS rounds."""
    begin = time.perf_counter()
    progress = progress or quiet
    states = params.states()
    runner = Runner(default_workers(params) if workers is None else workers, "montevideo")
    values: Values = {}
    stages: dict[HeadsUpState, Stage] = {}
    residuals: list[float] = []
    done = 0
    try:
        top = [s for s in states if s.ante == MAX_ANTE]
        values.update({s: _first_guess(s) for s in top})
        starts: dict[HeadsUpState, Start | None] = {s: None for s in top}
        best = float("inf")
        for rounds in range(1, MAX_ROUNDS + 1):
            progress(f"ante {MAX_ANTE}: round {rounds} of stage solves", done, len(states))
            found = runner.map(solve_stage, [(params, s, values, starts[s]) for s in top])
            for s, (stage, start) in zip(top, found):
                stages[s], starts[s] = stage, start
            shapley = {s: stages[s].value for s in top}
            residual = max(abs(shapley[s] - values[s]) for s in top)
            residuals.append(residual)
            if residual < STOP_RESIDUAL:
                values.update(shapley)
                break
            if residual < best:
                best = residual
                try:
                    values.update(_evaluate(params, top, stages, values))
                    continue
                except np.linalg.LinAlgError:     # strategies that never leave the states
                    pass
            values.update(shapley)
        else:
            raise SolverError(f"the ante-{MAX_ANTE} states did not settle in {MAX_ROUNDS} "
                              f"rounds (residual {residuals[-1]:.2e})")
        done = len(top)
        for ante in range(MAX_ANTE - 1, params.first_ante - 1, -1):
            mine = [s for s in states if s.ante == ante]
            progress(f"ante {ante}: {len(mine)} states", done, len(states))
            for s, (stage, _) in zip(mine, runner.map(solve_stage, [(params, s, values, None)
                                                                     for s in mine])):
                stages[s], values[s] = stage, stage.value
            done += len(mine)
    finally:
        runner.close()
    return HeadsUpSolution(params, values, stages, tuple(residuals),
                           time.perf_counter() - begin)
