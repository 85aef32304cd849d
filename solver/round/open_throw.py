"""The open throw of a round (docs/rules.md section 4), solved exactly.

When one player (H) holds `chips - 1` chips there is no betting: the other player (L, one chip
or none) throws openly, up to `throws` times under the round's reroll rule, stopping when he
likes; then H throws openly the same way, knowing L's hand. If L's hand beats H's, H takes the
last chip and L wins the round (value 1 to L). If H's hand beats L's, L takes one chip from H
and play resumes with H as captain: the value to L is the given `continuation` c. On a tie
the open throw is played again, in the same order.

Everything is perfect information, so both players have optimal pure stationary strategies
and the game has a value v to L. One attempt, played with the replay worth `x` to L, has the
value F(x) = max over L's stopping/keeping policies of min over H's of
    P(L wins) + c * P(H wins) + x * P(tie),
computed by backward induction (H's turn for every final hand of L, then L's turn). The
value solves v = F(v).

Why the fixed point is found exactly. Every pure policy pair gives an affine function of x
with slope P(tie) in [0, q], q < 1 (H's last throw, or H's first when `throws` is 1, misses
any given hand with positive probability). F is a max of mins of such functions: continuous,
nondecreasing, piecewise affine with finitely many pieces and slopes <= q, so F(x) - x is
strictly decreasing and has exactly one root v in [0, 1] (F(0) >= 0, F(1) <= 1). At a point
x the backward induction also returns the piece of F just right of x (ties between options
are broken by the slope: the larger at L's choices, the smaller at H's, which is the right
derivative of a max or a min). The solver keeps a bracket lo < v < hi, evaluates F at a point
x inside it, moves the bracket, and tries the root of x's piece, y = a / (1 - b), accepting
y only when F(y) == y exactly. Each piece has one such candidate, and a candidate once
evaluated becomes a bracket end, so Newton steps run out after finitely many; bisection
then shrinks the bracket until it lies within the two pieces adjacent to v, whose lines both
pass through (v, v) (F is continuous), and the next candidate is v itself. So the loop ends
after finitely many exact evaluations with F(v) == v checked in rational arithmetic.

Probabilities are exact: they are carried as integers over a common denominator
(`faces ** (3 * throws)` per player), and compared against the rationals c and x exactly.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Callable, Union

from games.bidou import rules
from games.bidou.params import BidouParams
from games.bidou.rules import STOP

Hand = rules.Hand
Kept = rules.Kept
Action = Union[str, Kept]          # "stop", or the dice kept before throwing again (() = all)
Triple = tuple[int, int, int]      # (L wins, H wins, tie) counts over a common denominator
LowPolicy = dict[tuple[int, Hand], Action]            # (throws made, hand) -> action
HighPolicy = dict[tuple[Hand, int, Hand], Action]     # (L's hand, throws made, hand) -> action

MAX_EVALUATIONS = 500


@dataclasses.dataclass(frozen=True)
class OpenThrowStep:
    """One attempt of the open throw, played with a replay worth `replay` to L.

    value = p_l_wins + continuation * p_h_wins + replay * p_tie (all for this one attempt).
    l_policy[(throws made, hand)] and h_policy[(L's hand, throws made, hand)] give the
    action after that throw: "stop" or the dice kept before throwing again (`()` = all three);
    only decisions that exist are listed (no entry after the last allowed throw).
    """

    value: Fraction
    p_l_wins: Fraction
    p_h_wins: Fraction
    p_tie: Fraction
    l_policy: LowPolicy
    h_policy: HighPolicy


@dataclasses.dataclass(frozen=True)
class SolvedOpenThrow:
    """The open throw solved with its replays: value to L, the player with one chip or none.

    p_l_wins / p_h_wins: probability that L wins the round outright (H takes the last chip) /
    that H wins the throw (L takes a chip, H captains next), over all replays: they add to 1,
    and value = p_l_wins + continuation * p_h_wins.
    p_tie: probability that one attempt ties (and is replayed); 1 / (1 - p_tie) attempts are
    thrown on average.
    The policies are stationary (the same on every replay); see `OpenThrowStep`.
    evaluations: exact evaluations of F used to find the fixed point.
    """

    value: Fraction
    continuation: Fraction
    p_l_wins: Fraction
    p_h_wins: Fraction
    p_tie: Fraction
    l_policy: LowPolicy
    h_policy: HighPolicy
    evaluations: int


def open_throw_step(params: BidouParams, continuation: Fraction,
                    replay: Fraction) -> OpenThrowStep:
    """F(replay): one attempt of the open throw solved by backward induction.

    This is the stage a finite-horizon (capped) solve uses, where a tie leads to the open
    throw with one hand fewer left; `solve_open_throw` solves the uncapped fixed point.
    """
    c, x = _fraction("continuation", continuation), _fraction("replay", replay)
    triple, scale, l_policy, h_policy = _attempt(params, c, x)
    pw, pl, pt = (Fraction(n, scale) for n in triple)
    return OpenThrowStep(pw + c * pl + x * pt, pw, pl, pt, l_policy, h_policy)


def solve_open_throw(params: BidouParams, continuation: Fraction) -> SolvedOpenThrow:
    """The open throw's exact value to L and both players' optimal stationary policies."""
    c = _fraction("continuation", continuation)
    return _solve_replays(c, lambda x: open_throw_step(params, c, x))


def reply_to_open_throw(params: BidouParams, continuation: Fraction, fixed: SolvedOpenThrow,
                        deviator_is_low: bool) -> SolvedOpenThrow:
    """The open throw when one player keeps `fixed`'s policy and the other (the deviator,
    L if `deviator_is_low`, else H) replies as well as he can: the exact value to L of that
    best reply, the probabilities it gives, and the deviator's policy. The round's
    certificate bounds what a deviator gains at an open throw with it."""
    c = _fraction("continuation", continuation)
    scale = (params.faces ** (3 * params.throws)) ** 2

    def attempt(x: Fraction) -> OpenThrowStep:
        weights = (c.denominator * x.denominator, c.numerator * x.denominator,
                   x.numerator * c.denominator)
        # L maximizes his score, H minimizes it
        triple, l_policy, h_policy = _one_sided_attempt(params, fixed, deviator_is_low,
                                                        weights, maximize=deviator_is_low)
        pw, pl, pt = (Fraction(n, scale) for n in triple)
        return OpenThrowStep(pw + c * pl + x * pt, pw, pl, pt, l_policy, h_policy)

    return _solve_replays(c, attempt)


def least_end_chance(params: BidouParams, fixed: SolvedOpenThrow, deviator_is_low: bool
                     ) -> Fraction:
    """The smallest probability, over the deviator's policies, that one attempt of the open
    throw ends the round (L wins it) when the other player keeps `fixed`'s policy. The
    round's certificate needs it to be positive: else a deviator could stay at the open
    throw or come back to it without the round ever ending."""
    only_l_wins = (1, 0, 0)                       # score a triple by P(L wins) alone
    triple, _, _ = _one_sided_attempt(params, fixed, deviator_is_low, only_l_wins,
                                      maximize=False)
    return Fraction(triple[0], (params.faces ** (3 * params.throws)) ** 2)


def _one_sided_attempt(params: BidouParams, fixed: SolvedOpenThrow, deviator_is_low: bool,
                       weights: Triple, maximize: bool) -> tuple[Triple, LowPolicy, HighPolicy]:
    """One attempt when one player keeps `fixed`'s policy and the deviator optimizes the
    score `weights` (maximizing it if `maximize`): the attempt's triple (scale
    `faces ** (3 * throws)` squared) and both players' policies."""
    hands = rules.all_hands(params.faces)
    h_values: dict[Hand, Triple] = {}
    h_policy: HighPolicy = {}
    for l_hand in hands:
        leaf = {g: _outcome(params, l_hand, g) for g in hands}
        if deviator_is_low:
            policy = {(j, g): a for (lh, j, g), a in fixed.h_policy.items() if lh == l_hand}
            h_values[l_hand] = _fixed_turn(params, leaf, policy)
        else:
            h_values[l_hand], policy = _turn(params, leaf, weights, maximize=maximize)
        for (j, g), action in policy.items():
            h_policy[(l_hand, j, g)] = action
    if deviator_is_low:
        triple, l_policy = _turn(params, h_values, weights, maximize=maximize)
    else:
        triple, l_policy = _fixed_turn(params, h_values, fixed.l_policy), fixed.l_policy
    return triple, l_policy, h_policy


