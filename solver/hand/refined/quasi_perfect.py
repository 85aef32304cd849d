"""A refined equilibrium of the hand, exact: the limit of the perturbed LP as trembles vanish.

1. Solve the perturbed sequence-form LP (perturbed_lp.py) in floats at a small tremble eta:
   every action of both players keeps at least eta (or, with kind=SEQUENCE, every sequence
   at least eta^|sequence|), so every decision is reached and its play is a best reply to
   a trembling opponent.
2. Take the limit: at each decision, what the optimum chooses beyond its trembles, the
   actions chosen with at most `support_gap` * eta dropped (they vanish with eta).
3. Recover the exact rational equilibrium with these supports (solver/hand/exact/equilibrium.py:
   fixed supports, indifference systems in Fractions; the play at decisions a player never
   reaches becomes the float limit's choice, made pure) and prove its value with
   solver/hand/exact/certificate.py: the bounds meet at the game's value, as the plain LP's do.
4. Where a player's own strategy never goes but the other's does, play his best reply to
   Bayes's beliefs (complete.py): the LP resolves those decisions only to its tolerance,
   and play there pays nothing, so the proof is unchanged (and run on the result).

What is proved exactly is that the result is an equilibrium with the game's value. That
its play is sequentially rational everywhere is what solver/hand/refined/sequential.py tests
independently (in floats), in the command itself when the LP was the fast one (step 1 by
perturbed_lp.FAST, `fast_first`); that it is the limit of the perturbed optima as eta -> 0
(a basis stable for every smaller eta) is not proved yet: docs/refined.md.
"""

from __future__ import annotations

import dataclasses
import time
from fractions import Fraction
from typing import Sequence

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.common.errors import SolverError
from solver.common.progress import Step, quiet, within
from solver.common.types import Exact
from solver.hand.exact.certificate import Certificate, prove_fractions
from solver.hand.exact.equilibrium import RecoveryError
from solver.hand.exact.recovery import exact_limit
from solver.hand.lp.perturbed import (
    BEHAVIOUR,
    FAST,
    LINPROG,
    PerturbedSolution,
    solve_perturbed,
)
from solver.hand.model import HandModel
from solver.hand.refined.complete import complete_sequentially
from solver.hand.refined.sequential import verify
from solver.hand.strategy import Strategy, StrategyFileError

ETA = 1e-4             # the tremble of the float LP
# tried in turn: the first limit that proves an exact equilibrium is the answer
ETAS = (ETA, 1e-5, 1e-3)
SUPPORT_GAP = 10.0     # an action chosen beyond its tremble by more than this * eta stays


@dataclasses.dataclass(frozen=True)
class Refined:
    """The refined equilibrium: exact probabilities, the same as floats, the value proved."""

    strategy: Strategy
    exact: Exact
    certificate: Certificate
    perturbed: PerturbedSolution
    seconds: float
    support_gap: float = SUPPORT_GAP    # the gap whose limit proved (times eta)


def limit(model: HandModel, chosen: Strategy, threshold: float) -> Strategy:
    """The limit read from what the perturbed optimum chooses beyond its trembles: actions
    chosen with at most `threshold` dropped (their weight vanishes with eta), renormalized."""
    out = chosen.copy()
    for role in (CAPTAIN, OPPONENT):
        throw = out.throw[role]
        for c in range(throw.shape[0]):
            for t in range(throw.shape[1]):
                throw[c, t] = _support(throw[c, t], model.throw_legal, threshold)
    for key, probs in out.betting.items():
        out.betting[key] = _support(probs, np.ones(probs.shape, bool), threshold)
    return out


def _support(chosen: np.ndarray, legal: np.ndarray, threshold: float) -> np.ndarray:
    kept = np.where(legal & (chosen > threshold), chosen, 0.0)
    total = kept.sum(axis=0, keepdims=True)
    best = np.eye(chosen.shape[0])[np.where(legal, chosen, -1.0).argmax(axis=0)].T
    return np.where(total > 0, kept / np.where(total > 0, total, 1.0), best)


def from_exact(model: HandModel, like: Strategy, exact: Exact) -> Strategy:
    """The float strategy of exact probabilities keyed like `certificate.decisions`."""
    out = like.copy()
    for role in (CAPTAIN, OPPONENT):
        throw = out.throw[role]
        for c in range(throw.shape[0]):
            for t in range(throw.shape[1]):
                for h in range(model.num_hands):
                    throw[c, t, :, h] = [float(p) for p in exact[("throw", role, c, t, h)]]
    for key, probs in out.betting.items():
        for h in range(model.num_hands):
            probs[:, h] = [float(p) for p in exact[("bet", key, h)]]
    return out


