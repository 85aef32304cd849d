"""How docs/results.md words its numbers, shared by its sections: a value to so many
decimals, a proved interval rounded outward, a percentage, a difference in points, and a
table of values per rule variant."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable, Mapping

from solver.hand.exact.certificate import decimal


def variant_tables(tables: Mapping[str, Any], row_name: str, rows: Iterable[Any],
                   column_names: list[str], columns: Iterable[Any]) -> list[str]:
    """One Markdown table of values per rule variant: `tables[variant]["row,column"]`."""
    lines: list[str] = []
    for variant in ("all, encyclopedia", "keep, encyclopedia", "all, french, aces beat bidou"):
        table = tables[variant]
        lines += [f"*reroll {variant}*", "", f"| {row_name} | " + " | ".join(column_names)
                  + " |", "|" + "---|" * (len(column_names) + 1)]
        for r in rows:
            lines.append(f"| {r} | " + " | ".join(cell_value(table[f"{r},{c}"]) for c in columns)
                         + " |")
        lines.append("")
    return lines


def cell_value(cell: Mapping[str, Any], digits: int = 5) -> str:
    """A cell's value, signed, to `digits` decimals."""
    return f"{cell['value']:+.{digits}f}"


PROVED_DECIMALS = 15


def proved(cert: Mapping[str, Any]) -> str:
    """The exact value, or the proved interval rounded outward to PROVED_DECIMALS decimals
    (its width is ~1e-17: the far digits move with the machine's floats; cutting the
    20-character decimals rounded a negative lower bound up, inside the interval)."""
    if cert.get("exact"):
        return f"exactly {cert['exact']}"
    lower = decimal(Fraction(cert["lower"]), PROVED_DECIMALS, up=False)
    upper = decimal(Fraction(cert["upper"]), PROVED_DECIMALS, up=True)
    return f"in [{lower}, {upper}]"


def pct(x: float) -> str:
    """A probability in percent, one decimal."""
    return f"{100 * x:.1f}%"


def points(x: float) -> str:
    """A difference of probabilities, in percentage points."""
    return f"{100 * x:.2f} percentage points"
