"""An exact rational equilibrium recovered from a floating-point one.

The LP's equilibrium mixes at few decisions (default game: 39 of the captain's, 76 of the
opponent's, out of thousands) and is pure everywhere else. Fix those supports. Then a
player's realization plan is an affine function of a few unknowns (the weights of all but
one action at each mixed decision), and the other player's indifference at each of *his*
mixed decisions is a linear equation in them: each player's exact strategy solves a small
linear system built from the other's indifferences. Its coefficients are computed exactly,
from the rules' fractions, by evaluating the (affine) counterfactual values at zero and at
the unit vectors; the system is solved in Fractions. Where the indifferences leave unknowns
free, ties at the responder's pure decisions (equal values at the float point, as at an LP
vertex) are added as equations, and unknowns still free keep their float values, rounded to
simple fractions.

Decisions a player never reaches, and the responder's later choices, take the most likely
action of the strategy. Where that play is arbitrary (the raw LP's) the recovery can miss,
so `exact_value` tries again on the strategy completed by best responses to a trembling
opponent (`best_response.complete_unreached`, as `solve` does). Which completion works is
not understood: on the french ranking `solve`'s strategy works and completing it once more
does not, while the raw LP strategy fails and its completion works.

Nothing here is trusted: the strategies go to `solver.certificate`, whose bounds meet only
if they are an exact equilibrium. `exact_value` returns None whenever the supports or the
system do not give strategies (the float interval stands then), and an interval, not a
value, if the strategies it finds are not an equilibrium.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT, Leaf, Node
from solver import best_response
from solver.certificate import Certificate, prove_fractions
from solver.model import HandModel
from solver.reach import own_reach
from solver.strategy import Strategy

SUPPORT = 1e-9        # a float probability above this is in the support
ZERO = Fraction(0)
REACHED = 1e-12       # a float own reach above this makes a decision count
# More unknowns than this for one player: the supports are not an LP vertex's (a CFR
# average mixes a little everywhere) and the recovery gives up rather than grind.
MAX_UNKNOWNS = 400


@dataclasses.dataclass
class _Realization:
    """One player's exact realization plan."""

    mass: dict[tuple, Fraction]                 # reaching each decision
    split: dict[tuple, list[Fraction]]          # each action's share of it
    leaf_reach: dict[tuple, list[Fraction]]     # (tc, to, leaf index) -> per hand


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


class _Plan:
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
        out = [Fraction(0)] * len(self.decisions[key][0])
        for a in support[:-1]:
            out[a] = u[self.index[(key, a)]]
        out[support[-1]] = mass - sum(out[a] for a in support[:-1])
        return out

    def realize(self, u: list[Fraction]) -> _Realization:
        m, n, T = self.model, self.model.num_hands, self.model.throws
        mass_at: dict[tuple, Fraction] = {}
        split: dict[tuple, list[Fraction]] = {}
        ends = []
        for c in range(self.strategy.throw[self.role].shape[0]):
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
        return _Realization(mass_at, split, leaf_reach)

    def exact_probabilities(self, u: list[Fraction]) -> dict[tuple, list[Fraction]] | None:
        """Exact behaviour at every decision of the player, keyed as
        `certificate.decisions` keys them, from the plan at u; None if some action would
        get a negative weight."""
        r = self.realize(u)
        out: dict[tuple, list[Fraction]] = {}
        for key, shares in r.split.items():
            if any(s < 0 for s in shares):
                return None
            mass = r.mass[key]
            if mass > 0:
                probs = [s / mass for s in shares]
            else:                                   # unreached: the float choice, made pure
                probs = [Fraction(int(a == self.support[key][0])) for a in range(len(shares))]
            if key[0] == "throw":
                out[("throw", self.role) + key[1:]] = probs
            else:
                out[("bet", key[1:4], key[4])] = probs
        return out


