"""Stakes rules a person can follow in a hand of Le Bidou, read off the equilibrium.

One-chip rule books (`rulebook.py`) cannot state stakes: a Le Bidou decision has up to ten
actions (nine stakes, withdraw, call, the raises) at 2**max_stake decisions a public state.
This grammar has three kinds of rule, each a few cuts in the hand ranking (strongest first,
`rules.ranked_hands`; "X or better" counts from the strongest):

* ``propose`` (the first player, nothing proposed yet): "propose H with X or better, and
  also with B to E; propose L otherwise" (B to E: weaker hands, a bluff band);
* ``first`` (facing the first stake s, for s in a band of stakes) and ``raise`` (facing a
  raise to s): "raise to R with X or better, and also with B to E; call with C or better;
  withdraw otherwise" (B to E below C) (R above every stake of the band; no raise facing the top
  stake).

A rule covers every decision of its kind and band whatever the throw counts and the stakes
before: so every decision, reached or not, has one rule. The throwing is not stated here:
the sheet's player throws as the equilibrium does.

The cuts come from the equilibrium (`fit_book`): each hand's probability of each action at
every decision, weighted by how often the decision is met with that hand (both players' play
and the dice; a decision off the path of play counts OFF_PATH of its own reach, so that the
answers to stakes never proposed, which deter them, follow the equilibrium's too), summed
over a band; the cuts chosen are those that agree with the most weight. Stakes start in
bands of one and are merged greedily, adjacent bands of one kind first where merging loses
least agreement, while the loss stays under MERGE_LOSS of the lighter band's weight.
`rule_text` states a rule in words and `parse_rule` reads those words back, so a test
rebuilds the sheet's strategy from what it prints.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable, Sequence

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from solver.hand.model import HandModel
from solver.hand.reach import own_step, throw_flow
from solver.hand.strategy import Strategy

KINDS = ("propose", "first", "raise")
# A decision never met under the equilibrium counts this much of its own reach (see above).
OFF_PATH = 0.01
# Bands are merged while merging loses at most this share, in agreement, of the weight of
# the lighter of the two bands (a share of the lighter, so that a band met rarely, or only
# off the path, is not absorbed by a heavier neighbour).
MERGE_LOSS = 0.02
WITHDRAW, CALL = "withdraw", "call"


@dataclasses.dataclass(frozen=True)
class StakeRule:
    """One rule. Hand positions count from 1 (the strongest) in the ranking.

    `kind` and the band `low`..`high` of stakes faced (propose: 0..0); `strong` the hands
    1..strong that play the strong action (propose: stake `stake`; facing: raise to
    `stake`, 0 for no raise); `bluff` (b, e) or None the weaker hands b..e that play it too;
    `call` the hands strong+1..call that call (facing only); `other` the weak action's stake
    (propose only: every other hand proposes it; facing: the others withdraw)."""

    kind: str
    low: int
    high: int
    stake: int
    strong: int
    bluff: tuple[int, int] | None
    call: int = 0
    other: int = 0

    def covers(self, kind: str, stake: int) -> bool:
        return kind == self.kind and self.low <= stake <= self.high

    def to_dict(self) -> dict:
        return {"kind": self.kind, "stakes": [self.low, self.high], "stake": self.stake,
                "strong": self.strong, "bluff": list(self.bluff) if self.bluff else None,
                "call": self.call, "other": self.other}


# --- the decisions and their weights ---------------------------------------------------------

def decision_kind(history: str) -> tuple[str, int]:
    """A betting decision's kind and the stake faced: ("propose", 0) at the root, ("first",
    s) facing the first stake s, ("raise", s) facing a raise to s."""
    if not history:
        return "propose", 0
    return ("first" if len(history) == 1 else "raise"), int(history[-1])


def ranked_positions(model: HandModel) -> np.ndarray:
    """Model hand index -> position in the ranking (0: the strongest)."""
    game = model.game_params
    order = rules.ranked_hands(game.faces, game.ranking)
    index = {h: i for i, h in enumerate(model.hands)}
    positions = np.zeros(model.num_hands, dtype=int)
    for p, hand in enumerate(order):
        positions[index[hand]] = p
    return positions


def ranked_names(model: HandModel) -> list[str]:
    """The hands, strongest first, as the sheet prints them ("6-3-2")."""
    game = model.game_params
    return [rules.format_hand(h) for h in rules.ranked_hands(game.faces, game.ranking)]


def _reach_everywhere(model: HandModel, strategy: Strategy, player: int
                      ) -> dict[tuple[int, int], np.ndarray]:
    """Per public state, (nodes, hands): `player`'s own reach (his dice and his choices) of
    every node of the betting tree, his and the other's."""
    contexts = strategy.throw[player]
    ends = [throw_flow(model, contexts[c])[1] for c in range(contexts.shape[0])]
    out = {}
    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        start = ends[0 if player == CAPTAIN else tc - 1][(tc if player == CAPTAIN else to) - 1]
        at_node, _ = tree.push(start, own_step(strategy, (tc, to), player))
        out[(tc, to)] = np.array([at_node[node.index] for node in tree.nodes])
    return out


