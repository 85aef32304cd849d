"""docs/results.md's multi-hand section (read by solver/pipeline/multi_results.py, rendered by
solver/export/multi_section.py): a strategy file's summary is read without its strategy,
and the section says the numbers it is given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver.app.cli import main
from solver.export import multi_section
from solver.export.results_page import render
from solver.pipeline import multi_results
from solver.pipeline.results_document import read_document

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    out = tmp_path_factory.mktemp("solved")
    result = CliRunner().invoke(main, ["multi", "--faces", "2", "--throws", "2", "--chips", "2",
                                       "--iterations", "30", "--simulate", "5",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out / "multi-strategy.json"


def test_the_summary_is_the_file_without_its_strategy_and_run_time(solved):
    whole = json.loads(solved.read_text())
    summary = multi_results.summary_of(solved)
    assert set(summary) == set(multi_results.SUMMARY)
    whole["solver"].pop("seconds")
    for key in multi_results.SUMMARY:
        assert summary[key] == whole[key], key
    # the summary the run wrote beside it says the same
    assert multi_results.summary_of(solved.parent / "multi-solution.json") == summary


def test_the_section_says_its_numbers(solved, tmp_path):
    two = {"values": [0.1, 0.2, 0.3], "gains": [0.05, 0.01, 0.02], "epsilon": 0.05}
    (tmp_path / "two.json").write_text(json.dumps(two))
    part = multi_results.part_of(solved, solved, solved, tmp_path / "two.json", "CMD")
    text = "\n".join(multi_section.render(part, 7))
    d = part["default"]
    assert text.startswith("## 7. Multi-hand Bidou")
    assert f"epsilon {d['epsilon']:.2e}" in text
    assert f"captain {d['values'][0]:.4f}" in text
    assert "epsilon 0.0500" in text and "`CMD`" in text
    p = part["whole"]["chance_to_lose"][0]
    assert f"captain {p:.3f} +-" in text
    assert "multi-answer.png" in text


def test_the_results_page_renders_the_multi_part_last():
    doc = read_document(ROOT / "docs" / "data" / "results.json")
    assert "multi" in doc
    page = render(doc)
    assert page.index("## 6. Le Bidou") < page.index("## 7. Multi-hand Bidou")


def test_the_render_only_command_keeps_the_published_page(tmp_path):
    """`python -m solver.app.multi_results` without runs keeps the recorded numbers, puts
    the four-player record in, and renders the page: on the published record, the same
    two files byte for byte."""
    from solver.app import multi_results as command

    data = tmp_path / "docs" / "data"
    data.mkdir(parents=True)
    published = ROOT / "docs" / "data" / "results.json"
    (data / "results.json").write_bytes(published.read_bytes())
    command.main(["--root", str(tmp_path)])
    assert (data / "results.json").read_bytes() == published.read_bytes()
    assert json.loads((data / "results.json").read_text())["multi"]["four"] == \
        json.loads(json.dumps(multi_results.FOUR_PLAYERS))
    assert (tmp_path / "docs" / "results.md").read_bytes() == \
        (ROOT / "docs" / "results.md").read_bytes()
