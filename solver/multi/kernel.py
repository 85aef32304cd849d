"""The CFR+ iteration and the best response of solver/multi/ in C (solver/multi/
_multi_kernel.c), called through ctypes.

Why C: the numpy walks (values.py, cfr.py, best_response.py) gather each edge's parent row
into a new array, multiply, and scatter it back, depth by depth; on the big trees most of an
iteration is those copies and the (terminals x players x hands x hands) temporaries of the
showdown products. The kernel walks the same arrays in place, edge by edge, with the same
arithmetic, except that when the ranking is an order (`levels`) a showdown's "every other
hand beats his" is a running sum along the ranking, O(H) a terminal instead of the O(H^2)
pairwise products; the numbers agree with numpy's to rounding (tests/test_multi_kernel.py);
benchmarks/bench_multi.py measures both side by side.

Built by `pip install` like `solver.hand.cfr._kernel` (pyproject.toml, `optional`: without a C
compiler `available()` is False and the numpy walks run). Memory: the kernel holds, per
public node, each player's range and value (2 x nodes x players x hands doubles), and per
edge sigma, own value, regret and average (4 x edges x hands): `memory_bytes`.

Signals: a call may run for hours (`bidou multi --iterations 1000000000000` is one call per
tenth), so it is made holding the GIL (`ctypes.PyDLL`), which the kernel lets go while it
computes and takes back every few hundredths of a second to run Python's signal handlers:
Ctrl-C and SIGTERM raise from inside the call (KeyboardInterrupt, `Terminated`) within that
time, the arrays left part-way through an iteration. The arithmetic is unchanged.
"""

from __future__ import annotations

import ctypes
import importlib.util
from typing import Optional

import numpy as np

from solver.multi import cfr
from solver.multi.best_response import Gains
from solver.multi.cfr import CFRState
from solver.multi.tree import PublicTree

_F = ctypes.POINTER(ctypes.c_double)
_I = ctypes.POINTER(ctypes.c_int64)
_N = ctypes.c_int64


class _Tree(ctypes.Structure):
    _fields_ = [(name, _N) for name in ("N", "E", "G", "n", "H", "T")] + [
        (name, _I) for name in ("edge_parent", "edge_child", "edge_player", "edge_again",
                                "starts", "term_node", "term_kind", "term_seats")] + [
        (name, _F) for name in ("term_pay", "base", "beats")] + [("L", _N), ("level", _I)]


class _State(ctypes.Structure):
    _fields_ = [(name, _F) for name in ("reach", "value", "sigma", "own", "regret", "sums",
                                        "work", "last")]


class _Method(ctypes.Structure):
    _fields_ = [(name, ctypes.c_double) for name in ("gamma", "alpha", "beta")] + [
        (name, _N) for name in ("plus", "discount", "alternate", "predictive")]


def _method(how: cfr.Method) -> _Method:
    return _Method(gamma=how.gamma, alpha=how.alpha, beta=how.beta, plus=int(how.plus),
                   discount=int(how.discount), alternate=int(how.alternate),
                   predictive=int(how.predictive))


def _library() -> Optional[ctypes.CDLL]:
    spec = importlib.util.find_spec("solver.multi._multi_kernel")
    if spec is None or spec.origin is None:
        return None
    lib = ctypes.PyDLL(spec.origin)         # with the GIL: its signal handlers run inside
    lib.multi_run.restype = _N
    lib.multi_run.argtypes = [ctypes.POINTER(_Tree), ctypes.POINTER(_State),
                              ctypes.POINTER(_Method), _N, _N]
    lib.multi_best_response.restype = ctypes.c_double
    lib.multi_best_response.argtypes = [ctypes.POINTER(_Tree), ctypes.POINTER(_State), _N, _N]
    return lib


_LIB = _library()
_KINDS = {"fixed": 0, "loser": 1, "highest": 2}


def available() -> bool:
    """Whether the kernel was built at install."""
    return _LIB is not None


def memory_bytes(nodes: int, edges: int, players: int, hands: int) -> int:
    """What the kernel's arrays take (the tree's own arrays and the terminals' payoffs
    come on top, about a tenth of it)."""
    return 8 * (2 * nodes * players * hands + 4 * edges * hands)


def levels(beats: np.ndarray) -> Optional[np.ndarray]:
    """Each hand's level (0 the weakest) if the ranking is an order, beats[a, b] exactly when
    level[a] > level[b] (so showdowns take O(H) by running sums); None if it is not (the
    french ranking with aces beating the bidou: a cycle), and the O(H^2) products are used."""
    wins = beats.sum(axis=1)
    distinct = np.unique(wins)
    level = np.searchsorted(distinct, wins)
    if not np.array_equal(beats, (level[:, None] > level[None, :]).astype(beats.dtype)):
        return None
    return level


