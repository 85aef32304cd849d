"""An exact rational equilibrium recovered from a floating-point one.

The LP's equilibrium mixes at few decisions (default game: 39 of the captain's, 76 of the
opponent's, out of thousands) and is pure everywhere else. Fix those supports. Then a
player's realization plan is an affine function of a few unknowns (the weights of all but
one action at each mixed decision), and the other player's indifference at each of *his*
mixed decisions is a linear equation in them: each player's exact strategy solves a small
linear system built from the other's indifferences. Its coefficients are computed exactly,
from the rules' fractions, by evaluating the (affine) counterfactual values at zero and at
the unit vectors (each touching a few public states); the system is solved in Fractions.

The indifferences alone often leave unknowns free (the LP's vertex is degenerate: 13 of the
captain's 58 with `--reroll keep --ranking french`), and a free unknown set to its rounded
float value breaks, by 1e-19, a tie the equilibrium needs. So every tie of the responder at
the float point (an unplayed action within 1e-10 of the played one) is an equation too: at
his pure decisions, at his mixed ones (an action outside the support as good as those in
it), and at the decisions he never reaches, whose play is what an unplayed action earlier
is worth. Unknowns still free keep their rounded float values.

An unplayed action's value reads the responder's later choices, which are his float
strategy's most likely actions; where two are tied in floats, the exact point can prefer
the other one. So, against the exact point, his choices at decisions he never reaches are
revised to exact best responses and the system is solved again, until nothing changes
(one round on every rule set of the default level). That also makes the raw LP strategy
work as it is; the completion by `best_response.complete_unreached` is only a second try.

What cannot work is refused before the exact work: strategies more than 1e-7 from
equilibrium (NashConv) and supports with more than MAX_UNKNOWNS unknowns (a CFR average).
A failure says why (`recover(...).reason`); `progress(step, done, total)` (the library's
`solver.common.progress.Step`) follows the work: ("captain's strategy", 12, 58), then ("proof", 0,
1).

Nothing here is trusted: the strategies go to `solver.hand.exact.certificate`, whose bounds meet
only
if they are an exact equilibrium. `exact_value` returns None whenever the supports or the
system do not give strategies (the float interval stands then), and an interval, not a
value, if the strategies it finds are not an equilibrium.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import operator
from fractions import Fraction
from typing import Sequence

import numpy as np
import scipy.linalg

from games.bidou.betting import CAPTAIN, OPPONENT, ROLE_NAMES, Leaf, Node
from solver.common.progress import Step
from solver.common.rounding import nearest_fraction
from solver.hand import best_response
from solver.hand.exact.certificate import Certificate, prove_fractions
from solver.hand.model import HandModel
from solver.hand.reach import own_reach
from solver.hand.strategy import Strategy

SUPPORT = 1e-9        # a float probability above this is in the support
ZERO = Fraction(0)
REACHED = 1e-12       # a float own reach above this makes a decision count
# More unknowns than this for one player: the supports are not an LP vertex's (a CFR
# average mixes a little everywhere) and the recovery gives up rather than grind.
MAX_UNKNOWNS = 400
# Strategies further than this from equilibrium (NashConv, by the float best response) are
# refused at once: the LP's are within 1e-8 (solve.LP_TOLERANCE), CFR's near its target (1e-6).
NEAR_EQUILIBRIUM = 1e-7
TIE = 1e-10           # an unplayed action this close to the played one at the float point ties
MAX_ROUNDS = 3        # of revising the responder's choices against the exact point


@dataclasses.dataclass
class _Realization:
    """One player's exact realization plan."""

    mass: dict[tuple, Fraction]                 # reaching each decision
    split: dict[tuple, list[Fraction]]          # each action's share of it
    leaf_reach: dict[tuple, list[Fraction]]     # (tc, to, leaf index) -> per hand
    ends: list | None = None                    # [context][throw][hand]: turn ending there


def _outcomes(model: HandModel) -> list[dict[int, Fraction]]:
    """The exact next-hand distribution of each throw action: it depends on the dice kept
    only, not on the hand they are kept from (checked)."""
    out: list[dict[int, Fraction]] = [{}]
    for a, action in enumerate(model.throw_actions[1:], start=1):
        dists = [model.exact_transition(action, h) for h in range(model.num_hands)
                 if model.throw_legal[a, h]]
        if any(d != dists[0] for d in dists):
            raise ValueError(f"the outcome of {action!r} depends on the hand")
        out.append(dists[0] if dists else {})
    return out


