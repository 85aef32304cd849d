"""The manche as a stochastic game over (pool, first player's chips, second player's chips),
solved component by component from the smallest pool up.

A hand's chips come from the pool, so every hand leads to a smaller pool, except a tie,
which swaps the two players at the same pool. A component is therefore a state and its swap
((p, a, b) and (p, b, a); one state when a == b), and the components are solved in order
of the pool, each after every state its hands lead to. States already decided (a player
holds more than half of the chips) have their value without a hand and are not solved.

Inside a component the values solve V = val(stage games paying V), where V enters only
through the tie leaves. As in the round (solver/round/solve.py), each round of stage solves
is followed by a policy evaluation: the stage strategies are held fixed and the values they
give are solved from the component's small linear system (`solver.round.markov`), Newton's
method on V - val(V); a step that does not shrink the residual falls back to a Shapley step.
The numbers are then proved by `certify`, never by this residual; that proof may run beside
the solve (`beside`: each pool's proof in the next pool's first batch of stage solves).
Newton's method starts from the values of the states one chip away in the pool below
(`first_guess`), with LPs: the round's guess by CFR strategies first cost more here than the
extra round of warm LP solves it saved (docs/manche.md, "Measured": a stage's LP from its
last basis takes about a second, a CFR guess of a large stage ten or more).

How a stage is solved, and where each solve starts from the last one, is
solver/manche/stage_solve.py. The components of one pool are independent (their hands lead
to smaller pools only), so they are solved together: each component is a generator of
batches of stage tasks (`_component`), and every round the tasks of all the pool's
components run side by side on the worker processes (`_solve_pool`). A component's tasks
depend only on its own results, so the numbers are those of a solve in one process.
"""

from __future__ import annotations

import dataclasses
import time
from fractions import Fraction
from typing import Any, Generator, Protocol

import numpy as np

from games.le_bidou.manche import MancheParams, MancheState, all_states, decided, start
from solver.common.errors import SolverError
from solver.common.progress import Step, quiet
from solver.common.workers import Runner
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy
from solver.manche.stage import transitions
from solver.manche.stage_solve import (
    Solved,
    Start,
    Values,
    call,
    default_workers,
    model_at,
    solve_stage,
)
from solver.round import markov

STOP_RESIDUAL = 1e-12
# a round that does not improve below this is the LPs' own noise: stop there (the
# certificate proves what the strategies are worth, whatever the residual)
NOISE_RESIDUAL = 1e-9
MAX_ROUNDS = 30

__all__ = ["Beside", "MancheSolution", "Stage", "components", "decided_values",
           "solve_manche"]


@dataclasses.dataclass(frozen=True)
class Stage:
    """The solved hand of one state: its model (paying the continuation values), the stage
    equilibrium, its value to the first player, how it was solved and how long it took."""

    model: HandModel
    strategy: Strategy
    value: float
    method: str
    seconds: float


@dataclasses.dataclass(frozen=True)
class MancheSolution:
    params: MancheParams
    values: Values                              # every state, decided ones included
    known: dict[MancheState, Fraction]          # the decided states' exact values
    stages: dict[MancheState, Stage]
    components: tuple[tuple[MancheState, ...], ...]
    history: dict[int, list[float]]             # component -> residual per round
    seconds: float
    # seconds of each component's stage solves, summed over the
    # worker processes that ran them
    component_seconds: tuple[float, ...] = ()
    # every stage solve in the order run: the state, its seconds and how it was solved
    tasks: tuple[tuple[MancheState, float, str], ...] = ()
    # wall seconds of `beside`'s work left after the last pool's stage solves (its
    # earlier work ran in the pools' batches, inside `seconds`)
    beside_seconds: float = 0.0

    @property
    def start_value(self) -> float:
        """The first player's chance to win the manche (all chips in the pool)."""
        return self.values[start(self.params.chips)]


def components(chips: int) -> list[tuple[MancheState, ...]]:
    """The undecided states, a state with its swap, smallest pool first."""
    out: list[tuple[MancheState, ...]] = []
    for state in sorted(all_states(chips)):
        if decided(state) is None and state.first <= state.second:
            out.append((state,) if state.first == state.second else (state, state.swapped()))
    return out


