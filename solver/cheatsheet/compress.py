"""Rule books built top-down: from one rule per decision, merged down to k rules.

The bottom-up search (`cheatsheet.pareto_front`) grows books one split at a time and stalls
in the basin of the "or worse" books (default game: 0.088 at 12 rules), although the family
itself can do far better: the refined equilibrium's betting replaced decision by decision by
the family's closest decision (quarters, bluff bands) costs 0.025. This search starts there
and compresses:

1. **the fitted book**: one rule per decision, each rule's cuts the family's closest to the
   equilibrium's decision (`shape_fit`, least squares weighted by the player's own reach);
   under ``reroll="keep"`` the keep rules of a given book;
2. **merges**: two rules of a kind whose bounding box (one interval per feature) covers no
   other rule's decisions become one rule with that box; its action is the better of the two
   rules' actions and the cuts fitted to the equilibrium over the union, by the exact
   exploitability. At each step the merges are ranked by the fit's cost (the squared
   distance to the equilibrium, cheap), the best `SHORTLIST` measured by the exact best
   response, and the best of them made; the merged rule's cuts are then descended (a few
   hands around each). A book of each size up to `rules_max` is descended in full and kept.

`compressed_front` returns, for every size, the better of this and a given bottom-up front.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.cheatsheet import rulebook
from solver.cheatsheet.rulebook import FEATURES, STEPS, Atom, Rule
from solver.cheatsheet.search import IMPROVEMENT, Book, FrontPoint, RaiseFloors
from solver.common.progress import Step, quiet
from solver.hand.model import HandModel
from solver.hand.reach import own_reach
from solver.hand.strategy import Strategy

QUARTERS = np.arange(STEPS + 1) / STEPS
SHORTLIST = 6              # merges measured exactly at each step (ranked by the fit's cost)
MERGE_WINDOW = 3           # hands around each cut the merged rule's descent tries
FRONT_WINDOW = 8           # ... and the full descent of every kept book
EXACT_BELOW = 30           # books of at most this many rules measure every merge exactly
FLOOR = 1e-5               # weight of a hand the equilibrium never brings to a decision


def shape_fit(y: np.ndarray, w: np.ndarray, pieces: str) -> np.ndarray:
    """The sequence of quarters closest to y (weights w, least squares) made of the given
    monotone pieces in order: "d" non-increasing, "i" non-decreasing, "z" zero; a piece may
    be empty and may start at any level. "diz" is an open rule of the family (value bets
    from the top, a bluff band), "d" a stop, call or raise cut."""
    m, K, big = len(y), len(pieces), 1e18
    cost = np.full((K, STEPS + 1), 0.0)
    back = np.zeros((m, K, STEPS + 1, 2), dtype=np.int64)
    for p in range(m):
        new = np.full((K, STEPS + 1), big)
        for k, piece in enumerate(pieces):
            for level in range(STEPS + 1 if piece != "z" else 1):
                if p == 0:
                    new[k, level], back[p, k, level] = 0.0, (k, level)
                    continue
                allowed = {"d": range(level, STEPS + 1), "i": range(0, level + 1),
                           "z": [0]}[piece]
                options = [(cost[k, q], k, q) for q in allowed]
                options += [(cost[j, q], j, q) for j in range(k) for q in range(STEPS + 1)]
                best = min(options)
                new[k, level], back[p, k, level] = best[0], best[1:]
        new += w[p] * (y[p] - QUARTERS[None, :]) ** 2
        cost = new
    at, level = (int(x) for x in np.unravel_index(int(np.argmin(cost)), cost.shape))
    out = np.zeros(m)
    for p in range(m - 1, -1, -1):
        out[p] = QUARTERS[level]
        at, level = (int(x) for x in back[p, at, level])
    return out


def _down_counts(levels: np.ndarray) -> tuple[int, int, int, int]:
    """The staircase (c1..c4) of a non-increasing sequence of quarter levels (0..4)."""
    return (int((levels >= 1).sum()), int((levels >= 2).sum()), int((levels >= 3).sum()),
            int((levels >= 4).sum()))


def cut_params(kind: str, fit: dict[str, np.ndarray], n: int) -> tuple:
    """A rule's params from fitted sequences in position order (strongest first): "stop",
    "bet" (a value part, a bluff band, zeros), "go" (call or raise) and "raise"."""
    top = STEPS * n
    if kind == "throw":
        return (rulebook.cut_of(_down_counts(_levels(fit["stop"]))),)
    if kind == "face":
        r = rulebook.cut_of(_down_counts(_levels(fit["raise"])))
        return (r, rulebook.cut_of(_down_counts(_levels(fit["go"]))))
    k = _levels(fit["bet"])
    d = 1
    while d < n and k[d] <= k[d - 1]:
        d += 1                                  # the longest non-increasing prefix
    while d > 0 and k[d - 1] == 0:
        d -= 1                                  # ... without its trailing passes
    value = rulebook.cut_of(_down_counts(k[:d]))
    tail = np.nonzero(k[d:])[0]
    if not len(tail):
        return (value, top)
    end = d + int(tail[-1]) + 1
    outside = STEPS - k[d:end]                  # non-increasing: the bluff cut's levels
    bluff = tuple(d + c for c in _down_counts(outside))
    cut = rulebook.cut_of(bluff)
    if 0 < rulebook.counts(value)[0] >= bluff[-1]:
        # bluffs right below the value bets: those mixed hands pass, so that a pass lies
        # between (`rulebook.polarized`)
        value = rulebook.cut_of(tuple(max(0, min(x, bluff[-1] - 1))
                                      for x in rulebook.counts(value)))
    return (value, cut) if end == n else (value, cut, end)


def _levels(q: np.ndarray) -> np.ndarray:
    return np.rint(np.asarray(q) * STEPS).astype(np.int64)


class Target:
    """The equilibrium's decisions in position order, with the weights the fit uses."""

    def __init__(self, model: HandModel, equilibrium: Strategy):
        self.model = model
        self.order = np.argsort(rulebook.positions(model))
        self.eq = equilibrium
        self.throw_reach: dict[int, np.ndarray] = {}
        self.reach: dict = {}
        self.memo: dict[tuple[str, frozenset], tuple[tuple, float]] = {}
        self.nothing: dict[tuple, np.ndarray] = {}    # hands a keep rule keeps nothing of
        for player in (CAPTAIN, OPPONENT):
            throws, betting = own_reach(model, equilibrium, player)
            self.throw_reach[player] = throws
            self.reach.update(betting)

    def sequences(self, atom: Atom) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """(weight, {name: probability}) of one decision, in position order."""
        o = self.order
        if atom.kind == "throw":
            c, t = atom.key
            w = self.throw_reach[atom.player][c, t - 1].max(axis=0)
            return w[o] + FLOOR, {"stop": self.eq.throw[atom.player][c, t - 1][0][o]}
        actions = self.model.tree(atom.key[:2]).node(atom.key[2]).actions
        probs = self.eq.betting[atom.key][:, o]
        w = self.reach[atom.key][0][o] + FLOOR
        if "bet" in actions:
            return w, {"bet": probs[actions.index("bet")]}
        out = {"go": 1.0 - probs[actions.index("fold")]}
        if "raise" in actions:
            out["raise"] = probs[actions.index("raise")]
        return w, out

    def use_keep_rules(self, keep_rules: Sequence[Rule]) -> None:
        """Fit throw rules for these keep rules: a throw rule may then stop the hands its
        player's keep rule keeps nothing of (`rulebook.stops_on_nothing`), when that is
        closer to the equilibrium."""
        for key in [k for k in self.memo if k[0] == "throw"]:
            del self.memo[key]
        self.nothing = {}
        for atom in rulebook.atoms(self.model):
            keep = rulebook.keep_for(self.model, keep_rules, atom)
            if atom.kind == "throw" and keep is not None:
                for flag in rulebook.STOP_FLAGS:
                    self.nothing[(atom.player, atom.key, flag)] = rulebook.stopped_by_flag(
                        self.model, flag, keep)[self.order]

    def fit(self, kind: str, members: Sequence[Atom]) -> tuple[tuple, float]:
        """The family's closest action to the equilibrium over `members` (one shared rule),
        and its weighted squared distance (remembered: a merge step asks again for most)."""
        key = (kind, frozenset(a.key + (a.player,) for a in members))
        if key not in self.memo:
            self.memo[key] = self._fit(kind, members)
        return self.memo[key]

    def _fit(self, kind: str, members: Sequence[Atom]) -> tuple[tuple, float]:
        weight: dict[str, np.ndarray] = {}
        total: dict[str, np.ndarray] = {}
        square = 0.0
        for atom in members:
            w, seqs = self.sequences(atom)
            for name, y in seqs.items():
                weight[name] = weight.get(name, 0.0) + w
                total[name] = total.get(name, 0.0) + w * y
                square += float((w * y * y).sum())
        mean = {name: total[name] / weight[name] for name in total}
        fitted: dict[str, np.ndarray] = {}
        for name, y in mean.items():
            if name == "raise":
                continue
            fitted[name] = shape_fit(y, weight[name], "diz" if name == "bet" else "d")
        if kind == "face":
            raise_fit = (shape_fit(mean["raise"], weight["raise"], "d") if "raise" in mean
                         else np.zeros(self.model.num_hands))
            fitted["raise"] = np.where(fitted["go"] >= 1, raise_fit, 0.0)
        distance = square + sum(float((weight[k] * (fitted[k] ** 2 - 2 * fitted[k] * mean[k])
                                       ).sum()) for k in mean)
        params = cut_params(kind, fitted, self.model.num_hands)
        if kind == "throw" and all((a.player, a.key, 1) in self.nothing for a in members):
            for flag in rulebook.STOP_FLAGS:
                flagged, other = self._fit_stopping_on_nothing(members, flag)
                if other < distance - 1e-12:
                    params, distance = flagged, other
        return params, distance

    def _fit_stopping_on_nothing(self, members: Sequence[Atom], flag: int
                                 ) -> tuple[tuple, float]:
        """A throw rule's closest action when the hands its flag stops (kept nothing of,
        or fewer than two dice of) stop: the cut fitted to the other hands, and the
        squared distance over all."""
        weight = total = np.zeros(self.model.num_hands)
        seqs = []
        for atom in members:
            w, y = self.sequences(atom)
            nothing = self.nothing[(atom.player, atom.key, flag)]
            weight, total = weight + w * ~nothing, total + w * ~nothing * y["stop"]
            seqs.append((w, y["stop"], nothing))
        cut = shape_fit(total / np.maximum(weight, 1e-300), weight + 1e-12, "d")
        distance = sum(float((w * (y - np.where(nothing, 1.0, cut)) ** 2).sum())
                       for w, y, nothing in seqs)
        stop = cut_params("throw", {"stop": cut}, self.model.num_hands)
        return stop + (flag,), distance


