"""The solved rounds kept in `outputs/round*/`: the report (round.json), its summary page and
the win-probability chart, written and checked by `bidou outputs`.

`python -m solver.app.round_outputs` makes the round cheat sheets again from the rounds saved
there (no solve: the chip-rule search and its proofs, a few minutes a round), as `bidou
outputs` makes them: run it when a published hand cheat sheet, their base, changes.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Mapping

from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from solver.common.progress import Step
from solver.export.charts import figure_bytes
from solver.export.round_charts import width_bound, win_probability_figure
from solver.hand.exact.certificate import decimal
from solver.pipeline.round import prove_round
from solver.round.match import match_table

ROUNDS: dict[str, RoundParams] = {
    "round": RoundParams(),
    "round-keep": RoundParams(hand=BidouParams(reroll="keep")),
}
CHART_FORMATS = ("pdf", "png")
# What a fresh solve may write differently without the numbers changing.
VOLATILE = ("seconds", "solve_seconds", "convergence", "versions")
# The report's key holding the saved round's files (solver/round/store.py), by name: the
# round kept for `bidou round --state` queries, published beside round.json.
SAVED = "saved_files"
# The report's key holding the round cheat sheet's files (cheatsheet.md, .pdf, .png:
# solver/pipeline/round_cheatsheet.py), when it was made.
SHEET = "cheatsheet_files"
# Files a round cheat sheet once wrote that no current sheet writes: removed with it.
OLD_SHEET_FILES = ("cheatsheet.pdf",)


def solve_and_report(params: RoundParams, progress: Step | None = None,
                     cheatsheet: bool = False) -> dict[str, Any]:
    """Solve and prove the round (the round pipeline); its report (numbers only, no
    timings: see VOLATILE), carrying under SAVED the saved round's files (made from the
    same report without timings or versions, so that a fresh solve writes the same), and
    with `cheatsheet` under SHEET the round cheat sheet's (`round_cheatsheet_files`)."""
    import dataclasses

    from solver.pipeline.round import saved_round
    from solver.round.store import FILE_NAME

    proved = prove_round(params, progress=progress, timed=False)
    kept = {key: value for key, value in proved.report.items() if key not in VOLATILE}
    files = saved_round(dataclasses.replace(proved, report=kept), FILE_NAME)
    out = {**proved.report, SAVED: {path.name: data for path, data in files.items()}}
    if cheatsheet:
        out[SHEET] = round_cheatsheet_files(proved.solution, progress)
    return out


def round_cheatsheet_files(solution: Any, progress: Step | None = None) -> dict[str, bytes]:
    """The round cheat sheet of a solved round, over the published hand cheat sheet of its
    hand rules (outputs/<variant>/cheatsheet.md; else the hand game's equilibrium). The
    search has no wall-clock bound here, only its work's (at most 12 rules, a fixed family
    of candidates, the few best measured each step), so that the files do not depend on
    the machine's speed."""
    from solver.app.saved_rounds import published_hand_sheet
    from solver.pipeline import round_cheatsheet

    path = published_hand_sheet(solution.params.hand)
    text = path.read_text(encoding="utf-8") if path is not None else None
    _, files = round_cheatsheet.round_cheatsheet_files(solution, text, seconds=None,
                                                       progress=progress)
    return files


def write_round_cheatsheet(root: str | Path, name: str, progress: Step | None = None
                           ) -> list[Path]:
    """outputs/<name>/cheatsheet.*, made again from the round saved in that folder
    (solved_round.json, read and checked as `bidou round` reads it) by the code `bidou
    outputs` runs (`round_cheatsheet_files`), written together (`files.write_set`); the
    files it no longer writes (OLD_SHEET_FILES) removed. The round is not solved again,
    so this is what to run when only a hand cheat sheet changed."""
    import dataclasses

    from solver.common.files import write_set
    from solver.pipeline.round_cheatsheet import solution_from_saved
    from solver.round.store import FILE_NAME, load

    folder = Path(root) / name
    saved = load(folder / FILE_NAME, ROUNDS[name])
    saved = dataclasses.replace(saved, kept=saved.stages())
    files = round_cheatsheet_files(solution_from_saved(saved), progress)
    written = {folder / filename: data for filename, data in files.items()}
    write_set(written)
    for filename in OLD_SHEET_FILES:
        (folder / filename).unlink(missing_ok=True)
    return list(written)


