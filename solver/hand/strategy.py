"""Behaviour strategies over the compact model, and the strategy file (versioned JSON).

A strategy gives, for every decision point a player can meet, the probability of each
action per private hand. Every solver produces one; best responses, tables, charts, play
and the OpenSpiel policy all read it.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from fractions import Fraction
from typing import Any, Mapping

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT, ROLE_NAMES
from games.bidou.params import ParameterError
from games.bidou.rules import throw_action_name
from games.catalog import params_from_rules
from solver import schemas
from solver.common.files import read_input_file, strict_json
from solver.hand.model import HandModel, build_model

SCHEMA = "bidou-strategy"
# Version 2 adds the optional "exact" section (exact rational probabilities, written by
# `exact_to_json`); version 1 files, which have none, are read as before.
SCHEMA_VERSION = 2
READABLE_VERSIONS = (1, 2)
# How far a decision's probabilities may sum from 1 (and stray outside [0, 1]): the bound
# `certificate.exact_probabilities` enforces, so a strategy the loader accepts is one the
# certificate can turn into exact rationals; a looser file fails here, in one message.
TOLERANCE = 1e-9
# The largest strategy file this program writes (6 faces, keep, max level 20) is about 2 MB;
# anything far larger is not a strategy file, and is refused before it is read.
MAX_FILE_BYTES = 64 * 2**20
# Exact probabilities are read only as "p/q" (or "p") of plain digits, each part at most
# MAX_EXACT_DIGITS long, and their common denominator (the one the certificate computes
# over) at most MAX_COMMON_DENOMINATOR_BITS: the exact equilibria this program writes need
# 153 bits (default), 473 (french), 1285 (keep). Python's Fraction() would otherwise take
# "1e-999999999" (a billion-digit power of ten) or thousands of 200-digit denominators (an
# LCM of megabytes) and grind without end before any check could run.
MAX_COMMON_DENOMINATOR_BITS = 4096
MAX_EXACT_DIGITS = math.ceil(MAX_COMMON_DENOMINATOR_BITS * math.log10(2)) + 1
_EXACT_NUMBER = re.compile(r"([0-9]{1,%d})(?:/([0-9]{1,%d}))?" % (MAX_EXACT_DIGITS,
                                                                 MAX_EXACT_DIGITS), re.ASCII)


class StrategyFileError(ValueError):
    """A strategy file is unreadable, corrupt, hand-edited into nonsense, or for other rules."""


@dataclasses.dataclass
class Strategy:
    """Both players' behaviour strategies.

    throw[CAPTAIN]: (1, T-1, A, n), P(action | throw t+1, hand); the leading axis is the
    public context (none for the captain). throw[OPPONENT]: (T, T-1, A, n), the leading
    axis being the captain's throw count minus one. betting[(tc, to, history)]: (k, n),
    P(action | hand) for the node's actor, actions as in the model's betting tree.
    """

    throw: tuple[np.ndarray, np.ndarray]
    betting: dict[tuple[int, int, str], np.ndarray]

    def copy(self) -> "Strategy":
        return Strategy((self.throw[0].copy(), self.throw[1].copy()),
                        {k: v.copy() for k, v in self.betting.items()})


def uniform_strategy(model: HandModel) -> Strategy:
    """Every legal action equally likely: the default where nothing else is known."""
    legal = model.throw_legal.astype(float)
    T = model.throws
    base = np.broadcast_to(legal / legal.sum(axis=0), (T - 1,) + legal.shape)
    throw = (np.array(base)[None].copy(), np.repeat(np.array(base)[None], T, axis=0))
    betting = {}
    for tc, to in model.public_states:
        for node in model.tree((tc, to)).nodes:
            k = len(node.actions)
            betting[(tc, to, node.history)] = np.full((k, model.num_hands), 1.0 / k)
    return Strategy(throw, betting)


def throw_shapes(model: HandModel) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The shapes of `Strategy.throw` for `model`: the captain's, the opponent's."""
    T, (A, n) = model.throws, model.throw_legal.shape
    return (1, T - 1, A, n), (T, T - 1, A, n)


