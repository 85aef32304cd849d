"""Proved lower bounds on what a cheat sheet of k rules costs: a relaxation kept exact.

Why the whole MILP (`milp.py`) proves nothing on the real games: its relaxation
lets a rule's binaries be fractional, and the McCormick rows of u = b * m then let the plan
x be almost anything wherever the mass m reaching a decision is a variable (every betting
decision, every throw after the first); the relaxed plan is nearly the unrestricted
sequence-form LP, whose exploitability is 0. And the program (73k columns, 187k rows with 3
rules) is too big for HiGHS to solve even that relaxation in 10 minutes.

This module keeps only rows that every book with the given scopes satisfies exactly, every
other decision free as in the plain LP (both players' LPs side by side, ~29k columns):

* **the first throws**: the mass of hand h there is the prior p(h) (chance alone), so a
  throw rule's stop frequency s(h) = sum_j b[j, pos(h)] / 4 gives x_stop(h) = p(h) s(h), a
  linear row, one staircase per throw rule (`book_groups`);
* **ties** (`book_ties`): decisions of one rule (and one keep rule), of one player, with the
  same actions, reached through the same sequence of his or through sequences tied already,
  have the same plan x_a = x_a' (the same frequencies times the same mass): the opponent's
  throwing whatever the captain's count, the captain's betting whatever the opponent's.

Every such book is a plan of the program, so its optimum (an LP HiGHS proves optimal; with
`integer`, the staircases' quarters too, and HiGHS's dual bound if the time limit stops it)
is a **proved lower bound** on the exploitability of every book with those scopes, whatever
its cuts, bands and keep rules (`book_bound`).

Over **every** book of at most k rules (`all_scopes_bound`): a book needs one rule per kind
of decision; with exactly that the scopes are known, with one rule more every book is tried
(`split_books`), and beyond, `relaxed_books` enumerates how the spare rules can split each
kind's pinned decisions (sets one scope covers; ties through the very same sequence only,
since tied sequences upstream depend on the other rules' scopes; a finer grouping only
relaxes, so the finest suffice). Under ``reroll="keep"`` a throw rule may stop "if it keeps
nothing", no cut in the ranking: its first throws are then left free, and there the bound
over every book pins no first throw at all.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from typing import Sequence

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.cheatsheet import rulebook
from solver.cheatsheet.program import (
    LEVELS,
    Columns,
    Program,
    RowSet,
    has_cuts_only,
    load_program,
)
from solver.cheatsheet.rulebook import Atom, Rule
from solver.hand.lp import sequence_form as sequence_lp
from solver.hand.lp.highs import run
from solver.hand.model import HandModel

Group = tuple[int, ...]          # indices into `first_throws(model)`
Tie = tuple[int, ...]            # indices into `rulebook.atoms(model)`


@dataclasses.dataclass(frozen=True)
class Bound:
    """What HiGHS proved about one grouping of the first-throw decisions."""

    groups: tuple[Group, ...]
    bound: float                 # no book with this grouping costs less (proved; 0 if none)
    objective: float             # the relaxed program's best plan found (inf if none)
    status: str
    seconds: float
    integer: bool                # quarters (binaries) or any frequencies (the LP)

    @property
    def proved_optimal(self) -> bool:
        return self.status == "optimal"


def first_throws(model: HandModel) -> list[Atom]:
    """The decisions whose mass is chance alone: each player's first throw (the captain's,
    and the opponent's after each throw count of the captain)."""
    atoms = rulebook.atoms(model)
    return [atoms[k] for k in _first_throw_indices(model)]


def _first_throw_indices(model: HandModel) -> list[int]:
    """`first_throws` as indices into `rulebook.atoms`."""
    return [k for k, a in enumerate(rulebook.atoms(model))
            if a.kind == "throw" and a.key[1] == 1]


def book_groups(model: HandModel, rules: Sequence[Rule]) -> tuple[Group, ...]:
    """The grouping of the first throws that `rules` states: the decisions of each throw
    rule with cuts only (a rule stopping "if it keeps nothing" pins nothing here)."""
    rules = [rulebook.canonical(model, r) for r in rules]
    owner = rulebook.assign(rules, first_throws(model))
    groups: dict[int, list[int]] = {}
    for k, i in enumerate(owner):
        if has_cuts_only(rules[i]):
            groups.setdefault(i, []).append(k)
    return tuple(tuple(g) for g in groups.values())


