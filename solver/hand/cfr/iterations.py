"""The CFR family (CFR, CFR+, DCFR, predictive CFR+) on the compact hand model, vectorized.

    solve_cfr(model, "cfr+", target_exploitability=1e-6) -> solver.hand.result.Solution

The game is the one of `solver.hand.model`: each player's throwing turn is a small decision
process over (throw, hand) (the opponent has one per captain throw count), and the betting
is one tree per public state (captain's throws, opponent's throws) with a row per hand.

Methods (`RULES`; all alternate updates between the players, the captain first):
  cfr    regret matching, uniform averaging;
  cfr+   regret matching+, linear averaging (`averaging="quadratic"` is faster to 1e-4);
  dcfr   discounted CFR, alpha 1.5, beta 0, gamma 2 (Brown and Sandholm 2019);
  pcfr+  predictive regret matching+ with the last instantaneous regret as prediction
         (Farina, Kroer and Sandholm 2021), averaged with weights t^5 (PCFR_GAMMA, the
         averaging of PDCFR+): fewer iterations than quadratic averaging (Farina et al.'s
         choice, `averaging="quadratic"`) or linear at every target on the default game
         (benchmarks/bench_cfr.py).
A player's average is taken over the strategies he updated *to* (the ones the other player
then faced); `average_played=True` averages the ones he played, as OpenSpiel does, and then
the iterates are exactly OpenSpiel's CFR+ on the faithful game (tests/test_cfr.py).

Why CFR is still right on merged (throw, hand) states
------------------------------------------------------
In the faithful game a player's information set in his throwing turn is his whole private
history; here every history that ends in the same (throw, hand) is one state. Discarded
dice never matter, so every history merged into a state sees exactly the same
counterfactual action values; perfect-recall CFR would give all of them regrets that differ
only by a constant positive factor (the chance probability of the history), and every
regret minimizer used here (regret matching, RM+, the DCFR discounts, predictive RM+) is
invariant under a constant positive scaling of one state's regrets. So running CFR on the
merged states reproduces perfect-recall CFR's strategies exactly, and its convergence
guarantee with it. Accordingly a throwing state's regret is the plain difference of
action values (the constant chance weight is dropped); the opponent's action values already
carry the captain's reach of the public state. The *average* strategy is formed, as always,
from realization weights: the occupancy of a throwing state (chance and own play
included) and the own reach of a betting node.

Vectorization
-------------
Nothing loops over hands. Hands are sorted by strength inside the solver. The betting
trees of all public states are flattened into one array of nodes (actions padded to K
slots, depth-sorted so each depth is a slice) processed layer by layer, so an iteration is
about 180 numpy calls on arrays of at most (K, nodes, hands) = (3, 90, 56), whatever the
number of hands; everything else is precomputed once per model (`solver.hand.cfr.layout`).
Showdown values against a reach vector come from the ranking structure (strength order
plus the sparse `model.exceptions`), in one of two equivalent forms: `showdown="cumsum"`
(cumulative sums in strength order, O(n) per leaf) or `showdown="dense"` (one BLAS product
per group of proportional leaf payoffs with the (n, n) payoff matrix built from that
structure). At n = 56 the dense product is the faster (numpy's cumsum is not vectorized),
so it is the default; the tests check both agree.

Engines
-------
Nearly all of a numpy iteration's time is the overhead of its numpy calls. `solve_cfr`
therefore runs, when it was built at install, the C kernel of `solver.hand.cfr.kernel`: the same
arithmetic as loops over the same arrays, batches of iterations per call, several times
faster (benchmarks/bench_cfr.py measures both). The numpy engine stays
as the reference the kernel is tested against, and as the fallback where no C compiler was
available (`engine="numpy"`). `Solution.message` says which engine ran.

Checks and stopping are decided by the exact best response of `solver.hand.best_response`, never
by CFR's own bookkeeping (see `solve_cfr`).
"""

