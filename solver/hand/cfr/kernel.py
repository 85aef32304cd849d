"""The CFR iteration of `solver.hand.cfr.iterations` in C (solver/hand/cfr/_kernel.c), called
through ctypes.

Why C: the numpy engine spends almost all of an iteration in the overhead of ~180 numpy
calls on arrays of a few thousand numbers. The kernel runs the same arithmetic as plain loops
over the same arrays (`solver.hand.cfr.layout`'s `Layout` and `PlayerArrays`, updated in place)
and performs batches of iterations per call. A JIT (numba) was measured too: as fast, but
with seconds of start-up and compilation in every process, against a millisecond to load
this library (benchmarks/bench_cfr.py has the numbers).

The extension is built by `pip install` (setuptools, `optional`: without a C compiler the
install still succeeds, `available()` is False and `solver.hand.cfr.iterations` runs the numpy
engine).
Showdowns always take the cumulative-sum form (O(n) a leaf). Both engines produce the
same iterates up to rounding (tests/test_cfr_kernel.py).
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.util
from typing import Any, Sequence

import numpy as np

from games.bidou.betting import CAPTAIN

_F = ctypes.POINTER(ctypes.c_double)
_I = ctypes.POINTER(ctypes.c_int64)
_N = ctypes.c_int64


class _Layout(ctypes.Structure):
    _fields_ = [(name, _N) for name in ("T", "A", "n", "K", "D", "L", "m", "P", "E")] + [
        (name, _I) for name in ("child_row", "pub_tc", "pub_to", "parent_edge", "leaf_edge",
                                "exc_w", "exc_l")] + [
        (name, _F) for name in ("legal", "outcome", "exc_coef", "prior", "V")]


class _Player(ctypes.Structure):
    _fields_ = [(name, _N) for name in ("C", "Dp", "is_captain")] + [
        (name, _F) for name in (
            "throw_regret", "bet_regret", "throw_sigma", "bet_sigma", "throw_avg", "seq_avg",
            "factor", "flows", "ends", "reach", "seq", "leaf_reach", "throw_uniform",
            "bet_uniform", "throw_r", "bet_r", "stop", "work", "totals")] + [
        (name, _I) for name in ("own", "own_children", "start_rows")] + [
        (name, _F) for name in ("other_value", "sd_a_cum", "sd_a_total", "sd_a_self")]


class _Rule(ctypes.Structure):
    _fields_ = [("plus", _N), ("discount", _N), ("predictive", _N),
                ("alpha", ctypes.c_double), ("beta", ctypes.c_double),
                ("gamma", ctypes.c_double)]


class KernelLayoutError(RuntimeError):
    """The compiled kernel's structs are not laid out as this module's ctypes structs."""


def check_layout(lib: ctypes.CDLL) -> None:
    """Compare each struct's size and field offsets in C with the ctypes mirror; raise
    KernelLayoutError naming the first difference (a stale build, a field added on one side
    only) instead of letting the kernel read the wrong memory."""
    for which, struct in enumerate((_Layout, _Player, _Rule)):
        room = 1 + len(struct._fields_) + 8
        out = (ctypes.c_int64 * room)()
        count = lib.cfr_struct_layout(which, out, room)
        names = ["size"] + [field[0] for field in struct._fields_]
        ours = [ctypes.sizeof(struct)] + [getattr(struct, name).offset for name in names[1:]]
        theirs = list(out[:count])
        if theirs != ours:
            where = next((names[i] if i < len(names) else f"field {i}"
                          for i in range(max(len(ours), len(theirs)))
                          if i >= len(ours) or i >= len(theirs) or ours[i] != theirs[i]), "?")
            raise KernelLayoutError(
                f"the C kernel's {struct.__name__.strip('_')} struct differs from "
                f"solver/hand/cfr/kernel.py at {where} (C: {theirs}, Python: {ours}); "
                "reinstall (pip install -e .) to rebuild it")


def _library() -> ctypes.CDLL | None:
    spec = importlib.util.find_spec("solver.hand.cfr._kernel")
    if spec is None or spec.origin is None:
        return None
    lib = ctypes.CDLL(spec.origin)
    lib.cfr_run.restype = ctypes.c_double
    lib.cfr_run.argtypes = [_N, _N, ctypes.POINTER(_Player), ctypes.POINTER(_Player),
                            ctypes.POINTER(_Layout), ctypes.POINTER(_Rule), _N, _N]
    lib.cfr_struct_layout.restype = _N
    lib.cfr_struct_layout.argtypes = [_N, ctypes.POINTER(ctypes.c_int64), _N]
    check_layout(lib)
    return lib


_LIB = _library()


def available() -> bool:
    """Whether the C kernel was built at install."""
    return _LIB is not None


def _pointer(array: np.ndarray, kind):
    """A pointer to a C-contiguous array of the right type (never a copy: the kernel
    writes through it)."""
    want = np.float64 if kind is _F else np.int64
    if array.dtype != want or not array.flags.c_contiguous:
        raise TypeError(f"kernel arrays must be C-contiguous {np.dtype(want)}, got "
                        f"{array.dtype} {array.shape}")
    return array.ctypes.data_as(kind)


class Kernel:
    """The C kernel bound to one engine's arrays (which must stay alive and in place)."""

    def __init__(self, layout: dict[str, Any], players: Sequence[dict[str, Any]],
                 rule: dict[str, Any]):
        if _LIB is None:
            raise RuntimeError("the C kernel of solver.hand.cfr.iterations was not built (no C "
                               "compiler at install?); use engine='numpy'")
        self._lib = _LIB
        self._arrays: list[np.ndarray] = []    # keep every array the structs point into

        def fill(struct, values: dict):
            for name, kind in struct._fields_:
                value = values[name]
                if kind is _N:
                    setattr(struct, name, int(value))
                else:
                    array = np.asarray(value)
                    self._arrays.append(array)
                    setattr(struct, name, _pointer(array, kind))
            return struct

        self._layout = fill(_Layout(), layout)
        self._players = tuple(fill(_Player(), p) for p in players)
        self._rule = _Rule(**rule)

    def run(self, iterations: int, t: int, alternating: bool, average_played: bool) -> float:
        """Perform `iterations` iterations after iteration t; return the weight they add."""
        cap, opp = self._players
        added = self._lib.cfr_run(iterations, t, ctypes.byref(cap), ctypes.byref(opp),
                             ctypes.byref(self._layout), ctypes.byref(self._rule),
                             int(alternating), int(average_played))
        if added < 0:
            raise RuntimeError("the C kernel refused the layout (more than 64 throw actions)")
        return added


