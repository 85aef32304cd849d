"""`bidou solve --game le-bidou` and Le Bidou's strategy files: the value proved (exactly
with --exact), the file read back as Le Bidou's game, and every bad parameter refused in one
line with exit status 2 before any work."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from games.le_bidou.params import LeBidouParams
from solver import schemas
from solver.app.cli import main
from solver.hand.strategy import load_strategy_file
from solver.pipeline.hand import LE_BIDOU_CFR_ROWS, check_solvable, le_bidou_rows

SMALL = ("--game", "le-bidou", "--faces", "3", "--throws", "2", "--max-stake", "3")
# tests/test_le_bidou_solve.py: the same values from the LP and the exact recovery called
# directly, and the faithful game's LP in tests/test_le_bidou_game.py
UP, DOWN = Fraction(1401991, 9447840), Fraction(-128779, 3280500)


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def solved_json(*args: str) -> dict:
    result = run("solve", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_solve_le_bidou_proves_its_value_and_names_its_game():
    summary = solved_json(*SMALL)
    assert summary["rules"] == {"game": "le-bidou", "faces": 3, "throws": 2, "reroll": "keep",
                                "ranking": "french", "aces_beat_bidou": True, "max_stake": 3,
                                "half_stake": "up"}
    assert summary["equilibrium"] == "plain LP vertex"
    proof = summary["certified_value"]
    assert Fraction(proof["lower"]) <= UP <= Fraction(proof["upper"])
    assert proof["width"] <= 1e-9
    assert summary["value"] == pytest.approx(float(UP), abs=1e-12)
    assert summary["exploitability"] <= 1e-12


@pytest.mark.parametrize("rounding, value", [("up", UP), ("down", DOWN)])
def test_exact_proves_the_fraction(rounding, value):
    summary = solved_json(*SMALL, "--half-stake", rounding, "--exact")
    assert Fraction(summary["certified_value"]["exact"]) == value
    assert summary["rules"]["half_stake"] == rounding


def test_the_printed_summary_states_the_rules_and_the_exact_value():
    result = run("solve", *SMALL, "--exact")
    assert result.exit_code == 0, result.output
    assert "rules:          Le Bidou: 3 faces, 2 throws, reroll keep, french ranking, stakes " \
           "up to 3, half stake rounded up" in result.output
    assert f"value = {UP} exactly" in result.output


def test_a_strategy_file_rebuilds_le_bidou_and_evaluate_proves_it_again(tmp_path):
    out = tmp_path / "lb.json"
    assert run("solve", *SMALL, "--exact", "--out", str(out)).exit_code == 0
    document = json.loads(out.read_text())
    schemas.validate(document, "strategy")
    model, strategy, _ = load_strategy_file(out)
    assert model.game_params == LeBidouParams(faces=3, throws=2, max_stake=3)
    assert model.description == LeBidouParams(faces=3, throws=2, max_stake=3).description()
    assert strategy.betting[(1, 1, "")].shape == (3, model.num_hands)   # stake 1, 2, 3
    report = json.loads(run("evaluate", "--strategy", str(out), "--json").output)
    assert Fraction(report["certified_value"]["exact"]) == UP
    assert report["rules"]["game"] == "le-bidou"


def test_a_bidou_strategy_file_keeps_its_rules_without_a_game(tmp_path):
    out = tmp_path / "bidou.json"
    assert run("solve", "--faces", "2", "--throws", "1", "--plain", "--out",
               str(out)).exit_code == 0
    assert "game" not in json.loads(out.read_text())["rules"]       # as every older file
    assert load_strategy_file(out)[0].params.max_level == 4


@pytest.mark.parametrize("command", [("evaluate",), ("evaluate", "--game", "bidou"),
                                     ("evaluate", "--game", "le-bidou", "--max-stake", "4"),
                                     ("play", "--hands", "1")])
def test_a_file_for_other_rules_is_refused_in_one_line(tmp_path, command):
    out = tmp_path / "lb.json"
    assert run("solve", *SMALL, "--out", str(out)).exit_code == 0
    result = run(*command, "--strategy", str(out))
    if command == ("evaluate",):                  # the file's own rules: read, measured
        assert result.exit_code == 0, result.output
        return
    assert result.exit_code == 2
    line, = result.output.strip().splitlines()
    assert line.startswith("bidou: error: ") and str(out) in line
    assert ("other rules" in line) if command[0] == "evaluate" else ("two-hand Bidou's only"
                                                                     in line)


def test_a_file_with_le_bidou_rules_out_of_range_is_refused(tmp_path):
    out = tmp_path / "lb.json"
    assert run("solve", *SMALL, "--out", str(out)).exit_code == 0
    document = json.loads(out.read_text())
    document["rules"]["max_stake"] = 10
    out.write_text(json.dumps(document))
    result = run("evaluate", "--strategy", str(out))
    assert result.exit_code == 2
    assert "/rules/max_stake: must be a whole number from 1 to 9, got 10" in result.output


@pytest.mark.parametrize("args, words", [
    (("--game", "le-bidou", "--max-stake", "0"), "--max-stake must be an integer from 1 to 9"),
    (("--game", "le-bidou", "--max-stake", "10"), "--max-stake must be an integer from 1 to 9"),
    (("--game", "le-bidou", "--max-level", "3"), "--max-level applies to two-hand Bidou's"),
    (("--max-stake", "3"), "--max-stake applies to Le Bidou's stakes, not to --game bidou"),
    (("--half-stake", "down"), "--half-stake applies to Le Bidou's stakes"),
    (("--game", "le-bidou", "--half-stake", "half"), "invalid value for '--half-stake'"),
    (("--game", "lebidou",), "invalid value for '--game'"),
    (("--game", "le-bidou", "--faces", "7"), "--faces must be an integer from 2 to 6"),
])
def test_bad_parameters_exit_2_in_one_line(args, words):
    result = run("solve", *args)
    assert result.exit_code == 2
    line, = result.output.strip().splitlines()
    assert line.startswith("bidou: error: ") and words in line


@pytest.mark.parametrize("args, words", [
    (("--method", "pcfr+"), "give --iterations N"),
    (("--max-stake", "6", "--method", "cfr+"), "give --iterations N"),
])
def test_unbounded_cfr_on_a_large_hand_is_refused_at_once_pointing_to_the_docs(args, words,
                                                                               monkeypatch):
    import solver.hand.model
    import solver.pipeline.hand

    def no_work(*_, **__):
        raise AssertionError("the hand was built or solved before the refusal")

    monkeypatch.setattr(solver.pipeline.hand, "solve_hand", no_work)
    monkeypatch.setattr(solver.hand.model, "build_model", no_work)
    result = run("solve", "--game", "le-bidou", *args)
    assert result.exit_code == 2
    line, = result.output.strip().splitlines()
    assert words in line and "docs/le-bidou.md" in line


def test_unbounded_cfr_is_admitted_up_to_max_stake_5_and_the_lp_everywhere():
    assert le_bidou_rows(LeBidouParams(max_stake=5)) == LE_BIDOU_CFR_ROWS
    check_solvable(LeBidouParams(max_stake=5), "pcfr+", None)        # admitted
    check_solvable(LeBidouParams(), "lp", None)                      # restricted LP
    check_solvable(LeBidouParams(), "pcfr+", 100)                    # bounded CFR
    with pytest.raises(Exception, match="give --iterations N"):
        check_solvable(LeBidouParams(max_stake=6), "pcfr+", None)


def test_cfr_solves_le_bidou_within_its_exploitability():
    summary = solved_json(*SMALL, "--method", "pcfr+", "--target-exploitability", "1e-5")
    proof = summary["certified_value"]
    assert Fraction(proof["lower"]) <= UP <= Fraction(proof["upper"])
    assert summary["exploitability"] <= 1e-5


# --- bidou export --game le-bidou -------------------------------------------------------------

def test_export_writes_the_stakes_tables_and_the_reroll_chart(tmp_path):
    from solver.export.tables import read_csv

    out = tmp_path / "lb"
    result = run("export", *SMALL, "--exact", "--format", "png", "--out", str(out))
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir())
    assert names == ["betting.csv", "betting.json", "betting.md", "reroll.csv", "reroll.json",
                     "reroll.md", "reroll_chart.png", "strategy.json", "summary.json",
                     "summary.md"]          # no betting charts, booklet or simplified play
    summary = json.loads((out / "summary.json").read_text())
    schemas.validate(summary, "summary")
    assert Fraction(summary["certified_value"]["exact"]) == UP
    assert summary["rules"]["game"] == "le-bidou" and "simplified" not in summary
    model, strategy, _ = load_strategy_file(out / "strategy.json")
    rows = read_csv(out / "betting.csv")
    actions = ["stake 1", "stake 2", "stake 3", "withdraw", "call", "raise to 2", "raise to 3"]
    assert list(rows[0])[12:19] == actions
    situations = {row["history"]: row["situation"] for row in rows}
    assert situations == {"": "opening", "1": "stake 1", "2": "stake 2", "3": "stake 3",
                          "12": "stake 1, raise to 2", "13": "stake 1, raise to 3",
                          "23": "stake 2, raise to 3", "123": "stake 1, raise to 2, raise to 3"}
    hands = [f"{'-'.join(map(str, h))}" for h in model.hands]
    for row in rows:                        # each row is the strategy file's decision
        node = model.tree((int(row["captain_throws"]), int(row["opponent_throws"]))).node(
            row["history"])
        probs = strategy.betting[(int(row["captain_throws"]), int(row["opponent_throws"]),
                                  row["history"])][:, hands.index(row["hand"])]
        shown = [float(row[a]) if row[a] else None for a in actions]
        assert [p for p in shown if p is not None] == pytest.approx(list(probs), abs=1e-9)
        assert [a for a, p in zip(actions, shown) if p is not None] == list(node.actions)
    assert "stake 1, raise to 3" in (out / "betting.md").read_text()
    assert "# Le Bidou: solved hand" in (out / "summary.md").read_text()


def test_charts_of_le_bidou_are_the_reroll_chart_alone(tmp_path):
    out = tmp_path / "charts"
    result = run("charts", *SMALL, "--format", "png", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["reroll_chart.png"]