def fitted_book(model: HandModel, target: Target, keep_rules: Sequence[Rule] = ()
                ) -> list[Rule]:
    """One rule per decision (its features' values as its scope), its cuts the family's
    closest to the equilibrium's; keep decisions answered by `keep_rules`."""
    out = list(keep_rules)
    for atom in rulebook.atoms(model):
        if atom.kind == "keep":
            continue
        scope = rulebook.normalize_scope(model, atom.kind, [(v, v) for v in atom.features])
        params, _ = target.fit(atom.kind, [atom])
        out.append(_valid(model, Rule(atom.kind, scope, params)))
    return out


def _valid(model: HandModel, rule: Rule) -> Rule:
    rule = rulebook.canonical(model, rule)
    top_only = rulebook.top_level_only(model, rule)
    if rule.kind != "keep" and not rulebook.valid_params(model, rule.kind, rule.params,
                                                          top_only):
        raise ValueError(f"the fit gave an action outside the family: {rule}")
    return rule


@dataclasses.dataclass(frozen=True)
class Merge:
    """Rules `group[0]` and `group[1]` made one rule with `scope`; the other rules of
    `group` lie inside it and go; each rule of `shrunk` loses its decisions inside `scope`
    and takes the given smaller scope."""

    group: tuple[int, ...]
    scope: tuple[tuple[int, int], ...]
    shrunk: tuple[tuple[int, tuple[tuple[int, int], ...]], ...] = ()

    @property
    def i(self) -> int:
        return min(self.group)

    @property
    def saved(self) -> int:
        return len(self.group) - 1