def refined_equilibrium(model: HandModel, etas: Sequence[float] = ETAS,
                        support_gap: float = SUPPORT_GAP, kind: str = BEHAVIOUR,
                        progress: Step | None = None, parallel: bool = True,
                        max_bits: int | None = None, wider_gaps: Sequence[float] = (),
                        fast_first: bool = False) -> Refined:
    """The exact refined equilibrium of the hand, from the first tremble size in `etas`
    whose limit proves an exact equilibrium; SolverError, with every reason, if none does.
    `progress(what, done, total)` follows the attempts. With `parallel`, the two players'
    exact systems are solved in two processes where one can be forked (recovery.py); the
    result is the same. `max_bits`: the proof's bound on the exact probabilities' common
    denominator (`certificate.prove_fractions`; None: the strategy file's).

    `wider_gaps`: when no tremble size's limit at `support_gap` proves an equilibrium, the
    same perturbed optima (each LP solved once) read again with each wider gap, the
    smallest threshold (gap * eta) first. A mixing that vanishes with eta can still be
    chosen a few tens of eta beyond its tremble (the keep round's 0,3,6 at eta 1e-5: the
    captain passing 3.4e-4, 34 eta, after which his exact mass is 0 and a later
    indifference asks a negative probability, at every eta from 1e-6 to 1e-3); read with
    100 eta it is dropped and the limit proves. The hand passes none (its published
    strategies were found at `support_gap`).

    `fast_first`: the first attempt solves the LP at the first tremble size with the
    FAST solver (perturbed_lp.py: about half the time on the default hand), and its
    limit is taken only if it also passes the independent check at every decision
    (sequential.py's `verify`, 0.2 s); otherwise the attempts above follow, as without it.
    The hand's pipeline asks it; the round's stage games do not."""
    start = time.perf_counter()
    step = progress or quiet
    attempts = [(eta, support_gap, LINPROG) for eta in etas] + sorted(
        ((eta, gap, LINPROG) for gap in wider_gaps for eta in etas),
        key=lambda attempt: attempt[0] * attempt[1])
    if fast_first and etas:
        attempts.insert(0, (etas[0], support_gap, FAST))
    solved: dict[tuple[float, str], PerturbedSolution | str] = {}
    reasons = []
    for i, (eta, gap, lp_solver) in enumerate(attempts):
        name = f"eta {eta:g}" + ("" if gap == support_gap else f", gap {gap:g}") + (
            ", fast LP" if lp_solver == FAST else "")
        try:
            refined = _attempt(model, eta, gap, kind, within(progress, name), parallel,
                               max_bits, solved, lp_solver)
        except (SolverError, StrategyFileError) as error:   # the latter: exact
            reasons.append(f"{name}: {error}")                # probabilities too large
            continue                                          # for the certificate
        step(f"{name}: exact value proved", i + 1, len(attempts))
        return dataclasses.replace(refined, seconds=time.perf_counter() - start)
    raise SolverError("; ".join(reasons) or "no tremble size to try")


def _perturbed(model: HandModel, eta: float, kind: str,
               solved: dict[tuple[float, str], PerturbedSolution | str], lp_solver: str
               ) -> PerturbedSolution:
    """The perturbed LP's optimum at `eta` by `lp_solver`, solved once per refinement
    (SolverError, again, if HiGHS reached none)."""
    if (eta, lp_solver) not in solved:
        try:
            solved[eta, lp_solver] = solve_perturbed(model, eta, kind, lp_solver=lp_solver)
        except SolverError as error:
            solved[eta, lp_solver] = str(error)
    found = solved[eta, lp_solver]
    if isinstance(found, str):
        raise SolverError(found)
    return found


def _attempt(model: HandModel, eta: float, support_gap: float, kind: str, progress: Step,
             parallel: bool = True, max_bits: int | None = None,
             solved: dict[tuple[float, str], PerturbedSolution | str] | None = None,
             lp_solver: str = LINPROG) -> Refined:
    start = time.perf_counter()
    progress("perturbed LP", 0, 3)
    perturbed = _perturbed(model, eta, kind, {} if solved is None else solved, lp_solver)
    float_limit = limit(model, perturbed.chosen, support_gap * eta)
    progress("exact recovery", 1, 3)
    try:
        exact = exact_limit(model, float_limit, progress, parallel)
    except RecoveryError as error:
        raise SolverError(f"the limit at eta={eta:g} gave no exact equilibrium: {error}") \
            from None
    progress("proof", 2, 3)
    strategy, completed, _ = complete_sequentially(
        model, from_exact(model, float_limit, exact), exact)
    certificate = prove_fractions(model, strategy, as_fractions(completed), max_bits)
    if certificate.exact is None:
        raise SolverError(f"the limit at eta={eta:g} is not an exact equilibrium (its proof "
                          f"has width {float(certificate.width):.2g})")
    if lp_solver == FAST:
        report = verify(model, strategy)
        if not report.passed:
            raise SolverError(f"the limit at eta={eta:g} fails the independent check at "
                              f"{len(report.violations)} (decision, hand) pairs")
    progress("proof", 3, 3)
    return Refined(strategy, completed, certificate, perturbed, time.perf_counter() - start,
                   support_gap)


def as_fractions(exact: Exact) -> dict[tuple, list[Fraction]]:
    """The rows as lists, as `certificate.prove_fractions` takes them."""
    return {key: list(row) for key, row in exact.items()}
