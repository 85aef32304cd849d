"""Solve one multi-hand Bidou hand: CFR on the public tree, then every seat's certified gain
from deviating (`best_response.gains`), and on small variants the same numbers from OpenSpiel
on the faithful game. `size` refuses, before any work, a tree too big for memory."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Optional

import numpy as np

from games.bidou_multi.params import MultiParams, ParameterError
from solver.common.progress import Step
from solver.multi import best_response, cfr, checkpoint, kernel
from solver.multi.tree import PublicTree, build_tree, check_solvable, size

# The arrays of one iteration hold about nodes * players * hands floats several times over
# (ranges, values, regrets, sums: about 40 bytes a cell); above this the run would not fit in
# memory beside the other engineers' work on a shared machine.
MAX_CELLS = 30_000_000
# The C kernel holds two node arrays and four edge arrays, in place (kernel.memory_bytes:
# 1.0 GB for the default three-player game's 3.7e7 cells, 1.5 GB resident in all with the
# tree, measured), and the numpy certificate at the end about as much again: the default
# three-player game fits, four players with the default dice (2.9e9 cells) do not.
MAX_CELLS_KERNEL = 40_000_000


def check_size(params: MultiParams, engine: str = "numpy") -> dict[str, int]:
    """The tree's size, refused before any work above what the engine holds in memory."""
    check_solvable(params)
    counted = size(params)
    if counted["cells"] > (MAX_CELLS_KERNEL if engine == "c" else MAX_CELLS):
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
    engine: str = "numpy"


@dataclasses.dataclass
class Checkpointing:
    """Where and how often a run saves its CFR state (solver/multi/checkpoint.py): every
    `iterations` iterations or `seconds` of iteration time, whichever comes first, and at
    the end; `resume` starts from a saved state instead of zero."""

    path: Optional[Path] = None
    iterations: int = 100
    seconds: Optional[float] = None
    resume: Optional[Path] = None


ENGINES = ("auto", "c", "numpy")
# The CFR method `solve` and `bidou multi` use unless told (cfr.METHODS; why this one:
# docs/multi.md, "Methods", measured by benchmarks/bench_multi.py --variants methods).
DEFAULT_METHOD = "alt-cfr+2"


def pick_engine(engine: str) -> str:
    """"auto": the C kernel when it was built, numpy otherwise."""
    if engine not in ENGINES:
        raise ParameterError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "auto":
        return "c" if kernel.available() else "numpy"
    if engine == "c" and not kernel.available():
        raise ParameterError("the multi-hand C kernel was not built (no C compiler at "
                             "install?); use --engine numpy")
    return engine


def solve(params: MultiParams, iterations: int, variant: str = DEFAULT_METHOD,
          target: Optional[float] = None, every: int = 0,
          progress: Step | None = None,
          checkpoints: Optional[Checkpointing] = None, engine: str = "numpy",
          tree: Optional[PublicTree] = None) -> MultiSolution:
    """Up to `iterations` CFR iterations in all (a resumed run counts the saved ones),
    stopping early once every seat's gain <= target (checked every `every` iterations; the
    checks' time is not counted in `seconds`). engine "c": the iterations and the checks
    along the curve in the C kernel; the final certificate always by the numpy best
    response (`best_response.gains`), a code path the kernel does not share."""
    engine = pick_engine(engine)
    check_size(params, engine)
    tree = tree if tree is not None else build_tree(params)
    runner = kernel.Kernel(tree) if engine == "c" else None
    keep = checkpoints or Checkpointing()
    state = cfr.CFRState.start(tree, variant)
    curve: list[dict[str, float]] = []
    if keep.resume is not None:
        state, curve = checkpoint.load(keep.resume, params, variant, tree)
    saver = _Saver(params, variant, keep, curve, state) if keep.path is not None else None
    step = every or iterations
    while state.iterations < iterations:
        todo = min(step - state.iterations % step, iterations - state.iterations)
        if runner is None:
            cfr.iterate(tree, state, todo, variant, after=saver, every=1 if saver else 0)
            measured = best_response.gains(tree, cfr.average_strategy(tree, state))
        else:
            _advance(runner, state, todo, variant, saver)
            measured = runner.gains(cfr.average_strategy(tree, state))
        point = {"iterations": state.iterations, "seconds": round(state.seconds, 3),
                 "epsilon": measured.epsilon, "nash_conv": measured.nash_conv}
        curve.append(point)
        if progress is not None:
            progress(f"{variant}: every seat's gain <= {measured.epsilon:.2e}", state.iterations,
                     iterations)
        if target is not None and measured.epsilon <= target:
            break
    if saver is not None:
        saver.save(state)
    strategy = cfr.average_strategy(tree, state)
    return MultiSolution(params=params, tree=tree, strategy=strategy,
                         gains=best_response.gains(tree, strategy),
                         iterations=state.iterations, seconds=state.seconds,
                         variant=variant, curve=curve, engine=engine)


def _advance(runner: kernel.Kernel, state: cfr.CFRState, todo: int, variant: str,
             saver: Optional["_Saver"]) -> None:
    """`todo` kernel iterations, in pieces no longer than the checkpoint interval (and of
    one iteration when saving by seconds), the saver told after each."""
    done = 0
    while done < todo:
        n = todo - done
        if saver is not None:
            left = saver.keep.iterations - (state.iterations - saver.last_iterations)
            n = 1 if saver.keep.seconds is not None else max(1, min(n, left))
        started = time.perf_counter()
        runner.iterate(state, n, variant)
        state.seconds += time.perf_counter() - started
        done += n
        if saver is not None:
            saver(state)


class _Saver:
    """Called after every iteration; saves when `Checkpointing`'s interval has passed."""

    def __init__(self, params: MultiParams, variant: str, keep: Checkpointing,
                 curve: list[dict[str, float]], start: cfr.CFRState):
        self.params, self.variant, self.keep, self.curve = params, variant, keep, curve
        self.last_iterations, self.last_seconds = start.iterations, start.seconds

    def __call__(self, state: cfr.CFRState) -> None:
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
    return bool(np.allclose(np.r_[values, gains], ours, atol=tolerance, rtol=0))