class _Boxes:
    """The decisions' features as an array, to find which rules a box touches."""

    def __init__(self, book: Book):
        self.features = np.array([a.features + (0,) * (5 - len(a.features))
                                  for a in book.atoms])
        self.kinds = np.array([a.kind for a in book.atoms])
        self.owner = np.array(book.owner)

    def inside(self, kind: str, box: Sequence[tuple[int, int]]) -> np.ndarray:
        mask = self.kinds == kind
        for f, (lo, hi) in enumerate(box):
            mask &= (self.features[:, f] >= lo) & (self.features[:, f] <= hi)
        return mask

    def hull(self, model: HandModel, kind: str, mask: np.ndarray
             ) -> tuple[tuple[int, int], ...]:
        width = len(FEATURES[kind])
        values = self.features[mask][:, :width]
        box = tuple((int(lo), int(hi)) for lo, hi in zip(values.min(axis=0),
                                                         values.max(axis=0)))
        return rulebook.normalize_scope(model, kind, box)


def merges(model: HandModel, book: Book) -> list[Merge]:
    """For every pair of rules of a kind, their bounding box as one rule: the rules wholly
    inside it go, and each rule partly inside keeps its other decisions if their own
    bounding box holds no one else's (else the pair cannot merge). Each result once."""
    boxes = _Boxes(book)
    found: dict[tuple, Merge] = {}
    for i, a in enumerate(book.rules):
        if a.kind == "keep":
            continue
        for j in range(i + 1, len(book.rules)):
            if book.rules[j].kind != a.kind:
                continue
            merge = _pair(model, book, boxes, i, j)
            if merge is not None:
                found.setdefault((merge.group, merge.scope), merge)
    return list(found.values())


