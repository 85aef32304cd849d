"""A whole front of rule books improved by local moves: a beam of books at every
size, merges down, splits up, and so swaps (a split then a merge: another book of the size).

The top-down search (`cheatsheet_compress.compress`) is one greedy chain of merges, one
merge at a time: where its one choice is poor the whole rest of the chain pays (default
game: 10 rules 0.0494, and the merge after it 0.09), and a merge that swallows several
rules skips sizes. Here every size keeps the `beam` best books found (`_Pool`). A **down
pass** makes, from the largest size to the smallest, every merge of every kept book (each
measured by the exact best response, its action the best of its members' and the
equilibrium's fit, `cheatsheet_compress.merge_trials`), and keeps the best `beam` of each
smaller size, their merged rule's cuts descended. An **up pass** splits, at each size, the
rules of the best book whose decisions lie furthest from the equilibrium (`SPLIT_RULES` of
them, by the fit's weighted squared distance: the rule whose scope costs most), each split's
two halves' cuts searched near the parent's, into the next size up. A split states the same
strategy, so the book of k + 1 rules never costs more than the one of k: the front is
smooth; and the next down pass merges those books back, two other rules perhaps: a swap at
a fixed size (the largest size is split too, for its swaps). After a first down pass, up and
down passes go on while a size improves, at most `rounds` times; every size's best book is
then descended in full (the rich moves).
"""

from __future__ import annotations

import time
from typing import Sequence

from solver.cheatsheet.compress import (
    FRONT_WINDOW,
    MERGE_WINDOW,
    Target,
    compress,
    keep_rules_of,
    merge_trials,
    pareto_of,
)
from solver.cheatsheet.rulebook import FEATURES, Rule
from solver.cheatsheet.search import IMPROVEMENT, Book, FrontPoint, RaiseFloors
from solver.common.progress import Step, quiet
from solver.hand import best_response
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy

BEAM = 3                   # books kept at each size
ROUNDS = 1                 # up and down passes after the first down pass, at most
SPLIT_RULES = 3            # rules of a book split by the up pass (the furthest from the fit)
SPLIT_WINDOW = 3           # hands around each cut a split's halves try


class _Pool:
    """The best `beam` books of each size found so far (cheapest first, no two alike)."""

    def __init__(self, beam: int):
        self.beam = beam
        self.books: dict[int, list[Book]] = {}

    def sizes(self) -> list[int]:
        return sorted(self.books)

    def at(self, size: int) -> list[Book]:
        return list(self.books.get(size, []))

    def best(self, size: int) -> Book | None:
        kept = self.books.get(size)
        return kept[0] if kept else None

    def knows(self, book: Book) -> bool:
        """Whether `book` (its rules) is kept already."""
        return any(tuple(b.rules) == tuple(book.rules)
                   for b in self.books.get(len(book.rules), []))

    def welcomes(self, book: Book) -> bool:
        """Whether `book` is new and would be kept."""
        kept = self.books.get(len(book.rules), [])
        if any(tuple(b.rules) == tuple(book.rules) for b in kept):
            return False
        return len(kept) < self.beam or book.objective < kept[-1].objective - IMPROVEMENT

    def offer(self, book: Book) -> bool:
        """Keep `book` if it is among the best of its size; True if it is now the best."""
        if not self.welcomes(book):
            return False
        size = len(book.rules)
        kept = self.books.setdefault(size, [])
        before = kept[0].objective if kept else float("inf")
        kept.append(book)
        kept.sort(key=lambda b: round(b.objective, 12))
        del kept[self.beam:]
        return kept[0].objective < before - IMPROVEMENT


def _down(model: HandModel, pool: _Pool, target: Target, lowest: int,
          step: Step, clock: float) -> bool:
    """Every merge of every kept book, largest size first; True if a size improved."""
    improved = False
    for size in sorted(pool.sizes(), reverse=True):
        if size <= lowest:
            continue
        trials = [t for book in pool.at(size) for t in merge_trials(model, book, target)]
        trials.sort(key=lambda t: round(t[0].objective, 12))
        taken: dict[int, int] = {}
        for trial, merged in trials:
            smaller = len(trial.rules)
            if smaller < lowest or taken.get(smaller, 0) >= pool.beam:
                continue
            if pool.knows(trial):
                continue
            # judged after its descent: undescended, a merge looks worse than it is
            trial.descend([merged], sweeps=1, window=MERGE_WINDOW, rich=True)
            taken[smaller] = taken.get(smaller, 0) + 1
            improved |= pool.offer(trial)
        _said(step, pool, size, "merged", clock)
    return improved


def _up(pool: _Pool, target: Target, highest: int, step: Step, clock: float) -> bool:
    """The furthest rules of each size's best book split; True if a size improved."""
    improved = False
    for size in pool.sizes():
        book = pool.best(size)
        if size >= highest or book is None:
            continue
        for i, f, cut in _splits(book, target):
            trial = book.split(i, f, cut)
            trial.descend([i, i + 1], sweeps=1, window=SPLIT_WINDOW, rich=True)
            improved |= pool.offer(trial)
        _said(step, pool, size + 1, "split", clock)
    return improved


def _splits(book: Book, target: Target) -> list[tuple[int, int, int]]:
    """The splits of the SPLIT_RULES rules whose decisions lie furthest from the fit."""
    far = sorted(range(len(book.rules)), key=lambda i: -_fit_distance(book, target, i))
    chosen = {i for i in far if book.rules[i].kind != "keep"}
    chosen = set(sorted(chosen, key=far.index)[:SPLIT_RULES])
    return [s for s in book.splits() if s[0] in chosen]