# A stage task a component asks for: the state and the values its leaves pay
Task = tuple[MancheState, Values]
Steps = Generator[list[Task], list[Stage], tuple[dict[MancheState, Stage], list[float]]]


class Beside(Protocol):
    """Work for the worker processes that reads each pool once it is solved (the proof,
    `certify.PoolProofs`): its calls for a pool run in the next pool's first batch of stage
    solves, on workers the stage solves leave idle, and the last pool's after the solve.
    Each pool's results are taken before the next pool's calls are asked for."""

    def calls(self, components: list[tuple[MancheState, ...]],
              strategies: dict[MancheState, Strategy], values: Values
              ) -> list[tuple[Any, ...]]: ...

    def take(self, found: list[Any]) -> None: ...


class _Stages:
    """Runs the stage solves of a round, keeping where each stage's next solve starts."""

    def __init__(self, params: MancheParams, runner: Runner) -> None:
        self.params, self.runner = params, runner
        self.starts: dict[MancheState, Start] = {}
        self.log: list[tuple[MancheState, float, str]] = []

    def run(self, tasks: list[Task], extra: list[tuple[Any, ...]]
            ) -> tuple[list[Stage], list[Any]]:
        """The stages of `tasks`, and the results of the `extra` calls run in the same
        batch, after them (`Beside`)."""
        calls = [(solve_stage, self.params, state, values, self.starts.get(state))
                 for state, values in tasks]
        found = self.runner.map(call, calls + extra)
        out = []
        for (state, values), result in zip(tasks, found):
            assert isinstance(result, Solved)
            self.starts[state] = result.start
            out.append(Stage(model_at(self.params, state, values), result.strategy,
                             result.value, result.method, result.seconds))
            self.log.append((state, result.seconds, result.method))
        return out, found[len(calls):]


def _evaluate(params: MancheParams, component: tuple[MancheState, ...],
              stages: dict[MancheState, Stage], values: Values) -> Values:
    """The component's values when every stage keeps its strategy: V = r + M V."""
    inside = set(component)
    rows = {s: [term for nxt, p in transitions(params, stages[s].model, s,
                                                stages[s].strategy).items()
                for term in markov.lead_terms(nxt, p, inside, values)]
            for s in component}
    return markov.solve(markov.chain(rows))


def first_guess(state: MancheState, known: Values) -> float:
    """Where Newton's method starts: the mean of the values of the two states of the pool
    below that hold one chip more (solved already, or decided), else 1/2. Closer than 1/2
    (8,0,1: 0.619 for 0.597), so the first LPs are cheaper and the components settle
    sooner (docs/manche.md, "Measured")."""
    near = [known[n] for n in (MancheState(state.pool - 1, state.first, state.second + 1),
                               MancheState(state.pool - 1, state.first + 1, state.second))
            if n in known]
    return sum(near) / len(near) if near else 0.5


def _component(params: MancheParams, component: tuple[MancheState, ...], known: Values
               ) -> Steps:
    """One component's stages, from `first_guess`: Newton steps where they shrink the residual,
    else Shapley steps; and the residual after each round of stage solves. A generator:
    it yields each round's stage tasks and is sent their results."""
    values = dict(known)
    values.update({s: first_guess(s, known) for s in component})

    def tasks(at: Values) -> list[Task]:
        return [(s, at) for s in component]

    def residual_of(found: dict[MancheState, Stage], at: Values) -> float:
        return max(abs(found[s].value - at[s]) for s in component)

    residuals: list[float] = []
    found = dict(zip(component, (yield tasks(values))))
    for _ in range(MAX_ROUNDS):
        residual = residual_of(found, values)
        residuals.append(residual)
        if residual <= STOP_RESIDUAL or (len(residuals) > 1 and residual <= NOISE_RESIDUAL
                                         and residual >= residuals[-2]):
            return found, residuals
        try:
            trial = dict(values)
            trial.update(_evaluate(params, component, found, values))
        except np.linalg.LinAlgError:      # strategies that only tie: no Newton step
            trial = {}
        if trial:
            check = dict(zip(component, (yield tasks(trial))))
            if residual_of(check, trial) < residual:
                values, found = trial, check
                continue
        values = dict(values)
        values.update({s: found[s].value for s in component})       # Shapley step
        found = dict(zip(component, (yield tasks(values))))
    raise SolverError(f"the values of {component[0].label()} and its swap did not settle in "
                      f"{MAX_ROUNDS} rounds (residual {residuals[-1]:.1e})")


