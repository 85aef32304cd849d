"""Bidú's sweep (`bidou sweep --game bidu`, solver/pipeline/bidu_sweep.py): a tiny grid run
through the command on a local cluster of one worker and its table read back, a resumed run
that solves nothing, a cell over its time limit or failed recorded as such, the table read
back as strictly as it is written, and bad input refused in one line before any work."""

from __future__ import annotations

from fractions import Fraction

import pytest
from click.testing import CliRunner

from games.bidu.params import BiduParams
from games.parameters import ParameterError
from solver.app.cli import main
from solver.bidu.solve import solve_bidu
from solver.common.errors import SolverError
from solver.pipeline import bidu_sweep as bs
from solver.pipeline import dask_cluster
from solver.pipeline.bidu_sweep import SWEEP

GRID = ("--faces", "2,3", "--throws", "1,2", "--stack", "1,2")


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """The tiny grid swept once by the command, on a local cluster of one worker (about
    10 s: the cluster, then a child process per cell): its folder and output."""
    out = tmp_path_factory.mktemp("bidu-sweep")
    result = run("sweep", "--game", "bidu", *GRID, "--workers", "1", "--out", str(out))
    return out, result


@pytest.mark.slow
def test_the_command_proves_every_cell_of_a_tiny_grid(swept):
    out, result = swept
    assert result.exit_code == 0, result.output
    assert "8 cells proved, 0 over the time limit (600 s), 0 failed, 0 already" \
        in result.output
    assert (out / SWEEP.TABLE).read_text().splitlines()[0] == \
        "faces,throws,stack,ante,throwing,status,value,lower,upper,exploitability,replay," \
        "seconds"
    rows = SWEEP.read_rows(out)
    assert len(rows) == 8 and all(row["status"] == bs.PROVED for row in rows)
    for row in rows:
        assert row["lower"] <= row["value"] <= row["upper"]
        assert row["upper"] - row["lower"] < 1e-12
        assert 0 <= row["exploitability"] < 1e-12 and 0 < row["replay"] < 1
    sizes = [bs.cell_size(BiduParams(faces=r["faces"], throws=r["throws"], stack=r["stack"]))
             for r in rows]
    assert sizes == sorted(sizes)                       # smallest cell first


@pytest.mark.slow
def test_a_row_is_the_solvers_own_numbers_its_bounds_rounded_outward(swept):
    out, _ = swept
    row, = [r for r in SWEEP.read_rows(out)
            if (r["faces"], r["throws"], r["stack"]) == (3, 2, 2)]
    solution = solve_bidu(BiduParams(faces=3, throws=2, stack=2))
    assert row["value"] == solution.estimate
    assert Fraction(row["lower"]) <= solution.lower <= solution.upper <= Fraction(row["upper"])
    assert row["replay"] == float(solution.replay_probability)
    # the decimals printed hold the proved interval too
    line, = [line for line in (out / SWEEP.TABLE).read_text().splitlines()
             if line.startswith("3,2,2,1,together,")]
    lower, upper = line.split(",")[7:9]
    assert Fraction(lower) <= solution.lower and solution.upper <= Fraction(upper)


@pytest.mark.slow
def test_a_resumed_sweep_solves_nothing_new(swept):
    out, _ = swept
    before = (out / SWEEP.TABLE).read_text()
    again = run("sweep", "--game", "bidu", *GRID, "--workers", "1", "--out", str(out))
    assert again.exit_code == 0, again.output
    assert "0 cells proved, 0 over the time limit (600 s), 0 failed, 8 already in the " \
           "table" in again.output
    assert (out / SWEEP.TABLE).read_text() == before


def test_a_small_cell_in_process_is_solve_bidus():
    params = BiduParams(faces=2, throws=1, stack=1)
    row = bs.solve_row(params.to_dict())
    solution = solve_bidu(params)
    assert set(row) == set(SWEEP.columns) and row["status"] == bs.PROVED
    assert row["value"] == solution.estimate
    assert row["lower"] <= solution.lower and solution.upper <= row["upper"]
    assert row["exploitability"] >= max(solution.captain_exploitability,
                                        solution.other_exploitability)


def test_a_cell_over_its_time_limit_is_a_row_saying_so():
    row = bs.solve_cell(BiduParams().to_dict(), limit=0.5)
    assert row["status"] == "time limit 0.5 s" and set(row) == set(SWEEP.columns)
    assert row["value"] is None and row["lower"] is None and row["upper"] is None


def test_a_cell_the_solver_cannot_vouch_for_is_a_failed_row(monkeypatch):
    def cannot(params):
        raise SolverError("Newton's method did not settle")

    monkeypatch.setattr("solver.bidu.solve.solve_bidu", cannot)
    row = bs.solve_row(BiduParams(faces=2, throws=1, stack=1).to_dict())
    assert row["status"] == "failed: Newton's method did not settle"
    assert row["value"] is None and row["exploitability"] is None


