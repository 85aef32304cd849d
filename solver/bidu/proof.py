"""The value of the two-player vuelta, replay included, proved in exact arithmetic.

A stationary strategy of the captain guarantees him, against every strategy of the other
player, replays and all, the fixed point W0 of L(x) = min over the other's replies of
(c + p x): c his payoff from the vueltas that end, p the chance of a replay, x the worth of
the replay (a one-state stochastic game: the other player's best reply to a stationary
strategy is a stationary one, and p < 1 for every reply once the captain bets at all). L is
a minimum of lines of slope p < 1, so L(x) - x decreases and has one root: Newton's method
on L (each step: the other's best reply at x, exactly, and the root of its line
c / (1 - p)) moves monotonically and ends, in finitely many steps, at W0 exactly. The same
for the other player's strategy gives W1; then W0 <= V <= W1 for the value V of the vuelta.

Everything is integers: each probability of the two strategies is rounded to a multiple of
2^-53 (each decision still sums to exactly 1), the dice's chances are counts over faces^3,
and the payoffs are whole chips. Nothing is shared with the LP (solver/bidu/sequence_form.py)
but the model: the best replies walk the betting trees and the throws by backward
induction.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np

from games.bidu import betting
from solver.bidu.model import Pub, VueltaModel
from solver.bidu.sequence_form import Behaviour
from solver.common.errors import SolverError

__all__ = ["ExactBehaviour", "Line", "best_line", "exact_behaviour", "guaranteed", "pair_line",
           "Q", "stand_weights"]

Q_BITS = 53
Q = 1 << Q_BITS                    # exact probabilities are integers over Q
MAX_NEWTON_STEPS = 200


@dataclasses.dataclass(frozen=True)
class ExactBehaviour:
    """A seat's strategy in integers over Q: `stand[(t, pub)]` a list over hands (the
    chance of standing, times Q), `bets[stands][node]` an object array actions x hands
    whose columns sum to Q."""

    seat: int
    stand: dict
    bets: dict


def _exact_columns(probs: np.ndarray) -> np.ndarray:
    """Columns of probabilities as integers over Q summing to Q exactly: each rounded
    down, the largest of each column taking up the remainder."""
    probs = np.clip(np.nan_to_num(np.asarray(probs, dtype=np.float64)), 0.0, 1.0)
    sums = probs.sum(axis=0, keepdims=True)
    probs = probs / np.where(sums > 0, sums, 1.0)
    ints = np.floor(probs * Q).astype(np.int64)
    top = probs.argmax(axis=0)
    cols = np.arange(probs.shape[1])
    ints[top, cols] += Q - ints.sum(axis=0)
    out = np.empty(ints.shape, dtype=object)
    out[...] = [[int(v) for v in row] for row in ints]
    return out


def exact_behaviour(behaviour: Behaviour) -> ExactBehaviour:
    """`behaviour` rounded to integers over Q, every decision summing to Q exactly."""
    stand = {key: list(_exact_columns(np.vstack([p, 1.0 - p]))[0])
             for key, p in behaviour.stand.items()}
    bets = {stands: {node: _exact_columns(probs) for node, probs in nodes.items()}
            for stands, nodes in behaviour.bets.items()}
    return ExactBehaviour(behaviour.seat, stand, bets)


@dataclasses.dataclass(frozen=True)
class Line:
    """The captain's expected payoff c / d + (p / d) x of a strategy pair whose replay is
    worth x: c from the vueltas that end, p the chance of a replay (times d)."""

    c: int
    p: int
    d: int

    def at(self, worth: Fraction) -> Fraction:
        return Fraction(self.c, self.d) + Fraction(self.p, self.d) * worth

    def root(self) -> Fraction:
        if self.p >= self.d:
            raise SolverError("a reply never lets the vuelta end (nobody ever bets): the "
                              "vuelta has no value against this strategy")
        return Fraction(self.c, self.d - self.p)


def stand_weights(model: VueltaModel, fixed: ExactBehaviour) -> tuple[dict, int]:
    """The fixed seat's weight of standing at (t, pub) with each hand, chances included,
    as integers over the returned denominator (faces^3 Q)^throws."""
    cube = model.params.faces ** 3
    counts = [int(c * cube) for c in model.chances]
    last = model.throws
    scale = (cube * Q) ** last
    seat = fixed.seat
    throwing: dict[tuple[int, Pub], Fraction] = {(1, pub): Fraction(1)
                                                 for pub in model.pubs(seat, 1)}
    stands: dict[tuple[int, Pub], list[int]] = {}
    for t in range(1, last + 1):
        for pub in model.pubs(seat, t):
            if t > 1:
                before = (t - 1, model.previous_pub(seat, pub, t))
                throwing[(t, pub)] = sum(
                    (Fraction(n, cube) * Fraction(Q - s, Q)
                     for n, s in zip(counts, fixed.stand[before])), Fraction(0)
                ) * throwing[before]
            rate = fixed.stand[(t, pub)] if t < last else [Q] * len(counts)
            weights = [throwing[(t, pub)] * Fraction(n, cube) * Fraction(s, Q)
                       for n, s in zip(counts, rate)]
            stands[(t, pub)] = [_integer(w * scale) for w in weights]
    return stands, scale


def _integer(x: Fraction) -> int:
    if x.denominator != 1:
        raise SolverError("an exact weight is not an integer over its denominator")
    return x.numerator


def _depth(model: VueltaModel) -> int:
    """The most edges one seat takes on a way through a betting tree."""
    def deepest(tree, node: int, seat: int) -> int:
        if tree.to_act[node] is None:
            return 0
        own = 1 if tree.to_act[node] == seat else 0
        return own + max(deepest(tree, child, seat) for child in tree.children[node])
    return max(deepest(tree, 0, seat) for tree in model.trees for seat in (0, 1))


def best_line(model: VueltaModel, fixed: ExactBehaviour, worth: Fraction,
              reply: ExactBehaviour | None = None) -> Line:
    """The line of the other seat's best reply to `fixed` when the replay is worth
    `worth`: the captain's payoff is maximized if the other seat is the captain, else
    minimized. With `reply`, the line of that strategy of the other seat instead (`worth`
    then does not matter)."""
    responder = 1 - fixed.seat
    sign = 1 if responder == 0 else -1
    a, b = worth.numerator, worth.denominator
    hands = model.num_hands
    stands_mass, scale = stand_weights(model, fixed)
    depth = _depth(model)
    cube = model.params.faces ** 3
    counts = [int(ch * cube) for ch in model.chances]
    last = model.throws
    root: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
    for stands in model.stand_pairs():
        tree = model.tree(stands)
        mine, theirs = stands[fixed.seat], stands[responder]
        start = np.array(stands_mass[(mine, model.pub_at_stand(fixed.seat, mine, theirs))],
                         dtype=object)
        root[stands] = _betting(tree, fixed, fixed.bets[stands], start, depth, responder,
                                sign, a, b, hands,
                                None if reply is None else reply.bets[stands])
    # the throws, backward: level t's values are over d * cube^(last - t)
    values: dict[tuple[int, Pub], tuple[np.ndarray, np.ndarray]] = {}
    for t in range(last, 0, -1):
        for pub in model.pubs(responder, t):
            others = model.others(responder, t, pub)
            c = sum((root[_pair(responder, t, s)][0] for s in others),
                    np.zeros(hands, dtype=object))
            p = sum((root[_pair(responder, t, s)][1] for s in others),
                    np.zeros(hands, dtype=object))
            if t < last:
                lift = cube ** (last - t)
                c, p = c * lift, p * lift
                tc, tp = 0, 0
                for following in model.next_pub(responder, pub, t):
                    nc, np_ = values[(t + 1, following)]
                    tc += sum(n * v for n, v in zip(counts, nc))
                    tp += sum(n * v for n, v in zip(counts, np_))
                if reply is not None:           # over Q: the stand chances
                    rate = np.array(reply.stand[(t, pub)], dtype=object)
                    # the throws after this one carry a Q each in the throw's value
                    c, p = c * Q ** (last - 1 - t), p * Q ** (last - 1 - t)
                    c = (c * rate + tc * (Q - rate))
                    p = (p * rate + tp * (Q - rate))
                else:
                    throw = sign * (b * tc + a * tp)
                    stay = sign * (b * c + a * p)
                    moves = stay < throw
                    c = np.where(moves, tc, c)
                    p = np.where(moves, tp, p)
            values[(t, pub)] = (c, p)
    starts = [values[(1, pub)] for pub in model.pubs(responder, 1)]
    c1 = sum((c for c, _ in starts), np.zeros(hands, dtype=object))
    p1 = sum((p for _, p in starts), np.zeros(hands, dtype=object))
    d = scale * Q ** depth * cube ** last
    if reply is not None:
        # Q^depth more a betting (the reply's edges), Q more at each throw but the last
        d *= Q ** depth * Q ** (last - 1)
    return Line(int(sum(n * v for n, v in zip(counts, c1))),
                int(sum(n * v for n, v in zip(counts, p1))), d)


def _pair(responder: int, mine: int, theirs: int) -> tuple[int, int]:
    return (mine, theirs) if responder == 0 else (theirs, mine)


def _betting(tree, fixed: ExactBehaviour, probs: dict, start: np.ndarray, depth: int,
             responder: int, sign: int, a: int, b: int, hands: int,
             reply: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The responder's best (c, p) per hand at the root of one betting tree, the fixed
    seat's weights starting at `start`, over d = scale * Q^depth; with `reply` (the
    responder's probabilities at his nodes), that play's, over d * Q^depth."""
    seat = fixed.seat

    def visit(node: int, mass: np.ndarray, level: int, own: int = 0
              ) -> tuple[np.ndarray, np.ndarray]:
        kind = tree.kind[node]
        if kind is not None:
            w = mass * Q ** (depth - level)
            if reply is not None:
                w = w * Q ** (depth - own)
            total = sum(w)
            if kind == betting.REPLAY:
                return np.full(hands, 0, dtype=object), np.full(hands, total, dtype=object)
            amount = tree.amount[node]
            assert amount.denominator == 1
            amount = amount.numerator
            if kind == betting.ONE_LEFT:
                return np.full(hands, amount * total, dtype=object), \
                    np.zeros(hands, dtype=object)
            below = np.concatenate([[0], np.cumsum(w)[:-1]]).astype(object)
            above = total - below - w
            # the captain wins when his hand is the higher
            net = amount * (above - below) if responder == 1 else amount * (below - above)
            return net.astype(object), np.zeros(hands, dtype=object)
        kids = tree.children[node]
        if tree.to_act[node] == seat:
            c = np.zeros(hands, dtype=object)
            p = np.zeros(hands, dtype=object)
            for k, child in enumerate(kids):
                kc, kp = visit(child, mass * probs[node][k], level + 1, own)
                c, p = c + kc, p + kp
            return c, p
        if reply is not None:
            c = np.zeros(hands, dtype=object)
            p = np.zeros(hands, dtype=object)
            for k, child in enumerate(kids):
                kc, kp = visit(child, mass, level, own + 1)
                c, p = c + kc * reply[node][k], p + kp * reply[node][k]
            return c, p
        results = [visit(child, mass, level) for child in kids]
        best_c, best_p = results[0]
        best = sign * (b * best_c + a * best_p)
        for kc, kp in results[1:]:
            score = sign * (b * kc + a * kp)
            better = score > best
            best = np.where(better, score, best)
            best_c = np.where(better, kc, best_c)
            best_p = np.where(better, kp, best_p)
        return best_c, best_p

    return visit(0, start, 0)


def pair_line(model: VueltaModel, captain: ExactBehaviour, other: ExactBehaviour) -> Line:
    """The line c + p x of the two strategies played against each other, exactly."""
    return best_line(model, other, Fraction(0), reply=captain)


def guaranteed(model: VueltaModel, fixed: ExactBehaviour, start: Fraction) -> Fraction:
    """What `fixed`'s strategy guarantees its seat over the whole vuelta, replays
    included, as the captain's value: the captain's strategy guarantees at least this
    much, the other's concedes at most this much. Exact (Newton's method on the best
    replies' lines, from `start`)."""
    worth = Fraction(start)
    for _ in range(MAX_NEWTON_STEPS):
        following = best_line(model, fixed, worth).root()
        if following == worth:
            return worth
        worth = following
    raise SolverError(f"the best reply's fixed point was not reached in "
                      f"{MAX_NEWTON_STEPS} exact steps")
