"""The LP of a grown restricted tree, solved from the final basis of the LP before it.

The double oracle (solver/hand/lp/restricted.py) solves one LP per round, each on a tree that only
grows: the next LP has every column and row of the last one (the same sequences, best-reply
rows, totals and cumulative sums) and a few more, for the decisions brought in. Solved cold,
each LP repeats the whole path of the one before (Le Bidou's default hand: five LPs of 4 536
to 50 031 columns, 24 000 dual simplex iterations the last). So each column and row is named
by what it stands for (`lp_keys`), the last basis is carried over by name (`carry`: a new
column is nonbasic at its bound, a new row basic, i.e. its slack, which keeps the basis
square) and HiGHS's dual simplex starts from it (`solver.hand.lp.sequence_form.solve_lp_from`,
which drops a
start that leads nowhere for a cold solve). The LP is the same one; only the path changes.

Two shortcuts on that path (measured in docs/le-bidou.md, "Measured"): the new equality rows are
*crashed* by the lifted strategies of the last round (`carry`'s `guide`: each trades its
basic slot for a new column, so that the start holds the new flows: 7 870 iterations for
the default hand's four warm LPs against 13 582), and the first LP, cold, goes to HiGHS's
interior point method with crossover (0.5 s against 1.2 s of dual simplex).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Sequence

import numpy as np

from games.bidou.betting import CAPTAIN
from solver.hand.lp.sequence_form import Basis, BuiltLP, LPSolution, PlayerSpace, solve_lp_from
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy

Key = tuple


@dataclasses.dataclass(frozen=True)
class KeyedBasis:
    """A final basis by name: HiGHS's status of each column and row, keyed by `lp_keys`."""

    cols: dict[Key, int]
    rows: dict[Key, int]


def _space_keys(model: HandModel, space: PlayerSpace, player: str) -> tuple[list[Key], list[Key]]:
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


def lp_keys(model: HandModel, built: BuiltLP) -> tuple[list[Key], list[Key]]:
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


def carry(start: KeyedBasis, cols: list[Key], rows: list[Key], free: np.ndarray,
          guide: Guide | None = None) -> Basis | None:
    """`start` on an LP named `cols`, `rows` (`free`: the columns without a lower bound):
    each column and row keeps its status where `start` names it; a new column is nonbasic
    (at its lower bound, or at zero if free), a new row basic. None unless the result has
    one basic variable per row (a column or row of `start` that the new LP lacks).

    With `guide` (the next play at each decision: `lifted_guide`) each new equality row
    trades its basic slot for a new column of its own (`_crash`), so that the start
    already satisfies it; else the dual simplex spends about one iteration on each."""
    import highspy

    basic = int(highspy.HighsBasisStatus.kBasic)
    lower = int(highspy.HighsBasisStatus.kLower)
    zero = int(highspy.HighsBasisStatus.kZero)
    col_status = np.array([start.cols.get(key, lower) for key in cols], dtype=np.int8)
    col_status[(col_status == lower) & free] = zero
    row_status = np.array([start.rows.get(key, basic) for key in rows], dtype=np.int8)
    if (col_status == basic).sum() + (row_status == basic).sum() != len(rows):
        return None
    if guide is not None:
        _crash(start, cols, rows, col_status, row_status, guide)
    return Basis(col_status, row_status)


# The actions of a decision, most likely first, for one hand: (tc, to, history), hand.
Guide = Callable[[tuple[int, int, str], int], Sequence[str]]


def _crash(start: KeyedBasis, cols: list[Key], rows: list[Key], col_status: np.ndarray,
           row_status: np.ndarray, guide: Guide) -> None:
    """Make each new equality row nonbasic and a new column basic in its place: a flow
    row of the primal player's new decision (sum of its sequences = its parent's) takes
    the sequence of the action `guide` puts first among the LP's, an auxiliary's
    definition row takes that auxiliary. Each new column is met in its own row only
    (the rows of what lies below a new decision are new too), so the basis stays
    nonsingular, and the flows the start then holds are those of the guide's play: the
    default hand's four warm LPs, 7 870 dual simplex iterations against 13 582."""
    import highspy

    basic = int(highspy.HighsBasisStatus.kBasic)
    lower = int(highspy.HighsBasisStatus.kLower)
    position = {key: c for c, key in enumerate(cols)}
    for r, key in enumerate(rows):
        if key in start.rows:
            continue
        if key[:2] == ("x", "node"):
            _, _, tc, to, history, hand = key
            found = (position.get(("x", "bet", tc, to, history, action, hand))
                     for action in guide((tc, to, history), hand))
            column = next((c for c in found if c is not None), None)
        elif key[0] == "defines":
            column = position.get(key[1:])
        else:
            continue
        if column is None or cols[column] in start.cols or col_status[column] == basic:
            continue
        col_status[column], row_status[r] = basic, lower


def lifted_guide(model: HandModel, strategy: Strategy) -> Guide:
    """`strategy`'s actions at each decision of `model`'s trees, most likely first: the
    double oracle's lifted pair guides the next LP's start (`carry`)."""
    def order(where: tuple[int, int, str], hand: int) -> Sequence[str]:
        tc, to, history = where
        names = model.tree((tc, to)).node(history).actions
        probs = strategy.betting[where][:, hand]
        return [names[a] for a in np.argsort(-probs, kind="stable")]
    return order


def solve_grown(model: HandModel, start: KeyedBasis | None = None,
                guide: Guide | None = None) -> tuple[LPSolution, KeyedBasis]:
    """The LP of `model` (the captain its primal) by HiGHS's dual simplex, from `start`
    (the final basis of an LP of a smaller restricted tree of the same game) carried over
    by name (each new equality row crashed by `guide`, `carry`), or cold (by HiGHS's
    interior point and crossover); with its own final basis by name."""
    begin = time.perf_counter()
    built = BuiltLP(model, CAPTAIN)                  # built once: named, then solved
    cols, rows = lp_keys(model, built)
    basis = None
    if start is not None:
        basis = carry(start, cols, rows, np.isinf(built.bounds[:, 0]), guide)
    solution, final = solve_lp_from(model, basis, built=built, cold="ipm")
    solution = dataclasses.replace(solution, seconds=time.perf_counter() - begin)
    return solution, KeyedBasis(dict(zip(cols, final.cols.tolist())),
                                dict(zip(rows, final.rows.tolist())))
