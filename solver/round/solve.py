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

import concurrent.futures
import dataclasses
import functools
import multiprocessing
import os
import time
from fractions import Fraction
from typing import Callable

import numpy as np

from games.bidou.round_params import RoundParams
from solver import cfr_kernel
from solver.cfr import RULES, CFRSolver
from solver.errors import SolverError
from solver.lp import Basis, solve_lp_from
from solver.model import HandModel, build_model
from solver.round.open_throw import OpenThrow as OpenThrowSolution
from solver.round.open_throw import solve_open_throw
from solver.round.stage import stage_model, transitions
from solver.round.states import (
    ChipState,
    Next,
    OpenThrow,
    State,
    after_open_throw,
    solve_order,
    start,
    state_graph,
)
from solver.strategy import Strategy

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
    solved: OpenThrowSolution

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
    open_throws: dict[OpenThrow, OpenStage]
    components: tuple[tuple[State, ...], ...]
    history: dict[int, list[float]]          # component index -> residual per round
    seconds: float

    @property
    def start_value(self) -> float:
        """The first captain's chance to win the round (all chips in the centre)."""
        return self.values[start(self.params.chips)]


def solve_stage(base: HandModel, chips: int, state: ChipState, values: dict,
                start: Basis | None = None) -> tuple[Stage, Basis]:
    """The stage game of `state` against `values`, by an LP started from `start` (the
    basis of an earlier solve of this stage), and its final basis."""
    model = stage_model(base, chips, state, lambda nxt: nxt.value(values))
    lp, basis = solve_lp_from(model, start)
    return Stage(model, lp.strategy, lp.value), basis


def solve_open(params: RoundParams, state: OpenThrow, values: dict) -> OpenStage:
    c = Fraction(after_open_throw(params.chips, state).value(values))
    solved = solve_open_throw(params.hand, c)
    return OpenStage(float(solved.value), float(solved.p_l_wins), solved)


def _evaluate(params: RoundParams, component: list[State], stages: dict, opens: dict,
              values: dict) -> dict[State, float]:
    """The values of the component's states when every stage keeps its strategies: the
    solution of V = r + M V (continuations outside the component are known)."""
    index = {s: i for i, s in enumerate(component)}
    k = len(component)
    M, r = np.zeros((k, k)), np.zeros(k)

    def add(i: int, nxt: Next, p: float) -> None:
        if nxt.state is None:
            r[i] += p * nxt.end
        elif nxt.state in index:
            j = index[nxt.state]
            if nxt.same:
                M[i, j] += p
            else:
                r[i] += p
                M[i, j] -= p
        else:
            r[i] += p * nxt.value(values)

    for i, s in enumerate(component):
        if isinstance(s, OpenThrow):
            r[i] += opens[s].p_low_wins
            add(i, after_open_throw(params.chips, s), 1 - opens[s].p_low_wins)
        else:
            for nxt, p in transitions(stages[s].model, params.chips, s,
                                      stages[s].strategy).items():
                add(i, nxt, p)
    solution = np.linalg.solve(np.eye(k) - M, r)
    return {s: float(solution[i]) for i, s in enumerate(component)}


@functools.lru_cache(maxsize=4)
def _base_model(hand) -> HandModel:
    return build_model(hand)


def _solve_task(params: RoundParams, state: State, values: dict, start: Basis | None):
    """One stage (LP) or open throw, in a worker process: what the parent keeps of it."""
    if isinstance(state, OpenThrow):
        return solve_open(params, state, values)
    stage, basis = solve_stage(_base_model(params.hand), params.chips, state, values, start)
    return stage.strategy, stage.value, basis


class _Stages:
    """Solves the stages of a component against given values, in parallel worker processes
    when there are several cores and the hand is large enough to be worth shipping.

    Each LP after a stage's first starts from that stage's last basis: successive solves
    differ only in a few continuation values, and from the previous optimal basis the dual
    simplex needs a handful of pivots instead of thousands."""

    def __init__(self, params: RoundParams, base: HandModel, workers: int):
        self.params, self.base = params, base
        self.bases: dict[State, Basis] = {}
        # fork where the platform has it: workers start at once and need no importable
        # __main__ (the solves hold no threads or locks when the pool starts)
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self.pool = (concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context(method)) if workers > 1 else None)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)

    def solve(self, component, values, stages, opens) -> dict[State, float]:
        """Solve every stage of the component against `values`; the stage values."""
        needed = {s: values[s] for s in values}
        starts = [self.bases.get(s) for s in component]
        if self.pool is not None and len(component) > 1:
            results = list(self.pool.map(_solve_task, [self.params] * len(component),
                                         component, [needed] * len(component), starts))
        else:
            results = [_solve_task(self.params, s, needed, start)
                       for s, start in zip(component, starts)]
        out = {}
        for s, result in zip(component, results):
            if isinstance(s, OpenThrow):
                opens[s] = result
                out[s] = result.value
            else:
                strategy, value, basis = result
                self.bases[s] = basis
                model = stage_model(self.base, self.params.chips, s,
                                    lambda nxt: nxt.value(values))
                stages[s] = Stage(model, strategy, value)
                out[s] = value
        return out


