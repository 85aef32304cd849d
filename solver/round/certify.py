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
from typing import Callable, Mapping

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.hand import best_response
from solver.hand.best_response import BestResponse
from solver.hand.exact.certificate import exact_best_response
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy
from solver.round import markov
from solver.round.open_throw import least_end_chance, reply_to_open_throw
from solver.round.solve import RoundSolution
from solver.round.stage import stage_model, transitions
from solver.round.states import (
    ChipState,
    Next,
    OpenThrowState,
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

Key = tuple[State, int]                 # (state, the deviator's role)
Floats = dict[Key, float]               # the deviator's values (or durations) by key
Exacts = Mapping[Key, Fraction]
Replies = dict[Key, tuple[HandModel, BestResponse]]


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


def _deviator_value(nxt: Next, deviator_is_here: bool, W: Mapping[Key, float]) -> float:
    """The deviator's win probability after `nxt`, seen from the person whose hand it was
    (`deviator_is_here`: the deviator is that person), in floating point."""
    if nxt.state is None:
        assert nxt.end is not None
        return nxt.end if deviator_is_here else 1 - nxt.end
    return W[(nxt.state, nxt.seat(deviator_is_here))]


def _exact_deviator_value(nxt: Next, deviator_is_here: bool, W: Exacts) -> Fraction:
    """`_deviator_value` in exact arithmetic."""
    if nxt.state is None:
        assert nxt.end is not None
        return Fraction(nxt.end if deviator_is_here else 1 - nxt.end)
    return W[(nxt.state, nxt.seat(deviator_is_here))]


def _exact_open_bound(solution: RoundSolution, state: OpenThrowState, role: int,
                      W: Exacts) -> Fraction:
    """The deviator's best value at an open throw against X's solved policy, exactly: his
    one-sided best reply for the continuation W gives him."""
    star = solution.open_throws[state]
    nxt = after_open_throw(state)
    if role == FIRST:
        continuation = _exact_deviator_value(nxt, True, W)
    else:
        continuation = 1 - _exact_deviator_value(nxt, False, W)
    low = reply_to_open_throw(solution.params.hand, continuation, star.solved,
                              deviator_is_low=role == FIRST).value
    return low if role == FIRST else 1 - low


def _float_open_bound(solution: RoundSolution, state: OpenThrowState, role: int,
                      W: Floats) -> float:
    """The deviator's best value at an open throw against X's solved policy, in floating
    point (the piece of the bound in force at W)."""
    constant, slope = _open_piece(solution, state, role, W)
    nxt = after_open_throw(state)
    return min(1.0, constant + slope * _deviator_value(nxt, role == FIRST, W))


def _open_continuation(state: OpenThrowState, role: int, W: Floats) -> float:
    """The low player's continuation (his value if the high player wins the throw): the
    deviator's when he is low (FIRST), X's otherwise."""
    nxt = after_open_throw(state)
    if role == FIRST:
        return _deviator_value(nxt, True, W)
    return 1 - _deviator_value(nxt, False, W)


def _open_piece(solution: RoundSolution, state: OpenThrowState, role: int, W: Floats
                ) -> tuple[float, float]:
    """In floating point, the deviator's value at an open throw as constant + slope x his
    value after it, the piece in force at W. Near X's own continuation c* the bound
    v* + max(0, c - c*) (his value's slope in c is a probability) is tight and free; away
    from it (X is not playing the round's equilibrium elsewhere) the deviator's exact best
    reply is solved and its probabilities give the piece."""
    star = solution.open_throws[state]
    c = min(1.0, max(0.0, float(_open_continuation(state, role, W))))
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


def _deviator_stage(solution: RoundSolution, state: ChipState, role: int,
                    value: Callable[[Next, bool], float | Fraction]) -> HandModel:
    """The stage game of `state` paying the captain what the deviator's values say:
    `value(next, True)` his own if he is captain, else one minus X's (X is captain)."""
    if role == FIRST:
        def pay(nxt: Next) -> float | Fraction:
            return value(nxt, True)
    else:
        def pay(nxt: Next) -> float | Fraction:
            return 1 - value(nxt, False)      # paid to X, the captain
    return stage_model(solution.stages[state].model, state, pay)


def _exact_stage_step(solution: RoundSolution, state: ChipState, role: int,
                      W: Exacts) -> Fraction:
    """The deviator's best value at a chip state, exactly."""
    model = _deviator_stage(solution, state, role,
                            lambda nxt, here: _exact_deviator_value(nxt, here, W))
    player = CAPTAIN if role == FIRST else OPPONENT
    best = exact_best_response(model, solution.stages[state].strategy, player)
    return best if role == FIRST else 1 + best            # opponent's payoff is -x


def _float_stage_step(solution: RoundSolution, state: ChipState, role: int, W: Floats
                      ) -> tuple[float, HandModel, BestResponse]:
    """The deviator's best value at a chip state in floating point, the stage game it was
    found in, and his best reply there."""
    model = _deviator_stage(solution, state, role,
                            lambda nxt, here: _deviator_value(nxt, here, W))
    player = CAPTAIN if role == FIRST else OPPONENT
    br = best_response.best_response(model, solution.stages[state].strategy, player)
    v = br.value if role == FIRST else 1 + br.value
    return v, model, br


def _float_values(solution: RoundSolution) -> Floats:
    """The deviator's best-reply values in floating point, component by component."""
    W: Floats = {}
    for component in solution.components:
        keys = [(s, r) for s in component for r in (FIRST, SECOND)]
        for key in keys:
            W.setdefault(key, solution.values[key[0]] if key[1] == FIRST
                         else 1 - solution.values[key[0]])
        for _ in range(MAX_SWEEPS):
            replies: Replies = {}
            change = 0.0
            for s, r in keys:
                if isinstance(s, OpenThrowState):
                    new = _float_open_bound(solution, s, r, W)
                else:
                    new, model, br = _float_stage_step(solution, s, r, W)
                    replies[(s, r)] = (model, br)
                change = max(change, abs(new - W[(s, r)]))
                W[(s, r)] = new
            if change <= FLOAT_STOP:
                break
            W.update(_reply_values(solution, keys, replies, W))
    return W


def _reply_moves(solution: RoundSolution, state: ChipState, role: int,
                 reply: tuple[HandModel, BestResponse]) -> dict[Next, float]:
    """Where the hand at `state` leads when the deviator plays his best reply and X the
    solved stage strategy."""
    model, br = reply
    mixed = solution.stages[state].strategy.copy()
    player = CAPTAIN if role == FIRST else OPPONENT
    mixed.throw[player][...] = br.throw
    mixed.betting.update(br.betting)
    return transitions(model, state, mixed)


def _reply_values(solution: RoundSolution, keys: list[Key], replies: Replies,
                  W: Floats) -> Floats:
    """The deviator's values with his replies held fixed (a linear system over the
    component; open throws enter through the piece of their bound in force at W), or
    nothing if the replies do not end the round (iterate on instead)."""
    rows = _reply_rows(solution, keys, replies, 0.0,
                       lambda s, role: _open_piece(solution, s, role, W),
                       lambda nxt, here: _deviator_value(nxt, here, W))
    return _plausible(rows, -1e-9, 1 + 1e-9)


def _reply_durations(solution: RoundSolution, keys: list[Key], replies: Replies,
                     D: Floats) -> Floats:
    """The expected hands to the round's end with the deviator's replies held fixed (every
    hand counts 1, the round's end 0), or nothing if they do not end the round."""
    def open_row(s: OpenThrowState, role: int) -> tuple[float, float]:
        star = solution.open_throws[s]        # as `_open_duration`
        return 1 / (1 - float(star.p_tie)), OPEN_LEAK * (1 - star.p_low_wins)

    rows = _reply_rows(solution, keys, replies, 1.0, open_row,
                       lambda nxt, here: _duration_of(nxt, here, D))
    return _plausible(rows, 1.0, MAX_DURATION)


def _reply_rows(solution: RoundSolution, keys: list[Key], replies: Replies, per_hand: float,
                open_row: Callable[[OpenThrowState, int], tuple[float, float]],
                outside: Callable[[Next, bool], float]) -> dict[Key, list[markov.Term[Key]]]:
    """The rows of the linear system that holds the deviator's replies fixed over a
    component, shared by his values and his durations: each key's own amount (`per_hand`
    at a hand; at an open throw the constant of `open_row`, whose slope weighs the state
    after it), then where the reply leads. A key of the component is a term of the system;
    anything else (another component, the round's end) is a known number, `outside`."""
    inside = set(keys)
    rows: dict[Key, list[markov.Term[Key]]] = {}
    for s, role in keys:
        here = role == FIRST
        if isinstance(s, OpenThrowState):
            own, slope = open_row(s, role)
            moves = {after_open_throw(s): slope}
        else:
            own, moves = per_hand, _reply_moves(solution, s, role, replies[(s, role)])
        row: list[markov.Term[Key]] = [(None, own)]
        for nxt, p in moves.items():
            target = None if nxt.state is None else (nxt.state, nxt.seat(here))
            row.append((target, p) if target in inside else (None, p * outside(nxt, here)))
        rows[(s, role)] = row
    return rows


def _plausible(rows: dict[Key, list[markov.Term[Key]]], low: float, high: float) -> Floats:
    """The chain's solution clipped to [low, high], or nothing when it is singular, not
    finite or out of range (an improper reply, one that never ends the round)."""
    try:
        solved = markov.solve(markov.chain(rows))
    except np.linalg.LinAlgError:
        return {}
    x = list(solved.values())
    if np.all(np.isfinite(x)) and low <= min(x) and max(x) <= high:
        return {key: float(min(high, max(low, v))) for key, v in solved.items()}
    return {}


def _durations(solution: RoundSolution) -> Floats:
    """D(state, role): the longest expected number of hands (open-throw attempts counted)
    the deviator can make the round last, by value iteration with policy evaluation."""
    D: Floats = {}
    for component in solution.components:
        keys = [(s, r) for s in component for r in (FIRST, SECOND)]
        for key in keys:
            D.setdefault(key, 1.0)
        for _ in range(MAX_SWEEPS):
            replies: Replies = {}
            change = 0.0
            for s, role in keys:
                here = role == FIRST
                if isinstance(s, OpenThrowState):
                    # the open throw's bound passes a continuation's margin on whole (slope
                    # 1): its own margin must cover it; an open throw that leads to an open
                    # throw (3 chips: to itself, seats swapped) is made consistent by these
                    # sweeps and its component's linear solve (`_reply_durations`)
                    new = _open_duration(solution, s, here, D)
                else:
                    new, replies[(s, role)] = _stage_duration(solution, s, here, D)
                change = max(change, abs(new - D[(s, role)]) / max(1.0, new))
                D[(s, role)] = new
                if new > MAX_DURATION or not np.isfinite(new):
                    raise RoundCertificateError(
                        f"a deviator can make the round last {new:.3g} hands or more from "
                        f"{s.label()}: the bounds would not hold")
            if change <= 1e-12:
                break
            D.update(_reply_durations(solution, keys, replies, D))
    return D


def _stage_duration(solution: RoundSolution, state: ChipState, here: bool, D: Floats
                    ) -> tuple[float, tuple[HandModel, BestResponse]]:
    """The longest expected duration the deviator can make of the hand at `state` and the
    hands after it (D), and his reply that does it."""
    stage = solution.stages[state]
    # paid to the captain: the deviator's duration, or minus it when he is the opponent
    # (whose best response maximizes minus the captain's)
    sign = 1 if here else -1
    model = stage_model(stage.model, state, lambda nxt: sign * _duration_of(nxt, here, D))
    player = CAPTAIN if here else OPPONENT
    br = best_response.best_response(model, stage.strategy, player)
    return 1 + br.value, (model, br)


def _open_duration(solution: RoundSolution, state: OpenThrowState, here: bool,
                   D: Floats) -> float:
    """Attempts at the open throw, then the hands after it when the high player wins it
    (weighted up by OPEN_LEAK: a deviator may make that likelier than the solved play)."""
    star = solution.open_throws[state]
    nxt = after_open_throw(state)
    return (1 / (1 - float(star.p_tie))
            + OPEN_LEAK * (1 - star.p_low_wins) * _duration_of(nxt, here, D))


def _duration_of(nxt: Next, here: bool, D: Floats) -> float:
    if nxt.state is None:
        return 0.0
    return D[(nxt.state, nxt.seat(here))]


def _p_end(solution: RoundSolution) -> dict[State, float]:
    """P(the round ends) from each state when both follow the solved strategies: one minus
    the mass the Markov chain keeps forever among non-final states."""
    rows: dict[State, list[markov.Term[State]]] = {}
    for component in solution.components:
        for s in component:
            if isinstance(s, OpenThrowState):
                star = solution.open_throws[s]
                rows[s] = [(None, star.p_low_wins)]
                moves = {after_open_throw(s): 1 - star.p_low_wins}
            else:
                rows[s] = []
                moves = transitions(solution.stages[s].model, s, solution.stages[s].strategy)
            # a move to the end of the round is collected (None: into r), others stay in M
            rows[s] += [(nxt.state, p) for nxt, p in moves.items()]
    # absorption probabilities: the least solution of x = r + M x, by a linear solve on the
    # transient part (exact where I - M is invertible), else by iteration from 0
    system = markov.chain(rows)
    try:
        x = markov.solve(system)
    except np.linalg.LinAlgError:
        x = markov.iterate(system, 100_000)
    return {s: float(min(1.0, v)) for s, v in x.items()}


def _lasting_order(solution: RoundSolution) -> list[set[Key]]:
    """Layers of (state, deviator's role) from which the deviator cannot keep the round
    going with probability 1: the first layer against every state still in play, each
    next one against what the earlier layers left. Found with floating-point best responses
    where they are clear (`_can_stay`); `_prove_termination` checks each layer exactly."""
    graph = state_graph(solution.params.chips, solution.params.hand.max_level)
    remaining = {(s, r) for s in solution.values for r in (FIRST, SECOND)}
    candidates = set(remaining)
    layers: list[set[Key]] = []
    while candidates:
        layer = {key for key in candidates if not _can_stay(solution, key, remaining)}
        if not layer:   # stuck in floating point: what is left, once in exact arithmetic
            layer = {key for key in remaining
                     if not _can_stay_exactly(solution, key, remaining)}
        if not layer:
            break
        layers.append(layer)
        remaining -= layer
        # only a key whose state leads to a dropped state can fall next
        dropped = {s for s, _ in layer}
        candidates = {key for key in remaining
                      if any(t in dropped for t in graph.successors(key[0]))}
    return layers


def _stays_at_open_throw(solution: RoundSolution, state: OpenThrowState, role: int) -> bool:
    """At an open throw the deviator can stay only if some attempt of his ends the round
    with probability 0 (`least_end_chance`, exact)."""
    star = solution.open_throws[state]
    return least_end_chance(solution.params.hand, star.solved, role == FIRST) == 0


def _leaving_game(solution: RoundSolution, state: ChipState, here: bool,
                  inside: set[Key]) -> HandModel:
    """The stage game of `state` paying the captain -1 (or +1 when the deviator is the
    opponent) when play ends the round or leaves `inside`, 0 when it stays."""
    sign = -1 if here else 1

    def leaves(nxt: Next) -> int:
        if nxt.state is None:
            return sign
        return 0 if (nxt.state, nxt.seat(here)) in inside else sign

    return stage_model(solution.stages[state].model, state, leaves)


def _can_stay_exactly(solution: RoundSolution, key: Key, inside: set[Key]) -> bool:
    """Can the deviator play this hand (or open throw) so that, with probability 1, it
    neither ends the round nor leads out of `inside`? In a hand: his best response when
    leaving pays him -1 and staying 0 is 0, in exact arithmetic. At an open throw: no,
    when every attempt ends the round with positive probability whatever he does."""
    return _can_stay(solution, key, inside, exactly=True)


def _can_stay(solution: RoundSolution, key: Key, inside: set[Key],
              exactly: bool = False) -> bool:
    """`_can_stay_exactly`, unless `exactly` decided in floating point where the answer is
    clear: clearly below 0 is leaving and about 0 is staying; in between is decided exactly
    (a strategy may leave with a probability of 1e-13, which still ends every round)."""
    s, role = key
    if isinstance(s, OpenThrowState):
        return _stays_at_open_throw(solution, s, role)
    here = role == FIRST
    model = _leaving_game(solution, s, here, inside)
    player = CAPTAIN if here else OPPONENT
    strategy = solution.stages[s].strategy
    if not exactly:
        value = best_response.best_response(model, strategy, player).value
        if value < -1e-9 or value > -1e-15:
            return value > -1e-15
    return exact_best_response(model, strategy, player) == 0


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
            if _can_stay_exactly(solution, key, remaining):
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


def _verified(solution: RoundSolution, key: Key, upper: Exacts) -> bool:
    """T(W+) <= W+ at `key`, checked exactly."""
    s, role = key
    if isinstance(s, OpenThrowState):
        step = _exact_open_bound(solution, s, role, upper)
    else:
        step = _exact_stage_step(solution, s, role, upper)
    return step <= upper[key]


# --- the deviator's best reply in floating point, for searches that compare strategies ---

def deviator_values(solution: RoundSolution) -> dict[Key, float]:
    """The deviator's best-reply values against the solved strategies, in floating point:
    the fixed point the certificate raises into its super-solution (`certify_round` proves
    the bounds; a search ranks candidate strategies by these, then proves its choice)."""
    return _float_values(solution)


def deviator_stage(solution: RoundSolution, state: ChipState, role: int,
                   W: Mapping[Key, float]) -> HandModel:
    """The stage game of `state` paying the captain what the deviator's continuation
    values W say (his own if he is captain, else one minus them): a search that tries many
    strategies at one state against one W builds it once."""
    return _deviator_stage(solution, state, role,
                           lambda nxt, here: _deviator_value(nxt, here, W))


def deviator_step(model: HandModel, strategy: Strategy, role: int) -> float:
    """The deviator's best value in a `deviator_stage` game against `strategy` (one step
    of the value iteration, in floating point)."""
    player = CAPTAIN if role == FIRST else OPPONENT
    value = best_response.best_response(model, strategy, player).value
    return value if role == FIRST else 1 + value


def deviator_moves(solution: RoundSolution, W: Mapping[Key, float]
                   ) -> dict[Key, dict[Key | None, float]]:
    """Where the deviator's best reply to the continuation W leads from every (state,
    role), with probabilities (None: the round ends): his stage best response against
    the solved strategy, at an open throw the slope of the piece of its bound in force.
    A search weighs a change at each key by how often this reply visits it."""
    values = dict(W)
    out: dict[Key, dict[Key | None, float]] = {}
    for s in solution.values:
        for role in (FIRST, SECOND):
            here = role == FIRST
            if isinstance(s, OpenThrowState):
                _, slope = _open_piece(solution, s, role, values)
                moves = {after_open_throw(s): slope}
            else:
                _, model, br = _float_stage_step(solution, s, role, values)
                moves = _reply_moves(solution, s, role, (model, br))
            row: dict[Key | None, float] = {}
            for nxt, p in moves.items():
                target = None if nxt.state is None else (nxt.state, nxt.seat(here))
                row[target] = row.get(target, 0.0) + p
            out[(s, role)] = row
    return out
