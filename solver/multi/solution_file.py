"""The summary of a multi-hand solution: everything its strategy file says but the strategy.

The default game's strategy file holds 1.2e7 probabilities (388 MB), too large to publish
or to read in seconds; its summary (values, certified gains, how it was solved, the play's
figures, and the strategy's SHA-256) is a few kB, and is what `bidou multi` answers from
when the rules asked for are those of a published solution (outputs/multi/). The numbers
were certified when the strategy was solved (numpy's exact best response against it). The
summary states no run time, so that solving again writes it byte for byte (CFR is
deterministic), and is checked for its own consistency when read (each gain is the best
response's value minus the seat's value, epsilon their largest, NashConv their sum), so a
file edited by hand in one number is refused.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from pathlib import Path
from typing import IO, Any

SCHEMA = "bidou-multi-solution"
SCHEMA_VERSION = 1
NAME = "multi-solution.json"
STRATEGY_NAME = "multi-strategy.json"
MAX_BYTES = 2**20           # a summary is a few kB (the curve: one row a check)
# How far the file's numbers may disagree with each other: they are written with 17 digits
# (json's repr of a float), so only rounding in the sums is allowed.
TOLERANCE = 1e-12


def solution_of_text(text: bytes) -> dict[str, Any]:
    """The summary document of the strategy file `text` (as `bidou multi --out` writes it)."""
    return _summary(io.BytesIO(text))


def solution_of_strategy_file(path: Path) -> dict[str, Any]:
    """The summary document of a strategy file on disk, read line by line (the default
    game's file parsed whole would take several GB)."""
    with open(path, "rb") as handle:
        return _summary(handle)


def _summary(lines: IO[bytes]) -> dict[str, Any]:
    """A strategy file is written with one space of indent, so its top-level keys are the
    lines that start with one space and a quote: the lines of `hands` and `strategy` are
    skipped, and those of `strategy`, as written, hashed."""
    kept: list[str] = []
    digest = hashlib.sha256()
    skipping = hashing = False
    for raw in lines:
        line = raw.decode("utf-8")
        if not line.startswith(" "):                # the document's braces
            skipping = hashing = False
        elif line.startswith(' "'):
            skipping = line.startswith((' "strategy":', ' "hands":'))
            hashing = line.startswith(' "strategy":')
        if hashing:
            digest.update(raw.rstrip(b",\n"))
        if not skipping:
            kept.append(line)
    doc = json.loads("".join(kept).replace(",\n}", "\n}"))
    if doc.get("schema") != "bidou-multi-strategy":
        raise ValueError("not a multi-hand strategy file")
    del doc["schema"], doc["schema_version"]
    doc["solver"] = {k: v for k, v in doc["solver"].items() if k != "seconds"}
    doc["curve"] = [{k: v for k, v in point.items() if k != "seconds"}
                    for point in doc.get("curve") or []]
    return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, **doc,
            "strategy_file": {"name": STRATEGY_NAME, "strategy_sha256": digest.hexdigest()}}


def check_solution(doc: Any, rules: dict[str, Any]) -> dict[str, Any]:
    """`doc` if it is a summary of a solution of `rules` whose numbers agree with each
    other; ValueError saying what is wrong otherwise."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA \
            or doc.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"not a {SCHEMA} version {SCHEMA_VERSION} file")
    if doc.get("rules") != rules:
        raise ValueError("it was solved for other rules")
    seats = rules["players"]
    columns: dict[str, list[float]] = {}
    for key in ("values", "best_response_values", "gains"):
        column = doc.get(key)
        if not isinstance(column, list) or len(column) != seats \
                or not all(_finite(x) for x in column):
            raise ValueError(f"its {key} are not {seats} numbers")
        columns[key] = column
    for key in ("epsilon", "nash_conv"):
        if not _finite(doc.get(key)):
            raise ValueError(f"its {key} is not a number")
    gains = columns["gains"]
    if any(abs(b - v - g) > TOLERANCE for v, b, g in
           zip(columns["values"], columns["best_response_values"], gains)):
        raise ValueError("a seat's gain is not its best response's value minus its value")
    if abs(doc["epsilon"] - max(gains)) > TOLERANCE \
            or abs(doc["nash_conv"] - sum(gains)) > TOLERANCE:
        raise ValueError("its epsilon or NashConv is not what its gains give")
    solver = doc.get("solver")
    if not isinstance(solver, dict) or not isinstance(solver.get("iterations"), int) \
            or not isinstance(solver.get("method"), str):
        raise ValueError("it does not say how it was solved")
    return doc


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
