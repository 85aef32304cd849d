"""Every file of a solved hand: tables, strategy files, summaries and printable charts.

`export_all(source, out_dir)` writes, in `out_dir` (file names are stable):

========================================  ====================================================
``summary.md``, ``summary.json``           rules, value, exploitability, provenance, and the
                                           simplified strategy's rules and cost
``strategy.json``                          the strategy file (`strategy.strategy_to_json`)
``simplified_strategy.json``               the simplified strategy, same format
``reroll.csv``, ``.md``, ``.json``         throwing decisions, a row per (decision, hand)
``betting.csv``, ``.md``, ``.json``        betting decisions, a row per (decision, hand)
``reroll_chart.<fmt>``                     when to stop / what to keep (not with throws=1)
``betting_chart_c<tc>_o<to>.<fmt>``        the betting of one public state (tc, to)
``remember_chart.<fmt>``                   the simplified strategy on one page
``betting_charts.pdf``                     the betting pages as one booklet with an index
                                           page (when PDF is among the formats)
========================================  ====================================================

`<fmt>` is each of ``formats`` (default pdf, png, svg). `export_charts` writes the charts
alone. `source` is a `solve.Solution`, or a tuple ``(model, strategy)`` or
``(model, strategy, summary)``, whose exploitability and certified interval are measured
afresh (`unpack`). `exact`, exact rational probabilities of the strategy
(`solver.hand.exact_solution.recover`), proves the value itself and is saved in ``strategy.json``.
Every file is written atomically, and the same strategy writes the same bytes: measured
numbers are rounded (`numbers.stable`), run times left out, figures carry no dates.
`progress(what, done, total)`, if given, hears of every step. matplotlib is imported only
to draw (`charts`), so measuring a source (`unpack`, `measure`) or checking the files without
their charts does not load it.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from solver.cheatsheet import simplify
from solver.common.files import publish, staging_folder, write_json_atomic, write_text_atomic
from solver.common.progress import Step, quiet, scaled
from solver.common.types import Exact
from solver.export import numbers, tables
from solver.export.chart_files import (
    BOOKLET,
    FORMATS,
    chart_stems,
    game_title,
    old_charts,
    one_chip_betting,
)
from solver.hand.evaluate import Evaluation, evaluate
from solver.hand.exact.certificate import Certificate
from solver.hand.model import HandModel
from solver.hand.strategy import (
    MAX_FILE_BYTES,
    Strategy,
    StrategyFileError,
    exact_to_json,
    strategy_to_json,
)

__all__ = ["export_all", "export_charts", "unpack", "summary_markdown", "docs_images", "FORMATS"]

# What a summary says of its strategy's quality: recomputed, never trusted, when the
# summary comes from outside (a strategy file) rather than from the solver that made it.
MEASURED = ("on_policy_value", "exploitability", "nash_conv", "captain_exploitability",
            "opponent_exploitability")
# What only the file can say (how it was solved): kept as its claim, never as a finding.
CLAIMS = ("method", "status", "message", "iterations", "converged", "seconds", "versions")
FROM_FILE = "strategy file"        # summary["source"] when the summary is a file's claims


def unpack(source: Any, exact: Exact | None = None
           ) -> tuple[HandModel, Strategy, dict[str, Any]]:
    """(model, strategy, summary) from a Solution, or from (model, strategy[, summary]);
    see `measure`."""
    model, strategy, summary, _ = measure(source, exact)
    return model, strategy, summary


def measure(source: Any, exact: Exact | None = None
            ) -> tuple[HandModel, Strategy, dict[str, Any], Evaluation]:
    """(model, strategy, summary, evaluation) from a Solution, or from (model, strategy[,
    summary]): the one place where the export layer's inputs are measured.

    A Solution carries its exploitability and certificate (they are reused; only the
    players' own reach is computed, once).
    For a tuple (a strategy file, say) the exploitability and the certified interval are
    measured afresh from the strategy, and a recorded value they contradict is refused
    (StrategyFileError): a hand-edited number is never printed as if it were right. Of the
    rest only how it was solved (CLAIMS) is kept, marked ``source: "strategy file"`` so that
    it is shown as the file's claim; the rules are the model's.
    `exact` (exact probabilities of the same strategy) narrows the certified interval to
    what they prove: the value itself when they are an exact equilibrium.
    """
    if hasattr(source, "model") and hasattr(source, "strategy"):
        model, strategy = source.model, source.strategy
        evaluation = evaluate(model, strategy, source.exploitability, source.certificate)
        return (model, strategy, _with_exact(model, strategy, dict(source.summary()), exact),
                evaluation)
    items = tuple(source)
    if len(items) not in (2, 3):
        raise TypeError("export needs a Solution or (model, strategy[, summary])")
    model, strategy = items[0], items[1]
    summary = dict(items[2] or {}) if len(items) == 3 else {}
    claimed = summary.get("value")
    if claimed is not None and (isinstance(claimed, bool) or not isinstance(claimed, (int, float))
                                or not math.isfinite(claimed)):
        raise StrategyFileError(f"the value recorded with this strategy ({claimed!r:.40}) is "
                                f"not a number")
    evaluation = evaluate(model, strategy)
    e = evaluation.exploitability
    if claimed is not None and not abs(float(claimed) - e.value) <= e.nash_conv + 1e-9:
        raise StrategyFileError(
            f"the value recorded with this strategy ({claimed!r}) is not its value "
            f"({e.value:.12g}, exploitability {e.exploitability:.3g}): was it edited?")
    summary = {key: value for key, value in summary.items()    # the rest is re-derived
               if key in CLAIMS and _plain_claim(value)}
    summary["rules"] = model.game_rules        # the rules measured, not a copy's claim
    summary["source"] = FROM_FILE
    measured = e.to_dict()
    summary.update({key: measured[key] for key in MEASURED})
    summary["value"] = e.value if claimed is None else float(claimed)
    summary["certified_value"] = evaluation.certificate.to_dict()
    return model, strategy, _with_exact(model, strategy, summary, exact), evaluation


def _with_exact(model: HandModel, strategy: Strategy, summary: dict[str, Any],
                exact: Exact | None) -> dict[str, Any]:
    """The summary with its certified interval narrowed by what `exact` proves."""
    if exact is None:
        return summary
    from solver.hand.exact.certificate import prove_fractions

    proof = prove_fractions(model, strategy, exact)
    known = summary.get("certified_value")
    if known:
        known = Certificate.from_dict(known)
        lower, upper = max(known.lower, proof.lower), min(known.upper, proof.upper)
        if lower > upper:          # two proofs cannot disagree: the file is inconsistent
            raise StrategyFileError("the exact probabilities prove a value outside the "
                                    "interval the strategy proves: was the file edited?")
        proof = Certificate(lower, upper)
    summary["certified_value"] = proof.to_dict()
    return summary


def _plain_claim(value: Any) -> bool:
    """A recorded provenance field worth repeating: a short word or number, or a flat map."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_claim(v) and not isinstance(v, dict)
                   for k, v in value.items())
    if isinstance(value, str):
        return len(value) <= 200 and value.isprintable()
    return value is None or isinstance(value, (bool, int, float))