def check_strategy(model: HandModel, strategy: Strategy, tol: float = TOLERANCE,
                   labels: Mapping[Any, str] | None = None) -> None:
    """Raise StrategyFileError unless shapes match the model and probabilities are proper.

    `labels` names each decision in the messages (CAPTAIN, OPPONENT and betting keys to
    JSON paths, for a strategy file); the default names them by role and node."""
    names = dict(labels or {})
    n = model.num_hands
    expected = throw_shapes(model)
    hands = [rules.format_hand(h) for h in model.hands]
    for role in (CAPTAIN, OPPONENT):
        array = strategy.throw[role]
        what = names.get(role, f"throw strategy of the {ROLE_NAMES[role]}")
        if array.shape != expected[role]:
            raise StrategyFileError(f"{what} has shape {array.shape}, expected "
                                    f"{expected[role]} for these rules")
        _check_probabilities(array, model.throw_legal, tol, what, hands)
    keys = {(tc, to, node.history) for tc, to in model.public_states
            for node in model.tree((tc, to)).nodes}
    if set(strategy.betting) != keys:
        raise StrategyFileError("betting decision points do not match these rules")
    for (tc, to, history), array in strategy.betting.items():
        node = model.tree((tc, to)).node(history)
        what = names.get((tc, to, history), f"betting node {tc},{to},{history!r}")
        if array.shape != (len(node.actions), n):
            raise StrategyFileError(f"{what} has a wrong shape")
        _check_probabilities(array, np.ones(array.shape, bool), tol, what, hands)


def _check_probabilities(array: np.ndarray, legal: np.ndarray, tol: float, what: str,
                         hands: list[str]) -> None:
    """Finite, in [0, 1], nothing on an illegal action, each hand's decision summing to 1
    (the array's last two axes are actions x hands); the message names the hand."""
    def hand_at(mask: np.ndarray) -> str:
        return hands[int(np.argwhere(mask)[0][-1])]

    if not np.all(np.isfinite(array)):
        raise StrategyFileError(f"{what}: probabilities must be finite numbers")
    outside = (array < -tol) | (array > 1 + tol)
    if np.any(outside):
        raise StrategyFileError(f"{what}: probabilities must lie in [0, 1] (hand "
                                f"{hand_at(outside)})")
    illegal = np.abs(np.where(legal, 0.0, array)) > tol
    if np.any(illegal):
        raise StrategyFileError(f"{what}: an illegal action has positive probability (hand "
                                f"{hand_at(illegal)}: it cannot keep those dice)")
    off = np.abs(np.where(legal, array, 0.0).sum(axis=-2) - 1)   # legal actions, as certified
    worst = float(np.max(off)) if off.size else 0.0
    if worst > tol:
        raise StrategyFileError(f"{what}: probabilities do not sum to 1 over the actions "
                                f"for hand {hand_at(off == worst)} (off by {worst:.1e}; at "
                                f"most {tol:g} is allowed)")


# --- strategy file --------------------------------------------------------------------------

