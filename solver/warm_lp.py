"""The LP of a grown restricted tree, solved from the final basis of the LP before it.

The double oracle (solver/restricted.py) solves one LP per round, each on a tree that only
grows: the next LP has every column and row of the last one (the same sequences, best-reply
rows, totals and cumulative sums) and a few more, for the decisions brought in. Solved cold,
each LP repeats the whole path of the one before (Le Bidou's default hand: five LPs of 4 536
to 50 031 columns, 24 000 dual simplex iterations the last). So each column and row is named
by what it stands for (`lp_keys`), the last basis is carried over by name (`carry`: a new
column is nonbasic at its bound, a new row basic, i.e. its slack, which keeps the basis
square) and HiGHS's dual simplex starts from it (`solver.lp.solve_lp_from`, which drops a
start that leads nowhere for a cold solve). The LP is the same one; only the path changes.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from games.bidou.betting import CAPTAIN
from solver.lp import Basis, LPSolution, _Built, _Space, solve_lp_from
from solver.model import HandModel

Key = tuple


@dataclasses.dataclass(frozen=True)
class KeyedBasis:
    """A final basis by name: HiGHS's status of each column and row, keyed by `lp_keys`."""

    cols: dict[Key, int]
    rows: dict[Key, int]


def _space_keys(model: HandModel, space: _Space, player: str) -> tuple[list[Key], list[Key]]:
    """The name of each sequence of one player's space, and of each row of its E x = e:
    the throwing rows (the same in every restricted tree) by position, then one row per
    hand of each of his betting decisions, in the order `lp._sequence_space` adds them."""
    cols: list[Key | None] = [None] * space.size
    for where in zip(*np.nonzero(space.throw >= 0)):
        cols[space.throw[where]] = (player, "throw", *map(int, where))
    for (context, t), (totals, actions) in space.rethrown.items():
        for total, action in zip(totals, actions):
            cols[total] = (player, "rethrown", context, t, int(action))
    for (tc, to, history), index in space.betting.items():
        names = model.tree((tc, to)).node(history).actions
        for a, action in enumerate(names):
            for hand, column in enumerate(index[a]):
                cols[column] = (player, "bet", tc, to, history, action, hand)
    n = model.num_hands
    throw_rows = len(space.rhs) - len(space.betting) * n
    rows: list[Key] = [(player, "flow", i) for i in range(throw_rows)]
    for tc, to, history in space.betting:             # in the order they were added
        rows.extend((player, "node", tc, to, history, hand) for hand in range(n))
    if any(key is None for key in cols):
        raise ValueError("a sequence of the LP has no name")
    return [key for key in cols if key is not None], rows


def lp_keys(model: HandModel, built: _Built) -> tuple[list[Key], list[Key]]:
    """The names of the columns and rows of `built` (the LP as HiGHS gets it): the primal
    player's sequences, one column per row of the dual player's E y = e, the auxiliary
    totals and cumulative sums (named by the sequence they sum); then the kept best-reply
    rows (by the dual player's sequence), E x = e, and the definition of each auxiliary
    (one row each, created with it)."""
    lp = built.lp
    x_cols, x_rows = _space_keys(model, lp.primal, "x")
    y_cols, y_rows = _space_keys(model, lp.dual, "y")
    first = lp.nx + lp.nq
    aux: list[Key | None] = [None] * lp.n_aux
    for seq, columns in lp._cumulative.items():
        for i, column in enumerate(columns):
            aux[column - first] = ("cumulative", x_cols[seq[0]], i)
    for seq, column in lp._totals.items():
        aux[column - first] = ("total", x_cols[seq[0]])
    if any(key is None for key in aux):
        raise ValueError("an auxiliary variable of the LP has no name")
    named = [key for key in aux if key is not None]
    cols = x_cols + [("q", *key) for key in y_rows] + named
    rows = ([("best reply", *y_cols[i]) for i in built.kept] + x_rows
            + [("defines", *key) for key in named])
    return cols, rows


def carry(start: KeyedBasis, cols: list[Key], rows: list[Key], free: np.ndarray
          ) -> Basis | None:
    """`start` on an LP named `cols`, `rows` (`free`: the columns without a lower bound):
    each column and row keeps its status where `start` names it; a new column is nonbasic
    (at its lower bound, or at zero if free), a new row basic. None unless the result has
    one basic variable per row (a column or row of `start` that the new LP lacks)."""
    import highspy

    basic = int(highspy.HighsBasisStatus.kBasic)
    lower = int(highspy.HighsBasisStatus.kLower)
    zero = int(highspy.HighsBasisStatus.kZero)
    col_status = np.array([start.cols.get(key, lower) for key in cols], dtype=np.int8)
    col_status[(col_status == lower) & free] = zero
    row_status = np.array([start.rows.get(key, basic) for key in rows], dtype=np.int8)
    if (col_status == basic).sum() + (row_status == basic).sum() != len(rows):
        return None
    return Basis(col_status, row_status)


def solve_grown(model: HandModel, start: KeyedBasis | None = None
                ) -> tuple[LPSolution, KeyedBasis]:
    """The LP of `model` (the captain its primal) by HiGHS's dual simplex, from `start`
    (the final basis of an LP of a smaller restricted tree of the same game) carried over
    by name, or cold; with its own final basis by name."""
    begin = time.perf_counter()
    built = _Built(model, CAPTAIN)                  # built once: named, then solved
    cols, rows = lp_keys(model, built)
    basis = None
    if start is not None:
        basis = carry(start, cols, rows, np.isinf(built.bounds[:, 0]))
    solution, final = solve_lp_from(model, basis, built=built)
    solution = dataclasses.replace(solution, seconds=time.perf_counter() - begin)
    return solution, KeyedBasis(dict(zip(cols, final.cols.tolist())),
                                dict(zip(rows, final.rows.tolist())))
