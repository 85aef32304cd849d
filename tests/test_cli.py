"""The command line: thin shells, real numbers, one-line errors with the right exit codes."""

import json

import pytest
from click.testing import CliRunner

from solver.app.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_solve_json_has_every_field():
    result = run("solve", "--faces", "3", "--throws", "2", "--max-level", "2", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    for key in ("rules", "method", "value", "exploitability", "nash_conv", "status", "seconds",
                "captain_exploitability", "opponent_exploitability"):
        assert key in summary
    assert summary["rules"] == {"faces": 3, "throws": 2, "max_level": 2, "reroll": "all",
                                "ranking": "encyclopedia", "aces_beat_bidou": True}
    assert summary["value"] == pytest.approx(-0.040339379159681, abs=1e-9)
    assert summary["status"] == "optimal" and summary["nash_conv"] <= 1e-9


@pytest.mark.slow
def test_solve_writes_a_strategy_file_that_export_reads(tmp_path):
    out = tmp_path / "s.json"
    result = run("solve", "--faces", "2", "--throws", "2", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["result"]["value"] == pytest.approx(-0.029296875)
    charts = run("charts", "--strategy", str(out), "--out", str(tmp_path / "c"),
                 "--format", "png")
    assert charts.exit_code == 0, charts.output
    assert (tmp_path / "c" / "remember_chart.png").exists()
    clash = run("charts", "--strategy", str(out), "--faces", "3", "--out", str(tmp_path / "d"))
    assert clash.exit_code == 2
    assert "other rules" in clash.output and clash.output.count("\n") == 1


@pytest.mark.parametrize("args, words", [
    (("solve", "--faces", "7"), "--faces must be an integer from 2 to 6"),
    (("solve", "--throws", "0"), "--throws must be an integer from 1 to 3"),
    (("solve", "--max-level", "0"), "--max-level must be an integer from 1 to 20"),
    (("solve", "--method", "nope"), "invalid value for '--method'"),
    (("solve", "--no-such-option"), "no such option"),
    (("nope",), "no such command"),
    (("stats", "--throws", "2"), "no such option"),
    (("solve", "--iterations", "10"), "apply to CFR methods"),
    (("lp", "nonsense_game"), "cannot load game"),
    (("lp", "kuhn_poker(players=3)"), "two-player"),
    (("stats", "--faces", "1"), "faces"),
])
def test_bad_input_is_one_line_and_exit_2(args, words):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 2
    assert words in result.output
    assert "Traceback" not in result.output
    # one style for every error: one line, never click's usage block
    assert result.output.startswith("bidou: error: ") and result.output.count("\n") == 1


@pytest.mark.slow
def test_hand_edited_numbers_in_a_strategy_file(tmp_path):
    """A recorded value that contradicts the strategy is refused; recorded exploitability
    and certified interval are measured again, never copied."""
    out = tmp_path / "s.json"
    assert run("solve", "--faces", "2", "--throws", "2", "--out", str(out)).exit_code == 0
    document = json.loads(out.read_text())
    assert document["result"]["certified_value"]["lower"].startswith("-")
    document["result"]["exploitability"] = 0.5
    document["result"]["certified_value"] = {"lower": "1", "upper": "2"}
    out.write_text(json.dumps(document))
    result = run("export", "--strategy", str(out), "--out", str(tmp_path / "e"),
                 "--format", "png")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "e" / "summary.json").read_text())
    assert summary["exploitability"] < 1e-12
    assert float(summary["certified_value"]["upper_decimal"]) == pytest.approx(-0.029296875)
    document["result"]["value"] = 0.25
    out.write_text(json.dumps(document))
    result = run("export", "--strategy", str(out), "--out", str(tmp_path / "f"))
    assert result.exit_code == 2
    assert "is not its value" in result.output and result.output.count("\n") == 1
    assert not (tmp_path / "f").exists()