def decision_weights(model: HandModel, strategy: Strategy
                     ) -> dict[tuple[int, int, str], np.ndarray]:
    """How often each betting decision is met with each hand of the player to act: his own
    reach times the other's (their dice are independent), or OFF_PATH of his own reach
    where the other's never comes."""
    reach = {role: _reach_everywhere(model, strategy, role) for role in (CAPTAIN, OPPONENT)}
    out = {}
    for tc, to in model.public_states:
        for node in model.tree((tc, to)).nodes:
            other_role = OPPONENT if node.actor == CAPTAIN else CAPTAIN
            own = reach[node.actor][(tc, to)][node.index]
            other = float(reach[other_role][(tc, to)][node.index].sum())
            out[(tc, to, node.history)] = own * max(other, OFF_PATH * float(own.sum() > 0))
    return out


@dataclasses.dataclass
class Masses:
    """Weighted play of one kind and stake faced, by ranking position: `actions[name]`."""

    actions: dict[str, np.ndarray]

    def get(self, name: str, n: int) -> np.ndarray:
        return self.actions.get(name, np.zeros(n))

    def add(self, other: "Masses") -> "Masses":
        names = set(self.actions) | set(other.actions)
        n = len(next(iter(self.actions.values())))
        return Masses({a: self.get(a, n) + other.get(a, n) for a in names})


def masses(model: HandModel, strategy: Strategy,
           publics: Iterable[tuple[int, int]] | None = None) -> dict[tuple[str, int], Masses]:
    """The equilibrium's weighted play (`decision_weights`) summed by (kind, stake faced),
    hands by ranking position, over the public states `publics` (default: all)."""
    weights = decision_weights(model, strategy)
    positions = ranked_positions(model)
    n = model.num_hands
    kept = set(model.public_states if publics is None else publics)
    out: dict[tuple[str, int], dict[str, np.ndarray]] = {}
    for (tc, to, history), w in weights.items():
        if (tc, to) not in kept:
            continue
        node = model.tree((tc, to)).node(history)
        found = out.setdefault(decision_kind(history), {})
        probs = strategy.betting[(tc, to, history)]
        for a, action in enumerate(node.actions):
            by_position = np.zeros(n)
            by_position[positions] = probs[a] * w
            found[action] = found.get(action, np.zeros(n)) + by_position
    return {key: Masses(found) for key, found in out.items()}


# --- fitting one rule --------------------------------------------------------------------------

def _best_bands(gain: np.ndarray) -> list[tuple[float, tuple[int, int] | None]]:
    """For each start p (0..n), the contiguous positions from p on whose `gain` sums
    highest, as 1-based (b, e), and that sum (none: 0.0, None)."""
    n = len(gain)
    out: list[tuple[float, tuple[int, int] | None]] = [(0.0, None)] * (n + 1)
    for start in range(n):
        best, band, run, run_start = 0.0, None, 0.0, start
        for p in range(start, n):
            if run <= 0:
                run, run_start = 0.0, p
            run += gain[p]
            if run > best + 1e-15:
                best, band = run, (run_start + 1, p + 1)
        out[start] = (best, band)
    return out


