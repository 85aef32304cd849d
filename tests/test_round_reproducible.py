"""The published round reproduces: the same files whatever the number of
stage workers, and `bidou outputs --check` compares a round's summary at the precision it
prints, so a re-solve on a machine whose BLAS rounds the floats differently (the proved
bounds move in the 15th digit) still matches."""

import copy
import functools
import json
from fractions import Fraction

import pytest

import solver.pipeline.round as round_pipeline
from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from solver.app import outputs, round_outputs
from solver.round import solve as round_solve

SMALL = RoundParams(chips=4, hand=BidouParams(faces=2, throws=1, max_level=2))


def report_with(workers: int, monkeypatch) -> dict:
    with monkeypatch.context() as patch:
        patch.setattr(round_pipeline, "solve_round",
                      functools.partial(round_solve.solve_round, workers=workers))
        return round_outputs.solve_and_report(SMALL)


@pytest.fixture(scope="module")
def reports():
    with pytest.MonkeyPatch.context() as patch:
        return {workers: report_with(workers, patch) for workers in (1, 2)}


@pytest.mark.slow
def test_one_or_two_workers_write_the_same_files(reports):
    one, two = (round_outputs.round_files(reports[w]) for w in (1, 2))
    assert set(one) == {"round.json", "summary.md", "win_probability.pdf",
                        "win_probability.png", "open_throw.md", "open_throw.csv",
                        "solved_round.json", "solved_round.strategies.json"}
    for name in one:
        assert one[name] == two[name], name


def moved(report: dict, by: Fraction) -> dict:
    """The report as a machine whose floats differ would write it: every proved bound and
    value moved by `by` (outward rounding then may step the last printed digit)."""
    other = copy.deepcopy(report)
    for entry in [other, *other["states"]]:
        for key in ("lower", "upper", "start_lower", "start_upper"):
            if key in entry:
                entry[key] = str(Fraction(entry[key]) + by)
        for key in ("value", "start_value"):
            if key in entry:
                entry[key] = float(Fraction(entry[key]) + by)
    return other


def test_a_summary_from_another_machine_is_the_same_at_its_precision(reports):
    """Moved by 1e-15 either way (what another CPU's BLAS kernels did to every bound of the
    default round: 102 of 102 moved) and by 7e-13 (outward roundings step a unit)."""
    report = reports[1]
    here = round_outputs.summary_markdown(report)
    dropped = (*round_outputs.VOLATILE, round_outputs.SAVED)
    published = json.dumps({k: v for k, v in report.items()
                            if k not in dropped}, indent=1).encode()
    for by in (Fraction(1, 10 ** 15), Fraction(-1, 10 ** 15), Fraction(7, 10 ** 13)):
        there = round_outputs.summary_markdown(moved(report, by))
        assert round_outputs.same_at_printed_precision(here, there)
        assert outputs._same_round("summary.md", there.encode(), here.encode())
        kept = {k: v for k, v in moved(report, by).items() if k not in dropped}
        assert outputs._same_round("round.json", json.dumps(kept).encode(), published)


def test_a_changed_number_is_still_stale(reports):
    report = reports[1]
    here = round_outputs.summary_markdown(report)
    there = round_outputs.summary_markdown(moved(report, Fraction(3, 10 ** 9)))
    assert not round_outputs.same_at_printed_precision(here, there)
    assert not outputs._same_round("summary.md", there.encode(), here.encode())
    assert not round_outputs.same_at_printed_precision(here, here.replace("9 chips", "8 chips")
                                                       .replace("4 chips", "5 chips"))
    assert not round_outputs.same_at_printed_precision("p = 0.123", "p = 0.1230")
    assert round_outputs.same_at_printed_precision("p = 0.123 or 2/3", "p = 0.124 or 2/3")
    assert not round_outputs.same_at_printed_precision("p = 0.123 or 2/3", "p = 0.125 or 2/3")
    assert not round_outputs.same_at_printed_precision("2/3", "2/5")


def test_the_published_summaries_state_their_precision():
    for name in round_outputs.ROUNDS:
        text = (outputs.project_outputs() / name / "summary.md").read_text()
        report = json.loads((outputs.project_outputs() / name / "round.json").read_text())
        assert f"(rounded outward to {round_outputs.START_DECIMALS} decimals)" in text
        assert "`bidou outputs --check` compares it at that precision" in text
        lower, upper = text.split("to lie in [")[1].split("]")[0].split(", ")
        assert len(lower.split(".")[1]) == len(upper.split(".")[1]) == 12
        assert Fraction(lower) <= Fraction(report["start_lower"])
        assert Fraction(upper) >= Fraction(report["start_upper"])
        assert Fraction(lower) <= Fraction(report["start_value"]) <= Fraction(upper)


def test_the_published_summaries_are_their_reports_rendering():
    """summary.md is made from round.json alone, so a summary checked at its precision and a
    report checked to 1e-9 check the whole round (it was regenerated so, not re-solved)."""
    for name in round_outputs.ROUNDS:
        folder = outputs.project_outputs() / name
        report = json.loads((folder / "round.json").read_text())
        assert round_outputs.summary_markdown(report) == (folder / "summary.md").read_text()


def test_a_saved_round_is_checked_by_what_is_proved_in_it(tmp_path):
    """`outputs --check` on the saved round: another stage equilibrium (other strategy
    digits, hence other checksums) is the same; another proved value, a broken checksum or
    other stages are not."""
    from solver.app.outputs import _same_round
    from solver.round import store

    def files(value: float, probability: float, stages=("0,2,7",)) -> dict[str, bytes]:
        report = {"rules": {"chips": 9}, "states": [{"value": value}]}
        made = store.saved_files(tmp_path / store.FILE_NAME, report,
                                 {s: {"p": [probability]} for s in stages}, {"0,2,7": "x"})
        return {path.name: data for path, data in made.items()}

    published = files(0.5, 0.25)
    elsewhere = files(0.5 + 1e-12, 0.75)
    names = sorted(published)
    assert all(_same_round(n, elsewhere[n], published[n]) for n in names)
    assert elsewhere != published          # the bytes differ: a byte check would fail
    moved = files(0.5 + 1e-6, 0.25)
    assert not _same_round(store.FILE_NAME, moved[store.FILE_NAME], published[store.FILE_NAME])
    edited = published[store.FILE_NAME].replace(b'"x"', b'"y"')
    assert not _same_round(store.FILE_NAME, edited, published[store.FILE_NAME])
    other = files(0.5, 0.25, stages=("0,2,7", "1,1,7"))
    strategies = next(n for n in names if n.endswith(".strategies.json"))
    assert not _same_round(strategies, other[strategies], published[strategies])
