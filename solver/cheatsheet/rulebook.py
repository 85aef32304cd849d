"""Strategies a person can state in words: a short list of threshold rules on the hand ranking.

A *decision* ("atom") is one thing a player decides: a throw decision (player, the captain's
throw count the opponent knows, the throw just made) or a betting decision point (player,
public state, betting so far). Every atom has a few ordinal *features* a player sees
(who he is, how many throws each made, the standing bet level), and a *rule* covers the atoms
whose features lie in one interval per feature. The rules of a rule book partition the atoms,
so a player finds exactly one rule for every decision.

A rule's action is one or two *cuts* in the ranking's table order (`rules.ranked_hands`,
strongest first). A cut counts hands from the strongest in quarters of a hand (`STEPS`): a
cut inside a hand mixes that one hand ("bet with 6-5-4 or better (with 6-5-3 half the
time)"). A cut may also be a *staircase*: four whole-hand counts c1 >= c2 >= c3
>= c4, a hand at position p being inside it with probability #{j : p < c_j} / 4, so that
whole ranges of hands mix in quarters ("call with 6-5-3 or better, half the time with 6-5-2
to 6-4-4"). An integer cut is the staircase whose counts differ by at most one, and is
always written as the integer (`cut_of`), so each action has one spelling. The actions, by
kind of decision:

* ``throw`` (k), (k, 1) or (k, 2): stop with the hands inside the cut k, otherwise throw
  again (under ``reroll="keep"`` keeping what the player's ``keep`` rule says); with the
  second number (``reroll="keep"`` only), a hand the keep rule keeps nothing of
  (1), or fewer than two dice of (2), stops instead ("...; if it keeps nothing, stop";
  "...; if it keeps fewer than two dice, stop"): after the second throw the equilibrium
  stops with the middling hands it has nothing (or one die) to keep of (6-4-2, 5-3-1) and
  throws again with weaker hands that hold a pair or a 2 and a 1, which no cut in the
  ranking states;
* ``open`` (v, b) or (v, b, e), nothing bet yet: bet with the hands inside v and, as a bluff,
  with the hands outside b but inside the first e hands (a *bluff band*: "bluff
  (bet) with 5-4-2 to 4-3-1"; without e, down to the weakest hand: "4-1-1 or worse"; b at the
  bottom: no bluff); otherwise pass. The equilibrium bluffs with middling hands and passes
  with the weakest (default game, after three throws each: the 34th to the 41st of 56
  bluff): the band states that, "or worse" cannot. A hand that always passes lies between
  the value bets and the bluffs (`polarized`): the bet's frequency never rises from one
  hand to a weaker one except at the bluffs, which the sheet explains;
* ``face`` (r, c), facing a bet or raise: raise with the hands inside r, call with the rest
  of those inside c, fold the others (at the top level, where no raise is allowed, call
  instead);
* ``keep`` (patterns): under ``reroll="keep"``, the dice kept when throwing again, as an
  ordered list of preferences ("a 2 and a 1, else a pair, else the highest die"; "two dice
  of 4 or more": the two highest dice when the middle one is a 4 or more, 6-5, 6-4, 5-4 or
  a high pair).

`rule_text` states a rule in words and `parse_rule` reads those words back, so the printed
rules and the strategy file come from one source and a test can check that they agree.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Iterable, Sequence, cast

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy, uniform_strategy

KINDS = ("throw", "keep", "open", "face")
FEATURES = {
    "throw": ("player", "seen", "throw"),
    "keep": ("player", "seen", "throw"),
    "open": ("player", "relation", "own", "other"),
    "face": ("player", "level", "relation", "own", "other"),
}
# Keep preferences: what each keeps from a hand, if it applies (None: it does not).
KEEP_PATTERNS = ("21", "pair", "run", "ace", "deuce", "high", "high2")
STEPS = 4                  # a cut may fall inside a hand, in quarters: "half the time"
KEEP_WORDS = {"21": "a 2 and a 1", "pair": "a pair", "run": "two touching dice",
              "ace": "a 1", "deuce": "a 2", "high": "the highest die",
              "high2": "two dice of 4 or more"}
# a throw rule's second number, in words: stop the hands the keep rule keeps nothing of (1),
# or fewer than two dice of (2)
STOP_FLAGS = {1: "; if it keeps nothing, stop", 2: "; if it keeps fewer than two dice, stop"}
STOP_ON_NOTHING = STOP_FLAGS[1]


@dataclasses.dataclass(frozen=True)
class Atom:
    """One decision. `key`: (context, throw) for throws and for the dice kept when throwing
    again after that throw (a keep decision), (tc, to, history) for betting; `features` in
    the order of FEATURES[kind]."""

    kind: str
    player: int
    key: tuple
    features: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Rule:
    """A scope (an interval per feature of its kind) and a threshold action."""

    kind: str
    scope: tuple[tuple[int, int], ...]
    params: tuple

    def covers(self, atom: Atom) -> bool:
        return atom.kind == self.kind and all(
            lo <= value <= hi for value, (lo, hi) in zip(atom.features, self.scope))

    def to_dict(self) -> dict:
        return {"kind": self.kind,
                "scope": {f: list(iv) for f, iv in zip(FEATURES[self.kind], self.scope)},
                "params": [list(p) if isinstance(p, tuple) else p for p in self.params]}

    @classmethod
    def from_dict(cls, data: dict) -> "Rule":
        """The rule `to_dict` wrote (a staircase cut comes back as a tuple; a keep rule
        written before keep rules had throws, with its player alone, covers every throw
        once `canonical` gives it the full intervals)."""
        params = tuple(tuple(p) if isinstance(p, list) else p for p in data["params"])
        return cls(data["kind"], tuple(_interval(iv) for iv in data["scope"].values()),
                   params)


# --- decisions ------------------------------------------------------------------------------

def atoms(model: HandModel) -> list[Atom]:
    """Every decision of both players, in a fixed order."""
    T = model.throws
    out: list[Atom] = []
    for player in (CAPTAIN, OPPONENT):
        contexts = [0] if player == CAPTAIN else list(range(T))
        for c in contexts:
            for t in range(1, T):
                seen = 0 if player == CAPTAIN else c + 1
                out.append(Atom("throw", player, (c, t), (player, seen, t)))
        if model.params.reroll == "keep":
            out += [keep_atom(a) for a in out if a.kind == "throw" and a.player == player]
    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        for node in tree.nodes:
            own, other = (tc, to) if node.actor == CAPTAIN else (to, tc)
            relation = int(np.sign(own - other))
            features: tuple[int, ...]
            if node.level == 0:
                features = (node.actor, relation, own, other)
                out.append(Atom("open", node.actor, (tc, to, node.history), features))
            else:
                features = (node.actor, node.level, relation, own, other)
                out.append(Atom("face", node.actor, (tc, to, node.history), features))
    return out


def keep_atom(atom: Atom) -> Atom:
    """The keep decision of a throw decision: which dice to keep when throwing again."""
    return dataclasses.replace(atom, kind="keep")


def domains(model: HandModel) -> dict[str, dict[str, tuple[int, int]]]:
    """The full interval of every feature of every kind."""
    T, L = model.throws, model.params.max_level
    return {
        "throw": {"player": (0, 1), "seen": (0, T), "throw": (1, T - 1)},
        "keep": {"player": (0, 1), "seen": (0, T), "throw": (1, T - 1)},
        "open": {"player": (0, 1), "relation": (-1, 1), "own": (1, T), "other": (1, T)},
        "face": {"player": (0, 1), "level": (1, L), "relation": (-1, 1), "own": (1, T),
                 "other": (1, T)},
    }


def root_rules(model: HandModel) -> list[Rule]:
    """The coarsest rule book: one rule per kind of decision, middling thresholds."""
    top = STEPS * model.num_hands
    present = {a.kind for a in atoms(model)}
    start = {"throw": (top // 2,), "keep": KEEP_PATTERNS[:2], "open": (top // 4, top),
             "face": (STEPS * (top // (8 * STEPS)), STEPS * (top // (2 * STEPS)))}
    dom = domains(model)
    return [Rule(kind, tuple(dom[kind][f] for f in FEATURES[kind]), start[kind])
            for kind in KINDS if kind in present]


def valid_params(model: HandModel, kind: str, params: tuple, top_only: bool = False) -> bool:
    """Whether `params` is an action of the family: cuts in range and in order, and two cuts
    never sharing their mixed hand (so each hand mixes at most two actions)."""
    top = STEPS * model.num_hands
    if kind == "keep":
        return len(set(params)) == len(params) and all(p in KEEP_PATTERNS for p in params)
    if kind == "open" and len(params) == 3:
        if not valid_band(model, params[1], params[2]):
            return False
        params = params[:2]
    if kind == "throw" and len(params) == 2:
        # stop when the keep rule keeps nothing: only where there is a keep rule
        if params[1] not in STOP_FLAGS or isinstance(params[1], bool) or \
                model.params.reroll != "keep":
            return False
        params = params[:1]
    if not all(valid_cut(model, x) for x in params):
        return False
    if kind == "throw":
        return len(params) == 1
    if len(params) != 2:
        return False
    first, second = params
    if top_only and kind == "face" and first:
        return False
    # every hand the first cut takes at all is wholly inside the second: a hand that
    # sometimes raises never folds, and value bets and bluffs never share a hand
    nested = counts(first)[0] <= counts(second)[-1]
    if kind == "open":
        return first == second == top or (nested and polarized(model, first, second))
    return first == second or (first != second and nested)


def polarized(model: HandModel, value: Cut, bluff: Cut) -> bool:
    """An open rule's bluffs lie below a hand that always passes (or there are none, or no
    value bets): the bet's frequency falls from the strongest hand down to that pass, so no
    hand bets less often than a weaker one except the bluffs, which the sheet explains."""
    c = counts(value)[0]
    b = counts(bluff)[-1]
    return c == 0 or b >= model.num_hands or c < b


def polarize(model: HandModel, rule: Rule) -> Rule:
    """An open rule made `polarized`: its value bets that reach its bluffs pass instead,
    down to a hand above them (the bluffs stay: they are what a search moved there)."""
    if rule.kind != "open" or polarized(model, *rule.params[:2]):
        return rule
    value, bluff = rule.params[:2]
    edge = counts(bluff)[-1] - 1
    clipped = cut_of(tuple(max(0, min(x, edge)) for x in counts(value)))
    return canonical(model, dataclasses.replace(rule, params=(clipped,) + rule.params[1:]))


def valid_band(model: HandModel, bluff: Cut, end: object) -> bool:
    """A bluff band's end e (whole hands, positions >= e never bluff): a hand of the bluff
    cut's lowest step bluffs (e > c4), every step ends inside the band (e >= c1), and the
    band stops before the weakest hand (e = n is no band: the rule has no e)."""
    if isinstance(end, bool) or not isinstance(end, int) or not valid_cut(model, bluff):
        return False
    c = counts(bluff)
    return c[0] <= end < model.num_hands and c[-1] < end


def normalize_scope(model: HandModel, kind: str,
                    scope: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The one interval per feature that the words give back.

    Only the opponent knows the captain's throw count ("seen"): in a scope with the captain
    it is the full interval, and for the opponent alone 1..T is written as the full interval.
    """
    dom = domains(model)[kind]
    out = [_interval(iv) for iv in scope]
    if kind == "keep" and len(out) < len(dom):      # a file's keep rule of one player
        out += [dom[f] for f in FEATURES[kind][len(out):]]
    if kind in ("throw", "keep"):
        player, (lo, hi) = out[0], out[1]
        if player != (1, 1) or (max(lo, 1), hi) == (1, dom["seen"][1]):
            out[1] = dom["seen"]
        else:
            out[1] = (max(lo, 1), hi)
    if kind in ("open", "face"):
        at = {f: FEATURES[kind].index(f) for f in ("relation", "own", "other")}
        tight = _tight(model.throws, out[at["relation"]], out[at["own"]], out[at["other"]])
        if tight is not None:
            for f, iv in zip(("relation", "own", "other"), tight):
                out[at[f]] = iv
    return tuple(out)