def fit_propose(found: Masses, stakes: Sequence[int]) -> tuple[float, StakeRule]:
    """The propose rule agreeing most with the weighted play."""
    n = len(next(iter(found.actions.values())))
    best: tuple[float, StakeRule] | None = None
    for high in stakes:
        for low in stakes:
            if low == high:
                continue
            hi, lo = found.get(f"stake {high}", n), found.get(f"stake {low}", n)
            base = float(lo.sum())
            prefix = np.concatenate([[0.0], np.cumsum(hi - lo)])
            bands = _best_bands(hi - lo)
            for strong in range(n + 1):
                gain, band = bands[strong]
                score = base + float(prefix[strong]) + gain
                if best is None or score > best[0] + 1e-15:
                    best = (score, StakeRule("propose", 0, 0, high if strong or band else 0,
                                             strong, band, 0, low))
    assert best is not None
    score, rule = best
    if f"stake {rule.other}" not in clause_hands(rule, n):    # every hand proposes high
        rule = StakeRule("propose", 0, 0, 0, 0, None, 0, rule.stake)
    return score, rule


def fit_face(kind: str, low: int, high: int, found: Masses, top_stake: int
             ) -> tuple[float, StakeRule]:
    """The rule facing stakes low..high agreeing most with the weighted play: the raise
    target is the one raised to most (above `high`), none facing the top stake."""
    n = len(next(iter(found.actions.values())))
    withdraw, call = found.get(WITHDRAW, n), found.get(CALL, n)
    targets = [s for s in range(high + 1, top_stake + 1)]
    raise_to = max(targets, key=lambda s: float(found.get(f"raise to {s}", n).sum()),
                   default=0)
    raised = sum((found.get(f"raise to {s}", n) for s in targets), np.zeros(n))
    base = float(withdraw.sum())
    up_raise = np.concatenate([[0.0], np.cumsum(raised - withdraw)])
    up_call = np.concatenate([[0.0], np.cumsum(call - withdraw)])
    bands = _best_bands(raised - withdraw) if raise_to else [(0.0, None)] * (n + 1)
    best: tuple[float, StakeRule] | None = None
    for strong in range(n + 1 if raise_to else 1):
        for calls in range(strong, n + 1):
            gain, band = bands[calls]
            score = (base + float(up_raise[strong]) + float(up_call[calls] - up_call[strong])
                     + gain)
            if best is None or score > best[0] + 1e-15:
                target = raise_to if strong or band else 0      # no hand raises: no target
                best = (score, StakeRule(kind, low, high, target, strong, band, calls))
    assert best is not None
    score, rule = best
    if not withdrawn(rule, n):       # every hand not raising calls: "call otherwise"
        rule = dataclasses.replace(rule, call=n)
    return score, rule


# --- the book ----------------------------------------------------------------------------------

def fit_book(model: HandModel, strategy: Strategy, merge_loss: float = MERGE_LOSS,
             publics: Iterable[tuple[int, int]] | None = None) -> list[StakeRule]:
    """The sheet's rules read off `strategy` (module docstring): the propose rule, then the
    first-stake rules and the raise rules, each kind's stakes merged into bands."""
    top = _top_stake(model)
    found = masses(model, strategy, publics)
    book = [fit_propose(found[("propose", 0)], range(1, top + 1))[1]]
    for kind, first in (("first", 1), ("raise", 2)):
        stakes = [s for s in range(first, top + 1) if (kind, s) in found]
        book += _merged(kind, stakes, found, top, merge_loss)
    return book