def strategy_to_json(model: HandModel, strategy: Strategy,
                     result: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A self-describing document: the rules, the result, then every decision by name."""
    hands = [rules.format_hand(h) for h in model.hands]
    names = [throw_action_name(a) for a in model.throw_actions]
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "rules": model.game_rules,
        "result": dict(result or {}),
        "hands": hands,
        "throw_actions": names,
        "throw": {
            "captain": _round(strategy.throw[CAPTAIN][0]),
            "opponent": _round(strategy.throw[OPPONENT]),
        },
        "betting": [
            {"captain_throws": tc, "opponent_throws": to, "history": history,
             "actor": ROLE_NAMES[model.tree((tc, to)).node(history).actor],
             "actions": list(model.tree((tc, to)).node(history).actions),
             "probabilities": _round(array)}
            for (tc, to, history), array in sorted(strategy.betting.items())
        ],
    }


def _round(array: np.ndarray) -> list:
    return np.round(array, 15).tolist()


def strategy_from_json(document: Any, source: str | os.PathLike | None = None
                       ) -> tuple[HandModel, Strategy, dict[str, Any]]:
    """Parse and validate a strategy document; any defect raises StrategyFileError, one
    line naming `source` (the file, if any) and the JSON path of the entry at fault.

    The document is checked against solver/schemas/strategy.schema.json first (every
    entry's type and range), then against its rules (the hands, the shapes, one entry per
    decision point, sums to 1)."""
    where = f"{os.fspath(source)}: " if source is not None else ""
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        raise StrategyFileError(f"{where}not a {SCHEMA} file")
    version = document.get("schema_version")
    if not _is_int(version) or version not in READABLE_VERSIONS:
        raise StrategyFileError(
            f"{where}schema_version {document.get('schema_version')!r} is not supported "
            f"(this program reads versions {', '.join(map(str, READABLE_VERSIONS))})")
    try:                            # the rules first: every array is laid out for them
        if isinstance(document.get("rules"), dict):
            schemas.validate(document["rules"], "common", "/$defs/hand_rules", at="/rules")
        schemas.validate(document, "strategy")
    except schemas.SchemaViolation as error:
        raise StrategyFileError(f"{where}{error}") from None
    try:
        model = _model_of(document["rules"])
        strategy, labels = _strategy_of(document, model)
        check_strategy(model, strategy, labels=labels)
    except StrategyFileError as error:
        raise StrategyFileError(f"{where}{error}") from None
    except (KeyError, TypeError, ValueError, IndexError):
        raise StrategyFileError(f"{where}strategy file is incomplete or malformed") from None
    return model, strategy, dict(document.get("result") or {})


def _model_of(rules_document: Mapping[str, Any]) -> HandModel:
    """The model of a file's rules, of whichever game they name (an aces_beat_bidou that
    does nothing made true)."""
    try:
        params = params_from_rules(rules_document)
    except ParameterError as error:
        raise StrategyFileError(f"/rules: {error}") from None
    return build_model(params.canonical())


def _strategy_of(document: Mapping[str, Any], model: HandModel
                 ) -> tuple[Strategy, dict[Any, str]]:
    """The strategy a (schema-valid) document holds for `model`'s rules, and the JSON path
    of each decision (for check_strategy's messages)."""
    T, (A, n) = model.throws, model.throw_legal.shape
    _same_list(document["hands"], [rules.format_hand(h) for h in model.hands], "/hands",
               "hands")
    _same_list(document["throw_actions"], [throw_action_name(a) for a in model.throw_actions],
               "/throw_actions", "throw actions")
    grid = [(A, "throw action"), (n, "hand, in the order of \"hands\"")]
    captain = _array(document["throw"]["captain"], [(T - 1, "throw but the last")] + grid,
                     "/throw/captain")[None]
    opponent = _array(document["throw"]["opponent"],
                      [(T, "throw count of the captain"), (T - 1, "throw but the last")] + grid,
                      "/throw/opponent")
    labels: dict[Any, str] = {CAPTAIN: "/throw/captain", OPPONENT: "/throw/opponent"}
    betting: dict[tuple[int, int, str], np.ndarray] = {}
    for i, entry in enumerate(document["betting"]):
        key = (entry["captain_throws"], entry["opponent_throws"], entry["history"])
        node = _betting_node(model, key, f"/betting/{i}")
        if key in betting:
            raise StrategyFileError(f"/betting/{i}: the decision point {_named(key)} appears "
                                    f"twice (first at {labels[key].rsplit('/', 1)[0]})")
        if entry["actions"] != list(node.actions):
            raise StrategyFileError(f"/betting/{i}/actions: must be {list(node.actions)} at "
                                    f"{_named(key)}, got {entry['actions']}")
        if entry.get("actor", ROLE_NAMES[node.actor]) != ROLE_NAMES[node.actor]:
            raise StrategyFileError(f"/betting/{i}/actor: the {ROLE_NAMES[node.actor]} acts at "
                                    f"{_named(key)}, not the {entry['actor']}")
        labels[key] = f"/betting/{i}/probabilities"
        betting[key] = _array(entry["probabilities"], [(len(node.actions), "action")] +
                              grid[1:], labels[key])
    missing = sorted({(tc, to, node.history) for tc, to in model.public_states
                      for node in model.tree((tc, to)).nodes} - set(betting))
    if missing:
        raise StrategyFileError(f"/betting: no entry for the decision point "
                                f"{_named(missing[0])} ({len(missing)} missing in all)")
    return Strategy((captain, opponent), betting), labels


def _same_list(found: list, expected: list, pointer: str, what: str) -> None:
    """StrategyFileError naming the first entry where `found` is not the rules' list."""
    if found == expected:
        return
    if len(found) != len(expected):
        raise StrategyFileError(f"{pointer}: {len(found)} {what}, expected the rules' "
                                f"{len(expected)}: {_listed(expected)}")
    i = next(i for i, (a, b) in enumerate(zip(found, expected)) if a != b)
    raise StrategyFileError(f"{pointer}/{i}: must be {expected[i]!r} (the rules' {what} in "
                            f"order: {_listed(expected)}), got {found[i]!r:.40}")


def _listed(items: list) -> str:
    shown = ", ".join(map(str, items[:6]))
    return shown + (f", ... ({len(items)} in all)" if len(items) > 6 else "")


def _array(value: Any, dims: list[tuple[int, str]], pointer: str) -> np.ndarray:
    """Nested lists of numbers (schema-valid) as an array of the sizes `dims` names, or
    StrategyFileError naming the first list of another length and what it must hold."""
    def walk(item: Any, depth: int, where: str) -> None:
        size, unit = dims[depth]
        if len(item) != size:
            raise StrategyFileError(f"{where}: {len(item)} entries, expected {size} (one per "
                                    f"{unit})")
        if depth + 1 < len(dims):
            for j, sub in enumerate(item):
                walk(sub, depth + 1, f"{where}/{j}")

    walk(value, 0, pointer)
    return np.asarray(value, dtype=float).reshape([size for size, _ in dims])


def _betting_node(model: HandModel, key: tuple[int, int, str], pointer: str) -> Any:
    """The rules' decision point a betting entry names, or StrategyFileError saying why
    there is none."""
    tc, to, history = key
    if (tc, to) not in model.public_states:
        raise StrategyFileError(f"{pointer}: no public state captain_throws {tc}, "
                                f"opponent_throws {to} with at most {model.throws} throws")
    tree = model.tree((tc, to))
    try:
        return tree.node(history)
    except KeyError:
        histories = [repr(node.history) for node in tree.nodes]
        raise StrategyFileError(f"{pointer}/history: {history!r} is no decision point at "
                                f"{_betting_limit(model)} (they are "
                                f"{_listed(histories)})") from None


def _betting_limit(model: HandModel) -> str:
    """"max_level 4" or "max_stake 9": the rule that bounds the betting tree."""
    limit = next(key for key in ("max_level", "max_stake") if key in model.game_rules)
    return f"{limit} {model.game_rules[limit]}"


def _named(key: tuple[int, int, str]) -> str:
    return f"captain_throws {key[0]}, opponent_throws {key[1]}, history {key[2]!r}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def load_strategy_file(path: str | os.PathLike) -> tuple[HandModel, Strategy, dict[str, Any]]:
    """Read a strategy file; StrategyFileError (one line) for anything wrong."""
    return strategy_from_json(read_strategy_document(path), path)


def read_strategy_document(path: str | os.PathLike) -> Any:
    """The JSON document of a strategy file, unvalidated; StrategyFileError (one line) if
    it cannot be read or is not JSON.

    Only a regular file of sane size is read: a FIFO would block forever and /dev/zero
    would fill memory. A key repeated in an object is refused (JSON leaves it undefined;
    Python would keep the last silently).
    """
    if not os.fspath(path):
        raise StrategyFileError("cannot read '': the path is empty")
    try:
        data = read_input_file(path, MAX_FILE_BYTES, "a strategy file")
    except OSError as error:
        raise StrategyFileError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        return strict_json(data)
    except RecursionError:
        raise StrategyFileError(f"{path} is not a strategy file: JSON nested too deeply") \
            from None
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError) as error:
        raise StrategyFileError(f"{path} is not valid JSON: {error}") from None