class Plan:
    """A player's realization plan as an affine function of his mixed decisions' unknowns."""

    def __init__(self, model: HandModel, strategy: Strategy, role: int):
        self.model, self.strategy, self.role = model, strategy, role
        self.outcome = _outcomes(model)
        throw_reach, bet_reach = own_reach(model, strategy, role)
        n = model.num_hands
        # every decision of the player: (key, float probabilities, legal mask, float reach)
        self.decisions: dict[tuple, tuple[np.ndarray, np.ndarray, float]] = {}
        throw = strategy.throw[role]
        for c in range(throw.shape[0]):
            for t in range(throw.shape[1]):
                for h in range(n):
                    self.decisions[("throw", c, t, h)] = (
                        throw[c, t, :, h], model.throw_legal[:, h],
                        float(throw_reach[c, t, :, h].max()))
        for key, reach in bet_reach.items():
            probs = strategy.betting[key]
            for h in range(n):
                self.decisions[("bet",) + key + (h,)] = (
                    probs[:, h], np.ones(probs.shape[0], dtype=bool), float(reach[0, h]))
        self.support = {key: self._support(*info) for key, info in self.decisions.items()}
        self.unknowns = [(key, a) for key, s in self.support.items() for a in s[:-1]]
        self.index = {u: i for i, u in enumerate(self.unknowns)}
        self.float_values = [self.decisions[key][2] * float(self.decisions[key][0][a])
                             for key, a in self.unknowns]

    @staticmethod
    def _support(probs: np.ndarray, legal: np.ndarray, reach: float) -> list[int]:
        best = [int(np.argmax(np.where(legal, probs, -1.0)))]
        if reach <= REACHED:
            return best                       # unreached: any exact choice will do
        return [a for a in range(len(probs)) if legal[a] and probs[a] > SUPPORT] or best

    def _split(self, key: tuple, mass: Fraction, u: list[Fraction]) -> list[Fraction]:
        support = self.support[key]
        out = [ZERO] * len(self.decisions[key][0])
        if len(support) == 1:                   # pure: no unknown, no Fraction arithmetic
            out[support[0]] = mass
            return out
        for a in support[:-1]:
            out[a] = u[self.index[(key, a)]]
        out[support[-1]] = mass - sum(out[a] for a in support[:-1])
        return out

    def publics(self, unknown: tuple) -> set[tuple[int, int]]:
        """The public states whose leaves an unknown's weight reaches: one for a betting
        unknown, every state its turn can end in for a throw unknown."""
        key = unknown[0]
        if key[0] == "bet":
            return {key[1:3]}
        if self.role == CAPTAIN:
            return set(self.model.public_states)
        return {(tc, to) for tc, to in self.model.public_states if tc == key[1] + 1}

    def realize(self, u: list[Fraction], publics: set | None = None,
                ends: list | None = None) -> _Realization:
        """The plan at u; with `publics`, the leaf reach of those public states only; with
        `ends`, the turn's ends at u, known (a betting unknown leaves them as they are)."""
        m, n, T = self.model, self.model.num_hands, self.model.throws
        mass_at: dict[tuple, Fraction] = {}
        split: dict[tuple, list[Fraction]] = {}
        contexts = range(self.strategy.throw[self.role].shape[0]) if ends is None else ()
        ends = [] if ends is None else ends
        for c in contexts:
            mass = list(m.prior_exact)
            ends_c = []
            for t in range(T - 1):
                moved = [Fraction(0)] * len(m.throw_actions)    # mass rethrown by action
                for h in range(n):
                    key = ("throw", c, t, h)
                    flows = split[key] = self._split(key, mass[h], u)
                    mass_at[key] = mass[h]
                    for a in range(1, len(flows)):
                        moved[a] += flows[a]
                nxt = [Fraction(0)] * n
                for a in range(1, len(moved)):
                    if moved[a]:
                        for k, p in self.outcome[a].items():
                            nxt[k] += moved[a] * p
                ends_c.append([split[("throw", c, t, h)][0] for h in range(n)])
                mass = nxt
            ends_c.append(mass)
            ends.append(ends_c)
        leaf_reach: dict[tuple, list[Fraction]] = {}
        for tc, to in m.public_states:
            if publics is not None and (tc, to) not in publics:
                continue
            tree = m.tree((tc, to))
            c = 0 if self.role == CAPTAIN else tc - 1
            start = ends[c][(tc if self.role == CAPTAIN else to) - 1]
            shares: dict[int, list[list[Fraction]]] = {}

            def step(node: Node, a: int, reach: list[Fraction]) -> list[Fraction]:
                if node.actor != self.role:
                    return reach
                if node.index not in shares:
                    shares[node.index] = []
                    for h in range(n):
                        key = ("bet", tc, to, node.history, h)
                        mass_at[key] = reach[h]
                        split[key] = self._split(key, reach[h], u)
                        shares[node.index].append(split[key])
                return [shares[node.index][h][a] for h in range(n)]

            _, at_leaf = tree.push(start, step)
            for leaf, reach in zip(tree.leaves, at_leaf):
                leaf_reach[(tc, to, leaf.index)] = reach
        return _Realization(mass_at, split, leaf_reach, ends)

    def exact_probabilities(self, u: list[Fraction]) -> dict[tuple, list[Fraction]] | None:
        """Exact behaviour at every decision of the player, keyed as
        `certificate.decisions` keys them, from the plan at u; None if some action would
        get a negative weight."""
        r = self.realize(u)
        out: dict[tuple, list[Fraction]] = {}
        for key, shares in r.split.items():
            if any(s is not ZERO and s < 0 for s in shares):
                return None
            mass = r.mass[key]
            if mass > 0:                            # shared zeros stay zero, undivided
                probs = [ZERO if s is ZERO else s / mass for s in shares]
            else:                                   # unreached: the float choice, made pure
                probs = [Fraction(int(a == self.support[key][0])) for a in range(len(shares))]
            if key[0] == "throw":
                out[("throw", self.role) + key[1:]] = probs
            else:
                out[("bet", key[1:4], key[4])] = probs
        return out