def _merged(kind: str, stakes: list[int], found: dict[tuple[str, int], Masses], top: int,
            merge_loss: float) -> list[StakeRule]:
    """Adjacent bands of stakes merged greedily while a merge loses at most `merge_loss`."""
    def total(band: tuple[int, int]) -> Masses:
        out = found[(kind, band[0])]
        for s in range(band[0] + 1, band[1] + 1):
            out = out.add(found[(kind, s)])
        return out

    def fit(band: tuple[int, int]) -> tuple[float, StakeRule]:
        return fit_face(kind, band[0], band[1], total(band), top)

    bands = [(s, s) for s in stakes]
    fits = [fit(b) for b in bands]
    while len(bands) > 1:
        options = []
        for i in range(len(bands) - 1):
            joined = (bands[i][0], bands[i + 1][1])
            merged = fit(joined)
            weight = min(_weight(total(bands[i])), _weight(total(bands[i + 1])))
            lost = fits[i][0] + fits[i + 1][0] - merged[0]
            options.append((lost / max(weight, 1e-300), i, joined, merged))
        loss, i, joined, merged = min(options, key=lambda o: (o[0], o[1]))
        if loss > merge_loss:
            break
        bands[i:i + 2], fits[i:i + 2] = [joined], [merged]
    return [rule for _, rule in fits]


def _weight(found: Masses) -> float:
    return sum(float(m.sum()) for m in found.actions.values())


def _top_stake(model: HandModel) -> int:
    root = model.tree(model.public_states[0]).nodes[0]
    return max(int(a.split()[-1]) for a in root.actions)


def book_strategy(model: HandModel, book: Sequence[StakeRule], throwing: Strategy
                  ) -> Strategy:
    """The strategy the rules state: every betting decision by its rule, the throwing as
    `throwing` throws."""
    positions = ranked_positions(model)
    betting = {}
    for tc, to in model.public_states:
        for node in model.tree((tc, to)).nodes:
            kind, stake = decision_kind(node.history)
            rule = _rule_for(book, kind, stake)
            probs = np.zeros((len(node.actions), model.num_hands))
            index = {a: i for i, a in enumerate(node.actions)}
            for h in range(model.num_hands):
                probs[index[_action(rule, kind, stake, int(positions[h]) + 1)], h] = 1.0
            betting[(tc, to, node.history)] = probs
    return Strategy((throwing.throw[0].copy(), throwing.throw[1].copy()), betting)


def _rule_for(book: Iterable[StakeRule], kind: str, stake: int) -> StakeRule:
    for rule in book:
        if rule.covers(kind, stake):
            return rule
    raise ValueError(f"no rule covers {kind} {stake}")


def _action(rule: StakeRule, kind: str, stake: int, position: int) -> str:
    strong = position <= rule.strong or (
        rule.bluff is not None and rule.bluff[0] <= position <= rule.bluff[1])
    if kind == "propose":
        return f"stake {rule.stake if strong else rule.other}"
    if strong and rule.stake > stake:
        return f"raise to {rule.stake}"
    return CALL if position <= rule.call or strong else WITHDRAW


# --- words -------------------------------------------------------------------------------------

def _facing_words(rule: StakeRule) -> str:
    """"the first stake of 1", "the first stake from 2 to 8", "a raise to 9", "a raise to a
    stake from 2 to 8"."""
    if rule.kind == "first":
        return (f"the first stake of {rule.low}" if rule.low == rule.high
                else f"the first stake from {rule.low} to {rule.high}")
    return (f"a raise to {rule.low}" if rule.low == rule.high
            else f"a raise to a stake from {rule.low} to {rule.high}")


def _strong_words(action: str, rule: StakeRule, names: Sequence[str]) -> str | None:
    parts = []
    if rule.strong:
        parts.append(f"{action} with {names[rule.strong - 1]} or better")
    if rule.bluff is not None:
        b, e = rule.bluff
        band = names[b - 1] if b == e else f"{names[b - 1]} to {names[e - 1]}"
        parts.append(f"and also with {band}" if parts else f"{action} with {band}")
    return ", ".join(parts) if parts else None