class _Relaxation:
    """Both players' sequence-form LPs (the plan primal, the adversary's reply dual, as in
    `cheatsheet_milp.Program`) and, per group, one staircase pinning the first-throw stop
    frequencies: x_stop(h) = p(h) / 4 * sum_j b[j, pos(h)]."""

    def __init__(self, model: HandModel, groups: Sequence[Group], integer: bool,
                 ties: Sequence[Tie] = ()):
        self.model = model
        self.cols, self.rows = Columns(), RowSet()
        self.sides = {int(p): Program._side(self, p)      # type: ignore[arg-type]
                      for p in (CAPTAIN, OPPONENT)}
        pos = rulebook.positions(model)
        atoms = first_throws(model)
        n = model.num_hands
        for group in groups:
            b = self._staircase(integer)
            for k in group:
                atom = atoms[k]
                lp, offset = self.sides[atom.player]
                stop = lp.primal.throw[atom.key[0], 0][0] + offset      # (n,)
                cols = np.concatenate([stop[:, None], b[:, pos].T], axis=1)
                vals = np.concatenate([np.ones((n, 1)),
                                       np.repeat(-model.prior[:, None] / LEVELS, LEVELS,
                                                 axis=1)], axis=1)
                self.rows.add(cols, vals, 0.0, 0.0)
        for tie in ties:
            self._tie(tie)

    def _tie(self, tie: "Tie") -> None:
        """Decisions of one rule reached through the same (or tied) sequences of the
        player's (`book_ties`): the same frequencies times the same mass, so the same
        plan, x_a = x_a' action by action."""
        atoms = rulebook.atoms(self.model)
        first, *others = (atoms[k] for k in tie)
        lp, offset = self.sides[first.player]
        for atom in others:
            if atom.kind == "throw":                     # every legal (action, hand)
                one, two = (lp.primal.throw[a.key[0], a.key[1] - 1] for a in (first, atom))
                legal = (one >= 0) & (two >= 0)
                pairs = np.stack([one[legal], two[legal]], axis=1)
            else:                                        # the last one by the flow rows
                one, two = lp.primal.betting[first.key], lp.primal.betting[atom.key]
                pairs = np.stack([one[:-1].ravel(), two[:-1].ravel()], axis=1)
            self.rows.add(pairs + offset, [1.0, -1.0], 0.0, 0.0)

    def _staircase(self, integer: bool) -> np.ndarray:
        n = self.model.num_hands
        b = self.cols.add(LEVELS * n, 0.0, 1.0, integer=integer).reshape(LEVELS, n)
        self.rows.add(np.stack([b[:, 1:].ravel(), b[:, :-1].ravel()], axis=1), [1.0, -1.0],
                      -1e30, 0.0)
        self.rows.add(np.stack([b[1:].ravel(), b[:-1].ravel()], axis=1), [1.0, -1.0],
                      -1e30, 0.0)
        return b


def bound(model: HandModel, groups: Sequence[Group], time_limit: float = 60.0,
          integer: bool = True, threads: int = 1, ties: Sequence[Tie] = ()) -> Bound:
    """The least exploitability of any plan whose first throws follow one staircase per
    group (quarters if `integer`, else any non-increasing frequencies), and HiGHS's proof.
    Presolve off: the bound must be the program's own (`cheatsheet_milp.optimize`)."""
    import highspy

    begin = time.perf_counter()
    program = _Relaxation(model, groups, integer, ties)
    h = load_program(program, time_limit, threads, presolve=False)    # type: ignore[arg-type]
    run(h, highspy)
    info, status = h.getInfo(), h.getModelStatus()
    optimal = status == highspy.HighsModelStatus.kOptimal
    found = info.primal_solution_status == 2
    objective = float(info.objective_function_value) if found else float("inf")
    if integer:
        proved = float(info.mip_dual_bound)
        proved = proved if np.isfinite(proved) else 0.0
    else:
        proved = objective if optimal else 0.0       # an LP stopped early proves nothing
    name = "optimal" if optimal else h.modelStatusToString(status).lower()
    return Bound(tuple(tuple(g) for g in groups), max(0.0, proved), objective, name,
                 time.perf_counter() - begin, integer)


