"""docs/results.md's Bidú section states what its sources say: the sweep's summary is that
of the published table, docs/data/bidu_sweep.csv, whose every row is proved."""

from __future__ import annotations

from pathlib import Path

from solver.pipeline.bidu_results import sweep_summary
from solver.pipeline.bidu_sweep import SWEEP
from solver.pipeline.results_document import read_document, stable

ROOT = Path(__file__).resolve().parents[1]


def test_the_section_s_sweep_is_the_published_table_s():
    doc = read_document(ROOT / "docs" / "data" / "results.json")
    assert doc["bidu"]["sweep"] == stable(sweep_summary(ROOT / "docs" / "data"))


def test_the_published_sweep_is_proved_everywhere():
    rows = SWEEP.read_rows(ROOT / "docs" / "data")
    assert len(rows) == 150
    assert all(row["status"] == "proved" for row in rows)
    assert all(row["upper"] - row["lower"] < 1e-12 for row in rows)
    # the default rules' row is the published solution's value
    default = [row for row in rows if (row["faces"], row["throws"], row["stack"],
                                       row["throwing"]) == (6, 3, 5, "together")]
    assert len(default) == 1
    assert abs(default[0]["value"] - (-0.0432797378015)) < 1e-12


def test_the_command_renders_the_page_from_the_table(tmp_path):
    """`python -m solver.app.bidu_results --sweep-only` in a copy of the docs: the page it
    writes is the one published (nothing but the sweep read again)."""
    import shutil

    from solver.app.bidu_results import main

    data = tmp_path / "docs" / "data"
    data.mkdir(parents=True)
    for name in ("results.json", "bidu_sweep.csv"):
        shutil.copy(ROOT / "docs" / "data" / name, data / name)
    main(["--root", str(tmp_path), "--sweep-only"])
    assert (tmp_path / "docs" / "results.md").read_text() == \
        (ROOT / "docs" / "results.md").read_text()
    assert read_document(data / "results.json") == read_document(
        ROOT / "docs" / "data" / "results.json")
