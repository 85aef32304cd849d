"""A stage game solved again and again with new leaf values, each solve started where the
last one ended: the stages of the manche and of Montevideo's heads-up end, whose Newton steps
change only what the leaves pay, so every solve of one stage has the same shape.

A small stage is one LP of the whole tree, started from the last solve's final basis; a large
one (more betting rows than the caller's bound) the double oracle (`restricted.py`), started
from its last restricted tree and that LP's final basis by name (`warm.py`). A first solve is
cold (the double oracle from `restricted.default_start`). Everything a solve reads is in its
arguments, so the result is the same in any process and any order."""

from __future__ import annotations

import dataclasses

from solver.hand.lp.restricted import betting_rows, double_oracle
from solver.hand.lp.sequence_form import Basis, LPSolution, solve_lp_from
from solver.hand.lp.warm import KeyedBasis
from solver.hand.model import HandModel


@dataclasses.dataclass(frozen=True)
class Start:
    """Where a stage's next solve starts: the final basis of its whole tree's LP, or the
    restricted tree of its double oracle (`kept`) and the final basis of its last LP."""

    basis: Basis | None = None
    kept: frozenset[str] | None = None
    keyed: KeyedBasis | None = None


def solve_again(model: HandModel, start: Start | None, oracle_rows: int
                ) -> tuple[LPSolution, str, Start]:
    """The equilibrium of `model` from `start` (None: cold), by the double oracle above
    `oracle_rows` betting rows (`restricted.betting_rows`), else by one LP; how it was solved
    in words, and where the next solve starts."""
    if betting_rows(model) > oracle_rows:
        if start is not None and start.kept is not None:
            oracle = double_oracle(model, start=start.kept, basis=start.keyed)
        else:
            oracle = double_oracle(model)
        method = (f"restricted LP ({oracle.decisions} of {oracle.full_decisions} "
                  f"decisions, {oracle.rounds} LPs)")
        return oracle.solution, method, Start(kept=oracle.kept, keyed=oracle.basis)
    lp, basis = solve_lp_from(model, None if start is None else start.basis)
    return lp, "LP of the whole tree", Start(basis=basis)
