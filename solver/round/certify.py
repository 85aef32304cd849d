"""Proof of the round's numbers: every state's value bracketed in exact arithmetic.

Fix the solved stationary strategies (each stage's equilibrium, read as exact binary
fractions, and each open throw's optimal pure policies) and let one person, X, follow them
everywhere. The other person's best reply is then a Markov decision process over the
round's states (`W`): at a chip state he is captain or opponent, at an open throw the
player with few chips (`low`) or with all but one (`high`); a stage's step is the exact
best response of the hand (`certificate.exact_best_response`) with leaves paying his own
continuation values. Its values bound the game's from both sides:

    value(s) <= W(s, as captain)          (no captain does better against X's opponent)
    value(s) >= 1 - W(s, as opponent)     (X as captain concedes no more than that)

Upper bounds on W come from a super-solution: a rational function W+ with T(W+) <= W+
checked exactly at every state and role, T being the best-reply step. It is found in
floating point first (value iteration with policy evaluation, by components, as `solve`
does) and raised by a margin eta * D(state), D being the longest expected number of hands
a deviator can make the round last from there (itself a best reply, to "one more hand"):
a best reply moves on, in expectation, to states whose margins are smaller by eta, which
absorbs the rounding of the float fixed point. The check is exact; if it fails, eta grows,
and after a few tries the certificate gives up (`RoundCertificateError`) rather than
report a wrong interval.

Why a super-solution bounds every reply of the deviator: W+(state) is a supermartingale
along the play until the round ends, so for every reply, P(win) + E[W+ at the state where
play is after k hands; not ended] <= W+(start). When every reply ends the round with
probability 1 the second term vanishes, and that is proved exactly too
(`_prove_termination`: the deviator's decision process has no end component, no set of
states in which he could keep play forever). D only sizes the margins: it is computed in
floating point, and the certificate fails if it diverges. `p_end` reports the probability
that the round ends for the solved strategies against each other (it must be 1).

Open throws are perfect-information and X's policy there is optimal for the continuation
c* it was solved with, so a deviator facing it with another continuation c gets at most
v*(c*) + max(0, c - c*) (his value's slope in c is a probability): exact, no search.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver import best_response
from solver.certificate import exact_best_response
from solver.round.open_throw import least_end_chance, reply_to_open_throw
from solver.round.solve import RoundSolution
from solver.round.stage import stage_model, transitions
from solver.round.states import (
    ChipState,
    Next,
    OpenThrow,
    State,
    after_open_throw,
    state_graph,
)

ETAS = (Fraction(1, 10 ** 14), Fraction(1, 10 ** 12), Fraction(1, 10 ** 10))
MAX_DURATION = 1e6          # hands: a deviator who can make the round last longer fails
OPEN_LEAK = 1.25            # see `_open_duration`
FLOAT_STOP = 1e-15
OPEN_NEAR = 1e-9            # see `_open_piece`
MAX_SWEEPS = 200

# Roles of the deviator: at a chip state captain (FIRST) or opponent (SECOND); at an open
# throw the first thrower, low (FIRST) or high (SECOND).
FIRST, SECOND = 0, 1


class RoundCertificateError(RuntimeError):
    """The solved strategies could not be proved: no interval is reported."""


@dataclasses.dataclass(frozen=True)
class StateProof:
    """What is proved of one state: lower <= value <= upper (exact), and how much each side
    could gain by deviating from the solved strategies (win probability)."""

    lower: Fraction
    upper: Fraction
    first_exploitability: float       # what the captain (low) could gain by deviating
    second_exploitability: float      # what the opponent (high) could gain
    p_end: float                      # P(the round ends) when both follow the strategies

    @property
    def width(self) -> Fraction:
        return self.upper - self.lower


@dataclasses.dataclass(frozen=True)
class RoundCertificate:
    states: dict[State, StateProof]
    margin: Fraction


def _deviator_value(nxt: Next, deviator_is_here: bool, W: dict) -> float | Fraction:
    """The deviator's win probability after `nxt`, seen from the person whose hand it was
    (`deviator_is_here`: the deviator is that person)."""
    if nxt.state is None:
        return nxt.end if deviator_is_here else 1 - nxt.end
    return W[(nxt.state, nxt.seat(deviator_is_here))]


def _open_bound(solution: RoundSolution, state: OpenThrow, role: int, W: dict,
                exact: bool) -> float | Fraction:
    """The deviator's best value at an open throw, against X's solved policy."""
    if exact:
        star = solution.open_throws[state]
        low = reply_to_open_throw(solution.params.hand, _open_continuation(solution, state,
                                                                           role, W),
                                  star.solved, deviator_is_low=role == FIRST).value
        return low if role == FIRST else 1 - low
    constant, slope = _open_piece(solution, state, role, W)
    nxt = after_open_throw(solution.params.chips, state)
    return min(1.0, constant + slope * _deviator_value(nxt, role == FIRST, W))


def _open_continuation(solution: RoundSolution, state: OpenThrow, role: int, W: dict):
    """The low player's continuation (his value if the high player wins the throw): the
    deviator's when he is low (FIRST), X's otherwise."""
    nxt = after_open_throw(solution.params.chips, state)
    if role == FIRST:
        return _deviator_value(nxt, True, W)
    return 1 - _deviator_value(nxt, False, W)


def _open_piece(solution: RoundSolution, state: OpenThrow, role: int, W: dict
                ) -> tuple[float, float]:
    """In floating point, the deviator's value at an open throw as constant + slope x his
    value after it, the piece in force at W. Near X's own continuation c* the bound
    v* + max(0, c - c*) (his value's slope in c is a probability) is tight and free; away
    from it (X is not playing the round's equilibrium elsewhere) the deviator's exact best
    reply is solved and its probabilities give the piece."""
    star = solution.open_throws[state]
    c = min(1.0, max(0.0, float(_open_continuation(solution, state, role, W))))
    c_star, v_star = float(star.continuation), star.value
    if abs(c - c_star) > OPEN_NEAR:
        reply = reply_to_open_throw(solution.params.hand, Fraction(c), star.solved,
                                    deviator_is_low=role == FIRST)
        p_low = float(reply.p_l_wins)
        # low: p_low + (1 - p_low) c; high: wins only if the throw goes on, then has his value
        return (p_low, 1 - p_low) if role == FIRST else (0.0, 1 - p_low)
    if role == FIRST:
        return (v_star - c_star, 1.0) if c > c_star else (v_star, 0.0)
    # 1 - (v* + min(0, c - c*)), c being 1 - the deviator's value after the throw
    return (c_star - v_star, 1.0) if c < c_star else (1 - v_star, 0.0)


def _stage_step(solution: RoundSolution, state: ChipState, role: int, W: dict,
                exact: bool):
    """The deviator's best value at a chip state (and, in floats, his best reply)."""
    stage = solution.stages[state]
    chips = solution.params.chips
    if role == FIRST:
        def value(nxt):
            return _deviator_value(nxt, True, W)
    else:
        def value(nxt):
            return 1 - _deviator_value(nxt, False, W)      # paid to X, the captain
    base = stage.model
    model = stage_model(base, chips, state, value)
    player = CAPTAIN if role == FIRST else OPPONENT
    if exact:
        best = exact_best_response(model, stage.strategy, player)
        return best if role == FIRST else 1 + best            # opponent's payoff is -x
    br = best_response.best_response(model, stage.strategy, player)
    v = br.value if role == FIRST else 1 + br.value
    return v, model, br


def _float_values(solution: RoundSolution) -> dict:
    """The deviator's best-reply values in floating point, component by component."""
    W: dict = {}
    for component in solution.components:
        keys = [(s, r) for s in component for r in (FIRST, SECOND)]
        for key in keys:
            W.setdefault(key, solution.values[key[0]] if key[1] == FIRST
                         else 1 - solution.values[key[0]])
        for _ in range(MAX_SWEEPS):
            replies = {}
            change = 0.0
            for s, r in keys:
                if isinstance(s, OpenThrow):
                    new = _open_bound(solution, s, r, W, exact=False)
                else:
                    new, model, br = _stage_step(solution, s, r, W, exact=False)
                    replies[(s, r)] = (model, br)
                change = max(change, abs(new - W[(s, r)]))
                W[(s, r)] = new
            if change <= FLOAT_STOP:
                break
            _policy_evaluation(solution, keys, replies, W)
    return W


def _policy_evaluation(solution, keys, replies, W, plus_one: bool = False) -> None:
    """Hold the deviator's replies fixed and solve for his values (a linear system over
    the component; open throws enter through the piece of their bound in force at W).
    With `plus_one` every hand counts 1 and the round's end 0: expected hands to the end."""
    index = {key: i for i, key in enumerate(keys)}
    k = len(keys)
    M, r = np.zeros((k, k)), np.zeros(k)
    chips = solution.params.chips

    def add(i: int, nxt: Next, here: bool, p: float, slope: float = 1.0) -> None:
        if nxt.state is None:
            r[i] += 0.0 if plus_one else p * (nxt.end if here else 1 - nxt.end)
            return
        target = (nxt.state, nxt.seat(here))
        if target in index:
            M[i, index[target]] += p * slope
        else:
            r[i] += p * slope * W[target]

    for (s, role), i in index.items():
        if isinstance(s, OpenThrow):
            nxt = after_open_throw(chips, s)
            star = solution.open_throws[s]
            if plus_one:
                r[i] += 1 / (1 - float(star.p_tie))
                add(i, nxt, role == FIRST, OPEN_LEAK * (1 - star.p_low_wins))
                continue
            constant, slope = _open_piece(solution, s, role, W)    # in force at W
            r[i] += constant
            if slope:
                add(i, nxt, role == FIRST, slope)
            continue
        model, br = replies[(s, role)]
        mixed = solution.stages[s].strategy.copy()
        player = CAPTAIN if role == FIRST else OPPONENT
        mixed.throw[player][...] = br.throw
        mixed.betting.update(br.betting)
        if plus_one:
            r[i] += 1.0
        for nxt, p in transitions(model, chips, s, mixed).items():
            add(i, nxt, role == FIRST, p)
    try:
        solved = np.linalg.solve(np.eye(k) - M, r)
    except np.linalg.LinAlgError:
        return
    low, high = (1.0, MAX_DURATION) if plus_one else (-1e-9, 1 + 1e-9)
    if np.all(np.isfinite(solved)) and low <= solved.min() and solved.max() <= high:
        for key, i in index.items():   # else an improper reply (it never ends): iterate on
            W[key] = float(min(high, max(low, solved[i])))


def _durations(solution: RoundSolution) -> dict:
    """D(state, role): the longest expected number of hands (open-throw attempts counted)
    the deviator can make the round last, by value iteration with policy evaluation."""
    D: dict = {}
    chips = solution.params.chips
    for component in solution.components:
        keys = [(s, r) for s in component for r in (FIRST, SECOND)]
        for key in keys:
            D.setdefault(key, 1.0)
        for _ in range(MAX_SWEEPS):
            replies, change = {}, 0.0
            for s, role in keys:
                here = role == FIRST
                if isinstance(s, OpenThrow):
                    # the open throw's bound passes a continuation's margin on whole (slope
                    # 1): its own margin must cover it; an open throw that leads to an open
                    # throw (3 chips) is made consistent in `_settle_open_throws` instead
                    new = _open_duration(solution, s, here, D)
                else:
                    stage = solution.stages[s]
                    # paid to the captain: the deviator's duration, or minus it when he is
                    # the opponent (whose best response maximizes minus the captain's)
                    sign = 1 if here else -1
                    model = stage_model(stage.model, chips, s,
                                        lambda nxt, h=here, k=sign: k * _duration_of(nxt, h, D))
                    player = CAPTAIN if here else OPPONENT
                    br = best_response.best_response(model, stage.strategy, player)
                    new = 1 + br.value
                    replies[(s, role)] = (model, br)
                change = max(change, abs(new - D[(s, role)]) / max(1.0, new))
                D[(s, role)] = new
                if new > MAX_DURATION or not np.isfinite(new):
                    raise RoundCertificateError(
                        f"a deviator can make the round last {new:.3g} hands or more from "
                        f"{s.label()}: the bounds would not hold")
            if change <= 1e-12:
                break
            _policy_evaluation(solution, keys, replies, D, plus_one=True)
    return D


def _open_duration(solution: RoundSolution, state: OpenThrow, here: bool, D: dict) -> float:
    """Attempts at the open throw, then the hands after it when the high player wins it
    (weighted up by OPEN_LEAK: a deviator may make that likelier than the solved play)."""
    star = solution.open_throws[state]
    nxt = after_open_throw(solution.params.chips, state)
    return (1 / (1 - float(star.p_tie))
            + OPEN_LEAK * (1 - star.p_low_wins) * _duration_of(nxt, here, D))


def _duration_of(nxt: Next, here: bool, D: dict) -> float:
    if nxt.state is None:
        return 0.0
    return D[(nxt.state, nxt.seat(here))]


def _p_end(solution: RoundSolution) -> dict[State, float]:
    """P(the round ends) from each state when both follow the solved strategies: one minus
    the mass the Markov chain keeps forever among non-final states."""
    states = [s for component in solution.components for s in component]
    index = {s: i for i, s in enumerate(states)}
    k = len(states)
    M, r = np.zeros((k, k)), np.zeros(k)
    for s in states:
        if isinstance(s, OpenThrow):
            star = solution.open_throws[s]
            r[index[s]] += star.p_low_wins
            moves = {after_open_throw(solution.params.chips, s): 1 - star.p_low_wins}
        else:
            moves = transitions(solution.stages[s].model, solution.params.chips, s,
                                solution.stages[s].strategy)
        for nxt, p in moves.items():
            if nxt.state is None:
                r[index[s]] += p
            else:
                M[index[s], index[nxt.state]] += p
    # absorption probabilities: the least solution of x = r + M x, by iteration from 0 and
    # then a linear solve on the transient part (exact where I - M is invertible)
    try:
        x = np.linalg.solve(np.eye(k) - M, r)
    except np.linalg.LinAlgError:
        x = np.zeros(k)
        for _ in range(100_000):
            x = r + M @ x
    return {s: float(min(1.0, x[index[s]])) for s in states}


def _lasting_order(solution: RoundSolution) -> list[set]:
    """Layers of (state, deviator's role) from which the deviator cannot keep the round
    going with probability 1: the first layer against every state still in play, each
    next one against what the earlier layers left. Found with floating-point best responses
    where they are clear (`_can_stay`); `_prove_termination` checks each layer exactly."""
    graph = state_graph(solution.params.chips, solution.params.hand.max_level)
    remaining = {(s, r) for s in solution.values for r in (FIRST, SECOND)}
    candidates = set(remaining)
    layers = []
    while candidates:
        layer = {key for key in candidates if not _can_stay(solution, key, remaining, False)}
        if not layer:   # stuck in floating point: what is left, once in exact arithmetic
            layer = {key for key in remaining if not _can_stay(solution, key, remaining, True)}
        if not layer:
            break
        layers.append(layer)
        remaining -= layer
        # only a key whose state leads to a dropped state can fall next
        dropped = {s for s, _ in layer}
        candidates = {key for key in remaining
                      if any(t in dropped for t in graph.successors(key[0]))}
    return layers


def _can_stay(solution: RoundSolution, key: tuple, inside: set, exact: bool) -> bool:
    """Can the deviator play this hand (or open throw) so that, with probability 1, it
    neither ends the round nor leads out of `inside`? In a hand: his best response when
    leaving pays him -1 and staying 0 is 0. At an open throw: no, when every attempt ends
    the round with positive probability whatever he does (`least_end_chance`)."""
    s, role = key
    if isinstance(s, OpenThrow):
        star = solution.open_throws[s]
        return least_end_chance(solution.params.hand, star.solved, role == FIRST) == 0
    stage = solution.stages[s]
    here = role == FIRST
    sign = -1 if here else 1            # paid to the captain: -1 (or +1) when play leaves

    def leaves(nxt: Next) -> int:
        if nxt.state is None:
            return sign
        return 0 if (nxt.state, nxt.seat(here)) in inside else sign

    model = stage_model(stage.model, solution.params.chips, s, leaves)
    player = CAPTAIN if here else OPPONENT
    if not exact:
        # in floating point, clearly below 0 is leaving and about 0 is staying; in between
        # is decided exactly (a strategy may leave with a probability of 1e-13, which still
        # ends every round)
        value = best_response.best_response(model, stage.strategy, player).value
        if value < -1e-9 or value > -1e-15:
            return value > -1e-15
    return exact_best_response(model, stage.strategy, player) == 0


def _prove_termination(solution: RoundSolution) -> None:
    """Prove that every reply of the deviator ends the round with probability 1, which the
    super-solution's bound needs (a round that never ends is worth 1/2 to each player).

    A finite Markov decision process reaches its end with probability 1 under every policy
    when it has no end component: no set of states in which the deviator can stay forever
    with probability 1. Here the layers found in floating point are checked in exact
    arithmetic: no key of a layer can stay among the keys of the layers from it on (with
    the strategies read as exact binary fractions, as the bounds are). If every key falls in
    some layer, no set can hold the deviator forever: the first key of any such set to fall
    would have been able to stay within it."""
    layers = _lasting_order(solution)
    remaining = {(s, r) for s in solution.values for r in (FIRST, SECOND)}
    for layer in layers:
        for key in sorted(layer, key=lambda k: (k[0].label(), k[1])):
            if _can_stay(solution, key, remaining, True):
                raise RoundCertificateError(
                    f"the proof that every round ends failed at {key[0].label()}: a "
                    f"deviator might keep the round going forever")
        remaining -= layer
    if remaining:
        where = sorted(k[0].label() for k in remaining)[0]
        raise RoundCertificateError(
            f"a deviator can keep the round going forever from {where} and "
            f"{len(remaining) - 1} other (state, role) pairs: the bounds would not hold")


def certify_round(solution: RoundSolution) -> RoundCertificate:
    """Exact brackets for every state (see the module docstring); raises
    RoundCertificateError if no super-solution is verified, or if it cannot be proved that
    every reply ends the round."""
    _prove_termination(solution)
    W = _float_values(solution)
    D = _durations(solution)
    p_end = _p_end(solution)
    for margin in ETAS:
        upper = {key: min(Fraction(1), Fraction(v) + margin * Fraction(D[key]))
                 for key, v in W.items()}
        if all(_verified(solution, key, upper) for key in upper):
            break
    else:
        raise RoundCertificateError(
            "no exact super-solution found for the deviator's best reply: the solved "
            "strategies are not close enough to an equilibrium to be proved")
    out = {}
    for s in solution.values:
        first, second = upper[(s, FIRST)], upper[(s, SECOND)]
        lower, high = 1 - second, first
        if lower > high:
            raise RoundCertificateError(f"the bounds of {s.label()} cross: a proof is wrong")
        v = solution.values[s]
        out[s] = StateProof(lower, high, max(0.0, W[(s, FIRST)] - v),
                            max(0.0, W[(s, SECOND)] - (1 - v)), p_end[s])
    return RoundCertificate(out, margin)


def _verified(solution: RoundSolution, key: tuple, upper: dict) -> bool:
    s, role = key
    if isinstance(s, OpenThrow):
        step = _open_bound(solution, s, role, upper, exact=True)
    else:
        step = _stage_step(solution, s, role, upper, exact=True)
    return step <= upper[key]