class _Responder:
    """The other player's counterfactual action values against a realization plan, with his
    later choices fixed to his float strategy's most likely action."""

    def __init__(self, model: HandModel, strategy: Strategy, role: int):
        self.model, self.strategy, self.role = model, strategy, role
        self.outcome = _outcomes(model)
        self.compare = model.compare.astype(int).tolist()     # rules.compare

    def q_values(self, plan: _Realization) -> dict[tuple, list[Fraction]]:
        """Counterfactual value of each action at each of the responder's decisions: linear
        in the plan's leaf reach (the only part of the plan it reads)."""
        m, n, T = self.model, self.model.num_hands, self.model.throws
        sign = 1 if self.role == CAPTAIN else -1
        q: dict[tuple, list[list[Fraction]]] = {}
        roots: dict[tuple, list[Fraction]] = {}
        flip = 1 if self.role == CAPTAIN else -1
        for tc, to in m.public_states:
            tree = m.tree((tc, to))

            def leaf_value(leaf: Leaf) -> list[Fraction]:
                reach = plan.leaf_reach[(tc, to, leaf.index)]
                if not any(reach):
                    return [ZERO] * n
                if not tree.compares_hands(leaf):
                    return [sign * tree.payoff(leaf, 0) * sum(reach)] * n
                ys = [y for y in range(n) if reach[y]]
                return [sign * sum((reach[y] * tree.payoff(leaf, flip * self.compare[x][y])
                                    for y in ys), Fraction(0)) for x in range(n)]

            def combine(node: Node, children: list[list[Fraction]]) -> list[Fraction]:
                if node.actor != self.role:
                    return [sum(ch[x] for ch in children) for x in range(n)]
                probs = self.strategy.betting[(tc, to, node.history)]
                out = []
                for x in range(n):
                    q[("bet", tc, to, node.history, x)] = [ch[x] for ch in children]
                    out.append(children[int(np.argmax(probs[:, x]))][x])
                return out

            roots[(tc, to)] = tree.pull([leaf_value(leaf) for leaf in tree.leaves], combine)[0]
        throw = self.strategy.throw[self.role]
        for c in range(throw.shape[0]):
            if self.role == CAPTAIN:
                stop = [[sum(roots[(tc, to)][x] for to in range(1, T + 1)) for x in range(n)]
                        for tc in range(1, T + 1)]
            else:
                stop = [roots[(c + 1, to)] for to in range(1, T + 1)]
            v = stop[T - 1]
            for t in range(T - 2, -1, -1):
                again = [None] + [sum((p * v[k] for k, p in self.outcome[a].items()), Fraction(0))
                                  for a in range(1, len(m.throw_actions))]
                new = []
                for x in range(n):
                    options = [stop[t][x]] + [again[a] if m.throw_legal[a, x] else None
                                              for a in range(1, len(m.throw_actions))]
                    q[("throw", c, t, x)] = options
                    probs = np.where(m.throw_legal[:, x], throw[c, t, :, x], -1.0)
                    new.append(options[int(np.argmax(probs))])
                v = new
        return q


def _candidate_rows(responder_plan: _Plan) -> tuple[list, list]:
    """The responder's indifferences: (decision, a, b) for a, b in the support of a mixed
    decision; and, at his reached pure decisions, (decision, played, other legal action):
    candidates for the ties that pin a vertex down."""
    mixed, ties = [], []
    for key, support in responder_plan.support.items():
        if len(support) >= 2:
            mixed += [(key, support[0], b) for b in support[1:]]
        elif responder_plan.decisions[key][2] > REACHED:
            probs, legal, _ = responder_plan.decisions[key]
            ties += [(key, support[0], b) for b in range(len(probs))
                     if b != support[0] and legal[b]]
    return mixed, ties


