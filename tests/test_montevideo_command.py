"""`bidou montevideo`: the heads-up end solved and proved from the command line, its report
(schema, checks, a hand-edited file refused), one state's answer, the published report of the
default rules, and bad input exiting 2 with one line."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from games.montevideo.heads_up import HeadsUpParams, HeadsUpState
from solver.app.cli import main
from solver.app.commands.montevideo import published_path
from solver.pipeline.montevideo import (
    ReportError,
    check_report,
    entry_of,
    read_report,
    solve_state_again,
)

SMALL = ("--chips", "3", "--faces", "3", "--throws", "1")


def run(*args):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["montevideo", *args])


@pytest.fixture(scope="module")
def small_report():
    result = run(*SMALL, "--fresh", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_small_report(small_report):
    params = check_report(small_report)
    assert params == HeadsUpParams(total=9, faces=3, throws=1)
    assert len(small_report["states"]) == 8 * 5
    assert small_report["max_width"] < 1e-9
    # ante six and nine chips: both players are all in by the ante, a fair walk
    for e in small_report["states"]:
        if e["ante"] == 6:
            assert float(e["lower"]) <= e["captain"] / 9 <= float(e["upper"])
            assert e["push_fold"] is None


def test_small_state_in_words():
    result = run(*SMALL, "--fresh", "--state", "4,5,2")
    assert result.exit_code == 0, result.output
    text = result.output
    assert "captain 4 chips, other player 5, ante 2" in text
    assert "proved:" in text and "captain leading the betting, all in at once" in text


def test_edited_reports_are_refused(small_report, tmp_path):
    edited = copy.deepcopy(small_report)
    edited["states"][3]["value"] = 0.5
    with pytest.raises(ReportError, match="not inside a proved interval"):
        check_report(edited)
    edited = copy.deepcopy(small_report)
    del edited["states"][0]
    with pytest.raises(ReportError, match="states are not those"):
        check_report(edited)
    edited = copy.deepcopy(small_report)
    edited["states"][0]["chip_share"] = 0.3
    with pytest.raises(ReportError, match="chip share"):
        check_report(edited)
    edited = copy.deepcopy(small_report)
    edited["rules"]["faces"] = 9
    with pytest.raises(ReportError, match="faces"):
        check_report(edited)
    with pytest.raises(ReportError, match="other rules"):
        check_report(small_report, HeadsUpParams())
    # shifted consistently, value and interval: only solving its round again shows it
    edited = copy.deepcopy(small_report)
    state = HeadsUpState(4, 5, 2)
    entry = entry_of(edited, state)
    entry["value"] += 0.01
    entry["lower"] = f"{float(entry['lower']) + 0.01:.15f}"
    entry["upper"] = f"{float(entry['upper']) + 0.01:.15f}"
    check_report(edited)
    assert solve_state_again(small_report, state) == pytest.approx(
        entry_of(small_report, state)["value"], abs=1e-9)
    with pytest.raises(ReportError, match="solved again"):
        solve_state_again(edited, state)
    path = tmp_path / "heads-up.json"
    path.write_text("{not json")
    with pytest.raises(ReportError, match="not JSON"):
        read_report(path)


def test_published_default_report():
    path = published_path()
    report = read_report(path, HeadsUpParams())
    assert len(report["states"]) == 17 * 5
    assert report["max_width"] < 1e-9
    values = {(e["captain"], e["opponent"], e["ante"]): e["value"] for e in report["states"]}
    # more chips, more chance; nobody's chance is 0 or 1 before the end
    for (c, o, a), v in values.items():
        assert 0 < v < 1
        if c < 17:
            assert values[(c + 1, o - 1, a)] > v


def test_state_from_the_published_report():
    result = run("--state", "17,1,6")
    assert result.exit_code == 0, result.output
    assert "published report (heads-up.json), checked" in result.output
    assert "all in by the ante" in result.output


@pytest.mark.parametrize("args, message", [
    (("--players", "5"), "--players must be"),
    (("--chips", "0"), "--chips must be"),
    (("--faces", "7"), "--faces must be"),
    (("--state", "9,9,1"), "at least 2"),
    (("--state", "9,8,2"), "holds 17 chips"),
    (("--state", "9,9"), "CAPTAIN,OPPONENT,ANTE"),
    (("--players", "4", "--chips", "24"), "bet 46 chips beyond his ante"),
    (("--out", "/dev/null/x"), ""),
])
def test_bad_input_exits_2(args, message):
    result = run(*args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_out_writes_report_and_charts(tmp_path, small_report):
    out = tmp_path / "mv"
    result = run(*SMALL, "--fresh", "--out", str(out))
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in Path(out).iterdir())
    assert names == sorted(["heads-up.json"] + [f"{stem}.{ext}" for stem in
                                                ("win_probability", "push_fold")
                                                for ext in ("pdf", "png", "svg")])
    written = json.loads((out / "heads-up.json").read_text())
    assert [e["value"] for e in written["states"]] == pytest.approx(
        [e["value"] for e in small_report["states"]], abs=1e-12)


def test_a_proof_that_fails_exits_1_and_prints_no_number(monkeypatch):
    import solver.pipeline.montevideo as pipeline
    from solver.montevideo.certify import HeadsUpCertificateError

    def fail(solution):  # type: ignore[no-untyped-def]
        raise HeadsUpCertificateError("ante 6: no sub-solution within a margin of 1e-09 rounds")

    monkeypatch.setattr(pipeline, "certify_heads_up", fail)
    result = run(*SMALL, "--fresh")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "bidou: error: the heads-up values could not be proved: ante 6: no sub-solution "
        "within a margin of 1e-09 rounds"]
