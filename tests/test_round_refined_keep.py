"""The keep round's stage games refine: 36 of its 49 stages were kept plain
because (1) their exact probabilities' common denominator passed the strategy file's 4096
bits, which the proof refused (9,0,0: 6582 bits at eta 1e-5; 5,2,2: 6831 at 1e-4), and (2)
at 0,3,6 the limit read at 10 eta kept a mixing that vanishes with eta, so the recovery
asked a negative probability at every tremble size, and (3) at 1,1,7, 2,1,6, 2,5,2, ...
no limit at 1e-4, 1e-5 or 1e-3 was an equilibrium's. The stage refinement now proves over
up to `STAGE_DENOMINATOR_BITS`, tries eta 1e-6 and 3e-7 after the hand's tremble sizes
(`STAGE_ETAS`)
and reads the same optima again at 100 eta (`WIDER_GAPS`)."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from games.bidou.round_params import RoundParams
from solver.common.errors import SolverError
from solver.hand.model import build_model
from solver.hand.refined import quasi_perfect
from solver.hand.strategy import MAX_COMMON_DENOMINATOR_BITS
from solver.round import refine_stages as round_stages
from solver.round.states import ChipState, OpenThrowState

STAGE = (5, 2, 2)          # kept plain by the file's bound (6831 bits at eta 1e-4)
SAVED = Path(__file__).resolve().parent.parent / "outputs" / "round-keep" / "solved_round.json"


def _saved_values() -> tuple[RoundParams, dict]:
    """The published keep round's rules and every state's value (its report's floats)."""
    document = json.loads(SAVED.read_text())
    values: dict = {}
    for s in document["report"]["states"]:
        kind = OpenThrowState if s["open_throw"] else ChipState
        values[kind(s["centre"], s["captain"], s["opponent"])] = s["value"]
    return RoundParams.from_mapping(document["rules"]), values


def _common_bits(exact) -> int:
    common = 1
    for row in exact.values():
        for f in row:
            if common % f.denominator:
                common = math.lcm(common, f.denominator)
    return common.bit_length()


@pytest.mark.slow
def test_a_keep_stage_past_the_file_bound_refines_and_passes(monkeypatch):
    """STAGE (formerly kept plain) from the published round's values, as the round's
    workers refine it: proved exactly with a common denominator past the file's 4096 bits
    (so the file's bound alone refused it), its value the round's within the grid's 1e-12,
    and `verify` passes at every decision. About 19 s (load 3; the slowest of the file: one
    perturbed LP of a six-face keep stage, its recovery and a proof over 6000-bit
    integers): a keep stage is what failed, and no smaller game needed the bound."""
    params, values = _saved_values()
    kept = []
    real = round_stages.refined_equilibrium

    def keep(*args, **kwargs):
        kept.append(real(*args, **kwargs))
        return kept[-1]

    monkeypatch.setattr(round_stages, "refined_equilibrium", keep)
    monkeypatch.setattr("solver.hand.exact.recovery.can_fork", lambda: False)
    state = ChipState(*STAGE)
    found = round_stages.refine_stage(build_model(params.hand), state, values)
    assert found.failed is None and found.violations == 0
    assert abs(float(found.value) - values[state]) < 1e-12
    bits = _common_bits(kept[0].exact)
    assert MAX_COMMON_DENOMINATOR_BITS < bits <= round_stages.STAGE_DENOMINATOR_BITS


def test_wider_gaps_reread_each_lp_once_smallest_threshold_first(monkeypatch):
    """With `wider_gaps`, every tremble size is first tried at the hand's gap (as before:
    what proved then proves the same now), then the same LP optima, each solved once, read
    at each wider gap, the smallest threshold gap * eta first; the first that proves is
    the answer, and the reasons of every attempt are kept when none does."""
    solved, tried = [], []

    def lp(model, eta, kind, lp_solver):
        assert lp_solver == quasi_perfect.LINPROG     # the round's stages: no fast LP
        solved.append(eta)
        return ("LP", eta)

    def attempt(model, eta, gap, kind, progress, parallel, max_bits, cache, lp_solver):
        quasi_perfect._perturbed(model, eta, kind, cache, lp_solver)
        tried.append((eta, gap))
        if (eta, gap) == (1e-4, 100.0):
            return quasi_perfect.Refined(None, {}, None, None, 0.0, gap)
        raise SolverError(f"no proof at {eta:g}, {gap:g}")

    monkeypatch.setattr(quasi_perfect, "solve_perturbed", lp)
    monkeypatch.setattr(quasi_perfect, "_attempt", attempt)
    found = quasi_perfect.refined_equilibrium(None, wider_gaps=(100.0,))
    assert tried == [(1e-4, 10.0), (1e-5, 10.0), (1e-3, 10.0), (1e-5, 100.0), (1e-4, 100.0)]
    assert solved == [1e-4, 1e-5, 1e-3] and found.support_gap == 100.0
    tried.clear()
    with pytest.raises(SolverError) as error:
        quasi_perfect.refined_equilibrium(None, etas=(1e-5,), wider_gaps=(30.0, 100.0))
    assert tried == [(1e-5, 10.0), (1e-5, 30.0), (1e-5, 100.0)]
    assert str(error.value).count("no proof") == 3 and "eta 1e-05, gap 30" in str(error.value)


def test_the_stage_bound_is_only_the_stages():
    """`prove_fractions` takes the bound it is given (a proof past it is refused, naming
    it) and otherwise keeps the strategy file's 4096 bits, so hostile files are refused as
    before; the stage refinement's own bound is well above what the keep round needed."""
    from games.bidou.params import BidouParams
    from solver.hand.exact.certificate import prove_fractions
    from solver.hand.strategy import StrategyFileError

    model = build_model(BidouParams(faces=2, throws=1, max_level=1))
    refined = quasi_perfect.refined_equilibrium(model, parallel=False)
    rows = quasi_perfect.as_fractions(refined.exact)
    assert prove_fractions(model, refined.strategy, rows).exact == Fraction(-3, 40)
    bits = _common_bits(refined.exact)
    assert prove_fractions(model, refined.strategy, rows, bits).exact == Fraction(-3, 40)
    with pytest.raises(StrategyFileError, match=f"past {bits - 1} bits"):
        prove_fractions(model, refined.strategy, rows, bits - 1)
    assert MAX_COMMON_DENOMINATOR_BITS == 4096
    assert round_stages.STAGE_DENOMINATOR_BITS >= 2 * 11179
    # the hand's tremble sizes first: a stage that refined before refines the same now
    assert round_stages.STAGE_ETAS == (*quasi_perfect.ETAS, 1e-6, 3e-7)
