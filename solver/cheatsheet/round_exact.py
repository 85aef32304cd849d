"""A person playing fixed stage strategies against the round's equilibrium opponent: his
chance to win the round, proved to lie in an exact interval.

Both people's strategies are fixed, so his chance is the solution of one absorbing chain
x = r + M x over (state, his seat) (`solver.round.evaluate.pair_values` solves it in
floating point). Here M and r are exact: every hand's transition probabilities are computed
in integers from the strategies read as exact binary fractions (as the round's certificate
reads them, `certificate.exact_probabilities`), the rules' exact dice probabilities and the
ranking; the open throws' from their exact solutions. The floating-point solution x is then
moved by a margin eta * D (D: the expected number of hands left, which this chain's step
lowers by one) into a super-solution x+ (T x+ <= x+) and a sub-solution x- (T x- >= x-),
each checked exactly at every key. A super-solution bounds x from above; a sub-solution
bounds it from below when play ends with probability 1, which the certificate of the
sheet (`certify_round`: every reply to it ends the round) proves for this opponent too.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Callable, Mapping

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT, SHOWDOWN, Role
from solver.hand.exact.certificate import exact_probabilities, mass_by_strength
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy
from solver.round import markov
from solver.round.evaluate import combined, pair_rows
from solver.round.solve import RoundSolution
from solver.round.states import ChipState, Next, State, after_leaf

ETAS = (Fraction(1, 10 ** 12), Fraction(1, 10 ** 10), Fraction(1, 10 ** 8))
Key = tuple[State, int]          # (state, 0 if the person is captain or first thrower)
Scaled = tuple[list[int], int]   # integers over one denominator
Mine = Callable[[ChipState], Strategy]


class PairProofError(RuntimeError):
    """No exact bracket was found (the floating-point solution is too far off)."""


@dataclasses.dataclass(frozen=True)
class PairBounds:
    lower: dict[Key, Fraction]
    upper: dict[Key, Fraction]
    estimate: dict[Key, float]
    margin: Fraction


def _exact_rows(probs: np.ndarray, legal: np.ndarray) -> list[list[int]]:
    """(actions, n) probabilities as integers over 2^53, one list per hand."""
    return [exact_probabilities(probs[:, h], legal[:, h]) for h in range(probs.shape[1])]


class _ExactPair:
    """Exact leaf probabilities of one stage game when both players' strategies are fixed."""

    Q = 1 << 53

    def __init__(self, model: HandModel, strategy: Strategy):
        self.model = model
        self.n = model.num_hands
        self.F = model.faces ** 3
        self.prior = [int(p * self.F) for p in model.prior_exact]
        self.moves = [[[(k, int(p * self.F)) for k, p in model.exact_transition(a, h).items()]
                       if model.throw_legal[i, h] else [] for h in range(self.n)]
                      for i, a in enumerate(model.throw_actions)]
        self.throw = [[[_exact_rows(d, model.throw_legal) for d in context]
                       for context in strategy.throw[role]] for role in (CAPTAIN, OPPONENT)]
        self.betting = {key: _exact_rows(p, np.ones(p.shape, dtype=bool))
                        for key, p in strategy.betting.items()}
        self.order = np.argsort(model.strength, kind="stable")
        self.strength = model.strength.tolist()
        self.exceptions = list(model.exceptions)

    def end_mass(self, role: int, context: int) -> list[Scaled]:
        """P(ending the turn after each throw, with each hand), exactly."""
        decisions = self.throw[role][context]
        mass: Scaled = (list(self.prior), self.F)
        ends: list[Scaled] = []
        for t in range(self.model.throws - 1):
            nums, den = mass
            ends.append(([nums[h] * decisions[t][h][0] for h in range(self.n)], den * self.Q))
            nxt = [0] * self.n
            for h in range(self.n):
                for a in range(1, len(decisions[t][h])):
                    weight = nums[h] * decisions[t][h][a]
                    if weight:
                        for k, pk in self.moves[a][h]:
                            nxt[k] += weight * pk
            mass = (nxt, den * self.Q * self.F)
        ends.append(mass)
        return ends

    def _showdown(self, rc: list[int], ro: list[int]) -> dict[int, int]:
        """Sum over hand pairs of rc[x] ro[j] by compare(x, j): the ranking's order, then
        the exceptions (`HandModel.exceptions`: winner over a hand ranked above it)."""
        at, below, running = mass_by_strength(ro, self.strength, max(self.strength) + 1)
        out = {1: 0, 0: 0, -1: 0}
        for x, weight in enumerate(rc):
            if weight:
                s = self.strength[x]
                out[1] += weight * below[s]
                out[0] += weight * at[s]
                out[-1] += weight * (running - below[s] - at[s])
        for winner, loser in self.exceptions:
            # the order says the loser (ranked above) beats the winner: move their mass
            out[1] += rc[winner] * ro[loser] - rc[loser] * ro[winner]
            out[-1] += rc[loser] * ro[winner] - rc[winner] * ro[loser]
        return out

    def leaves(self) -> dict[tuple[int, int, int], Fraction]:
        """P(first bettor, leaf, outcome), exactly (outcome 0 where no hands are shown)."""
        T = self.model.throws
        out: dict[tuple[int, int, int], Fraction] = {}
        captain = self.end_mass(CAPTAIN, 0)
        for tc in range(1, T + 1):
            opponent = self.end_mass(OPPONENT, tc - 1)
            for to in range(1, T + 1):
                self._public(tc, to, captain[tc - 1], opponent[to - 1], out)
        return out

    def _public(self, tc: int, to: int, rc: Scaled, ro: Scaled,
                out: dict[tuple[int, int, int], Fraction]) -> None:
        tree = self.model.tree((tc, to))

        def step(node, a: int, pair: tuple[Scaled, Scaled]) -> tuple[Scaled, Scaled]:
            probs = self.betting[(tc, to, node.history)]
            own = list(pair)
            nums, den = own[node.actor]
            own[node.actor] = ([x * probs[h][a] for h, x in enumerate(nums)], den * self.Q)
            return own[0], own[1]

        _, at_leaf = tree.push((rc, ro), step)
        for leaf, ((cn, cd), (on, od)) in zip(tree.leaves, at_leaf):
            den = cd * od
            if leaf.kind == SHOWDOWN:
                sums = self._showdown(cn, on)
            else:
                sums = {0: sum(cn) * sum(on)}
            for o, num in sums.items():
                if num:
                    key = (int(tree.first), leaf.index, o)
                    out[key] = out.get(key, Fraction(0)) + Fraction(num, den)


