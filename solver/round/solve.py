"""The round as a stochastic game over chip states, solved component by component.

States are solved in the order of the condensation of the state graph (`states.solve_order`):
every component after the ones it leads to, so the continuation values its hands pay are
known or belong to the component itself. Most components are a state and its mirror (a pass
or a tie only swaps the captain); once the centre is empty chips flow both ways and one
component holds every state without centre chips, with its open throw.

Inside a component the values solve V = val(stage games paying V). Shapley's value
iteration (solve every stage with the current V, take the stage values) converges only as
fast as play leaves the component. Here each round of stage solves is followed by a policy
evaluation (Pollatschek and Avi-Itzhak 1969; Filar and Vrieze, "Competitive Markov Decision
Processes", section 6.3): both players' stage equilibrium strategies are held fixed and the
values they give are solved exactly from a small linear system over the component's states.
Near the solution this is Newton's method on V - val(V) (quadratic); a step that does not
shrink the residual falls back to a Shapley step, which always does. The loop stops when the
stage values reproduce V to STOP_RESIDUAL; the numbers are then proved by `certify`, never
by this residual.

Two things make the LPs cheap. Newton's first step starts from a guess, and an LP solved at
a poor guess is as dear as any other while its basis is no start for the next one; so the
guess is made first by the same Newton steps with stage strategies from a few hundred CFR
iterations (`WARM_STEPS` x `WARM_ITERATIONS`, milliseconds a stage), which put V within
about 1e-5 of the answer. And every later LP starts from the stage's previous basis
(`_Stages`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import time
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from solver.common.errors import SolverError
from solver.common.progress import Step
from solver.common.workers import WorkerPool, start_method
from solver.hand.cfr import kernel as cfr_kernel
from solver.hand.cfr.iterations import RULES, CFRSolver
from solver.hand.lp.sequence_form import Basis, solve_lp_from
from solver.hand.model import HandModel, build_model
from solver.hand.strategy import Strategy
from solver.round import markov
from solver.round.open_throw import SolvedOpenThrow, solve_open_throw
from solver.round.stage import stage_model, transitions
from solver.round.states import (
    ChipState,
    Next,
    OpenThrowState,
    State,
    after_open_throw,
    solve_order,
    start,
    state_graph,
)

STOP_RESIDUAL = 1e-13
MAX_ROUNDS = 60
MAX_SHAPLEY_ROUNDS = 2000
WARM_STEPS = 3
WARM_ITERATIONS = 300


@dataclasses.dataclass(frozen=True)
class Stage:
    """The solved hand of one chip state: its model (paying the continuation values), the
    stage equilibrium and its value to the captain."""

    model: HandModel
    strategy: Strategy
    value: float


@dataclasses.dataclass(frozen=True)
class OpenStage:
    """A solved open throw: value to the first thrower, P(he wins the round outright), both
    exact for the continuation (his value if he loses the throw) it was solved with."""

    value: float
    p_low_wins: float
    solved: SolvedOpenThrow

    @property
    def exact(self) -> Fraction:
        return self.solved.value

    @property
    def continuation(self) -> Fraction:
        return self.solved.continuation

    @property
    def p_tie(self) -> Fraction:
        return self.solved.p_tie


@dataclasses.dataclass(frozen=True)
class RoundSolution:
    params: RoundParams
    values: dict[State, float]
    stages: dict[ChipState, Stage]
    open_throws: dict[OpenThrowState, OpenStage]
    components: tuple[tuple[State, ...], ...]
    history: dict[int, list[float]]          # component index -> residual per round
    seconds: float
    # which equilibrium each stage's strategy is: the LP's vertex, or "refined" once
    # solver/round/refine_stages.py has replaced them (the values stay the solve's)
    equilibrium: str = "plain LP vertex"

    @property
    def start_value(self) -> float:
        """The first captain's chance to win the round (all chips in the centre)."""
        return self.values[start(self.params.chips)]


Values = dict[State, float]
Stages = dict[ChipState, Stage]
Opens = dict[OpenThrowState, OpenStage]


def solve_stage(base: HandModel, state: ChipState, values: Values,
                start: Basis | None = None) -> tuple[Stage, Basis]:
    """The stage game of `state` against `values`, by an LP started from `start` (the
    basis of an earlier solve of this stage), and its final basis."""
    model = stage_model(base, state, lambda nxt: nxt.value(values))
    lp, basis = solve_lp_from(model, start)
    return Stage(model, lp.strategy, lp.value), basis


def solve_open(params: RoundParams, state: OpenThrowState, values: Values) -> OpenStage:
    c = Fraction(after_open_throw(state).value(values))
    solved = solve_open_throw(params.hand, c)
    return OpenStage(float(solved.value), float(solved.p_l_wins), solved)


