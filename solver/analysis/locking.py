"""Node locking: what a locked player plays, as exact probabilities.

A lock fixes one player's behaviour (`--lock captain|opponent` of `bidou exploit`): from a
strategy file, from rules in words (the cheat sheet's rule-book format, `rulebook.py`), or by
a named profile derived from the refined equilibrium (docs/exploit.md defines each):

* ``never-bluffs``: the equilibrium's play, except that he bets or raises only with a hand
  that is ahead of the other player's hands there (beats at least half of them, ties
  counting half, the other's hands weighed as the equilibrium brings them to that
  decision); with a weaker hand he passes where the equilibrium bets and calls where it
  raises.
* ``always-calls``: the equilibrium's play, except that facing a bet or a raise he never
  folds: his folding turns into calling.
* ``folk-stop``: the folk stopping rule, "stop with a 6 or better" (with fewer faces, the
  highest face or better: every hand at least as good as F-1-1), otherwise throw all three
  dice again; his betting is the equilibrium's.
* ``cheatsheet``: the published cheat sheet's rules for these rules (outputs/*/cheatsheet.md).

Profiles compose in the order given (``folk-stop,never-bluffs``). The locked behaviour is
kept as exact rational probabilities (`Rows`, keyed like `solver.common.types.Exact`): an
equilibrium's exact fractions, a rule book's quarters, a file's exact section, or else each
float rounded to a binary fraction as the certificate reads it. Everything later (the
exact best response, the exact value of the pair) reads these rows, so every number
printed is about exactly the strategy locked.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Mapping, Sequence

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from solver.analysis import rulebook
from solver.hand.exact.certificate import Q, decisions, exact_probabilities
from solver.hand.model import HandModel
from solver.hand.reach import end_mass, own_step
from solver.hand.strategy import Strategy

# Exact probabilities of a strategy by decision: ("throw", role, context, throw, hand) or
# ("bet", (tc, to, history), hand), a row of Fractions over the decision's actions.
Rows = dict[tuple, list[Fraction]]

PROFILES = ("never-bluffs", "always-calls", "folk-stop", "cheatsheet")
# The profiles that change the equilibrium's play (the cheat sheet replaces it whole).
TRANSFORMS = ("never-bluffs", "always-calls", "folk-stop")


class LockError(ValueError):
    """A lock that cannot be built (unknown profile, rules that do not parse or do not
    cover the locked player's decisions): one line for the user."""


def owner(model: HandModel, where: tuple) -> int:
    """The player who decides at a decision key."""
    if where[0] == "throw":
        return int(where[1])
    tc, to, history = where[1]
    return int(model.tree((tc, to)).node(history).actor)


def exact_rows(model: HandModel, strategy: Strategy,
               known: Mapping[tuple, Sequence[Fraction]] | None = None) -> Rows:
    """Every decision's probabilities as exact fractions: the `known` row when it is a
    distribution within 1e-9 of the float one, else the floats themselves when they sum to
    exactly 1 (a rule book's quarters), else the certificate's binary rounding."""
    out: Rows = {}
    for where, probs, legal in decisions(model, strategy):
        row = None if known is None else known.get(where)
        if row is not None:
            exact = [Fraction(x) for x in row]
            if sum(exact) == 1 and min(exact) >= 0 and len(exact) == len(probs) and \
                    max(abs(float(x) - float(p)) for x, p in zip(exact, probs)) <= 1e-9:
                out[where] = exact
                continue
        plain = [Fraction(float(p)) if ok else Fraction(0) for p, ok in zip(probs, legal)]
        if sum(plain) == 1 and min(plain) >= 0:
            out[where] = plain
        else:
            out[where] = [Fraction(k, Q) for k in exact_probabilities(probs, legal)]
    return out


def to_strategy(model: HandModel, base: Strategy, rows: Mapping[tuple, Sequence[Fraction]]
                ) -> Strategy:
    """`base` with every decision `rows` gives replaced by its float probabilities."""
    out = base.copy()
    for where, row in rows.items():
        column = np.array([float(x) for x in row])
        if where[0] == "throw":
            _, role, c, t, h = where
            out.throw[role][c, t, :, h] = column
        else:
            out.betting[where[1]][:, where[2]] = column
    return out


def player_rows(model: HandModel, rows: Mapping[tuple, Sequence[Fraction]], player: int
                ) -> Rows:
    """The decisions of one player."""
    return {w: list(r) for w, r in rows.items() if owner(model, w) == player}


# --- profiles --------------------------------------------------------------------------------

def profile_names(text: str) -> list[str]:
    """"folk-stop,never-bluffs" as a list of known profiles (LockError naming an unknown
    one, or the cheat sheet combined with another)."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in PROFILES]
    if not names or unknown:
        raise LockError(f"unknown profile {(unknown or [text])[0]!r}: choose among "
                        f"{', '.join(PROFILES)} (several joined by commas, except cheatsheet)")
    if "cheatsheet" in names and len(names) > 1:
        raise LockError("the cheatsheet profile is a whole strategy: it combines with no "
                        "other profile")
    return names


def apply_profile(model: HandModel, equilibrium: Strategy, rows: Rows, player: int,
                  name: str) -> Rows:
    """`rows` with the player's decisions changed as profile `name` says."""
    if name == "never-bluffs":
        return never_bluffs(model, equilibrium, rows, player)
    if name == "always-calls":
        return always_calls(model, rows, player)
    if name == "folk-stop":
        return folk_stop(model, rows, player)
    raise LockError(f"profile {name!r} does not change a strategy")


def _moved(row: Sequence[Fraction], source: int, target: int) -> list[Fraction]:
    out = list(row)
    out[target] += out[source]
    out[source] = Fraction(0)
    return out


def ahead_share(model: HandModel, reach: np.ndarray) -> np.ndarray:
    """(n,) the share of the other player's hands (weighed by `reach`) that each hand beats,
    ties counting half."""
    wins = (model.compare > 0) + 0.5 * (model.compare == 0)
    total = float(reach.sum())
    return wins @ reach / total if total > 0 else np.full(model.num_hands, np.nan)


def other_reach(model: HandModel, strategy: Strategy, public: tuple[int, int], player: int
                ) -> list[np.ndarray]:
    """At each node of the public state's tree, the other player's reach (his chance and
    his play under `strategy`), by his hand."""
    tc, to = public
    other = OPPONENT if player == CAPTAIN else CAPTAIN
    if other == CAPTAIN:
        start = end_mass(model, strategy.throw[CAPTAIN][0])[tc - 1]
    else:
        start = end_mass(model, strategy.throw[OPPONENT][tc - 1])[to - 1]
    at_node, _ = model.tree(public).push(start, own_step(strategy, public, other))
    return [start if float(r.sum()) <= 0 else r for r in at_node]


def never_bluffs(model: HandModel, equilibrium: Strategy, rows: Rows, player: int) -> Rows:
    """Bets and raises only with a hand ahead of the other's hands at that decision (see
    the module's docstring); a bluff's bet becomes a pass, its raise a call."""
    out = dict(rows)
    for public in model.public_states:
        tree = model.tree(public)
        reach = other_reach(model, equilibrium, public, player)
        for node in tree.nodes:
            if node.actor != player:
                continue
            actions = node.actions
            aggressive = "bet" if "bet" in actions else "raise" if "raise" in actions else None
            if aggressive is None:
                continue
            passive = actions.index("pass" if aggressive == "bet" else "call")
            behind = ahead_share(model, reach[node.index]) < 0.5
            for h in np.flatnonzero(behind):
                where = ("bet", (*public, node.history), int(h))
                out[where] = _moved(out[where], actions.index(aggressive), passive)
    return out


def always_calls(model: HandModel, rows: Rows, player: int) -> Rows:
    """Never folds facing a bet or a raise: the fold's probability goes to calling."""
    out = dict(rows)
    for public in model.public_states:
        for node in model.tree(public).nodes:
            if node.actor == player and "fold" in node.actions:
                for h in range(model.num_hands):
                    where = ("bet", (*public, node.history), h)
                    out[where] = _moved(out[where], node.actions.index("fold"),
                                        node.actions.index("call"))
    return out


def folk_hand(model: HandModel) -> rules.Hand:
    """The folk rule's threshold, "a 6 or better": 6-1-1 with six faces, the highest face
    and two aces with fewer. The one definition of the rule: `folk-stop` locks it and
    docs/results.md's section 5 (solver/app/results.py) measures it."""
    return (model.faces, 1, 1)


def folk_stops(model: HandModel) -> np.ndarray:
    """(n,) whether each hand stops under the folk rule (at least as good as `folk_hand`)."""
    p = model.params
    return np.array([rules.compare(h, folk_hand(model), p.ranking, p.aces_beat_bidou) >= 0
                     for h in model.hands])


def folk_throwing(model: HandModel) -> np.ndarray:
    """(T-1, A, n) the folk rule's pure throwing after each throw but the last: stop with
    the hands `folk_stops` names, else throw all three dice again (`stop_rule`)."""
    from solver.analysis.no_betting import stop_rule  # scipy's LP, loaded when used

    return stop_rule(model, folk_stops(model))


def folk_stop(model: HandModel, rows: Rows, player: int) -> Rows:
    """The player's throwing replaced by the folk rule's (`folk_throwing`), exactly."""
    out = dict(rows)
    rule = folk_throwing(model)
    for where in rows:
        if where[0] == "throw" and where[1] == player:
            _, _, _, t, h = where
            out[where] = [Fraction(int(x)) for x in rule[t, :, h]]
    return out


# --- rules in words --------------------------------------------------------------------------

def rule_book_rows(model: HandModel, lines: Iterable[str], player: int) -> Rows:
    """The locked player's play under the numbered rules among `lines` (a cheat sheet's
    Markdown, or the rules alone): every one of his decisions must be covered by exactly
    one rule; rules about the other player only are allowed and ignored."""
    try:
        book = rulebook.parse_rules(model, lines)
    except rulebook.RuleTextError as error:
        raise LockError(f"the rules do not parse: {error}") from None
    if not book:
        raise LockError("no rules found: a rule is a numbered line such as \"1. Either "
                        "player, after throw 1 or 2: stop with 6-6-1 or better, otherwise "
                        "throw all three dice again.\"")
    mine = [atom for atom in rulebook.atoms(model) if atom.player == player]
    try:
        owners = rulebook.assign(book, mine)
    except ValueError as error:
        raise LockError(f"the rules do not cover the locked player's decisions once each: "
                        f"{error}") from None
    pos = rulebook.positions(model)
    keeps = rulebook.keep_plan(model, book, mine, owners)
    from solver.hand.strategy import uniform_strategy

    strategy = uniform_strategy(model)
    for atom, i in zip(mine, owners):
        if atom.kind != "keep":
            rulebook.set_atom(model, strategy, atom, rulebook.action_probs(
                model, book[i], atom, pos, keeps.get((atom.player, atom.key))))
    return player_rows(model, exact_rows(model, strategy), player)