# --- the exact section ----------------------------------------------------------------------
# A strategy proved to be an exact equilibrium (`bidou solve --exact`) carries its exact
# rational probabilities beside the floats, laid out like them, as "p/q" strings: reading
# them back, `certificate.prove_fractions` proves the exact value again. Keys of the exact
# probabilities are those of `certificate.decisions`: ("throw", role, context, throw, hand)
# and ("bet", (tc, to, history), hand), each a list over the decision's actions.

ExactProbabilities = dict[tuple, list[Fraction]]


def exact_to_json(document: Mapping[str, Any], model: HandModel, strategy: Strategy,
                  exact: Mapping[tuple, Any]) -> dict[str, Any]:
    """The strategy document with an "exact" section holding `exact`'s probabilities."""
    n = model.num_hands

    def grid(role: int, context: int, throw: int) -> list[list[str]]:
        rows = [exact[("throw", role, context, throw, h)] for h in range(n)]
        return [[str(Fraction(rows[h][a])) for h in range(n)]
                for a in range(len(model.throw_actions))]

    T = model.throws
    contexts = strategy.throw[OPPONENT].shape[0]
    section = {
        "about": "exact rational probabilities of the strategy above, laid out like it",
        "throw": {
            "captain": [grid(CAPTAIN, 0, t) for t in range(T - 1)],
            "opponent": [[grid(OPPONENT, c, t) for t in range(T - 1)] for c in range(contexts)],
        },
        "betting": [
            {"captain_throws": tc, "opponent_throws": to, "history": history,
             "probabilities": [[str(Fraction(exact[("bet", (tc, to, history), h)][i]))
                                for h in range(n)] for i in range(array.shape[0])]}
            for (tc, to, history), array in sorted(strategy.betting.items())
        ],
    }
    return {**document, "schema_version": SCHEMA_VERSION, "exact": section}


