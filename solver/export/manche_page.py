"""The page of Le Bidou's published manche in outputs/le-bidou/ (manche.md), beside the
report `bidou manche --json` gives (manche.json) and the win-probability chart
(manche_win_probability.pdf, .png): rendered from the proved report and the Monte Carlo
(`solver.pipeline.published_manche`), nothing solved here.

The page prints every number at a precision a re-solve on another machine reproduces (the
proved intervals rounded outward), so that `bidou outputs --check` can compare it at that
precision; the Monte Carlo paragraph, whose estimate is of the strategies solved, is marked
(MONTE_CARLO_MARK) so that the check finds it and compares it by what it checks.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, Mapping, Protocol

from games.le_bidou.manche import MancheParams
from solver.export.charts import figure_bytes
from solver.export.round_charts import width_bound
from solver.hand.exact.certificate import decimal

CHART_FORMATS = ("pdf", "png")
PAGE, REPORT, CHART = "manche.md", "manche.json", "manche_win_probability"
MONTE_CARLO_MARK = "**Monte Carlo.**"
# Printed with 12 decimals, rounded outward, as the rounds' start (round_outputs).
START_DECIMALS = 12


class SimulatedManches(Protocol):
    """What the page says of the Monte Carlo (`published_manche.MonteCarlo` is one)."""

    @property
    def manches(self) -> int: ...

    @property
    def seed(self) -> int: ...

    @property
    def mean_hands(self) -> float: ...

    @property
    def rate(self) -> float: ...

    @property
    def standard_error(self) -> float: ...

    def z(self, start_value: float) -> float: ...


def page_files(report: Mapping[str, Any], monte_carlo: SimulatedManches) -> dict[str, bytes]:
    """Every file of the manche's page, by name, as bytes."""
    from solver.export.manche_chart import win_probability_figure

    files = {REPORT: (json.dumps(report, indent=1) + "\n").encode(),
             PAGE: page_markdown(report, monte_carlo).encode()}
    figure = win_probability_figure(report)
    for fmt in CHART_FORMATS:
        files[f"{CHART}.{fmt}"] = figure_bytes(figure, fmt)
    return files


def page_markdown(report: Mapping[str, Any], monte_carlo: SimulatedManches) -> str:
    """The page: the start and the match with their proved intervals, the Monte Carlo, the
    chart, every state's value as a grid over the pool and the chips received, and every
    state with its proved interval."""
    params = MancheParams.from_mapping(report["rules"])
    lines = _headline(report, params) + [
        monte_carlo_paragraph(report, monte_carlo), "",
        "Every number here is printed at a precision a re-solve reproduces on any machine "
        "(the intervals rounded outward stay proved); `bidou outputs --check` solves the "
        "manche again and compares it at that precision, the Monte Carlo by its agreement.",
        "",
        f"![win probability]({CHART}.png)", ""]
    lines += _grid(report, params.chips)
    lines += _states(report)
    return "\n".join(lines) + "\n"


def _headline(report: Mapping[str, Any], params: MancheParams) -> list[str]:
    """The title, the rules, the start and the match, and what is proved of every state."""
    match = report["match"]
    played = [s for s in report["states"] if not s["decided"]]
    return [
        "# Le Bidou: the manche, solved", "",
        f"Rules: {params.describe()}; {_MATCH_WORDS[match['match_start']]}.", "",
        f"With all {params.chips} chips in the pool, **the first player wins the manche "
        f"with probability {report['start_value']:.12f}**, proved in exact arithmetic to "
        f"lie in {_outward(report['start_lower'], report['start_upper'], START_DECIMALS)}. "
        f"**The first manche's first player wins the match** (two manches and a belle) "
        f"**with probability {match['value']:.12f}**, proved in "
        f"{_outward(match['lower'], match['upper'], START_DECIMALS)} (rounded outward to "
        f"{START_DECIMALS} decimals).", "",
        f"Every one of the {len(report['states'])} states ({len(played)} played, "
        f"{len(report['states']) - len(played)} decided) is proved likewise, every interval "
        f"narrower than {width_bound(report['max_width'])}; every manche ends with "
        f"probability 1 whatever either player does (proved). Reproduce with `bidou "
        f"manche{_options(params)} --json` (this page's manche.json) or `--out DIR` (the "
        f"chart); docs/manche.md says how it is solved and proved.", ""]


