"""The worth of each action: expected chips of every legal action at every decision.

For every decision of both players (throwing and betting), every hand of the player to act
and every legal action, `action_values` gives the expected chips of that action to the
player deciding, against the other player's strategy, his own later play being the
strategy's too. The value is per unit of the other player's reach at the decision (his
chance and his choices so far), that is conditioned on what the decider knows: the actions
of one decision are comparable, and at a decision the strategy mixes an equilibrium makes
them equal (tests/test_action_values.py checks it, and the game value at the root).

**Off path.** Where the other player's strategy never leads to a decision, whatever hand he
holds, the conditional belief over his hands is undefined. It is taken as the limit of
uniform trembles: every legal action of every decision of his is kept with probability at
least e (`(1 - k e) p + e`), and e -> 0. Each reach is then a polynomial in e whose lowest
term is what the limit keeps; this module carries exactly that term (`_Lead`: the power of
e and its coefficient), so the limit is computed, not approximated by a small e. Such
decisions are marked `off_path`. solver/hand/refined/check.py tests the refined equilibrium
against trembles of given sizes in floats; nothing here is shared with it.

Numbers are Fractions when the strategy's exact probabilities are given (`exact`, as
`bidou solve --exact` and strategy files keep them), floats otherwise: the tables, charts
and `play` read the same `ActionValues` either way.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Callable, Sequence, Union

from games.bidou.betting import CAPTAIN, OPPONENT, BettingTree, Leaf, Node
from games.bidou.rules import STOP, throw_action_name
from solver.common.types import Exact
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy

Number = Union[float, Fraction]
# A float probability at or below this is an action the strategy does not play (LP noise);
# exact probabilities are played when positive.
PLAYED = 1e-12
_NONE = 1 << 30            # the power of e of a mass that is zero at every e

__all__ = ["ActionValues", "DecisionValues", "action_values", "throw_where", "bet_where",
           "PLAYED"]


def throw_where(player: int, context: int, throw: int) -> tuple:
    """The key of a throwing decision: after throw `throw` + 1 (0-based, as in
    `Strategy.throw`), `context` the captain's throw count minus one (0 for the captain)."""
    return ("throw", player, context, throw)


def bet_where(captain_throws: int, opponent_throws: int, history: str) -> tuple:
    """The key of a betting decision (the strategy's key, inside a "bet" tag)."""
    return ("bet", (captain_throws, opponent_throws, history))


@dataclasses.dataclass(frozen=True)
class DecisionValues:
    """One decision: `values[hand][action]` is the expected chips to `player` of that action
    with that hand (None where the action is not legal with it), `mix[hand]` the value of
    the strategy's own mix there; `off_path` when the other player's strategy never gets
    here (the belief is the limit of his uniform trembles)."""

    player: int
    where: tuple
    actions: tuple[str, ...]
    values: tuple[tuple[Number | None, ...], ...]
    mix: tuple[Number, ...]
    off_path: bool

    def best(self, hand: int) -> Number:
        """The highest value of a legal action with `hand`."""
        return max(v for v in self.values[hand] if v is not None)

    def cost(self, hand: int, action: str) -> Number:
        """What `action` gives up against the best action with `hand` (0 for a best one)."""
        value = self.values[hand][self.actions.index(action)]
        if value is None:
            raise KeyError(f"{action!r} is not legal with this hand")
        return self.best(hand) - value


@dataclasses.dataclass(frozen=True)
class ActionValues:
    """Every decision's values, by key (`throw_where`, `bet_where`); `exact` when the
    numbers are Fractions."""

    decisions: dict[tuple, DecisionValues]
    exact: bool

    def __getitem__(self, where: tuple) -> DecisionValues:
        return self.decisions[where]

    def throw(self, player: int, context: int, throw: int) -> DecisionValues:
        return self.decisions[throw_where(player, context, throw)]

    def bet(self, captain_throws: int, opponent_throws: int, history: str) -> DecisionValues:
        return self.decisions[bet_where(captain_throws, opponent_throws, history)]


def action_values(model: HandModel, strategy: Strategy, exact: Exact | None = None
                  ) -> ActionValues:
    """The value of every legal action at every decision of both players (see the module's
    docstring). With `exact` (exact probabilities of `strategy`, keyed as in
    solver.common.types.Exact) the values are exact Fractions."""
    walk = _Walk(model, _Probabilities(model, strategy, exact))
    decisions: dict[tuple, DecisionValues] = {}
    for player in (CAPTAIN, OPPONENT):
        walk.player(player, decisions)
    return ActionValues(decisions, exact is not None)


