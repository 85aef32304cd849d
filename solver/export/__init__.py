"""Tables and printable charts of a solved hand.

`export_all(source, out_dir)` writes, in `out_dir` (file names are stable):

========================================  ====================================================
``summary.md``, ``summary.json``           rules, value, exploitability, provenance, and the
                                           simplified strategy's rules and cost
``strategy.json``                          the strategy file (`strategy.strategy_to_json`)
``simplified_strategy.json``               the simplified strategy, same format
``reroll.csv``, ``reroll.md``              throwing decisions, a row per (decision, hand)
``betting.csv``, ``betting.md``            betting decisions, a row per (decision, hand)
``reroll_chart.<fmt>``                     when to stop / what to keep (not with throws=1)
``betting_chart_c<tc>_o<to>.<fmt>``        the betting of one public state (tc, to)
``remember_chart.<fmt>``                   the simplified strategy on one page
``betting_charts.pdf``                     the betting pages as one booklet with an index
                                           page (when PDF is among the formats)
========================================  ====================================================

`<fmt>` is each of ``formats`` (default pdf, png, svg). `export_charts` writes the charts
alone. `source` is a `solve.Solution`, or a tuple ``(model, strategy)`` or
``(model, strategy, summary)``, whose exploitability and certified interval are measured
afresh (`unpack`). Every file is written atomically; the same inputs write the same bytes,
except the solver's own provenance (``seconds``, ``versions``) inside the JSON and summary.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from solver import best_response
from solver.analysis import simplify
from solver.certificate import Certificate, certify
from solver.export import charts, tables
from solver.files import write_json_atomic, write_text_atomic
from solver.model import HandModel
from solver.strategy import Strategy, StrategyFileError, strategy_to_json

__all__ = ["export_all", "export_charts", "unpack", "summary_markdown", "docs_images", "FORMATS"]

FORMATS = charts.FORMATS


# What a summary says of its strategy's quality: recomputed, never trusted, when the
# summary comes from outside (a strategy file) rather than from the solver that made it.
MEASURED = ("on_policy_value", "exploitability", "nash_conv", "captain_exploitability",
            "opponent_exploitability")


def unpack(source: Any) -> tuple[HandModel, Strategy, dict[str, Any]]:
    """(model, strategy, summary) from a Solution, or from (model, strategy[, summary]).

    For a tuple (a strategy file, say) the exploitability and the certified interval are
    measured afresh from the strategy, and a recorded value they contradict is refused
    (StrategyFileError): a hand-edited number is never printed as if it were right.
    """
    if hasattr(source, "model") and hasattr(source, "strategy"):
        model, strategy = source.model, source.strategy
        return model, strategy, dict(source.summary())
    items = tuple(source)
    if len(items) not in (2, 3):
        raise TypeError("export needs a Solution or (model, strategy[, summary])")
    model, strategy = items[0], items[1]
    summary = dict(items[2] or {}) if len(items) == 3 else {}
    e = best_response.exploitability(model, strategy)
    claimed = summary.get("value")
    if claimed is not None and not abs(float(claimed) - e.value) <= e.nash_conv + 1e-9:
        raise StrategyFileError(
            f"the value recorded with this strategy ({claimed!r}) is not its value "
            f"({e.value:.12g}, exploitability {e.exploitability:.3g}): was it edited?")
    summary.setdefault("rules", model.params.to_dict())
    measured = e.to_dict()
    summary.update({key: measured[key] for key in MEASURED})
    summary["value"] = e.value if claimed is None else float(claimed)
    summary["certified_value"] = certify(model, strategy).to_dict()
    return model, strategy, summary


def summary_markdown(model: HandModel, summary: Mapping[str, Any],
                     simplified: simplify.Simplified | None = None,
                     files: Sequence[str] = ()) -> str:
    """The page a reader opens first: rules, numbers, simplified rules, list of files."""
    lines = ["# Bidou: solved hand", ""] + tables.summary_lines(model, summary)
    e = summary
    lines += ["", "## Numbers (chips per hand, to the captain)", "",
              "| quantity | value |", "|---|---|"]
    for key, label in (("value", "game value"), ("on_policy_value", "value of the strategy pair"),
                       ("exploitability", "exploitability (NashConv / 2)"),
                       ("captain_exploitability", "what a best response wins vs the captain"),
                       ("opponent_exploitability", "what a best response wins vs the opponent")):
        if e.get(key) is not None:
            lines.append(f"| {label} | {e[key]:.12g} |")
    if e.get("certified_value"):
        proof = Certificate.from_dict(e["certified_value"])
        if proof.exact is not None:
            lines.append(f"| value proved in exact arithmetic | {proof.exact} |")
        else:
            lower, upper = proof.decimals(18)
            lines.append(f"| value proved in exact arithmetic to lie in | [{lower}, {upper}] |")
    for key in ("method", "status", "iterations"):
        if e.get(key) is not None:
            lines.append(f"| {key} | {e[key]} |")
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
    if files:
        lines += ["", "## Files", ""] + [f"- `{name}`" for name in files]
    return "\n".join(lines) + "\n"


def export_charts(source: Any, out_dir: str | os.PathLike,
                  formats: Sequence[str] = FORMATS, dpi: float | None = None,
                  simplified: simplify.Simplified | None = None) -> list[Path]:
    """Write every chart (reroll, betting per public state, remember) in every format."""
    model, strategy, summary = unpack(source)
    return charts.write_charts(model, strategy, out_dir, summary, formats, dpi, simplified)


def export_all(source: Any, out_dir: str | os.PathLike,
               formats: Sequence[str] = FORMATS, dpi: float | None = None) -> list[Path]:
    """Write every table, the strategy files, the summaries and every chart; returns paths."""
    model, strategy, summary = unpack(source)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    simplified = simplify.simplify(model, strategy, summary.get("value"))
    paths: list[Path] = []
    write_json_atomic(out / "strategy.json", strategy_to_json(model, strategy, summary))
    paths.append(out / "strategy.json")
    write_json_atomic(out / "simplified_strategy.json",
                      strategy_to_json(model, simplified.strategy, simplified.to_dict()))
    paths.append(out / "simplified_strategy.json")
    paths += tables.write_tables(model, strategy, out, summary)
    paths += charts.write_charts(model, strategy, out, summary, formats, dpi, simplified)
    names = ["summary.md", "summary.json"] + [p.name for p in paths]
    write_json_atomic(out / "summary.json", {**summary, "simplified": simplified.to_dict(),
                                             "files": names})
    write_text_atomic(out / "summary.md", summary_markdown(model, summary, simplified, names))
    return [out / "summary.md", out / "summary.json"] + paths


DOCS_IMAGES = ("reroll_chart", "betting_chart_c1_o1", "betting_chart_c3_o1", "remember_chart",
               "reroll_chart_keep")


def docs_images(out_dir: str | os.PathLike = "docs/img", dpi: float = 150) -> list[Path]:
    """The small PNGs docs/charts.md shows, for the default game (and its reroll=keep round).

    Rendered like every chart, then reduced to a 64-colour palette to keep the repository
    small. The remember chart is denser and gets a little more resolution.
    """
    import io

    from PIL import Image

    from games.bidou.params import BidouParams
    from solver.files import write_bytes_atomic
    from solver.solve import solve

    out = Path(out_dir)
    game = solve(BidouParams())
    keep = solve(BidouParams(reroll="keep"))
    model, strategy, summary = unpack(game)
    figures = {
        "reroll_chart": (charts.reroll_figure, (model, strategy, summary), dpi),
        "betting_chart_c1_o1": (charts.betting_figure, (model, strategy, (1, 1), summary), dpi),
        "betting_chart_c3_o1": (charts.betting_figure, (model, strategy, (3, 1), summary), dpi),
        "remember_chart": (charts.remember_figure,
                           (simplify.simplify(model, strategy, summary["value"]), summary),
                           dpi * 1.15),
        "reroll_chart_keep": (charts.reroll_figure, unpack(keep), dpi),
    }
    paths = []
    for name in DOCS_IMAGES:
        builder, args, resolution = figures[name]
        png = charts.figure_bytes(charts.make_figure(builder, *args), "png", resolution)
        image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=64, dither=0)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=True)
        write_bytes_atomic(out / f"{name}.png", buffer.getvalue())
        paths.append(out / f"{name}.png")
    return paths
