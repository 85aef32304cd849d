"""The sweep table's intervals are enclosures: in every row, read as
floats or as the decimals printed, lower <= value <= upper and lower <= exact <= upper, and
the exploitability is never negative; the whole published table is checked, and so are the
rows a fresh solve writes. None of these start a Dask cluster."""

import csv
import math
import random
from fractions import Fraction
from pathlib import Path

import pytest

from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.hand.exact.certificate import exact_best_response, float_up
from solver.hand.solve import solve
from solver.pipeline import bidou_sweep, sweep
from solver.pipeline.bidou_sweep import SWEEP

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = ROOT / "docs" / "data"


def readings(text: str) -> tuple[Fraction, Fraction]:
    """A printed number as the decimal it says and as the float a reader gets from it."""
    return Fraction(text), Fraction(float(text))


def assert_enclosure(record: dict[str, str]) -> None:
    for read in (0, 1):
        lower, value, upper = (readings(record[n])[read] for n in ("lower", "value", "upper"))
        assert lower <= value <= upper, record
        if record["exact"]:
            assert lower <= Fraction(record["exact"]) <= upper, record
        assert readings(record["exploitability"])[read] >= 0, record


def test_the_published_table_holds_its_values_and_exact_fractions():
    with open(PUBLISHED / "sweep.csv", newline="") as handle:
        records = list(csv.DictReader(handle))
    assert len(records) == 360 and all(r["exact"] for r in records)
    for record in records:
        assert_enclosure(record)
        # every value is proved: it is the exact fraction's nearest float
        assert float(record["value"]) == float(Fraction(record["exact"])), record
        # widened by at most an ulp or two past the exact fraction
        exact = Fraction(record["exact"])
        assert float(record["upper"]) - float(record["lower"]) <= 4 * math.ulp(float(exact))


def test_the_published_table_is_its_own_rendering(tmp_path):
    """Reading the table and writing it again changes nothing: it is repaired, and the
    repair (`enclosed_row`) leaves a repaired row as it is."""
    SWEEP.write_csv(tmp_path, SWEEP.read_rows(PUBLISHED))
    assert (tmp_path / "sweep.csv").read_text() == (PUBLISHED / "sweep.csv").read_text()


def printed(row: dict) -> dict[str, str]:
    """A row's numbers as `write_csv` prints them."""
    return {"value": repr(row["value"]), "exact": row["exact"],
            "lower": sweep.decimal_text(row["lower"], up=False),
            "upper": sweep.decimal_text(row["upper"], up=True),
            "exploitability": sweep.decimal_text(row["exploitability"], up=True)}


def test_rows_of_raw_lp_floats_are_repaired():
    """Two published rows as they were. Faces 2, throws 1, level 4, reroll all, french with
    aces beating bidou: the LP's value outside its interval, a negative exploitability.
    Faces 2, throws 2, level 3, the same rules: the floats enclose the exact value, but the
    printed lower bound (the float's shortest repr) is a decimal above it."""
    old = {"value": -0.07499999999999986, "lower": -0.07500000000000001, "upper": -0.075,
           "exact": "-3/40", "exploitability": -1.3877787807814457e-17}
    assert not old["lower"] <= old["value"] <= old["upper"]
    row = sweep.enclosed_row(old)
    assert row["value"] == -0.075 and row["exploitability"] == 0.0
    assert (row["lower"], row["upper"]) == (-0.07500000000000001, -0.075)
    assert printed(row)["lower"] == "-0.075000000000000012"
    assert_enclosure(printed(row))
    assert sweep.enclosed_row(row) == row

    old = {"value": -0.036387315630305596, "lower": -0.0363873156303056,
           "upper": -0.036387315630305596, "exact": "-43893/1206272",
           "exploitability": 9.71445146547012e-17}
    assert old["lower"] <= Fraction(old["exact"]) <= old["upper"]          # as floats
    assert not Fraction("-0.0363873156303056") <= Fraction(old["exact"])     # as printed
    row = sweep.enclosed_row(old)
    assert row["value"] == -0.0363873156303056 == float(Fraction(old["exact"]))
    assert (row["lower"], row["upper"]) == (old["lower"], old["upper"])
    assert printed(row)["lower"] == "-0.036387315630305603"
    assert_enclosure(printed(row))
    assert sweep.enclosed_row(row) == row


def test_an_interval_without_an_exact_value_keeps_the_value_inside():
    lower, upper = Fraction(-1, 3) - Fraction(1, 10 ** 17), Fraction(-1, 3)
    inside = sweep.enclosed(-0.3333333333333333, lower, upper, None, 2e-17)
    assert inside["value"] == -0.3333333333333333 and inside["exploitability"] == 2e-17
    outside = sweep.enclosed(-0.33333333333333, lower, upper, None, -1e-17)
    assert outside["value"] == float((lower + upper) / 2) and outside["exploitability"] == 0.0
    for row in (inside, outside):
        assert row["lower"] <= lower and row["upper"] >= upper
        assert row["lower"] <= row["value"] <= row["upper"]


def test_decimal_text_reads_back_and_rounds_outward():
    rng = random.Random(19)
    numbers = [rng.uniform(-1, 1) * 10 ** rng.randint(-20, 2) for _ in range(2000)]
    numbers += [0.0, -0.075, 1e-300, 5e-324, -0.07500000000000001]
    for x in numbers:
        for up in (False, True):
            text = sweep.decimal_text(x, up)
            assert float(text) == x
            assert (Fraction(text) >= Fraction(x)) if up else (Fraction(text) <= Fraction(x))


@pytest.mark.parametrize("params", [
    BidouParams(faces=2, throws=1, max_level=4, ranking="french"),
    BidouParams(faces=3, throws=2, max_level=2),
    BidouParams(faces=3, throws=2, max_level=3, reroll="keep", ranking="french",
                aces_beat_bidou=False),
])
def test_a_fresh_row_is_an_enclosure_with_a_proved_exploitability(tmp_path, params):
    row = bidou_sweep.solve_row(params.to_dict(), exact=True)
    solution = solve(params)
    proved = (exact_best_response(solution.model, solution.strategy, CAPTAIN)
              + exact_best_response(solution.model, solution.strategy, OPPONENT)) / 2
    assert proved >= 0
    assert row["exploitability"] == float_up(proved) >= 0
    assert row["value"] == float(Fraction(row["exact"]))
    SWEEP.write_csv(tmp_path, [row])
    with open(tmp_path / "sweep.csv", newline="") as handle:
        (record,) = list(csv.DictReader(handle))
    assert_enclosure(record)
    assert SWEEP.read_rows(tmp_path) == [{**row, "seconds": float(record["seconds"])}]
