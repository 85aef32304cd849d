"""The cheat sheet's mixed-integer program, as arrays: its columns, its rows, the program
of a rule book with fixed scopes (`Program`), and that program loaded into HiGHS.

cheatsheet_milp.py solves it for the best cuts and cheatsheet_bound.py relaxes it for a lower
bound on every book of a size; docs/charts.md says what each proves.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.cheatsheet import rulebook
from solver.cheatsheet.rulebook import STEPS, Atom, Rule
from solver.hand.lp import sequence_form as sequence_lp
from solver.hand.lp.highs import as_highs_lp, quiet_highs
from solver.hand.model import HandModel

LEVELS = STEPS                  # quarter levels of a staircase
INFINITY = 1e30


class Columns:
    """The program's variables: bounds, costs, integrality, appended block by block."""

    def __init__(self) -> None:
        self.lower: list[np.ndarray] = []
        self.upper: list[np.ndarray] = []
        self.cost: list[np.ndarray] = []
        self.integer: list[np.ndarray] = []
        self.size = 0

    def add(self, count: int, lower=0.0, upper=INFINITY, cost=0.0, integer=False) -> np.ndarray:
        self.lower.append(np.broadcast_to(np.asarray(lower, float), (count,)).copy())
        self.upper.append(np.broadcast_to(np.asarray(upper, float), (count,)).copy())
        self.cost.append(np.broadcast_to(np.asarray(cost, float), (count,)).copy())
        self.integer.append(np.full(count, int(integer), dtype=np.int32))
        first, self.size = self.size, self.size + count
        return np.arange(first, first + count)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return tuple(np.concatenate(a) for a in (self.lower, self.upper, self.cost,
                                                 self.integer))   # type: ignore[return-value]


class RowSet:
    """Rows lo <= sum(v * x[c]) <= hi, added many at once: `add(cols, vals, lo, hi)` with
    cols and vals of shape (rows, terms) (or broadcastable)."""

    def __init__(self) -> None:
        self.r: list[np.ndarray] = []
        self.c: list[np.ndarray] = []
        self.v: list[np.ndarray] = []
        self.lo: list[np.ndarray] = []
        self.hi: list[np.ndarray] = []
        self.count = 0

    def add(self, cols, vals, lo, hi) -> None:
        cols = np.atleast_2d(np.asarray(cols, dtype=np.int64))
        vals = np.broadcast_to(np.asarray(vals, float), cols.shape)
        rows = np.arange(self.count, self.count + cols.shape[0])
        self.r.append(np.repeat(rows, cols.shape[1]))
        self.c.append(cols.ravel())
        self.v.append(vals.ravel())
        self.lo.append(np.broadcast_to(np.asarray(lo, float), rows.shape).copy())
        self.hi.append(np.broadcast_to(np.asarray(hi, float), rows.shape).copy())
        self.count += cols.shape[0]

    def add_matrix(self, matrix: sp.spmatrix, offset: int, lo, hi) -> None:
        coo = matrix.tocoo()
        self.r.append(coo.row.astype(np.int64) + self.count)
        self.c.append(coo.col.astype(np.int64) + offset)
        self.v.append(coo.data.astype(float))
        self.lo.append(np.broadcast_to(np.asarray(lo, float), (matrix.shape[0],)).copy())
        self.hi.append(np.broadcast_to(np.asarray(hi, float), (matrix.shape[0],)).copy())
        self.count += matrix.shape[0]

    def matrix(self, columns: int) -> sp.csc_matrix:
        return sp.csc_matrix((np.concatenate(self.v), (np.concatenate(self.r),
                                                       np.concatenate(self.c))),
                             shape=(self.count, columns))


def mass_bounds(model: HandModel) -> np.ndarray:
    """(T, n): the most mass any plan brings to hand h after throw t+1 (prior at the first
    throw; later, the likeliest outcome of any kept dice)."""
    later = np.where(model.throw_legal[1:].any(axis=1, keepdims=True),
                     model.outcome[1:], 0.0).max(axis=0)
    return np.vstack([model.prior] + [later] * (model.throws - 1))


