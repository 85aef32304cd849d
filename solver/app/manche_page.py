"""Le Bidou's manche published in outputs/le-bidou/, beside the hand's files: its page
(manche.md), the report `bidou manche --json` gives (manche.json) and the win-probability
chart (manche_win_probability.pdf, .png).

Decided as the rounds are (solver/app/round_outputs.py): `bidou outputs` solves and proves
the default manche again (about 13 minutes on 2 cores: docs/manche.md, "Measured") and
`bidou outputs --check` solves it again and compares. The page prints every number at a
precision a re-solve on another machine reproduces (the proved intervals rounded outward),
so it is compared at that precision (`round_outputs.same_at_printed_precision`), except the
Monte Carlo paragraph: its estimate is of the strategies solved, and another machine's LP
may land on another equilibrium of a stage (the same values, other play), so that paragraph
is compared by what it checks: the same number of manches and seed, and the estimate within
Z_LIMIT standard errors of the proved start value.
"""

from __future__ import annotations

import dataclasses
import json
import re
from fractions import Fraction
from typing import Any, Mapping

from games.le_bidou.manche import MancheParams
from solver.app.round_outputs import same_at_printed_precision
from solver.common.progress import Step
from solver.export.charts import figure_bytes
from solver.export.round_charts import width_bound
from solver.hand.exact.certificate import decimal
from solver.manche.simulate import Estimate

# The published manche: the default rules (9 chips, 6 faces, 3 throws, stakes up to the
# pool, half stake rounded up, the winner of a manche first in the next).
PUBLISHED = MancheParams()
# The Monte Carlo of the page: as many manches as docs/manche.md's measurements (a standard
# error of about 0.0035), its seed fixed so that the page is reproducible.
MONTE_CARLO_MANCHES = 20_000
MONTE_CARLO_SEED = 9
# The most standard errors between the estimate and the proved start value that the check
# accepts ("within 4 standard errors").
Z_LIMIT = 4.0
CHART_FORMATS = ("pdf", "png")
PAGE, REPORT, CHART = "manche.md", "manche.json", "manche_win_probability"
MONTE_CARLO_MARK = "**Monte Carlo.**"
# Printed with 12 decimals, rounded outward, as the rounds' start (round_outputs).
START_DECIMALS = 12


@dataclasses.dataclass(frozen=True)
class MonteCarlo(Estimate):
    """The independent simulation's result (solver/manche/simulate.py's `Estimate`: how
    often the first player of the first hand won over `manches` manches), and the `seed`
    they were drawn from, which the page prints and the check compares."""

    seed: int = dataclasses.field(kw_only=True)

    def z(self, start_value: float) -> float:
        """Standard errors from the estimate to the start value (positive: above it)."""
        return (self.rate - start_value) / self.standard_error


@dataclasses.dataclass(frozen=True)
class MancheOutcome:
    """What the page is drawn from: the proved report (no timings) and the Monte Carlo."""

    report: dict[str, Any]
    monte_carlo: MonteCarlo


def solve_published(params: MancheParams = PUBLISHED, progress: Step | None = None,
                    manches: int = MONTE_CARLO_MANCHES, seed: int = MONTE_CARLO_SEED
                    ) -> MancheOutcome:
    """Solve and prove the manche (`solver.pipeline.manche.prove_manche`, untimed, so that
    a fresh solve writes the same report), then simulate it with the solved strategies."""
    from solver.manche.policy import SolvedPolicy, simulation_rules
    from solver.manche.simulate import estimate
    from solver.pipeline.manche import prove_manche

    proved = prove_manche(params, progress=progress, timed=False)
    if progress is not None:
        progress(f"simulating {manches} manches", 0, 1)
    found = estimate(simulation_rules(params), SolvedPolicy(proved.solution), manches, seed)
    return MancheOutcome(proved.report, MonteCarlo(found.manches, found.wins,
                                                   found.mean_hands, seed=seed))


def page_files(outcome: MancheOutcome) -> dict[str, bytes]:
    """Every file of the manche's page, by name, as bytes."""
    from solver.export.manche_chart import win_probability_figure

    report = outcome.report
    files = {REPORT: (json.dumps(report, indent=1) + "\n").encode(),
             PAGE: page_markdown(report, outcome.monte_carlo).encode()}
    figure = win_probability_figure(report)
    for fmt in CHART_FORMATS:
        files[f"{CHART}.{fmt}"] = figure_bytes(figure, fmt)
    return files


def page_markdown(report: Mapping[str, Any], monte_carlo: MonteCarlo) -> str:
    """The page: the start and the match with their proved intervals, the Monte Carlo, the
    chart, every state's value as a grid over the pool and the chips received, and every
    state with its proved interval."""
    params = MancheParams.from_mapping(report["rules"])
    match = report["match"]
    played = [s for s in report["states"] if not s["decided"]]
    lines = [
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
        f"chart); docs/manche.md says how it is solved and proved.", "",
        monte_carlo_paragraph(report, monte_carlo), "",
        "Every number here is printed at a precision a re-solve reproduces on any machine "
        "(the intervals rounded outward stay proved); `bidou outputs --check` solves the "
        "manche again and compares it at that precision, the Monte Carlo by its agreement.",
        "",
        f"![win probability]({CHART}.png)", ""]
    lines += _grid(report, params.chips)
    lines += ["", "## Every state", "",
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
    return "\n".join(lines) + "\n"


def monte_carlo_paragraph(report: Mapping[str, Any], monte_carlo: MonteCarlo) -> str:
    """One line, MONTE_CARLO_MARK first (`same_page` finds it by that mark)."""
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


_MONTE_CARLO = re.compile(r"^\*\*Monte Carlo\.\*\* ([0-9]+) manches .*\(seed ([0-9]+)\).* "
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
