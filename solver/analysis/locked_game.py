"""Partial locking: lock a player at some situations only and solve the rest as a game.

`situations` reads which of the locked player's decisions are locked (`bidou exploit
--at`): "throwing", "betting", or a betting situation such as "C3 O1 after pb" (the
captain threw 3 times, the opponent once, the betting so far was pass then bet; "opening"
for nothing bet yet; any part left out matches every value), several joined by ";", or a
JSON file listing them (strings, or objects with captain_throws, opponent_throws, history).
`solve_locked_game` then solves the game where the locked player plays his locked
behaviour there and as well as he can elsewhere, and the other player as well as he can
everywhere: the sequence-form LP with those decisions pinned (`solver.hand.lp.sequence_form`'s
`fixed_behaviour`), the locked player as its primal.

Each player's exploitability in the locked game is measured by a best response that is
not the LP: the responder's, unrestricted, by the certificate's exact best response; the
locked player's, restricted to his free decisions, by the backward induction here (floats).
"""

from __future__ import annotations

import dataclasses
import json
import re
from fractions import Fraction
from typing import Any, Mapping, Sequence

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.analysis.locking import LockError, Rows
from solver.common.files import read_input_file
from solver.hand.best_response import leaf_matrices
from solver.hand.exact.certificate import exact_best_response
from solver.hand.lp.sequence_form import solve_lp
from solver.hand.model import HandModel
from solver.hand.reach import end_mass, own_step
from solver.hand.strategy import Strategy

_TOKEN = re.compile(r"^(?:C(\d+)|O(\d+))$")


@dataclasses.dataclass(frozen=True)
class Situation:
    """One situation of the locked player: his throwing, or betting decisions filtered
    by the throw counts and the betting so far (None: any)."""

    kind: str                        # "throwing" or "betting"
    captain_throws: int | None = None
    opponent_throws: int | None = None
    history: str | None = None

    def covers(self, model: HandModel, where: tuple) -> bool:
        if where[0] == "throw":
            context = where[2]
            return self.kind == "throwing" and (
                self.captain_throws is None or where[1] == CAPTAIN
                or context + 1 == self.captain_throws)
        tc, to, history = where[1]
        return self.kind == "betting" and (
            self.captain_throws in (None, tc) and self.opponent_throws in (None, to)
            and self.history in (None, history))


def parse_situation(text: str) -> Situation:
    """"throwing", "betting", "C3 O1 after pb", "O2 opening", "throwing C2" (the
    opponent's throwing after the captain's 2 throws)."""
    words = text.split()
    kind, history = "betting", None
    counts: dict[str, int | None] = {"C": None, "O": None}
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("throwing", "betting"):
            kind = word
        elif word == "opening":
            history = ""
        elif word == "after" and i + 1 < len(words) and re.fullmatch(r"[a-z]+", words[i + 1]):
            history = words[i + 1]
            i += 1
        elif (m := _TOKEN.match(word)):
            counts["C" if m.group(1) else "O"] = int(m.group(1) or m.group(2))
        else:
            raise LockError(f"cannot read the situation {text!r} at {word!r}: write e.g. "
                            f"\"C3 O1 after pb\", \"O2 opening\", \"throwing\" or \"betting\"")
        i += 1
    if kind == "throwing" and (counts["O"] is not None or history is not None):
        raise LockError(f"the situation {text!r}: a throwing decision has no opponent's "
                        f"count or betting history (\"throwing C2\": after the captain's 2)")
    return Situation(kind, counts["C"], counts["O"], history)


def situations(spec: str) -> list[Situation]:
    """`--at`: situations joined by ";", or a JSON file (a list of strings or objects)."""
    if spec.endswith(".json"):
        try:
            document = json.loads(read_input_file(spec).decode("utf-8"))
        except OSError as error:
            raise LockError(f"cannot read the situations file {spec}: "
                            f"{error.strerror or error}") from None
        except (UnicodeDecodeError, ValueError) as error:
            raise LockError(f"cannot read the situations file {spec}: {error}") from None
        if not isinstance(document, list) or not document:
            raise LockError(f"{spec}: a situations file is a non-empty JSON list")
        return [_situation_of(item, f"{spec}: item {i}") for i, item in enumerate(document)]
    parts = [part.strip() for part in spec.split(";") if part.strip()]
    if not parts:
        raise LockError("--at names no situation")
    return [parse_situation(part) for part in parts]


def _situation_of(item: Any, where: str) -> Situation:
    if isinstance(item, str):
        return parse_situation(item)
    if isinstance(item, dict) and set(item) <= {"captain_throws", "opponent_throws", "history"} \
            and all(isinstance(item.get(k, 0), int) for k in ("captain_throws",
                                                               "opponent_throws")) \
            and isinstance(item.get("history", ""), str):
        return Situation("betting", item.get("captain_throws"), item.get("opponent_throws"),
                         item.get("history"))
    raise LockError(f"{where}: a situation is a string such as \"C3 O1 after pb\" or an "
                    f"object with captain_throws, opponent_throws and history")


def locked_rows(model: HandModel, rows: Rows, chosen: Sequence[Situation]) -> Rows:
    """The decisions of `rows` (one player's) that some situation covers; LockError if
    none is."""
    out = {w: r for w, r in rows.items() if any(s.covers(model, w) for s in chosen)}
    if not out:
        raise LockError("the situations given match none of the locked player's decisions "
                        "(he does not act there: at C1 O1 the captain opens, the opponent "
                        "answers after p or b)")
    return out


