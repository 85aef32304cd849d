"""The exact value of an OpenSpiel game behind the LP's floating-point solution.

`solver.checks.openspiel_lp` solves any small two-player zero-sum game in floats. Here its
behaviour strategies are rationalised (each probability snapped to the nearest fraction
with a denominator up to D, for growing D, then each information set normalised exactly),
and each rational strategy is measured by an exact sequence-form best response in
Fractions over the payoff matrix the walk kept in Fractions: what player 0's strategy
guarantees is a lower bound of the value, what player 1's concedes an upper bound (the
minimax theorem). When the best bounds meet, the value is proved exactly and the two
rational strategies are an exact equilibrium. Otherwise the bounds still prove an interval
around the value (the LP's own strategies, read as exact binary fractions, are the last
candidates), and the reason no fraction was recovered is said.

Nothing here shares the LP's arithmetic: the LP only proposes strategies.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from solver.checks.openspiel_lp import LPRun
from solver.common.rounding import nearest_fraction

__all__ = ["ExactValue", "prove"]

# Denominator bounds tried in turn; None: the LP's floats themselves, as exact binary
# fractions (the tightest interval when no small fraction is right).
DENOMINATORS: tuple[int | None, ...] = (10, 100, 1000, 10**4, 10**5, 10**6, 10**8, None)

Behaviour = dict[str, dict[int, Fraction]]


@dataclass(frozen=True)
class ExactValue:
    """What exact arithmetic proved of the LP's solution.

    `value`: the exact value to player 0, or None. `lower`, `upper`: a proved interval
    holding the value (both `value` when it is proved; None when nothing could be proved,
    see `why_not`). `policies`: per player, the rational behaviour strategy behind its
    bound (None when nothing was proved). `why_not`: why no exact fraction was recovered.
    """

    value: Fraction | None
    lower: Fraction | None
    upper: Fraction | None
    policies: tuple[Behaviour, Behaviour] | None
    why_not: str | None


def prove(run: LPRun) -> ExactValue:
    """Rationalise the run's strategies and prove what their exact best responses allow."""
    if run.exact_terms is None:
        return ExactValue(None, None, None, None,
                          f"the game's numbers are not exact fractions: {run.inexact}")
    by_row: dict[int, list[tuple[int, Fraction]]] = defaultdict(list)
    by_col: dict[int, list[tuple[int, Fraction]]] = defaultdict(list)
    for s0, s1, v in run.exact_terms:
        by_row[s0].append((s1, v))
        by_col[s1].append((s0, v))
    t0, t1 = run.trees
    floats = run.solution.policies
    best_low: tuple[Fraction, Behaviour] | None = None
    best_up: tuple[Fraction, Behaviour] | None = None
    for bound in DENOMINATORS:
        if best_low is None or best_up is None or best_low[0] < best_up[0]:
            b0 = _rationalise(floats[0], bound)
            low = _best_response(t1, _payoffs(_plan(t0, b0), by_row), maximize=False)
            if best_low is None or low > best_low[0]:
                best_low = (low, b0)
            b1 = _rationalise(floats[1], bound)
            up = _best_response(t0, _payoffs(_plan(t1, b1), by_col), maximize=True)
            if best_up is None or up < best_up[0]:
                best_up = (up, b1)
    assert best_low is not None and best_up is not None
    lower, upper = best_low[0], best_up[0]
    if lower > upper:                           # the minimax theorem forbids it
        raise AssertionError(f"exact bounds cross: {lower} > {upper}")
    policies = (best_low[1], best_up[1])
    if lower == upper:
        return ExactValue(lower, lower, upper, policies, None)
    return ExactValue(None, lower, upper, policies,
                      f"no rationalisation of the LP's strategies (denominators up to "
                      f"{max(d for d in DENOMINATORS if d):.0e}) is an exact equilibrium")


def _rationalise(policy: dict[str, dict[int, float]], bound: int | None) -> Behaviour:
    """Every probability as the nearest fraction of denominator <= bound (exact binary
    fraction if None), negatives cut to 0, each information set normalised exactly."""
    out: Behaviour = {}
    for key, probs in policy.items():
        q = {a: max(nearest_fraction(p, bound), Fraction(0)) for a, p in probs.items()}
        total = sum(q.values(), Fraction(0))
        out[key] = ({a: v / total for a, v in q.items()} if total > 0
                    else {a: Fraction(1, len(q)) for a in q})
    return out


def _plan(tree, behaviour: Behaviour) -> list[Fraction]:
    """The realization plan of a behaviour strategy (information sets come in DFS order:
    a parent sequence's weight is known before its children's)."""
    plan = [Fraction(0)] * tree.num_sequences
    plan[0] = Fraction(1)
    for key, parent, start, actions in zip(tree.keys, tree.parent, tree.start, tree.actions):
        weight = plan[parent]
        if weight:
            probs = behaviour[key]
            for i, a in enumerate(actions):
                plan[start + i] = weight * probs[a]
    return plan


def _payoffs(plan: Sequence[Fraction], terms: dict[int, list[tuple[int, Fraction]]]
             ) -> dict[int, Fraction]:
    """The other player's payoff per sequence against `plan` (A^T x, or A y)."""
    out: dict[int, Fraction] = defaultdict(Fraction)
    for s, row in terms.items():
        w = plan[s]
        if w:
            for t, v in row:
                out[t] += w * v
    return out


def _best_response(tree, payoff: dict[int, Fraction], maximize: bool) -> Fraction:
    """The exact best-response value of `tree`'s player given its payoff per sequence
    (a reverse sweep over information sets is bottom-up)."""
    v = [payoff.get(s, Fraction(0)) for s in range(tree.num_sequences)]
    pick = max if maximize else min
    for h in range(len(tree.keys) - 1, -1, -1):
        s = tree.start[h]
        v[tree.parent[h]] += pick(v[s:s + len(tree.actions[h])])
    return v[0]


