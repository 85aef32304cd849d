"""`bidou outputs` publishes Le Bidou's hand in outputs/le-bidou/ and `--check` compares it:
the machinery on a small hand (solved in seconds), and the published default hand's numbers
(solving it again takes minutes: `bidou outputs --check` does)."""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path

import pytest

from games.le_bidou.params import LeBidouParams
from solver.app import outputs

ROOT = Path(__file__).resolve().parent.parent / "outputs"
SMALL = LeBidouParams(faces=3, throws=2, max_stake=3)


@pytest.mark.slow
def test_le_bidou_is_written_and_checked(tmp_path, monkeypatch):
    monkeypatch.setattr(outputs, "LE_BIDOU", {"le-bidou": SMALL})
    written = outputs.write_outputs(tmp_path, {}, rounds=False,      # Le Bidou's hand alone
                                    manche=False)
    folder = tmp_path / "le-bidou"
    names = {p.name for p in written}
    assert {p.parent for p in written} == {folder}
    assert {"summary.md", "summary.json", "strategy.json", "betting.csv", "reroll.csv",
            "reroll_chart.png", "reroll_chart.pdf"} <= names
    assert "remember_chart.png" not in names          # no simplified play for stakes
    # the stakes cheat sheet of the hand just solved, beside its export
    assert {"cheatsheet.md", "cheatsheet.png", "cheatsheet_strategy.json"} <= names
    page = (folder / "summary.md").read_text()
    assert "Le Bidou" in page and "stakes cheat sheet" in page
    assert outputs.stale_files(tmp_path, {}, charts=False, rounds=False, manche=False) == []
    table = folder / "betting.csv"
    lines = table.read_text().splitlines()
    header, row = lines[0].split(","), lines[1].split(",")
    column = header.index("stake 1")
    row[column] = "0.5" if row[column] != "0.5" else "0.25"
    lines[1] = ",".join(row)
    table.write_text("\n".join(lines) + "\n")
    sheet = folder / "cheatsheet.md"
    sheet.write_text(sheet.read_text().replace("withdraw otherwise", "call otherwise", 1))
    assert outputs.stale_files(tmp_path, {}, charts=False, rounds=False,
                               manche=False) == [str(table), str(sheet)]


def test_the_published_hand():
    folder = ROOT / "le-bidou"
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["rules"] == {"game": "le-bidou", **LeBidouParams().to_dict()}
    assert summary["status"] == "optimal"
    assert summary["captain_exploitability"] <= 1e-9
    assert summary["opponent_exploitability"] <= 1e-9
    proof = summary["certified_value"]
    lower, upper = Fraction(proof["lower"]), Fraction(proof["upper"])
    assert upper - lower <= 1e-9
    # the value docs/le-bidou.md proves for the default hand, holding its exact value
    # (the LP vertex, and so the interval's width, depends on the double oracle's path)
    assert 0.864692210134 <= lower <= upper <= 0.864692210136
    assert lower <= Fraction(360563684246598685420206105292698751,
                             416985003473412649682263647535718400) <= upper
    assert summary["value"] == pytest.approx(float(lower), abs=1e-9)
    for name in summary["files"]:
        assert (folder / name).is_file(), name
    assert (folder / "reroll_chart.png").stat().st_size > 10_000
    assert "0.8646922101350" in (folder / "summary.md").read_text()
    # the betting table keeps the rows its player reaches (tables.write_tables, reached_only)
    with open(folder / "betting.csv", newline="") as handle:
        reached = [float(row["reached"]) for row in csv.DictReader(handle)]
    assert 0 < len(reached) < 258_048 and min(reached) > 1e-12