def rule_text(rule: StakeRule, names: Sequence[str]) -> str:
    """The rule in words (`parse_rule` reads them back); `names`: the hands strongest
    first (`ranked_names`)."""
    if rule.kind == "propose":
        strong = _strong_words(f"propose {rule.stake}", rule, names)
        head = "Proposing the first stake (the first player): "
        if strong is None:
            return head + f"propose {rule.other} with every hand."
        return head + f"{strong}; propose {rule.other} otherwise."
    head = f"Facing {_facing_words(rule)}: "
    parts = []
    strong = _strong_words(f"raise to {rule.stake}", rule, names) if rule.stake else None
    if strong is not None:
        parts.append(strong)
    if not withdrawn(rule, len(names)):          # no clause for no hand
        return head + "; ".join(parts + ["call otherwise"]) + "."
    if rule.call > rule.strong:
        parts.append(f"call with {names[rule.call - 1]} or better")
    parts.append("withdraw otherwise")
    return head + "; ".join(parts) + "."


def clause_hands(rule: StakeRule, n: int) -> dict[str, list[int]]:
    """The positions (1 = strongest) of the `n` hands that play each action of `rule` ("raise
    to 9", "call", "withdraw"; "stake 9", "stake 1"), each action once, in the order first
    met: what each clause of its words covers."""
    out: dict[str, list[int]] = {}
    for p in range(1, n + 1):
        out.setdefault(_action(rule, rule.kind, rule.low, p), []).append(p)
    return out


def withdrawn(rule: StakeRule, n: int) -> list[int]:
    """The positions of the hands that withdraw facing `rule`'s stakes (`clause_hands`)."""
    return clause_hands(rule, n).get(WITHDRAW, [])


_HAND = r"([0-9]-[0-9]-[0-9])"
_STRONG = (r"(?:(?P<verb>propose [0-9]|raise to [0-9]) with " + _HAND.replace("(", "(?P<x>")
           + r" or better(?:, and also with (?P<b>[0-9]-[0-9]-[0-9])"
           r"(?: to (?P<e>[0-9]-[0-9]-[0-9]))?)?"
           r"|(?P<verb2>propose [0-9]|raise to [0-9]) with "
           r"(?P<b2>[0-9]-[0-9]-[0-9])(?: to (?P<e2>[0-9]-[0-9]-[0-9]))?)")
_PROPOSE = re.compile(r"Proposing the first stake \(the first player\): (?:" + _STRONG
                      + r"; propose (?P<other>[0-9]) otherwise|propose (?P<every>[0-9]) "
                      r"with every hand)\.$")
_FACE = re.compile(r"Facing (?P<what>the first stake|a raise) (?:(?:of|to) (?P<s>[0-9])|"
                   r"(?:to a stake )?from (?P<lo>[0-9]) to (?P<hi>[0-9])): (?:" + _STRONG
                   + r"; )?(?:(?:call with (?P<c>[0-9]-[0-9]-[0-9]) or better; )?"
                   r"withdraw otherwise|(?P<all>call otherwise))\.$")


def parse_rule(text: str, names: Sequence[str]) -> StakeRule:
    """The rule `rule_text` wrote (ValueError on other words)."""
    position = {name: p for p, name in enumerate(names, start=1)}

    def at(name: str | None) -> int:
        if name is None:
            return 0
        if name not in position:
            raise ValueError(f"no hand {name!r} in the ranking")
        return position[name]

    found = _PROPOSE.match(text) or _FACE.match(text)
    if found is None:
        raise ValueError(f"not a stakes rule: {text!r}")
    g = found.groupdict()
    verb = g.get("verb") or g.get("verb2")
    first, last = g.get("b") or g.get("b2"), g.get("e") or g.get("e2")
    bluff = (at(first), at(last or first)) if first else None
    stake = int(verb.split()[-1]) if verb else 0
    strong = at(g.get("x"))
    if "what" not in g:
        if g.get("every"):
            return StakeRule("propose", 0, 0, stake, 0, None, 0, int(g["every"]))
        return StakeRule("propose", 0, 0, stake, strong, bluff, 0, int(g["other"]))
    kind = "first" if g["what"] == "the first stake" else "raise"
    low, high = (int(g["s"]), int(g["s"])) if g["s"] else (int(g["lo"]), int(g["hi"]))
    calls = len(names) if g.get("all") else max(at(g.get("c")), strong)
    return StakeRule(kind, low, high, stake, strong, bluff, calls)