from __future__ import annotations

import bisect
import dataclasses
import time
from collections.abc import Callable

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.common.progress import Step, quiet
from solver.hand import best_response
from solver.hand.cfr import kernel as cfr_kernel
from solver.hand.cfr.layout import PlayerArrays, build_layout, normalized
from solver.hand.model import HandModel
from solver.hand.result import Solution
from solver.hand.strategy import Strategy

METHODS = ("cfr", "cfr+", "dcfr", "pcfr+")
ENGINES = ("compiled", "numpy")
DEFAULT_TARGET = 1e-6
DEFAULT_MAX_ITERATIONS = 100_000
# The C kernel runs in calls of about this many seconds, so that an interrupt is seen soon.
BATCH_SECONDS = 0.1

# DCFR parameters (Brown and Sandholm 2019, the values they recommend).
DCFR_ALPHA, DCFR_BETA, DCFR_GAMMA = 1.5, 0.0, 2.0
# PCFR+ averages iterate t with weight t^5, the averaging of PDCFR+ (Xu et al. 2024); on the
# default game it needs 11 300 iterations to 1e-6 against 15 100 with quadratic weights
# (t^3: 13 100, t^4: 11 800, t^8: 10 400, t^12: 10 100, t^20: 10 900).
PCFR_GAMMA = 5.0


@dataclasses.dataclass(frozen=True)
class Rule:
    """How cumulative regrets become a strategy, and how iterates are averaged.

    After the instantaneous regret r of iteration t: R <- R + r, clipped at 0 if `plus`;
    then positive entries are multiplied by t^alpha/(t^alpha+1) and negative ones by
    t^beta/(t^beta+1) (no discount when None). The next strategy is proportional to the
    positive part of R (+ r if `predictive`: the last regret predicts the next). Iterate t
    enters the average with weight t^gamma.
    """

    plus: bool
    alpha: float | None
    beta: float | None
    predictive: bool
    gamma: float


RULES = {
    "cfr": Rule(plus=False, alpha=None, beta=None, predictive=False, gamma=0.0),
    "cfr+": Rule(plus=True, alpha=None, beta=None, predictive=False, gamma=1.0),
    "dcfr": Rule(plus=False, alpha=DCFR_ALPHA, beta=DCFR_BETA, predictive=False,
                 gamma=DCFR_GAMMA),
    "pcfr+": Rule(plus=True, alpha=None, beta=None, predictive=True, gamma=PCFR_GAMMA),
}
AVERAGING = {"uniform": 0.0, "linear": 1.0, "quadratic": 2.0}