def _evaluate(component: list[State], stages: Stages, opens: Opens,
              values: Values) -> Values:
    """The values of the component's states when every stage keeps its strategies: the
    solution of V = r + M V (continuations outside the component are known). Raises
    numpy.linalg.LinAlgError when those strategies never leave the component."""
    inside = set(component)

    def terms(nxt: Next, p: float) -> list[markov.Term[State]]:
        if nxt.state is None:
            assert nxt.end is not None
            return [(None, p * nxt.end)]
        if nxt.state in inside:
            # the value there, or one minus it (the other person's): p (1 - V)
            return [(nxt.state, p)] if nxt.same else [(None, p), (nxt.state, -p)]
        return [(None, p * nxt.value(values))]

    rows: dict[State, list[markov.Term[State]]] = {}
    for s in component:
        if isinstance(s, OpenThrowState):
            p_low = opens[s].p_low_wins
            rows[s] = [(None, p_low), *terms(after_open_throw(s), 1 - p_low)]
        else:
            moves = transitions(stages[s].model, s, stages[s].strategy)
            rows[s] = [term for nxt, p in moves.items() for term in terms(nxt, p)]
    return markov.solve(markov.chain(rows))


@functools.lru_cache(maxsize=4)
def _base_model(hand: BidouParams) -> HandModel:
    return build_model(hand)


StageResult = tuple[Strategy, float, Basis]


def _solve_task(params: RoundParams, state: State, values: Values,
                start: Basis | None) -> OpenStage | StageResult:
    """One stage (LP) or open throw, in a worker process: what the parent keeps of it."""
    if isinstance(state, OpenThrowState):
        return solve_open(params, state, values)
    stage, basis = solve_stage(_base_model(params.hand), state, values, start)
    return stage.strategy, stage.value, basis


@dataclasses.dataclass(frozen=True)
class StageSolutions:
    """A component's stages and open throws solved against some values: their values (the
    stage values V' = val(V)), stage equilibria and open-throw solutions."""

    values: Values
    stages: Stages
    opens: Opens


class _Stages:
    """Solves the stages of a component against given values, in parallel worker processes
    when there are several cores and the hand is large enough to be worth shipping.

    Each LP after a stage's first starts from that stage's last basis: successive solves
    differ only in a few continuation values, and from the previous optimal basis the dual
    simplex needs a handful of pivots instead of thousands."""

    def __init__(self, params: RoundParams, base: HandModel, workers: int) -> None:
        self.params, self.base = params, base
        self.bases: dict[State, Basis] = {}
        # fork where the platform has it: workers start at once and need no importable
        # __main__ (the solves hold no threads or locks when the pool starts)
        method = start_method()
        self.pool = WorkerPool(workers, method, what="round") if workers > 1 else None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()

    def solve(self, component: list[State], values: Values) -> StageSolutions:
        """Solve every stage of the component against `values`."""
        needed = {s: values[s] for s in values}
        starts = [self.bases.get(s) for s in component]
        if self.pool is not None and len(component) > 1:
            results = self.pool.map(_solve_task, [(self.params, s, needed, start)
                                                  for s, start in zip(component, starts)])
        else:
            results = [_solve_task(self.params, s, needed, start)
                       for s, start in zip(component, starts)]
        found: Values = {}
        stages: Stages = {}
        opens: Opens = {}
        for s, result in zip(component, results):
            if isinstance(result, OpenStage):
                assert isinstance(s, OpenThrowState)
                opens[s] = result
                found[s] = result.value
            else:
                assert isinstance(s, ChipState)
                strategy, value, basis = result
                self.bases[s] = basis
                model = stage_model(self.base, s, lambda nxt: nxt.value(values))
                stages[s] = Stage(model, strategy, value)
                found[s] = value
        return StageSolutions(found, stages, opens)


def _warm_guess(params: RoundParams, base: HandModel, component: list[State],
                values: Values) -> Values:
    """A first guess of the component's values: Newton steps (`_evaluate`) from 1/2 with
    each stage's strategies from WARM_ITERATIONS of predictive CFR+ instead of an LP."""
    engine = "compiled" if cfr_kernel.available() else "numpy"
    guess = dict(values)
    for _ in range(WARM_STEPS):
        stages: Stages = {}
        opens: Opens = {}
        for s in component:
            if isinstance(s, OpenThrowState):
                opens[s] = solve_open(params, s, guess)
                continue
            model = stage_model(base, s, lambda nxt: nxt.value(guess))
            cfr = CFRSolver(model, RULES["pcfr+"], engine=engine)
            cfr.run(WARM_ITERATIONS)
            stages[s] = Stage(model, cfr.average_strategy(), float("nan"))
        try:
            guess.update(_evaluate(component, stages, opens, guess))
        except np.linalg.LinAlgError:      # play that never leaves: no guess, start from 1/2
            return {s: values[s] for s in component}
    return {s: min(1.0, max(0.0, guess[s])) for s in component}