Pairs = frozenset[tuple[int, int]]
Box = tuple[tuple[int, int], tuple[int, int], tuple[int, int]]


def throw_pairs(throws: int, relation: Sequence[int], own: Sequence[int],
                other: Sequence[int]) -> Pairs:
    """The (own throws, other's throws) pairs a betting scope covers: own and other in their
    intervals, the sign of own - other in `relation`'s."""
    return frozenset((a, b) for a in range(own[0], own[1] + 1)
                     for b in range(other[0], other[1] + 1)
                     if relation[0] <= (a > b) - (a < b) <= relation[1]
                     and 1 <= a <= throws and 1 <= b <= throws)


def _tight(throws: int, relation: Sequence[int], own: Sequence[int], other: Sequence[int]
           ) -> Box | None:
    """The tightest intervals (relation, own, other) covering the same pairs (None: none):
    one scope for each set of pairs, so that the words, written from the pairs, read back
    to the scope they came from."""
    pairs = throw_pairs(throws, relation, own, other)
    if not pairs:
        return None
    signs = [(a > b) - (a < b) for a, b in pairs]
    return ((min(signs), max(signs)), (min(a for a, _ in pairs), max(a for a, _ in pairs)),
            (min(b for _, b in pairs), max(b for _, b in pairs)))