def _solve_pool(stages: _Stages, steps: list[Steps], extra: list[tuple[Any, ...]]
                ) -> tuple[list[tuple[dict[MancheState, Stage], list[float], float]],
                           list[Any]]:
    """Run the components of one pool together: each round, every unfinished component's
    tasks in one batch, the first with the `extra` calls after them. Each component's
    stages, residuals and task seconds; the extra calls' results."""
    results: list[Any] = [None] * len(steps)
    spent = [0.0] * len(steps)
    asked = {number: next(gen) for number, gen in enumerate(steps)}
    extra_found: list[Any] = []
    while asked:
        batch = [(number, task) for number in sorted(asked) for task in asked[number]]
        done, beside_found = stages.run([task for _, task in batch], extra)
        if extra:
            extra, extra_found = [], beside_found
        for number in sorted(asked):
            mine = [stage for (n, _), stage in zip(batch, done) if n == number]
            spent[number] += sum(stage.seconds for stage in mine)
            try:
                asked[number] = steps[number].send(mine)
            except StopIteration as stop:
                found, residuals = stop.value
                results[number] = (found, residuals, spent[number])
                del asked[number]
    return results, extra_found


def decided_values(params: MancheParams) -> dict[MancheState, Fraction]:
    """The decided states (a player holds more than half of the chips), exactly."""
    return {s: v for s in all_states(params.chips) if (v := decided(s)) is not None}


def solve_manche(params: MancheParams, progress: Step | None = None,
                 workers: int | None = None, beside: Beside | None = None
                 ) -> MancheSolution:
    """Every state's value and stage equilibrium (module docstring), the stages of a pool
    on `workers` processes (`stage_solve.default_workers`; 1: this one), and `beside`'s
    work for each pool once it is solved (`Beside`). `progress` hears ("pool P", states
    solved, states to solve) before each pool."""
    begin = time.perf_counter()
    progress = progress or quiet
    known = decided_values(params)
    values: Values = {s: float(v) for s, v in known.items()}
    order = components(params.chips)
    total = sum(len(c) for c in order)
    runner = Runner(default_workers(params) if workers is None else workers, "manche")
    stages = _Stages(params, runner)
    solved: dict[MancheState, Stage] = {}
    history: dict[int, list[float]] = {}
    spent: list[float] = []
    extra: list[tuple[Any, ...]] = []           # beside's calls for the pool just solved
    try:
        for pool in sorted({c[0].pool for c in order}):
            mine = [c for c in order if c[0].pool == pool]
            progress(f"pool {pool}", len(solved), total)
            found, extra_found = _solve_pool(
                stages, [_component(params, c, dict(values)) for c in mine], extra)
            if beside is not None and extra:
                beside.take(extra_found)
            for component, (stage_of, residuals, seconds) in zip(mine, found):
                history[len(history)] = residuals
                spent.append(seconds)
                solved.update(stage_of)
                values.update({s: stage_of[s].value for s in component})
            if beside is not None:
                strategies = {s: solved[s].strategy for c in mine for s in c}
                extra = beside.calls(mine, strategies, values)
        solved_at, tail = time.perf_counter(), 0.0
        progress("solved", total, total)
        if beside is not None and extra:
            progress("proving", 0, 1)
            beside.take(runner.map(call, extra))
            tail = time.perf_counter() - solved_at
    finally:
        runner.close()
    return MancheSolution(params, values, known, solved, tuple(order), history,
                          solved_at - begin, tuple(spent), tuple(stages.log), tail)