def main(argv: list[str] | None = None) -> None:
    """Make the published round cheat sheets again (module docstring)."""
    import argparse
    import time

    from solver.app.outputs import project_outputs

    parser = argparse.ArgumentParser(
        prog="python -m solver.app.round_outputs",
        description="Make the published round cheat sheets (outputs/round*/cheatsheet*) "
                    "again from the rounds saved there, as `bidou outputs` makes them, "
                    "without solving the rounds: run it when a hand cheat sheet changed.")
    parser.add_argument("--root", type=Path, default=None,
                        help="the outputs folder (default: this checkout's outputs/)")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"the rounds (default: {' '.join(ROUNDS)})")
    args = parser.parse_args(argv)
    names = args.names or list(ROUNDS)
    unknown = [name for name in names if name not in ROUNDS]
    if unknown:
        parser.error(f"unknown round {unknown[0]!r} (the rounds: {', '.join(ROUNDS)})")
    root = args.root or project_outputs()
    if root is None:
        parser.error("no outputs/ folder in this checkout: pass --root")
    for name in names:
        begin = time.perf_counter()
        for path in write_round_cheatsheet(root, name):
            print(path)
        print(f"{name}: {time.perf_counter() - begin:.0f} s")


def round_files(report: Mapping[str, Any]) -> dict[str, bytes]:
    """Every file of a published round, by name, as bytes (no timings or versions, so a
    fresh solve writes the same files)."""
    kept = {key: value for key, value in report.items()
            if key not in VOLATILE and key not in (SAVED, SHEET)}
    files = {"round.json": (json.dumps(kept, indent=1) + "\n").encode()}
    files.update(report.get(SAVED, {}))
    files.update(report.get(SHEET, {}))
    figure = win_probability_figure(report)
    for fmt in CHART_FORMATS:
        files[f"win_probability.{fmt}"] = figure_bytes(figure, fmt)
    files["summary.md"] = summary_markdown(report).encode()
    files.update(open_throw_files(report))
    return files


def open_throw_files(report: Mapping[str, Any]) -> dict[str, bytes]:
    """open_throw.md and open_throw.csv: when to stop in each open throw of the round,
    solved again exactly from the report's values (solver/round/open_throw_table.py)."""
    from solver.round.open_throw_table import (
        open_throw_csv,
        open_throw_markdown,
        open_throw_policies,
    )

    rules = RoundParams.from_mapping(report["rules"])
    policies = open_throw_policies(rules, report)
    return {"open_throw.md": open_throw_markdown(rules, policies).encode(),
            "open_throw.csv": open_throw_csv(rules, policies).encode()}


def summary_markdown(report: Mapping[str, Any]) -> str:
    rules = RoundParams.from_mapping(report["rules"])
    lines = [
        "# Bidou: solved round", "",
        f"Rules: {rules.describe()}.", "",
        f"The first captain (all {rules.chips} chips in the centre) wins the round with "
        f"probability **{report['start_value']:.12f}**, proved in exact arithmetic to lie in "
        f"{_start_interval(report)} (rounded outward to {START_DECIMALS} decimals).", "",
        f"Every one of the {len(report['states'])} states is proved likewise (every interval "
        f"narrower than {width_bound(report['max_width'])}); every round ends with "
        f"probability 1 whatever either player does (proved in exact arithmetic; under the "
        f"solved strategies, computed: {_one(report['min_p_end'])}). Reproduce with "
        f"`bidou round{_options(rules)} --charts --out DIR`; docs/round.md says how.", "",
        "Every number here is printed at the precision shown, its last digit reproducible "
        "to one unit on any machine (the floats of a solve move in the 15th digit with the "
        "machine's BLAS; the intervals, rounded outward, stay proved); `bidou outputs "
        "--check` compares it at that precision.", "",
        "![win probability](win_probability.png)", "",
        "| centre | captain's pile | opponent's pile | value | proved interval | "
        "exploitability | P(round ends) |",
        "|---|---|---|---|---|---|---|"]
    for s in report["states"]:
        kind = " (open throw: the first thrower's chance)" if s["open_throw"] else ""
        lines.append(f"| {s['centre']} | {s['captain']} | {s['opponent']} | "
                     f"{s['value']:.9f}{kind} | {_interval(s)} | "
                     f"{_tiny(s['exploitability'])} | {_one(s['p_end'])} |")
    lines += ["", "## The match (all, keep, all; best of three)", "",
              "| round | reroll | score | P(win the match) |", "|---|---|---|---|"]
    lines += [f"| {r['round']} | {r['reroll']} | {r['wins']}-{r['losses']} | "
              f"{r['p_match']} |" for r in match_table()]
    return "\n".join(lines) + "\n"