def _interval(iv: Sequence[int]) -> tuple[int, int]:
    """An interval as the tuple it is compared and looked up as (a file gives a list)."""
    return cast(tuple[int, int], tuple(iv))


def top_level_only(model: HandModel, rule: Rule) -> bool:
    return rule.kind == "face" and rule.scope[1][0] == model.params.max_level


def canonical(model: HandModel, rule: Rule) -> Rule:
    """One way to write each action: the params that the words give back."""
    top = STEPS * model.num_hands
    p: tuple[Any, ...] = (rule.params if rule.kind == "keep"
                          else tuple(cut_of(x) for x in rule.params))
    if rule.kind == "throw" and len(p) == 2 and (p[1] == 0 or p[0] == top):
        p = p[:1]                               # no flag, or always stop: the flag says nothing
    if rule.kind == "open" and len(p) == 3 and (p[2] >= model.num_hands or p[1] == top):
        p = p[:2]                               # a band down to the weakest hand, or none
    elif rule.kind == "open" and len(p) == 3 and counts(p[1])[-1] >= p[2]:
        p = (p[0], top)                         # a band with no bluff in it: no bluff
    both_int = rule.kind != "keep" and all(isinstance(x, int) for x in p[:2])
    if rule.kind == "open" and both_int and p[0] >= p[1]:
        # bet with everything (down to the band's end)
        p = (top, top) if len(p) == 2 else (STEPS * p[2], top)
    if rule.kind == "face" and top_level_only(model, rule):
        p = (0, p[1])                           # no raise at the top level: call
        both_int = isinstance(p[1], int)
    if rule.kind == "face" and both_int and p[0] >= p[1]:
        p = (p[0], p[0])
    return dataclasses.replace(rule, params=tuple(p),
                               scope=normalize_scope(model, rule.kind, rule.scope))


def assign(rule_list: Sequence[Rule], atom_list: Sequence[Atom]) -> list[int]:
    """The index of the one rule covering each atom; ValueError unless they partition."""
    out = []
    for atom in atom_list:
        hits = [i for i, r in enumerate(rule_list) if r.covers(atom)]
        if len(hits) != 1:
            raise ValueError(f"{len(hits)} rules cover the decision {atom.kind} {atom.key}")
        out.append(hits[0])
    return out


# --- the strategy the rules state -----------------------------------------------------------

def positions(model: HandModel) -> np.ndarray:
    """pos[h]: 0 for the strongest hand, n-1 for the weakest (ranking table order): the
    model's strength (0 for the weakest) counted from the other end."""
    return (model.num_hands - 1 - model.strength).astype(np.int64)


def stops_on_nothing(rule: Rule) -> bool:
    """Whether a throw rule stops the hands its player's keep rule keeps nothing of (or,
    with the flag 2, fewer than two dice of)."""
    return stop_flag(rule) > 0


def stop_flag(rule: Rule) -> int:
    """A throw rule's flag: 0 none, 1 stop when nothing is kept, 2 when fewer than two
    dice are (`STOP_FLAGS`)."""
    return int(rule.params[1]) if rule.kind == "throw" and len(rule.params) == 2 else 0


def stopped_by_flag(model: HandModel, flag: int, keep: np.ndarray) -> np.ndarray:
    """(n,) bool: the hands a throw rule's flag stops, given what the keep rule keeps."""
    if flag == 0:
        return np.zeros(len(keep), dtype=bool)
    kept = np.array([len(model.throw_actions[a]) for a in keep])
    return kept < flag


def kept_dice(hand: rules.Hand, pattern: str) -> tuple[int, ...] | None:
    """What a keep preference keeps from `hand` (None: it does not apply)."""
    a, b, c = hand
    if pattern == "21":
        return (2, 1) if 2 in hand and 1 in hand else None
    if pattern == "pair":
        return (b, b) if a == b or b == c else None
    if pattern == "run":
        for x, y in ((a, b), (b, c), (a, c)):
            if x == y + 1:
                return (x, y)
        return None
    if pattern == "ace":
        return (1,) if c == 1 else None
    if pattern == "deuce":
        return (2,) if 2 in hand else None
    if pattern == "high":
        return (a,)
    if pattern == "high2":
        return (a, b) if b >= 4 else None
    raise ValueError(pattern)


