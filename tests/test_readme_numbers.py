"""Every number README.md states is checked: each value, interval, count and size is computed
here again from the published files (outputs/, docs/data/) and must stand in the README as
printed; timings come from the generated record (tests/test_timings.py); what is left is a
short list of settings and known constants, each with its reason. A number typed into the
README that none of these covers fails the last test."""

from __future__ import annotations

import csv
import json
import re
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
OUTPUTS = ROOT / "outputs"

# Numbers that are settings, rules or known constants, not results of this project's solves.
SETTINGS = {
    "1e-6": "the CFR methods' default target exploitability",
    "1e-3": "vanilla CFR's default target",
    "1.5": "discounted CFR's alpha (1.5, 0, 2): a method's parameter",
    "100 000": "the CFR methods' iteration cap",
    "1e-7": "how far from equilibrium a strategy may be for the exact recovery to try",
    "200 000": "export-efg's limit on histories",
    "60": "the Le Bidou sweep's default time limit per cell",
    "-1/18": "Kuhn poker's known value, which `bidou lp kuhn_poker` proves (tests/test_cli.py)",
    "17.0": "pygambit's pinned release, 17.0.0b2",
    "3.11": "the CPython version pygambit's wheel is for",
    "16": "pygambit's 16.x releases",
    "130": "the exit status of an interrupted command",
    "143": "the exit status of a terminated command",
    "1/2": "the match's value from its start, proved by symmetry in solver/round/match.py",
    "18": "Montevideo's heads-up chips at the default rules, three players of six "
          "(HeadsUpParams().total, tests/test_montevideo_heads_up.py)",
}


def decimal(x: Fraction | str, places: int, rounding: str = ROUND_HALF_EVEN) -> str:
    value = Decimal(x.numerator) / Decimal(x.denominator) if isinstance(x, Fraction) \
        else Decimal(x)
    return str(value.quantize(Decimal(1).scaleb(-places), rounding=rounding))


def truncated(x: Fraction, places: int) -> str:
    return decimal(x, places, ROUND_CEILING if x < 0 else ROUND_FLOOR)


def load(path: str) -> dict:
    return json.loads((OUTPUTS / path).read_text(encoding="utf-8"))


def sweep_rows() -> list[dict[str, str]]:
    with open(ROOT / "docs" / "data" / "sweep.csv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def hand_values() -> list[str]:
    """The six default-level hands' exact values, from the sweep table, as the README prints
    them (the fraction, 18 decimals), and the headline (19 decimals, truncated)."""
    found = []
    for reroll in ("all", "keep"):
        for ranking, aces in (("encyclopedia", "True"), ("french", "True"), ("french", "False")):
            if ranking == "encyclopedia" and aces == "False":
                continue
            row = next(r for r in sweep_rows() if (r["faces"], r["throws"], r["max_level"],
                       r["reroll"], r["ranking"], r["aces_beat_bidou"]) ==
                       ("6", "3", "4", reroll, ranking, aces))
            exact = Fraction(row["exact"])
            found += [row["exact"], decimal(exact, 18)]
    default = Fraction(load("default/summary.json")["certified_value"]["exact"])
    found.append(f"{default.numerator}/{default.denominator}")
    found.append(truncated(default, 19))
    found.append(decimal(-100 * default, 1))                    # chips per hundred hands
    return found


def round_numbers() -> list[str]:
    found = []
    for folder in ("round", "round-keep"):
        report = load(f"{folder}/round.json")
        assert max(s["width"] for s in report["states"]) < 1e-10      # "narrower than 1e-10"
        found += ["1e-10", decimal(str(report["start_value"]), 12),
                  decimal(report["start_lower"], 12, ROUND_FLOOR),
                  decimal(report["start_upper"], 12, ROUND_CEILING),
                  decimal(str(100 * (0.5 - report["start_value"])), 2)]
        found.append(str(len(report["states"])))
    state = next(s for s in load("round/round.json")["states"]
                 if (s["centre"], s["captain"], s["opponent"]) == (0, 2, 7))
    found.append(f"{round(100 * state['value'])}%")
    return found


def le_bidou_numbers() -> list[str]:
    summary = load("le-bidou/summary.json")
    proved = summary["certified_value"]
    width = Decimal(proved["upper_decimal"]) - Decimal(proved["lower_decimal"])
    rounds, decisions, total = re.search(r"(\d+) rounds, (\d+) of (\d+) decisions",
                                         summary["message"]).groups()
    manche = load("le-bidou/manche.json")
    return [f"+{decimal(str(summary['value']), 12)}", f"{float(width):.1e}", decisions, total,
            rounds, decimal(str(manche["start_value"]), 12), manche["start_lower"],
            manche["start_upper"], decimal(str(manche["match"]["value"]), 12)]


def cheatsheet_numbers() -> list[str]:
    result = load("default/cheatsheet_strategy.json")["result"]
    return [str(result["rules_count"]), decimal(str(result["exploitability"]), 3),
            decimal(str(result["equilibrium_loss"]), 3)]


def sweep_numbers() -> list[str]:
    rows = sweep_rows()
    assert all(row["exact"] for row in rows)                       # "every value exact"
    return [str(len(rows))]


def verified() -> set[str]:
    return {*hand_values(), *round_numbers(), *le_bidou_numbers(), *cheatsheet_numbers(),
            *sweep_numbers()}


def prose_numbers(text: str) -> list[str]:
    """The numbers of the README's running text and tables: not in code (commands, options,
    paths), not in generated passages (the timings' record), not hand names (6-5-3) nor
    option ranges (1..20)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"<!-- generated: .*?<!-- end generated -->", "", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"\b\d-\d-\d\b|\d+\.\.\d+", "", text)
    return [t.strip() for t in re.findall(
        r"(?<![\w.])[-+]?\d[\d ]*(?:\.\d+)?(?:e-?\d+)?(?:/\d+)?%?", text)]


def test_each_published_number_stands_in_the_readme_as_the_files_give_it():
    missing = sorted(n for n in verified() - {"1e-10"} if n not in README)
    assert not missing, f"README.md does not state these as the published files give them: " \
                        f"{missing}"


def test_every_number_of_the_readme_is_checked():
    checked = verified() | set(SETTINGS)
    unchecked = sorted({n for n in prose_numbers(README)
                        if n not in checked and not (n.isdigit() and int(n) <= 12)})
    assert not unchecked, ("numbers in README.md that no published file, record or setting "
                           f"backs (check them here, or remove them): {unchecked}")


def test_the_reading_of_numbers_skips_code_and_finds_the_rest():
    text = ("A value -1/3 and 0.25 (`--faces 4`), 77% of 1 234 games, 6-5-3, 2..6.\n"
            "```sh\nbidou solve 99\n```\n<!-- generated: timings x (benchmarks) -->\n| 5.5 |\n"
            "<!-- end generated -->\n")
    assert prose_numbers(text) == ["-1/3", "0.25", "77%", "1 234"]