def summary_markdown(model: HandModel, summary: Mapping[str, Any],
                     simplified: simplify.Simplified | None = None,
                     files: Sequence[str] = ()) -> str:
    """The page a reader opens first: rules, numbers, simplified rules, list of files."""
    lines = [f"# {game_title(model)}: solved hand", ""] + tables.summary_lines(model, summary)
    e = summary
    lines += ["", "## Numbers (chips per hand, to the captain)", "",
              "| quantity | value |", "|---|---|"]
    for key, label in (("value", "game value"), ("on_policy_value", "value of the strategy pair"),
                       ("exploitability", "exploitability (NashConv / 2)"),
                       ("captain_exploitability", "what a best response wins vs the captain"),
                       ("opponent_exploitability", "what a best response wins vs the opponent")):
        if e.get(key) is not None:
            lines.append(f"| {label} | {numbers.measured(e[key])} |")
    if e.get("certified_value"):
        proof = Certificate.from_dict(e["certified_value"])
        if proof.exact is not None:
            lines.append(f"| value proved in exact arithmetic | {proof.exact} |")
        else:
            lower, upper = proof.decimals(18)
            lines.append(f"| value proved in exact arithmetic to lie in | [{lower}, {upper}] |")
    claim = " (the strategy file's claim)" if e.get("source") == FROM_FILE else ""
    for key in ("method", "status", "iterations"):
        if e.get(key) is not None:
            lines.append(f"| {key}{claim} | {e[key]} |")
    if simplified is not None:
        s = simplified
        lines += ["", "## Simplified strategy (remember_chart)", "",
                  "Every decision rounded to its most likely action; stopping by a threshold "
                  "per throw (see docs/charts.md).", "",
                  f"- Exploitability: {s.exploitability.exploitability:.6f} chips per hand",
                  f"- Against the simplified captain a best-responding opponent wins "
                  f"{s.captain_loss:.6f} more than the game value",
                  f"- Against the simplified opponent a best-responding captain wins "
                  f"{s.opponent_loss:.6f} more than the game value",
                  f"- Rounding alone, without thresholds: exploitability "
                  f"{s.rounded_exploitability:.6f}", ""]
        lines += [f"- {line}" for line in s.describe()]
    if not one_chip_betting(model):
        lines += ["", "Le Bidou's betting is in the tables (betting.csv, .md, .json: each "
                  "decision named by its stakes, \"stake 3, raise to 5\"); it has no betting "
                  "charts, booklet or simplified strategy: a decision has up to ten actions "
                  "and a public state up to 512 decisions (docs/le-bidou.md). Its stakes cheat "
                  "sheet (\"propose 9 with X or better\", withdraw, call and raise "
                  "thresholds per stake) is made from it by `bidou outputs` for the "
                  "published hand: outputs/le-bidou/cheatsheet.md."]
    if files:
        lines += ["", "## Files", ""] + [f"- `{name}`" for name in files]
    return "\n".join(lines) + "\n"


