"""outputs/ holds the solved default game and two variants, and must match a fresh solve."""

import json
from pathlib import Path

import pytest

from solver.app.outputs import VARIANTS, fresh_solutions, stale_files

ROOT = Path(__file__).resolve().parent.parent / "outputs"


@pytest.fixture(scope="module")
def fresh():
    return fresh_solutions()        # ~30 s: exact values included


def test_outputs_are_current(fresh):
    """Every file but the charts (drawing them all takes a minute; `bidou outputs --check`
    compares them too, and tests/test_newcomer.py checks that it does)."""
    assert stale_files(ROOT, fresh, charts=False) == []


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_outputs_hold_value_exploitability_and_charts(name):
    folder = ROOT / name
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["rules"] == VARIANTS[name].to_dict()
    assert summary["status"] == "optimal"
    assert summary["exploitability"] <= 1e-9
    strategy = json.loads((folder / "strategy.json").read_text())
    assert strategy["result"]["value"] == pytest.approx(summary["value"], abs=1e-12)
    for chart in ("reroll_chart", "remember_chart", "betting_chart_c1_o1"):
        for fmt in ("pdf", "png"):
            assert (folder / f"{chart}.{fmt}").stat().st_size > 10_000
    assert "value" in (folder / "summary.md").read_text()
    assert "exact" in strategy                   # the exact equilibrium, proved on reading


def test_stale_outputs_are_detected(tmp_path, fresh):
    """The check is not vacuous: a hand-edited probability is caught."""
    import shutil

    shutil.copytree(ROOT / "default", tmp_path / "default")
    for name in VARIANTS:
        if name != "default":
            shutil.copytree(ROOT / name, tmp_path / name)
    csv_path = tmp_path / "default" / "reroll.csv"
    lines = csv_path.read_text().splitlines()
    header, row = lines[0].split(","), lines[1].split(",")
    column = header.index("stop")
    row[column] = "0.5" if row[column] != "0.5" else "0.25"
    lines[1] = ",".join(row)
    csv_path.write_text("\n".join(lines) + "\n")
    assert stale_files(tmp_path, fresh, charts=False) == [str(csv_path)]
