"""`bidou multi` on the default game answers from the published solution (outputs/multi/),
says what a seat's numbers mean, and prints one JSON object with --json; the summary a run
writes beside its strategy file is the one the published file is made by."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from games.bidou_multi.params import MultiParams
from solver.app.cli import main
from solver.multi import solution_file

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ROOT / "outputs" / "multi" / solution_file.NAME
SMALL = ["--faces", "2", "--throws", "1", "--chips", "2"]


def published() -> dict:
    return json.loads(PUBLISHED.read_text())


def test_the_published_solution_is_the_default_game_certified_below_1e_3():
    doc = solution_file.check_solution(published(), MultiParams().to_dict())
    assert doc["game"] == MultiParams().to_game_string()
    assert doc["epsilon"] < 1e-3 and doc["epsilon"] == max(doc["gains"])
    assert all(g > 0 for g in doc["gains"])             # a CFR average is never exact
    assert doc["values"][0] > doc["values"][1] > doc["values"][2]     # the captain ahead
    assert len(doc["strategy_file"]["strategy_sha256"]) == 64


def test_results_quote_the_published_solution():
    """docs/results.md's section 7 states the published run's numbers, not another run's."""
    results = json.loads((ROOT / "docs" / "data" / "results.json").read_text())["multi"]
    doc = published()
    for key in ("game", "values", "gains", "epsilon", "nash_conv", "play"):
        assert results["default"][key] == doc[key], key
    assert results["default"]["solver"]["iterations"] == doc["solver"]["iterations"]


def test_multi_with_no_option_answers_from_the_published_solution():
    result = CliRunner().invoke(main, ["multi"])
    assert result.exit_code == 0, result.output
    doc = published()
    assert f"the published solution ({PUBLISHED})" in result.output
    for value, gain in zip(doc["values"], doc["gains"]):
        assert f"{value:+.6f}" in result.output and f"{gain:.3e}" in result.output
    assert "value: the chips a seat gets rid of in a hand" in result.output
    assert "certified epsilon: the most a seat could add to its value" in result.output


def test_multi_json_is_one_object_with_the_published_numbers():
    result = CliRunner().invoke(main, ["multi", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    doc = published()
    assert answer["source"] == "published" and answer["file"] == str(PUBLISHED)
    assert answer["values"] == doc["values"] and answer["epsilon"] == doc["epsilon"]
    assert set(answer["meaning"]) == {"values", "gains"}


def test_a_hand_edited_published_file_is_refused_with_one_line(tmp_path, monkeypatch):
    doc = published()
    doc["values"][1] += 0.01                   # its gain no longer matches its best response
    (tmp_path / "multi").mkdir()
    (tmp_path / "multi" / solution_file.NAME).write_text(json.dumps(doc))
    monkeypatch.setattr("solver.app.saved_rounds.outputs_root", lambda: tmp_path)
    result = CliRunner().invoke(main, ["multi"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert "a seat's gain is not its best response's value minus its value" in result.output
    assert "pass --solve" in result.output


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(rules=dict(d["rules"], chips=5)), "solved for other rules"),
    (lambda d: d.update(epsilon=d["epsilon"] / 2), "epsilon or NashConv"),
    (lambda d: d["gains"].pop(), "gains are not 3 numbers"),
    (lambda d: d.update(schema_version=2), "not a bidou-multi-solution version 1 file"),
    (lambda d: d["solver"].pop("iterations"), "does not say how it was solved"),
])
def test_check_solution_names_what_is_wrong(edit, message):
    doc = published()
    edit(doc)
    with pytest.raises(ValueError, match=message):
        solution_file.check_solution(doc, MultiParams().to_dict())


def test_other_rules_are_solved_and_said_as_json(tmp_path):
    result = CliRunner().invoke(main, ["multi", *SMALL, "--iterations", "60", "--json",
                                       "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)                # nothing but the object on stdout
    assert answer["source"] == "solved" and answer["solver"]["iterations"] == 60
    assert answer["epsilon"] == max(answer["gains"])
    summary = json.loads((tmp_path / solution_file.NAME).read_text())
    assert summary["values"] == answer["values"] and summary["play"] == answer["play"]
    # the summary written with the run is the one read back from its strategy file
    assert solution_file.solution_of_strategy_file(
        tmp_path / solution_file.STRATEGY_NAME) == summary
    solution_file.check_solution(summary, summary["rules"])


@pytest.mark.parametrize("args", [["--solve", "--engine", "numpy"], ["--engine", "numpy"]])
def test_an_option_of_the_solver_solves_instead_of_looking_up(args, monkeypatch):
    """The published file is not read when the command is asked to solve (here numpy's
    walks, refused before any work: the default game is too big for them)."""
    def refuse(*args, **kwargs):
        raise AssertionError("read the published file")
    monkeypatch.setattr("solver.multi.solution_file.check_solution", refuse)
    result = CliRunner().invoke(main, ["multi", *args])
    assert result.exit_code == 2 and "public nodes" in result.output


def test_solving_again_writes_the_same_summary_byte_for_byte(tmp_path):
    """The summary states no run time: a published one is reproduced exactly."""
    for folder in ("a", "b"):
        result = CliRunner().invoke(main, ["multi", *SMALL, "--iterations", "30", "--out",
                                           str(tmp_path / folder)])
        assert result.exit_code == 0, result.output
    first = (tmp_path / "a" / solution_file.NAME).read_bytes()
    assert first == (tmp_path / "b" / solution_file.NAME).read_bytes()
    assert b"seconds" not in first
