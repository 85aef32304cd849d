"""Bounds on the value of the game, proved in exact rational arithmetic.

The LP and CFR compute in floating point, and so does `solver.hand.best_response`. This module
proves, with no rounding anywhere, an interval that contains the value of the game:

    lower = what the captain's strategy guarantees against every opponent strategy;
    upper = what the opponent's strategy concedes to every captain strategy.

By the minimax theorem lower <= value <= upper for *any* pair of strategies; for an
equilibrium the interval is as narrow as the strategies' rounding. The strategies are first
made exact, in two ways, each proving an interval (the certificate is their intersection):
  - binary: every probability is rounded down to a multiple of 2^-53 and the largest of
    each decision takes up the remainder, so each decision sums to exactly 1 (these exact
    strategies differ from the floats by ~1e-16 a probability): default game, width 4e-16;
  - simple fractions, where every probability is one (small variants' LP solutions are):
    then the strategies are the exact equilibrium and the bounds meet at the exact value.
Both bounds are best responses computed in Python integers over explicit denominators, from
the rules' exact probabilities (`HandModel.prior_exact`, `exact_transition`), the exact
payoffs and `rules.compare` (`HandModel.compare`). Nothing is shared with the
float best response but the model.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT, Leaf, Node
from solver.common.rounding import snap
from solver.common.side_by_side import side_by_side
from solver.hand.model import HandModel
from solver.hand.strategy import MAX_COMMON_DENOMINATOR_BITS, Strategy, StrategyFileError

Q_BITS = 53
Q = 1 << Q_BITS                   # exact probabilities are integers over Q


@dataclasses.dataclass(frozen=True)
class Certificate:
    """lower <= value of the game <= upper, both exact, to the captain in chips per hand."""

    lower: Fraction
    upper: Fraction

    @property
    def width(self) -> Fraction:
        return self.upper - self.lower

    @property
    def exact(self) -> Fraction | None:
        """The value itself, when the bounds meet."""
        return self.lower if self.lower == self.upper else None

    def contains(self, value: float | Fraction) -> bool:
        return self.lower <= Fraction(value) <= self.upper

    def decimals(self, digits: int = 20) -> tuple[str, str]:
        """The bounds in decimal, rounded outward: the printed interval is still proved."""
        return decimal(self.lower, digits, up=False), decimal(self.upper, digits, up=True)

    def to_dict(self) -> dict[str, str | float | None]:
        lower, upper = self.decimals()
        return {"lower": str(self.lower), "upper": str(self.upper),
                "lower_decimal": lower, "upper_decimal": upper, "width": float(self.width),
                "exact": None if self.exact is None else str(self.exact)}

    @classmethod
    def from_dict(cls, data: dict) -> "Certificate":
        return cls(Fraction(data["lower"]), Fraction(data["upper"]))


def decimal(x: Fraction, digits: int, up: bool) -> str:
    """x with `digits` decimals, rounded up or down (exact digits, no float)."""
    scaled = x * 10 ** digits
    whole = math.ceil(scaled) if up else math.floor(scaled)
    sign = "-" if whole < 0 else ""
    units, frac = divmod(abs(whole), 10 ** digits)
    return f"{sign}{units}.{frac:0{digits}d}"


def certify(model: HandModel, strategy: Strategy) -> Certificate:
    """The exact interval [lower, upper] that the strategy pair proves for the value.

    Two exact readings of the strategies are tried: the binary one (always), and, when
    every probability is recognizably a simple fraction (`simple_fractions`), that
    fraction. Each proves an interval; the certificate is their intersection. When the
    simple fractions are the equilibrium, lower == upper: the exact value.
    """
    proofs = [_prove(model, _binary_lazily(model, strategy), Q)]
    simple = simple_fractions(model, strategy)
    if simple is not None:
        proofs.append(prove_fractions(model, strategy, simple))
    return Certificate(lower=max(p.lower for p in proofs), upper=min(p.upper for p in proofs))


def exact_best_response(model: HandModel, strategy: Strategy, responder: int) -> Fraction:
    """max over the responder's strategies of his expected payoff (the opponent's is minus
    the captain's), exactly, against the other player's strategy read as binary fractions
    (`certify`'s first reading). The round's certificate calls it stage by stage."""
    ints = _binary(model, strategy)
    return _ExactGame(model, _assemble(model, strategy, ints), Q).best_response_value(responder)


def prove_fractions(model: HandModel, strategy: Strategy,
                    fractions: Mapping[tuple, Sequence[Fraction]],
                    max_bits: int | None = None) -> Certificate:
    """The interval proved by exact probabilities, keyed like `decisions(model, strategy)`
    (every decision of `strategy`; each must sum to exactly 1): the one proof every
    product calls with its exact strategy (a strategy file's `Exact` as it is read). Their
    common denominator is bounded (`strategy.MAX_COMMON_DENOMINATOR_BITS`, StrategyFileError
    past it): every number of the proof is an integer over it, and a hostile file's LCM of
    thousands of 200-digit denominators would never finish. `max_bits` sets another bound, for
    probabilities this program computed itself (the round's refined stage games of reroll
    keep need more than 4096 bits: solver/round/refine_stages.py); None: the file bound."""
    limit = MAX_COMMON_DENOMINATOR_BITS if max_bits is None else max_bits
    for where, row in fractions.items():
        if not _distribution(row):
            raise ValueError(f"the probabilities of {where} are not a distribution")
    common = 1
    for where, row in fractions.items():
        for f in row:
            if common % f.denominator:
                common = math.lcm(common, f.denominator)
                if common.bit_length() > limit:
                    raise StrategyFileError(
                        f"the exact probabilities of {where} bring their common denominator "
                        f"past {limit} bits, more than the certificate computes over")
    # f * common is an integer: common is a multiple of f's denominator
    ints = {where: [f.numerator * (common // f.denominator) for f in row]
            for where, row in fractions.items()}
    return _prove(model, _assemble(model, strategy, ints), common)


def _distribution(row: Sequence[Fraction]) -> bool:
    """Whether `row` is nonnegative and sums to exactly 1: in integers over the row's
    common denominator (a Fraction sum costs a gcd and a new Fraction per term, and a
    refined strategy has 16000 probabilities)."""
    denominator = 1
    for f in row:
        if denominator % f.denominator:
            denominator = math.lcm(denominator, f.denominator)
    ints = [f.numerator * (denominator // f.denominator) for f in row]
    return sum(ints) == denominator and min(ints) >= 0


# Above this many betting rows (decisions x hands) the two exact best responses of a proof
# run side by side (solver/common/side_by_side.py): Le Bidou's large hands, where each takes
# seconds; below it a fork costs more than it saves.
SIDE_BY_SIDE_ROWS = 9 * 2**5 * 56


def _prove(model: HandModel, exact: "ExactStrategy", denominator: int) -> Certificate:
    game = _ExactGame(model, exact, denominator)
    rows = len(exact[1]) * model.num_hands
    upper, guaranteed = side_by_side(lambda: game.best_response_value(CAPTAIN),
                                     lambda: game.best_response_value(OPPONENT),
                                     parallel=rows > SIDE_BY_SIDE_ROWS)
    return Certificate(lower=-guaranteed, upper=upper)


# Integer probabilities: throw[role][context][throw][hand] and betting[key][hand] are lists
# of integers over one denominator, each decision summing to exactly that denominator.
ExactStrategy = tuple[list, Mapping]


def decisions(model: HandModel, strategy: Strategy):
    """Every decision of both players as (where, float probabilities, legal actions);
    `where` is ("throw", role, context, throw, hand) or ("bet", (tc, to, history), hand)."""
    n, legal = model.num_hands, model.throw_legal
    for role in (CAPTAIN, OPPONENT):
        for c, context in enumerate(strategy.throw[role]):
            for t, decision in enumerate(context):
                for h in range(n):
                    yield ("throw", role, c, t, h), decision[:, h], legal[:, h]
    for key, probs in strategy.betting.items():
        for h in range(n):
            yield ("bet", key, h), probs[:, h], np.ones(probs.shape[0], dtype=bool)


def _assemble(model: HandModel, strategy: Strategy, ints: dict) -> ExactStrategy:
    n = model.num_hands
    throw = [[[[ints[("throw", role, c, t, h)] for h in range(n)]
               for t in range(context.shape[0])] for c, context in enumerate(strategy.throw[role])]
             for role in (CAPTAIN, OPPONENT)]
    betting = {key: [ints[("bet", key, h)] for h in range(n)] for key in strategy.betting}
    return throw, betting


def _binary(model: HandModel, strategy: Strategy) -> dict:
    """`exact_probabilities` of every decision, keyed like `decisions`, a whole array of
    decisions (actions x hands) at a time."""
    n = model.num_hands
    out: dict[tuple, list[int]] = {}
    for role in (CAPTAIN, OPPONENT):
        for c, context in enumerate(strategy.throw[role]):
            for t, decision in enumerate(context):
                for h, ints in enumerate(_exact_columns(decision, model.throw_legal)):
                    out[("throw", role, c, t, h)] = ints
    for key, probs in strategy.betting.items():
        columns = _exact_columns(probs, np.ones(probs.shape, dtype=bool))
        out.update({("bet", key, h): columns[h] for h in range(n)})
    return out


class _BinaryBetting(Mapping):
    """The betting of `_binary`, each decision read when the proof first asks for it: a
    best response reads the other player's probabilities only where he reaches, and Le
    Bidou's default hand has 4 608 betting decisions, most of them never reached (their
    reading took 1 s, the two best responses 0.4 s each). Every decision is checked to
    be a distribution at once, as `_binary` checks it."""

    def __init__(self, betting: dict[tuple[int, int, str], np.ndarray]):
        for probs in betting.values():
            _check_sums(probs, np.ones(probs.shape, dtype=bool))
        self._floats = betting
        self._read: dict[tuple[int, int, str], list[list[int]]] = {}

    def __getitem__(self, key: tuple[int, int, str]) -> list[list[int]]:
        if key not in self._read:
            probs = self._floats[key]
            self._read[key] = _exact_columns(probs, np.ones(probs.shape, dtype=bool))
        return self._read[key]

    def __len__(self) -> int:
        return len(self._floats)

    def __iter__(self) -> Iterator[tuple[int, int, str]]:
        return iter(self._floats)


def _binary_lazily(model: HandModel, strategy: Strategy) -> ExactStrategy:
    """`_assemble(model, strategy, _binary(model, strategy))`, the betting read as it is
    needed (`_BinaryBetting`): the same numbers."""
    throw = [[[_exact_columns(decision, model.throw_legal) for decision in context]
              for context in strategy.throw[role]] for role in (CAPTAIN, OPPONENT)]
    return throw, _BinaryBetting(strategy.betting)


def _check_sums(probs: np.ndarray, legal: np.ndarray) -> None:
    """ValueError unless each column of `probs` (actions x hands) sums to 1 over `legal`."""
    sums = np.where(legal, probs, 0.0).sum(axis=0)
    bad = np.flatnonzero(np.abs(sums - 1.0) > 1e-9)
    if len(bad):
        column = probs[:, bad[0]]
        raise ValueError(f"a decision's probabilities sum to {np.sum(column[legal[:, bad[0]]])!r}"
                         f", not 1")


def _exact_columns(probs: np.ndarray, legal: np.ndarray) -> list[list[int]]:
    """`exact_probabilities` of each column of `probs` (actions x hands): one decision a
    column, all at once."""
    _check_sums(probs, legal)
    # p * 2^53 is exact in floating point and its floor fits in 64 bits
    ints = np.where(legal, np.floor(np.maximum(probs, 0.0) * float(Q)), 0).astype(np.int64)
    largest = np.argmax(np.where(legal, probs, -np.inf), axis=0)
    columns = range(probs.shape[1])
    ints[largest, columns] += Q - ints.sum(axis=0)
    return ints.T.tolist()


def simple_fractions(model: HandModel, strategy: Strategy, max_denominator: int = 10 ** 6,
                     max_common: int = 10 ** 18) -> dict[tuple, list[Fraction]] | None:
    """The strategies as the simplest fractions within 1e-12 of each probability, if every
    decision then sums to exactly 1 and their common denominator stays below `max_common`;
    otherwise None. Small variants' LP solutions are such fractions (f3 t1 m2 french:
    denominators up to 180); the default game's are not."""
    fractions, common = {}, 1
    for where, probs, legal in decisions(model, strategy):
        row = []
        for p, ok in zip(probs, legal):
            f = snap(float(p), max_denominator) if ok else Fraction(0)
            if f is None or f < 0:
                return None
            row.append(f)
        if sum(row) != 1:
            return None
        common = math.lcm(common, *(f.denominator for f in row))
        if common > max_common:
            return None
        fractions[where] = row
    return fractions


