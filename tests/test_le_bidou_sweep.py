"""The Le Bidou sweep (`bidou sweep --game le-bidou`, solver/pipeline/le_bidou_sweep.py): a
cell proved in its child process, a cell over its time limit recorded as such, the table read
back as strictly as it is written, and the published table (docs/data/le_bidou_sweep.csv)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from games.bidou.params import ParameterError
from games.le_bidou.params import LeBidouParams
from solver.app.cli import main
from solver.pipeline import le_bidou_sweep as lbs
from solver.pipeline.le_bidou_sweep import SWEEP

PUBLISHED = Path(__file__).resolve().parents[1] / "docs" / "data" / SWEEP.TABLE
# tests/test_le_bidou_solve.py: the LP and the exact recovery called directly
KNOWN = {(3, 2, 3, "up"): Fraction(1401991, 9447840),
         (3, 2, 3, "down"): Fraction(-128779, 3280500),
         (3, 3, 2, "up"): Fraction(-116715707, 9908717445)}


@pytest.mark.slow
def test_a_small_cell_is_proved_and_exact_in_its_child_process():
    row = lbs.solve_cell(LeBidouParams(faces=3, throws=1, max_stake=2).to_dict(), limit=120)
    assert row["status"] == lbs.EXACT and row["exact"] == "-4/81"
    assert row["lower"] <= float(Fraction(-4, 81)) <= row["upper"]
    assert row["rows"] == 1 * 2 ** 2 * 10 and row["exploitability"] >= 0


def test_a_cell_over_its_time_limit_is_a_row_saying_so():
    row = lbs.solve_cell(LeBidouParams(faces=6, throws=3, max_stake=9).to_dict(), limit=0.5)
    assert row["status"] == "time limit 0.5 s"
    assert row["value"] is None and row["lower"] is None and row["exact"] is None
    assert row["rows"] == 9 * 512 * 56


def _rows():
    proved = {**LeBidouParams(faces=3, throws=1, max_stake=2).to_dict(), "rows": 40,
              "status": "exact", "value": float(Fraction(-4, 81)), "lower": -0.0493827160494,
              "upper": -0.0493827160493, "exact": "-4/81", "exploitability": 1e-17,
              "seconds": 0.5}
    timed = {**LeBidouParams().to_dict(), "rows": 258048, "status": "time limit 60 s",
             "value": None, "lower": None, "upper": None, "exact": None,
             "exploitability": None, "seconds": 60.2}
    return [timed, proved]


def test_the_table_reads_back_what_it_wrote_smallest_cell_first(tmp_path):
    SWEEP.write_csv(tmp_path, _rows())
    back = SWEEP.read_rows(tmp_path)
    assert [row["status"] for row in back] == ["exact", "time limit 60 s"]
    assert back[0]["exact"] == "-4/81" and back[0]["lower"] <= back[0]["value"]
    assert back[1]["value"] is None and back[1]["max_stake"] == 9


@pytest.mark.parametrize("column, text, words", [
    ("value", "0.5", "outside its proved interval"),
    ("exact", "1/2", "exact 1/2 is outside its certified interval"),
    ("max_stake", "10", "max_stake must be an integer from 1 to 9"),
])
def test_a_damaged_row_is_refused_naming_its_line(tmp_path, column, text, words):
    path = SWEEP.write_csv(tmp_path, _rows())
    lines = path.read_text().splitlines()
    fields = lines[1].split(",")
    fields[SWEEP.columns.index(column)] = text
    lines[1] = ",".join(fields)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ParameterError, match=f"line 2: .*{words}"):
        SWEEP.read_rows(tmp_path)


def test_the_grid_is_validated_and_ordered_by_size():
    grid = SWEEP.build_grid(faces="3,6", throws="1,3", max_stake="1,9")
    assert len(grid) == 8
    assert [lbs.lp_rows(p) for p in grid] == sorted(lbs.lp_rows(p) for p in grid)
    assert grid[0] == LeBidouParams(faces=3, throws=1, max_stake=1)
    with pytest.raises(ParameterError, match="max_stake must be an integer from 1 to 9"):
        SWEEP.build_grid(max_stake="0,3")
    assert len(SWEEP.build_grid(faces="3", throws="1", max_stake="1", ranking="encyclopedia",
                              aces_beat_bidou="true,false")) == 1


@pytest.mark.parametrize("args, words", [
    (("--max-stake", "3"), "--max-stake applies to --game le-bidou"),
    (("--time-limit", "5"), "--time-limit applies to --game le-bidou"),
    (("--game", "le-bidou", "--max-level", "3"), "--max-level does not apply"),
    (("--game", "le-bidou", "--max-stake", "0"), "max_stake must be an integer from 1 to 9"),
])
def test_sweep_options_of_the_other_game_exit_2_in_one_line(tmp_path, args, words):
    result = CliRunner().invoke(main, ["sweep", *args, "--out", str(tmp_path / "s")],
                                catch_exceptions=False)
    assert result.exit_code == 2
    line, = result.output.strip().splitlines()
    assert line.startswith("bidou: error: ") and words in line


def test_the_published_table_holds_cells_of_the_grid_proved_or_timed_out():
    rows = SWEEP.read_rows(PUBLISHED.parent)
    # 108 cells
    grid = SWEEP.build_grid(faces="3,4,5,6", throws="1,2,3", max_stake="1,2,3,4,5,6,7,8,9")
    assert {SWEEP.rule_key(r) for r in rows} <= {SWEEP.rule_key(p) for p in grid}
    small = {SWEEP.rule_key(p) for p in grid if lbs.lp_rows(p) <= 1008}  # all finish
    assert small <= {SWEEP.rule_key(r) for r in rows if r["status"] == lbs.EXACT}
    for row in rows:
        assert row["status"] in (lbs.PROVED, lbs.EXACT) or \
            row["status"].startswith("time limit")
        if row["exact"] is not None:
            assert row["status"] == lbs.EXACT
            key = (row["faces"], row["throws"], row["max_stake"], row["half_stake"])
            if key in KNOWN and row["reroll"] == "keep" and row["ranking"] == "french":
                assert Fraction(row["exact"]) == KNOWN[key]
    smallest = min(rows, key=lambda r: r["rows"])
    assert smallest["status"] == lbs.EXACT            # the smallest cells always finish


def test_the_published_table_is_the_whole_grid_each_cell_proved():
    """The published table holds the whole grid (docs/le-bidou.md): all 108 cells are in
    it, none over its time limit, and the default hand's proved interval holds its exact
    value (found by `bidou solve --game le-bidou --exact`, docs/le-bidou.md)."""
    rows = SWEEP.read_rows(PUBLISHED.parent)
    grid = SWEEP.build_grid(faces="3,4,5,6", throws="1,2,3", max_stake="1,2,3,4,5,6,7,8,9")
    assert sorted(SWEEP.rule_key(r) for r in rows) == sorted(SWEEP.rule_key(p) for p in grid)
    assert {r["status"] for r in rows} == {lbs.PROVED, lbs.EXACT}
    default = next(r for r in rows if (r["faces"], r["throws"], r["max_stake"]) == (6, 3, 9))
    value = Fraction(360563684246598685420206105292698751,
                     416985003473412649682263647535718400)
    assert default["lower"] <= value <= default["upper"]
    assert default["upper"] - default["lower"] < 1e-13