def _pair(model: HandModel, book: Book, boxes: _Boxes, i: int, j: int) -> Merge | None:
    kind = book.rules[i].kind
    box = rulebook.normalize_scope(model, kind, tuple(
        (min(x[0], y[0]), max(x[1], y[1])) for x, y in zip(book.rules[i].scope,
                                                            book.rules[j].scope)))
    inside = boxes.inside(kind, box)
    group, shrunk = [i, j], []
    for r in sorted(set(boxes.owner[inside].tolist()) - {i, j}):
        rest = (boxes.owner == r) & ~inside
        if not rest.any():
            group.append(r)
            continue
        scope = boxes.hull(model, kind, rest)
        if np.any(boxes.inside(kind, scope) & ~rest):
            return None
        shrunk.append((r, scope))
    return Merge(tuple(group), box, tuple(shrunk))


def _merged(model: HandModel, book: Book, merge: Merge, params: tuple) -> Book | None:
    """The book with the merge made and the merged rule's action `params` (None if the
    action is not one of the family for that scope)."""
    kind = book.rules[merge.i].kind
    rule = book.lifted(rulebook.canonical(model, Rule(kind, merge.scope, params)))
    if not rulebook.valid_params(model, kind, rule.params, rulebook.top_level_only(model,
                                                                                    rule)):
        return None
    gone = set(merge.group) - {merge.i}
    new = {k: r for k, r in enumerate(book.rules) if k not in gone}
    new[merge.i] = rule
    for k, scope in merge.shrunk:
        new[k] = book.lifted(rulebook.canonical(model, dataclasses.replace(book.rules[k],
                                                                             scope=scope)))
    trial = book.copy()
    trial.rules = list(new.values())
    trial.owner = rulebook.assign(trial.rules, trial.atoms)
    kept = list(new)
    touched = [kept.index(merge.i)] + [kept.index(k) for k, _ in merge.shrunk]
    for k in touched:
        trial._restate(k)
    for p in {p for k in touched for p in trial.players(k)}:
        trial.losses[p] = trial._loss(p)
    return trial


