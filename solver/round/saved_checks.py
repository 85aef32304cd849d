"""What a saved round's numbers and words must be before any of them is printed.

A saved round's checksum only shows the file is the one some program wrote: anyone can
recompute it after editing the file. So the file is read as a hostile one would be written:
every state's numbers are checked as a whole (whole chip counts; the value, its proved
bounds and P(round ends) are probabilities with lower <= value <= upper; the width and
exploitabilities are 0 or more) and every advice as the advice the solver writes (its
shares are probabilities, its counts whole numbers, its words free of control characters,
so that none can move the cursor, retitle the terminal or forge a line of output). A file
that fails is `SavedRoundError` (one line), and the caller solves again.

This module imports no solver (no numpy): a query reads JSON only.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable

# C0 and C1 control characters and DEL: an escape sequence, a carriage return or a newline
# in a file's words would act on the terminal instead of being read.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_NUMBER = re.compile(r"-?[0-9]{1,20}(\.[0-9]{1,40})?([eE][-+]?[0-9]{1,3})?")
LONGEST_WORDS = 10_000           # characters in one string of advice


class SavedCheckError(ValueError):
    """A saved round's part fails its check; the message says which, in a few words."""


def escaped(text: str) -> str:
    """`text` with every control character shown as an escape (\\x1b), for a message."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def check_entry(entry: Any) -> None:
    """A report's state entry: SavedCheckError unless its numbers are what a proof gives."""
    if not isinstance(entry, dict):
        raise SavedCheckError("a state entry is not an object")
    for key in ("centre", "captain", "opponent"):
        _whole(entry.get(key), key)
    if not isinstance(entry.get("open_throw"), bool):
        raise SavedCheckError("a state entry's open_throw is not true or false")
    label = f"{entry['centre']},{entry['captain']},{entry['opponent']}"
    _probability(entry.get("p_end"), f"{label}: p_end")
    _bounded(entry, "value", "lower", "upper", label)
    for key in ("width", "exploitability", "captain_exploitability",
                "opponent_exploitability"):
        if key in entry or key in ("width", "exploitability"):
            _nonnegative(entry.get(key), f"{label}: {key}")


def check_report(report: dict) -> None:
    """A round report's own numbers (its states are checked by `check_entry`)."""
    if "start_value" in report:
        _bounded(report, "start_value", "start_lower", "start_upper", "the report")
    if "max_width" in report:
        _nonnegative(report["max_width"], "the report: max_width")
    if "min_p_end" in report:
        _probability(report["min_p_end"], "the report: min_p_end")


def _bounded(where: dict, value_key: str, lower_key: str, upper_key: str, label: str) -> None:
    """A value and its proved bounds (decimal strings): lower <= value <= upper in [0, 1]."""
    value = _probability(where.get(value_key), f"{label}: {value_key}")
    lower = _bound(where.get(lower_key), f"{label}: {lower_key}")
    upper = _bound(where.get(upper_key), f"{label}: {upper_key}")
    if not 0 <= lower <= value <= upper <= 1:
        raise SavedCheckError(f"{label}: {lower_key} <= {value_key} <= {upper_key} does not "
                              f"hold within [0, 1] ({lower!r}, {value!r}, {upper!r})")


def check_advice(advice: Any) -> None:
    """The saved advice of every chip state: SavedCheckError unless each is advice as the
    solver writes it (`solver.round.advice.stage_advice`, or an open throw's
    `open_throw_table.open_throw_advice`)."""
    if not isinstance(advice, dict):
        raise SavedCheckError("its advice is not an object")
    for label, said in advice.items():
        _words(label, "a state's label")
        where = f"the advice of {label}"
        if not isinstance(said, dict):
            raise SavedCheckError(f"{where} is not an object")
        if said.get("open_throw") is True:
            _open_throw(said, where)
        else:
            _stage(said, where)


def _stage(said: dict, where: str) -> None:
    for key in ("concedes", "captain_concedes", "opponent_concedes", "differ"):
        _probability(said.get(key), f"{where}: {key}")
    if "stage_exploitability" in said:
        _nonnegative(said["stage_exploitability"], f"{where}: stage_exploitability")
    _whole(said.get("more_changes"), f"{where}: more_changes")
    _list_of(said.get("changes"), f"{where}: changes", lambda change, at: _change(change, at))


def _change(change: Any, where: str) -> None:
    if not isinstance(change, dict):
        raise SavedCheckError(f"{where} is not an object")
    for key in ("where", "here", "hand_game"):
        _words(change.get(key), f"{where}: {key}")
    _list_of(change.get("hands"), f"{where}: hands", _words)
    _probability(change.get("weight"), f"{where}: weight")


def _open_throw(said: dict, where: str) -> None:
    _whole(said.get("second_exceptions"), f"{where}: second_exceptions")
    for key in ("first", "second_tied"):
        _list_of(said.get(key), f"{where}: {key}", _open_throw_row)


def _open_throw_row(row: Any, where: str) -> None:
    if not isinstance(row, dict):
        raise SavedCheckError(f"{where} is not an object")
    _whole(row.get("after_throw"), f"{where}: after_throw")
    for key in ("stop_with", "else"):
        _words(row.get(key), f"{where}: {key}")


def _list_of(items: Any, where: str, check: Callable[[Any, str], Any]) -> None:
    if not isinstance(items, list):
        raise SavedCheckError(f"{where} is not a list")
    for i, item in enumerate(items):
        check(item, f"{where}[{i}]")


def _real(x: Any, where: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise SavedCheckError(f"{where} is not a number: {escaped(repr(x))[:40]}")
    return float(x)


def _probability(x: Any, where: str) -> float:
    value = _real(x, where)
    if not 0 <= value <= 1:
        raise SavedCheckError(f"{where} is {value!r}, not a probability (0 to 1)")
    return value


def _nonnegative(x: Any, where: str) -> float:
    value = _real(x, where)
    if value < 0:
        raise SavedCheckError(f"{where} is {value!r}, below 0")
    return value


def _whole(x: Any, where: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= 10**6:
        raise SavedCheckError(f"{where} is not a whole number from 0: "
                              f"{escaped(repr(x))[:40]}")
    return x


def _bound(x: Any, where: str) -> float:
    """A proved bound, kept as a decimal string (its digits exact)."""
    if not isinstance(x, str) or not _NUMBER.fullmatch(x):
        raise SavedCheckError(f"{where} is not a decimal number: {escaped(repr(x))[:40]}")
    return float(x)


def _words(x: Any, where: str) -> None:
    if not isinstance(x, str) or len(x) > LONGEST_WORDS:
        raise SavedCheckError(f"{where} is not a string of words")
    if _CONTROL.search(x):
        raise SavedCheckError(f"{where} holds a control character: '{escaped(x)[:60]}'")