def map_stages(params: RoundParams, fn: Callable[..., Any], calls: Sequence[tuple[Any, ...]],
               workers: int | None = None, done: Callable[[int], None] | None = None
               ) -> list[Any]:
    """fn(*call) for every call, in order, on the round's worker processes (as many as
    `default_workers`, the same pool as the stage solves; none for one call or one worker):
    for work done per stage after the solve, such as refining every stage's equilibrium
    (solver/round/refine_stages.py). `fn` must be a module-level function. `done(k)`
    hears each result (k so far)."""
    count = default_workers(params) if workers is None else workers
    if count <= 1 or len(calls) <= 1:
        results = []
        for call in calls:
            results.append(fn(*call))
            if done is not None:
                done(len(results))
        return results
    method = start_method()
    pool = WorkerPool(min(count, len(calls)), method, what="round")
    try:
        return pool.map(fn, calls, done)
    finally:
        pool.close()


def default_workers(params: RoundParams) -> int:
    """Worker processes for the stage solves: the machine's cores (at most 4) when a stage
    LP takes long enough (six faces) to repay starting them, else none."""
    if params.hand.faces < 6:
        return 1
    return max(1, min(4, os.cpu_count() or 1))


def solve_round(params: RoundParams, progress: Step | None = None,
                workers: int | None = None, newton: bool = True,
                components: int | None = None) -> RoundSolution:
    """Every state's value and stage equilibrium (see the module docstring). `progress`
    hears `("state LABEL", states solved, states)` after each component; `workers`:
    processes solving a component's stages side by side (`default_workers`); `newton=False`
    runs plain Shapley value iteration (the benchmark's baseline); `components` solves only
    the first ones of the solve order (those nearest the end of the round: a check of a
    published round need not solve it all)."""
    begin = time.perf_counter()
    graph = state_graph(params.chips, params.hand.max_level)
    order = solve_order(graph)[:components]
    base = build_model(params.hand)
    runner = _Stages(params, base, default_workers(params) if workers is None else workers)
    values: Values = {}
    stages: Stages = {}
    opens: Opens = {}
    history: dict[int, list[float]] = {}
    done = 0
    try:
        for number, component in enumerate(order):
            cyclic = len(component) > 1 or graph.has_edge(component[0], component[0])
            for s in component:
                values.setdefault(s, 0.5)
            solved, history[number] = _solve_component(params, runner, component, values,
                                                       cyclic, newton)
            values.update(solved.values)
            stages.update(solved.stages)
            opens.update(solved.opens)
            done += len(component)
            if progress is not None:
                progress(f"state {component[0].label()}", done, graph.number_of_nodes())
    finally:
        runner.close()
    return RoundSolution(params, values, stages, opens, tuple(tuple(c) for c in order),
                         history, time.perf_counter() - begin)


def _solve_component(params: RoundParams, runner: _Stages, component: list[State],
                     known: Values, cyclic: bool, newton: bool
                     ) -> tuple[StageSolutions, list[float]]:
    """One component's values, stages and open throws (`known`: every value so far, 1/2
    for the component's own states), and its residual after each round of stage solves:
    Newton steps (`_evaluate`) where they shrink the residual, else Shapley steps."""
    values = dict(known)
    if cyclic and newton:
        values.update(_warm_guess(params, runner.base, component, values))
    residuals: list[float] = []
    found = runner.solve(component, values)
    for _ in range((MAX_ROUNDS if newton else MAX_SHAPLEY_ROUNDS) if cyclic else 1):
        residual = max(abs(found.values[s] - values[s]) for s in component)
        residuals.append(residual)
        if not cyclic or residual <= STOP_RESIDUAL:
            return found, residuals
        try:
            evaluated = _evaluate(component, found.stages, found.opens, values) if newton else None
        except np.linalg.LinAlgError:       # these strategies never leave: no Newton step
            evaluated = None
        if evaluated is not None:
            trial = dict(values)
            trial.update(evaluated)
            check = runner.solve(component, trial)
            if max(abs(check.values[s] - trial[s]) for s in component) < residual:
                values, found = trial, check          # Newton step (its stages are solved)
                continue
        values.update(found.values)                   # Shapley step
        found = runner.solve(component, values)
    raise SolverError(f"the values of {component[0].label()} and its component did not "
                      f"settle in {len(residuals)} rounds (residual {residuals[-1]:.1e})")