def export_charts(source: Any, out_dir: str | os.PathLike,
                  formats: Sequence[str] = FORMATS, dpi: float | None = None,
                  simplified: simplify.Simplified | None = None,
                  progress: Step | None = None, exact: Exact | None = None) -> list[Path]:
    """Write every chart (reroll, betting per public state, remember) in every format."""
    from solver.export import charts

    model, strategy, summary = unpack(source, exact)
    with staging_folder(out_dir) as stage:
        names = [p.name for p in charts.write_charts(
            model, strategy, stage, numbers.stable_document(summary), formats, dpi,
            simplified, progress=progress)]
        publish(stage, out_dir, names, old_charts(out_dir, formats))
    return [Path(out_dir) / name for name in names]


def export_all(source: Any, out_dir: str | os.PathLike,
               formats: Sequence[str] = FORMATS, dpi: float | None = None,
               progress: Step | None = None, exact: Exact | None = None,
               draw_charts: bool = True, parquet: bool = False,
               reached_only: bool = False) -> list[Path]:
    """Write every table, the strategy files, the summaries and every chart; returns paths.
    With `parquet`, the tables as Parquet too (`solver.export.parquet`); with
    `reached_only`, the betting table's rows that their player reaches only
    (`tables.write_tables`).

    The set is rendered in a hidden folder inside `out_dir`, then moved in (renames, so the
    folder is mixed for milliseconds at most, and not at all if the rendering fails or is
    interrupted); files a previous export listed in its summary.json and this one does not
    (charts of a bigger game, say) are deleted. Other files in `out_dir` are left alone.
    With `draw_charts=False` the charts are neither drawn nor returned, but the summaries
    list them as usual (`bidou outputs --check` compares the rest that way, quickly).
    """
    step = progress or quiet
    model, strategy, summary, evaluation = measure(source, exact)
    summary = numbers.stable_document(summary)
    stems = chart_stems(model)
    total = 3 + len(stems)
    step("simplifying the strategy", 1, total)
    simplified = (simplify.simplify(model, strategy, summary.get("value"),
                                    evaluation=evaluation)
                  if one_chip_betting(model) else None)     # Le Bidou: no simplified play
    simple = numbers.stable_document(simplified.to_dict()) if simplified else None
    with staging_folder(out_dir) as stage:
        step("writing the strategy files and tables", 2, total)
        paths: list[Path] = []
        document = strategy_to_json(model, strategy, summary)
        if exact is not None and Certificate.from_dict(
                summary["certified_value"]).exact is not None:
            document = exact_to_json(document, model, strategy, exact)
        write_json_atomic(stage / "strategy.json", document)
        paths.append(stage / "strategy.json")
        if simplified is not None:
            write_json_atomic(stage / "simplified_strategy.json",
                              strategy_to_json(model, simplified.strategy, simple))
            paths.append(stage / "simplified_strategy.json")
        paths += tables.write_tables(model, strategy, stage, summary, evaluation.reach,
                                     reached_only)
        if parquet:
            from solver.export.parquet import write_parquet_tables

            paths += write_parquet_tables(model, strategy, stage, evaluation.reach)
        chart_names = ([f"{stem}.{fmt}" for stem in stems for fmt in formats]
                       + ([BOOKLET] if "pdf" in formats and one_chip_betting(model) else []))
        if draw_charts:
            from solver.export import charts

            paths += charts.write_charts(
                model, strategy, stage, summary, formats, dpi, simplified,
                progress=scaled(step, 2, total), reach=evaluation.reach)
        step("writing the summary", total, total)
        written = [p.name for p in paths]
        names = ["summary.md", "summary.json"] + written + ([] if draw_charts else chart_names)
        simple_part = {"simplified": simple} if simple is not None else {}
        write_json_atomic(stage / "summary.json", {**summary, **simple_part, "files": names})
        write_text_atomic(stage / "summary.md",
                          summary_markdown(model, summary, simplified, names))
        stale = [name for name in _listed_files(out_dir) + old_charts(out_dir, FORMATS)
                 if name not in names]
        publish(stage, out_dir, written + ["summary.md", "summary.json"], stale)  # manifest last
    out = Path(out_dir)
    return [out / "summary.md", out / "summary.json"] + [out / name for name in written]