def keep_actions(model: HandModel, patterns: Sequence[str]) -> np.ndarray:
    """(n,) the throw action index each hand takes when it throws again."""
    index = {a: i for i, a in enumerate(model.throw_actions)}
    out = np.empty(model.num_hands, dtype=np.int64)
    for h, hand in enumerate(model.hands):
        kept: tuple[int, ...] = ()
        for pattern in patterns:
            found = kept_dice(hand, pattern)
            if found is not None:
                kept = found
                break
        out[h] = index[kept]
    return out


def keep_for(model: HandModel, rule_list: Sequence[Rule], atom: Atom) -> np.ndarray | None:
    """The throw action each hand takes when it throws again at the throw decision `atom`,
    by the keep rule of `rule_list` covering it (None: none does)."""
    wanted = keep_atom(atom)
    for rule in rule_list:
        if rule.covers(wanted):
            return keep_actions(model, rule.params)
    return None


Cut = int | tuple[int, int, int, int]


def counts(cut: Cut) -> tuple[int, int, int, int]:
    """The staircase of a cut: (c1, c2, c3, c4), hands inside with probability
    #{j : position < c_j} / 4; an integer cut k is k // 4 hands and k % 4 quarters of one."""
    if isinstance(cut, int):
        whole, part = divmod(cut, STEPS)
        return cast(tuple[int, int, int, int],
                    tuple(whole + (part > j) for j in range(STEPS)))
    return cast(tuple[int, int, int, int], tuple(int(c) for c in cut))


def cut_of(value: Cut | Sequence[int]) -> Cut:
    """The one spelling of a cut: the integer when the staircase is one (counts within one
    of each other), else the four counts (a file gives a list)."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    c = tuple(int(x) for x in value)
    if len(c) != STEPS:
        raise ValueError(f"a staircase cut has {STEPS} counts, not {len(c)}")
    if c[0] - c[-1] <= 1:
        return STEPS * c[-1] + sum(x > c[-1] for x in c)
    return cast(tuple[int, int, int, int], c)


def valid_cut(model: HandModel, cut: object) -> bool:
    """An integer in 0..4n, or four non-increasing whole-hand counts in 0..n."""
    if isinstance(cut, bool):
        return False
    if isinstance(cut, int):
        return 0 <= cut <= STEPS * model.num_hands
    return (isinstance(cut, tuple) and len(cut) == STEPS
            and all(isinstance(c, int) and 0 <= c <= model.num_hands for c in cut)
            and all(a >= b for a, b in zip(cut, cut[1:])))


def above(cut: Cut, pos: np.ndarray) -> np.ndarray:
    """P(hand is inside the cut): the cut counts hands from the strongest, in 1/STEPS (or
    is a staircase of whole-hand counts, `counts`)."""
    if isinstance(cut, int):
        return np.clip(cut / STEPS - pos, 0.0, 1.0)
    return np.mean([pos < c for c in cut], axis=0)


def action_probs(model: HandModel, rule: Rule, atom: Atom, pos: np.ndarray,
                 keep: np.ndarray | None = None) -> np.ndarray:
    """The (actions, n) decision `rule` states at `atom`."""
    n = model.num_hands
    if atom.kind == "throw":
        out = np.zeros(model.throw_legal.shape)
        stop = above(rule.params[0], pos)
        again = keep if keep is not None else np.ones(n, dtype=np.int64)
        if stops_on_nothing(rule) and keep is not None:
            stop = np.where(stopped_by_flag(model, stop_flag(rule), keep), 1.0, stop)
        out[0] = stop
        out[again, np.arange(n)] += 1.0 - stop
        return out
    tc, to, history = atom.key
    actions = model.tree((tc, to)).node(history).actions
    out = np.zeros((len(actions), n))
    if atom.kind == "open":
        v, b = rule.params[:2]
        bluff = (1.0 - above(b, pos)) * (pos < band_end(model, rule))
        bet = np.minimum(above(v, pos) + bluff, 1.0)
        out[actions.index("bet")] = bet
        out[actions.index("pass")] = 1.0 - bet
        return out
    r, c = rule.params
    raise_ = above(r, pos) if "raise" in actions else np.zeros(n)
    if "raise" in actions:
        out[actions.index("raise")] = raise_
    out[actions.index("call")] = above(c, pos) - raise_
    out[actions.index("fold")] = 1.0 - above(c, pos)
    return out


def band_end(model: HandModel, rule: Rule) -> int:
    """Where an open rule's bluffs stop (positions >= it never bluff): its e, else n."""
    return int(rule.params[2]) if len(rule.params) == 3 else model.num_hands


def build_strategy(model: HandModel, rule_list: Sequence[Rule]) -> Strategy:
    """The (pure) strategy a player following `rule_list` literally plays."""
    atom_list = atoms(model)
    owner = assign(rule_list, atom_list)
    pos = positions(model)
    strategy = uniform_strategy(model)
    keeps = keep_plan(model, rule_list, atom_list, owner)
    for atom, i in zip(atom_list, owner):
        if atom.kind == "keep":
            continue
        set_atom(model, strategy, atom, action_probs(model, rule_list[i], atom, pos,
                                                     keeps.get((atom.player, atom.key))))
    return strategy