class _Responder:
    """The other player's counterfactual action values against a realization plan. His later
    choices are his float strategy's most likely action, except where `choice` says
    otherwise (decisions he never reaches, revised to exact best responses)."""

    def __init__(self, model: HandModel, strategy: Strategy, role: int):
        self.model, self.strategy, self.role = model, strategy, role
        self.outcome = _outcomes(model)
        compare = model.compare.astype(int)                   # rules.compare
        # per hand x: the other's hands it ties with and beats (compare 0 and 1)
        self.beaten_by = [(np.nonzero(row == 0)[0].tolist(), np.nonzero(row == 1)[0].tolist())
                          for row in compare]
        self.compare = compare.tolist()                       # [x][y]: 0, 1 or -1
        self.choice: dict[tuple, int] = {}
        self._argmax: dict[tuple, list[int]] = {}

    def _pick(self, key: tuple, probs: np.ndarray) -> int:
        return self.choice.get(key, int(np.argmax(probs)))

    def _likeliest(self, where: tuple) -> list[int]:
        """Per hand, the float strategy's most likely action at the betting decision
        `where` (np.argmax's first maximum, as `_pick` takes it), computed once."""
        picks = self._argmax.get(where)
        if picks is None:
            picks = self._argmax[where] = np.argmax(self.strategy.betting[where],
                                                    axis=0).tolist()
        return picks

    def _likeliest_throw(self, context: int, throw: int) -> list[int]:
        """Per hand, the float strategy's most likely legal action at a throwing decision
        (as `_pick` takes it from the legal actions' probabilities), computed once."""
        where = ("throw", context, throw)
        picks = self._argmax.get(where)
        if picks is None:
            probs = np.where(self.model.throw_legal, self.strategy.throw[self.role][context, throw],
                             -1.0)
            picks = self._argmax[where] = np.argmax(probs, axis=0).tolist()
        return picks

    def q_values(self, plan: _Realization, best: bool = False, publics: set | None = None
                 ) -> dict[tuple, Sequence[Fraction | None]]:
        """Counterfactual value of each action at each of the responder's decisions: linear
        in the plan's leaf reach (the only part of the plan it reads). With `best`, later
        choices are the best ones instead; with `publics`, the other public states' leaf
        reach is taken as zero (their decisions are left out, and so are the throwing
        decisions whose values are all zero: a unit column's rows read them as zero)."""
        m, n = self.model, self.model.num_hands
        sign = 1 if self.role == CAPTAIN else -1
        q: dict[tuple, Sequence[Fraction | None]] = {}
        roots: dict[tuple, list[Fraction]] = {}
        flip = 1 if self.role == CAPTAIN else -1
        zeros = [ZERO] * n
        beaten_by, compare = self.beaten_by, self.compare
        for tc, to in m.public_states:
            if publics is not None and (tc, to) not in publics:
                roots[(tc, to)] = zeros
                continue
            tree = m.tree((tc, to))

            def leaf_value(leaf: Leaf) -> list[Fraction]:
                reach = plan.leaf_reach[(tc, to, leaf.index)]
                if _zero(reach) or not any(r is not ZERO and r for r in reach):
                    return zeros
                if not tree.compares_hands(leaf):
                    return [sign * tree.payoff(leaf, 0) * _total(reach)] * n
                # the responder's payoff by compare(his hand, the other's): 0, 1, -1
                pay = [sign * tree.payoff(leaf, flip * o) for o in (0, 1, -1)]
                return _showdown_values(reach, pay, beaten_by, compare)

            def combine(node: Node, children: list[list[Fraction]]) -> list[Fraction]:
                if node.actor != self.role:
                    live = [ch for ch in children if ch is not zeros]
                    if not live:
                        return zeros
                    if len(live) == 1:                  # one child reached: its values
                        return live[0]
                    if len(live) == 2:                  # `_total` of two, inlined
                        return [a if b is ZERO else b if a is ZERO else a + b
                                for a, b in zip(*live)]
                    return [_total([ch[x] for ch in live]) for x in range(n)]
                if all(ch is zeros for ch in children):   # no reach below: all zero
                    nothing = [ZERO] * len(children)
                    for x in range(n):
                        q[("bet", tc, to, node.history, x)] = nothing
                    return zeros
                picks = self._likeliest((tc, to, node.history))
                choice = self.choice
                out = []
                for x in range(n):
                    key = ("bet", tc, to, node.history, x)
                    values = [ch[x] for ch in children]
                    q[key] = values
                    out.append(max(values) if best else values[choice.get(key, picks[x])])
                return out

            roots[(tc, to)] = tree.pull([leaf_value(leaf) for leaf in tree.leaves], combine)[0]
        self._throw_values(q, roots, best, publics is not None)
        return q

    def _throw_values(self, q: dict, roots: dict[tuple, list[Fraction]], best: bool,
                      sparse: bool) -> None:
        """The throwing decisions' values into q, from each public state's values at its
        root (`roots`). With `sparse` (a unit column), a throw whose values are all zero
        is left out: the rows read a missing decision as zeros."""
        m, n, T = self.model, self.model.num_hands, self.model.throws
        throw = self.strategy.throw[self.role]
        for c in range(throw.shape[0]):
            if self.role == CAPTAIN:
                stop = [[_total([roots[(tc, to)][x] for to in range(1, T + 1)])
                         for x in range(n)] for tc in range(1, T + 1)]
            else:
                stop = [roots[(c + 1, to)] for to in range(1, T + 1)]
            v = stop[T - 1]
            for t in range(T - 2, -1, -1):
                if sparse and _zero(v) and _zero(stop[t]):
                    continue            # every value zero, and v stays zero
                again: list[Fraction | None] = [None] + [
                    _total([p * v[k] for k, p in self.outcome[a].items() if v[k] is not ZERO])
                    for a in range(1, len(m.throw_actions))]
                picks = self._likeliest_throw(c, t)
                new: list[Fraction] = []
                for x in range(n):
                    options = [stop[t][x]] + [again[a] if m.throw_legal[a, x] else None
                                              for a in range(1, len(m.throw_actions))]
                    key = ("throw", c, t, x)
                    q[key] = options
                    if best:
                        new.append(max(o for o in options if o is not None))
                    else:
                        chosen = options[self.choice.get(key, picks[x])]
                        assert chosen is not None           # a legal action is picked
                        new.append(chosen)
                v = new

    def revise(self, plan: _Realization, responder_plan: Plan) -> tuple[int, set]:
        """Against the exact plan: at the decisions the responder never reaches, switch his
        later choice to an exactly best action where the float one is not (an unplayed
        action's value reads them). Returns how many switched, and the unplayed actions
        that beat the played one at a decision he reaches (ties the system must impose)."""
        q = self.q_values(plan, best=True)
        switched, beaten = 0, set()
        for key, values in q.items():
            probs, legal, reach = responder_plan.decisions[key]
            options = {a: v for a, v in enumerate(values) if v is not None and legal[a]}
            top = max(options.values())
            if reach <= REACHED:
                picked = values[self._pick(key, np.where(legal, probs, -1.0))]
                assert picked is not None                   # a legal action is picked
                if picked < top:
                    self.choice[key] = next(a for a, v in options.items() if v == top)
                    switched += 1
            else:
                support = responder_plan.support[key]
                played = values[support[0]]
                assert played is not None                   # played actions are legal
                beaten |= {(key, support[0], b) for b, v in options.items()
                           if b not in support and v > played}
        return switched, beaten