# The start's proved bounds are 15-decimal strings in round.json; their last digits move
# with the machine (its BLAS kernels round the solve's floats differently). Printed with
# 12 decimals, rounded outward: still proved, and the interval's width is about 2e-12.
START_DECIMALS = 12


def _start_interval(report: Mapping[str, Any]) -> str:
    lower = decimal(Fraction(report["start_lower"]), START_DECIMALS, up=False)
    upper = decimal(Fraction(report["start_upper"]), START_DECIMALS, up=True)
    return f"[{lower}, {upper}]"


def same_at_printed_precision(found: str, expected: str) -> bool:
    """Two texts that say the same at the precision they print: equal but for decimals
    (digits with a decimal point), which must have as many decimals and differ by at most
    one unit in the last (a re-solve on another machine moves a proved bound by 1e-15, and
    an outward rounding may then step one unit). Integers, fractions and words: exact."""
    found_parts, expected_parts = _DECIMAL.split(found), _DECIMAL.split(expected)
    if len(found_parts) != len(expected_parts):
        return False
    for i, (a, b) in enumerate(zip(found_parts, expected_parts)):
        if i % 2 == 0:
            if a != b:
                return False
            continue
        places = len(a.partition(".")[2])
        if len(b.partition(".")[2]) != places or \
                abs(Fraction(a) - Fraction(b)) > Fraction(1, 10 ** places):
            return False
    return True


_DECIMAL = re.compile(r"(-?[0-9]+\.[0-9]+)")


def _interval(entry: Mapping[str, Any]) -> str:
    """The proved interval to 9 decimals, rounded outwards so that it still holds (and
    stays the same when a re-solve moves the last digits)."""
    lower = decimal(Fraction(entry["lower"]), 9, up=False)
    upper = decimal(Fraction(entry["upper"]), 9, up=True)
    return f"[{lower}, {upper}]"


def _options(rules: RoundParams) -> str:
    default = BidouParams()
    return "".join(f" --{name.replace('_', '-')} {value}"
                   for name, value in rules.hand.to_dict().items()
                   if value != getattr(default, name))


def _tiny(x: float) -> str:
    return f"< {width_bound(x)}" if x < 1e-9 else f"{x:.1e}"


def _one(p: float) -> str:
    return "1" if abs(1 - p) < 1e-12 else f"{p:.12f}"


def write_round(root: str | Path, name: str, report: Mapping[str, Any]) -> list[Path]:
    """outputs/<name>: the round's files, staged and moved in together (a failure leaves
    the previous set whole, never a new chart beside an old report)."""
    from solver.common.files import write_set

    folder = Path(root) / name
    files = {folder / filename: data for filename, data in round_files(report).items()}
    write_set(files)
    return list(files)


def stale_round_files(root: str | Path, name: str, report: Mapping[str, Any],
                      same: Callable[[str, bytes, bytes], bool]) -> list[str]:
    """Files of outputs/<name> that `report` would write differently (`same` compares)."""
    stale = []
    for filename, data in round_files(report).items():
        path = Path(root) / name / filename
        if not path.is_file() or not same(filename, path.read_bytes(), data):
            stale.append(str(path))
    return stale


if __name__ == "__main__":
    main()