def keep_plan(model: HandModel, rule_list: Sequence[Rule], atom_list: Sequence[Atom],
              owner: Sequence[int]) -> dict[tuple[int, tuple], np.ndarray]:
    """The keep actions (`keep_actions`) at every keep decision, by (player, key): what a
    throw decision of that player and key does with a hand that throws again."""
    return {(atom.player, atom.key): keep_actions(model, rule_list[i].params)
            for atom, i in zip(atom_list, owner) if atom.kind == "keep"}


def set_atom(model: HandModel, strategy: Strategy, atom: Atom, probs: np.ndarray) -> None:
    if atom.kind == "throw":
        c, t = atom.key
        strategy.throw[atom.player][c, t - 1] = probs
    elif atom.kind != "keep":
        strategy.betting[atom.key] = probs


# --- words ----------------------------------------------------------------------------------

_WHO = {(0, 0): "Captain", (1, 1): "Opponent", (0, 1): "Either player"}
_OTHER = {(0, 0): "the opponent", (1, 1): "the captain", (0, 1): "the other player"}
_RELATION = {(-1, -1): "fewer times than", (0, 0): "as many times as",
             (1, 1): "more times than", (-1, 0): "no more times than",
             (0, 1): "at least as many times as"}


# the relation of the throw counts, said of the other player (you: own - other) or of you
_OTHER_RELATION = {(-1, -1): "more", (0, 0): "as many", (1, 1): "fewer",
                   (-1, 0): "at least as many", (0, 1): "no more"}
_YOU_RELATION = {(-1, -1): "fewer", (0, 0): "as many", (1, 1): "more", (-1, 0): "no more",
                 (0, 1): "at least as many"}
_EACH = {1: "one throw", 2: "two throws", 3: "three throws"}


def pairs_phrase(throws: int, other: str, box: Box) -> str | None:
    """The throw counts a betting scope covers, in the fewest words that say exactly those
    (own, other's) pairs ("after one throw each", "when you threw once or twice and the other
    player once", "when the other player threw 3 times and you no more"); None: every pair.
    `box` is the tight (relation, own, other) of `_tight`."""
    full = (1, throws)
    relation, own, theirs = box
    pairs = throw_pairs(throws, relation, own, theirs)
    if pairs == throw_pairs(throws, (-1, 1), full, full):
        return None
    if len(pairs) == 1 and own == theirs:
        k = own[0]
        return f"after {_EACH.get(k, f'{k} throws')} each"
    you, them = f"when you threw {_times(*own)}", f"when {other} threw {_times(*theirs)}"
    candidates = [
        (((-1, 1), own, full), you),
        (((-1, 1), full, theirs), them),
        ((relation, full, full), f"when you threw {_RELATION.get(relation, '')} {other}"),
        (((-1, 1), own, theirs), f"{you} and {other} {_times(*theirs)}"),
        ((relation, full, theirs), f"{them} and you {_YOU_RELATION.get(relation, '')}"),
        ((relation, own, full), f"{you} and {other} {_OTHER_RELATION.get(relation, '')}"),
    ]
    for (r, a, b), phrase in candidates:
        if throw_pairs(throws, r, a, b) == pairs:
            return phrase
    return (f"{you} and {other} {_times(*theirs)}, you "
            f"{_YOU_RELATION.get(relation, '')}")


def _times(lo: int, hi: int) -> str:
    words = {1: "once", 2: "twice"}
    if lo == hi:
        return words.get(lo, f"{lo} times")
    if (lo, hi) == (1, 2):
        return "once or twice"
    return f"{lo} or {hi} times" if hi == lo + 1 else f"{lo} to {hi} times"


def _throws(lo: int, hi: int) -> str:
    if lo == hi:
        return f"after throw {lo}"
    return f"after throw {lo} or {hi}" if hi == lo + 1 else f"after throws {lo} to {hi}"


def _levels(lo: int, hi: int, top: int) -> str:
    if lo == 1:
        if hi == 1:
            return "facing a bet"
        if hi == top:
            return "facing a bet or a raise"
        return f"facing a bet or a raise to {hi} or less"
    if lo == hi:
        return f"facing a raise to {lo}"
    if hi == top:
        return "facing a raise" if lo == 2 else f"facing a raise to {lo} or more"
    return f"facing a raise to {lo} to {hi}"


def scope_phrases(model: HandModel, kind: str, scope: Sequence[tuple[int, int]]) -> list[str]:
    """The scope in words (player first); conditions are joined: "when A and B"."""
    out: list[str] = []
    for _, phrase in _scope_parts(model, kind, scope):
        if phrase.startswith("when ") and out and out[-1].startswith("when "):
            out[-1] += " and " + phrase.removeprefix("when ")
        else:
            out.append(phrase)
    return out


def _scope_parts(model: HandModel, kind: str, scope: Sequence[tuple[int, int]]
                 ) -> list[tuple[str, str]]:
    dom = domains(model)[kind]
    named = dict(zip(FEATURES[kind], (_interval(iv) for iv in scope)))
    player = named["player"]
    other = _OTHER[player]
    out = [("player", _WHO[player])]
    for feature, (lo, hi) in named.items():
        full = (lo, hi) == dom[feature]
        if feature == "throw" and (kind == "throw" or not full):
            out.append((feature, _throws(lo, hi)))
        elif feature == "seen" and lo > 0 and (lo, hi) != (1, dom[feature][1]):
            out.append((feature, f"when the captain threw {_times(lo, hi)}"))
    if kind in ("open", "face"):
        box = _tight(model.throws, named["relation"], named["own"], named["other"])
        phrase = pairs_phrase(model.throws, other, box) if box is not None else None
        if phrase is not None:
            out.append(("pairs", phrase))
    if kind == "face":
        out.append(("level", _levels(*named["level"], model.params.max_level)))
    if kind == "open":
        out.append(("", "with nothing bet yet"))
    if kind == "keep":
        out.append(("", "throwing again"))
    return out