def book_bound(model: HandModel, rules: Sequence[Rule], time_limit: float = 60.0,
               integer: bool = True) -> Bound:
    """A proved lower bound on every book whose throw rules group the first throws as
    `rules`' do (the other rules' scopes and every cut free)."""
    return bound(model, book_groups(model, rules), time_limit, integer,
                 ties=book_ties(model, rules))


Partition = tuple[frozenset[int], ...]      # groups of indices into `rulebook.atoms`


def relevant_atoms(model: HandModel) -> dict[str, frozenset[int]]:
    """Per kind of decision, the decisions the relaxation pins (indices into
    `rulebook.atoms`): the first throws (not under ``reroll="keep"``, where a throw rule
    may stop on no cut), and the betting decisions one rule of full scope ties
    (`book_ties` of the coarsest book)."""
    atoms = rulebook.atoms(model)
    out: dict[str, set[int]] = {kind: set() for kind in {a.kind for a in atoms}}
    if model.params.reroll != "keep":
        out["throw"] = set(_first_throw_indices(model))
    for tie in book_ties(model, rulebook.root_rules(model), propagate=False):
        if atoms[tie[0]].kind != "throw":     # (a throw's tie needs one keep rule too)
            out[atoms[tie[0]].kind].update(tie)
    return {kind: frozenset(v) for kind, v in out.items()}


def _every_scope(model: HandModel, kind: str):
    """Every scope a rule of `kind` can have (an interval per feature), normalized."""
    intervals = [[(lo, hi) for lo in range(a, b + 1) for hi in range(lo, b + 1)]
                 for a, b in rulebook.domains(model)[kind].values()]
    for scope in itertools.product(*intervals):
        yield rulebook.normalize_scope(model, kind, scope)


def scope_groups(model: HandModel, kind: str, relevant: frozenset[int]) -> set[frozenset[int]]:
    """Every set of `relevant` decisions that one rule's scope (of `kind`) covers."""
    atoms = rulebook.atoms(model)
    out: set[frozenset[int]] = set()
    for scope in _every_scope(model, kind):
        rule = Rule(kind, scope, ())
        covered = frozenset(k for k in relevant if rule.covers(atoms[k]))
        if covered:
            out.add(covered)
    return out


def partitions(model: HandModel, kind: str, relevant: frozenset[int], most: int
               ) -> list[Partition]:
    """The finest partitions of `relevant` into at most `most` sets, each what one scope
    covers of them: the groupings at most `most` rules of `kind` can make (a superset:
    the scopes need not be disjoint elsewhere; a partition coarser than another is
    dropped, it bounds no lower)."""
    if not relevant:
        return [()]
    usable = sorted(scope_groups(model, kind, relevant), key=sorted)
    found: list[Partition] = []

    def extend(left: frozenset[int], chosen: Partition) -> None:
        if not left:
            found.append(chosen)
            return
        if len(chosen) == most:
            return
        first = min(left)
        for g in usable:
            if first in g and g <= left:
                extend(left - g, chosen + (g,))

    extend(relevant, ())
    unique = list(dict.fromkeys(tuple(sorted(p, key=sorted)) for p in found))
    return [p for p in unique if not any(_finer(q, p) for q in unique if q != p)]


def _finer(q: Partition, p: Partition) -> bool:
    """Whether every group of q lies inside a group of p (q relaxes p)."""
    return all(any(g <= h for h in p) for g in q)