def _rows():
    proved = {**bs.rules_of(BiduParams(faces=2, throws=1, stack=1)), "status": bs.PROVED,
              "value": -0.08191927719839323, "lower": -0.081919277198393245,
              "upper": -0.0819192771983932, "exploitability": 2e-17,
              "replay": 0.0792696108608692, "seconds": 0.07}
    timed = {**bs.rules_of(BiduParams()), "status": "time limit 600 s", "value": None,
             "lower": None, "upper": None, "exploitability": None, "replay": None,
             "seconds": 600.2}
    failed = {**bs.rules_of(BiduParams(faces=3, stack=2)), "status": "failed: no value",
              "value": None, "lower": None, "upper": None, "exploitability": None,
              "replay": None, "seconds": 1.5}
    return [timed, failed, proved]


def test_the_table_keeps_every_row_smallest_cell_first_and_retries_the_unproved(tmp_path):
    SWEEP.write_csv(tmp_path, _rows())
    back = SWEEP.read_rows(tmp_path)
    assert [row["status"] for row in back] == ["proved", "failed: no value",
                                               "time limit 600 s"]
    assert [set(row) for row in back] == [set(SWEEP.columns)] * 3
    assert back[0]["value"] == -0.08191927719839323
    grid = SWEEP.build_grid(faces="2,3,6", throws="1,3", stack="1,2,5")
    todo = SWEEP.pending(grid, back)
    assert len(todo) == len(grid) - 1 and BiduParams() in todo


@pytest.mark.parametrize("column, text, words", [
    ("value", "0.5", "outside its proved interval"),
    ("value", "", "a proved row without its numbers"),
    ("replay", "1.5", "replay outside"),
    ("stack", "11", "stack must be an integer from 1 to 10"),
    ("throwing", "sideways", "throwing must be one of together, captain-first"),
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


def test_an_unfinished_row_with_numbers_is_refused(tmp_path):
    path = SWEEP.write_csv(tmp_path, _rows())
    text = path.read_text().replace("time limit 600 s,,", "time limit 600 s,0.1,")
    path.write_text(text)
    with pytest.raises(ParameterError, match="line 4: a row 'time limit 600 s' with numbers"):
        SWEEP.read_rows(tmp_path)


def test_the_grid_is_validated_and_ordered_by_size():
    grid = SWEEP.build_grid(faces="6,2", throws="3,1", stack="5,1",
                            throwing="together,captain-first")
    assert len(grid) == 16 and grid[0].faces == 2 and grid[-1].faces == 6
    assert [bs.cell_size(p) for p in grid] == sorted(bs.cell_size(p) for p in grid)
    assert SWEEP.rules == ("faces", "throws", "stack", "ante", "throwing")
    with pytest.raises(ParameterError, match="stack must be an integer from 1 to 10"):
        SWEEP.build_grid(stack="0,3")


@pytest.mark.parametrize("args, words", [
    (("--game", "bidu", "--stack", "0"), "stack must be an integer from 1 to 10, got 0"),
    (("--game", "bidu", "--stack", "1,,2"), "--stack must be a comma-separated list"),
    (("--game", "bidu", "--throwing", "sideways"), "throwing must be one of together"),
    (("--stack", "2"), "--stack applies to --game bidu"),
    (("--throwing", "together"), "--throwing applies to --game bidu"),
    (("--game", "le-bidou", "--ante", "2"), "--ante does not apply to --game le-bidou"),
    (("--game", "bidu", "--max-level", "3"), "--max-level does not apply to --game bidu"),
    (("--game", "bidu", "--max-stake", "3"), "--max-stake does not apply to --game bidu"),
    (("--game", "bidu", "--reroll", "keep"), "--reroll does not apply to --game bidu"),
    (("--game", "bidu", "--ranking", "french"), "--ranking does not apply to --game bidu"),
    (("--game", "bidu", "--exact"), "--exact does not apply to --game bidu"),
    (("--time-limit", "5"), "--time-limit applies to --game le-bidou or bidu"),
])
def test_bad_input_exits_2_in_one_line_before_any_work(tmp_path, monkeypatch, args, words):
    def no_cluster(*_, **__):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(dask_cluster, "dask_client", no_cluster)
    result = CliRunner().invoke(main, ["sweep", *args, "--out", str(tmp_path / "s")])
    assert result.exit_code == 2, result.output
    line, = result.output.strip().splitlines()
    assert line.startswith("bidou: error: ") and words in line
    assert not (tmp_path / "s").exists()