def _hand(model: HandModel, position: int) -> str:
    return rules.format_hand(rules.ranked_hands(model.params.faces, model.params.ranking)
                             [position])


FREQUENCIES = {1: "one time in four", 2: "half the time", 3: "three times in four"}


def _cut(model: HandModel, verb: str, cut: Cut) -> str:
    """"bet with 6-5-4 or better (with 6-5-3 half the time)"; a staircase: "call with 6-5-3
    or better, half the time with 6-5-2 to 6-4-4"."""
    if not isinstance(cut, int):
        return _staircase(model, verb, cut)
    full, part = divmod(cut, STEPS)
    if full == 0:
        return f"{verb} with {_hand(model, 0)} {FREQUENCIES[part]}"
    text = f"{verb} with {_better(model, full)}"
    return text + (f" (with {_hand(model, full)} {FREQUENCIES[part]})" if part else "")


def _better(model: HandModel, count: int) -> str:
    """The `count` strongest hands: "6-5-4 or better", the strongest alone by its name."""
    return _hand(model, 0) if count == 1 else f"{_hand(model, count - 1)} or better"


def _range(model: HandModel, lo: int, hi: int) -> str:
    """Positions lo..hi-1: "6-5-2" or "6-5-2 to 6-4-4" (strongest first)."""
    if hi == lo + 1:
        return _hand(model, lo)
    return f"{_hand(model, lo)} to {_hand(model, hi - 1)}"


def _staircase(model: HandModel, verb: str, cut: tuple[int, ...]) -> str:
    """The hands inside a staircase cut, from the strongest: those always inside ("or
    better"), then each range inside three times, two times, one time in four."""
    c1, c2, c3, c4 = cut
    parts = [f"{verb} with {_better(model, c4)}"] if c4 else []
    for level, (lo, hi) in ((3, (c4, c3)), (2, (c3, c2)), (1, (c2, c1))):
        if hi > lo:
            phrase = f"{FREQUENCIES[level]} with {_range(model, lo, hi)}"
            parts.append(phrase if parts else f"{verb} {phrase}")
    return ", ".join(parts)


def _down_to(model: HandModel, start: int, end: int) -> str:
    """The bluffs always made, positions start..end-1: "4-1-1 or worse" when they reach the
    weakest hand, else a band: "5-4-2 to 4-3-1" (one hand: "5-4-2")."""
    if end == model.num_hands:
        return f"{_hand(model, start)} or worse"
    return _range(model, start, end)


def _bluff(model: HandModel, cut: Cut, end: int) -> str:
    """The hands below `cut` (and above the band's `end`) that bet: "bluff (bet) with 3-2-2
    or worse"; a band: "bluff (bet) with 5-4-2 to 4-3-1"; a staircase: "bluff (bet) with
    4-1-1 or worse, one time in four with 4-2-1 to 4-3-1"."""
    if not isinstance(cut, int):
        return _bluff_staircase(model, cut, end)
    full, part = divmod(cut, STEPS)
    if not part:
        return f"bluff (bet) with {_down_to(model, full, end)}"
    if full + 1 == end:
        return f"bluff (bet) with {_hand(model, full)} {FREQUENCIES[STEPS - part]}"
    return (f"bluff (bet) with {_down_to(model, full + 1, end)} (with {_hand(model, full)} "
            f"{FREQUENCIES[STEPS - part]})")


def _bluff_staircase(model: HandModel, cut: tuple[int, ...], end: int) -> str:
    """Outside a staircase (c1..c4), from the weakest: the hands always outside ("or
    worse", or down to the band's end), then the ranges outside three times, two times, one
    time in four."""
    b1, b2, b3, b4 = cut
    parts = [f"bluff (bet) with {_down_to(model, b1, end)}"] if b1 < end else []
    for level, (lo, hi) in ((3, (b2, b1)), (2, (b3, b2)), (1, (b4, b3))):
        if hi > lo:
            phrase = f"{FREQUENCIES[level]} with {_range(model, lo, hi)}"
            parts.append(phrase if parts else f"bluff (bet) {phrase}")
    return ", ".join(parts)


def action_text(model: HandModel, rule: Rule) -> str:
    """What to do, in words (the part after the colon)."""
    top = STEPS * model.num_hands
    p = rule.params
    if rule.kind == "keep":
        if not p:
            return "throw all three dice"
        prefs = ", else ".join(KEEP_WORDS[x] for x in p)
        return f"keep {prefs}; if none of these, throw all three dice"
    if rule.kind == "throw":
        k = p[0]
        again = ("throw again and keep what your keep rule says"
                 if model.params.reroll == "keep" else "throw all three dice again")
        if k == top:
            return "always stop"
        if stops_on_nothing(rule):
            return (again if k == 0 else f"{_cut(model, 'stop', k)}, otherwise {again}"
                    ) + STOP_FLAGS[stop_flag(rule)]
        if k == 0:
            return f"never stop: {again}"
        return f"{_cut(model, 'stop', k)}, otherwise {again}"
    if rule.kind == "open":
        v, b = p[:2]
        if v == top:
            return "always bet"
        if v == 0 and b == top:
            return "always pass"
        parts = [_cut(model, "bet", v)] if v else []
        if b != top:
            parts.append(_bluff(model, b, band_end(model, rule)))
        return ", ".join(parts) + ", otherwise pass"
    r, c = p
    if c == 0:
        return "always fold"
    if r == top:
        text = "always raise"
    else:
        parts = [_cut(model, "raise", r)] if r else []
        if c == top:
            parts.append("call with anything")
        elif c != r:
            parts.append(_cut(model, "call", c))
        text = ", ".join(parts) + (", otherwise fold" if c != top else "")
    level = model.params.max_level
    if r and rule.scope[1][1] == level and rule.scope[1][0] < level:
        text += f" (facing a raise to {level} you cannot raise: call)"
    return text


