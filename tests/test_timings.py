"""Timings in the docs come from the generated record (docs/data/benchmarks.json), never typed
by hand: every generated passage of README.md and docs/ is what the record renders, README.md
states no other timing, and recording rewrites the passages that quote a benchmark."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from solver.app import timings

ROOT = Path(__file__).resolve().parents[1]

# A number of seconds, minutes or hours in running text.
TIMING = re.compile(r"\b\d+(?:[.,]\d+)?\s?(?:ms|s|sec|seconds?|min|minutes?|h|hours?)\b")
# Durations that are settings, not measurements.
SETTINGS = ("default 60 s a cell",)


def outside_generated(text: str) -> str:
    return re.sub(r"<!-- generated: .*?<!-- end generated -->", "", text, flags=re.S)


def test_every_timings_passage_is_the_record_rendered():
    assert timings.stale(ROOT) == []


def test_the_readme_quotes_the_record_for_commands_and_the_suite():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    record = timings.read_record()
    for name in ("commands", "suite"):
        assert f"<!-- generated: timings {name} (benchmarks) -->" in readme
        assert name in record["benchmarks"], f"run the {name} benchmark with --record"
        entry = record["benchmarks"][name]
        assert entry["rows"] and all(row["median_s"] > 0 for row in entry["rows"])
        assert entry["machine"]["cores"] >= 1 and len(entry["load"]) == 3


def test_the_readme_types_no_timing_outside_the_generated_passages():
    text = outside_generated((ROOT / "README.md").read_text(encoding="utf-8"))
    for setting in SETTINGS:
        text = text.replace(setting, "")
    found = [m.group(0) for m in TIMING.finditer(text)]
    assert not found, f"timings typed by hand in README.md (record them instead): {found}"


def test_recording_rewrites_the_passages_that_quote_it(tmp_path):
    (tmp_path / "docs").mkdir()
    page = ("before\n<!-- generated: timings probe (benchmarks) -->\nstale\n"
            "<!-- end generated -->\nafter\n")
    (tmp_path / "README.md").write_text(page, encoding="utf-8")
    assert timings.stale(tmp_path) == [str(tmp_path / "README.md")]
    timings.record("probe", "python probe.py", [{"what": "bidou solve", "median_s": 1.234}],
                   (1.5, 1.25, 1.0), root=tmp_path)
    written = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "stale" not in written and written.startswith("before\n")
    assert "| `bidou solve` | 1.23 |" in written and "load average 1.50, 1.25, 1.00" in written
    data = json.loads((tmp_path / "docs" / "data" / "benchmarks.json").read_text())
    assert data["schema"] == timings.SCHEMA
    assert data["benchmarks"]["probe"]["rows"][0]["median_s"] == 1.234
    assert timings.stale(tmp_path) == []


def test_a_record_of_another_schema_is_refused(tmp_path):
    path = tmp_path / "benchmarks.json"
    path.write_text(json.dumps({"schema": 99, "benchmarks": {}}), encoding="utf-8")
    with pytest.raises(ValueError, match="schema"):
        timings.read_record(path)
