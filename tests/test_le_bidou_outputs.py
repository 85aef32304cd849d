"""`bidou outputs` publishes Le Bidou's hand in outputs/le-bidou/ and `--check` compares it:
the machinery on a small hand (solved in seconds), and the published default hand's numbers
(solving it again takes minutes: `bidou outputs --check` does)."""

from __future__ import annotations

from pathlib import Path

from games.le_bidou.params import LeBidouParams
from solver.app import outputs

ROOT = Path(__file__).resolve().parent.parent / "outputs"
SMALL = LeBidouParams(faces=3, throws=2, max_stake=3)


def test_le_bidou_is_written_and_checked(tmp_path, monkeypatch):
    monkeypatch.setattr(outputs, "LE_BIDOU", {"le-bidou": SMALL})
    written = outputs.write_outputs(tmp_path, {}, rounds=False)      # Le Bidou's hand alone
    folder = tmp_path / "le-bidou"
    names = {p.name for p in written}
    assert {p.parent for p in written} == {folder}
    assert {"summary.md", "summary.json", "strategy.json", "betting.csv", "reroll.csv",
            "reroll_chart.png", "reroll_chart.pdf"} <= names
    assert "remember_chart.png" not in names          # no simplified play for stakes
    page = (folder / "summary.md").read_text()
    assert "Le Bidou" in page and "No cheat sheet" in page
    assert outputs.stale_files(tmp_path, {}, charts=False, rounds=False) == []
    table = folder / "betting.csv"
    lines = table.read_text().splitlines()
    header, row = lines[0].split(","), lines[1].split(",")
    column = header.index("stake 1")
    row[column] = "0.5" if row[column] != "0.5" else "0.25"
    lines[1] = ",".join(row)
    table.write_text("\n".join(lines) + "\n")
    assert outputs.stale_files(tmp_path, {}, charts=False, rounds=False) == [str(table)]
