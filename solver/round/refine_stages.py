"""The round's stage games refined: every chip state's hand, at the solved
continuation values, played by its refined equilibrium instead of the LP's vertex.

The round's solve (solver/round/solve.py) finds every state's value with plain stage LPs:
an arbitrary equilibrium of each stage, whose play where the other player never goes may
be anything. Once the values are known, each stage game is a hand like any other, only
its leaves pay win probabilities instead of chips, so `refined_equilibrium` (solver/hand/refined)
applies to it as it is: the leaves are read as exact fractions, the float continuation
values rounded to a grid of 2^-GRID_BITS (the refine code's exact recovery computes with
the leaf payoffs: a float payoff there would make it silently inexact, and 53-bit ones
make its denominators outgrow the certificate's), its value is proved exactly for that
stage game, and `sequential.verify` checks its play at every decision.

One defect of ties is mended here: where a player's own strategy never goes but the
other's does, the refinement plays his best reply to Bayes's beliefs, and in a stage game
two actions often tie there exactly (losing a called bet can lead to the same chip state
as folding: folding then ties with calling against every hand that bets, and the first
action, fold, was taken). Any action that another weakly dominates (check.py's test,
his later play as given) gives its mass to the one that dominates it, and the stage's
value is proved again exactly with the result (`prove_fractions`); if the proof moved, the
refined strategy is kept as it was.

The round's numbers are then proved again from the strategies kept
(solver/pipeline/round.py runs `certify_round` on the refined solution), so the saved
round's intervals hold for the strategies it saves (the grid included: the certificate
reads the round's own values, not the grid). The values stay the solve's: a refined
stage's exact value differs from the LP's float by the grid and rounding (at most 3.1e-13
on the default round).

The work runs on the round's worker processes (`solve.map_stages`).
"""

from __future__ import annotations

import dataclasses
import functools
import time
from fractions import Fraction
from typing import Any

from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.common.errors import SolverError
from solver.common.progress import Step
from solver.common.types import Exact
from solver.hand.exact.certificate import prove_fractions
from solver.hand.model import HandModel, build_model
from solver.hand.refined.check import dominated_actions
from solver.hand.refined.quasi_perfect import ETAS, as_fractions, refined_equilibrium
from solver.hand.refined.sequential import verify
from solver.hand.strategy import Strategy, StrategyFileError
from solver.round.solve import RoundSolution, Stage, Values, map_stages
from solver.round.stage import stage_model
from solver.round.states import ChipState
from solver.round.store import REFINED

