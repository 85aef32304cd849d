"""The best rule book of each size, found against the exact best response, and what it costs.

The family is `rulebook`'s: threshold rules on the hand ranking, each covering a box of
decisions. A rule book is grown like a decision tree. It starts with one rule per kind of
decision (when to stop, what to keep, how to open, how to answer a bet), then, greedily, the
rule whose split (by one feature: player, throw, the captain's throw count, who threw more,
each player's throw count, the bet level) lowers the exploitability most is split in two, the
new rules' cuts are searched, then every cut in turn is moved to the value minimizing the
exploitability (coordinate descent), until no move helps; a beam search keeps the few best
books at each step instead of one. Every book that beats all smaller ones is a point of the
Pareto front: number of rules against exploitability.

The exploitability of a pair of strategies is the mean of the two players' losses against a
best response (`best_response.exploitability`); a player's loss depends only on his own
part, so a threshold of one player's rule is scored by that player's loss alone (as in
`simplify._descend`).
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Sequence

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.cheatsheet import rulebook
from solver.cheatsheet.rulebook import FEATURES, KEEP_PATTERNS, STEPS, Atom, Rule
from solver.common.progress import Step, quiet
from solver.hand import best_response
from solver.hand.model import HandModel
from solver.hand.reach import own_reach
from solver.hand.strategy import Strategy

IMPROVEMENT = 1e-10
MAX_SWEEPS = 6
WINDOW = 6                 # threshold moves tried when scoring a candidate split
# the parameters coordinate descent moves: a stop cut and whether a hand the keep rule
# keeps nothing of stops; value and bluff cuts and the bluff band's end; raise and call
# cuts (a keep rule's preference list is one parameter)
PARAMS = {"throw": 2, "keep": 1, "open": 3, "face": 2}


KEEP_LONGEST = 4           # preferences in a keep rule, at most
RAISE_SHARE = 0.9          # a hand raised this often over a rule's decisions raises on the sheet
UNREACHED = 1e-5           # weight of a hand the equilibrium never brings to a decision


class RaiseFloors:
    """The strongest hands a face rule raises with: those the equilibrium raises with at
    least RAISE_SHARE of the time over the decisions the rule answers (weighted by the
    player's own reach), counted from the strongest while they do.

    Why the search needs them: its cost is the exploitability, and a raise with the top hands
    alone never lowers it: a best reply reads the raise and folds, and the raised hands leave
    the call range, which a best reply then bets into more thinly (default game: raising
    2-1-1 facing a bet costs 0.001 to 0.009 a rule). Every descent and merge keeps only moves
    that lower the cost, so none raised, though the equilibrium raises with 2-1-1 facing a
    bet in 16 of its 18 spots. The floors make the raise part of every candidate
    (`Book`, `milp.Program`): the search then finds the best book among those that raise
    where the equilibrium (nearly) always does."""

    def __init__(self, model: HandModel, equilibrium: Strategy, share: float = RAISE_SHARE):
        self.model, self.share = model, share
        order = np.argsort(rulebook.positions(model))
        reach: dict = {}
        for player in (CAPTAIN, OPPONENT):
            reach.update(own_reach(model, equilibrium, player)[1])
        self.decisions: list[tuple[Atom, np.ndarray, np.ndarray]] = []
        for atom in rulebook.atoms(model):
            if atom.kind != "face":
                continue
            actions = model.tree(atom.key[:2]).node(atom.key[2]).actions
            if "raise" in actions:
                raised = equilibrium.betting[atom.key][actions.index("raise")][order]
                self.decisions.append((atom, reach[atom.key][0][order] + UNREACHED, raised))
        self.memo: dict[tuple, int] = {}

    def __call__(self, rule: Rule) -> int:
        """The whole hands, from the strongest, that `rule` raises with at least."""
        if rule.kind != "face" or rulebook.top_level_only(self.model, rule):
            return 0
        if rule.scope not in self.memo:
            weight = total = np.zeros(self.model.num_hands)
            for atom, w, raised in self.decisions:
                if rule.covers(atom):
                    weight, total = weight + w, total + w * raised
            often = total >= self.share * weight
            count = 0
            while count < len(often) and weight[count] > 0 and often[count]:
                count += 1
            self.memo[rule.scope] = count
        return self.memo[rule.scope]

    def lift(self, rule: Rule) -> Rule:
        """`rule` raising at least with its floor's hands (and calling with them)."""
        floor = self(rule)
        if not floor:
            return rule
        r, c = rule.params
        raised = tuple(max(x, floor) for x in rulebook.counts(r))
        called = tuple(max(x, raised[0]) for x in rulebook.counts(c))
        return rulebook.canonical(self.model, dataclasses.replace(
            rule, params=(rulebook.cut_of(raised), rulebook.cut_of(called))))

    def of(self, rules: Sequence[Rule]) -> dict[int, int]:
        """{rule index: floor} of the rules of a book with a floor."""
        return {i: f for i, r in enumerate(rules) if (f := self(r))}


def keep_orders() -> list[tuple[str, ...]]:
    """Every ordered list of at most KEEP_LONGEST distinct keep preferences (1100 of
    seven)."""
    return [order for k in range(KEEP_LONGEST + 1)
            for order in itertools.permutations(KEEP_PATTERNS, k)]


class Book:
    """A rule book being optimized: its rules, the strategy they state, the two losses."""

    def __init__(self, model: HandModel, rules: Sequence[Rule], leaves: dict | None = None,
                 floors: RaiseFloors | None = None):
        self.model = model
        self.floors = floors
        self.atoms = rulebook.atoms(model)
        self.pos = rulebook.positions(model)
        self.leaves = leaves or best_response.leaf_matrices(model)
        self.rules = [self.lifted(rulebook.canonical(model, r)) for r in rules]
        self.owner = rulebook.assign(self.rules, self.atoms)
        self.strategy = rulebook.build_strategy(model, self.rules)
        self.losses = [self._loss(CAPTAIN), self._loss(OPPONENT)]

    def copy(self) -> "Book":
        other = object.__new__(Book)
        other.__dict__.update(self.__dict__)
        other.rules = list(self.rules)
        other.owner = list(self.owner)
        other.strategy = self.strategy.copy()
        other.losses = list(self.losses)
        return other

    def lifted(self, rule: Rule) -> Rule:
        """`rule` as the book holds it: `rulebook.polarize`d (its bluffs below a pass),
        and raising with at least its floor's hands if the book has floors."""
        rule = rulebook.polarize(self.model, rule)
        return rule if self.floors is None else self.floors.lift(rule)

    @property
    def objective(self) -> float:
        """The exploitability of the pair (mean of the two losses)."""
        return (self.losses[0] + self.losses[1]) / 2

    def _loss(self, player: int) -> float:
        other = OPPONENT if player == CAPTAIN else CAPTAIN
        return best_response.best_response(self.model, self.strategy, other, self.leaves).value

    def players(self, i: int) -> tuple[int, ...]:
        lo, hi = self.rules[i].scope[0]
        return tuple(range(lo, hi + 1))

    def set_params(self, i: int, params: tuple) -> None:
        """Change rule i's action, update the strategy and the losses it touches."""
        rule = self.lifted(rulebook.canonical(self.model,
                                              dataclasses.replace(self.rules[i], params=params)))
        self.rules[i] = rule
        self._restate(i)
        for p in self.players(i):
            self.losses[p] = self._loss(p)

    def _restate(self, i: int) -> None:
        kind = self.rules[i].kind
        targets = [j for j, a in enumerate(self.atoms)
                   if (self.owner[j] == i) or (kind == "keep" and a.kind == "throw"
                                               and self.rules[i].covers(self._keep_atom(a)))]
        for j in targets:
            atom = self.atoms[j]
            if atom.kind == "keep":
                continue
            rulebook.set_atom(self.model, self.strategy, atom, rulebook.action_probs(
                self.model, self.rules[self.owner[j]], atom, self.pos, self._keep(atom)))

    def _keep_atom(self, atom: Atom) -> Atom:
        return rulebook.keep_atom(atom)

    def _keep(self, atom: Atom) -> np.ndarray | None:
        if atom.kind != "throw" or self.model.params.reroll != "keep":
            return None
        return rulebook.keep_for(self.model, self.rules, atom)

    def choices(self, i: int, which: int, window: int | None,
                rich: bool = False) -> list[tuple]:
        """The params tried when moving parameter `which` of rule i: every whole hand (or
        those within `window` hands), and every quarter within a hand of the current cut;
        with `rich`, also mixed ranges and band ends (`_cut_moves`, `_band_choices`)."""
        rule = self.rules[i]
        if rule.kind == "keep":
            return [tuple(order) for order in keep_orders()]
        if rule.kind == "open" and which == 2:
            return self._band_choices(i, window)
        if rule.kind == "throw" and which == 1:     # stop when nothing is kept, or not
            return [q for q in [(rule.params[0],)] + [(rule.params[0], f)
                                                     for f in rulebook.STOP_FLAGS]
                    if rulebook.valid_params(self.model, "throw", q)]
        p = list(rule.params)
        grid = self._cut_moves(p[which], window, rich)
        top_only = rulebook.top_level_only(self.model, rule)
        out = []
        for value in sorted(grid, key=lambda c: (rulebook.counts(c), str(c))):
            q = list(p)
            q[which] = value
            if rulebook.valid_params(self.model, rule.kind, tuple(q), top_only):
                out.append(tuple(q))
        if self.floors is not None and rule.kind == "face":   # each lifted, once
            out = list(dict.fromkeys(
                self.lifted(dataclasses.replace(rule, params=q)).params for q in out))
        return out

    def _cut_moves(self, cut: rulebook.Cut, window: int | None, rich: bool) -> set:
        """A cut's neighbours: every integer cut on whole hands (or within `window` hands
        of it) and every quarter within a hand; with `rich`, staircases mixing a range of up to
        `window` hands below or above it (once in four, half, three times in four); a staircase's
        shifts and each of its steps moved by one or two hands."""
        n = self.model.num_hands
        top = STEPS * n
        c = rulebook.counts(cut)
        centre = sum(c)                        # in quarters of a hand
        reach = top if window is None else window * STEPS
        lo, hi = max(0, centre - reach), min(top, centre + reach)
        grid: set = set(range(lo - lo % STEPS, hi + 1, STEPS))
        grid |= set(range(max(0, centre - STEPS), min(top, centre + STEPS) + 1))
        if not rich:
            return grid
        width = min(window or WINDOW, n)
        stairs: list[tuple[int, ...]] = []
        for d in range(2, width + 1):
            w, u = c[-1], c[0]                 # mixed ranges below the cut, and above it
            stairs += [(w + d, w, w, w), (w + d, w + d, w, w), (w + d, w + d, w + d, w),
                       (u, u, u, u - d), (u, u, u - d, u - d), (u, u - d, u - d, u - d)]
        if not isinstance(cut, int):
            stairs += [tuple(x + d for x in c) for d in range(-width, width + 1)]
            for j in range(STEPS):
                for delta in (-2, -1, 1, 2):
                    stairs.append(tuple(x + delta * (k == j) for k, x in enumerate(c)))
        grid |= {rulebook.cut_of(s) for s in stairs if rulebook.valid_cut(self.model, s)}
        return grid

    def _band_choices(self, i: int, window: int | None) -> list[tuple]:
        """The params tried when moving an open rule's bluff band end: every whole hand
        (or those within `window` hands; n: no band, the bluffs go down to the weakest)."""
        n = self.model.num_hands
        v, b = self.rules[i].params[:2]
        end = rulebook.band_end(self.model, self.rules[i])
        lo, hi = (0, n) if window is None else (max(0, end - window), min(n, end + window))
        return [(v, b) if e == n else (v, b, e) for e in range(lo, hi + 1)
                if e == n or rulebook.valid_params(self.model, "open", (v, b, e))]

    def descend(self, indices: Sequence[int] | None = None, sweeps: int = MAX_SWEEPS,
                window: int | None = None, rich: bool = False) -> None:
        """Coordinate descent on the thresholds of the rules `indices` (default all); with
        `rich`, the moves include mixed ranges and bluff band ends (`polish`)."""
        indices = list(range(len(self.rules))) if indices is None else list(indices)
        for _ in range(sweeps):
            moved = False
            for i in indices:
                kind = self.rules[i].kind
                size = PARAMS[kind] if rich or kind != "open" else 2
                for which in range(size):
                    start, best = self.rules[i].params, self.objective
                    best_params = start
                    for params in self.choices(i, which, window, rich):
                        if params == start:
                            continue
                        self.set_params(i, params)
                        if self.objective < best - IMPROVEMENT:
                            best, best_params = self.objective, self.rules[i].params
                    self.set_params(i, best_params)
                    moved |= best_params != start
            if not moved:
                return

    def splits(self) -> list[tuple[int, int, int]]:
        """Every (rule, feature index, cut) splitting a rule's decisions in two."""
        out = []
        for i, rule in enumerate(self.rules):
            mine = [a for a, o in zip(self.atoms, self.owner) if o == i]
            for f, feature in enumerate(FEATURES[rule.kind]):
                if feature == "seen" and rule.scope[0] != (1, 1):
                    continue              # only the opponent knows the captain's count
                values = sorted({a.features[f] for a in mine})
                out += [(i, f, cut) for cut in values[:-1]]
        return out

    def split(self, i: int, f: int, cut: int) -> "Book":
        """A new book with rule i cut in two at feature f (both halves keep its action)."""
        rule = self.rules[i]
        lo, hi = rule.scope[f]
        halves = []
        for iv in ((lo, cut), (cut + 1, hi)):
            scope = list(rule.scope)
            scope[f] = iv
            halves.append(self.lifted(dataclasses.replace(
                rule, scope=rulebook.normalize_scope(self.model, rule.kind, scope))))
        book = self.copy()
        book.rules = self.rules[:i] + halves + self.rules[i + 1:]
        book.owner = rulebook.assign(book.rules, book.atoms)
        if any(h.params != rule.params for h in halves):     # a half lifted to its floor
            for k in (i, i + 1):
                book._restate(k)
            for p in book.players(i):
                book.losses[p] = book._loss(p)
        return book


@dataclasses.dataclass(frozen=True)
class Proof:
    """What is proved about a book's cuts, its scopes fixed. `bound`: the MILP's
    (`milp.py`) lower bound on the exploitability of every book with these scopes
    (and keep rules) and staircase cuts (None: HiGHS reached none in its time); `status`
    is "optimal" when the book's cuts are the best of them. `relaxed`: the lower bound of
    the LP relaxation of `cheatsheet_bound.book_bound` (first throws exact, the decisions
    one rule answers alike tied; over a larger class, so a bound for this one too), which
    the MILP's root does not reach (None: not computed)."""

    status: str
    bound: float | None
    seconds: float
    start: float                # the exploitability of the book the MILP started from
    relaxed: float | None = None

    @property
    def best_bound(self) -> float | None:
        found = [b for b in (self.bound, self.relaxed) if b is not None]
        return max(found) if found else None

    def gap(self, cost: float) -> float | None:
        best = self.best_bound
        return None if best is None else max(0.0, cost - best)

    def words(self, cost: float) -> str:
        """What is proved, to follow "among all cuts for these rules' situations, ":
        the cuts optimal, or the better bound reached and what proved it."""
        if self.status == "optimal":
            return "its cuts are proved the best for these scopes (gap 0)"
        best = self.best_bound
        if best is None:
            return f"no lower bound reached in {self.seconds:.0f} s ({self.status})"
        milp = f"the MILP: {self.status} after {self.seconds:.0f} s"
        if self.relaxed is not None and self.relaxed >= (self.bound or 0.0):
            by = ("an LP relaxation (first throws exact, the decisions each rule answers "
                  f"tied; {milp})")
        else:
            by = milp
        return f"none costs less than {best:.4f} (gap {self.gap(cost):.4f}), proved by {by}"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Proof":
        """`to_dict` read back (a published sheet's "milp" entry)."""
        return cls(data["status"], data["bound"], data["seconds"],
                   data["start_exploitability"], data.get("relaxed_bound"))

    def to_dict(self, cost: float) -> dict[str, Any]:
        return {"status": self.status, "bound": self.bound, "gap": self.gap(cost),
                "seconds": self.seconds, "start_exploitability": self.start,
                "family": "staircase cuts, scopes and keep rules fixed",
                "relaxed_bound": self.relaxed,
                "relaxed_family": "first throws as the book's throw rules group them, "
                                  "decisions of one rule tied; every other plan free"}


@dataclasses.dataclass(frozen=True)
class FrontPoint(best_response.LossesBeyondValue):
    """One rule book on the Pareto front, measured exactly."""

    rules: tuple[Rule, ...]
    exploitability: best_response.Exploitability
    game_value: float
    versus_equilibrium: tuple[float, float]     # (captain's loss, opponent's loss)
    proof: Proof | None = None
    origin: str | None = None                   # the search that found it: bottom-up, top-down

    @property
    def size(self) -> int:
        return len(self.rules)

    @property
    def equilibrium_loss(self) -> float:
        """Mean loss of a rules player seated against the equilibrium."""
        return sum(self.versus_equilibrium) / 2

    def to_dict(self, model: HandModel) -> dict[str, Any]:
        e = self.exploitability
        return {
            "method": "cheatsheet",
            "status": f"{self.size} threshold rules",
            "rules_count": self.size,
            "exploitability": e.exploitability,
            "nash_conv": e.nash_conv,
            "captain_loss": self.captain_loss,
            "opponent_loss": self.opponent_loss,
            "captain_loss_vs_equilibrium": self.versus_equilibrium[0],
            "opponent_loss_vs_equilibrium": self.versus_equilibrium[1],
            "equilibrium_loss": self.equilibrium_loss,
            "game_value": self.game_value,
            "on_policy_value": e.value,
            "rules": [rulebook.rule_text(model, r) for r in self.rules],
            "rule_list": [r.to_dict() for r in self.rules],
            **({"milp": self.proof.to_dict(e.exploitability)} if self.proof else {}),
            **({"search": self.origin} if self.origin else {}),
        }


def mix(captain: Strategy, opponent: Strategy, model: HandModel) -> Strategy:
    """The captain's part of one strategy with the opponent's part of another."""
    betting = {}
    for key in captain.betting:
        actor = model.tree(key[:2]).node(key[2]).actor
        betting[key] = (captain if actor == CAPTAIN else opponent).betting[key].copy()
    return Strategy((captain.throw[0].copy(), opponent.throw[1].copy()), betting)


def measure(model: HandModel, rules: Sequence[Rule], equilibrium: Strategy,
            game_value: float, leaves: dict | None = None) -> FrontPoint:
    """Exact exploitability of the rules, and their loss when seated against `equilibrium`."""
    leaves = leaves or best_response.leaf_matrices(model)
    simple = rulebook.build_strategy(model, rules)
    e = best_response.exploitability(model, simple, leaves)
    as_captain = best_response.policy_value(model, mix(simple, equilibrium, model), leaves)
    as_opponent = best_response.policy_value(model, mix(equilibrium, simple, model), leaves)
    return FrontPoint(tuple(rules), e, float(game_value),
                      (float(game_value - as_captain), float(as_opponent - game_value)))


def pareto_front(model: HandModel, max_rules: int,
                 progress: Step | None = None,
                 window: int = WINDOW, beam: int = 1,
                 rich: bool = False, floors: RaiseFloors | None = None
                 ) -> list[tuple[Rule, ...]]:
    """The best rule book found of each size from the roots up to `max_rules` rules.

    Each step tries every split of every rule of the `beam` books kept (the two halves'
    thresholds moved within `window` hands of the parent's), keeps the `beam` best, then
    descends on every threshold of each. A book is kept only if it beats every smaller one
    (a Pareto point). `progress` hears of the best book of each size. With `rich`, every
    descent uses the rich moves (`Book.descend`): sometimes better (faces=3: 0.0545 at 6
    rules instead of 0.0738), sometimes worse (default game, greedy: 0.1006 at 12 rules).
    With `floors`, every book raises where the equilibrium does (`RaiseFloors`).
    """
    step = progress or quiet
    root = Book(model, rulebook.root_rules(model), floors=floors)
    root.descend(rich=rich)
    books = [root]
    front = [tuple(root.rules)]
    best = root.objective
    _report(step, root, max_rules)
    while len(books[0].rules) < max_rules:
        trials: dict[tuple[Rule, ...], Book] = {}
        for book in books:
            for i, f, cut in book.splits():
                trial = book.split(i, f, cut)
                trial.descend([i, i + 1], sweeps=1, window=window, rich=rich)
                trials.setdefault(tuple(trial.rules), trial)
        if not trials:
            break
        books = sorted(trials.values(), key=lambda b: round(b.objective, 12))[:beam]
        for book in books:
            book.descend(rich=rich)
        books.sort(key=lambda b: round(b.objective, 12))
        _report(step, books[0], max_rules)
        if books[0].objective < best - IMPROVEMENT:
            best = books[0].objective
            front.append(tuple(books[0].rules))
    return front


POLISH_WINDOW = 8          # hands around each cut tried by the final, richer descent


def polish(model: HandModel, rules: Sequence[Rule], leaves: dict | None = None,
           floors: RaiseFloors | None = None) -> tuple[Rule, ...]:
    """`rules` after coordinate descent with the rich moves (mixed ranges, staircase steps,
    bluff band ends), never worse. The search grows books with the plain moves
    and polishes only the book it returns: grown with the rich moves throughout, the
    greedy default book ended at 0.1006 (12 rules), where the plain moves end within 0.002
    of 0.0877: another local optimum of the best-response objective. With `floors`, the
    book raises where the equilibrium does (`RaiseFloors`)."""
    book = Book(model, rules, leaves, floors)
    book.descend(window=POLISH_WINDOW, rich=True)
    return tuple(book.rules)


def _report(progress: Step, book: Book, rules_max: int) -> None:
    size = len(book.rules)
    progress(f"{size} rules: exploitability {book.objective:.4f}", size, rules_max)


def front_points(model: HandModel, equilibrium: Strategy, game_value: float, rules_max: int,
                 progress: Step | None = None,
                 beam: int = 1, rich: bool = False, floors: RaiseFloors | None = None
                 ) -> list[FrontPoint]:
    """The measured Pareto front up to `rules_max` rules, smallest book first; the last
    (largest) book `polish`ed; with `floors`, every book raising where the equilibrium
    does."""
    minimum = len(rulebook.root_rules(model))
    if rules_max < minimum:
        raise ValueError(f"at least {minimum} rules are needed (one per kind of decision)")
    leaves = best_response.leaf_matrices(model)
    books = pareto_front(model, rules_max, progress, beam=beam, rich=rich, floors=floors)
    books[-1] = polish(model, books[-1], leaves, floors)
    return [measure(model, rules, equilibrium, game_value, leaves) for rules in books]