def _listed_files(out_dir: str | os.PathLike) -> list[str]:
    """The files the previous export listed in its summary.json (its manifest)."""
    try:
        with open(Path(out_dir) / "summary.json", "rb") as handle:
            files = json.loads(handle.read(MAX_FILE_BYTES)).get("files")
    except (OSError, ValueError, RecursionError, AttributeError):
        return []
    return [name for name in files if isinstance(name, str)] if isinstance(files, list) else []


DOCS_IMAGES = ("reroll_chart", "betting_chart_c1_o1", "betting_chart_c3_o1", "remember_chart",
               "reroll_chart_keep", "betting_values_c3_o1_captain")


def docs_images(out_dir: str | os.PathLike = "docs/img", dpi: float = 150,
                outputs: str | os.PathLike = "outputs") -> list[Path]:
    """The small PNGs docs/charts.md shows, for the default game (and its reroll=keep round),
    drawn from the published strategies (`outputs/default`, `outputs/keep`: the refined
    equilibria, with their exact probabilities), so the docs show what the charts print.

    Rendered like every chart, then reduced to a 64-colour palette to keep the repository
    small. The remember chart is denser and gets a little more resolution.
    """
    import io

    from PIL import Image

    from games.bidou.betting import CAPTAIN
    from solver.analysis.action_values import action_values
    from solver.common.files import write_bytes_atomic
    from solver.export import charts
    from solver.hand.strategy import load_exact, load_strategy_file

    def published(name: str) -> tuple[HandModel, Strategy, dict[str, Any]]:
        path = Path(outputs) / name / "strategy.json"
        source = load_strategy_file(path)
        return unpack(source, load_exact(path, source[0], source[1]))

    out = Path(out_dir)
    model, strategy, summary = published("default")
    keep = published("keep")
    figures = {
        "reroll_chart": (charts.reroll_figure, (model, strategy, summary), dpi),
        "betting_chart_c1_o1": (charts.betting_figure, (model, strategy, (1, 1), summary), dpi),
        "betting_chart_c3_o1": (charts.betting_figure, (model, strategy, (3, 1), summary), dpi),
        "remember_chart": (charts.remember_figure,
                           (simplify.simplify(model, strategy, summary["value"]), summary),
                           dpi * 1.15),
        "reroll_chart_keep": (charts.reroll_figure, keep, dpi),
        "betting_values_c3_o1_captain": (
            charts.betting_figure, (model, strategy, (3, 1), summary, None,
                                    action_values(model, strategy), CAPTAIN), dpi),
    }
    paths = []
    for name in DOCS_IMAGES:
        builder, args, resolution = figures[name]
        png = charts.figure_bytes(charts.make_figure(builder, *args), "png", resolution)
        image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=64,
                                                                dither=Image.Dither.NONE)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=True)
        write_bytes_atomic(out / f"{name}.png", buffer.getvalue())
        paths.append(out / f"{name}.png")
    return paths
