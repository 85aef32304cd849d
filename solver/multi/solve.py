"""Solve one multi-hand Bidou hand: CFR on the public tree, then every seat's certified gain
from deviating (`best_response.gains`), and on small variants the same numbers from OpenSpiel
on the faithful game. `size` refuses, before any work, a tree too big for memory."""

from __future__ import annotations

import dataclasses
import functools
import time
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from games.bidou import rules
from games.bidou_multi import betting
from games.bidou_multi.params import MultiParams, ParameterError
from solver.multi import best_response, cfr, checkpoint
from solver.multi.tree import PublicTree, build_tree, check_solvable

# The arrays of one iteration hold about nodes * players * hands floats several times over
# (ranges, values, regrets, sums: about 40 bytes a cell); above this the run would not fit in
# memory beside the other engineers' work on a shared machine.
MAX_CELLS = 30_000_000


@functools.lru_cache(maxsize=None)
def _betting_nodes(table: betting.Table, max_bet: int, max_raise: int) -> int:
    if table.closed():
        return 1
    return 1 + sum(_betting_nodes(betting.apply(table, a), max_bet, max_raise)
                   for a in betting.legal_actions(table, max_bet, max_raise))


def size(params: MultiParams) -> dict[str, int]:
    """Public nodes, hands and cells of the compact tree, counted without building it."""
    n, t = params.players, params.throws
    table = betting.new_table(n, params.chips, (1,) * n)
    bets = _betting_nodes(table, params.max_bet, params.max_raise)
    hands = len(rules.all_hands(params.faces))
    public = t ** n * bets          # one betting tree per throw counts (throw nodes are few)
    return {"betting_nodes": bets, "public_nodes": public, "hands": hands,
            "cells": public * n * hands}


def check_size(params: MultiParams) -> dict[str, int]:
    check_solvable(params)
    counted = size(params)
    if counted["cells"] > MAX_CELLS:
        raise ParameterError(
            f"the compact tree of {params.to_game_string()} has {counted['public_nodes']:,} "
            f"public nodes x {counted['hands']} hands per player, above what the solver "
            f"holds in memory (try fewer --faces, --throws or --chips)")
    return counted


@dataclasses.dataclass
class MultiSolution:
    params: MultiParams
    tree: PublicTree
    strategy: np.ndarray
    gains: best_response.Gains
    iterations: int
    seconds: float
    variant: str
    curve: list[dict[str, float]]           # iterations, seconds, epsilon, nash_conv
    openspiel: Optional[dict[str, list[float]]] = None


@dataclasses.dataclass
class Checkpointing:
    """Where and how often a run saves its CFR state (solver/multi/checkpoint.py): every
    `iterations` iterations or `seconds` of iteration time, whichever comes first, and at
    the end; `resume` starts from a saved state instead of zero."""

    path: Optional[Path] = None
    iterations: int = 100
    seconds: Optional[float] = None
    resume: Optional[Path] = None


def solve(params: MultiParams, iterations: int, variant: str = "cfr+",
          target: Optional[float] = None, every: int = 0,
          progress: Optional[Callable[[dict[str, float]], None]] = None,
          checkpoints: Optional[Checkpointing] = None) -> MultiSolution:
    """Up to `iterations` CFR iterations in all (a resumed run counts the saved ones),
    stopping early once every seat's gain <= target (checked every `every` iterations; the
    checks' time is not counted in `seconds`)."""
    check_size(params)
    tree = build_tree(params)
    keep = checkpoints or Checkpointing()
    state = cfr.CFRState.start(tree)
    curve: list[dict[str, float]] = []
    if keep.resume is not None:
        state, curve = checkpoint.load(keep.resume, params, variant, tree)
    saver = _Saver(params, variant, keep, curve) if keep.path is not None else None
    step = every or iterations
    while state.iterations < iterations:
        todo = min(step - state.iterations % step, iterations - state.iterations)
        cfr.iterate(tree, state, todo, variant, report=saver, every=1 if saver else 0)
        measured = best_response.gains(tree, cfr.average_strategy(tree, state))
        point = {"iterations": state.iterations, "seconds": round(state.seconds, 3),
                 "epsilon": measured.epsilon, "nash_conv": measured.nash_conv}
        curve.append(point)
        if progress is not None:
            progress(point)
        if target is not None and measured.epsilon <= target:
            break
    if saver is not None:
        saver.save(state)
    strategy = cfr.average_strategy(tree, state)
    return MultiSolution(params=params, tree=tree, strategy=strategy,
                         gains=best_response.gains(tree, strategy),
                         iterations=state.iterations, seconds=state.seconds,
                         variant=variant, curve=curve)


class _Saver:
    """Called after every iteration; saves when `Checkpointing`'s interval has passed."""

    def __init__(self, params: MultiParams, variant: str, keep: Checkpointing,
                 curve: list[dict[str, float]]):
        self.params, self.variant, self.keep, self.curve = params, variant, keep, curve
        self.last_iterations: Optional[int] = None
        self.last_seconds = 0.0

    def __call__(self, state: cfr.CFRState) -> None:
        if self.last_iterations is None:
            self.last_iterations, self.last_seconds = state.iterations - 1, state.seconds
        due = state.iterations - self.last_iterations >= self.keep.iterations
        late = (self.keep.seconds is not None
                and state.seconds - self.last_seconds >= self.keep.seconds)
        if due or late:
            self.save(state)

    def save(self, state: cfr.CFRState) -> None:
        assert self.keep.path is not None
        checkpoint.save(self.keep.path, self.params, self.variant, state, self.curve)
        self.last_iterations, self.last_seconds = state.iterations, state.seconds


def check_with_openspiel(solution: MultiSolution, tolerance: float = 1e-9) -> bool:
    """OpenSpiel's values and best-response gains of the solver's strategy on the faithful
    game (stored in `solution.openspiel`); True if they agree with ours within tolerance."""
    import pyspiel

    import games.bidou_multi.game  # noqa: F401  (registers python_bidou_multi)
    from solver.multi.faithful import openspiel_gains

    game = pyspiel.load_game(solution.params.to_game_string())
    started = time.perf_counter()
    values, gains = openspiel_gains(game, solution.tree, solution.strategy)
    solution.openspiel = {"values": values.tolist(), "gains": gains.tolist(),
                          "seconds": [round(time.perf_counter() - started, 1)]}
    ours = np.r_[solution.gains.values, solution.gains.gains]
    return bool(np.allclose(np.r_[values, np.maximum(gains, 0.0)], ours, atol=tolerance,
                            rtol=0))