# --- the strategy's probabilities, exact or float -------------------------------------------

class _Probabilities:
    """The strategy's probabilities as [action][hand] lists of one number type, and the
    model's numbers (prior, transitions, leaf payoffs) in the same type."""

    def __init__(self, model: HandModel, strategy: Strategy, exact: Exact | None):
        self.model, self.strategy, self.exact = model, strategy, exact
        self.number: Callable[[Fraction], Number] = (
            (lambda x: Fraction(x)) if exact is not None else float)
        self.zero: Number = self.number(Fraction(0))
        self.prior = [self.number(p) for p in model.prior_exact]
        self._moves: dict[tuple[int, int], list[tuple[int, Number]]] = {}

    def played(self, p: Number) -> bool:
        return p > 0 if self.exact is not None else p > PLAYED

    def throw(self, role: int, context: int, t: int) -> list[list[Number]]:
        n, actions = self.model.num_hands, len(self.model.throw_actions)
        if self.exact is not None:
            rows = [self.exact[("throw", role, context, t, h)] for h in range(n)]
            return [[Fraction(rows[h][a]) for h in range(n)] for a in range(actions)]
        array = self.strategy.throw[role][context, t]
        return [[float(array[a, h]) for h in range(n)] for a in range(actions)]

    def bet(self, key: tuple[int, int, str]) -> list[list[Number]]:
        n = self.model.num_hands
        k = self.strategy.betting[key].shape[0]
        if self.exact is not None:
            rows = [self.exact[("bet", key, h)] for h in range(n)]
            return [[Fraction(rows[h][a]) for h in range(n)] for a in range(k)]
        array = self.strategy.betting[key]
        return [[float(array[a, h]) for h in range(n)] for a in range(k)]

    def moves(self, a: int, hand: int) -> list[tuple[int, Number]]:
        """The next hands after throw action `a` from `hand`, with their probabilities."""
        key = (a, hand)
        if key not in self._moves:
            action = self.model.throw_actions[a]
            dist = self.model.exact_transition(action, hand)
            self._moves[key] = [(k, self.number(p)) for k, p in sorted(dist.items())]
        return self._moves[key]


# --- leading terms of reach under vanishing trembles ----------------------------------------

@dataclasses.dataclass(frozen=True)
class _Lead:
    """Per hand, the lowest term `coef * e**order` of a reach polynomial in the tremble e
    (order _NONE: no mass at all). Coefficients are never negative, so sums and products
    of lowest terms are the lowest terms of sums and products."""

    order: tuple[int, ...]
    coef: tuple[Number, ...]

    def plus(self, other: "_Lead") -> "_Lead":
        order, coef = [], []
        for o1, c1, o2, c2 in zip(self.order, self.coef, other.order, other.coef):
            if o1 == o2:
                order.append(o1)
                coef.append(c1 + c2)
            else:
                order.append(min(o1, o2))
                coef.append(c1 if o1 < o2 else c2)
        return _Lead(tuple(order), tuple(coef))

    def belief(self) -> tuple[list[Number], bool]:
        """The limit distribution over hands (the lowest order's coefficients, normalized)
        and whether it is off path (no mass at e = 0)."""
        low = min(self.order)
        assert low < _NONE, "every throw count and betting line is reached under trembles"
        total = sum(c for o, c in zip(self.order, self.coef) if o == low)
        return [c / total if o == low else c * 0 for o, c in zip(self.order, self.coef)], low > 0

    def on_path(self) -> list[Number]:
        """The reach itself at e = 0 (the order-0 coefficients)."""
        return [c if o == 0 else c * 0 for o, c in zip(self.order, self.coef)]


def _shaken(reach: _Lead, probs: Sequence[Number], legal: Sequence[bool] | None,
            played: Callable[[Number], bool]) -> _Lead:
    """`reach` times the trembling probability of one action per hand: p where the action
    is played, e (order + 1) where it is legal and not played, nothing where illegal."""
    order, coef = [], []
    for h, (o, c, p) in enumerate(zip(reach.order, reach.coef, probs)):
        if legal is not None and not legal[h] or o == _NONE:
            order.append(_NONE)
            coef.append(c * 0)
        elif played(p):
            order.append(o)
            coef.append(c * p)
        else:
            order.append(o + 1)
            coef.append(c)
    return _Lead(tuple(order), tuple(coef))


