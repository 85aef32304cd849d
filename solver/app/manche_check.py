"""`bidou outputs --check` for Le Bidou's published manche (outputs/le-bidou/): is a fresh
solve's page and report the same as the published ones?

`bidou outputs` solves and proves the default manche again (about 13 minutes on 2 cores:
docs/manche.md, "Measured"; `solver.pipeline.published_manche`) and `--check` compares.
The page (`solver.export.manche_page`) prints every number at a precision a re-solve on
another machine reproduces (the proved intervals rounded outward), so it is compared at
that precision (`round_outputs.same_at_printed_precision`), except the Monte Carlo
paragraph: its estimate is of the strategies solved, and another machine's LP may land on
another equilibrium of a stage (the same values, other play), so that paragraph is compared
by what it checks: the same number of manches and seed, and the estimate within Z_LIMIT
standard errors of the proved start value.
"""

from __future__ import annotations

import json
import re
from typing import Any

from solver.app.round_outputs import same_at_printed_precision
from solver.export.manche_page import MONTE_CARLO_MARK

# The most standard errors between the estimate and the proved start value that the check
# accepts ("within 4 standard errors").
Z_LIMIT = 4.0

# What another equilibrium of a stage (the same values, other play: another machine's LP,
# or another path of the double oracle) changes in the report: the most tie either player
# can force against the solved strategies, the stage solver's path, the iteration's
# residuals. Not compared by the check (`same_report`, `same_page`); all else is.
SOLVE_DEPENDENT = ("max_tie", "stage", "convergence")
_MAX_TIE_CELL = re.compile(r"\| [0-9]\.[0-9]{3} \|$", re.MULTILINE)


def without_solve_dependent(data: Any) -> Any:
    """`data` (a report) without the SOLVE_DEPENDENT keys, at every depth."""
    if isinstance(data, dict):
        return {k: without_solve_dependent(v) for k, v in data.items()
                if k not in SOLVE_DEPENDENT}
    if isinstance(data, list):
        return [without_solve_dependent(v) for v in data]
    return data


def same_report(found: bytes, expected: bytes, close: Any) -> bool:
    """Two manche.json files that prove the same (`close` compares what is left, numbers
    to the check's tolerance), the SOLVE_DEPENDENT parts aside."""
    try:
        a, b = json.loads(found), json.loads(expected)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    return bool(close(without_solve_dependent(a), without_solve_dependent(b)))


def same_page(found: str, expected: str) -> bool:
    """Two manche pages that say the same: at the precision they print, but for the Monte
    Carlo paragraph, which must name the same manches and seed and, in both, lie within
    Z_LIMIT standard errors of the start value (module docstring)."""
    found_rest, found_mc = _split_monte_carlo(found)
    expected_rest, expected_mc = _split_monte_carlo(expected)
    if found_mc is None or expected_mc is None:
        return False
    found_rest = _MAX_TIE_CELL.sub("| |", found_rest)
    expected_rest = _MAX_TIE_CELL.sub("| |", expected_rest)
    return (same_at_printed_precision(found_rest, expected_rest)
            and found_mc[:2] == expected_mc[:2]
            and abs(found_mc[2]) <= Z_LIMIT and abs(expected_mc[2]) <= Z_LIMIT)


_MONTE_CARLO = re.compile("^" + re.escape(MONTE_CARLO_MARK)
                          + r" ([0-9]+) manches .*\(seed ([0-9]+)\).* "
                          r"([-+][0-9]+\.[0-9]+) standard errors from the start value",
                          re.MULTILINE)


def _split_monte_carlo(text: str) -> tuple[str, tuple[int, int, float] | None]:
    """The page without its Monte Carlo line, and that line's manches, seed and z."""
    found = _MONTE_CARLO.search(text)
    if found is None:
        return text, None
    start, end = found.start(), text.find("\n", found.start())
    rest = text[:start] + text[end if end >= 0 else len(text):]
    return rest, (int(found.group(1)), int(found.group(2)), float(found.group(3)))