def _outcome(params: BidouParams, l_hand: Hand, h_hand: Hand) -> Triple:
    sign = rules.compare(l_hand, h_hand, params.ranking, params.aces_beat_bidou)
    return (1, 0, 0) if sign > 0 else (0, 1, 0) if sign < 0 else (0, 0, 1)


def _fixed_turn(params: BidouParams, leaf: dict[Hand, Triple],
                policy: LowPolicy) -> Triple:
    """A throwing turn played by `policy` (scale as `_turn`'s)."""
    faces, throws = params.faces, params.throws
    scale = faces ** (3 * throws)
    values = {g: (scale * t[0], scale * t[1], scale * t[2]) for g, t in leaf.items()}
    stop = values
    for j in range(throws - 1, 0, -1):
        new_values = {}
        for g in values:
            action = policy[(j, g)]
            if isinstance(action, tuple):       # the dice kept before throwing again
                new_values[g] = _expect(values, action, faces)
            else:                               # STOP
                new_values[g] = stop[g]
        values = new_values
    return _expect(values, (), faces)


def _solve_replays(c: Fraction, attempt: Callable[[Fraction], OpenThrowStep]
                   ) -> SolvedOpenThrow:
    """v = F(v), F(x) = attempt(x).value: the replays' fixed point (see the module
    docstring for why this loop ends with F(v) == v exactly)."""
    lo, hi = Fraction(0), Fraction(1)
    x = c       # a tie-free open throw is worth between c and 1; start from the low end
    for evaluation in range(1, MAX_EVALUATIONS + 1):
        step = attempt(x)
        if step.value == x:
            return SolvedOpenThrow(x, c, step.p_l_wins / (1 - step.p_tie),
                             step.p_h_wins / (1 - step.p_tie), step.p_tie,
                             step.l_policy, step.h_policy, evaluation)
        if step.value > x:
            lo = x
        else:
            hi = x
        # Root of the piece of F just right of x: a + b * y = y.
        intercept = step.value - step.p_tie * x
        candidate = intercept / (1 - step.p_tie)
        x = candidate if lo < candidate < hi else (lo + hi) / 2
    raise RuntimeError(f"open throw fixed point not found in {MAX_EVALUATIONS} evaluations")