def bind(engine) -> Kernel:
    """The kernel on a `cfr.CFRSolver`'s layout and both players' arrays, which it then
    updates in place (the engine keeps reading them: averages, strategies, checks)."""
    lay = engine.lay
    child_row = np.concatenate([rows for _, _, rows, _ in lay.layers], axis=1)
    parent_edge = np.concatenate([parents for _, _, _, parents in lay.layers])
    exceptions = np.array(lay.exceptions, dtype=np.int64).reshape(-1, 2)
    layout = dict(
        T=lay.T, A=lay.legal.shape[0], n=lay.n, K=lay.K, D=lay.num_nodes,
        L=lay.num_leaves, m=lay.n_showdown, P=len(lay.pub_tc), E=len(exceptions),
        child_row=np.ascontiguousarray(child_row, dtype=np.int64),
        pub_tc=lay.pub_tc.astype(np.int64), pub_to=lay.pub_to.astype(np.int64),
        parent_edge=parent_edge.astype(np.int64), leaf_edge=lay.leaf_edge.astype(np.int64),
        exc_w=exceptions[:, 0].copy(), exc_l=exceptions[:, 1].copy(),
        legal=np.ascontiguousarray(lay.legal[:, 0, :]), outcome=lay.outcome,
        exc_coef=np.ascontiguousarray(lay.exc_coef), prior=lay.prior, V=engine._values)
    players = []
    for pl, other_value in zip(engine.players, engine._other_value):
        C = pl.throw_regret.shape[2]
        a_cum, a_total, a_self = (np.ascontiguousarray(x[:, 0]) for x in lay.sd_coef[pl.role])
        players.append(dict(
            C=C, Dp=len(pl.own), is_captain=pl.role == CAPTAIN,
            throw_regret=pl.throw_regret, bet_regret=pl.bet_regret,
            throw_sigma=pl.throw_sigma, bet_sigma=pl.bet_sigma, throw_avg=pl.throw_avg,
            seq_avg=pl.seq_avg, factor=pl.factor, flows=pl.flows, ends=pl.ends,
            reach=pl.reach, seq=pl.seq, leaf_reach=pl.leaf_reach,
            throw_uniform=pl.throw_uniform, bet_uniform=pl.bet_uniform,
            throw_r=np.zeros_like(pl.throw_regret), bet_r=np.zeros_like(pl.bet_regret),
            stop=np.zeros((lay.T, C, lay.n)), work=np.zeros((2, C, lay.n)),
            totals=np.zeros(max(pl.throw_regret.size, pl.bet_regret.size)),
            own=pl.own.astype(np.int64), own_children=pl.own_children.astype(np.int64),
            start_rows=pl.start_rows.astype(np.int64),
            other_value=np.ascontiguousarray(other_value[:, 0]),
            sd_a_cum=a_cum, sd_a_total=a_total, sd_a_self=a_self))
    r = engine.rule
    rule = dict(plus=r.plus, discount=r.alpha is not None, predictive=r.predictive,
                alpha=float(r.alpha or 0.0), beta=float(r.beta or 0.0),
                gamma=float(r.gamma))
    return Kernel(layout, tuple(players), rule)
