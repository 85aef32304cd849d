"""The exports on the command line: `bidou lp` with its exact value and policy
file, OpenSpiel tabular policies, Gambit .efg files and Parquet tables."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pyspiel
import pytest
from click.testing import CliRunner
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability as os_exploitability
from open_spiel.python.algorithms import sequence_form_lp

import games.bidou.game  # noqa: F401  (registers python_bidou)
from games.bidou.params import BidouParams
from solver.app.cli import main
from solver.checks.openspiel_exact import prove
from solver.checks.openspiel_lp import solve_run
from solver.hand.exact.certificate import float_down, float_up
from solver.pipeline.hand import solve_hand


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def load_policy(path) -> tuple[pyspiel.Game, policy_lib.TabularPolicy]:
    """The loader of docs/exports.md, as a user would write it."""
    document = json.loads(open(path).read())
    game = pyspiel.load_game(document["game"])
    tabular = policy_lib.TabularPolicy(game)
    for player in document["players"]:
        for key, entry in player.items():
            row = tabular.policy_for_key(key)
            row[:] = 0.0
            row[entry["actions"]] = entry["probabilities"]
    return game, tabular


# ---- 1. bidou lp: the exact fraction, and the strategies with --out -------------------

def test_lp_kuhn_prints_the_exact_fraction():
    result = run("lp", "kuhn_poker")
    assert result.exit_code == 0, result.output
    assert "value -1/18 (= -0.0555555556) to player 0, proved exact" in result.output
    summary = json.loads(run("lp", "kuhn_poker", "--json").output)
    assert summary["exact"] == "-1/18" and summary["proved"] == "exact"
    assert summary["lower"] <= -1 / 18 <= summary["upper"]
    assert summary["why_not"] is None


def test_lp_out_writes_an_exact_equilibrium_that_openspiel_loads(tmp_path):
    out = tmp_path / "kuhn.json"
    result = run("lp", "kuhn_poker", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == (f"wrote {out} (both players' strategies, an "
                                              "OpenSpiel policy file, exact fractions)")
    as_json = run("lp", "kuhn_poker", "--json", "--out", str(out)).output
    assert json.loads(as_json)["exact"] == "-1/18"         # the JSON alone, as solve does
    document = json.loads(out.read_text())
    assert document["schema"] == "bidou-openspiel-policy" and document["schema_version"] == 1
    assert document["game"] == "kuhn_poker" and document["result"]["exact"] == "-1/18"
    assert [len(p) for p in document["players"]] == [6, 6]
    for player in document["players"]:
        for entry in player.values():
            assert sum(Fraction(p) for p in entry["exact"]) == 1
            assert [float(Fraction(p)) for p in entry["exact"]] == entry["probabilities"]
    game, tabular = load_policy(out)
    assert os_exploitability.nash_conv(game, tabular) == pytest.approx(0, abs=1e-12)
    # player 1 bets a third of the time with the Jack after a pass (Kuhn's equilibrium)
    assert document["players"][1]["0p"]["exact"] == ["2/3", "1/3"]


@pytest.mark.slow
def test_lp_leduc_matches_openspiel_and_proves_an_interval():
    """Leduc's LP strategies have no small fractions: the fallback proves an interval."""
    v0, v1, _, _ = sequence_form_lp.solve_zero_sum_game(pyspiel.load_game("leduc_poker"))
    summary = json.loads(run("lp", "leduc_poker", "--json").output)
    assert summary["value"] == pytest.approx(v0, abs=1e-8)
    assert summary["value"] == pytest.approx(-0.085606424078, abs=1e-12)
    assert summary["exact"] is None and summary["proved"] == "interval"
    assert summary["lower"] <= summary["value"] <= summary["upper"]
    assert summary["upper"] - summary["lower"] < 1e-12
    assert "no rationalisation of the LP's strategies" in summary["why_not"]
    line = run("lp", "leduc_poker").output
    assert "proved in [" in line and "no exact fraction recovered" in line


def test_lp_out_without_an_exact_fraction_writes_the_lps_floats(tmp_path):
    out = tmp_path / "leduc.json"
    assert run("lp", "leduc_poker", "--out", str(out)).exit_code == 0
    document = json.loads(out.read_text())
    assert document["result"]["exact"] is None
    assert not any("exact" in entry for player in document["players"]
                   for entry in player.values())
    game, tabular = load_policy(out)
    assert os_exploitability.nash_conv(game, tabular) < 1e-9