def relaxed_books(model: HandModel, k: int) -> list[dict[str, Partition]]:
    """What any book of at most k rules pins, as one partition per kind of decision: the
    extra k - (kinds) rules shared among the kinds every way, each kind's finest
    partitions (`partitions`), and only the finest combinations kept."""
    relevant = relevant_atoms(model)
    kinds = sorted(relevant)
    extra = k - len(kinds)
    if extra < 0:
        raise ValueError(f"a book needs at least {len(kinds)} rules (one per kind)")
    out: list[dict[str, Partition]] = []
    for shares in itertools.product(range(extra + 1), repeat=len(kinds)):
        if sum(shares) != extra:
            continue
        per_kind = [partitions(model, kind, relevant[kind], 1 + share)
                    for kind, share in zip(kinds, shares)]
        out += [dict(zip(kinds, combo)) for combo in itertools.product(*per_kind)]
    unique = list({tuple(sorted(b.items())): b for b in out}.values())
    return [b for b in unique
            if not any(c is not b and all(_finer(c[kind], b[kind]) for kind in kinds)
                       and c != b for c in unique)]


def relaxed_program(model: HandModel, book: dict[str, Partition],
                    full: Sequence[Tie] | None = None
                    ) -> tuple[tuple[Group, ...], tuple[Tie, ...]]:
    """The groups of first throws and the ties that a relaxed book pins (`full`: the
    coarsest book's ties, if known)."""
    first = {a: i for i, a in enumerate(_first_throw_indices(model))}
    if full is None:
        full = book_ties(model, rulebook.root_rules(model), propagate=False)
    groups = tuple(tuple(sorted(first[k] for k in g)) for g in book.get("throw", ()))
    ties = tuple(tuple(sorted(set(t) & g)) for kind, p in book.items() if kind != "throw"
                 for g in p for t in full if len(set(t) & g) > 1)
    return groups, ties


def relaxed_programs(model: HandModel, k: int
                     ) -> list[tuple[tuple[Group, ...], tuple[Tie, ...]]]:
    """The distinct programs (`relaxed_program`) of `relaxed_books(model, k)`, the finest
    only: one whose groups and ties all lie inside another's relaxes it. Their ties are
    those through the very same sequence (`book_ties` without `propagate`: tied
    sequences upstream depend on the other rules' scopes), but with one rule per kind the
    scopes are known and the program is that book's, every tie in; with one rule more,
    every such book (`split_books`) is tried, every tie in too."""
    root = rulebook.root_rules(model)
    kinds = len(relevant_atoms(model))
    if k <= kinds + 1:     # one rule per kind, or one kind split in two: every book, ties in
        books = [root] + (split_books(model) if k == kinds + 1 else [])
        pinned = [(book_groups(model, b), book_ties(model, b)) for b in books]
    else:
        full = book_ties(model, root, propagate=False)
        pinned = [relaxed_program(model, b, full) for b in relaxed_books(model, k)]
    programs = list(dict.fromkeys((tuple(sorted(g)), tuple(sorted(t))) for g, t in pinned))
    return [p for p in programs if not any(q != p and _relaxes(q, p) for q in programs)]


def _relaxes(p, q) -> bool:
    """Whether program p pins nothing that q does not (its groups and ties inside q's)."""
    return all(any(set(a) <= set(b) for b in q[0]) for a in p[0]) and all(
        any(set(a) <= set(b) for b in q[1]) for a in p[1])


def split_books(model: HandModel) -> list[list[Rule]]:
    """Every book of one rule per kind but one kind, split in two rules (two scopes that
    partition its decisions): every way one rule more than `root_rules` can cut them."""
    atoms = rulebook.atoms(model)
    root = rulebook.root_rules(model)
    out = []
    for index, rule in enumerate(root):
        mine = frozenset(k for k, a in enumerate(atoms) if a.kind == rule.kind)
        cover: dict[frozenset[int], tuple] = {}
        for scope in _every_scope(model, rule.kind):
            covered = frozenset(k for k in mine
                                if Rule(rule.kind, scope, ()).covers(atoms[k]))
            if covered and covered != mine:
                cover.setdefault(covered, scope)
        pairs = {frozenset([c, mine - c]) for c in cover if mine - c in cover}
        for pair in pairs:
            halves = [dataclasses.replace(rule, scope=cover[c]) for c in sorted(pair, key=min)]
            out.append(root[:index] + halves + root[index + 1:])
    return out


