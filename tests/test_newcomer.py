"""A newcomer's day: progress, byte-stable files, exact strategy files, honest
labels, outputs found from anywhere, help and errors, and the benchmark without extras."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from games.bidou.params import BidouParams
from solver.app.cli import main
from solver.app.progress import Progress
from solver.export import numbers
from solver.export.bundle import export_all, summary_markdown, unpack
from solver.hand.solve import solve
from solver.hand.strategy import load_strategy_file

SMALL = ("--faces", "3", "--throws", "2", "--max-level", "2")
REPO = Path(__file__).resolve().parent.parent


def run(*args, **kwargs):
    return CliRunner().invoke(main, list(args), catch_exceptions=False, **kwargs)


@pytest.fixture(scope="module")
def small():
    return solve(BidouParams(faces=3, throws=2, max_level=2))


@pytest.fixture(scope="module")
def exact_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("exact") / "s.json"
    result = run("solve", *SMALL, "--exact", "--out", str(path))
    assert result.exit_code == 0, result.output
    return path


# --- 3. progress ----------------------------------------------------------------------------

class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_shows_n_of_m_on_a_terminal_only():
    terminal = _Terminal()
    with Progress(stream=terminal) as progress:
        progress("drawing reroll_chart", 1, 11)
        progress("drawing remember_chart", 11, 11)
    text = terminal.getvalue()
    assert "\rdrawing reroll_chart (1 of 11)" in text
    assert "drawing remember_chart (11 of 11)" in text
    assert text.endswith("\r")                       # the line is cleared at the end
    piped = io.StringIO()
    with Progress(stream=piped) as progress:
        progress("drawing reroll_chart", 1, 11)
    assert piped.getvalue() == ""


@pytest.mark.slow
def test_export_reports_every_step(small, tmp_path):
    steps = []
    export_all(small, tmp_path, formats=("png",), progress=lambda *s: steps.append(s))
    totals = {total for _, _, total in steps}
    assert totals == {len(steps)}                    # one count, every step reported once
    assert [done for _, done, _ in steps] == list(range(1, len(steps) + 1))
    assert any(what == "drawing remember_chart" for what, _, _ in steps)


# --- 5. the same strategy writes the same bytes ----------------------------------------------

@pytest.mark.slow
def test_two_exports_write_identical_bytes(tmp_path):
    tiny = BidouParams(faces=2, throws=1, max_level=1)
    export_all(solve(tiny), tmp_path / "a", formats=("png", "pdf"))
    again = solve(tiny)                                     # another run, other seconds
    export_all(again, tmp_path / "b", formats=("png", "pdf"))
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert "seconds" not in json.loads((tmp_path / "a" / "summary.json").read_text())


def test_noise_level_numbers_cannot_flip_a_file(small):
    """2.98e-16 in one run and 2.81e-16 in the next print the same."""
    model, _, summary = unpack(small)
    texts = []
    for noise in (2.98e-16, 2.81e-16):
        varied = dict(summary, exploitability=noise, captain_exploitability=noise,
                      opponent_exploitability=noise / 2, value=summary["value"] + noise)
        texts.append(summary_markdown(model, numbers.stable_document(varied)))
    assert texts[0] == texts[1]
    assert "| exploitability (NashConv / 2) | < 1e-12 |" in texts[0]
    assert numbers.stable_document({"a": [2.98e-16, -1e-17], "seconds": 3.0}) == {"a": [0.0, 0.0]}
    assert numbers.percent(0.875) == numbers.percent(0.87499999999999) == 88
    assert numbers.measured(0.123456789012345) == "0.123456789012"


# --- 6. exact means exact -------------------------------------------------------------------

def test_solve_exact_saves_the_exact_strategy_and_evaluate_proves_it_again(exact_file):
    document = json.loads(exact_file.read_text())
    assert document["schema_version"] == 2
    assert "1/3" in json.dumps(document["exact"]) or "/" in json.dumps(document["exact"])
    result = run("evaluate", "--strategy", str(exact_file))
    assert result.exit_code == 0, result.output
    assert "game value = -794/19683 exactly" in result.output
    report = json.loads(run("evaluate", "--strategy", str(exact_file), "--json").output)
    assert report["certified_value"]["exact"] == "-794/19683"


def test_version_1_files_are_still_read(exact_file, tmp_path):
    document = json.loads(exact_file.read_text())
    del document["exact"]
    document["schema_version"] = 1
    old = tmp_path / "v1.json"
    old.write_text(json.dumps(document))
    model, strategy, _ = load_strategy_file(old)
    assert len(strategy.betting) == len(document["betting"])
    result = run("evaluate", "--strategy", str(old))
    assert result.exit_code == 0, result.output
    assert "certified:" in result.output


def test_an_edited_exact_section_is_refused(exact_file, tmp_path):
    document = json.loads(exact_file.read_text())
    rows = document["exact"]["betting"][0]["probabilities"]
    rows[0][0], rows[1][0] = rows[1][0], rows[0][0]   # swap two probabilities of one hand
    if rows[0][0] == rows[1][0]:
        rows[0][0], rows[1][0] = "1/2", "1/2"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(document))
    result = CliRunner().invoke(main, ["evaluate", "--strategy", str(edited)])
    assert result.exit_code == 2
    assert "exact probabilities" in result.output and result.output.count("\n") == 1


@pytest.mark.slow
def test_labels_say_what_was_proved(small, exact_file, tmp_path):
    out = tmp_path / "with"
    result = run("export", "--strategy", str(exact_file), "--out", str(out), "--format", "png")
    assert result.exit_code == 0, result.output
    assert "exact equilibrium" in (out / "summary.md").read_text()
    assert "exact" in json.loads((out / "strategy.json").read_text())
    rough = solve(BidouParams(faces=3, throws=2, max_level=2), "cfr+", iterations=50)
    plain = tmp_path / "plain"
    export_all(rough, plain, formats=("png",), draw_charts=False)
    text = (plain / "summary.md").read_text()
    assert "exact equilibrium" not in text
    bound = numbers.upper_decimal(rough.certificate.width / 2)
    assert f"- Quality: exploitability ≤ {bound} chips per hand (proved)" in text
    interval = {"certified_value": {"lower": "-1/10", "upper": "-1/20"}}
    assert numbers.quality(interval) == "exploitability ≤ 2.5e-02 chips per hand (proved)"
    assert numbers.quality({"exploitability": 0.1235}) == \
        "exploitability 0.1235 chips per hand"


@pytest.mark.slow
def test_charts_exact_recovers_the_exact_equilibrium(tmp_path):
    result = run("charts", *SMALL, "--exact", "--out", str(tmp_path), "--format", "png")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "remember_chart.png").stat().st_size > 10_000


# --- 4. outputs/ from anywhere, every file ---------------------------------------------------

def test_outputs_are_found_from_the_package():
    from solver.app.outputs import project_outputs

    assert project_outputs() == REPO / "outputs"


def test_outputs_check_refuses_a_folder_without_games_before_solving(tmp_path):
    result = CliRunner().invoke(main, ["outputs", "--check", "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.startswith("bidou: error: ") and "none of the solved games" in \
        result.output


@pytest.mark.slow
def test_outputs_check_compares_every_file_and_the_charts(tmp_path):
    from solver.app.outputs import publish, stale_files, write_outputs

    solutions = {"small": publish(solve(BidouParams(faces=2, throws=1, max_level=1)))}
    written = write_outputs(tmp_path, solutions, rounds=False, le_bidou=False)
    assert stale_files(tmp_path, solutions, rounds=False, le_bidou=False) == []
    names = {p.name for p in written}
    assert {"summary.md", "simplified_strategy.json", "remember_chart.png"} <= names
    chart = tmp_path / "small" / "remember_chart.png"
    chart.write_bytes(chart.read_bytes()[:-1] + b"x")
    (tmp_path / "small" / "summary.md").unlink()
    assert sorted(stale_files(tmp_path, solutions, rounds=False, le_bidou=False)) == sorted(
        [str(chart), str(tmp_path / "small" / "summary.md")])
    assert stale_files(tmp_path, solutions, charts=False, rounds=False, le_bidou=False) == [
        str(tmp_path / "small" / "summary.md")]


# --- 8, 9. help and errors ------------------------------------------------------------------

def test_help_is_complete_and_not_cut_off():
    text = run("--help").output
    commands = [line for line in text.split("Commands:")[1].splitlines() if line.strip()]
    assert not any("..." in line for line in commands)
    assert "Examples:" in text
    for command in main.commands:               # every command shows how it is used
        assert "Examples:" in run(command, "--help").output, command
    assert "How many hands to play" in run("play", "--help").output
    assert "1..20" in run("solve", "--help").output
    assert "Commands:" in CliRunner().invoke(main, []).output      # `bidou` alone: the help
    stats = run("stats", "--help").output
    assert "--faces" in stats and "--throws" not in stats and "--max-level" not in stats


@pytest.mark.parametrize("command", [
    ("solve",), ("evaluate", "--strategy", "s.json"), ("export", "--out", "o"),
    ("charts", "--out", "o"), ("cheatsheet", "--out", "o"), ("export-efg", "--out", "g.efg"),
    ("export-policy", "--out", "p.json"), ("play",), ("round",), ("stats",),
    ("convergence",), ("exploit", "--lock", "opponent"), ("site", "--out", "o"),
    ("manche",), ("sweep", "--out", "o")])
def test_the_aces_flag_is_refused_under_another_ranking(command, tmp_path, monkeypatch):
    """Every command that takes the rules refuses the flag where it changes nothing, before
    any work, in one line naming it, as it refuses --max-stake without --game le-bidou."""
    monkeypatch.chdir(tmp_path)
    for flag, value in (("--no-aces-beat-bidou", None), ("--aces-beat-bidou", "true")):
        args = [*command, "--ranking", "encyclopedia", flag]
        if command[0] == "sweep":
            args = [*command, "--ranking", "encyclopedia", "--aces-beat-bidou",
                    value or "false"]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        line, = result.output.strip().splitlines()
        assert line.startswith("bidou: error: --") and "aces-beat-bidou" in line, line
        assert "applies to --ranking french only, not to --ranking encyclopedia" in line
    assert os.listdir(tmp_path) == []


def test_rules_clash_names_the_options(exact_file):
    result = CliRunner().invoke(main, ["evaluate", "--strategy", str(exact_file),
                                       "--faces", "2"])
    assert result.exit_code == 2
    assert "--faces 3, not --faces 2" in result.output
    assert result.output.count("\n") == 1


def test_lp_json_status_is_a_word():
    summary = json.loads(run("lp", "kuhn_poker", "--json").output)
    assert summary["status"] == "optimal" and summary["linprog_status"] == 0
    assert summary["value"] == pytest.approx(-1 / 18, abs=1e-9)


def test_evaluate_says_what_exploitability_is_measured_against(tmp_path):
    out = tmp_path / "e"
    export_all(solve(BidouParams(faces=3, throws=2, max_level=2)), out, formats=("png",),
               draw_charts=False)
    result = run("evaluate", "--strategy", str(out / "simplified_strategy.json"))
    assert result.exit_code == 0, result.output
    assert "more than the pair value" in result.output
    assert "more than the game value -0.040339" in result.output


def test_play_ends_cleanly_at_end_of_input():
    result = CliRunner().invoke(main, ["play", *SMALL, "--seed", "1", "--role", "captain"],
                                input="")
    assert result.exit_code == 0, result.output
    assert "Aborted" not in result.output and "Game over" in result.output
    assert "ranking of hands" in result.output               # the rules come first


def test_play_reviews_each_hand():
    result = CliRunner().invoke(main, ["play", *SMALL, "--seed", "2", "--role", "captain",
                                       "--hands", "2"], input="s\np\nc\nc\ns\nb\nc\nc\n")
    assert result.exit_code == 0, result.output
    assert "equilibrium:" in result.output and "Score after 2 hands" in result.output
    assert "±" in result.output


# --- 11. the benchmark without the test extra ------------------------------------------------

def test_bench_lp_starts_without_the_test_extra(tmp_path):
    """benchmarks/bench_lp.py, run as a newcomer runs it, needs nothing of the test extra to
    start: with cvxpy and pygambit unimportable it prints its help (the peers that need
    them are looked up only when their part runs, and skipped with a message)."""
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    for name in ("cvxpy", "pygambit"):
        (hidden / f"{name}.py").write_text(f"raise ImportError('{name}: hidden by the test')\n")
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(hidden), os.environ.get("PYTHONPATH")]))}
    for name in ("cvxpy", "pygambit"):                      # hidden indeed
        probe = subprocess.run([sys.executable, "-c", f"import {name}"], env=env,
                               capture_output=True, text=True, timeout=120)
        assert probe.returncode != 0 and "hidden by the test" in probe.stderr
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench_lp.py"), "--help"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "--quick" in done.stdout and "hidden by the test" not in done.stderr




# --- 7. docs describe the solution pictured ---------------------------------------------------

def test_charts_doc_passages_come_from_the_outputs():
    from solver.app.docs import update_charts_doc

    assert update_charts_doc(REPO / "outputs", write=False), \
        "docs/charts.md describes other outputs: run `bidou outputs`"
    text = (REPO / "docs" / "charts.md").read_text()
    summary = json.loads((REPO / "outputs" / "default" / "summary.json").read_text())
    assert f"**{summary['simplified']['exploitability']:.3f} chips per hand**" in text


def test_the_reading_passage_follows_the_table():
    from solver.app.docs import reading
    from solver.export.tables import read_csv

    rows = read_csv(REPO / "outputs" / "default" / "betting.csv")
    before = reading([dict(r) for r in rows])
    for row in rows:           # make the captain slow-play every triple
        if (row["captain_throws"], row["opponent_throws"], row["history"]) == ("1", "1", "") \
                and row["name"].startswith("three "):
            row.update({"play": "pass", "pass": "1", "bet": "0"})
    after = reading(rows)
    assert "passes with the triples" in after and "passes with the triples" not in before