def exact_from_json(document: Mapping[str, Any], model: HandModel, strategy: Strategy,
                    tol: float = TOLERANCE) -> ExactProbabilities | None:
    """The exact probabilities of a strategy document, or None if it has no "exact"
    section. StrategyFileError if the section is malformed, is not a distribution at some
    decision, or disagrees with the floats beside it."""
    section = document.get("exact") if isinstance(document, Mapping) else None
    if section is None:
        return None
    try:
        schemas.validate(section, "strategy", "/$defs/exact", at="/exact")
    except schemas.SchemaViolation as error:
        raise StrategyFileError(str(error)) from None
    T, n = model.throws, model.num_hands
    legal = model.throw_legal
    out: ExactProbabilities = {}
    common = _CommonDenominator()
    try:
        grids = [((CAPTAIN, 0, t), section["throw"]["captain"][t]) for t in range(T - 1)]
        opponent = section["throw"]["opponent"]
        if len(section["throw"]["captain"]) != T - 1 or len(opponent) != T:
            raise StrategyFileError("the exact throw probabilities have the wrong shape")
        grids += [((OPPONENT, c, t), opponent[c][t]) for c in range(T) for t in range(T - 1)]
        hands = [rules.format_hand(h) for h in model.hands]
        for (role, c, t), rows in grids:
            floats = strategy.throw[role][c, t]
            where = (f"/exact/throw/captain/{t}" if role == CAPTAIN
                     else f"/exact/throw/opponent/{c}/{t}")
            for h in range(n):
                out[("throw", role, c, t, h)] = _exact_row(
                    [rows[a][h] for a in range(len(rows))], floats[:, h], legal[:, h], tol,
                    f"{where} (hand {hands[h]})", common)
            if len(rows) != floats.shape[0]:
                raise StrategyFileError("the exact throw probabilities have the wrong shape")
        seen = set()
        for i, entry in enumerate(section["betting"]):
            key = (int(entry["captain_throws"]), int(entry["opponent_throws"]),
                   str(entry["history"]))
            if key not in strategy.betting or key in seen:
                raise StrategyFileError(f"/exact/betting/{i}: the decision point "
                                        f"{_named(key)} is unknown or repeated")
            seen.add(key)
            rows, floats = entry["probabilities"], strategy.betting[key]
            if len(rows) != floats.shape[0]:
                raise StrategyFileError(f"/exact/betting/{i}/probabilities: {len(rows)} "
                                        f"entries, expected {floats.shape[0]} (one per action)")
            for h in range(n):
                out[("bet", key, h)] = _exact_row(
                    [row[h] for row in rows], floats[:, h], np.ones(floats.shape[0], bool),
                    tol, f"/exact/betting/{i}/probabilities (hand {hands[h]})", common)
        if seen != set(strategy.betting):
            raise StrategyFileError("the exact section misses betting decisions")
    except StrategyFileError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError) as error:
        raise StrategyFileError(f"the exact section of the strategy file is malformed "
                                f"({type(error).__name__}: {str(error)[:80]})") from None
    return out