def _int(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64)


def _float(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.float64)


class Kernel:
    """The kernel bound to one tree; its arrays stay alive as long as it does."""

    def __init__(self, tree: PublicTree, ordered: bool = True):
        """`ordered=False` forces the O(H^2) showdown products even for an ordered ranking
        (the tests compare both)."""
        if _LIB is None:
            raise RuntimeError("the multi-hand C kernel was not built (no C compiler at "
                               "install?); use the numpy walks")
        self._lib = _LIB
        n, h = tree.players, len(tree.hands)
        nodes, kinds, seats, pays = [], [], [], []
        for group in tree.terminals:
            pay = np.zeros((len(group.nodes), n + 1, n))
            if group.kind == "fixed":
                pay[:, n] = group.payoffs[:, 0]
            else:
                pay[:, list(group.seats)] = group.payoffs[:, :-1]
                pay[:, n] = group.payoffs[:, -1]
            nodes.append(group.nodes)
            kinds += [_KINDS[group.kind]] * len(group.nodes)
            seats += [sum(1 << s for s in group.seats)] * len(group.nodes)
            pays.append(pay)
        self.arrays = {
            "edge_parent": _int(tree.edge_parent), "edge_child": _int(tree.edge_child),
            "edge_player": _int(tree.edge_player), "edge_again": _int(tree.edge_again),
            "starts": _int(np.r_[tree.edge_starts, tree.num_edges]),
            "term_node": _int(np.concatenate(nodes)), "term_kind": _int(kinds),
            "term_seats": _int(seats), "term_pay": _float(np.concatenate(pays)),
            "base": _float(tree.base), "beats": _float(tree.beats)}
        level = levels(tree.beats) if ordered else None
        self.arrays["level"] = _int(level if level is not None else np.zeros(h))
        count = int(level.max()) + 1 if level is not None else 0
        self.ordered = level is not None
        self.tree = _Tree(N=tree.num_nodes, E=tree.num_edges, G=len(tree.edge_starts), n=n,
                          H=h, T=len(self.arrays["term_node"]), L=count,
                          **{k: v.ctypes.data_as(_I if v.dtype == np.int64 else _F)
                             for k, v in self.arrays.items()})
        self.reach = np.zeros((tree.num_nodes, n, h))
        self.value = np.zeros((tree.num_nodes, n, h))
        self.sigma = np.zeros((tree.num_edges, h))
        self.own = np.zeros((tree.num_edges, h))
        self.work = np.zeros((n + 5) * h + 2 * count)
        self._shape = (tree.num_edges, h)

    def _state(self, regret: np.ndarray, sums: np.ndarray,
               last: Optional[np.ndarray] = None) -> _State:
        for array in (regret, sums) + ((last,) if last is not None else ()):
            if array.shape != self._shape or array.dtype != np.float64 or not \
                    array.flags.c_contiguous:
                raise TypeError(f"kernel arrays must be C-contiguous float64 {self._shape}")
        return _State(**{name: array.ctypes.data_as(_F) for name, array in (
            ("reach", self.reach), ("value", self.value), ("sigma", self.sigma),
            ("own", self.own), ("regret", regret), ("sums", sums), ("work", self.work))
            + ((("last", last),) if last is not None else ())})

    def iterate(self, state: CFRState, iterations: int, variant: str = "cfr+") -> CFRState:
        """`iterations` more iterations on `state`'s arrays, in place (cfr.iterate's
        arithmetic; `seconds` is the caller's to count). A signal's exception leaves the
        state part-way through an iteration, to be dropped."""
        how = cfr.method(variant)
        if how.predictive and state.last is None:
            state.last = np.zeros_like(state.regrets)
        arrays = self._state(state.regrets, state.strategy_sum,
                             state.last if how.predictive else None)
        if self._lib.multi_run(ctypes.byref(self.tree), ctypes.byref(arrays),
                               ctypes.byref(_method(how)), state.iterations, iterations):
            raise RuntimeError("the multi-hand C kernel stopped without an exception")
        state.iterations += iterations
        return state

    def best_response_value(self, sigma: np.ndarray, seat: int, deviate: bool = True) -> float:
        """best_response.best_response_value (deviate) or policy_value, in C."""
        self.sigma[...] = sigma
        scratch = np.zeros(self._shape)
        return float(self._lib.multi_best_response(
            ctypes.byref(self.tree), ctypes.byref(self._state(scratch, scratch)), seat,
            int(deviate)))

    def gains(self, sigma: np.ndarray) -> Gains:
        """best_response.gains in C: every seat's value and best response."""
        seats = range(self.reach.shape[1])
        return Gains(values=tuple(self.best_response_value(sigma, q, False) for q in seats),
                     best=tuple(self.best_response_value(sigma, q, True) for q in seats))