def merge_step(model: HandModel, book: Book, target: Target,
               shortlist: int = SHORTLIST) -> Book | None:
    """The book after the best merge (by the exact exploitability among the `shortlist`
    merges whose fitted action is closest to the equilibrium), its merged rule descended."""
    ranked = []
    boxes = _Boxes(book)
    for merge in merges(model, book):
        kind = book.rules[merge.i].kind
        members = [a for a, inside in zip(book.atoms, boxes.inside(kind, merge.scope))
                   if inside]
        params, distance = target.fit(kind, members)
        ranked.append(((distance - _distance(target, book, merge)) / merge.saved, merge,
                       params))
    ranked.sort(key=lambda t: t[0])
    if len(book.rules) > EXACT_BELOW:
        ranked = ranked[:shortlist]
    best: Book | None = None
    best_score, merged = np.inf, 0
    for _, merge, fitted in ranked:
        for params in {fitted} | {book.rules[k].params for k in merge.group}:
            trial = _merged(model, book, merge, params)
            if trial is None:
                continue
            score = (trial.objective - book.objective) / merge.saved
            if score < best_score - IMPROVEMENT:
                best, best_score, merged = trial, score, merge.i   # the first index stays
    if best is not None:
        best.descend([merged], sweeps=1, window=MERGE_WINDOW, rich=True)
    return best


def merge_trials(model: HandModel, book: Book, target: Target) -> list[tuple[Book, int]]:
    """Every merge of `book`, each made with its best action (by the exact exploitability,
    among its members' actions and the equilibrium's fit over its box): (the book after
    it, the index of the merged rule). Not descended."""
    boxes = _Boxes(book)
    out = []
    for merge in merges(model, book):
        kind = book.rules[merge.i].kind
        members = [a for a, inside in zip(book.atoms, boxes.inside(kind, merge.scope))
                   if inside]
        fitted, _ = target.fit(kind, members)
        best: Book | None = None
        for params in dict.fromkeys([fitted] + [book.rules[k].params for k in merge.group]):
            trial = _merged(model, book, merge, params)
            if trial is not None and (best is None
                                      or trial.objective < best.objective - IMPROVEMENT):
                best = trial
        if best is not None:
            out.append((best, merge.i))
    return out


def _distance(target: Target, book: Book, merge: Merge) -> float:
    """The fit's cost of rules i and j apart (what a merge's fit is compared with)."""
    total = 0.0
    for k in merge.group:
        members = [a for a, o in zip(book.atoms, book.owner) if o == k]
        total += target.fit(book.rules[k].kind, members)[1]
    return total


def compress(model: HandModel, equilibrium: Strategy, rules_max: int,
             keep_rules: Sequence[Rule] = (), progress: Step | None = None,
             shortlist: int = SHORTLIST, rules_min: int = 1,
             descend_max: int | None = None, floors: RaiseFloors | None = None
             ) -> dict[int, tuple[Rule, ...]]:
    """The top-down books of every size from `rules_max` down to `rules_min` (or as far as
    merges go), each of at most `descend_max` rules (default `rules_max`) descended on
    every cut (FRONT_WINDOW hands around each), the larger ones as the merges left them;
    with `floors`, every book raising where the equilibrium does (`RaiseFloors`)."""
    step = progress or quiet
    descend_max = rules_max if descend_max is None else descend_max
    target = Target(model, equilibrium)
    target.use_keep_rules(keep_rules)
    book = Book(model, fitted_book(model, target, keep_rules), floors=floors)
    keeps = [i for i, r in enumerate(book.rules) if r.kind == "keep"]
    if keeps:                 # the keep preferences that suit the fitted book best,
        book.descend(keeps, sweeps=2)       # then the throw rules fitted to them
        chosen = keep_rules_of(book.rules)
        target.use_keep_rules(chosen)
        refitted = Book(model, fitted_book(model, target, chosen), book.leaves, floors)
        if refitted.objective < book.objective:
            book = refitted
    step(f"fitted book: {len(book.rules)} rules, exploitability {book.objective:.4f}",
         0, rules_max)
    out: dict[int, tuple[Rule, ...]] = {}
    while len(book.rules) > rules_min:
        if len(book.rules) <= rules_max:
            if len(book.rules) <= descend_max:
                book.descend(window=FRONT_WINDOW, rich=True)
            out[len(book.rules)] = tuple(book.rules)
            step(f"{len(book.rules)} rules (top-down): exploitability {book.objective:.4f}",
                 rules_max - len(book.rules), rules_max)
        following = merge_step(model, book, target, shortlist)
        if following is None:
            break
        book = following
        step(f"merged to {len(book.rules)} rules: exploitability {book.objective:.4f}",
             max(0, rules_max - len(book.rules)), rules_max)
    if len(book.rules) <= rules_max and len(book.rules) not in out:
        if len(book.rules) <= descend_max:
            book.descend(window=FRONT_WINDOW, rich=True)
        out[len(book.rules)] = tuple(book.rules)
    return out


