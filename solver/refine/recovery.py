"""The exact recovery of the limit, with the two players' systems solved side by side.

solver/exact_equilibrium.py recovers each player's exact strategy from the other's
indifferences; the two systems share nothing but the float strategy they start from
(`_recover_role` of one player reads only its plans), so they can run at once. On the
default game the captain's takes about 60% of the recovery and the opponent's 40%
(two rounds each, Fractions throughout), so a second process cuts the recovery's wall
time to the captain's share when a second core is free, and costs nothing otherwise
(it is refused, and the two run one after the other, where a child process cannot be
forked: no "fork" start method, or inside a daemonic worker such as the round's pool).

The result is the same dictionary either way: each system is deterministic, and the child
returns its exact Fractions (pickled between two processes of this run, never to a file).
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.exact_equilibrium import _plans, _recover_role
from solver.model import HandModel
from solver.progress import Step
from solver.strategy import Strategy
from solver.types import Exact


def exact_limit(model: HandModel, strategy: Strategy, progress: Step | None = None,
                parallel: bool = True) -> Exact:
    """Both players' exact strategies with the supports of `strategy` (RecoveryError if
    none): the opponent's system in a forked child while this process solves the
    captain's, when `parallel` and `can_fork()`; otherwise one after the other. Progress
    follows the captain's system (the longer one)."""
    plans = _plans(model, strategy)
    if not (parallel and can_fork()):
        out: dict = {}
        for role in (CAPTAIN, OPPONENT):
            out.update(_recover_role(model, strategy, plans, role, progress))
        return out
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        opponent = pool.submit(_recover_role, model, strategy, plans, OPPONENT, None)
        out = dict(_recover_role(model, strategy, plans, CAPTAIN, progress))
        out.update(opponent.result())           # re-raises the child's RecoveryError
    return out


def can_fork() -> bool:
    """Whether a child process can be forked here and a second core may run it."""
    return ("fork" in multiprocessing.get_all_start_methods()
            and not multiprocessing.current_process().daemon
            and (os.cpu_count() or 1) >= 2)