def test_evaluate_measures_a_strategy_file(tmp_path):
    out = tmp_path / "s.json"
    assert run("solve", "--faces", "2", "--throws", "2", "--out", str(out)).exit_code == 0
    result = run("evaluate", "--strategy", str(out), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["claimed"]["method"] == "lp" and report["exploitability"] < 1e-12
    assert float(report["certified_value"]["lower_decimal"]) == pytest.approx(-0.029296875)
    assert report["certified_value"]["exact"] == "-15/512"
    text = run("evaluate", "--strategy", str(out)).output
    assert "certified:      game value = -15/512 exactly (exact arithmetic)" in text
    uniform = json.loads(out.read_text())
    del uniform["exact"]      # the refined file's exact section: it would contradict the edit
    for entry in uniform["betting"]:
        k = len(entry["actions"])
        entry["probabilities"] = [[1 / k] * len(row) for row in entry["probabilities"]]
    out.write_text(json.dumps(uniform))
    report = json.loads(run("evaluate", "--strategy", str(out), "--json").output)
    assert report["exploitability"] > 0.1
    assert report["certified_value"]["width"] == pytest.approx(2 * report["exploitability"])


def test_corrupt_strategy_file_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    rules = '{"faces": 9, "throws": 1, "max_level": 1, "reroll": "all", "ranking": "french", ' \
            '"aces_beat_bidou": true}'
    bad.write_text('{"schema": "bidou-strategy", "schema_version": 1, "rules": %s}' % rules)
    result = run("export", "--strategy", str(bad), "--out", str(tmp_path / "x"))
    assert result.exit_code == 2
    assert "/rules/faces: must be a whole number from 2 to 6, got 9" in result.output
    assert result.output.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_lp_kuhn_is_minus_one_eighteenth():
    result = run("lp", "kuhn_poker", "--json")
    assert result.exit_code == 0
    assert json.loads(result.output)["value"] == pytest.approx(-1 / 18, abs=1e-9)


def test_lp_on_python_bidou_matches_solve():
    result = run("lp", "python_bidou(faces=2,throws=1,max_level=1)", "--json")
    assert json.loads(result.output)["value"] == pytest.approx(-0.075, abs=1e-9)


def test_stats_json():
    result = run("stats", "--json")
    data = json.loads(result.output)
    assert len(data["hands"]) == 56
    assert data["p_straight_or_better"] == pytest.approx(1 / 6)
    first = data["hands"][0]
    assert first["hand"] == "2-1-1" and set(first) >= {"name", "probability", "beats", "ties"}
    six_three_one = next(h for h in data["hands"] if h["hand"] == "6-3-1")
    assert six_three_one["beats"] == pytest.approx(0.5)


def test_convergence_draws_png_and_pdf(tmp_path):
    result = run("convergence", "--faces", "2", "--throws", "2", "--max-level", "1",
                 "--iterations", "200", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    for method in ("cfr", "cfr+", "dcfr", "pcfr+"):
        assert method in result.output
    assert (tmp_path / "convergence.png").stat().st_size > 10_000
    assert (tmp_path / "convergence.pdf").read_bytes().startswith(b"%PDF")


def test_cfr_solve_json_reports_iterations_and_converges():
    result = run("solve", "--faces", "3", "--throws", "2", "--max-level", "2",
                 "--method", "cfr+", "--target-exploitability", "1e-5", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["method"] == "cfr+" and summary["status"] == "converged"
    assert summary["exploitability"] <= 1e-5 and summary["iterations"] > 0
    assert summary["value"] == pytest.approx(-0.040339379159681, abs=2e-5)


def test_cfr_that_stops_short_says_so_and_exits_1(tmp_path):
    out = tmp_path / "s.json"
    result = CliRunner().invoke(main, ["solve", "--faces", "3", "--method", "cfr",
                                       "--iterations", "5", "--target-exploitability", "1e-9",
                                       "--json", "--out", str(out)])
    assert result.exit_code == 1
    assert "before reaching exploitability 1e-09" in result.output
    # the user asked for 5 iterations: he gets their strategy, labelled with its quality
    assert "strategy file written" in result.output
    written = json.loads(out.read_text())["result"]
    assert written["iterations"] == 5 and written["exploitability"] > 1e-3


def test_cfr_with_iterations_alone_keeps_that_strategy(tmp_path):
    out = tmp_path / "s.json"
    result = run("solve", "--faces", "3", "--method", "cfr", "--iterations", "5",
                 "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "iteration limit" in result.output and "strategy:" in result.output
    assert json.loads(out.read_text())["result"]["iterations"] == 5


def test_every_cfr_method_succeeds_with_its_defaults():
    """Vanilla CFR converges too slowly for 1e-6; its default target is 1e-3."""
    from solver.app.cli import CFR_DEFAULT_TARGET

    assert CFR_DEFAULT_TARGET == {"cfr": 1e-3, "cfr+": 1e-6, "dcfr": 1e-6, "pcfr+": 1e-6}
    result = run("solve", "--faces", "4", "--method", "cfr", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["converged"] and summary["exploitability"] <= 1e-3
    assert "1e-3" in run("solve", "--help").output


HEAVY = ("pyspiel", "matplotlib", "dask", "pandas", "networkx")


def _heavy_modules_after(code: str) -> set[str]:
    import subprocess
    import sys

    script = f"import sys\n{code}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    return set(done.stdout.splitlines()[-1].split())


def test_solve_imports_no_plotting_openspiel_or_dask():
    """The command line and an LP solve add no heavy module to what the rules package itself
    imports (once `games.bidou` stops registering the OpenSpiel games, that is none)."""
    rules_alone = _heavy_modules_after("import games.bidou.params")
    solved = _heavy_modules_after(
        "from solver.app.cli import main\n"
        "main(['solve', '--faces', '2', '--throws', '1', '--max-level', '1'], "
        "standalone_mode=False)")
    assert solved == rules_alone
    assert not solved & {"matplotlib", "dask", "pandas", "networkx"}


def test_every_command_is_one_thin_module():
    from solver.app.cli import COMMANDS

    names = sorted(command.name for command in COMMANDS)
    assert names == sorted(main.commands) == [
        "charts", "cheatsheet", "convergence", "evaluate", "exploit", "export", "export-efg",
        "export-policy", "lp", "manche", "montevideo", "multi", "outputs", "play", "results",
        "round",
        "site", "solve", "stats", "sweep"]
    assert all(command.callback.__module__.startswith("solver.app.commands.")
               for command in COMMANDS)