def keep_rules_of(rules: Sequence[Rule]) -> list[Rule]:
    """The keep rules of a book (the top-down search starts with a bottom-up book's)."""
    return [r for r in rules if r.kind == "keep"]


def cost(model: HandModel, rules: Sequence[Rule], leaves: dict | None = None) -> float:
    """The exact exploitability of the strategy `rules` state."""
    from solver.hand import best_response

    strategy = rulebook.build_strategy(model, rules)
    return best_response.exploitability(model, strategy, leaves).exploitability


def best_of(model: HandModel, *fronts: Sequence[Sequence[Rule]]
            ) -> list[tuple[tuple[Rule, ...], int]]:
    """The Pareto front of several searches' books: at each size the cheapest book (and the
    index of the front it came from), kept if it beats every smaller one; smallest first."""
    from solver.hand import best_response

    leaves = best_response.leaf_matrices(model)
    by_size: dict[int, tuple[float, tuple[Rule, ...], int]] = {}
    for origin, books in enumerate(fronts):
        for rules in books:
            value = cost(model, rules, leaves)
            size = len(rules)
            if size not in by_size or value < by_size[size][0] - IMPROVEMENT:
                by_size[size] = (value, tuple(rules), origin)
    out: list[tuple[tuple[Rule, ...], int]] = []
    best = np.inf
    for size in sorted(by_size):
        value, rules, origin = by_size[size]
        if value < best - IMPROVEMENT:
            best = value
            out.append((rules, origin))
    return out


def with_top_down(model: HandModel, equilibrium: Strategy, game_value: float,
                  points: Sequence[FrontPoint], progress: Step | None = None,
                  rules_min: int | None = None) -> list[FrontPoint]:
    """A bottom-up front (`cheatsheet.front_points`) with the top-down books of its sizes
    (down to `rules_min`, default the smallest point's): the Pareto front of both, each
    point measured and marked with the search it came from."""
    rules_max = max(p.size for p in points)
    lowest = min(p.size for p in points) if rules_min is None else rules_min
    compressed = compress(model, equilibrium, rules_max, keep_rules_of(points[-1].rules),
                          progress, rules_min=lowest)
    return pareto_of(model, points, list(compressed.values()), "top-down", equilibrium,
                     game_value)


def pareto_of(model: HandModel, points: Sequence[FrontPoint], books: Sequence[Sequence[Rule]],
              search: str, equilibrium: Strategy, game_value: float) -> list[FrontPoint]:
    """The Pareto front of the bottom-up `points` and the `books` another `search` found,
    each point measured (the bottom-up ones already are) and marked with its search."""
    from solver.cheatsheet.search import measure

    chosen = best_of(model, [p.rules for p in points], books)
    known = {p.rules: p for p in points}
    out = []
    for rules, origin in chosen:
        point = known.get(rules) or measure(model, rules, equilibrium, game_value)
        out.append(dataclasses.replace(point, origin=("bottom-up", search)[origin]))
    return out