def exact_transitions(model: HandModel, state: ChipState, strategy: Strategy
                      ) -> dict[Next, Fraction]:
    """Where the hand at `state` leads under `strategy` (both players'), exactly."""
    out: dict[Next, Fraction] = {}
    for (first, index, o), p in _ExactPair(model, strategy).leaves().items():
        leaf = model.trees[Role(first)].leaves[index]
        nxt = after_leaf(state, leaf, o)
        out[nxt] = out.get(nxt, Fraction(0)) + p
    if sum(out.values()) != 1:
        raise PairProofError(f"the exact transitions of {state.label()} do not add up to 1")
    return out


def exact_rows(solution: RoundSolution, mine: Mine) -> dict[Key, list[markov.ExactTerm[Key]]]:
    """The chain of a person playing `mine(state)` at every chip state against the solved
    strategies (both keep the solved open-throw policies), with exact terms."""
    def moves(s: ChipState, first: bool) -> dict[Next, Fraction]:
        stage = solution.stages[s]
        a, b = mine(s), stage.strategy
        pair = combined(stage.model, a, b) if first else combined(stage.model, b, a)
        return exact_transitions(stage.model, s, pair)

    return pair_rows(solution, moves, lambda s: solution.open_throws[s].solved.p_l_wins,
                     Fraction(0))


def _floats(rows: Mapping[Key, list[markov.ExactTerm[Key]]], per_step: float
            ) -> dict[Key, float]:
    """The chain solved in floating point; `per_step` adds that much at every key (1: the
    expected number of steps to the end)."""
    float_rows = {key: [(None, per_step)] + [(k, float(p)) for k, p in row]
                  if per_step else [(k, float(p)) for k, p in row]
                  for key, row in rows.items()}
    return markov.solve(markov.chain(float_rows))


def _step(row: list[markov.ExactTerm[Key]], x: Mapping[Key, Fraction]) -> Fraction:
    return sum((p if k is None else p * x[k] for k, p in row), Fraction(0))


def prove_pair(rows: Mapping[Key, list[markov.ExactTerm[Key]]]) -> PairBounds:
    """Exact lower and upper bounds on the chain's solution at every key (see the module
    docstring); PairProofError if no margin in ETAS makes both checks pass."""
    x = _floats(rows, 0.0)
    D = _floats(rows, 1.0)
    for eta in ETAS:
        upper = {k: Fraction(v) + eta * Fraction(D[k]) for k, v in x.items()}
        lower = {k: Fraction(v) - eta * Fraction(D[k]) for k, v in x.items()}
        if all(_step(row, upper) <= upper[k] and _step(row, lower) >= lower[k]
               for k, row in rows.items()):
            return PairBounds(lower, upper, x, eta)
    raise PairProofError("no exact bracket found for the fixed strategies' chances")
