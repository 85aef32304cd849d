"""The C kernel of the CFR family (solver/hand/cfr/_kernel.c) against the numpy engine it
reproduces: same iterates, to rounding, on variants that exercise every branch."""

from __future__ import annotations

import numpy as np
import pytest

from games.bidou.params import BidouParams
from solver.hand.cfr import iterations as cfr
from solver.hand.cfr import kernel as cfr_kernel
from solver.hand.model import build_model

VARIANTS = {
    "default": BidouParams(),
    "keep": BidouParams(faces=4, throws=3, reroll="keep"),
    # one exception to the strength order: the kernel's exception branch
    "french-aces": BidouParams(faces=4, throws=2, ranking="french", aces_beat_bidou=True),
    "one-throw-m3": BidouParams(faces=3, throws=1, max_level=3),
}


def _state(engine: cfr.CFRSolver) -> dict[str, np.ndarray]:
    out = {"weight_sum": np.array([engine.weight_sum])}
    for pl in engine.players:
        for name in ("throw_regret", "bet_regret", "throw_sigma", "bet_sigma", "throw_avg",
                     "seq_avg", "leaf_reach"):
            out[f"{pl.role}.{name}"] = getattr(pl, name)
    return out


def _assert_same(a: cfr.CFRSolver, b: cfr.CFRSolver, rtol: float) -> None:
    assert a.t == b.t
    sa, sb = _state(a), _state(b)
    for name in sa:
        if sa[name].size == 0:          # no throwing decisions with one throw
            continue
        scale = max(1.0, float(np.abs(sa[name]).max()))
        np.testing.assert_allclose(sb[name], sa[name], rtol=0, atol=rtol * scale, err_msg=name)


def _pair(model, rule, **options):
    numpy_engine = cfr.CFRSolver(model, rule, showdown="cumsum", **options)
    kernel = cfr.CFRSolver(model, rule, engine="compiled", **options)
    return numpy_engine, kernel


def test_kernel_is_built():
    # CI installs with a C compiler: a silently skipped build would hide a 6x slowdown
    assert cfr_kernel.available()


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("options", [{}, {"alternating": False}, {"average_played": True}],
                         ids=["alternating", "simultaneous", "average-played"])
def test_vanilla_cfr_iterates_match(variant, options):
    # Regret matching has no clipping, so rounding differences stay at rounding level.
    a, b = _pair(build_model(VARIANTS[variant]), cfr.RULES["cfr"], **options)
    for _ in range(150):
        a.iterate()
    b.run(150)
    _assert_same(a, b, 1e-9)


@pytest.mark.parametrize("method", cfr.METHODS)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_rule_matches_before_ties(method, variant):
    # RM+ and the DCFR discounts turn a regret of +-1e-17 (an exact tie, rounded) into
    # different strategies, so the two engines part after a few iterations: compare the
    # first three, which already run every step of the rule.
    a, b = _pair(build_model(VARIANTS[variant]), cfr.RULES[method])
    for _ in range(3):
        a.iterate()
        b.iterate()
        _assert_same(a, b, 1e-12)


def test_pdcfr_rule_runs_in_the_kernel():
    rule = cfr.Rule(plus=True, alpha=2.3, beta=0.0, predictive=True, gamma=5.0)
    a, b = _pair(build_model(VARIANTS["french-aces"]), rule)
    for _ in range(3):
        a.iterate()
    b.run(3)
    _assert_same(a, b, 1e-12)


def test_kernel_reaches_the_same_exploitability():
    # after the trajectories part, both are still CFR+: same accuracy, same pace
    model = build_model(VARIANTS["keep"])
    a, b = _pair(model, cfr.RULES["cfr+"])
    for _ in range(400):
        a.iterate()
    b.run(400)
    ea, eb = a.average_exploitability(), b.average_exploitability()
    assert eb == pytest.approx(ea, rel=0.2)
    assert eb < 2e-3


def test_kernel_refuses_arrays_it_would_misread():
    model = build_model(BidouParams(faces=2, throws=2))
    engine = cfr.CFRSolver(model, cfr.RULES["cfr+"])
    engine.players[0].throw_regret = np.asfortranarray(
        np.zeros(engine.players[0].throw_regret.shape[::-1]).T)
    with pytest.raises(TypeError, match="C-contiguous"):
        cfr_kernel.bind(engine)


def test_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="engine must be one of"):
        cfr.CFRSolver(build_model(BidouParams(faces=2, throws=1)), cfr.RULES["cfr"],
                    engine="gpu")


def test_struct_layout_is_checked_at_load(monkeypatch):
    """A ctypes mirror that differs from the compiled struct fails loudly at load."""
    import ctypes

    lib = cfr_kernel._LIB
    if lib is None:
        pytest.skip("the C kernel was not built")
    cfr_kernel.check_layout(lib)                        # the real structs agree

    class ShortRule(ctypes.Structure):
        _fields_ = [("plus", ctypes.c_int64), ("discount", ctypes.c_int64),
                    ("alpha", ctypes.c_double)]

    monkeypatch.setattr(cfr_kernel, "_Rule", ShortRule)
    with pytest.raises(cfr_kernel.KernelLayoutError, match="Rule"):
        cfr_kernel.check_layout(lib)


def test_kernel_calls_are_short_so_ctrl_c_is_seen(monkeypatch):
    """A long run is cut into kernel calls of about cfr.BATCH_SECONDS (an interrupt is only
    seen between two calls). The run reads a clock of its own here, on which each kernel
    iteration takes about 1 ms: the calls' sizes follow the rule whatever the machine's load."""
    import types

    per_iteration = 1 / 1024                   # exact in binary: no rounding in the rule
    clock = [0.0]
    monkeypatch.setattr(cfr, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    solver = cfr.CFRSolver(build_model(BidouParams()), cfr.RULES["cfr+"], engine="compiled")
    kernel, calls = solver._compiled, []
    run = kernel.run

    def timed(iterations, *args):
        out = run(iterations, *args)
        calls.append(iterations)
        clock[0] += iterations * per_iteration
        return out

    kernel.run = timed
    solver.run(8000)
    assert solver.t == 8000 and sum(calls) == 8000
    # from 16 iterations, doubled while a call is shorter than the batch, then about a batch
    assert calls[:3] == [16, 32, 64]
    assert all(n * per_iteration <= cfr.BATCH_SECONDS for n in calls)
    assert all(n * per_iteration > cfr.BATCH_SECONDS / 2 for n in calls[3:-1])
    assert len(calls) > 50