def _fraction(name: str, value: Fraction | float | int) -> Fraction:
    value = Fraction(value)
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must be a probability in [0, 1], got {value}")
    return value


def _attempt(params: BidouParams, c: Fraction, x: Fraction
             ) -> tuple[Triple, int, LowPolicy, HighPolicy]:
    """Backward induction of one attempt: H's turn for each final hand of L, then L's."""
    faces, throws = params.faces, params.throws
    hands = rules.all_hands(faces)
    # Score of a triple (L wins, H wins, tie): proportional to pw + c * pl + x * pt.
    weights = (c.denominator * x.denominator, c.numerator * x.denominator,
               x.numerator * c.denominator)
    unit = faces ** (3 * throws)
    h_policy: HighPolicy = {}
    h_values: dict[Hand, Triple] = {}
    for l_hand in hands:
        leaf = {}
        for g in hands:
            sign = rules.compare(l_hand, g, params.ranking, params.aces_beat_bidou)
            leaf[g] = (1, 0, 0) if sign > 0 else (0, 1, 0) if sign < 0 else (0, 0, 1)
        value, policy = _turn(params, leaf, weights, maximize=False)
        h_values[l_hand] = value
        for (j, g), action in policy.items():
            h_policy[(l_hand, j, g)] = action
    # L's turn: stopping with hand h is worth H's optimal reply to h (scale `unit`).
    value, l_policy = _turn(params, h_values, weights, maximize=True)
    return value, unit * unit, l_policy, h_policy


def _turn(params: BidouParams, leaf: dict[Hand, Triple], weights: Triple, maximize: bool
          ) -> tuple[Triple, LowPolicy]:
    """One player's throwing turn: optimal stopping/keeping against final-hand values `leaf`.

    Returns the turn's value (a triple, over a denominator `faces ** (3 * throws)` times the
    leaf's) and the policy {(throws made, hand): action}.
    """
    faces, throws = params.faces, params.throws
    scale = faces ** (3 * throws)
    stop = {g: (scale * t[0], scale * t[1], scale * t[2]) for g, t in leaf.items()}
    w0, w1, w2 = weights

    def better(a: Triple, b: Triple) -> bool:
        """Strictly better for the player choosing: by score, then by slope (P(tie))."""
        sa = w0 * a[0] + w1 * a[1] + w2 * a[2]
        sb = w0 * b[0] + w1 * b[1] + w2 * b[2]
        if sa != sb:
            return sa > sb if maximize else sa < sb
        return a[2] > b[2] if maximize else a[2] < b[2]

    values = stop                       # after the last allowed throw the turn ends
    policy: LowPolicy = {}
    for j in range(throws - 1, 0, -1):  # decision after throw j, then throw j + 1
        options = {g: _options(params, g) for g in values}
        needed = {k for opts in options.values() for k in opts}
        again = {k: _expect(values, k, faces) for k in needed}
        new_values = {}
        for g in values:
            best_action: Action = STOP
            best = stop[g]
            for kept in options[g]:
                if better(again[kept], best):
                    best_action, best = kept, again[kept]
            new_values[g] = best
            policy[(j, g)] = best_action
        values = new_values
    return _expect(values, (), faces), policy


def _options(params: BidouParams, hand: Hand) -> tuple[Kept, ...]:
    """Ways to throw again: all three dice, or under "keep" any dice put aside."""
    return rules.keep_options(hand) if params.reroll == "keep" else ((),)


def _expect(values: dict[Hand, Triple], kept: Kept, faces: int) -> Triple:
    """Expected triple after throwing beside `kept`, exactly (values carry the scale)."""
    free = faces ** (3 - len(kept))
    sums = [0, 0, 0]
    for hand, p in rules.throw_distribution(kept, faces).items():
        count = p.numerator * (free // p.denominator)
        t = values[hand]
        sums[0] += count * t[0]
        sums[1] += count * t[1]
        sums[2] += count * t[2]
    for s in sums:
        assert s % free == 0, "the common denominator must absorb every throw"
    return (sums[0] // free, sums[1] // free, sums[2] // free)