def _warm_guess(params: RoundParams, base: HandModel, component: list[State],
                values: dict) -> dict[State, float]:
    """A first guess of the component's values: Newton steps (`_evaluate`) from 1/2 with
    each stage's strategies from WARM_ITERATIONS of predictive CFR+ instead of an LP."""
    engine = "compiled" if cfr_kernel.available() else "numpy"
    guess = dict(values)
    for _ in range(WARM_STEPS):
        stages, opens = {}, {}
        for s in component:
            if isinstance(s, OpenThrow):
                opens[s] = solve_open(params, s, guess)
                continue
            model = stage_model(base, params.chips, s, lambda nxt: nxt.value(guess))
            cfr = CFRSolver(model, RULES["pcfr+"], engine=engine)
            cfr.run(WARM_ITERATIONS)
            stages[s] = Stage(model, cfr.average_strategy(), float("nan"))
        try:
            guess.update(_evaluate(params, component, stages, opens, guess))
        except np.linalg.LinAlgError:      # play that never leaves: no guess, start from 1/2
            return {s: values[s] for s in component}
    return {s: min(1.0, max(0.0, guess[s])) for s in component}


def default_workers(params: RoundParams) -> int:
    """Worker processes for the stage solves: the machine's cores (at most 4) when a stage
    LP takes long enough (six faces) to repay starting them, else none."""
    if params.hand.faces < 6:
        return 1
    return max(1, min(4, os.cpu_count() or 1))


def solve_round(params: RoundParams,
                progress: Callable[[int, int, str], None] | None = None,
                workers: int | None = None, newton: bool = True,
                components: int | None = None) -> RoundSolution:
    """Every state's value and stage equilibrium (see the module docstring). `workers`:
    processes solving a component's stages side by side (`default_workers`); `newton=False`
    runs plain Shapley value iteration (the benchmark's baseline); `components` solves only
    the first ones of the solve order (those nearest the end of the round: a check of a
    published round need not solve it all)."""
    begin = time.perf_counter()
    graph = state_graph(params.chips, params.hand.max_level)
    order = solve_order(graph)[:components]
    base = build_model(params.hand)
    runner = _Stages(params, base, default_workers(params) if workers is None else workers)
    try:
        return _solve_components(params, graph, order, runner, progress, begin, newton)
    finally:
        runner.close()


def _solve_components(params, graph, order, runner, progress, begin, newton) -> RoundSolution:
    values: dict[State, float] = {}
    stages: dict[ChipState, Stage] = {}
    opens: dict[OpenThrow, OpenStage] = {}
    history: dict[int, list[float]] = {}
    done = 0
    for number, component in enumerate(order):
        cyclic = len(component) > 1 or graph.has_edge(component[0], component[0])
        for s in component:
            values.setdefault(s, 0.5)
        if cyclic and newton:
            values.update(_warm_guess(params, runner.base, component, values))
        residuals: list[float] = []
        found = runner.solve(component, values, stages, opens)
        for _ in range((MAX_ROUNDS if newton else MAX_SHAPLEY_ROUNDS) if cyclic else 1):
            residual = max(abs(found[s] - values[s]) for s in component)
            residuals.append(residual)
            if not cyclic or residual <= STOP_RESIDUAL:
                break
            try:
                evaluated = _evaluate(params, component, stages, opens, values) if newton else None
            except np.linalg.LinAlgError:       # these strategies never leave: no Newton step
                evaluated = None
            if evaluated is None:
                values.update(found)
                found = runner.solve(component, values, stages, opens)
                continue
            trial = dict(values)
            trial.update(evaluated)
            trial_stages, trial_opens = dict(stages), dict(opens)
            check = runner.solve(component, trial, trial_stages, trial_opens)
            if max(abs(check[s] - trial[s]) for s in component) < residual:
                values, found = trial, check          # Newton step (its stages are solved)
                stages.update(trial_stages)
                opens.update(trial_opens)
            else:
                values.update(found)                  # Shapley step
                found = runner.solve(component, values, stages, opens)
        else:
            if cyclic:
                raise SolverError(f"the values of {component[0].label()} and its component "
                                  f"did not settle in {len(residuals)} rounds (residual "
                                  f"{residuals[-1]:.1e})")
        values.update(found)
        history[number] = residuals
        done += len(component)
        if progress is not None:
            progress(done, graph.number_of_nodes(), component[0].label())
    return RoundSolution(params, values, stages, opens, tuple(tuple(c) for c in order),
                         history, time.perf_counter() - begin)