def all_scopes_bound(model: HandModel, k: int, time_limit: float = 60.0,
                     integer: bool = False) -> tuple[float, list[Bound]]:
    """A proved lower bound on every book of at most k rules in the family (any scopes, any
    cuts, any keep rules): the least bound over what such books can pin
    (`relaxed_programs`), with each one's result. An LP stopped by its time limit proves
    nothing: the bound is then 0."""
    results = [bound(model, groups, time_limit, integer, ties=ties)
               for groups, ties in relaxed_programs(model, k)]
    return min(r.bound for r in results), results


def book_ties(model: HandModel, rules: Sequence[Rule], propagate: bool = True
              ) -> tuple[Tie, ...]:
    """The decisions `rules` tie: those of one rule (and, for a throw, one keep rule), of
    one player, with the same actions, whose mass is the same sequence of the player's, or
    (`propagate`) sequences tied already: the same frequencies times the same mass give the
    same plan. Tied first throws make the opponent's throwing the same whatever the
    captain's count (if its throw rules cover every count), and a captain's opening bet
    tied across the opponent's throw counts ties his decisions after it. Without
    `propagate`, only decisions reached through the very same sequence (true whatever the
    other rules' scopes, `relaxed_programs`)."""
    rules = [rulebook.canonical(model, r) for r in rules]
    atoms = rulebook.atoms(model)
    owner = rulebook.assign(rules, atoms)
    keep_owner = ({(a.player, a.key): i for a, i in zip(atoms, owner) if a.kind == "keep"}
                  if model.params.reroll == "keep" else {})
    labels = _Labels(model, propagate)
    tied: dict[tuple, list[int]] = {}
    for k, (atom, i) in enumerate(zip(atoms, owner)):
        if atom.kind == "keep":
            continue
        incoming, children = labels.place(atom)
        key = (i, keep_owner.get((atom.player, atom.key)), int(atom.player), incoming)
        tied.setdefault(key, []).append(k)
        labels.name(children, key)
    return tuple(tuple(g) for g in tied.values() if len(g) > 1)


class _Labels:
    """Names for the sheet player's sequences (per hand, a column tuple) so that tied
    sequences share a name: a sequence's name is its columns, or, once a tie group's
    children are named, that group and the action."""

    def __init__(self, model: HandModel, propagate: bool):
        self.model, self.propagate = model, propagate
        self.lps = {int(p): sequence_lp.sequence_form(model, p)[0] for p in (CAPTAIN, OPPONENT)}
        self.parents: dict[tuple, list[np.ndarray]] = {}
        self.names: dict[tuple, object] = {}

    def _name(self, columns: np.ndarray) -> object:
        key = tuple(columns.ravel().tolist())
        return self.names.get(key, key) if self.propagate else key

    def place(self, atom: Atom) -> tuple[object, list[np.ndarray]]:
        """The name of the mass reaching `atom` (with its actions), and its action columns."""
        lp = self.lps[int(atom.player)]
        if atom.kind == "throw":
            c, t = atom.key
            incoming = ("prior",) if t == 1 else ("after", self._name(
                lp.primal.throw[c, t - 2]))
            return incoming, self._throw_children(lp, c, t)
        tc, to, history = atom.key
        if (atom.player, tc, to) not in self.parents:
            self.parents[(atom.player, tc, to)] = sequence_lp.parent_sequences(lp, (tc, to))
        node = self.model.tree((tc, to)).node(history)
        parent = self.parents[(atom.player, tc, to)][node.index]
        index = lp.primal.betting[atom.key]
        return (node.actions, self._name(parent)), list(index)

    def _throw_children(self, lp, c: int, t: int) -> list[np.ndarray]:
        """The throw's action columns, whole (its name: the mass after it), then its stop
        column, then, after the last decision, the stop column of the last throw."""
        index = lp.primal.throw[c, t - 1]
        out = [index, index[0]]
        if t == self.model.throws - 1:
            out.append(lp.primal.throw[c, t][0])
        return out

    def name(self, children: list[np.ndarray], key: tuple) -> None:
        for a, columns in enumerate(children):
            self.names[tuple(columns.ravel().tolist())] = (key, a)