# --- the locked game -------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class LockedGame:
    """The solved locked game (values to the captain, chips per hand)."""

    locked: int
    value: float                      # the LP's value of the locked game
    strategy: Strategy                # both players' strategies in it
    locked_guarantee: Fraction        # what the locked player's strategy guarantees, exactly
    responder_concedes: float         # what the responder's concedes to the locked player
    pinned: int                       # decisions locked (hands counted)
    seconds: float

    @property
    def sign(self) -> int:
        """+1 when the locked player is the captain."""
        return 1 if self.locked == CAPTAIN else -1

    @property
    def locked_exploitability(self) -> float:
        """What a best-responding responder wins beyond the locked game's value."""
        return self.sign * (self.value - float(self.locked_guarantee))

    @property
    def responder_exploitability(self) -> float:
        """What the locked player, replying at his free decisions, wins beyond it."""
        return self.sign * (self.responder_concedes - self.value)


def solve_locked_game(model: HandModel, locked: int, pins: Mapping[tuple, Sequence[Fraction]]
                      ) -> LockedGame:
    """The game with `pins` (decisions of `locked`, exact probabilities) fixed, solved by
    the LP with the locked player as its primal; each side measured by a best response."""
    floats = {w: [float(x) for x in row] for w, row in pins.items()}
    found = solve_lp(model, maximizer=locked, fixed_behaviour=floats)
    strategy = found.strategy.copy()
    for where, row in floats.items():                 # unreached pinned decisions too
        if where[0] == "throw":
            _, role, c, t, h = where
            strategy.throw[role][c, t, :, h] = row
        else:
            strategy.betting[where[1]][:, where[2]] = row
    responder = OPPONENT if locked == CAPTAIN else CAPTAIN
    reply = exact_best_response(model, strategy, responder)      # the responder's payoff
    guarantee = -reply if responder == OPPONENT else reply
    concedes = restricted_best_value(model, strategy, locked, set(floats))
    return LockedGame(locked=locked, value=found.value, strategy=strategy,
                      locked_guarantee=guarantee, responder_concedes=concedes,
                      pinned=len(floats), seconds=found.seconds)


def restricted_best_value(model: HandModel, strategy: Strategy, player: int,
                          pinned: set[tuple]) -> float:
    """The value (to the captain) of `player`'s best response to the other's strategy when
    he must play `strategy` at the `pinned` decisions: backward induction, maximizing at
    his free decisions and following his strategy at the pinned ones."""
    leaves = leaf_matrices(model)
    T, n = model.throws, model.num_hands
    sign = 1.0 if player == CAPTAIN else -1.0
    if player == CAPTAIN:
        stop = np.zeros((T, n))
        for tc, to in model.public_states:
            other = end_mass(model, strategy.throw[OPPONENT][tc - 1])[to - 1]
            stop[tc - 1] += _betting(model, strategy, (tc, to), player, other, leaves, pinned)
        return sign * _throws(model, strategy, player, 0, stop, pinned)
    ends = end_mass(model, strategy.throw[CAPTAIN][0])
    total = 0.0
    for tc in range(1, T + 1):
        stop = np.zeros((T, n))
        for to in range(1, T + 1):
            stop[to - 1] = _betting(model, strategy, (tc, to), player, ends[tc - 1], leaves,
                                    pinned)
        total += _throws(model, strategy, player, tc - 1, stop, pinned)
    return sign * total


def _betting(model: HandModel, strategy: Strategy, public: tuple[int, int], player: int,
             other_start: np.ndarray, leaves: dict, pinned: set[tuple]) -> np.ndarray:
    tree = model.tree(public)
    sign = 1.0 if player == CAPTAIN else -1.0
    other = OPPONENT if player == CAPTAIN else CAPTAIN
    _, at_leaf = tree.push(other_start, own_step(strategy, public, other))
    values = [sign * (leaves[(tree.first, leaf.index)] @ r if player == CAPTAIN
                      else r @ leaves[(tree.first, leaf.index)])
              for leaf, r in zip(tree.leaves, at_leaf)]

    def combine(node, children: list[np.ndarray]) -> np.ndarray:
        child = np.array(children)
        if node.actor != player:
            return child.sum(axis=0)
        key = (*public, node.history)
        fixed = np.array([("bet", key, h) in pinned for h in range(model.num_hands)])
        return np.where(fixed, (strategy.betting[key] * child).sum(axis=0), child.max(axis=0))

    return tree.pull(values, combine)[0]


def _throws(model: HandModel, strategy: Strategy, player: int, context: int,
            stop: np.ndarray, pinned: set[tuple]) -> float:
    T, n = model.throws, model.num_hands
    legal = model.throw_legal
    v = stop[T - 1]
    for t in range(T - 2, -1, -1):
        options = np.einsum("ahk,k->ah", model.transition, v)
        options[0] = stop[t]
        follow = (np.where(legal, options, 0.0) * strategy.throw[player][context, t]).sum(0)
        best = np.where(legal, options, -np.inf).max(axis=0)
        fixed = np.array([("throw", player, context, t, h) in pinned for h in range(n)])
        v = np.where(fixed, follow, best)
    return float(model.prior @ v)