MAX_PASSES = 10          # rounds of moving mass off weakly dominated actions
# The refinement solves the stage game with its payoffs (win probabilities) as
# SCALE * (v - 1/2), chips-like numbers from -8 to 8: the same game (an affine change of
# payoffs keeps every equilibrium, perturbed or not) whose perturbed LP HiGHS resolves as
# it does the hand's. In [0, 1] it did not: the start state 9,0,0 of the default round gave
# no exact equilibrium at any tremble size (1e-4: supports not an equilibrium's; 1e-5:
# HiGHS stopped; 1e-3: a negative probability), and with SCALE it does at 1e-4. A power
# of two keeps the payoffs the binary fractions they were.
SCALE = Fraction(16)
HALF = Fraction(1, 2)
# The continuation values are read on a grid of 2^-GRID_BITS, not as the 53-bit binary
# fractions the floats are: the exact recovery's denominators grow with the leaves', and
# with 53-bit leaves 11 of the default round's 49 stages outgrew the certificate's
# 4096-bit common denominator (measured at 8,0,1: none of 1e-4, 1e-5, 1e-3 fits; on the
# grid it is refined at 1e-4 with an 884-bit value denominator). A leaf moves by at most
# 2^-41 (4.5e-13 win probability), so the refined strategy is an exact equilibrium of a
# stage game within 2^-41 of the float one; the round's proof (`certify_round`, run on
# the strategies kept) measures them against the round itself and covers the difference.
GRID_BITS = 40
# The proofs' bound on the exact probabilities' common denominator, above the strategy
# file's 4096 bits (`strategy.MAX_COMMON_DENOMINATOR_BITS`, a guard against hostile files:
# these probabilities are computed here, and only their floats are saved). With reroll
# keep the hand's own needs 1285 bits, and a stage's, whose leaves are 40-bit grid values,
# far more: measured at 9,0,0 of the keep round, 6582 bits at eta 1e-5, which the file's
# bound refused (most of the 36 of its 49 stages kept plain were refused for it; 0,3,6
# 7980 bits, 2,1,6 attempts 11179). A proof over 8000-bit integers takes seconds.
STAGE_DENOMINATOR_BITS = 32768
# The tremble sizes of a stage: the hand's (quasi_perfect.ETAS, tried first, so a stage
# that refined before refines the same), then 1e-6 and 3e-7. Eight stages of the keep round
# refine only there (1,1,7, 2,1,6, 0,5,4, 2,2,5, 2,3,4, 2,4,3 at 1e-6; 2,5,2 and 2,7,0 at
# 3e-7): at 1e-4, 1e-5 and 1e-3 their limits still mix where the limit does not (a
# negative probability at 1,1,7; at 2,1,6 a proof of width 3.6e-5 at 1e-4 and 3.7e-6 at
# 1e-5, shrinking with eta). At 2,7,0 HiGHS stops without an optimum at 1e-6, at 1,1,7 at
# 1e-7.
STAGE_ETAS = (*ETAS, 1e-6, 3e-7)
# When no tremble size's limit proves at the hand's support gap (10 eta), the same LP
# optima read again with an action dropped when chosen at most 100 eta beyond its tremble
# (`refined_equilibrium`'s wider_gaps): a mixing that vanishes with eta was chosen 34 eta
# at 0,3,6 of the keep round, and its limit asked a negative probability at every eta.
WIDER_GAPS = (100.0,)


@dataclasses.dataclass(frozen=True)
class RefinedStage:
    """One stage's refined equilibrium: the strategy, its exact value in the stage game
    (leaves paying the continuation values as exact binary fractions), the tremble that
    worked, how many (decision, hand) pairs left a weakly dominated action, what
    `sequential.verify` found (0: passed) and the seconds it took. When the refinement
    failed (`failed`: why), the strategy is None and the stage keeps its LP vertex."""

    strategy: Strategy | None
    value: Fraction | None
    eta: float
    undominated: int
    violations: int
    seconds: float
    failed: str | None = None
    support_gap: float | None = None    # the limit's gap (times eta) that proved


def on_grid(value: float, bits: int | None = GRID_BITS) -> Fraction:
    """`value` rounded to the nearest multiple of 2^-bits, exactly (None: the binary
    fraction the float is). Scaling a float by a power of two is exact, so is round()."""
    if bits is None:
        return Fraction(value)
    return Fraction(round(value * 2**bits), 2**bits)


def exact_stage_model(base: HandModel, state: ChipState, values: Values,
                      scale: Fraction = Fraction(1), bits: int | None = GRID_BITS
                      ) -> HandModel:
    """The stage game of `state` with leaves paying the continuation values as exact
    fractions on the grid of 2^-bits (`on_grid`; None: each float as the binary fraction
    it is); with `scale`, paying scale * (value - 1/2) instead (the same game in other
    units)."""
    if scale == 1:
        return stage_model(base, state, lambda nxt: on_grid(nxt.value(values), bits))
    return stage_model(base, state,
                       lambda nxt: scale * (on_grid(nxt.value(values), bits) - HALF))


def refine_stage(base: HandModel, state: ChipState, values: Values) -> RefinedStage:
    """The refined equilibrium of one stage game (SolverError if none is proved), found
    in chips-like units (SCALE) and checked in win probability, the stage's own units."""
    start = time.perf_counter()
    refined = refined_equilibrium(exact_stage_model(base, state, values, SCALE),
                                  STAGE_ETAS, max_bits=STAGE_DENOMINATOR_BITS,
                                  wider_gaps=WIDER_GAPS)
    assert refined.certificate.exact is not None     # proved, or refined_equilibrium raises
    exact = refined.certificate.exact / SCALE + HALF
    model = exact_stage_model(base, state, values)
    strategy, moved = undominated(model, refined.strategy, refined.exact, exact)
    report = verify(model, strategy)
    return RefinedStage(strategy, exact, refined.perturbed.eta, moved,
                        len(report.violations), time.perf_counter() - start,
                        support_gap=refined.support_gap)