def exact_probabilities(probs: np.ndarray, legal: np.ndarray | None = None) -> list[int]:
    """One decision's probabilities as integers over Q summing to exactly Q (each rounded
    down, the likeliest legal action taking the few units of 2^-53 left over)."""
    probs = np.asarray(probs, dtype=float)
    legal = np.ones(len(probs), dtype=bool) if legal is None else np.asarray(legal, bool)
    return _exact_columns(probs[:, None], legal[:, None])[0]


# A vector of exact numbers is a list of integers over one common denominator.
Scaled = tuple[list[int], int]


def mass_by_strength(weights: Sequence[int], strength: Sequence[int], levels: int
                     ) -> tuple[list[int], list[int], int]:
    """The showdown sums of one player's exact hand weights, so that every hand of the
    other is valued in one step: (the mass at each strength level, the mass strictly below
    it, the total). A hand of strength s beats below[s], ties at[s] and loses to the rest
    (before the ranking's exceptions); the hand's certificate and the round sheet's exact
    chain both value their showdowns this way."""
    at = [0] * levels
    for j, v in enumerate(weights):
        at[strength[j]] += v
    below, running = [], 0
    for v in at:
        below.append(running)
        running += v
    return at, below, running


def _rescale(vectors: list[Scaled]) -> tuple[list[list[int]], int]:
    """The vectors over their least common denominator (of those not all zero: a zero
    vector is zero over any; most of a large tree's are, where the other player never
    goes). A vector already over it is not copied."""
    den = math.lcm(*(d for nums, d in vectors if any(nums)))
    out = []
    for nums, d in vectors:
        if not any(nums) or d == den:
            out.append(nums)
        else:
            factor = den // d
            out.append([x * factor for x in nums])
    return out, den