@pytest.mark.parametrize("kwargs", [dict(faces=3, throws=1, max_level=3, ranking="french"),
                                    dict(faces=2, throws=2, max_level=1, reroll="keep")])
def test_lp_python_bidou_matches_the_projects_exact_value(kwargs):
    params = BidouParams(**kwargs)
    ours = solve_hand(params, exact=True).solution.certificate
    assert ours is not None and ours.exact is not None
    summary = json.loads(run("lp", params.to_game_string(), "--json").output)
    assert Fraction(summary["exact"]) == ours.exact


def test_prove_without_exact_numbers_says_why():
    run_ = solve_run("kuhn_poker")                 # exact terms not asked for
    proof = prove(run_)
    assert proof.value is None and proof.lower is None
    assert "not asked for" in proof.why_not


def test_proved_bounds_round_outward():
    third = Fraction(1, 3)
    assert Fraction(float_down(third)) <= third <= Fraction(float_up(third))
    assert float_down(Fraction(1, 2)) == float_up(Fraction(1, 2)) == 0.5


# ---- 2. OpenSpiel tabular policies of python_bidou ------------------------------------

SMALL = ("--faces", "2", "--throws", "2", "--max-level", "2")


@pytest.mark.slow
def test_export_policy_of_a_bad_strategy_file_matches_openspiel(tmp_path):
    """A strategy far from equilibrium (uniform betting): OpenSpiel's own exploitability of
    the exported policy is the project's, measured by `bidou evaluate`."""
    solved = tmp_path / "s.json"
    assert run("solve", *SMALL, "--plain", "--out", str(solved)).exit_code == 0  # no exact part
    uniform = json.loads(solved.read_text())
    for entry in uniform["betting"]:
        k = len(entry["actions"])
        entry["probabilities"] = [[1 / k] * len(row) for row in entry["probabilities"]]
    bad = tmp_path / "uniform.json"
    bad.write_text(json.dumps(uniform))
    ours = json.loads(run("evaluate", "--strategy", str(bad), "--json").output)
    out = tmp_path / "policy.json"
    result = run("export-policy", "--strategy", str(bad), "--out", str(out))
    assert result.exit_code == 0, result.output
    game, tabular = load_policy(out)
    theirs = os_exploitability.exploitability(game, tabular)
    assert theirs == pytest.approx(ours["exploitability"], abs=1e-9)
    assert theirs > 0.05
    for player in json.loads(out.read_text())["players"]:
        for entry in player.values():
            assert sum(entry["probabilities"]) == pytest.approx(1, abs=1e-12)


@pytest.mark.slow
def test_export_policy_of_an_exact_equilibrium_keeps_the_fractions(tmp_path):
    """The equilibrium of a strategy file from `solve --exact`: its fractions at every
    faithful information state, and OpenSpiel's exploitability 0, as the project's."""
    solved = tmp_path / "exact.json"
    assert run("solve", *SMALL, "--exact", "--out", str(solved)).exit_code == 0
    out = tmp_path / "policy.json"
    result = run("export-policy", "--strategy", str(solved), "--out", str(out))
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["schema"] == "bidou-openspiel-policy"
    assert document["game"] == BidouParams(faces=2, throws=2, max_level=2).to_game_string()
    assert document["result"]["value"] == pytest.approx(-15 / 512, abs=1e-12)
    assert document["result"]["exploitability"] < 1e-12
    assert document["result"]["certified_value"]["exact"] == "-15/512"
    entries = [entry for player in document["players"] for entry in player.values()]
    assert len(entries) == 252
    for entry in entries:
        assert sum(Fraction(p) for p in entry["exact"]) == 1
        assert [float(Fraction(p)) for p in entry["exact"]] == pytest.approx(
            entry["probabilities"], abs=1e-15)
    game, tabular = load_policy(out)
    assert os_exploitability.exploitability(game, tabular) == pytest.approx(0, abs=1e-12)


def test_export_policy_refuses_a_big_game_before_solving(tmp_path, monkeypatch):
    import solver.hand.solve

    def must_not_solve(*args, **kwargs):
        raise AssertionError("solved a game too big to export")

    monkeypatch.setattr(solver.hand.solve, "solve", must_not_solve)
    result = run("export-policy", "--out", str(tmp_path / "p.json"))
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "bidou: error: export-policy walks every history" in result.output
    assert "above the limit of 1,000,000" in result.output
    assert not (tmp_path / "p.json").exists()