class Program:
    """The MILP of one rule book (its scopes fixed), built once. With `free`, only those
    rules' cuts are variables: the others' decisions are pinned as they are, by linear
    rows x(action) = p(action) * m (no binaries, no products), a much smaller program. With
    `floors` ({rule index: whole hands}), those face rules raise at least with that many of
    the strongest hands (`search.RaiseFloors`)."""

    def __init__(self, model: HandModel, rules: Sequence[Rule],
                 free: Sequence[int] | None = None, floors: Mapping[int, int] | None = None):
        self.model = model
        self.floors = dict(floors or {})
        self.rules = [rulebook.canonical(model, r) for r in rules]
        self.free = set(range(len(self.rules)) if free is None else free)
        self.atoms = rulebook.atoms(model)
        self.owner = rulebook.assign(self.rules, self.atoms)
        self.pos = rulebook.positions(model)
        self.U = mass_bounds(model)
        self.cols, self.rows = Columns(), RowSet()
        self.sides: dict[int, tuple] = {int(p): self._side(p) for p in (CAPTAIN, OPPONENT)}
        self.cuts = {i: [self._staircase() for _ in r.params[:2 if r.kind == "open" else 3]]
                     for i, r in enumerate(self.rules) if has_cuts_only(r) and i in self.free}
        self._nest()
        keeps = self._keeps()
        for atom, i in zip(self.atoms, self.owner):
            if atom.kind == "keep":
                continue
            if i in self.cuts:
                self._link(atom, i, keeps.get((atom.player, atom.key)))
            else:
                self._pin(atom, i, keeps.get((atom.player, atom.key)))

    def _side(self, player: int) -> tuple:
        """One player's LP (his plan primal, the adversary's reply dual), its cost halved."""
        lp, (c, A_ub, A_eq, b_eq, bounds) = sequence_lp.sequence_form(self.model, player)
        columns = self.cols.add(len(c), np.maximum(bounds[:, 0], -INFINITY),
                                np.minimum(bounds[:, 1], INFINITY), c / 2)
        self.rows.add_matrix(A_ub, columns[0], -INFINITY, 0.0)
        self.rows.add_matrix(A_eq, columns[0], b_eq, b_eq)
        return lp, int(columns[0])

    def _staircase(self) -> np.ndarray:
        """(LEVELS, n) binaries b[j, p] = [p < c_j], by position: non-increasing both ways."""
        n = self.model.num_hands
        b = self.cols.add(LEVELS * n, 0.0, 1.0, integer=True).reshape(LEVELS, n)
        self.rows.add(np.stack([b[:, 1:].ravel(), b[:, :-1].ravel()], axis=1), [1.0, -1.0],
                      -INFINITY, 0.0)
        self.rows.add(np.stack([b[1:].ravel(), b[:-1].ravel()], axis=1), [1.0, -1.0],
                      -INFINITY, 0.0)
        return b

    def _nest(self) -> None:
        """Two-cut rules: every hand inside the first cut at all is wholly inside the second
        (c1 of the first <= c4 of the second; an open rule's bluffs below a pass); a
        top-level face rule never raises; a face rule raises with its floor's hands."""
        for i, rule in enumerate(self.rules):
            if rule.kind not in ("open", "face") or i not in self.cuts:
                continue
            first, second = self.cuts[i]
            if rulebook.top_level_only(self.model, rule):
                self._fix_zero(first.ravel())
                continue
            if rule.kind == "face" and self.floors.get(i):    # raise with the floor's hands
                self.rows.add(first[:, :self.floors[i]].ravel()[:, None], 1.0, 1.0, 1.0)
            if rule.kind == "open":            # a bluff band's end is fixed: c1 <= e
                self._fix_zero(second[0, rulebook.band_end(self.model, rule):])
                # a hand that always passes between value bets and bluffs
                # (`rulebook.polarized`): a hand inside v at all has the next one wholly
                # inside b
                self.rows.add(np.stack([first[0, :-1], second[-1, 1:]], axis=1),
                              [1.0, -1.0], -INFINITY, 0.0)
            self.rows.add(np.stack([first[0], second[-1]], axis=1), [1.0, -1.0], -INFINITY,
                          0.0)

    def _fix_zero(self, columns: np.ndarray) -> None:
        self.rows.add(columns[:, None], 1.0, 0.0, 0.0)

    def _keeps(self) -> dict[tuple[int, tuple], np.ndarray]:
        return rulebook.keep_plan(self.model, self.rules, self.atoms, self.owner)

    def _products(self, mass: np.ndarray, bound: np.ndarray, b: np.ndarray) -> np.ndarray:
        """(LEVELS, n) variables u[j, h] = b[j, pos(h)] * mass[h], exactly (b binary)."""
        n = self.model.num_hands
        u = self.cols.add(LEVELS * n, 0.0, np.tile(bound, LEVELS)).reshape(LEVELS, n)
        bb = b[:, self.pos]
        m = np.broadcast_to(mass, u.shape)
        U = np.broadcast_to(bound, u.shape)
        flat = [a.ravel() for a in (u, m, bb, U)]
        self.rows.add(np.stack(flat[:2], axis=1), [1.0, -1.0], -INFINITY, 0.0)   # u <= m
        self.rows.add(np.stack([flat[0], flat[2]], axis=1), np.stack(
            [np.ones_like(flat[3]), -flat[3]], axis=1), -INFINITY, 0.0)          # u <= U b
        self.rows.add(np.stack(flat[:3], axis=1), np.stack(
            [np.ones_like(flat[3]), -np.ones_like(flat[3]), -flat[3]], axis=1),
            -flat[3], INFINITY)                                                  # u >= m - U(1-b)
        self.rows.add(np.stack([u[1:].ravel(), u[:-1].ravel()], axis=1), [1.0, -1.0],
                      -INFINITY, 0.0)                                            # u_j+1 <= u_j
        return u

    def _mass(self, terms: np.ndarray) -> np.ndarray:
        """(n,) variables m[h] = the sum of the columns terms[:, h] (-1: none)."""
        n = self.model.num_hands
        m = self.cols.add(n)
        cols = np.concatenate([m[None, :], terms], axis=0).T
        vals = np.concatenate([np.ones((1, n)), -np.ones(terms.shape)], axis=0).T
        vals = np.where(cols >= 0, vals, 0.0)
        self.rows.add(np.maximum(cols, 0), vals, 0.0, 0.0)
        return m

    def _link(self, atom: Atom, i: int, keep: np.ndarray | None) -> None:
        """Pin the sheet player's plan at `atom` to what rule i states."""
        lp, offset = self.sides[atom.player]
        cuts = self.cuts[i]
        quarter = 1.0 / LEVELS
        if atom.kind == "throw":
            c, t = atom.key
            index = lp.primal.throw[c, t - 1]                     # (A, n), -1 where illegal
            self._pin_keep(index, offset, keep)
            mass = self._mass(np.where(index >= 0, index + offset, -1))
            stop = self._products(mass, self.U[t - 1], cuts[0])
            self._equal(index[0] + offset, [(stop, quarter)])
            return
        tc, to, history = atom.key
        node = lp.model.tree((tc, to)).node(history)
        index = lp.primal.betting[atom.key] + offset              # (actions, n)
        parent = sequence_lp.parent_sequences(lp, (tc, to))[node.index] + offset
        own = tc if atom.player == CAPTAIN else to
        mass = self._mass(parent[None, :])
        actions = node.actions
        if atom.kind == "open":
            value = self._products(mass, self.U[own - 1], cuts[0])
            inside = self._products(mass, self.U[own - 1], cuts[1])
            # bet = value + (mass - inside) in the band (inside is 0 below it):
            # x_bet - sum(value)/4 - [pos < e] m + sum(inside)/4 = 0
            band = (self.pos < rulebook.band_end(self.model, self.rules[i])).astype(float)
            self._equal(index[actions.index("bet")], [(value, quarter), (inside, -quarter)],
                        mass, band)
            return
        cont = self._products(mass, self.U[own - 1], cuts[1])
        if "raise" in actions:
            raised = self._products(mass, self.U[own - 1], cuts[0])
            self._equal(index[actions.index("raise")], [(raised, quarter)])
            self._equal(index[actions.index("call")], [(cont, quarter), (raised, -quarter)])
        else:
            self._equal(index[actions.index("call")], [(cont, quarter)])

    def _pin(self, atom: Atom, i: int, keep: np.ndarray | None) -> None:
        """A fixed rule's decision at `atom`: rows x[a, h] = p[a, h] * m[h]."""
        lp, offset = self.sides[atom.player]
        probs = rulebook.action_probs(self.model, self.rules[i], atom, self.pos, keep)
        if atom.kind == "throw":
            c, t = atom.key
            index = lp.primal.throw[c, t - 1]
            self._pin_keep(index, offset, keep)
            mass = self._mass(np.where(index >= 0, index + offset, -1))
            self.rows.add(np.stack([index[0] + offset, mass], axis=1),
                          np.stack([np.ones(len(mass)), -probs[0]], axis=1), 0.0, 0.0)
            return
        tc, to, history = atom.key
        node = lp.model.tree((tc, to)).node(history)
        index = lp.primal.betting[atom.key] + offset
        parent = sequence_lp.parent_sequences(lp, (tc, to))[node.index] + offset
        for a in range(len(node.actions) - 1):           # the last one by the flow rows
            self.rows.add(np.stack([index[a], parent], axis=1),
                          np.stack([np.ones(len(parent)), -probs[a]], axis=1), 0.0, 0.0)

    def _equal(self, x: np.ndarray, parts: list[tuple[np.ndarray, float]],
               mass: np.ndarray | None = None, weight: np.ndarray | None = None) -> None:
        """Rows x[h] = sum of coef * sum_j u[j, h] (+ weight[h] * mass[h], weight 1 if
        not given)."""
        n = self.model.num_hands
        cols = [x[None, :]] + [u for u, _ in parts]
        vals = [np.ones((1, n))] + [np.full(u.shape, -coef) for u, coef in parts]
        if mass is not None:
            cols.append(mass[None, :])
            vals.append(-(np.ones((1, n)) if weight is None else weight[None, :]))
        self.rows.add(np.concatenate(cols, axis=0).T, np.concatenate(vals, axis=0).T, 0.0,
                      0.0)

    def _pin_keep(self, index: np.ndarray, offset: int, keep: np.ndarray | None) -> None:
        """Below the stop cut the hand throws again keeping what its keep rule says: the
        other throw actions carry no mass."""
        if keep is None:
            keep = np.ones(self.model.num_hands, dtype=np.int64)
        A = index.shape[0]
        banned = (index >= 0) & (np.arange(A)[:, None] != keep[None, :])
        banned[0] = False
        if banned.any():
            self._fix_zero(index[banned] + offset)

    # --- reading and starting -------------------------------------------------------------

    def start_values(self, rules: Sequence[Rule]) -> dict[int, float] | None:
        """The binaries of `rules` (same scopes), or None if a cut is outside the family."""
        values: dict[int, float] = {}
        for i, rule in self.cut_rules(rules):
            if i not in self.cuts:
                continue
            if rule.kind in ("open", "face") and not nested_cuts(rule):
                return None
            for cut, b in zip(rule.params, self.cuts[i]):
                c = rulebook.counts(cut)
                for j in range(LEVELS):
                    values.update(zip(b[j].tolist(), (np.arange(len(b[j])) < c[j]).tolist()))
        return values

    def owns(self, i: int, column: int) -> bool:
        """Whether `column` is one of rule i's binaries."""
        return any(b[0, 0] <= column <= b[-1, -1] for b in self.cuts.get(i, []))

    def cut_rules(self, rules: Sequence[Rule]) -> list[tuple[int, Rule]]:
        return [(i, rulebook.canonical(self.model, r)) for i, r in enumerate(rules)
                if has_cuts_only(r)]

    def rules_of(self, x: np.ndarray) -> tuple[Rule, ...]:
        """The book a solution's binaries state."""
        out = []
        for i, rule in enumerate(self.rules):
            if i not in self.cuts:
                out.append(rule)
                continue
            params = tuple(rulebook.cut_of(tuple(int(round(x[b[j]].sum()))
                                                 for j in range(LEVELS)))
                           for b in self.cuts[i]) + rule.params[len(self.cuts[i]):]
            out.append(rulebook.canonical(self.model, dataclasses.replace(rule,
                                                                          params=params)))
        return tuple(out)


