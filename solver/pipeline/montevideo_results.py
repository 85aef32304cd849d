"""The numbers of docs/results.md's Montevideo section, from the published heads-up report
(outputs/montevideo/heads-up.json, checked first): the captain's chance at equal chips by
ante, what the captaincy is worth, what a chip is worth against counting chips, and how the
rising ante changes the play. Every value is an interval from the report's proved bounds,
rounded outward; the play's numbers are the LP's stage equilibrium, and say so."""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from pathlib import Path
from typing import Any

from games.montevideo.heads_up import MAX_ANTE, HeadsUpParams
from solver.pipeline.montevideo import read_report

DIGITS = Decimal("1e-10")          # printed bounds: ten decimals, rounded outward
HALF = 0.5


def _down(x: Decimal) -> str:
    return str(x.quantize(DIGITS, rounding=ROUND_FLOOR))


def _up(x: Decimal) -> str:
    return str(x.quantize(DIGITS, rounding=ROUND_CEILING))


def montevideo_part(path: Path) -> dict[str, Any]:
    """The section's numbers from the report at `path` (ReportError if it fails its checks)."""
    report = read_report(path, HeadsUpParams())
    params = HeadsUpParams.from_dict(report["rules"])
    total, half = params.total, params.total // 2
    by = {(e["captain"], e["opponent"], e["ante"]): e for e in report["states"]}

    def bounds(key: tuple[int, int, int]) -> tuple[Decimal, Decimal]:
        return Decimal(by[key]["lower"]), Decimal(by[key]["upper"])

    antes = list(range(params.first_ante, MAX_ANTE + 1))
    equal = []
    for a in antes:
        low, high = bounds((half, total - half, a))
        step_low = bounds((half + 1, total - half - 1, a))[0] - high
        step_high = bounds((half + 1, total - half - 1, a))[1] - low
        push = by[(half, total - half, a)]["push_fold"]
        equal.append({"ante": a, "lower": _down(low), "upper": _up(high),
                      "chip_lower": _down(step_low), "chip_upper": _up(step_high),
                      "all_in_hands": None if push is None else
                      sum(1 for p in push["all_in"] if p is not None and p >= HALF),
                      "check_hands": None if push is None else
                      sum(1 for o in push["opening"] if o == "check")})
    captaincy = []
    for (c, o, a), e in by.items():
        if c <= o:
            low = bounds((c, o, a))[0] + bounds((o, c, a))[0] - 1
            high = bounds((c, o, a))[1] + bounds((o, c, a))[1] - 1
            captaincy.append((low, high, c, o, a))
    worst, best = min(captaincy), max(captaincy, key=lambda t: t[1])
    deviation = []
    for (c, o, a), e in by.items():
        share = Decimal(c) / Decimal(total)
        low, high = bounds((c, o, a))
        deviation.append((low - share, high - share, c, o, a))
    below, above = min(deviation), max(deviation, key=lambda t: t[1])
    no_betting = {a: sum(1 for (c, o, b), e in by.items() if b == a and e["push_fold"] is None)
                  for a in antes}
    return {
        "rules": report["rules"], "states": len(report["states"]),
        "max_width": report["max_width"], "longest": report["longest"],
        "equal": equal,
        "captaincy_lowest": {"lower": _down(worst[0]), "upper": _up(worst[1]),
                             "chips": list(worst[2:4]), "ante": worst[4]},
        "captaincy_highest": {"lower": _down(best[0]), "upper": _up(best[1]),
                              "chips": list(best[2:4]), "ante": best[4]},
        "below_share": {"lower": _down(below[0]), "upper": _up(below[1]),
                        "chips": list(below[2:4]), "ante": below[4]},
        "above_share": {"lower": _down(above[0]), "upper": _up(above[1]),
                        "chips": list(above[2:4]), "ante": above[4]},
        "no_betting": [{"ante": a, "states": n, "of": total - 1} for a, n in no_betting.items()],
    }
