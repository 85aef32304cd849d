"""docs/results.md's Montevideo section states what its source says: the "montevideo" part of
docs/data/results.json is the published heads-up report's numbers, and the page is its
rendering; the section's claims hold on those numbers."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

from solver.pipeline.montevideo_results import montevideo_part
from solver.pipeline.results_document import read_document, stable

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "outputs" / "montevideo" / "heads-up.json"


def test_the_section_is_the_published_report_s():
    doc = read_document(ROOT / "docs" / "data" / "results.json")
    assert doc["montevideo"] == stable(montevideo_part(REPORT))


def test_the_section_s_claims():
    part = montevideo_part(REPORT)
    # the captain is behind at equal chips, at every ante
    assert all(Decimal(row["upper"]) < Decimal("0.5") for row in part["equal"])
    # one chip more is worth about 1/18 of the chance to win
    assert all(abs(Decimal(row["chip_lower"]) - Decimal(1) / 18) < Decimal("0.002")
               for row in part["equal"])
    # the higher the ante, the more hands go all in at once
    pushes = [row["all_in_hands"] for row in part["equal"]]
    assert pushes == sorted(pushes)
    assert Decimal(part["captaincy_highest"]["upper"]) < 0


def test_the_command_renders_the_page(tmp_path):
    from solver.app.montevideo_results import main

    data = tmp_path / "docs" / "data"
    data.mkdir(parents=True)
    shutil.copy(ROOT / "docs" / "data" / "results.json", data / "results.json")
    (tmp_path / "outputs" / "montevideo").mkdir(parents=True)
    shutil.copy(REPORT, tmp_path / "outputs" / "montevideo" / "heads-up.json")
    main(["--root", str(tmp_path)])
    assert (tmp_path / "docs" / "results.md").read_text() == \
        (ROOT / "docs" / "results.md").read_text()