def rule_numbers(numbers: Sequence[int]) -> str:
    """Rules named by their numbers on a sheet, as a note says them: "rule 4", "rules 2
    and 5", "rules 1, 2 and 3"."""
    if len(numbers) == 1:
        return f"rule {numbers[0]}"
    return "rules " + ", ".join(str(i) for i in numbers[:-1]) + f" and {numbers[-1]}"


def rule_text(model: HandModel, rule: Rule) -> str:
    """One line: "Captain, after throw 1: stop with 6-5-4 or better, otherwise ..."."""
    return ", ".join(scope_phrases(model, rule.kind, rule.scope)) + ": " + action_text(model,
                                                                                      rule)


# --- reading the words back -------------------------------------------------------------------

class RuleTextError(ValueError):
    """A rule line that is not in the words `rule_text` writes."""


def _intervals(lo: int, hi: int) -> Iterable[tuple[int, int]]:
    return ((a, b) for a in range(lo, hi + 1) for b in range(a, hi + 1))


def _phrase_table(model: HandModel, kind: str) -> dict[str, tuple[str, tuple[int, int]]]:
    """Every scope phrase `scope_phrases` can write for `kind`, with what it means."""
    dom = domains(model)[kind]
    table: dict[str, tuple[str, tuple[int, int]]] = {}
    for feature in FEATURES[kind][1:]:
        for iv in _intervals(*dom[feature]):
            scope = [dom[f] if f != feature else iv for f in FEATURES[kind]]
            for player in _WHO:
                scope[0] = player
                for name, phrase in _scope_parts(model, kind, scope):
                    if name == feature:
                        table.setdefault(phrase.replace(_OTHER[player], "{other}"),
                                         (feature, iv))
    return table


def _pairs_table(model: HandModel) -> dict[str, Box]:
    """Every phrase `pairs_phrase` can write, with the tight scope it stands for."""
    table: dict[str, Box] = {}
    T = model.throws
    for relation in _intervals(-1, 1):
        for own in _intervals(1, T):
            for other in _intervals(1, T):
                box = _tight(T, relation, own, other)
                if box is None:
                    continue
                phrase = pairs_phrase(T, "{other}", box)
                if phrase is not None:
                    table[phrase] = box
    return table


def _kind_of(phrases: Sequence[str]) -> str:
    if "throwing again" in phrases:
        return "keep"
    if any(p.startswith("after throw") for p in phrases):
        return "throw"
    if "with nothing bet yet" in phrases:
        return "open"
    if any(p.startswith("facing a") for p in phrases):
        return "face"
    raise RuleTextError(f"cannot tell which decision {', '.join(phrases)!r} is about")


def parse_rule(model: HandModel, line: str) -> Rule:
    """The rule a line of `rule_text` states (RuleTextError if it is not one)."""
    line = re.sub(r"^\s*(\d+\.\s*)?", "", line.strip()).rstrip(".")
    if ": " not in line:
        raise RuleTextError(f"no ':' in rule {line!r}")
    scope_text, action = line.split(": ", 1)
    phrases = scope_text.split(", ")
    who = {v: k for k, v in _WHO.items()}
    if phrases[0] not in who:
        raise RuleTextError(f"a rule starts with Captain, Opponent or Either player: {line!r}")
    player = who[phrases[0]]
    kind = _kind_of(phrases[1:])
    dom = domains(model)[kind]
    scope = {f: dom[f] for f in FEATURES[kind]}
    scope["player"] = player
    table = _phrase_table(model, kind)
    pairs = _pairs_table(model) if kind in ("open", "face") else {}
    for phrase in phrases[1:]:
        generic = phrase.replace(_OTHER[player], "{other}")
        if phrase in ("with nothing bet yet", "throwing again"):
            continue
        if generic in pairs:
            scope["relation"], scope["own"], scope["other"] = pairs[generic]
            continue
        if generic not in table:
            raise RuleTextError(f"unknown condition {phrase!r}")
        feature, iv = table[generic]
        scope[feature] = iv
    params = _parse_action(model, kind, action)
    rule = Rule(kind, normalize_scope(model, kind, [scope[f] for f in FEATURES[kind]]), params)
    if rule_text(model, canonical(model, rule)) != line:
        raise RuleTextError(f"rule does not read back the same: {line!r}")
    return canonical(model, rule)


_FREQ = "(one time in four|half the time|three times in four)"
_RANGE = r"(\S+)(?: to (\S+))?"
_VERB_CUT = re.compile(rf"^(stop|bet|raise|call) with (\S+)(?: or better)?"
                       rf"(?: \(with (\S+) {_FREQ}\))?$")
_VERB_PART = re.compile(rf"^(stop|bet|raise|call) with (\S+) {_FREQ}$")
_BLUFF_CUT = re.compile(rf"^bluff \(bet\) with (\S+) or worse(?: \(with (\S+) {_FREQ}\))?$")
_BLUFF_PART = re.compile(rf"^bluff \(bet\) with (\S+) {_FREQ}$")
_BLUFF_BAND = re.compile(rf"^bluff \(bet\) with {_RANGE}(?: \(with (\S+) {_FREQ}\))?$")
# a staircase's ranges: the first names its verb, the next ones go on with the last verb
_STAIR_FIRST = re.compile(rf"^(stop|bet|raise|call|bluff \(bet\)) {_FREQ} with {_RANGE}$")
_STAIR_MORE = re.compile(rf"^{_FREQ} with {_RANGE}$")


