"""The manche's page in outputs/le-bidou/ (solved by solver/pipeline/published_manche.py,
rendered by solver/export/manche_page.py, compared by solver/app/manche_check.py): `bidou
outputs` writes it and `--check` compares it at the precision it prints, the Monte Carlo by
its agreement; on a small manche (seconds), then the published default manche's numbers."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from games.le_bidou.manche import MancheParams, match_win
from solver.app import manche_check, outputs
from solver.app.cli import main
from solver.export import manche_page
from solver.pipeline import published_manche
from solver.schemas import validate

ROOT = Path(__file__).resolve().parent.parent / "outputs"
SMALL = MancheParams(chips=3, faces=3, throws=1)
PAGE_FILES = {"manche.md", "manche.json", "manche_win_probability.png",
              "manche_win_probability.pdf"}


def untimed(document):  # type: ignore[no-untyped-def]
    """The document without its timings (every key ending in "seconds")."""
    if isinstance(document, dict):
        return {k: untimed(v) for k, v in document.items() if not k.endswith("seconds")}
    if isinstance(document, list):
        return [untimed(v) for v in document]
    return document


@pytest.fixture(scope="module")
def small_outcome() -> published_manche.MancheOutcome:
    return published_manche.solve_published(SMALL, manches=4000)


@pytest.mark.slow
def test_the_page_is_written_and_checked(tmp_path, monkeypatch):
    monkeypatch.setattr(published_manche, "PUBLISHED", SMALL)
    monkeypatch.setattr(published_manche, "MONTE_CARLO_MANCHES", 4000)
    pages = outputs.fresh_le_bidou_pages()
    assert set(pages) == PAGE_FILES
    written = outputs.le_bidou_pages(tmp_path, pages)
    folder = tmp_path / "le-bidou"
    assert {p.name for p in written} == PAGE_FILES and {p.parent for p in written} == {folder}
    assert outputs.stale_le_bidou_pages(tmp_path, outputs.fresh_le_bidou_pages()) == []
    # manche.json is what `bidou manche --json` prints, but for the timings and versions
    report = json.loads((folder / "manche.json").read_text())
    validate(report, "manche")
    printed = CliRunner().invoke(main, ["manche", "--chips", "3", "--faces", "3",
                                        "--throws", "1", "--json"])
    assert printed.exit_code == 0
    assert outputs._close(untimed(report), untimed(json.loads(printed.output)))
    assert report["seconds"] == 0.0 and report["solve_seconds"] == 0.0
    # a state's value moved by three units of its last printed decimal is stale; the chart too
    page = folder / "manche.md"
    text = page.read_text()
    state = next(s for s in report["states"] if not s["decided"])
    shown = f"{state['value']:.9f}"
    moved = f"{state['value'] + 3e-9:.9f}"
    assert shown in text
    page.write_text(text.replace(shown, moved, 1))
    (folder / "manche_win_probability.png").write_bytes(b"not a chart")
    assert sorted(outputs.stale_le_bidou_pages(tmp_path, pages)) == [
        str(page), str(folder / "manche_win_probability.png")]
    assert outputs.stale_le_bidou_pages(tmp_path, pages, charts=False) == [str(page)]


def test_the_page_says_what_the_report_proves(small_outcome):
    report, mc = small_outcome.report, small_outcome.monte_carlo
    text = manche_page.page_markdown(report, mc)
    lower, upper = Fraction(report["start_lower"]), Fraction(report["start_upper"])
    found = re.search(r"probability ([0-9.]+)\*\*, proved in exact arithmetic to lie in "
                      r"\[([0-9.]+), ([0-9.]+)\]", text)
    assert found is not None
    value, low, high = (Fraction(x) for x in found.groups())
    assert low <= lower <= upper <= high and high - low <= Fraction(2, 10 ** 12)
    assert low <= value <= high
    match = re.search(r"wins the match\*\* .*\*\*with probability ([0-9.]+)\*\*", text)
    assert match is not None
    assert float(match.group(1)) == pytest.approx(
        float(match_win(Fraction(report["start_value"]), "winner")), abs=1e-12)
    # every state in the grid and the list, at the value the report gives
    for s in report["states"]:
        if not s["decided"]:
            assert f"| {s['value']:.6f} |" in text or f"| {s['value']:.6f} " in text
            assert (f"| {s['centre']} | {s['captain']} | {s['opponent']} | "
                    f"{s['value']:.9f} |") in text
    assert text.count("| decided |") == sum(s["decided"] for s in report["states"])
    # the Monte Carlo: the rate it prints is its wins over its manches, near the start
    assert f"{mc.rate:.4f} +- {mc.standard_error:.4f}" in text
    assert abs(mc.z(report["start_value"])) <= manche_check.Z_LIMIT


def test_the_monte_carlo_is_compared_by_its_agreement(small_outcome):
    report, mc = small_outcome.report, small_outcome.monte_carlo
    text = manche_page.page_markdown(report, mc)
    # another equilibrium's strategies: another estimate, still within 4 standard errors
    other = published_manche.MonteCarlo(mc.manches, mc.wins + 30, mc.mean_hands + 0.01,
                                        seed=mc.seed)
    assert other.z(report["start_value"]) != mc.z(report["start_value"])
    assert manche_check.same_page(manche_page.page_markdown(report, other), text)
    # an estimate 5 standard errors off, another seed, fewer manches: not the same page
    far = round(mc.manches * (report["start_value"] + 5 * mc.standard_error))
    estimate = published_manche.MonteCarlo
    for wrong in (estimate(mc.manches, far, mc.mean_hands, seed=mc.seed),
                  estimate(mc.manches, mc.wins, mc.mean_hands, seed=mc.seed + 1),
                  estimate(mc.manches - 1, mc.wins, mc.mean_hands, seed=mc.seed)):
        assert not manche_check.same_page(manche_page.page_markdown(report, wrong), text)
    assert not manche_check.same_page(text.replace(manche_page.MONTE_CARLO_MARK, "MC"), text)


def test_the_published_manche():
    folder = ROOT / "le-bidou"
    report = json.loads((folder / "manche.json").read_text())
    validate(report, "manche")
    assert report["rules"] == MancheParams().to_dict()
    assert len(report["states"]) == 45 and sum(not s["decided"] for s in report["states"]) == 25
    for s in report["states"]:
        lower, upper = Fraction(s["lower"]), Fraction(s["upper"])
        assert lower <= Fraction(s["value"]) <= upper and upper - lower <= 1e-13
    # the start value docs/manche.md proved for the default manche
    assert 0.59026475156114 <= Fraction(report["start_lower"]) <= \
        Fraction(report["start_upper"]) <= 0.59026475156117
    text = (folder / "manche.md").read_text()
    assert f"{report['start_value']:.12f}" in text
    found = re.search(r"\*\*Monte Carlo\.\*\* 20000 manches .* the first player won "
                      r"([0-9.]+) \+- ([0-9.]+) .* ([-+][0-9.]+) standard errors", text)
    assert found is not None
    rate, se, z = (float(x) for x in found.groups())
    assert abs(rate - report["start_value"]) <= 4 * se and abs(z) <= 4
    assert (folder / "manche_win_probability.png").stat().st_size > 10_000


def test_what_another_equilibrium_of_a_stage_changes_is_not_compared(small_outcome):
    """Another LP vertex of a stage (another machine, another double-oracle path) gives the
    same values but another max tie, stage path and residuals: the check passes; a proved
    bound moved does not."""
    report, mc = small_outcome.report, small_outcome.monte_carlo
    played = next(i for i, s in enumerate(report["states"]) if not s["decided"])
    other = json.loads(json.dumps(report))
    other["states"][played]["max_tie"] += 0.004
    other["states"][played]["stage"] = "restricted LP (another path)"
    for c in other["convergence"]:
        c["residuals"] = [r * 2 for r in c["residuals"]]
    dump = lambda r: (json.dumps(r, indent=1) + "\n").encode()  # noqa: E731
    assert manche_check.same_report(dump(other), dump(report), outputs._close)
    assert manche_check.same_page(manche_page.page_markdown(other, mc),
                                  manche_page.page_markdown(report, mc))
    moved = json.loads(json.dumps(report))
    moved["states"][played]["upper"] = str(Fraction(moved["states"][played]["upper"]) + 1)
    assert not manche_check.same_report(dump(moved), dump(report), outputs._close)
    assert not manche_check.same_report(b"{not json", dump(report), outputs._close)
