"""The one place HiGHS is driven through its own binding (highspy), for what scipy's linprog
cannot do: start from a basis and return one (the warm and perturbed LPs), take a model as
arrays without scipy's checks (the restricted tree's many small LPs), and solve the cheat
sheet's MILP with a time limit and threads. scipy's `milp` reuses `linprog`'s HiGHS wrapper in
the same way."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp


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