def undominated(model: HandModel, strategy: Strategy, exact: Exact, value: Fraction
                ) -> tuple[Strategy, int]:
    """`strategy` with every weakly dominated betting action's mass moved to an action
    that dominates it (in turn until none is left), if its exact probabilities still prove
    `value`; else `strategy` unchanged. Returns it and how many (decision, hand) pairs
    moved (0 when unchanged)."""
    out, rows, moved = strategy.copy(), {k: list(v) for k, v in exact.items()}, 0
    for _ in range(MAX_PASSES):
        found = [v for player in (CAPTAIN, OPPONENT)
                 for v in dominated_actions(model, out, player)]
        if not found:
            break
        for v in found:
            key = ("bet", v.where[1], v.hand)
            row = rows[key]
            if row[v.action] == 0:          # moved already this pass
                continue
            row[v.better] += row[v.action]
            row[v.action] = Fraction(0)
            out.betting[v.where[1]][:, v.hand] = [float(p) for p in row]
            moved += 1
    if not moved:
        return strategy, 0
    if prove_fractions(model, out, as_fractions(rows), STAGE_DENOMINATOR_BITS).exact != value:
        return strategy, 0
    return out, moved


@functools.lru_cache(maxsize=4)
def _base_model(hand: BidouParams) -> HandModel:
    return build_model(hand)


def _refine_task(hand: BidouParams, state: ChipState, values: Values) -> RefinedStage:
    """One stage, in a worker process; a refinement that fails is reported, not raised
    (the stage keeps its LP vertex, which the round's proof covers as well)."""
    start = time.perf_counter()
    try:
        return refine_stage(_base_model(hand), state, values)
    except (SolverError, StrategyFileError) as error:
        # StrategyFileError: an attempt's exact probabilities outgrew the certificate's
        # common denominator (payoffs with 53-bit denominators make large ones)
        return RefinedStage(None, None, 0.0, 0, 0, time.perf_counter() - start,
                            failed=str(error)[:300])


def refine_round(solution: RoundSolution, progress: Step | None = None,
                 workers: int | None = None
                 ) -> tuple[RoundSolution, dict[ChipState, RefinedStage]]:
    """The solution with every stage's strategy its refined equilibrium (the values
    unchanged), and what each refinement found; a stage whose refinement fails keeps its
    LP vertex (`RefinedStage.failed`, listed by `stage_check`). The stages run on the
    round's worker processes."""
    params = solution.params
    states = sorted(solution.stages)
    calls = [(params.hand, state, solution.values) for state in states]

    def done(k: int) -> None:
        if progress is not None:
            progress("refining every stage", k, len(states))

    done(0)
    try:
        found = map_stages(params, _refine_task, calls, workers, done)
    except SolverError as error:
        raise SolverError(f"a stage game of the round could not be refined: {error}") \
            from None
    refined = dict(zip(states, found))
    stages = {state: (Stage(solution.stages[state].model, r.strategy, float(r.value))
                      if r.strategy is not None and r.value is not None
                      else solution.stages[state])
              for state, r in refined.items()}
    return dataclasses.replace(solution, stages=stages, equilibrium=REFINED), refined


def stage_check(refined: dict[ChipState, RefinedStage]) -> dict[str, Any]:
    """What the round's report says of its refined stages: how many, how many pass
    `sequential.verify`, what it found in all, and the stages that kept their LP vertex
    (`plain`). Not how many pairs `undominated` moved nor the tremble sizes: those follow
    the floats of the solve, which another machine's BLAS moves in the 15th digit, and the
    published report must read the same on any machine."""
    found = [r for r in refined.values() if r.failed is None]
    return {"stages": len(refined),
            "verified": sum(r.violations == 0 for r in found),
            "violations": sum(r.violations for r in found),
            "plain": sorted(s.label() for s, r in refined.items() if r.failed is not None)}