# --- the walk ------------------------------------------------------------------------------

class _Walk:
    """Backward induction for one player at a time, beliefs from the other's leading terms."""

    def __init__(self, model: HandModel, probs: _Probabilities):
        self.model, self.probs = model, probs
        self.n = model.num_hands
        self.ends: dict[int, list[list[_Lead]]] = {
            CAPTAIN: [self._ends(CAPTAIN, 0)],
                     OPPONENT: [self._ends(OPPONENT, c) for c in range(model.throws)]}
        ranked = sorted(range(self.n), key=lambda h: int(model.strength[h]))
        self.ranked = ranked
        self.exceptions = [(w, lo) for w, lo in model.exceptions
                           if model.strength[w] < model.strength[lo]]

    def _ends(self, role: int, context: int) -> list[_Lead]:
        """Leading terms of the mass (chance included) ending `role`'s throwing turn at each
        throw with each hand, his every legal throw action trembling."""
        model, probs = self.model, self.probs
        zero = probs.zero
        mass = _Lead(tuple(0 for _ in range(self.n)), tuple(probs.prior))
        ends = []
        for t in range(model.throws - 1):
            p = probs.throw(role, context, t)
            ends.append(_shaken(mass, p[0], None, probs.played))
            nxt = _Lead(tuple(_NONE for _ in range(self.n)), tuple(zero for _ in range(self.n)))
            for a in range(1, len(model.throw_actions)):
                moved = _shaken(mass, p[a], model.throw_legal[a], probs.played)
                nxt = nxt.plus(self._spread(a, moved))
            mass = nxt
        ends.append(mass)
        return ends

    def _spread(self, a: int, reach: _Lead) -> _Lead:
        """The leading terms after chance throws the dice of action `a`."""
        zero = self.probs.zero
        order = [_NONE] * self.n
        coef = [zero] * self.n
        for h in range(self.n):
            o, c = reach.order[h], reach.coef[h]
            if o == _NONE:
                continue
            for k, q in self.probs.moves(a, h):
                if o < order[k]:
                    order[k], coef[k] = o, c * q
                elif o == order[k]:
                    coef[k] += c * q
        return _Lead(tuple(order), tuple(coef))

    # --- one player's decisions --------------------------------------------------------------

    def player(self, player: int, out: dict[tuple, DecisionValues]) -> None:
        model, T = self.model, self.model.throws
        other = 1 - player
        contexts = 1 if player == CAPTAIN else T
        stop = [[[self.probs.zero] * self.n for _ in range(T)] for _ in range(contexts)]
        for tc, to in model.public_states:
            if player == CAPTAIN:
                c, own = 0, tc
                root = self.ends[other][tc - 1][to - 1]
            else:
                c, own = tc - 1, to
                root = self.ends[other][0][tc - 1]
            value = self._betting((tc, to), player, root, out)
            stop[c][own - 1] = [s + v for s, v in zip(stop[c][own - 1], value)]
        for c in range(contexts):
            off = False
            if player == OPPONENT:
                off = self.ends[CAPTAIN][0][c].belief()[1]
            self._throwing(player, c, stop[c], off, out)

    def _betting(self, public: tuple[int, int], player: int, root: _Lead,
                 out: dict[tuple, DecisionValues]) -> list[Number]:
        """Records the values at the player's decisions of one public state; returns his
        value per hand at its root: per unit of the other's reach for the opponent (whose
        throws come after the captain's are known), times the other's reach at this root for
        the captain (his throw decision comes before the opponent's throw count)."""
        tree = self.model.tree(public)
        probs = {node.index: self.probs.bet((*public, node.history)) for node in tree.nodes}

        def step(node: Node, a: int, reach: _Lead) -> _Lead:
            if node.actor == player:
                return reach
            return _shaken(reach, probs[node.index][a], None, self.probs.played)

        at_node, _ = tree.push(root, step)
        for node in tree.nodes:
            if node.actor != player:
                continue
            belief, off = at_node[node.index].belief()
            values = [self._below(tree, tree.target(e), belief, player, probs)
                      for e in node.edges]
            mine = probs[node.index]
            mix = [sum((mine[a][h] * values[a][h] for a in range(len(values))), self.probs.zero)
                   for h in range(self.n)]
            out[bet_where(*public, node.history)] = DecisionValues(
                player, bet_where(*public, node.history),
                tuple(_name(a) for a in node.actions),
                tuple(tuple(values[a][h] for a in range(len(values))) for h in range(self.n)),
                tuple(mix), off)
        start = root.belief()[0] if player == OPPONENT else root.on_path()
        return self._below(tree, tree.nodes[0], start, player, probs)

    def _below(self, tree: BettingTree, point: Node | Leaf, reach: list[Number], player: int,
               probs: dict[int, list[list[Number]]]) -> list[Number]:
        """Per hand of `player`, his chips below `point` times the other's `reach` (per hand
        of the other), both playing the strategy."""
        if isinstance(point, Leaf):
            return self._leaf(tree, point, reach, player)
        children = [tree.target(e) for e in point.edges]
        p = probs[point.index]
        zero = self.probs.zero
        total = [zero] * self.n
        for a, child in enumerate(children):
            if point.actor == player:
                below = self._below(tree, child, reach, player, probs)
                total = [s + q * v for s, q, v in zip(total, p[a], below)]
            else:
                weighted = [r * q for r, q in zip(reach, p[a])]
                if any(weighted):
                    below = self._below(tree, child, weighted, player, probs)
                    total = [s + v for s, v in zip(total, below)]
        return total

    def _leaf(self, tree: BettingTree, leaf: Leaf, reach: list[Number], player: int
              ) -> list[Number]:
        """Per hand of `player`, his payoff at `leaf` times the other's reach, summed."""
        number = self.probs.number
        pay = {o: number(Fraction(tree.payoff(leaf, o))) for o in (-1, 0, 1)}
        total = sum(reach, self.probs.zero)
        if pay[-1] == pay[0] == pay[1]:
            sign = 1 if player == CAPTAIN else -1
            return [sign * pay[0] * total] * self.n
        beats = self._beaten_mass(reach)
        out = []
        for h in range(self.n):
            win, tie = beats[h], reach[h]
            lose = total - win - tie
            if player == CAPTAIN:
                out.append(pay[1] * win + pay[0] * tie + pay[-1] * lose)
            else:                      # the opponent wins when the captain's hand loses
                out.append(-(pay[-1] * win + pay[0] * tie + pay[1] * lose))
        return out

    def _beaten_mass(self, reach: list[Number]) -> list[Number]:
        """Per hand h, the mass of `reach` on hands h beats: the ranking's order (prefix
        sums), corrected by its exceptions (model.exceptions)."""
        below = [self.probs.zero] * self.n
        running = self.probs.zero
        for h in self.ranked:
            below[h] = running
            running = running + reach[h]
        for winner, loser in self.exceptions:      # the winner ranks below the loser
            below[winner] = below[winner] + reach[loser]
            below[loser] = below[loser] - reach[winner]
        return below

    def _throwing(self, player: int, context: int, stop: list[list[Number]], off: bool,
                  out: dict[tuple, DecisionValues]) -> None:
        """Backward induction over the throwing turn from the value of stopping."""
        model = self.model
        names = tuple(_throw_name(a) for a in model.throw_actions)
        later = stop[-1]
        for t in range(model.throws - 2, -1, -1):
            p = self.probs.throw(player, context, t)
            rows, mix = [], []
            for h in range(self.n):
                row: list[Number | None] = []
                for a, action in enumerate(model.throw_actions):
                    if not model.throw_legal[a, h]:
                        row.append(None)
                    elif action == STOP:
                        row.append(stop[t][h])
                    else:
                        row.append(sum((q * later[k] for k, q in self.probs.moves(a, h)),
                                       self.probs.zero))
                rows.append(tuple(row))
                mix.append(sum((p[a][h] * v for a, v in enumerate(row) if v is not None),
                               self.probs.zero))
            where = throw_where(player, context, t)
            out[where] = DecisionValues(player, where, names, tuple(rows), tuple(mix), off)
            later = mix


def _name(action: object) -> str:
    return str(getattr(action, "value", action))


def _throw_name(action: object) -> str:
    return throw_action_name(action)  # type: ignore[arg-type]