def has_cuts_only(rule: Rule) -> bool:
    """Whether the program can vary the rule: its action is cuts alone. A keep rule, and a
    throw rule that stops the hands its keep rule keeps nothing of (which hands those are
    is no cut in the ranking), stay as they are: pinned rows, like a rule not `free`."""
    return rule.kind != "keep" and not rulebook.stops_on_nothing(rule)


def nested_cuts(rule: Rule) -> bool:
    """Whether an open or face rule's two cuts nest (its first inside its second)."""
    first, second = rule.params[:2]
    return rulebook.counts(first)[0] <= rulebook.counts(second)[-1]


def load_program(program: Program, time_limit: float, threads: int, presolve: bool):
    """The program loaded into HiGHS (quiet, with its options)."""
    import highspy

    lower, upper, cost, integer = program.cols.arrays()
    A = program.rows.matrix(program.cols.size)
    # HiGHS keeps one thread scheduler per process and refuses to run with another
    # `threads` than the one it started with (an earlier solve's: model status "not set");
    # a blocking reset lets this solve choose its own.
    highspy.Highs.resetGlobalScheduler(True)
    h = quiet_highs(highspy, time_limit=float(time_limit), threads=int(threads),
                    mip_rel_gap=1e-6, mip_abs_gap=1e-9, presolve="on" if presolve else "off")
    row_lo, row_hi = np.concatenate(program.rows.lo), np.concatenate(program.rows.hi)
    h.passModel(as_highs_lp(highspy, cost, _infinite(lower), _infinite(upper), A,
                            _infinite(row_lo), _infinite(row_hi), integrality=integer))
    return h


def _infinite(bounds: np.ndarray) -> np.ndarray:
    """The program's +-INFINITY as true infinities."""
    return np.where(bounds >= INFINITY, np.inf, np.where(bounds <= -INFINITY, -np.inf, bounds))