def _zero(values: list[Fraction]) -> bool:
    """Whether every value is the shared zero (tested in C: most of a unit column's
    values are)."""
    return all(map(operator.is_, values, itertools.repeat(ZERO)))


def _total(values: list[Fraction]) -> Fraction:
    """The exact sum of `values`, the shared zeros skipped (adding ZERO to a Fraction
    costs a Fraction addition and a gcd, and most of a unit column's values are ZERO);
    from three values on, one integer sum over their common denominator (a Fraction
    addition per value costs a gcd and a new Fraction each)."""
    live = [v for v in values if v is not ZERO]
    if len(live) <= 2:
        return ZERO if not live else live[0] if len(live) == 1 else live[0] + live[1]
    denominator = 1
    for v in live:
        if denominator % v.denominator:
            denominator = math.lcm(denominator, v.denominator)
    return Fraction(sum([v.numerator * (denominator // v.denominator) for v in live]),
                    denominator)


def _showdown_values(reach: list[Fraction], pay: list, beaten_by: list,
                     compare: list | None = None) -> list[Fraction]:
    """sum over y of reach[y] * pay[compare(x, y)] for every hand x, exactly: the reach
    as integers over one common denominator, so that each hand's sums over the hands it
    ties with and beats are integer additions (the Fractions' products and gcds were
    most of the recovery's time). With `compare` ([x][y]: 0, 1, -1, as `pay` is indexed)
    and one hand y reached (a betting unknown's column), each value is one of
    reach[y] * pay[...]: three products, shared."""
    if compare is not None:
        reached = [y for y, r in enumerate(reach) if r is not ZERO and r]
        if len(reached) == 1:
            y = reached[0]
            products = [reach[y] * p for p in pay]
            return [products[row[y]] for row in compare]
    pays = [Fraction(p) for p in pay]
    scale = math.lcm(*(p.denominator for p in pays))
    p_tie, p_win, p_lose = (p.numerator * (scale // p.denominator) for p in pays)
    denominator = math.lcm(*(r.denominator for r in reach))
    ints = [r.numerator * (denominator // r.denominator) for r in reach]
    total = sum(ints)
    out = []
    for ties, beats in beaten_by:
        tie = sum([ints[y] for y in ties])
        win = sum([ints[y] for y in beats])
        out.append(Fraction(p_tie * tie + p_win * win + p_lose * (total - tie - win),
                            denominator * scale))
    return out


def _candidate_rows(responder_plan: Plan) -> tuple[list, list]:
    """The responder's indifferences: (decision, a, b) for a, b in the support of a mixed
    decision; and, at every decision, reached or not, (decision, played, other legal
    action): candidates for the ties that pin a vertex down."""
    mixed, ties = [], []
    for key, support in responder_plan.support.items():
        mixed += [(key, support[0], b) for b in support[1:]]
        probs, legal, _ = responder_plan.decisions[key]
        ties += [(key, support[0], b) for b in range(len(probs))
                 if b not in support and legal[b]]
    return mixed, ties


def _solve_exact(rows: list[list[Fraction]], rhs: list[Fraction], guess: list[float]
                 ) -> list[Fraction] | None:
    """A solution of rows @ u = rhs (free unknowns set to their float guesses, rounded to
    simple fractions), or None if inconsistent.

    The ties give many more rows than unknowns, most of them repeats or combinations of
    others: rows independent in floating point are picked first (QR with pivoting) and
    solved exactly, then every row is checked exactly; only if one fails are all of them
    eliminated in Fractions."""
    distinct: dict[tuple, None] = {}
    for row, b in zip(rows, rhs):
        if any(row):
            distinct[tuple(row) + (b,)] = None
        elif b != 0:
            return None                                  # 0 = b
    if not distinct:
        return _eliminate([], [], guess)
    rows = [list(key[:-1]) for key in distinct]
    rhs = [key[-1] for key in distinct]
    floats = np.array([[0.0 if x is ZERO else float(x) for x in row] for row in rows])
    floats /= np.abs(floats).max(axis=1, keepdims=True)
    _, r, order = scipy.linalg.qr(floats.T, mode="economic", pivoting=True)
    size = np.abs(np.diag(r))
    rank = int(np.sum(size > 1e-9 * size[0]))
    picked = sorted(order[:rank].tolist())
    u = _eliminate([rows[i] for i in picked], [rhs[i] for i in picked], guess)
    if u is not None and all(sum((x * y for x, y in zip(row, u) if x), ZERO) == b
                             for row, b in zip(rows, rhs)):
        return u
    return _eliminate(rows, rhs, guess)


def _eliminate(rows: list[list[Fraction]], rhs: list[Fraction], guess: list[float]
               ) -> list[Fraction] | None:
    """Gauss-Jordan elimination in Fractions: `_solve_exact`'s answer, from every row."""
    U = len(guess)
    A = [row[:] + [b] for row, b in zip(rows, rhs)]
    pivots = []
    r = 0
    for col in range(U):
        best = max(range(r, len(A)), key=lambda i: abs(A[i][col]), default=None)
        if best is None or A[best][col] == 0:
            continue
        A[r], A[best] = A[best], A[r]
        inv = 1 / A[r][col]
        A[r] = [x * inv if x else x for x in A[r]]
        for i in range(len(A)):
            if i != r and A[i][col] != 0:
                f = A[i][col]
                A[i] = [x - f * y if y else x for x, y in zip(A[i], A[r])]
        pivots.append(col)
        r += 1
        if r == len(A):
            break
    if any(all(x == 0 for x in row[:U]) and row[U] != 0 for row in A[r:]):
        return None
    u = [Fraction(0)] * U
    free = [col for col in range(U) if col not in pivots]
    for col in free:
        u[col] = nearest_fraction(guess[col], 10 ** 9)
    for i, col in enumerate(pivots):
        u[col] = A[i][U] - sum(A[i][j] * u[j] for j in free)
    return u


def _affine_rows(plan: Plan, responder: _Responder, rows,
                 progress: Step | None = None, step: str = "",
                 known: dict[int, list] | None = None) -> tuple[list, list]:
    """Exact coefficients of each indifference row in the plan's unknowns: (right side,
    the matrix's columns; `_rows` and `_float_matrix` read its rows). `known` gives
    columns that need no computing (a round whose revised choices lie in public states
    these unknowns do not reach)."""
    U = len(plan.unknowns)
    known = known or {}

    # the rows of each public state's betting decisions, and the throwing rows (which
    # read every state's value): a column of a few states computes only theirs
    by_public: dict[tuple, list[int]] = {}
    for i, (key, _, _) in enumerate(rows):
        by_public.setdefault(key[1:3] if key[0] == "bet" else (), []).append(i)

    def rows_of(q, publics: set | None = None):
        if publics is None:
            which: list[int] = list(range(len(rows)))
        else:
            which = by_public.get((), []) + [i for p in publics for i in by_public.get(p, [])]
        out = [ZERO] * len(rows)
        for i in which:
            key, a, b = rows[i]
            values = q.get(key)
            if values is not None:
                first, second = values[a], values[b]
                if first is not second:                 # shared zeros need no arithmetic
                    out[i] = (first if second is ZERO else -second if first is ZERO
                              else first - second)
        return out

    # q is linear in the plan's leaf reach, which is affine in u: each column is the change
    # a unit vector makes, and it reaches the leaves of a few public states only.
    zero = [Fraction(0)] * U
    base_plan = plan.realize(zero)
    base = rows_of(responder.q_values(base_plan))
    columns = []
    for k in range(U):
        if progress is not None:
            progress(step, k, U)
        if k in known:
            columns.append(known[k])
            continue
        e = zero[:]
        e[k] = Fraction(1)
        publics = plan.publics(plan.unknowns[k])
        moved = plan.realize(e, publics,
                             base_plan.ends if plan.unknowns[k][0][0] == "bet" else None)
        delta = _Realization({}, {}, _difference(moved.leaf_reach, base_plan.leaf_reach,
                                                 plan.unknowns[k][0]))
        columns.append(rows_of(responder.q_values(delta, publics=publics), publics))
    if progress is not None:
        progress(step, U, U)
    return [-b0 for b0 in base], columns


def _difference(moved: dict[tuple, list[Fraction]], base: dict[tuple, list[Fraction]],
                key: tuple) -> dict[tuple, list[Fraction]]:
    """The leaf reach `moved` minus `base`, of the leaves `moved` holds. A betting
    unknown (key ("bet", tc, to, history, h)) moves hand h's reach only: each hand's plan
    in a public state is its own, so the others' differences are zero, not computed."""
    out = {}
    if key[0] == "bet":
        h = key[-1]
        for leaf, reach in moved.items():
            row = [ZERO] * len(reach)
            if reach[h] != base[leaf][h]:
                row[h] = reach[h] - base[leaf][h]
            out[leaf] = row
        return out
    for leaf, reach in moved.items():
        out[leaf] = [ZERO if a is b or a == b else a - b for a, b in zip(reach, base[leaf])]
    return out


class RecoveryError(Exception):
    """Why no exact equilibrium was recovered (one line, for the user)."""


def recover_role(model: HandModel, strategy: Strategy, plans: dict, role: int,
                  progress: Step | None) -> dict[tuple, list[Fraction]]:
    """The player's exact strategy: solve the other's indifferences, then, against the
    exact point, revise the other's choices at decisions he never reaches and impose the
    ties an unplayed action wins; until nothing changes."""
    plan, other = plans[role], plans[1 - role]
    who = ROLE_NAMES[role]
    responder = _Responder(model, strategy, 1 - role)
    mixed, ties = _candidate_rows(other)
    forced: set = set()
    known: dict[int, list] = {}
    for round_ in range(1, MAX_ROUNDS + 1):
        step = f"{who}'s strategy" + (f" (round {round_})" if round_ > 1 else "")
        rhs, columns = _affine_rows(plan, responder, mixed + ties, progress, step, known)
        guess = plan.float_values
        # ties: decisions where another action is as good at the float point
        floats = _float_matrix(columns, len(rhs))
        at_guess = floats @ np.asarray(guess) - np.array([float(b) for b in rhs])
        keep = list(range(len(mixed))) + [
            len(mixed) + i for i, row in enumerate(ties)
            if abs(at_guess[len(mixed) + i]) <= TIE or row in forced]
        u = _solve_exact(_rows(columns, keep), [rhs[i] for i in keep], guess)
        if u is None:
            u = _solve_exact(_rows(columns, range(len(mixed))), rhs[:len(mixed)], guess)
        if u is None:
            raise RecoveryError(
                f"the {ROLE_NAMES[1 - role]}'s indifferences at his mixed decisions have no "
                f"exact solution in the {who}'s unknowns: these supports are not an "
                f"equilibrium's")
        probs = plan.exact_probabilities(u)
        if probs is None:
            raise RecoveryError(f"the {who}'s exact strategy would play an action with a "
                                f"negative probability: the supports are not an equilibrium's")
        before = dict(responder.choice)
        switched, beaten = responder.revise(plan.realize(u), other)
        if not switched and not beaten - forced:
            return probs
        forced |= beaten
        known = _unchanged_columns(plan, columns, [
            key for key, a in responder.choice.items() if before.get(key) != a])
    raise RecoveryError(f"the {who}'s strategy still changed after {MAX_ROUNDS} rounds of "
                        f"ties")


def _float_matrix(columns: list[list[Fraction]], rows: int) -> np.ndarray:
    """The matrix whose columns are `columns`, in floats: filled where they are not the
    shared zero (most of a unit vector's rows are), without the exact matrix's transpose."""
    out = np.zeros((rows, len(columns)))
    for k, column in enumerate(columns):
        # the rows that are not the shared zero, the test run in C (8736 rows a column)
        live = list(itertools.compress(range(rows), map(operator.is_not, column,
                                                         itertools.repeat(ZERO))))
        out[live, k] = [float(column[i]) for i in live]
    return out


def _rows(columns: list[list[Fraction]], which) -> list[list[Fraction]]:
    """The exact rows `which` of the matrix whose columns are `columns`."""
    return [[column[i] for column in columns] for i in which]


def _unchanged_columns(plan: Plan, columns: list, switched: list[tuple]
                       ) -> dict[int, list]:
    """The columns a round can keep after the responder's choices at `switched` decisions
    changed: a column is computed from the public states its unknown reaches alone (the
    others' leaf reach taken as zero), so it stays unless one of them holds a switched
    decision. A switched throwing decision reads every state's value: nothing stays."""
    if any(key[0] != "bet" for key in switched):
        return {}
    touched = {key[1:3] for key in switched}
    return {k: column for k, column in enumerate(columns)
            if not plan.publics(plan.unknowns[k]) & touched}


def both_plans(model: HandModel, strategy: Strategy) -> dict[int, Plan]:
    """Both plans; RecoveryError if one mixes at too many decisions for an LP vertex."""
    plans: dict[int, Plan] = {role: Plan(model, strategy, role) for role in (CAPTAIN, OPPONENT)}
    for role, plan in plans.items():
        if len(plan.unknowns) > MAX_UNKNOWNS:
            mixed = sum(len(s) > 1 for s in plan.support.values())
            raise RecoveryError(
                f"the {ROLE_NAMES[role]}'s strategy mixes at {mixed} decisions "
                f"({len(plan.unknowns)} unknowns, more than {MAX_UNKNOWNS}): not the few "
                f"supports of an LP vertex (a CFR average mixes a little everywhere)")
    return plans


def exact_strategies(model: HandModel, strategy: Strategy,
                     progress: Step | None = None) -> dict[tuple, list[Fraction]] | None:
    """Exact probabilities at every decision of both players, or None."""
    try:
        return _exact_strategies(model, strategy, progress)
    except RecoveryError:
        return None


def _exact_strategies(model: HandModel, strategy: Strategy,
                      progress: Step | None) -> dict[tuple, list[Fraction]]:
    plans = both_plans(model, strategy)
    out: dict[tuple, list[Fraction]] = {}
    for role in (CAPTAIN, OPPONENT):
        out.update(recover_role(model, strategy, plans, role, progress))
    return out


@dataclasses.dataclass(frozen=True)
class Recovery:
    """What the recovery proved (None if it found no strategies); when the value is proved,
    the exact probabilities (keyed like `certificate.decisions`) and the float strategy
    they were recovered from (the LP's, or its completion); otherwise why not."""

    certificate: Certificate | None
    reason: str | None = None
    exact: dict[tuple, list[Fraction]] | None = None
    strategy: Strategy | None = None


def recover(model: HandModel, strategy: Strategy,
            progress: Step | None = None) -> Recovery:
    """The interval (a single value when the recovery works) proved by the exact
    strategies recovered from `strategy`, or from its completion if that fails, and why
    the value is not proved when it is not. Every attempt is a proof, so their
    intersection is one too. `progress(step, done, total)` is called along the way.

    What cannot work is refused before the exact work starts: strategies measurably away
    from equilibrium (a CFR average, a perturbed file) or mixing at too many decisions."""
    gap = best_response.exploitability(model, strategy).nash_conv
    if not gap <= NEAR_EQUILIBRIUM:
        return Recovery(None, f"these strategies are {gap:.2g} from equilibrium (NashConv), "
                              f"more than {NEAR_EQUILIBRIUM:g}: only an LP's equilibrium is "
                              f"close enough to recover")
    proofs: list[Certificate] = []
    reasons: list[str] = []
    for completed in (False, True):
        candidate = best_response.complete_unreached(model, strategy) if completed else strategy
        try:
            plans = both_plans(model, candidate)
        except RecoveryError as error:
            return Recovery(None, str(error))     # completion changes no reached decision
        try:
            found: dict = {}
            for role in (CAPTAIN, OPPONENT):
                found.update(recover_role(model, candidate, plans, role, progress))
        except RecoveryError as error:
            reasons.append(str(error))
            continue
        if progress is not None:
            progress("proof", 0, 1)
        proofs.append(prove_fractions(model, candidate, found))
        if progress is not None:
            progress("proof", 1, 1)
        if proofs[-1].exact is not None:
            return Recovery(proofs[-1], exact=found, strategy=candidate)
        reasons.append(f"the recovered strategies are not an exact equilibrium (they prove "
                       f"an interval of width {float(proofs[-1].width):.2g})")
    certificate = None if not proofs else Certificate(
        lower=max(p.lower for p in proofs), upper=min(p.upper for p in proofs))
    return Recovery(certificate, reasons[-1])


def exact_value(model: HandModel, strategy: Strategy,
                progress: Step | None = None) -> Certificate | None:
    """The interval (a single value when the recovery works) proved by the exact
    strategies recovered from `strategy`, or from its completion if that fails; None if
    nothing was recovered (`recover` also says why)."""
    return recover(model, strategy, progress).certificate