class _CutReader:
    """The cuts an action's clauses name, by verb ("bluff" for the hands outside)."""

    def __init__(self, model: HandModel, text: str):
        self.model, self.text = model, text
        self.ranked = [rules.format_hand(h) for h in
                       rules.ranked_hands(model.params.faces, model.params.ranking)]
        self.steps = {v: k for k, v in FREQUENCIES.items()}
        self.cuts: dict[str, Cut] = {}
        self.whole: dict[str, int] = {}                 # "X or better / worse", no quarter
        self.ranges: dict[str, dict[int, tuple[int, int]]] = {}
        self.last = ""
        self.end: int | None = None                     # a bluff band's end, if named

    def place(self, hand: str) -> int:
        if hand not in self.ranked:
            raise RuleTextError(f"unknown hand {hand!r} in {self.text!r}")
        return self.ranked.index(hand)

    def read(self, clause: str) -> None:
        top = STEPS * self.model.num_hands
        if clause == "always raise":
            self.cuts["raise"] = self.cuts["call"] = top
        elif clause == "call with anything":
            self.cuts["call"] = top
        elif (m := _VERB_CUT.match(clause)):
            self.last, whole = m.group(1), self.place(m.group(2)) + 1
            self.cuts[self.last] = whole * STEPS + (self.steps[m.group(4)] if m.group(4) else 0)
            if not m.group(4):
                self.whole[self.last] = whole
        elif (m := _VERB_PART.match(clause)):
            self.cuts[m.group(1)] = self.steps[m.group(3)]
        elif (m := _BLUFF_CUT.match(clause)):
            self.last, start = "bluff", self.place(m.group(1))
            self.cuts["bluff"] = (start * STEPS if not m.group(3) else
                                  self.place(m.group(2)) * STEPS + STEPS
                                  - self.steps[m.group(3)])
            if not m.group(3):
                self.whole["bluff"] = start
            self.end = self.model.num_hands
        elif (m := _BLUFF_PART.match(clause)):
            self.cuts["bluff"] = self.place(m.group(1)) * STEPS + STEPS - self.steps[m.group(2)]
            self.end = self.place(m.group(1)) + 1
        elif (m := _BLUFF_BAND.match(clause)):
            self.last, start = "bluff", self.place(m.group(1))
            self.end = self.place(m.group(2) or m.group(1)) + 1
            self.cuts["bluff"] = (start * STEPS if not m.group(3) else
                                  self.place(m.group(3)) * STEPS + STEPS
                                  - self.steps[m.group(4)])
            if not m.group(3):
                self.whole["bluff"] = start
        elif (m := _STAIR_FIRST.match(clause)):
            self.last = "bluff" if m.group(1).startswith("bluff") else m.group(1)
            self._range(m.group(2), m.group(3), m.group(4))
        elif (m := _STAIR_MORE.match(clause)) and self.last:
            self._range(m.group(1), m.group(2), m.group(3))
        elif not (clause.startswith("otherwise ") or clause.startswith("never stop")
                  or clause == "throw again and keep what your keep rule says"):
            raise RuleTextError(f"cannot read {clause!r}")

    def _range(self, frequency: str, first: str, last: str | None) -> None:
        lo = self.place(first)
        hi = (self.place(last) if last else lo) + 1
        self.ranges.setdefault(self.last, {})[self.steps[frequency]] = (lo, hi)

    def cut(self, verb: str, default: Cut) -> Cut:
        """The verb's cut: a staircase when ranges were named (else the integer cut)."""
        if verb not in self.ranges:
            return self.cuts.get(verb, default)
        ranges = self.ranges[verb]
        if verb == "bluff":                          # b1 from the full bluffs, then upward
            b = [self.whole.get(verb, self.band_end())]
            for level in (3, 2, 1):
                b.append(ranges[level][0] if level in ranges else b[-1])
            found: tuple = tuple(b)
        else:                                        # c4 from the full range, then down
            c = [self.whole.get(verb, 0)]
            for level in (3, 2, 1):
                c.append(ranges[level][1] if level in ranges else c[-1])
            found = tuple(reversed(c))
        if not valid_cut(self.model, found):
            raise RuleTextError(f"the ranges of {self.text!r} are out of order")
        return cut_of(found)


    def band_end(self) -> int:
        """Where the bluffs stop: the band's named end, else the end of the most frequent
        bluff range (the weakest hand when they reach it)."""
        if self.end is not None:
            return self.end
        ranges = self.ranges.get("bluff")
        return ranges[max(ranges)][1] if ranges else self.model.num_hands


def _parse_action(model: HandModel, kind: str, text: str) -> tuple:
    top = STEPS * model.num_hands
    if kind == "keep":
        if text == "throw all three dice":
            return ()
        words = {v: k for k, v in KEEP_WORDS.items()}
        body = text.removeprefix("keep ").split("; ")[0]
        try:
            return tuple(words[w] for w in body.split(", else "))
        except KeyError:
            raise RuleTextError(f"unknown keep preference in {text!r}") from None
    fixed = {"always stop": (top,), "always bet": (top, top), "always pass": (0, top),
             "always fold": (0, 0)}
    if text in fixed:
        return fixed[text]
    text = re.sub(r" \(facing a raise to \d+ you cannot raise: call\)$", "", text)
    flags = [f for f, words in STOP_FLAGS.items() if kind == "throw" and text.endswith(words)]
    text = text.removesuffix(STOP_FLAGS[flags[0]]) if flags else text
    reader = _CutReader(model, text)
    for clause in text.split(", "):
        reader.read(clause)
    if kind == "throw":
        return (reader.cut("stop", 0),) + tuple(flags)
    if kind == "open":
        end = reader.band_end()
        band = (end,) if end < model.num_hands else ()
        return (reader.cut("bet", 0), reader.cut("bluff", top)) + band
    r = reader.cut("raise", 0)
    return (r, reader.cut("call", r))


def parse_rules(model: HandModel, lines: Iterable[str]) -> list[Rule]:
    """The rules of every numbered line ("3. Captain, ...") among `lines`."""
    return [parse_rule(model, line) for line in lines if re.match(r"^\s*\d+\.\s", line)]