class _CommonDenominator:
    """The least common multiple of the denominators read so far, refused (naming the field)
    as soon as it passes MAX_COMMON_DENOMINATOR_BITS: the certificate computes over it."""

    def __init__(self) -> None:
        self.value = 1

    def add(self, denominator: int, where: str) -> None:
        if self.value % denominator:
            self.value = math.lcm(self.value, denominator)
            if self.value.bit_length() > MAX_COMMON_DENOMINATOR_BITS:
                raise StrategyFileError(
                    f"{where}: the exact probabilities' common denominator exceeds "
                    f"{MAX_COMMON_DENOMINATOR_BITS} bits (2^{MAX_COMMON_DENOMINATOR_BITS})")


def exact_number(text: Any, where: str) -> Fraction:
    """A "p/q" (or "p") string of plain digits as a Fraction, its size checked before any
    arithmetic: no sign, exponent, decimal point or whitespace, each part at most
    MAX_EXACT_DIGITS digits."""
    match = _EXACT_NUMBER.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        shown = repr(text)
        shown = shown if len(shown) <= 40 else f"{shown[:37]}... ({len(shown)} characters)"
        raise StrategyFileError(f"{where}: {shown} is not an exact probability \"p/q\" "
                                f"(digits only, at most {MAX_EXACT_DIGITS} each)")
    numerator, denominator = match.groups()
    if denominator is not None and int(denominator) == 0:
        raise StrategyFileError(f"{where}: {text!r:.40} divides by zero")
    return Fraction(int(numerator), int(denominator or 1))


def _exact_row(texts: list, floats: np.ndarray, legal: np.ndarray, tol: float, where: str,
               common: _CommonDenominator) -> list[Fraction]:
    if len(texts) != len(floats):
        raise StrategyFileError(f"{where}: exact probabilities must be \"p/q\" strings, one "
                                f"per action")
    row = [exact_number(t, where) for t in texts]
    for p in row:
        common.add(p.denominator, where)
    if sum(row) != 1 or any(p and not ok for p, ok in zip(row, legal)):
        raise StrategyFileError(f"{where}: exact probabilities are not a distribution over "
                                f"legal actions")
    if any(abs(float(p) - f) > tol for p, f in zip(row, floats)):
        raise StrategyFileError(f"{where}: the exact probabilities disagree with the "
                                f"strategy's floats")
    return row


def load_exact(path: str | os.PathLike, model: HandModel, strategy: Strategy
               ) -> ExactProbabilities | None:
    """The exact section of a strategy file already read by `load_strategy_file`; its
    errors name the file, as the loader's do."""
    try:
        return exact_from_json(read_strategy_document(path), model, strategy)
    except StrategyFileError as error:
        name = os.fspath(path)
        if str(error).startswith(name):
            raise
        raise StrategyFileError(f"{name}: {error}") from None
