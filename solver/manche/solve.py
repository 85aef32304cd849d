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
The numbers are then proved by `certify`, never by this residual.

A stage is one LP of the whole stakes tree while it is small enough
(`solver.restricted.too_large_for_one_lp`), else the double oracle on a restricted tree
(`solver.restricted.double_oracle`), each later solve of a stage starting from the
restricted tree it ended with (its swap's on a first solve). The full LPs start cold: unlike
the round's, from the previous basis they took longer than from scratch.
Newton's first step needs a guess, and LPs solved at a poor one are as dear as any: so the
guess comes first from the same Newton steps with stage strategies from a few hundred
iterations of predictive CFR+ (`WARM_STEPS` x `WARM_ITERATIONS`), as in the round.
"""

from __future__ import annotations

import dataclasses
import time
from fractions import Fraction

import numpy as np

from games.le_bidou.manche import After, MancheParams, MancheState, all_states, decided, start
from solver import cfr_kernel
from solver.cfr import RULES, CFRSolver
from solver.errors import SolverError
from solver.lp import solve_lp_from
from solver.manche.stage import stage_model, transitions
from solver.model import HandModel
from solver.progress import Step, quiet
from solver.restricted import double_oracle, too_large_for_one_lp
from solver.round import markov
from solver.strategy import Strategy

STOP_RESIDUAL = 1e-12
# a round that does not improve below this is the LPs' own noise: stop there (the
# certificate proves what the strategies are worth, whatever the residual)
NOISE_RESIDUAL = 1e-9
MAX_ROUNDS = 30
WARM_STEPS = 2
WARM_ITERATIONS = 300

Values = dict[MancheState, float]


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
    component_seconds: tuple[float, ...] = ()   # wall seconds of each component's solve

    @property
    def start_value(self) -> float:
        """The first player's chance to win the manche (all chips in the pool)."""
        return self.values[start(self.params.chips)]


def value_of(nxt: After, values: Values) -> float:
    """The first player's value of where a hand leads."""
    if nxt.state is None:
        assert nxt.end is not None
        return float(nxt.end)
    v = values[nxt.state]
    return v if nxt.same else 1 - v


def components(chips: int) -> list[tuple[MancheState, ...]]:
    """The undecided states, a state with its swap, smallest pool first."""
    out: list[tuple[MancheState, ...]] = []
    for state in sorted(all_states(chips)):
        if decided(state) is None and state.first <= state.second:
            out.append((state,) if state.first == state.second else (state, state.swapped()))
    return out


class _Stages:
    """Solves stage games, a restricted tree from its previous one (or its swap's)."""

    def __init__(self, params: MancheParams) -> None:
        self.params = params
        self.kept: dict[MancheState, frozenset[str]] = {}

    def solve(self, state: MancheState, values: Values) -> Stage:
        begin = time.perf_counter()
        model = stage_model(self.params, state, lambda nxt: value_of(nxt, values))
        if too_large_for_one_lp(model):
            oracle = double_oracle(model, start=self.kept.get(state,
                                                              self.kept.get(state.swapped())))
            self.kept[state] = oracle.kept
            lp = oracle.solution
            method = (f"restricted LP ({oracle.decisions} of {oracle.full_decisions} "
                      f"decisions, {oracle.rounds} LPs)")
        else:
            # cold: from the basis of the previous solve (other tie values) HiGHS took
            # 4-5 times as long as from scratch (docs/manche.md, "Where the time goes")
            lp, _ = solve_lp_from(model, None)
            method = "LP of the whole tree"
        return Stage(model, lp.strategy, lp.value, method, time.perf_counter() - begin)


def _evaluate(params: MancheParams, component: tuple[MancheState, ...],
              stages: dict[MancheState, Stage], values: Values) -> Values:
    """The component's values when every stage keeps its strategy: V = r + M V."""
    inside = set(component)
    rows: dict[MancheState, list[markov.Term[MancheState]]] = {}
    for s in component:
        row: list[markov.Term[MancheState]] = []
        for nxt, p in transitions(params, stages[s].model, s, stages[s].strategy).items():
            if nxt.state in inside:
                row += [(nxt.state, p)] if nxt.same else [(None, p), (nxt.state, -p)]
            else:
                row.append((None, p * value_of(nxt, values)))
        rows[s] = row
    return markov.solve(markov.chain(rows))


def _warm_guess(params: MancheParams, component: tuple[MancheState, ...], values: Values
                ) -> Values:
    """A first guess of the component's values: Newton steps (`_evaluate`) from 1/2 with
    each stage's strategies from WARM_ITERATIONS of predictive CFR+ instead of an LP."""
    engine = "compiled" if cfr_kernel.available() else "numpy"
    guess = dict(values)
    for _ in range(WARM_STEPS):
        stages = {}
        for s in component:
            model = stage_model(params, s, lambda nxt: value_of(nxt, guess))
            cfr = CFRSolver(model, RULES["pcfr+"], engine=engine)
            cfr.run(WARM_ITERATIONS)
            stages[s] = Stage(model, cfr.average_strategy(), float("nan"), "pcfr+", 0.0)
        try:
            guess.update(_evaluate(params, component, stages, guess))
        except np.linalg.LinAlgError:
            return {s: values[s] for s in component}
    return {s: min(1.0, max(0.0, guess[s])) for s in component}


def solve_manche(params: MancheParams, progress: Step | None = None) -> MancheSolution:
    """Every state's value and stage equilibrium (module docstring). `progress` hears
    ("state P,A,B", states solved, states to solve) after each component."""
    begin = time.perf_counter()
    progress = progress or quiet
    known = {s: v for s in all_states(params.chips) if (v := decided(s)) is not None}
    values: Values = {s: float(v) for s, v in known.items()}
    order = components(params.chips)
    total = sum(len(c) for c in order)
    runner = _Stages(params)
    stages: dict[MancheState, Stage] = {}
    history: dict[int, list[float]] = {}
    done = 0
    spent: list[float] = []
    for number, component in enumerate(order):
        progress(f"state {component[0].label()}", done, total)
        begun = time.perf_counter()
        found, history[number] = _solve_component(params, runner, component, values)
        spent.append(time.perf_counter() - begun)
        for s, stage in found.items():
            values[s] = stage.value
        stages.update(found)
        done += len(component)
    progress("solved", total, total)
    return MancheSolution(params, values, known, stages, tuple(order), history,
                          time.perf_counter() - begin, tuple(spent))


def _solve_component(params: MancheParams, runner: _Stages, component: tuple[MancheState, ...],
                     known: Values) -> tuple[dict[MancheState, Stage], list[float]]:
    """One component's stages, from 1/2: Newton steps where they shrink the residual,
    else Shapley steps; and the residual after each round of stage solves."""
    values = dict(known)
    values.update({s: 0.5 for s in component})
    values.update(_warm_guess(params, component, values))

    def solve_all(at: Values) -> dict[MancheState, Stage]:
        return {s: runner.solve(s, at) for s in component}

    def residual_of(found: dict[MancheState, Stage], at: Values) -> float:
        return max(abs(found[s].value - at[s]) for s in component)

    residuals: list[float] = []
    found = solve_all(values)
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
            check = solve_all(trial)
            if residual_of(check, trial) < residual:
                values, found = trial, check
                continue
        values.update({s: found[s].value for s in component})       # Shapley step
        found = solve_all(values)
    raise SolverError(f"the values of {component[0].label()} and its swap did not settle in "
                      f"{MAX_ROUNDS} rounds (residual {residuals[-1]:.1e})")
