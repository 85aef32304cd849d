"""Timings in the docs come from the generated record (docs/data/benchmarks.json), never typed
by hand: every generated passage of README.md and docs/ is what the record renders, README.md
and docs/*.md state no other timing (but the few durations that are settings, contracts or
quotations, listed in KEPT), and recording rewrites the passages that quote a benchmark."""

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

# The durations docs/*.md may state outside the generated passages, page by page, each the
# exact phrase (line breaks read as one space). None is a measurement of this machine.
KEPT = {
    "charts.md": (
        "with the 60 s MILP",                   # `--milp-seconds`'s default: a setting
        "for 10 s of HiGHS's time",             # `--milp-seconds 10`: a setting
        "time limit reached after 61 s",        # the published sheets' own words, quoted
    ),
    "le-bidou.md": (
        "`time limit 60 s`",                    # a status the sweep writes, for its setting
        "the cells that 60 s did not finish",   # `--time-limit 60`: a setting
    ),
    "multi.md": (
        "the benchmark's 30 s budget",          # `bench_multi.py --seconds 30`: a setting
    ),
    "reliability.md": (
        # What a hostile input did before it was handled: the fault, as it was observed.
        "grew to 13.5 GB in 15 s",
        "past 300 s and 443 MB",
        "5 GB and 87 s; 23.3 GB in 300 s",
        "unfinished at 300 s",
        "over 60 s expanding the grid",
        "(52 s before for the test's lists)",
        # The bounds a test or the code sets, and messages the program prints.
        "(each under 10 ms)",                   # the test's bound on each parse
        "(subprocess, 60 s timeout)",           # the test's timeout
        "(subprocess, 120 s timeout)",          # the test's timeout
        "Dask's 10 s timeout",                  # Dask's setting
        "`HANDSHAKE_SECONDS` (10 s)",           # the sweep's deadline, a setting
        "did not answer in 10 s",               # the error line, quoted
        "monkeypatched to 1 s",                 # the test's deadline
        "(about 60 s on 2 workers)",            # the estimate the sweep prints, quoted
    ),
    "rules.md": (
        "two 3s",                               # two dice showing 3, not seconds
    ),
}


def outside_generated(text: str) -> str:
    return re.sub(r"<!-- generated: .*?<!-- end generated -->", "", text, flags=re.S)


def typed_timings(text: str, kept: tuple[str, ...] = ()) -> list[str]:
    """The timings `text` states outside its generated passages and its `kept` phrases."""
    text = " ".join(outside_generated(text).split())
    for phrase in kept:
        text = text.replace(phrase, "")
    return [m.group(0) for m in TIMING.finditer(text)]


def test_every_timings_passage_is_the_record_rendered():
    assert timings.stale(ROOT) == []


def test_the_readme_quotes_the_record_for_commands_and_the_suite():
    """The commands' record must be there; the suite's is recorded only by a passing suite
    (bench_suite.py), so this test cannot demand it without failing the run that makes it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    record = timings.read_record()
    assert "commands" in record["benchmarks"], "run bench_commands.py with --record"
    for name in ("commands", "suite"):
        assert f"<!-- generated: timings {name} (benchmarks) -->" in readme
        if name not in record["benchmarks"]:
            continue
        entry = record["benchmarks"][name]
        assert entry["rows"] and all(row["median_s"] > 0 for row in entry["rows"])
        assert entry["machine"]["cores"] >= 1 and len(entry["load"]) == 3


def test_the_readme_types_no_timing_outside_the_generated_passages():
    found = typed_timings((ROOT / "README.md").read_text(encoding="utf-8"), SETTINGS)
    assert not found, f"timings typed by hand in README.md (record them instead): {found}"


@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "docs").glob("*.md")))
def test_no_doc_types_a_timing_outside_the_generated_passages(page):
    found = typed_timings((ROOT / "docs" / page).read_text(encoding="utf-8"),
                          KEPT.get(page, ()))
    assert not found, (f"timings typed by hand in docs/{page}: {found}; point at the README's "
                       "'How long things take', or record the benchmark (solver/app/timings.py)")


def test_every_kept_phrase_is_on_its_page():
    """A phrase left in KEPT after its page lost it would let the same number back in."""
    for page, phrases in KEPT.items():
        text = " ".join((ROOT / "docs" / page).read_text(encoding="utf-8").split())
        assert [phrase for phrase in phrases if phrase not in text] == [], page


def test_a_typed_timing_is_found_and_a_kept_one_is_not():
    page = ("It takes about 12 s, 3 min or 1.5 hours.\n"
            "<!-- generated: timings probe (benchmarks) -->\n| `x` | 4.00 |\n"
            "<!-- end generated -->\nThe MILP has a time\nlimit of 60 s.\n")
    assert typed_timings(page) == ["12 s", "3 min", "1.5 hours", "60 s"]
    assert typed_timings(page, ("a time limit of 60 s",)) == ["12 s", "3 min", "1.5 hours"]


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