class CFRSolver:
    """The iteration. `run(k)` performs k iterations of `rule`, `iterate()` one.

    engine="numpy" runs the vectorized numpy code of this module; engine="compiled" runs
    the same arithmetic in C (`solver.hand.cfr.kernel`) on the same arrays, without coming back
    to Python between iterations (about 7 times faster on the default game). The showdown
    form of the compiled engine is always the cumulative sums.
    """

    def __init__(self, model: HandModel, rule: Rule, alternating: bool = True,
                 average_played: bool = False, showdown: str = "dense",
                 engine: str = "numpy"):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        self.model = model
        self.rule = rule
        self.engine = engine
        self.alternating = alternating
        # Average the strategy a player updated *from* (the one he played in the pass, as
        # OpenSpiel does) instead of the one he updated *to* (the one the other then faces).
        self.average_played = average_played
        self.lay = lay = build_layout(model, showdown)
        self.players = (PlayerArrays(lay, CAPTAIN), PlayerArrays(lay, OPPONENT))
        self.t = 0
        self.weight_sum = 0.0
        self._chunk = 16                      # kernel iterations per call (adapted in run)
        self._values = np.zeros((lay.num_leaves + lay.num_nodes + 1, lay.n))
        self._num_leaves = lay.num_leaves
        self._layers_up = tuple(reversed(lay.layers))
        # take(out=) is buffered unless mode is "clip" or "wrap" (indices are all valid)
        self._layer_buffers = tuple(np.empty(rows.shape + (lay.n,))
                                    for _, _, rows, _ in self._layers_up)
        self._other_value = (lay.other_value, -lay.other_value)      # to CAPTAIN, OPPONENT
        for pl in self.players:
            self._forward(pl)
        self._compiled = None
        if engine == "compiled":
            self._compiled = cfr_kernel.bind(self)

    def run(self, iterations: int) -> None:
        """Perform `iterations` iterations."""
        if self._compiled is None:
            for _ in range(iterations):
                self.iterate()
            return
        done = 0
        while done < iterations:
            # Calls of about BATCH_SECONDS each: Python sees Ctrl-C only between two calls.
            chunk = min(iterations - done, self._chunk)
            start = time.perf_counter()
            self.weight_sum += self._compiled.run(chunk, self.t, self.alternating,
                                                  self.average_played)
            self.t += chunk
            done += chunk
            elapsed = time.perf_counter() - start
            if chunk == self._chunk:
                self._chunk = max(1, min(2 * chunk, int(chunk * BATCH_SECONDS
                                                        / max(elapsed, 1e-9))))

    # --- reach (forward) --------------------------------------------------------------------

    def _forward(self, pl: PlayerArrays) -> None:
        """Occupancy of the throwing states, end of turn, own reach in the betting."""
        lay = self.lay
        T = lay.T
        sigma, flows, ends = pl.throw_sigma, pl.flows, pl.ends       # (T-1, A, C, n)
        mass = lay.prior
        for t in range(T - 1):
            np.multiply(mass, sigma[t], out=flows[t])                # (A, C, n)
            mass = np.add.reduce(flows[t, 1:], axis=2).T @ lay.outcome   # (C, n)
        ends[:T - 1] = flows[:, 0]
        ends[T - 1] = mass
        reach, seq, factor = pl.reach, pl.seq, pl.factor
        flat = seq.reshape(-1, lay.n)
        for s, e, _, parents in lay.layers:
            if s == 0:
                ends.reshape(-1, lay.n).take(pl.start_rows, axis=0, out=reach[:e], mode="clip")
            else:
                flat.take(parents, axis=0, out=reach[s:e], mode="clip")
            np.multiply(reach[s:e], factor[:, s:e], out=seq[:, s:e])
        flat.take(lay.leaf_edge, axis=0, out=pl.leaf_reach, mode="clip")

    # --- values (backward) ------------------------------------------------------------------

    def _leaf_values(self, role: int, reach: np.ndarray, out: np.ndarray) -> None:
        """Value to `role` of each leaf and own hand, against the other's leaf reach."""
        lay = self.lay
        m = lay.n_showdown
        r = reach[:m]
        if lay.showdown == "dense":
            for s, e, matrix, scale in lay.dense_groups[role]:
                np.matmul(r[s:e], matrix, out=out[s:e])
                if scale is not None:
                    out[s:e] *= scale
        else:
            cum = np.cumsum(r, axis=1)
            a_cum, a_total, a_self = lay.sd_coef[role]
            v = out[:m]
            np.multiply(a_cum, cum, out=v)
            v += a_total * cum[:, -1:]
            v += a_self * r
            for winner, loser in lay.exceptions:
                # `compare` says winner beats loser although the order says otherwise
                if role == CAPTAIN:
                    v[:, winner] += lay.exc_coef * r[:, loser]
                    v[:, loser] -= lay.exc_coef * r[:, winner]
                else:
                    v[:, loser] -= lay.exc_coef * r[:, winner]
                    v[:, winner] += lay.exc_coef * r[:, loser]
        np.multiply(self._other_value[role], np.add.reduce(reach[m:], axis=1, keepdims=True),
                    out=out[m:len(reach)])

    def _node_values(self, factor: np.ndarray) -> None:
        """Fill the node rows of V, deepest first: the factor-weighted sum of children."""
        L = self._num_leaves
        V = self._values
        add = np.add.reduce
        for (s, e, rows, _), c in zip(self._layers_up, self._layer_buffers):
            V.take(rows, axis=0, out=c, mode="clip")
            c *= factor[:, s:e]
            add(c, axis=0, out=V[L + s:L + e])

    def _stop_values(self, role: int) -> np.ndarray:
        """(T, C, n): value of ending the turn at each throw count, from the betting roots."""
        lay = self.lay
        root = self._values[lay.num_leaves:lay.num_leaves + len(lay.pub_tc)]   # (P, n)
        if role == CAPTAIN:
            return (lay.captain_sum @ root)[:, None, :]
        return root[lay.pub_index].transpose(1, 0, 2)              # (to, tc, n)

    def _backward(self, pl: PlayerArrays, other: PlayerArrays):
        """Instantaneous regrets of `pl` (throw, betting) against `other`'s current reach."""
        lay = self.lay
        T = lay.T
        V = self._values
        self._leaf_values(pl.role, other.leaf_reach, V)
        self._node_values(pl.factor)
        bet_regret = V.take(pl.own_children, axis=0)
        bet_regret -= V.take(pl.own_rows, axis=0)             # 0 on invalid slots
        stop = self._stop_values(pl.role)
        sigma = pl.throw_sigma
        throw_regret = np.empty_like(sigma)
        v = stop[T - 1]                                             # (C, n)
        for t in range(T - 2, -1, -1):
            q = throw_regret[t]                                     # (A, C, n)
            q[0] = stop[t]
            q[1:] = (v @ lay.outcome_t).T[:, :, None]
            v = np.add.reduce(sigma[t] * q, axis=0)
            q -= v
            q *= lay.legal
        return throw_regret, bet_regret

    # --- updates ----------------------------------------------------------------------------

    def _update(self, pl: PlayerArrays, regrets) -> None:
        t = self.t
        if self.average_played:
            self._accumulate(pl)
        weights = (self._weights(pl.throw_regret, regrets[0], t),
                   self._weights(pl.bet_regret, regrets[1], t))
        pl.throw_sigma = normalized(weights[0], pl.throw_uniform, axis=1)
        pl.bet_sigma = normalized(weights[1], pl.bet_uniform, axis=0)
        pl.factor[:, pl.own] = pl.bet_sigma
        self._forward(pl)
        if not self.average_played:
            self._accumulate(pl)

    def _weights(self, acc: np.ndarray, r: np.ndarray, t: int) -> np.ndarray:
        """Add the instantaneous regret r to the cumulative regret acc (in place, with the
        rule's clipping and discounts); return the nonnegative weights of the next play."""
        rule = self.rule
        acc += r
        if rule.plus:
            np.maximum(acc, 0.0, out=acc)
        if rule.alpha is not None:
            pos = t ** rule.alpha / (t ** rule.alpha + 1)
            if rule.plus:
                acc *= pos
            else:
                assert rule.beta is not None, "a discount of positive regrets needs beta"
                neg = t ** rule.beta / (t ** rule.beta + 1)
                acc *= np.where(acc > 0, pos, neg)
        if rule.predictive:
            w = acc + r
            return np.maximum(w, 0.0, out=w)
        return acc if rule.plus else np.maximum(acc, 0.0)

    def _accumulate(self, pl: PlayerArrays) -> None:
        w = float(self.t) ** self.rule.gamma
        if pl.flows.size:
            pl.throw_avg += w * pl.flows
        pl.seq_avg += w * pl.seq

    def iterate(self) -> None:
        if self._compiled is not None:
            self.run(1)
            return
        self.t += 1
        self.weight_sum += float(self.t) ** self.rule.gamma
        cap, opp = self.players
        if self.alternating:
            self._update(cap, self._backward(cap, opp))
            self._update(opp, self._backward(opp, cap))
        else:
            rc, ro = self._backward(cap, opp), self._backward(opp, cap)
            self._update(cap, rc)
            self._update(opp, ro)

    # --- exact exploitability of the average, vectorized -------------------------------------

    def average_exploitability(self) -> float:
        """Exploitability of the average strategy by a vectorized exact best response.

        The average realization plan is the accumulated one divided by the total weight,
        so no behaviour strategy is formed. About the cost of one iteration: a cheap
        trigger for the stopping test, which `solve_cfr` confirms with
        `solver.hand.best_response` before it stops.
        """
        cap, opp = self.players
        lay = self.lay
        values = []
        for pl, other in ((cap, opp), (opp, cap)):
            leaf = np.take(other.seq_avg.reshape(-1, lay.n), lay.leaf_edge, axis=0)
            leaf /= self.weight_sum
            values.append(self._best_response_value(pl.role, leaf))
        return (values[0] + values[1]) / 2

    def _best_response_value(self, role: int, other_leaf_reach: np.ndarray) -> float:
        lay = self.lay
        T = lay.T
        L = lay.num_leaves
        V = self._values
        self._leaf_values(role, other_leaf_reach, V)
        own = (lay.node_actor == role)[:, None]
        for s, e, rows, _ in reversed(lay.layers):
            c = np.take(V, rows, axis=0)
            V[L + s:L + e] = np.where(own[s:e], (c + lay.invalid[:, s:e]).max(axis=0),
                                      c.sum(axis=0))
        stop = self._stop_values(role)
        v = stop[T - 1]
        for t in range(T - 2, -1, -1):
            q = np.empty((lay.legal.shape[0],) + v.shape)
            q[0] = stop[t]
            q[1:] = (v @ lay.outcome_t).T[:, :, None]
            v = (q + lay.illegal).max(axis=0)
        return float((v @ lay.prior).sum())

    # --- results ----------------------------------------------------------------------------

    def average_strategy(self) -> Strategy:
        return self._strategy(lambda pl: (pl.throw_avg, pl.seq_avg[:, pl.own]))

    def current_strategy(self) -> Strategy:
        return self._strategy(lambda pl: (pl.throw_sigma, pl.bet_sigma))

    def _strategy(self, pick) -> Strategy:
        lay = self.lay
        throws, betting = [], {}
        for pl in self.players:
            throw, bet = pick(pl)
            probs = normalized(throw * pl.throw_legal, pl.throw_uniform, axis=1)
            throws.append(np.ascontiguousarray(probs.transpose(2, 0, 1, 3)[..., lay.inv]))
            probs = normalized(bet * pl.bet_valid, pl.bet_uniform, axis=0)[..., lay.inv]
            for row, d in enumerate(pl.own):
                betting[lay.node_key[d]] = probs[:lay.node_k[d], row].copy()
        return Strategy((throws[0], throws[1]), betting)


