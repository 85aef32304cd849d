"""`bidou manche`: the printed summary, --json, --out (manche.json and the chart), and bad
parameters refused in one line with exit status 2 before any work."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from solver.app.cli import main
from solver.schemas import validate

SMALL = ["manche", "--chips", "3", "--faces", "3", "--throws", "1"]


def run(*args):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("args, message", [
    (["--chips", "10"], "--chips must be an integer from 1 to 9, got 10"),
    (["--chips", "0"], "--chips must be an integer from 1 to 9"),
    (["--chips", "5", "--max-stake", "6"], "--max-stake 6 is above the pool (5 chips)"),
    (["--max-stake", "0"], "--max-stake must be an integer from 1 to 9"),
    (["--faces", "7"], "--faces must be an integer from 2 to 6"),
    (["--match-start", "coin"], "invalid value for '--match-start'"),
])
def test_bad_parameters_exit_2_in_one_line(args, message):
    result = run("manche", *args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bidou: error: ")
    assert message.lower() in lines[0].lower()


def test_the_summary_and_the_files(tmp_path):
    out = tmp_path / "m"
    result = run(*SMALL, "--out", str(out))
    assert result.exit_code == 0, result.output
    text = result.output
    assert "start value:    0.5" in text and "match:" in text
    assert "6, 4 played and 2 decided, every one proved" in text
    assert sorted(p.name for p in out.iterdir()) == [
        "manche.json", "win_probability.pdf", "win_probability.png", "win_probability.svg"]
    report = json.loads((out / "manche.json").read_text())
    validate(report, "manche")
    assert report["rules"]["chips"] == 3 and report["match"]["match_start"] == "winner"


def test_json_is_one_object_with_the_match_rule_asked():
    result = run(*SMALL, "--json", "--match-start", "die")
    assert result.exit_code == 0
    report = json.loads(result.output)
    validate(report, "manche")
    # a die for the later manches: 1/4 + m/2
    m = report["start_value"]
    assert report["match"]["value"] == pytest.approx(0.25 + m / 2, abs=1e-15)


def test_an_unusable_destination_is_refused_before_solving(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = run(*SMALL, "--out", str(blocker / "sub"))
    assert result.exit_code == 2 and result.output.startswith("bidou: error: ")