def _fit_distance(book: Book, target: Target, i: int) -> float:
    members = [a for a, o in zip(book.atoms, book.owner) if o == i]
    return target.fit(book.rules[i].kind, members)[1] if book.rules[i].kind != "keep" else 0.0


def _said(step: Step, pool: _Pool, size: int, what: str, clock: float) -> None:
    book = pool.best(size)
    if book is not None:
        step(f"{size} rules ({what}): exploitability {book.objective:.4f}  "
             f"({time.perf_counter() - clock:.0f} s)", size, max(pool.sizes()))


def improve_front(model: HandModel, equilibrium: Strategy, books: Sequence[Sequence[Rule]],
                  rules_min: int, rules_max: int, beam: int = BEAM, rounds: int = ROUNDS,
                  progress: Step | None = None, floors: RaiseFloors | None = None
                  ) -> dict[int, tuple[Rule, ...]]:
    """The best book found of every size from `rules_min` to `rules_max`, starting from
    `books` (any sizes; those above `rules_max` only feed merges), each size's best book
    descended in full and no book costing more than the one of the size below it; with
    `floors`, every book raising where the equilibrium does (`RaiseFloors`)."""
    step = progress or quiet
    clock = time.perf_counter()
    leaves = best_response.leaf_matrices(model)
    target = Target(model, equilibrium)
    pool = _Pool(beam)
    for rules in books:
        if len(rules) >= rules_min:
            pool.offer(Book(model, rules, leaves, floors))
    _down(model, pool, target, rules_min, step, clock)
    for _ in range(rounds):
        # the sheet's size is split too: merged back, its books are swaps
        improved = _up(pool, target, rules_max + 1, step, clock)
        improved |= _down(model, pool, target, rules_min, step, clock)
        if not improved:
            break
    return _finished(pool, rules_min, rules_max, step, clock)


def _finished(pool: _Pool, rules_min: int, rules_max: int, step: Step, clock: float
              ) -> dict[int, tuple[Rule, ...]]:
    """Every size's best book descended in full, smallest first; a size without one, or
    whose book costs more than the one below it, takes that one's split (the same
    strategy, one rule more)."""
    out: dict[int, tuple[Rule, ...]] = {}
    below: Book | None = None
    for size in range(rules_min, rules_max + 1):
        book = pool.best(size)
        if book is not None:
            book = book.copy()
            book.descend(window=FRONT_WINDOW, rich=True)
        if below is not None and (book is None or book.objective > below.objective):
            splits = below.splits()
            book = below.split(*splits[0]) if splits else book
        if book is None:
            continue
        out[size] = tuple(book.rules)
        below = book
        step(f"{size} rules (descended): exploitability {book.objective:.4f}  "
             f"({time.perf_counter() - clock:.0f} s)", size, rules_max)
    return out


SOURCE_EXTRA = 4           # top-down books this many rules above the sheet's feed the merges


def with_local_search(model: HandModel, equilibrium: Strategy, game_value: float,
                      points: Sequence[FrontPoint], beam: int = BEAM,
                      progress: Step | None = None, floors: RaiseFloors | None = None
                      ) -> list[FrontPoint]:
    """`bidou cheatsheet`'s search: a bottom-up front (`cheatsheet.front_points`), the
    top-down chain down to one rule less than its largest size (its books from
    SOURCE_EXTRA rules more on kept as sources, those of the sheet's sizes descended as
    `with_top_down` does, so never worse than it), and the local search over those sizes
    from both (one round); the Pareto front of all, each point measured and marked with
    the search it came from."""
    rules_max = max(p.size for p in points)
    lowest = max(min(p.size for p in points), rules_max - 1)
    compressed = compress(model, equilibrium, rules_max + SOURCE_EXTRA,
                          keep_rules_of(points[-1].rules), progress, rules_min=lowest,
                          descend_max=rules_max, floors=floors)
    local = improve_front(model, equilibrium, [p.rules for p in points
                                               if p.size >= lowest] + list(
                              compressed.values()),
                          lowest, rules_max, beam=beam, rounds=1, progress=progress,
                          floors=floors)
    return pareto_of(model, points, list(local.values()), "local", equilibrium, game_value)


KEEP_SPLIT_WINDOW = 6      # hands around each cut the seeds' descents try


def keep_split(model: HandModel, rules: Sequence[Rule], leaves: dict | None = None
               ) -> tuple[Rule, ...] | None:
    """`rules` with its first keep rule covering several throws split after the first
    throw, its keep and throw rules descended (rich moves: the keep lists, the flag
    "if it keeps nothing, stop", the cuts), then every other rule: a book one rule larger, a
    source for the local search. After the first throw the equilibrium keeps
    single dice (a 1, a 2); after the second it keeps pairs and two high dice, and stops
    with the middling hands it has nothing to keep of: one list for every throw cannot say
    both (None: no keep rule to split)."""
    book = Book(model, rules, leaves)
    f = FEATURES["keep"].index("throw")
    found = [i for i, r in enumerate(book.rules)
             if r.kind == "keep" and r.scope[f][0] < r.scope[f][1]]
    if not found:
        return None
    lo = book.rules[found[0]].scope[f][0]
    seed = book.split(found[0], f, lo)
    mine = [i for i, r in enumerate(seed.rules) if r.kind in ("keep", "throw")]
    seed.descend(mine, sweeps=2, window=KEEP_SPLIT_WINDOW, rich=True)
    seed.descend([i for i, r in enumerate(seed.rules) if r.kind != "keep"], sweeps=2,
                 window=KEEP_SPLIT_WINDOW, rich=True)
    return tuple(seed.rules)