# ---- 3. Gambit .efg files ---------------------------------------------------------------

def test_export_efg_reads_back_into_pygambit_with_the_projects_value(tmp_path):
    pygambit = pytest.importorskip("pygambit")
    kwargs = dict(faces=2, throws=1, max_level=2, ranking="french")
    out = tmp_path / "game.efg"
    result = run("export-efg", "--faces", "2", "--throws", "1", "--max-level", "2",
                 "--ranking", "french", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "245 nodes" in result.output
    text = out.read_text()          # the game's own names (action_to_string), not its ids
    assert '{ "throw 2-2-2" 1/8 "throw 2-2-1" 3/8 "throw 2-1-1" 3/8 "throw 1-1-1" 1/8 }' in text
    assert '{ "pass" "bet" }' in text and '{ "fold" "call" "raise" }' in text
    assert not re.search(r'"\d+"', text)
    game = pygambit.read_efg(str(out))
    assert len(game.players) == 2
    equilibrium = pygambit.nash.lp_solve(game, rational=True).equilibrium
    theirs = Fraction(equilibrium.payoffs[list(game.players)[0]])
    ours = solve_hand(BidouParams(**kwargs), exact=True).solution.certificate
    assert ours is not None and ours.exact == theirs == Fraction(-17, 256)


def test_export_efg_refuses_a_big_tree_in_one_line(tmp_path):
    out = tmp_path / "game.efg"
    result = run("export-efg", "--faces", "4", "--throws", "2", "--out", str(out))
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "export-efg walks every history" in result.output
    assert "above the limit of 200,000" in result.output
    assert not out.exists()


# ---- 4. Parquet tables ----------------------------------------------------------------

def _decisions_sum_to_one(path, keys) -> int:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    grouped = table.group_by(list(keys)).aggregate([("probability", "sum")])
    sums = grouped.column("probability_sum").to_pylist()
    assert min(sums) == pytest.approx(1, abs=1e-9) and max(sums) == pytest.approx(1, abs=1e-9)
    assert pc.min(table.column("probability")).as_py() >= 0
    return len(sums)


@pytest.mark.slow
def test_parquet_tables_of_the_default_game(tmp_path):
    """Typed columns, one row per (decision, hand, action), each decision summing to 1."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from solver.export.parquet import write_parquet_tables
    from solver.export.tables import betting_table, reroll_table
    from solver.hand.solve import solve

    solution = solve(BidouParams())
    paths = write_parquet_tables(solution.model, solution.strategy, tmp_path)
    assert [p.name for p in paths] == ["reroll.parquet", "betting.parquet"]
    betting = pq.read_table(tmp_path / "betting.parquet")
    schema = betting.schema
    assert schema.field("captain_throws").type == pa.int16()
    assert schema.field("level").type == pa.int16()
    assert schema.field("probability").type == pa.float64()
    assert schema.field("action").type == pa.string()
    assert "play" not in schema.names and "bet" not in schema.names
    assert json.loads(schema.metadata[b"bidou.rules"]) == BidouParams().to_dict()
    assert schema.metadata[b"bidou.table"] == b"betting"
    # the opening decision keeps its empty history (not null)
    assert "" in set(betting.column("history").to_pylist())
    decisions = _decisions_sum_to_one(tmp_path / "betting.parquet",
                                      ("captain_throws", "opponent_throws", "history", "hand"))
    assert decisions == len(betting_table(solution.model, solution.strategy).rows)
    decisions = _decisions_sum_to_one(tmp_path / "reroll.parquet",
                                      ("player", "captain_throws", "throw", "hand"))
    assert decisions == len(reroll_table(solution.model, solution.strategy).rows)
    reroll = pq.read_table(tmp_path / "reroll.parquet")
    captain = reroll.filter(pa.compute.equal(reroll.column("player"), "captain"))
    assert set(captain.column("captain_throws").to_pylist()) == {None}
    before = (tmp_path / "betting.parquet").read_bytes()
    write_parquet_tables(solution.model, solution.strategy, tmp_path)
    assert (tmp_path / "betting.parquet").read_bytes() == before      # stable bytes


def test_export_parquet_on_the_command_line(tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    result = run("export", "--faces", "2", "--throws", "1", "--parquet", "--format", "png",
                 "--out", str(out))
    assert result.exit_code == 0, result.output
    assert {"reroll.parquet", "betting.parquet"} <= {p.name for p in out.iterdir()}
    assert "betting.parquet" in json.loads((out / "summary.json").read_text())["files"]
    rows = pq.read_table(out / "betting.parquet").to_pylist()
    csv_rows = (out / "betting.csv").read_text().splitlines()[1:]
    # every CSV row is one decision and hand; each of its available actions one Parquet row
    assert len({(r["captain_throws"], r["history"], r["hand"]) for r in rows}) == len(csv_rows)


def test_prove_gives_up_the_exact_terms_past_their_cap(monkeypatch):
    from solver.checks import openspiel_lp

    monkeypatch.setattr(openspiel_lp, "MAX_EXACT_TERMS", 10)
    proof = prove(solve_run("kuhn_poker", exact=True))          # 30 terms
    assert proof.value is None and proof.lower is None
    assert "more than 10 payoff terms" in proof.why_not


# ---- every new command and option: a row of README's table and examples in --help -----

@pytest.mark.parametrize("command, row", [
    ("lp", "| `bidou lp GAME_STRING [--json] [--out FILE.json]` |"),
    ("export-policy",
     "| `bidou export-policy [rules] [--strategy FILE] [--exact] --out FILE.json` |"),
    ("export-efg", "| `bidou export-efg [rules] --out FILE.efg` |"),
    ("export", "[--parquet]"),
])
def test_new_commands_are_in_the_readme_and_their_help(command, row):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert row in readme
    text = run(command, "--help").output
    assert "Examples:" in text
    assert ("--out" if command != "export" else "--parquet") in text.split("Examples:")[1]


@pytest.mark.parametrize("command", [("lp", "kuhn_poker"), ("export-policy", *SMALL),
                                     ("export-efg", *SMALL)])
def test_an_unusable_destination_is_refused_before_any_work(tmp_path, monkeypatch, command):
    import solver.checks.openspiel_lp
    import solver.hand.solve

    def must_not_run(*args, **kwargs):
        raise AssertionError("worked although the destination is unusable")

    monkeypatch.setattr(solver.hand.solve, "solve", must_not_run)
    monkeypatch.setattr(solver.checks.openspiel_lp, "solve_run", must_not_run)
    monkeypatch.setattr(solver.checks.openspiel_lp, "estimate_histories", must_not_run)
    (tmp_path / "file").write_text("x")
    result = run(*command, "--out", str(tmp_path / "file" / "out.json"))
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert result.output.startswith("bidou: error: cannot write")


def test_parquet_gives_each_action_its_value_when_the_table_has_them():
    """A table with action values (`chips_<action>`, `chips_play`, `off_path`) becomes
    one `chips` per long row; the other columns are carried with their types."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from solver.export.parquet import long_rows, parquet_bytes
    from solver.export.tables import Table

    columns = ("captain_throws", "history", "hand", "reached", "play", "pass", "bet",
               "off_path", "chips_play", "chips_pass", "chips_bet")
    rows = ({"captain_throws": 1, "history": "", "hand": "2-1-1", "reached": 0.5,
             "play": "bet", "pass": 0.25, "bet": 0.75, "off_path": False,
             "chips_play": 1.5, "chips_pass": 0.5, "chips_bet": 1.75},)
    table = Table("betting", "Betting", columns, ("pass", "bet"), rows)
    assert long_rows(table) == [
        {"captain_throws": 1, "history": "", "hand": "2-1-1", "reached": 0.5,
         "off_path": False, "chips_play": 1.5, "action": "pass", "probability": 0.25,
         "chips": 0.5},
        {"captain_throws": 1, "history": "", "hand": "2-1-1", "reached": 0.5,
         "off_path": False, "chips_play": 1.5, "action": "bet", "probability": 0.75,
         "chips": 1.75}]
    read = pq.read_table(io.BytesIO(parquet_bytes(table, {"faces": 6})))
    assert read.schema.field("chips").type == pa.float64()
    assert read.schema.field("off_path").type == pa.bool_()
    assert read.column("chips").to_pylist() == [0.5, 1.75]
