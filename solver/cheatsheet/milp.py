"""The best actions of a rule book, proved: a mixed-integer program over staircase cuts.

A rule book's scopes say which rule answers each decision; its actions are cuts in the hand
ranking. With staircase cuts (`rulebook.counts`: a hand at position p is inside with
probability #{j : p < c_j} / 4) a rule's action is, for each cut and each quarter level j,
a binary b[j, p] = [p < c_j], non-increasing in p and in j. This module finds, for fixed
scopes (and, under ``reroll="keep"``, fixed keep rules and fixed throw rules that stop
when the keep rule keeps nothing), the cuts minimizing the
exploitability of the strategy the book states, as one MILP solved by HiGHS:

* **the sheet player's plan** x is the sequence-form plan of the LP
  (`solver.hand.lp.sequence_form`), pinned to what the rules state: at every decision the
  mass of an action is a quarter of the sum
  of u[j, h] = b[j, pos(h)] * m(h), m(h) the mass reaching the decision with hand h, each
  product linearized exactly (McCormick: b is binary and 0 <= m <= U(h), U the most mass
  any plan can bring there);
* **the adversary's best reply** is the LP's dual: the free variables q with
  F^T q <= A^T x, so f^T q is at most the sheet player's guaranteed value, with equality
  at the optimum; both players' LPs sit side by side, sharing the rules' binaries, and the
  objective, half the sum of their costs, is the exploitability of the book itself.

HiGHS's incumbent is a book of the family; its dual bound is a proof that no book with these
scopes does better. A time limit stops it early: the result then states the bound reached
and the gap. The start (the greedy/beam book) is given to HiGHS as its first incumbent.
Every cost the result reports is measured again by the exact best response
(`cheatsheet.measure`), which shares no code with this program.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Sequence

import numpy as np

from solver.cheatsheet import rulebook
from solver.cheatsheet import search as cheatsheet
from solver.cheatsheet.bound import book_bound
from solver.cheatsheet.program import (
    Program,
    has_cuts_only,
    load_program,
    nested_cuts,
)
from solver.cheatsheet.rulebook import Rule
from solver.cheatsheet.search import FrontPoint, RaiseFloors
from solver.common.progress import Step, quiet
from solver.hand.lp.highs import run
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy


@dataclasses.dataclass(frozen=True)
class MilpResult:
    """The best book found with the start's scopes, and what HiGHS proved about it."""

    rules: tuple[Rule, ...]
    objective: float            # its exploitability, as the program computes it
    bound: float                # no book with these scopes and cuts does better (proved)
    status: str                 # "optimal" or why HiGHS stopped ("time limit reached", ...)
    seconds: float
    nodes: int

    @property
    def gap(self) -> float:
        """How far the best book found may be from the best of the family (>= 0)."""
        return max(0.0, self.objective - self.bound)

    @property
    def proved_optimal(self) -> bool:
        return self.status == "optimal"


def _run(h, given: dict[int, float] | None) -> tuple[np.ndarray | None, str, float, float, int]:
    """Solve from the start `given` (binaries); (solution or None, status, objective,
    dual bound, nodes)."""
    import highspy

    if given:
        keys = np.fromiter(given.keys(), dtype=np.int32)
        h.setSolution(len(keys), keys, np.fromiter(given.values(), dtype=float))
    run(h, highspy)
    info, status = h.getInfo(), h.getModelStatus()
    found = info.primal_solution_status == 2                # kSolutionStatusFeasible
    x = np.asarray(h.getSolution().col_value) if found else None
    name = ("optimal" if status == highspy.HighsModelStatus.kOptimal
            else h.modelStatusToString(status).lower())
    bound = float(info.mip_dual_bound)
    return (x, name, float(info.objective_function_value) if found else float("inf"),
            bound if np.isfinite(bound) else float("-inf"), int(info.mip_node_count))