def monte_carlo_paragraph(report: Mapping[str, Any], monte_carlo: SimulatedManches) -> str:
    """One line, MONTE_CARLO_MARK first (the check finds it by that mark)."""
    z = monte_carlo.z(report["start_value"])
    return (f"{MONTE_CARLO_MARK} {monte_carlo.manches} manches simulated with the solved "
            f"strategies (seed {monte_carlo.seed}) by solver/manche/simulate.py, written "
            f"from the rules and sharing no code with the solver nor with the rules' code: "
            f"the first player won {monte_carlo.rate:.4f} +- "
            f"{monte_carlo.standard_error:.4f} (one standard error), {z:+.2f} standard "
            f"errors from the start value, in {monte_carlo.mean_hands:.2f} hands a manche "
            f"on average.")


def _grid(report: Mapping[str, Any], chips: int) -> list[str]:
    """The value of every state: a row per pool (largest first), a column per chips the
    next hand's first player has received; the second player has received the rest."""
    at = {(s["centre"], s["captain"]): s for s in report["states"]}
    lines = ["## Every state's value", "",
             "The next hand's first player's chance to win the manche, by the chips left in "
             "the pool (rows) and the chips he has received (columns; the second player "
             "has received the rest). *won*, *lost*, *even*: decided (a player has received "
             "more than half of the chips), whatever the hands left.", "",
             "| pool | " + " | ".join(f"first has {a}" for a in range(chips)) + " |",
             "|---|" + "---|" * chips]
    for pool in range(chips, 0, -1):
        cells = []
        for first in range(chips):
            s = at.get((pool, first))
            cells.append("" if s is None else _decided(s["value"]) if s["decided"]
                         else f"{s['value']:.6f}")
        lines.append(f"| {pool} | " + " | ".join(cells) + " |")
    return lines


def _states(report: Mapping[str, Any]) -> list[str]:
    """Every state with its proved interval, exploitability and max tie."""
    lines = ["", "## Every state", "",
             "Seen from the next hand's first player: his chance to win the manche, its "
             "proved interval (9 decimals, rounded outward), the most either seat's best "
             "reply over the whole manche gains against the solved strategies "
             "(exploitability, in win probability), and the most chance of a tie that "
             "either player can force in the state's hand (`max_tie`, the proof's "
             "contraction; it is measured against the stage strategies solved, so it "
             "depends on which equilibrium of a stage the LP found, and the check does "
             "not compare it).", "",
             "| pool | first player's chips | second player's chips | value | "
             "proved interval | exploitability | max tie |",
             "|---|---|---|---|---|---|---|"]
    for s in report["states"]:
        if s["decided"]:
            value, rest = _decided(s["value"]), "| decided | | |"
        else:
            value = f"{s['value']:.9f}"
            rest = (f"| {_outward(s['lower'], s['upper'], 9)} | "
                    f"< {width_bound(s['exploitability'])} | {s['max_tie']:.3f} |")
        lines.append(f"| {s['centre']} | {s['captain']} | {s['opponent']} | {value} {rest}")
    return lines


_MATCH_WORDS = {"winner": "the winner of a manche is first in the next",
                "loser": "the loser of a manche is first in the next",
                "die": "a die draws the first player of every manche"}


def _decided(value: float) -> str:
    return "*won*" if value == 1 else "*lost*" if value == 0 else "*even*"


def _outward(lower: str, upper: str, places: int) -> str:
    return (f"[{decimal(Fraction(lower), places, up=False)}, "
            f"{decimal(Fraction(upper), places, up=True)}]")


def _options(params: MancheParams) -> str:
    default = MancheParams().to_dict()
    return "".join(f" --{name.replace('_', '-')} {value}"
                   for name, value in params.to_dict().items()
                   if value != default[name] and value is not None)