def _solve_exact(rows: list[list[Fraction]], rhs: list[Fraction], guess: list[float]
                 ) -> list[Fraction] | None:
    """A solution of rows @ u = rhs (free unknowns set to their float guesses, rounded to
    simple fractions), or None if inconsistent."""
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
        A[r] = [x * inv for x in A[r]]
        for i in range(len(A)):
            if i != r and A[i][col] != 0:
                f = A[i][col]
                A[i] = [x - f * y for x, y in zip(A[i], A[r])]
        pivots.append(col)
        r += 1
        if r == len(A):
            break
    if any(all(x == 0 for x in row[:U]) and row[U] != 0 for row in A[r:]):
        return None
    u = [Fraction(0)] * U
    free = [col for col in range(U) if col not in pivots]
    for col in free:
        u[col] = Fraction(guess[col]).limit_denominator(10 ** 9)
    for i, col in enumerate(pivots):
        u[col] = A[i][U] - sum(A[i][j] * u[j] for j in free)
    return u


def _affine_rows(plan: _Plan, responder: _Responder, rows) -> tuple[list, list]:
    """Exact coefficients of each indifference row in the plan's unknowns."""
    U = len(plan.unknowns)

    def rows_of(q):
        return [q[key][a] - q[key][b] for key, a, b in rows]

    # q is linear in the plan's leaf reach and its turn ends, and they are affine in u:
    # each column comes from the (sparse) change a unit vector makes.
    zero = [Fraction(0)] * U
    base_plan = plan.realize(zero)
    base = rows_of(responder.q_values(base_plan))
    columns = []
    for k in range(U):
        e = zero[:]
        e[k] = Fraction(1)
        moved = plan.realize(e)
        delta = _Realization(
            {}, {},
            {leaf: [a - b if a != b else ZERO
                    for a, b in zip(moved.leaf_reach[leaf], base_plan.leaf_reach[leaf])]
             for leaf in base_plan.leaf_reach})
        columns.append(rows_of(responder.q_values(delta)))
    matrix = [[columns[k][i] for k in range(U)] for i in range(len(rows))]
    return matrix, [-b0 for b0 in base]


def exact_strategies(model: HandModel, strategy: Strategy
                     ) -> dict[tuple, list[Fraction]] | None:
    """Exact probabilities at every decision of both players, or None."""
    plans = {role: _Plan(model, strategy, role) for role in (CAPTAIN, OPPONENT)}
    if any(len(plan.unknowns) > MAX_UNKNOWNS for plan in plans.values()):
        return None
    out: dict[tuple, list[Fraction]] = {}
    for role in (CAPTAIN, OPPONENT):
        other = plans[1 - role]
        responder = _Responder(model, strategy, 1 - role)
        mixed, ties = _candidate_rows(other)
        matrix, rhs = _affine_rows(plans[role], responder, mixed + ties)
        guess = plans[role].float_values
        # ties: pure decisions where another action is as good at the float point
        at_guess = [sum(a * g for a, g in zip(row, guess)) - float(b)
                    for row, b in zip(matrix, rhs)]
        keep = list(range(len(mixed))) + [len(mixed) + i for i in range(len(ties))
                                          if abs(at_guess[len(mixed) + i]) <= 1e-10]
        u = _solve_exact([matrix[i] for i in keep], [rhs[i] for i in keep], guess)
        if u is None:
            u = _solve_exact(matrix[:len(mixed)], rhs[:len(mixed)], guess)
        probs = None if u is None else plans[role].exact_probabilities(u)
        if probs is None:
            return None
        out.update(probs)
    return out


def exact_value(model: HandModel, strategy: Strategy) -> Certificate | None:
    """The interval (a single value when the recovery works) proved by the exact
    strategies recovered from `strategy`, or from its completion if that fails; None if
    nothing was recovered. Every attempt is a proof, so their intersection is one too."""
    proofs: list[Certificate] = []
    for completed in (False, True):
        candidate = best_response.complete_unreached(model, strategy) if completed else strategy
        found = exact_strategies(model, candidate)
        if found is not None:
            proofs.append(prove_fractions(model, candidate, found))
            if proofs[-1].exact is not None:
                break
    if not proofs:
        return None
    return Certificate(lower=max(p.lower for p in proofs), upper=min(p.upper for p in proofs))