class _ExactGame:
    def __init__(self, model: HandModel, strategy: ExactStrategy, denominator: int):
        self.model = model
        self.Q = denominator                             # of every probability
        n, T = model.num_hands, model.throws
        self.n, self.T = n, T
        faces = model.faces
        self.F = faces ** 3                              # every hand probability is k / F
        self.prior = [int(p * self.F) for p in model.prior_exact]
        if [Fraction(x, self.F) for x in self.prior] != list(model.prior_exact):
            raise ValueError("hand probabilities are not multiples of 1/faces^3")
        # transitions[a][h]: [(next hand, integer probability over F)], empty where illegal
        self.transitions = [[[(k, int(p * self.F)) for k, p in
                              model.exact_transition(action, h).items()]
                             if model.throw_legal[a, h] else [] for h in range(n)]
                            for a, action in enumerate(model.throw_actions)]
        for row in self.transitions:
            for h, dist in enumerate(row):
                if dist and sum(pk for _, pk in dist) != self.F:
                    raise ValueError("a reroll distribution is not in multiples of 1/faces^3")
        # payoffs as integers over one denominator
        values = [v for tree in model.trees.values() for row in tree.payoffs for v in row]
        self.pay_den = math.lcm(*(Fraction(v).denominator for v in values))
        # showdowns by the ranking's order (sums over weaker and equal hands), then the
        # pairs where rules.compare says otherwise (the french aces over bidou), as moves of
        # the other player's hand j between (x beats j, x loses to j, tie) for responder x
        compare = model.compare                   # rules.compare, entries -1, 0, 1
        self.strength = model.strength.tolist()
        self.levels = int(model.strength.max()) + 1
        ordered = np.sign(model.strength[:, None] - model.strength[None, :])
        category = {1: 0, -1: 1, 0: 2}
        self.moves = [[(int(j), category[int(ordered[x, j])], category[int(compare[x, j])])
                       for j in np.flatnonzero(ordered[x] != compare[x])]
                      for x in range(n)]
        self.throw, self.betting = strategy

    # --- the fixed player's reach ---------------------------------------------------------

    def end_mass(self, role: int, context: int) -> list[Scaled]:
        """Probability (own chance and play) of ending the turn at each throw, per hand."""
        n, T, F = self.n, self.T, self.F
        decisions = self.throw[role][context]          # [throw][hand] -> action ints
        mass: Scaled = (list(self.prior), F)
        ends: list[Scaled] = []
        for t in range(T - 1):
            nums, den = mass
            ends.append(([nums[h] * decisions[t][h][0] for h in range(n)], den * self.Q))
            nxt = [0] * n
            for h in range(n):
                if nums[h] == 0:
                    continue
                for a in range(1, len(decisions[t][h])):
                    weight = nums[h] * decisions[t][h][a]
                    if weight:
                        for k, pk in self.transitions[a][h]:
                            nxt[k] += weight * pk
            mass = (nxt, den * self.Q * F)
        ends.append(mass)
        return ends

    # --- the responder's values -----------------------------------------------------------

    def betting_value(self, public: tuple[int, int], responder: int,
                      reach: Scaled) -> Scaled:
        """The responder's best value per own hand at the root of the public state's
        betting, against the other player's reach and betting."""
        tc, to = public
        tree = self.model.tree(public)
        sign = 1 if responder == CAPTAIN else -1

        def step(node: Node, a: int, scaled: Scaled) -> Scaled:
            nums, den = scaled
            if node.actor == responder:
                return scaled
            if not any(nums):            # unreached: zero whatever the probabilities
                return nums, den * self.Q
            probs = self.betting[(tc, to, node.history)]
            return [x * probs[h][a] for h, x in enumerate(nums)], den * self.Q

        def payoff(leaf: Leaf, outcome: int) -> int:
            return int(tree.payoff(leaf, outcome) * self.pay_den)

        def leaf_value(leaf: Leaf, scaled: Scaled) -> Scaled:
            nums, den = scaled
            if not any(nums):
                # the other never reaches the leaf: worth zero to every hand (the loops
                # below give the same; Le Bidou's large trees have thousands such leaves)
                out = [0] * self.n
            elif tree.compares_hands(leaf):
                # the captain's payoff when the responder's hand x beats, loses to or ties
                # the other's hand
                win, lose = payoff(leaf, 1), payoff(leaf, -1)
                if_x_beats, if_x_loses = (win, lose) if responder == CAPTAIN else (lose, win)
                tie = payoff(leaf, 0)
                weights = (if_x_beats, if_x_loses, tie)
                # the other's mass by strength
                at, below, running = mass_by_strength(nums, self.strength, self.levels)
                out = []
                for x in range(self.n):
                    level = self.strength[x]
                    value = (if_x_beats * below[level] + tie * at[level]
                             + if_x_loses * (running - below[level] - at[level]))
                    for j, was, now in self.moves[x]:
                        value += (weights[now] - weights[was]) * nums[j]
                    out.append(sign * value)
            else:
                out = [payoff(leaf, 0) * sign * sum(nums)] * self.n
            return out, den * self.pay_den

        def combine(node: Node, children: list[Scaled]) -> Scaled:
            scaled, common = _rescale(children)
            if node.actor == responder:
                return [max(column) for column in zip(*scaled)], common
            return [sum(column) for column in zip(*scaled)], common

        _, leaf_reach = tree.push(reach, step)
        return tree.pull([leaf_value(leaf, r) for leaf, r in zip(tree.leaves, leaf_reach)],
                         combine)[0]

    def throw_value(self, stop: list[Scaled]) -> Fraction:
        """The responder's best throwing turn, given the value of stopping at each throw."""
        n, T = self.n, self.T
        legal = self.model.throw_legal
        v = stop[T - 1]
        for t in range(T - 2, -1, -1):
            nums, den = v
            reroll = [[sum(pk * nums[k] for k, pk in self.transitions[a][h]) for h in range(n)]
                      for a in range(1, legal.shape[0])]
            scaled, common = _rescale([stop[t]] + [(r, den * self.F) for r in reroll])
            v = ([max(scaled[a][h] for a in range(len(scaled)) if legal[a, h])
                  for h in range(n)], common)
        nums, den = v
        return Fraction(sum(p * x for p, x in zip(self.prior, nums)), den * self.F)

    def best_response_value(self, responder: int) -> Fraction:
        """max over the responder's strategies of his expected payoff (the opponent's is
        minus the captain's) against the other player's exact strategy."""
        T = self.T
        if responder == CAPTAIN:
            stop = []
            for tc in range(1, T + 1):
                ends = self.end_mass(OPPONENT, tc - 1)
                stop.append(_sum([self.betting_value((tc, to), CAPTAIN, ends[to - 1])
                                  for to in range(1, T + 1)]))
            return self.throw_value(stop)
        ends = self.end_mass(CAPTAIN, 0)
        total = Fraction(0)
        for tc in range(1, T + 1):
            stop = [self.betting_value((tc, to), OPPONENT, ends[tc - 1])
                    for to in range(1, T + 1)]
            total += self.throw_value(stop)
        return total


def _sum(vectors: list[Scaled]) -> Scaled:
    scaled, den = _rescale(vectors)
    return [sum(column) for column in zip(*scaled)], den


def float_down(x: Fraction) -> float:
    """The largest float <= x: a proved lower bound stays one when printed as a float."""
    f = float(x)
    return math.nextafter(f, -math.inf) if Fraction(f) > x else f


def float_up(x: Fraction) -> float:
    """The smallest float >= x."""
    f = float(x)
    return math.nextafter(f, math.inf) if Fraction(f) < x else f