# --- the solver ---------------------------------------------------------------------------------

class _Checker:
    """Exact exploitability by `solver.hand.best_response`, leaf matrices built once."""

    def __init__(self, model: HandModel):
        self.model = model
        self.leaves = best_response.leaf_matrices(model)

    def __call__(self, strategy: Strategy) -> best_response.Exploitability:
        m, leaves = self.model, self.leaves
        return best_response.Exploitability(
            value=best_response.policy_value(m, strategy, leaves),
            captain_guaranteed=-best_response.best_response(m, strategy, OPPONENT, leaves).value,
            captain_best=best_response.best_response(m, strategy, CAPTAIN, leaves).value)


def _exact_schedule(check_every: int | None, cap: int) -> Callable[[int], int]:
    """The first iteration after `it` with an exact check: every `check_every`, or 10, 20,
    40, ... (doubling); always `cap`, the last one."""
    if check_every is not None:
        return lambda it: min(cap, (it // check_every + 1) * check_every)
    marks = [cap]
    x = 10
    while x < cap:
        marks.append(x)
        x *= 2
    marks.sort()
    return lambda it: marks[bisect.bisect_right(marks, it)]


# Far from the target (above TRIGGER_FAR times it) the average strategy is assumed to close
# in on it no faster than like 1/t^TRIGGER_RATE (CFR+ and PCFR+ go as 1/t to 1/t^2 here), so
# the next vectorized check can wait (`_trigger_interval`). Near it the exploitability
# oscillates (PCFR+ went from 1.43e-6 to 1e-6 in 5% more iterations) and checks stay at 1%.
TRIGGER_RATE, TRIGGER_FAR = 3.0, 2.0


def _trigger_interval(it: int, exploitability: float | None = None,
                      target: float | None = None) -> int:
    """Iterations between two vectorized checks: about 1% of the run, at least 5; and, when
    the last check saw `exploitability` above `target`, at least as many as it takes
    exploitability * (it / t)^TRIGGER_RATE to reach the target, if it is TRIGGER_FAR times
    the target or more."""
    step = max(5, it // 100)
    if exploitability is not None and target is not None and target > 0 \
            and exploitability > TRIGGER_FAR * target:
        step = max(step, int(it * ((exploitability / target) ** (1 / TRIGGER_RATE) - 1)))
    return step


def solve_cfr(model: HandModel, method: str, iterations: int | None = None,
              target_exploitability: float | None = None, progress: Step | None = None,
              check_every: int | None = None, *, alternating: bool = True,
              averaging: str | None = None, showdown: str = "dense",
              rule: Rule | None = None, engine: str | None = None) -> Solution:
    """Run a CFR method on `model` until `iterations` or `target_exploitability`.

    method: "cfr" (regret matching, uniform averaging), "cfr+" (RM+, linear averaging),
    "dcfr" (alpha 1.5, beta 0, gamma 2) or "pcfr+" (predictive RM+, weights t^5).
    Updates alternate between the players unless `alternating=False`; `averaging`
    ("uniform", "linear", "quadratic") overrides the method's default weights; `showdown`
    ("dense" or "cumsum") picks how showdown values are computed (same numbers) by the
    numpy engine; `engine` is "compiled" (the C kernel, the default when it was built) or
    "numpy".

    Checks. The exploitability that is reported, recorded in `history` (iteration,
    seconds, exploitability) and announced as `progress(f"{method}: exploitability {e}",
    iteration, iteration cap)` is always `solver.hand.best_response`'s, on the average
    strategy: every `check_every` iterations, or by default at iterations 10, 20, 40, ...
    and at the last one. With a target and the default schedule, a vectorized exact best
    response on the average realization plan (equal to `best_response`'s to rounding, and
    ~30 times cheaper) is also evaluated every ~2% of the iterations; when it reaches the
    target, `best_response` confirms before the solver stops. With neither a limit nor a
    target the target is 1e-6, with a cap of DEFAULT_MAX_ITERATIONS iterations.
    """
    _check_arguments(method, iterations, target_exploitability, check_every, averaging)
    if iterations is None and target_exploitability is None:
        target_exploitability = DEFAULT_TARGET
    cap = iterations if iterations is not None else DEFAULT_MAX_ITERATIONS
    if engine is None:
        engine = "compiled" if cfr_kernel.available() else "numpy"
    start = time.perf_counter()
    rule = rule or RULES[method]
    if averaging is not None:
        rule = dataclasses.replace(rule, gamma=AVERAGING[averaging])
    runner = CFRSolver(model, rule, alternating=alternating, showdown=showdown, engine=engine)
    watch = _Watch(_Checker(model), runner, start, target_exploitability,
                   progress or quiet, f"{method}: exploitability", cap)
    converged = _run(runner, watch, _exact_schedule(check_every, cap),
                     use_trigger=target_exploitability is not None and check_every is None)
    return _solution(model, method, engine, runner, watch, converged)


def _check_arguments(method: str, iterations: int | None, target: float | None,
                     check_every: int | None, averaging: str | None) -> None:
    if method not in METHODS:
        raise ValueError(f"CFR method must be one of {', '.join(METHODS)}, got {method!r}")
    if averaging not in (None, *AVERAGING):
        raise ValueError(f"averaging must be uniform, linear or quadratic, got {averaging!r}")
    if iterations is not None and (isinstance(iterations, bool) or iterations < 1):
        raise ValueError(f"iterations must be at least 1, got {iterations}")
    if target is not None and not target >= 0:
        raise ValueError(f"target_exploitability must be >= 0, got {target}")
    if check_every is not None and check_every < 1:
        raise ValueError(f"check_every must be at least 1, got {check_every}")


@dataclasses.dataclass
class _Watch:
    """The exact checks of a run: each one measured, recorded in `history` and announced."""

    checker: _Checker
    runner: CFRSolver
    start: float
    target: float | None
    progress: Step
    what: str                  # the start of each progress line
    cap: int
    history: list[tuple[int, float, float]] = dataclasses.field(default_factory=list)
    last: best_response.Exploitability | None = None

    def check(self) -> bool:
        """Measure the average strategy exactly; whether it reached the target."""
        result = self.checker(self.runner.average_strategy())
        self.last = result
        seconds = time.perf_counter() - self.start
        self.history.append((self.runner.t, seconds, result.exploitability))
        self.progress(f"{self.what} {result.exploitability:.3g}", self.runner.t, self.cap)
        return self.target is not None and result.exploitability <= self.target


def _run(runner: CFRSolver, watch: _Watch, next_exact: Callable[[int], int],
         use_trigger: bool) -> bool:
    """Iterate until the cap or a confirmed target; whether the target was reached.

    Exact checks come at `next_exact`'s iterations; between them, with `use_trigger`, the
    cheap vectorized one decides when an exact check is worth its cost."""
    target = watch.target
    next_trigger = _trigger_interval(0)
    while runner.t < watch.cap:
        due = next_exact(runner.t)
        runner.run((min(due, next_trigger) if use_trigger else due) - runner.t)
        it = runner.t
        if it == due:
            if watch.check():
                return True
            if use_trigger and it >= next_trigger:
                assert watch.last is not None
                next_trigger = it + _trigger_interval(it, watch.last.exploitability, target)
        elif use_trigger and it >= next_trigger:
            assert target is not None
            fast = runner.average_exploitability()
            next_trigger = it + _trigger_interval(it, fast, target)
            if fast <= target and watch.check():
                return True
    return False


def _solution(model: HandModel, method: str, engine: str, runner: CFRSolver, watch: _Watch,
              converged: bool) -> Solution:
    """The completed average strategy, measured once more, as a Solution."""
    strategy = best_response.complete_unreached(model, runner.average_strategy())
    final = watch.checker(strategy)
    seconds = time.perf_counter() - watch.start
    engine_name = "C kernel" if engine == "compiled" else "numpy engine"
    message = (f"{method} ({engine_name}): {runner.t} iterations, exploitability "
               f"{final.exploitability:.3g} "
               f"({'target reached' if converged else 'iteration limit'})")
    assert watch.last is not None                  # the last iteration is always checked
    drift = abs(final.exploitability - watch.last.exploitability)
    if drift > 1e-9 * max(1.0, abs(watch.last.exploitability)):
        # completing unreached decisions must not change the realization plan
        message += f"; completing unreached decisions changed it by {drift:.3g}"
    return Solution(
        model=model, method=method, value=final.value,
        status="converged" if converged else "iteration limit", converged=converged,
        message=message, seconds=seconds, iterations=runner.t, exploitability=final,
        strategy=strategy, history=tuple(watch.history))