def optimize(model: HandModel, start: Sequence[Rule], time_limit: float = 60.0,
             threads: int = 1, floors: RaiseFloors | None = None) -> MilpResult:
    """The cuts of the best book with the scopes (and keep rules) of `start`, by HiGHS's
    MILP within `time_limit` seconds, started from `start` itself. Its presolve is off:
    HiGHS 1.16's presolve misstates a start's objective in its reduced space (0.065 for a
    book worth 0.132, faces=3), and the bound must be the program's own. If HiGHS has no
    book within the limit, the result is `start` with the bound reached (-inf if none).
    With `floors`, over the cuts raising where the equilibrium does (`RaiseFloors`)."""
    begin = time.perf_counter()
    program = Program(model, start, floors=floors.of(start) if floors else None)
    h = load_program(program, time_limit, threads, presolve=False)
    x, status, objective, bound, nodes = _run(h, program.start_values(start))
    rules = program.rules_of(x) if x is not None else tuple(program.rules)
    if x is None:
        objective = _exploitability(model, rules)
    return MilpResult(rules=rules, objective=objective, bound=min(bound, objective),
                      status=status, seconds=time.perf_counter() - begin, nodes=nodes)


def _exploitability(model: HandModel, rules: Sequence[Rule]) -> float:
    from solver.hand import best_response

    return best_response.exploitability(model, rulebook.build_strategy(model, rules)
                                        ).exploitability


def best_cuts(model: HandModel, rules: Sequence[Rule], free: Sequence[int],
              time_limit: float = 10.0, threads: int = 1,
              presolve: bool = True, floors: RaiseFloors | None = None) -> MilpResult:
    """The best cuts of the rules `free` (indices) for the others as they are in `rules`:
    the MILP with only their binaries (`Program(free=...)`), started from `rules`. Its
    status and bound are over those rules' cuts alone. Presolve is on by default (it
    shrinks a block's program several times, and `improve` measures every book found
    again by the exact best response); off, the bound is the program's own."""
    begin = time.perf_counter()
    program = Program(model, rules, free, floors.of(rules) if floors else None)
    h = load_program(program, time_limit, threads, presolve=presolve)
    given = program.start_values(rules)
    x, status, objective, bound, nodes = _run(h, given)
    found = program.rules_of(x) if x is not None else tuple(program.rules)
    measured = _exploitability(model, found)
    if x is None or abs(measured - objective) > 1e-9:
        # no book, or presolve misstated its objective (seen: "optimal" at 0.0628 for a
        # book worth 0.0873): nothing is proved, the book is what the best response says
        status = status if x is None else "misstated by presolve"
        objective, bound = measured, float("-inf")
    return MilpResult(rules=found, objective=objective, bound=min(bound, objective),
                      status=status, seconds=time.perf_counter() - begin, nodes=nodes)


def improve(model: HandModel, start: Sequence[Rule], time_per_rule: float = 10.0,
            sweeps: int = 2, threads: int = 1, progress: Step | None = None,
            floors: RaiseFloors | None = None) -> tuple[Rule, ...]:
    """Block descent: each rule's cuts in turn made the best for the others as they are
    (`best_cuts`). A move is kept only if the exact best response says it helps, so the
    book returned is never worse than `start`."""
    step = progress or quiet
    rules = tuple(rulebook.canonical(model, r) for r in start)
    if any(r.kind in ("open", "face") and not nested_cuts(r) for r in rules):
        return rules
    best = _exploitability(model, rules)
    free = [i for i, r in enumerate(rules) if has_cuts_only(r)]
    for sweep in range(sweeps):
        moved = False
        for done, i in enumerate(free, 1):
            trial = best_cuts(model, rules, [i], time_per_rule, threads,
                              floors=floors).rules
            cost = _exploitability(model, trial)
            if cost < best - 1e-10:
                rules, best, moved = trial, cost, True
            step(f"sweep {sweep + 1}, rule {i + 1}: exploitability {best:.4f}", done,
                 len(free))
        if not moved:
            break
    return rules


