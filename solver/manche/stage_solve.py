"""One stage game of the manche solved, and where its next solve starts; stages run side by
side in worker processes (the one pool, `solver.common.workers`).

A stage is solved many times with nearby continuation values: first at the component's
first guess (`solve.first_guess`), then at each Newton step (solver/manche/solve.py).
Successive solves of one stage have the same LP shape and new leaf values, so each starts
where the last one ended (`solver.hand.lp.resolve`: the whole tree's LP from its final basis,
the double oracle from its last restricted tree and that LP's final basis by name). A stage's
first solve is cold (the double oracle from `default_start`). Everything a solve
reads is in its arguments, so its result is the same in any process and in any order: the
manche's numbers do not depend on scheduling.
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Any, Callable

from games.le_bidou.manche import MancheParams, MancheState
from solver.hand.lp.resolve import Start, solve_again
from solver.hand.lp.restricted import betting_rows
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy
from solver.manche.stage import stage_model
from solver.round.markov import lead_value

Values = dict[MancheState, float]


@dataclasses.dataclass(frozen=True)
class Solved:
    """What a worker sends back of one stage solve."""

    strategy: Strategy
    value: float
    method: str
    seconds: float
    start: Start


def model_at(params: MancheParams, state: MancheState, values: Values) -> HandModel:
    """The stage game of `state` paying `values` where its hands lead."""
    return stage_model(params, state, lambda nxt: lead_value(nxt, values))


# Above this many betting rows (`solver.hand.lp.restricted.betting_rows`) a stage is solved by the
# double oracle: far below the hand's own bound (`restricted.ONE_LP_ROWS`), as a stage is
# solved again and again from its last tree and basis (docs/manche.md, "Measured": pool 3
# of the default manche, 4 032 rows, 10.8 s of CPU cold by one LP, 2.5 s by the double
# oracle on 4 of its 8 decisions a public state, 0.24 s again from its last basis).
DOUBLE_ORACLE_ROWS = 2048


def uses_double_oracle(model: HandModel) -> bool:
    """Whether the stage is solved on restricted trees rather than by one LP of the whole
    tree."""
    return betting_rows(model) > DOUBLE_ORACLE_ROWS


def solve_stage(params: MancheParams, state: MancheState, values: Values,
                start: Start | None) -> Solved:
    """The stage equilibrium of `state` at `values`, from `start` (its last solve), else
    cold: the double oracle from `default_start` (docs/manche.md, "Measured": larger
    first trees, such as the decisions the pool below kept, cost more than they save)."""
    begin = time.perf_counter()
    lp, method, after = solve_again(model_at(params, state, values), start,
                                    DOUBLE_ORACLE_ROWS)
    return Solved(lp.strategy, lp.value, method, time.perf_counter() - begin, after)


def default_workers(params: MancheParams) -> int:
    """Worker processes for the stage solves: the machine's cores (at most 4) when a stage
    takes long enough (six faces, or a pool above 5) to repay shipping it, else none."""
    if params.faces < 6 and params.chips <= 5:
        return 1
    return max(1, min(4, os.cpu_count() or 1))


def call(fn: Callable[..., Any], *args: Any) -> Any:
    """A worker's task: fn(*args) (one function for the pool's map, any task)."""
    return fn(*args)
