"""The passages of docs/charts.md that describe the published solution, generated from it.

A description written by hand drifts from the solution it describes (the doc once said the
captain slow-plays triples while the chart showed him betting them). So the passages that
state what the solution does, and what the simplified strategy costs, are written from the
files in `outputs/default/` and kept between markers in the doc:

    <!-- generated: NAME (bidou outputs) -->
    ...
    <!-- end generated -->

`bidou outputs` rewrites them, `bidou outputs --check` reports them when stale, and a test
checks that the doc matches the outputs it ships with.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

from solver.export.numbers import percent
from solver.export.tables import read_csv

_MARKED = re.compile(
    r"(<!-- generated: (\w+) \(bidou outputs\) -->\n)(.*?)(<!-- end generated -->)", re.S)


def charts_doc_path() -> Path:
    return Path(__file__).resolve().parents[2] / "docs" / "charts.md"


def passages(outputs: str | Path) -> dict[str, str]:
    """Every generated passage, from the default game's files under `outputs`."""
    from games.bidou.params import ParameterError
    from solver import schemas

    folder = Path(outputs) / "default"
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    try:                                     # solver/schemas/summary.schema.json
        schemas.validate(summary, "summary")
    except schemas.SchemaViolation as error:
        raise ParameterError(f"{folder / 'summary.json'}: {error}") from None
    rows = read_csv(folder / "betting.csv")
    return {"reading": reading(rows), "costs": costs(summary)}


def update(text: str, generated: Mapping[str, str]) -> str:
    """The doc with each marked passage replaced by its generated text."""
    def replace(match: re.Match) -> str:
        name = match.group(2)
        if name not in generated:
            return match.group(0)
        return f"{match.group(1)}{generated[name].rstrip()}\n{match.group(4)}"
    return _MARKED.sub(replace, text)


def update_charts_doc(outputs: str | Path, path: str | Path | None = None,
                      write: bool = True) -> bool:
    """Rewrite (or with `write=False` only compare) the generated passages of
    docs/charts.md; True if the doc was current."""
    from solver.common.files import write_text_atomic

    path = Path(path or charts_doc_path())
    text = path.read_text(encoding="utf-8")
    new = update(text, passages(outputs))
    if new != text and write:
        write_text_atomic(path, new)
    return new == text


# --- the passages ---------------------------------------------------------------------------

def costs(summary: Mapping) -> str:
    s = summary["simplified"]
    value = summary["value"]
    return (
        f"**What it costs** (default game, printed on the chart and in `summary.md`): "
        f"measured exactly with `best_response.exploitability`, both players simplified, "
        f"the exploitability is **{s['exploitability']:.3f} chips per hand**: a "
        f"best-responding opponent wins {s['captain_loss']:.3f} chips per hand more than the "
        f"game value against the simplified captain, a best-responding captain "
        f"{s['opponent_loss']:.3f} more against the simplified opponent (the exploitability "
        f"is their mean). For comparison the value of the hand is {value:+.3f} to the "
        f"captain, so the simplified strategy is a fair way to play against an ordinary "
        f"opponent but a poor one against an expert who knows it. Rounding alone, without "
        f"the threshold rule, costs {s['rounded_exploitability']:.3f}. These numbers depend "
        f"on which equilibrium the solver returns (the game has many optimal strategies, "
        f"which round differently); `summary.md` always carries the current ones.")


def _is_triple(row: Mapping[str, str]) -> bool:
    return row["name"].startswith("three ")


def _runs(rows: Sequence[Mapping[str, str]], ranked: Sequence[Mapping[str, str]]) -> str:
    """Hands in words, strongest first: consecutive hands of the ranking merged ("6-6-5 to
    6-5-3"), all the triples as "the triples"."""
    chosen = {row["hand"] for row in rows}
    parts: list[str] = []
    run: list[Mapping[str, str]] = []
    triples = [row for row in ranked if _is_triple(row)]

    def flush() -> None:
        if not run:
            return
        if triples and {r["hand"] for r in triples} <= {r["hand"] for r in run}:
            before = [r for r in run if r["rank"] < triples[0]["rank"]]
            after = [r for r in run if int(r["rank"]) > int(triples[-1]["rank"])]
            for piece in (before, None, after):
                if piece is None:
                    parts.append("the triples")
                elif piece:
                    parts.append(_span(piece))
        else:
            parts.append(_span(run))
        run.clear()

    for row in ranked:
        if row["hand"] in chosen:
            run.append(row)
        elif row["reached"] != "0":        # a reached hand played otherwise breaks the run
            flush()
    flush()
    if len(parts) > 1:
        return ", ".join(parts[:-1]) + " and " + parts[-1]
    return parts[0] if parts else ""


def _span(run: Sequence[Mapping[str, str]]) -> str:
    if len(run) == 1:
        return run[0]["hand"]
    return f"{run[0]['hand']} to {run[-1]['hand']}"


_VERB = {"bet": "bets", "pass": "passes", "call": "calls", "fold": "folds",
         "raise": "raises"}


def _decision(rows: Sequence[Mapping[str, str]], who: str, where: str) -> str:
    """One sentence: what `who` does at one decision, with each hand he can hold there."""
    reached = [r for r in rows if r["reached"] != "0"]
    pure: dict[str, list] = {}
    mixed = []
    for row in reached:
        if row["play"] in _VERB:
            pure.setdefault(row["play"], []).append(row)
        else:
            mixed.append(row)
    clauses = [f"{_VERB[action]} with {_runs(group, reached)}"
               for action, group in sorted(pure.items(), key=lambda kv: kv[1][0]["rank"])]
    if mixed:
        clauses.append("mixes with " + ", ".join(
            f"{r['hand']} ({_mix(r)})" for r in mixed))
    return f"{where} the {who} " + "; ".join(clauses) + "."


def _mix(row: Mapping[str, str]) -> str:
    shares = [(a, float(row[a])) for a in ("pass", "bet", "fold", "call", "raise")
              if row.get(a) not in (None, "") and float(row[a]) > 5e-4]
    shares.sort(key=lambda item: -round(item[1], 9))
    return " ".join(f"{a} {percent(p)}%" for a, p in shares)


def reading(rows: Sequence[dict[str, Any]]) -> str:
    """What the default solution does on the first betting page (one throw each)."""
    for row in rows:
        row["rank"] = int(row["rank"]) if isinstance(row["rank"], str) else row["rank"]
    page = [r for r in rows if r["captain_throws"] == "1" and r["opponent_throws"] == "1"]

    def at(history: str) -> list:
        return sorted((r for r in page if r["history"] == history), key=lambda r: r["rank"])

    opening = at("")
    unreached = [r for r in opening if r["reached"] == "0"]
    if unreached and opening[-len(unreached):] == unreached:
        faded = (f"the captain's hands from {unreached[0]['hand']} down are thin bands "
                 "(never reached)")
    else:
        faded = (f"{len(unreached)} of the captain's {len(opening)} hands are thin bands "
                 "(never reached)")
    sentences = [
        "Reading it (the solution pictured, as `outputs/default/betting.csv` lists it; the "
        "game has many optimal strategies and another solver may return a different one): "
        f"on the first page (one throw each, the captain bets first) {faded}: a captain "
        "who stopped after one throw holds a strong hand. Among the hands each player can "
        "hold there:",
        _decision(at(""), "captain", "Opening,"),
        _decision(at("p"), "opponent", "After a pass,"),
        _decision(at("b"), "opponent", "Facing a bet,"),
        "The cells split into bars are the mixed bets, calls and raises that keep the other "
        "player guessing.",
    ]
    return "\n".join(sentences)
