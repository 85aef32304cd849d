"""outputs/ holds the solved default game and two variants, and must match a fresh solve."""

import json
from pathlib import Path

import pytest

from solver.app.outputs import VARIANTS, stale_files
from solver.app.round_outputs import ROUNDS
from solver.round.solve import solve_round

ROOT = Path(__file__).resolve().parent.parent / "outputs"


@pytest.fixture(scope="module")
def fresh(published):
    return published                # solved once for the session (tests/conftest.py)


@pytest.mark.slow
def test_outputs_are_current(fresh):
    """Every file but the charts (drawing them all takes a minute; `bidou outputs --check`
    compares them too, and tests/test_newcomer.py checks that it does)."""
    assert stale_files(ROOT, fresh, charts=False, rounds=False, le_bidou=False) == []


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


@pytest.mark.slow
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
    assert stale_files(tmp_path, fresh, charts=False, rounds=False,
                       le_bidou=False) == [str(csv_path)]


@pytest.mark.parametrize("name", sorted(ROUNDS))
def test_round_outputs_are_proved_reports(name):
    report = json.loads((ROOT / name / "round.json").read_text())
    assert report["schema"] == "bidou-round" and report["rules"] == ROUNDS[name].to_dict()
    assert report["max_width"] <= 1e-9 and abs(report["min_p_end"] - 1) <= 1e-9
    assert len(report["states"]) == 51
    for entry in report["states"]:
        assert float(entry["lower"]) <= entry["value"] <= float(entry["upper"])
    for fmt in ("pdf", "png"):
        assert (ROOT / name / f"win_probability.{fmt}").stat().st_size > 10_000
    assert f"{report['start_value']:.12f}" in (ROOT / name / "summary.md").read_text()


@pytest.mark.slow
def test_published_round_holds_a_fresh_solve_of_its_last_states():
    """Solving the whole round takes minutes (`bidou outputs --check` does it); the states
    with an empty centre form the component solved first, which depends on nothing else:
    solved again here, they must match outputs/round/round.json."""
    report = json.loads((ROOT / "round" / "round.json").read_text())
    published = {(s["centre"], s["captain"], s["opponent"]): s["value"]
                 for s in report["states"]}
    solution = solve_round(ROUNDS["round"], components=1)
    assert len(solution.values) == 7
    for state, value in solution.values.items():
        chips = ROUNDS["round"].chips
        if hasattr(state, "low"):
            key = (state.centre, state.low, chips - state.centre - state.low)
        else:
            key = (state.centre, state.captain, state.opponent)
        assert value == pytest.approx(published[key], abs=1e-9)