def prove(model: HandModel, rules: Sequence[Rule], equilibrium: Strategy, game_value: float,
          seconds: float, progress: Step | None = None, blocks: bool = True,
          relaxation: bool = True, floors: RaiseFloors | None = None) -> FrontPoint:
    """`rules` improved and their cuts proved within about `seconds`: two thirds for the
    block descent (`improve`, one sweep), the rest for the whole MILP from its result
    (`optimize`); the better book of the two, measured by the exact best response, with
    what the MILP proved (`cheatsheet.Proof`). Without `blocks`, the whole MILP alone for
    `seconds` (a bound for every point of a front at a bounded cost). With `relaxation`
    (unless the MILP proved its cuts optimal), also `relaxed_bound`: seconds to a minute
    more, past `seconds`. With `floors`, the cuts raise where the equilibrium does
    (`RaiseFloors`); the MILP's bound is then over those books alone and is not reported,
    the relaxation's (over every cut) is."""
    begin = time.perf_counter()
    start = _exploitability(model, rules)
    cut_rules = max(1, sum(has_cuts_only(r) for r in rules))
    better = (improve(model, rules, time_per_rule=seconds * 2 / 3 / cut_rules, sweeps=1,
                      progress=progress, floors=floors) if blocks else tuple(rules))
    result = optimize(model, better, time_limit=max(1.0, seconds / 3 if blocks else seconds),
                      floors=floors)
    chosen = result.rules if _exploitability(model, result.rules) <= _exploitability(
        model, better) else better
    point = cheatsheet.measure(model, chosen, equilibrium, game_value)
    bound = result.bound if np.isfinite(result.bound) and floors is None else None
    if bound is not None:
        bound = min(bound, point.exploitability.exploitability)
    seconds_used = time.perf_counter() - begin
    status = result.status
    if floors is not None and status == "optimal":     # optimal among the raising books
        status = "optimal with the raises"
    relaxed = relaxed_bound(model, chosen, point.exploitability.exploitability) \
        if relaxation and status != "optimal" else None
    proof = cheatsheet.Proof(status=status, bound=bound, seconds=seconds_used,
                             start=start, relaxed=relaxed)
    return dataclasses.replace(point, proof=proof)


def relaxed_bound(model: HandModel, rules: Sequence[Rule], cost: float,
                  time_limit: float = 300.0) -> float | None:
    """The LP relaxation's proved lower bound for books with `rules`' scopes
    (`cheatsheet_bound.book_bound`: its root, unlike this MILP's, is above 0), at most
    `cost`; None if HiGHS does not prove its optimum within `time_limit`."""

    found = book_bound(model, rules, time_limit=time_limit, integer=False)
    return min(found.bound, cost) if found.proved_optimal else None


def proved_front(model: HandModel, equilibrium: Strategy, game_value: float,
                 books: Sequence[Sequence[Rule]], seconds: float,
                 progress: Step | None = None,
                 sizes: Sequence[int] | None = None, blocks: bool = True,
                 floors: RaiseFloors | None = None) -> list[FrontPoint]:
    """Each book `prove`d (smallest first; only those of `sizes` if given, the others
    measured as they are). Every size stays: a book costing more than the one below it
    (the block descent improved that one and not this one) is replaced by that one split
    in two (the same strategy, one rule more; `_one_more`), proved like it. Without the
    relaxation's bound: a front's bounds are those of `python -m solver.app.cheatsheet_front
    --bounds`, computed once per point there (over its scopes and over every book of its size);
    with `floors` (`RaiseFloors`), whose MILP bound is not reported, with it."""
    step = progress or quiet
    out: list[FrontPoint] = []
    for done, book in enumerate(books, 1):
        point = (prove(model, book, equilibrium, game_value, seconds, blocks=blocks,
                       relaxation=floors is not None, floors=floors)
                 if sizes is None or len(book) in sizes
                 else cheatsheet.measure(model, book, equilibrium, game_value))
        if out and len(book) == out[-1].size + 1 and (
                point.exploitability.exploitability
                > out[-1].exploitability.exploitability + 1e-12):
            below = out[-1]
            point = dataclasses.replace(
                cheatsheet.measure(model, _one_more(model, below.rules), equilibrium,
                                   game_value), proof=below.proof)
        step(f"{point.size} rules: exploitability {point.exploitability.exploitability:.4f}",
             done, len(books))
        out.append(point)
    return out


def _one_more(model: HandModel, rules: Sequence[Rule]) -> tuple[Rule, ...]:
    """`rules` with its first splittable rule split in two (both halves keep its action)."""
    book = cheatsheet.Book(model, rules)
    return tuple(book.split(*book.splits()[0]).rules)
