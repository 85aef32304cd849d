"""The one place HiGHS is driven through its own binding (highspy), for what scipy's linprog
cannot do: start from a basis and return one (the warm and perturbed LPs), take a model as
arrays without scipy's checks (the restricted tree's many small LPs), and solve the cheat
sheet's MILP with a time limit and threads. scipy's `milp` reuses `linprog`'s HiGHS wrapper in
the same way.

Every long run goes through `run` (highspy) or `linprog` (scipy's): HiGHS runs in a thread
of its own while the main thread waits where Python handles signals
(`solver.common.signals.interruptible`), and HiGHS's interrupt callbacks end the run once a
Ctrl-C or SIGTERM came, so a command ends within a moment of one (it waited for the whole
LP, the longest step of `bidou solve --reroll keep`). The callbacks only read a flag: the LP
takes the same path and gives the same numbers."""

from __future__ import annotations

import contextlib
import threading
import types
from typing import Any, Iterator

import numpy as np
import scipy.sparse as sp

from solver.common.signals import interruptible

# HiGHS's callbacks that may end a run: the simplex's, the interior point's, the MILP's.
INTERRUPTS = ("kCallbackSimplexInterrupt", "kCallbackIpmInterrupt", "kCallbackMipInterrupt")


def stop_when(h: Any, binding: Any, stop: threading.Event) -> None:
    """HiGHS's interrupt callbacks on `h` (an instance of `binding`'s `_Highs`: highspy's
    or the one scipy bundles): its run ends at the next check after `stop` is set."""
    def interrupt(kind: int, message: str, data_out: Any, data_in: Any,
                  user_data: Any) -> None:
        if stop.is_set():
            data_in.user_interrupt = True

    h.setCallback(interrupt, None)
    for name in INTERRUPTS:
        h.startCallback(getattr(binding.cb.HighsCallbackType, name))


def run(h: Any, highspy: Any) -> Any:
    """`h.run()`, ended within a moment by Ctrl-C or SIGTERM (which then go on)."""
    stop = threading.Event()
    stop_when(h, highspy, stop)
    return interruptible(h.run, stop.set)


def linprog(*args: Any, **kwargs: Any) -> Any:
    """`scipy.optimize.linprog(*args, **kwargs)`, ended within a moment by Ctrl-C or
    SIGTERM like `run`: the HiGHS scipy makes for it gets the interrupt callbacks while it
    runs (`_stoppable_scipy`)."""
    import scipy.optimize

    stop = threading.Event()
    with _stoppable_scipy(stop):
        return interruptible(lambda: scipy.optimize.linprog(*args, **kwargs), stop.set)


@contextlib.contextmanager
def _stoppable_scipy(stop: threading.Event) -> Iterator[None]:
    """While the block runs, scipy's HiGHS wrapper (`scipy.optimize._highspy.
    _highs_wrapper`, which makes one `_Highs` per call from its module `_h`) makes them
    with the interrupt callbacks on. With another layout of scipy's internals, nothing
    changes: the LP still runs apart from the main thread, which still ends at once, and
    the LP's thread ends with the process."""
    try:
        import scipy.optimize._highspy._highs_wrapper as wrapper
        core = wrapper._h
        base = core._Highs
        core.cb.HighsCallbackType  # noqa: B018  (the callbacks' names, or no layout we know)
    except (ImportError, AttributeError):
        yield
        return

    class Stoppable(base):                  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            stop_when(self, core, stop)

    module = types.ModuleType(core.__name__)
    module.__dict__.update(vars(core))
    module._Highs = Stoppable               # type: ignore[attr-defined]
    wrapper._h = module
    try:
        yield
    finally:
        wrapper._h = core


def quiet_highs(highspy: Any, **options: Any) -> Any:
    """A HiGHS instance that prints nothing, with `options` set (HiGHS's own option names).
    The plain binding `_Highs` where there is one: `highspy.Highs` prints a banner."""
    h = getattr(highspy, "_Highs", highspy.Highs)()
    for option, value in {"output_flag": False, **options}.items():
        h.setOptionValue(option, value)
    return h


def simplex_options(method: str, tolerance: float) -> dict[str, Any]:
    """HiGHS's dual simplex (as scipy's highs-ds), or its interior point method with crossover
    to a basis, at `tolerance` for both feasibilities."""
    chosen = {"solver": "simplex", "simplex_strategy": 1} if method == "simplex" \
        else {"solver": "ipm", "run_crossover": "on"}
    return {**chosen, "dual_feasibility_tolerance": tolerance,
            "primal_feasibility_tolerance": tolerance}


def as_highs_lp(highspy: Any, cost: np.ndarray, col_lower: np.ndarray, col_upper: np.ndarray,
                A: sp.spmatrix, row_lower: np.ndarray, row_upper: np.ndarray,
                integrality: np.ndarray | None = None) -> Any:
    """min cost x over col_lower <= x <= col_upper, row_lower <= A x <= row_upper, as a
    highspy.HighsLp with its matrix by columns; infinite bounds become HiGHS's infinity and
    `integrality` (1 for an integer column) makes it a MILP."""
    A = sp.csc_matrix(A)
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.col_cost_ = np.asarray(cost, dtype=np.float64)
    lp.col_lower_, lp.col_upper_ = _bounds(col_lower, inf), _bounds(col_upper, inf)
    lp.row_lower_, lp.row_upper_ = _bounds(row_lower, inf), _bounds(row_upper, inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = A.shape[1], A.shape[0]
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
    if integrality is not None:
        lp.integrality_ = [highspy.HighsVarType(int(v)) for v in integrality]
    return lp


def _bounds(values: np.ndarray, inf: float) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    return np.where(np.isposinf(values), inf, np.where(np.isneginf(values), -inf, values))
