"""docs/results.md's value tables, read from the sweep table (docs/data/sweep.csv, written by
SWEEP_COMMAND): every value there carries its certified interval, and the exact fraction
where it was proved; the tables keep them (`sweep_tables`), nothing is solved here."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping, Sequence

from games.bidou.params import BidouParams, ParameterError
from solver.export.results_page import SWEEP_COMMAND
from solver.pipeline.bidou_sweep import SWEEP
from solver.pipeline.sweep import is_exact_text

# The rule variants the tables show, by name: (reroll, ranking, aces beat bidou).
VARIANTS = {"all, encyclopedia": ("all", "encyclopedia", True),
            "keep, encyclopedia": ("keep", "encyclopedia", True),
            "all, french, aces beat bidou": ("all", "french", True),
            "all, french, bidou unbeaten": ("all", "french", False),
            "keep, french, aces beat bidou": ("keep", "french", True),
            "keep, french, bidou unbeaten": ("keep", "french", False)}


def sweep_grid() -> list[BidouParams]:
    """The rule sets of SWEEP_COMMAND, which the tables need (the sweep may hold more)."""
    return SWEEP.build_grid("2,3,4,5,6", "1,2,3", "1,2,3,4", "all,keep", "encyclopedia,french",
                      "true,false")


def _cell(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"value": row["value"], "lower": row["lower"], "upper": row["upper"],
            "exact": row["exact"]}


def _difference(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    """a's value minus b's, exactly where both are proved (no rounding noise), else floats."""
    if a["exact"] is not None and b["exact"] is not None:
        return float(Fraction(a["exact"]) - Fraction(b["exact"]))
    return a["value"] - b["value"]


def checked_rows(rows: Sequence[Mapping[str, Any]]) -> None:
    """ParameterError (one line naming the row) unless every row's value, lower and upper
    are finite numbers and its exact value is empty or a fraction "p/q"."""
    for row in rows:
        for name in ("value", "lower", "upper"):
            value = row[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value):
                raise ParameterError(f"the sweep table's row {SWEEP.rule_key(row)} has {name} "
                                     f"{value!r:.40}, not a number")
        exact = row["exact"]
        if exact is not None and not is_exact_text(exact):
            raise ParameterError(f"the sweep table's row {SWEEP.rule_key(row)} has exact value "
                                 f"{exact!r:.40}, not a fraction p/q")


def sweep_tables(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The value tables of the findings, from the sweep's rows (which must cover the grid)."""
    checked_rows(rows)
    by_key = {SWEEP.rule_key(r): r for r in rows}
    missing = [p for p in sweep_grid() if SWEEP.rule_key(p) not in by_key]
    if missing:
        raise ParameterError(f"the sweep table lacks {len(missing)} rule sets (first: "
                             f"{missing[0].describe()}); run `{SWEEP_COMMAND}`")

    def get(faces, throws, level, variant):
        reroll, ranking, aces = VARIANTS[variant]
        return by_key[(faces, throws, level, reroll, ranking, aces)]

    faces_throws = {v: {f"{f},{t}": _cell(get(f, t, 4, v)) for f in range(2, 7)
                        for t in range(1, 4)} for v in VARIANTS}
    levels = {v: {f"{t},{m}": _cell(get(6, t, m, v)) for t in range(1, 4) for m in range(1, 5)}
              for v in VARIANTS}
    cycle = {r: {f"{f},{t}": _difference(get(f, t, 4, f"{r}, french, aces beat bidou"),
                                         get(f, t, 4, f"{r}, french, bidou unbeaten"))
                 for f in range(2, 7) for t in range(1, 4)} for r in ("all", "keep")}
    level_effect = {scope: {f"{m}": max(abs(_difference(by_key[k[:2] + (m,) + k[3:]],
                                                         by_key[k]))
                                        for k in by_key if k[2] == 4 and k[0] in faces)
                            for m in (1, 2, 3)}
                    for scope, faces in (("6 faces", (6,)), ("all", (2, 3, 4, 5, 6)))}
    negative = sum(1 for r in rows if r["upper"] < 0)
    return {"faces_throws": faces_throws, "levels": levels, "cycle": cycle,
            "rule_sets": len(by_key), "captain_behind": negative,
            "level_effect": level_effect,
            "exact_rows": sum(1 for r in rows if r["exact"] is not None),
            "widest_interval": max(r["upper"] - r["lower"] for r in rows)}
