"""Tests of the tables, charts and simplified strategy (solver/export/)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.cheatsheet import simplify
from solver.export import charts, tables
from solver.export.bundle import export_all, export_charts, unpack
from solver.hand import best_response
from solver.hand.reach import own_reach
from solver.hand.solve import solve
from solver.hand.strategy import StrategyFileError, load_strategy_file

SMALL = BidouParams(faces=3, throws=2, max_level=2)
SMALL_KEEP = BidouParams(faces=3, throws=2, max_level=2, reroll="keep")
DPI = 60


@pytest.fixture(scope="module")
def small():
    return solve(SMALL)


@pytest.fixture(scope="module")
def small_keep():
    return solve(SMALL_KEEP)


@pytest.fixture(scope="module")
def exported(small, tmp_path_factory):
    out = tmp_path_factory.mktemp("export")
    return out, export_all(small, out, dpi=DPI)


def _action_sum(row, table):
    return sum(float(row[c]) for c in table.probability_columns
               if row.get(c) not in (None, ""))


# --- tables ---------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["small", "small_keep"])
def test_reroll_rows_one_per_decision_and_hand(which, request):
    sol = request.getfixturevalue(which)
    model = sol.model
    table = tables.reroll_table(model, sol.strategy)
    T, n = model.throws, model.num_hands
    assert len(table.rows) == (1 + T) * (T - 1) * n
    keys = {(r["player"], r["captain_throws"], r["throw"], r["hand"]) for r in table.rows}
    assert len(keys) == len(table.rows)
    for row in table.rows:
        assert _action_sum(row, table) == pytest.approx(1.0, abs=1e-9)
        assert 0.0 <= row["reached"] <= 1.0
    ranked = [rules.format_hand(h) for h in rules.ranked_hands(model.params.faces,
                                                                model.params.ranking)]
    first = [r["hand"] for r in table.rows if r["player"] == "captain" and r["throw"] == 1]
    assert first == ranked
    assert [r["rank"] for r in table.rows[:n]] == list(range(1, n + 1))
    assert table.rows[0]["name"] == "bidou"


def test_keep_table_names_kept_dice(small_keep):
    table = tables.reroll_table(small_keep.model, small_keep.strategy)
    assert "keep 3-3" in table.columns and "reroll" in table.columns
    row = next(r for r in table.rows if r["hand"] == "3-1-1")
    assert row["keep 3-3"] is None          # cannot keep dice one does not hold
    assert any(r["play"].startswith("keep") for r in table.rows)


def test_betting_rows_one_per_decision_and_hand(small):
    model = small.model
    table = tables.betting_table(model, small.strategy)
    nodes = sum(len(model.tree(p).nodes) for p in model.public_states)
    assert len(table.rows) == nodes * model.num_hands
    keys = {(r["captain_throws"], r["opponent_throws"], r["history"], r["hand"])
            for r in table.rows}
    assert len(keys) == len(table.rows)
    for row in table.rows:
        assert _action_sum(row, table) == pytest.approx(1.0, abs=1e-9)
        node = model.tree((row["captain_throws"], row["opponent_throws"])).node(row["history"])
        assert row["actor"] == ("captain", "opponent")[node.actor]
        assert row["level"] == node.level
        for action in tables.BETTING_ACTIONS:
            assert (row[action] is None) == (action not in node.actions)
    row = next(r for r in table.rows if (r["captain_throws"], r["opponent_throws"],
                                         r["history"]) == (1, 1, "br"))
    assert row["situation"] == "captain bets, opponent raises"
    assert row["first_bettor"] == "captain"
    row = next(r for r in table.rows if (r["captain_throws"], r["opponent_throws"],
                                         r["history"]) == (2, 1, "pb"))
    assert row["situation"] == "opponent passes, captain bets"


def test_spelled_history():
    assert tables.spell_history("", CAPTAIN) == "opening"
    assert tables.spell_history("pbr", OPPONENT) == \
        "opponent passes, captain bets, opponent raises"


def test_reached_column_is_own_reach(small):
    model, strategy = small.model, small.strategy
    table = tables.betting_table(model, strategy)
    _, reach = own_reach(model, strategy, CAPTAIN)
    index = {rules.format_hand(h): i for i, h in enumerate(model.hands)}
    for row in table.rows:
        if row["actor"] != "captain":
            continue
        key = (row["captain_throws"], row["opponent_throws"], row["history"])
        assert row["reached"] == pytest.approx(reach[key][0][index[row["hand"]]], abs=1e-11)
    # some decisions are off the path (e.g. weak hands never stop after one throw)
    assert any(r["reached"] == 0 for r in table.rows)
    assert any(r["reached"] > 0 for r in table.rows)


def test_csv_parses_back(exported, small):
    out, _ = exported
    for name in ("reroll", "betting"):
        table = (tables.reroll_table if name == "reroll" else tables.betting_table)(
            small.model, small.strategy)
        rows = tables.read_csv(out / f"{name}.csv")
        assert len(rows) == len(table.rows)
        assert tuple(rows[0].keys()) == table.columns
        for parsed, row in zip(rows, table.rows):
            assert parsed["hand"] == row["hand"]
            assert _action_sum(parsed, table) == pytest.approx(1.0, abs=1e-8)
            assert float(parsed["reached"]) == pytest.approx(row["reached"], abs=1e-9)


def test_markdown_has_headers(exported):
    out, _ = exported
    reroll = (out / "reroll.md").read_text()
    betting = (out / "betting.md").read_text()
    assert reroll.startswith("# Throwing decisions")
    assert "| Rank | Hand | Name | After throw 1 |" in reroll
    assert betting.startswith("# Betting decisions")
    assert "| Rank | Hand | captain opens |" in betting
    assert "2-1-1 bidou" in betting
    assert "(" in betting               # off-path decisions are marked


def test_value_columns_are_the_action_values(small):
    """Each row's chips_ columns are the library's action values; at a decision both
    players reach, the equilibrium's played actions are worth the most, and chips_play is
    that worth."""
    from solver.analysis.action_values import action_values

    model, strategy = small.model, small.strategy
    values = action_values(model, strategy)
    index = {rules.format_hand(h): i for i, h in enumerate(model.hands)}
    table = tables.betting_table(model, strategy, values=values)
    assert {"chips_play", "chips_fold", "chips_raise", "off_path"} <= set(table.columns)
    checked = 0
    for row in table.rows:
        decision = values.bet(row["captain_throws"], row["opponent_throws"], row["history"])
        h = index[row["hand"]]
        assert row["off_path"] == decision.off_path
        for action in tables.BETTING_ACTIONS:
            legal = action in decision.actions
            assert (row[f"chips_{action}"] is None) == (not legal)
            assert (row[action] is None) == (not legal)
            if legal:
                assert row[f"chips_{action}"] == pytest.approx(
                    decision.values[h][decision.actions.index(action)], abs=1e-11)
        if row["reached"] > 0 and not row["off_path"]:
            best = max(row[f"chips_{a}"] for a in decision.actions)
            assert row["chips_play"] == pytest.approx(best, abs=1e-9)
            for a in decision.actions:
                if row[a] > 1e-6:
                    assert row[f"chips_{a}"] == pytest.approx(best, abs=1e-9)
            checked += 1
    assert checked > 30 and any(r["off_path"] for r in table.rows)
    # a row known by hand: in the 3-face game the captain holding 2-1-1 (nothing beats it)
    # gets +1 chip facing a fold after his bet, so folding himself is worth exactly -1
    row = next(r for r in table.rows if r["history"] == "pb" and r["hand"] == "2-1-1"
               and (r["captain_throws"], r["opponent_throws"]) == (1, 1))
    assert row["chips_fold"] == -1.0 and row["chips_call"] > 0


def test_reroll_value_columns(small_keep):
    model, strategy = small_keep.model, small_keep.strategy
    table = tables.reroll_table(model, strategy)
    for row in table.rows:
        for action in table.probability_columns:
            assert (row[f"chips_{action}"] is None) == (row[action] is None)
        played = [row[f"chips_{a}"] for a in table.probability_columns
                  if row[a] is not None and row[a] > 1e-6]
        assert row["chips_play"] == pytest.approx(
            sum(row[a] * row[f"chips_{a}"] for a in table.probability_columns
                if row[a] is not None), abs=1e-9)
        if row["reached"] > 0 and not row["off_path"]:
            best = max(row[f"chips_{a}"] for a in table.probability_columns
                       if row[a] is not None)
            assert max(played) == pytest.approx(best, abs=1e-9)
            assert min(played) == pytest.approx(best, abs=1e-9)


def test_json_tables_read_back(exported, small):
    out, _ = exported
    for name in ("reroll", "betting"):
        document = json.loads((out / f"{name}.json").read_text())
        table = (tables.reroll_table if name == "reroll" else tables.betting_table)(
            small.model, small.strategy)
        assert document["schema"] == "bidou-table" and document["schema_version"] == 1
        assert document["rules"] == SMALL.to_dict()
        assert tuple(document["columns"]) == table.columns
        assert len(document["rows"]) == len(table.rows)
        for parsed, row in zip(document["rows"], table.rows):
            assert dict(zip(document["columns"], parsed)) == row
    csv_rows = tables.read_csv(out / "betting.csv")
    assert {r["off_path"] for r in csv_rows} == {"yes", "no"}
    assert "chips_call" in csv_rows[0]
    markdown = (out / "betting.md").read_text()
    assert "[fold -1.000, call " in markdown and "†" in markdown


# --- files ----------------------------------------------------------------------------------

def test_export_all_files(exported, small):
    out, paths = exported
    names = sorted(p.name for p in paths)
    expected = ["summary.md", "summary.json", "strategy.json", "simplified_strategy.json",
                "reroll.csv", "reroll.md", "reroll.json", "betting.csv", "betting.md",
                "betting.json"]
    stems = charts.chart_stems(small.model)
    assert stems[0] == "reroll_chart" and stems[-1] == "remember_chart"
    expected += [f"{stem}.{fmt}" for stem in stems for fmt in ("pdf", "png", "svg")]
    expected += ["betting_charts.pdf"]
    assert names == sorted(expected)
    assert sorted(p.name for p in out.iterdir()) == names     # nothing else, no temp files
    for path in paths:
        assert path.stat().st_size > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["value"] == pytest.approx(small.value)
    assert sorted(summary["files"]) == names
    assert summary["simplified"]["exploitability"] >= summary["exploitability"]
    text = (out / "summary.md").read_text()
    assert "Value of the hand to the captain" in text and "Exploitability" in text
    model, strategy, _ = load_strategy_file(out / "strategy.json")
    assert model.params == SMALL
    _, simple, result = load_strategy_file(out / "simplified_strategy.json")
    assert simplify.is_pure(simple)
    assert result["exploitability"] == pytest.approx(summary["simplified"]["exploitability"])


def test_chart_files_are_real(exported):
    out, _ = exported
    assert (out / "reroll_chart.pdf").read_bytes().startswith(b"%PDF")
    assert (out / "reroll_chart.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in (out / "reroll_chart.svg").read_bytes()[:2000]
    pdf = (out / "remember_chart.pdf").read_bytes()
    assert b"CreationDate" not in pdf


def test_betting_booklet_is_the_index_then_every_public_state(exported, small):
    out, _ = exported
    pdf = (out / "betting_charts.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and b"CreationDate" not in pdf
    assert pdf.count(b"/Type /Page\n") + pdf.count(b"/Type /Page ") + pdf.count(
        b"/Type /Page>") == 1 + len(small.model.public_states)


def test_columns_are_found_by_the_betting_so_far_in_words():
    assert charts.plain_history("", CAPTAIN, CAPTAIN) == "nothing\nbet yet"
    assert charts.plain_history("pbr", CAPTAIN, OPPONENT) == "he passed\nyou bet\nhe raised"
    assert charts.plain_history("b", OPPONENT, CAPTAIN) == "he bet"


def test_one_colour_one_meaning():
    colours = [s.color for k, s in charts.THROW_STYLES.items()] + [
        s.color for k, s in charts.BET_STYLES.items() if k != "raise"]
    assert len(colours) == len(set(colours)) == 8
    assert charts.BET_STYLES["raise"] == charts.BET_STYLES["bet"]


def test_value_text_spells_each_action_and_its_chips():
    assert charts.value_text(("fold", "call", "raise"), (-1.0, 2.84, 2.86), False) \
        == "f−1 c+2.8 r+2.9"
    assert charts.value_text(("pass", "bet"), (0.04, -0.3), True) == "p0 b−0.3†"
    assert charts.value_text(("fold", "call", "raise"), (-1.0, 8.0, None), True) \
        == "f−1 c+8†"             # raise not legal


def test_betting_chart_of_values_prints_the_library_numbers(small):
    """The values page of one decider: his decisions alone, each cell the action values of
    solver/analysis/action_values.py, "†" exactly where the decision is off the path."""
    from solver.analysis.action_values import action_values

    model, strategy = small.model, small.strategy
    values = action_values(model, strategy)
    figure = charts.make_figure(charts.betting_figure, model, strategy, (1, 1), None, None,
                                values, OPPONENT)
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert "Opponent decides" in texts and "Captain decides" not in texts
    bidou = model.hands.index((2, 1, 1))
    for history in charts.player_decisions(model, (1, 1), OPPONENT):
        decision = values.bet(1, 1, history)
        expected = charts.value_text(decision.actions, decision.values[bidou],
                                     decision.off_path)
        assert expected in texts
        assert expected.endswith("†") == decision.off_path
    with pytest.raises(ValueError):
        charts.betting_figure(model, strategy, (1, 1), None, None, values)


def test_every_slice_of_a_mixed_cell_is_labelled():
    canvas = charts.Canvas((2, 1))
    cell = charts.Cell((charts.Segment(0.97, "keep2", "6-6"), charts.Segment(0.03, "keep2", "6-5")),
                       True)
    charts.draw_cell(canvas, 0, 0, 1.0, 0.2, cell, charts.THROW_STYLES, 6)
    texts = [t.get_text() for t in canvas.ax.texts]
    assert texts == ["6-6 97% | 6-5 3%"]


@pytest.mark.slow
def test_charts_are_deterministic(exported, small, tmp_path):
    out, _ = exported
    again = export_charts(small, tmp_path, dpi=DPI)
    assert again
    for path in again:
        assert path.read_bytes() == (out / path.name).read_bytes(), path.name


@pytest.mark.slow
def test_keep_charts(small_keep, tmp_path):
    paths = export_charts(small_keep, tmp_path, formats=("png", "svg"), dpi=DPI)
    assert [p.name for p in paths][:2] == ["reroll_chart.png", "reroll_chart.svg"]
    assert all(p.stat().st_size > 1000 for p in paths)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp")]


def test_write_failure_leaves_nothing(small, tmp_path, monkeypatch):
    """A chart that fails to render writes no file, complete or partial."""
    def boom(*args, **kwargs):
        raise RuntimeError("render failed")
    monkeypatch.setattr(charts, "figure_bytes", boom)
    with pytest.raises(RuntimeError):
        export_charts(small, tmp_path, formats=("png",))
    assert list(tmp_path.iterdir()) == []


def test_unpack_tuple_computes_numbers(small):
    model, strategy, summary = unpack((small.model, small.strategy))
    assert summary["value"] == pytest.approx(small.value, abs=1e-9)
    assert summary["exploitability"] < 1e-9
    assert summary["certified_value"]["lower_decimal"].startswith("-0.0")
    # a recorded value is kept if the strategy bears it out; exploitability is measured
    recorded = {"value": small.value + 1e-12, "exploitability": 0.5}
    _, _, kept = unpack((small.model, small.strategy, recorded))
    assert kept["value"] == small.value + 1e-12 and kept["exploitability"] < 1e-9
    with pytest.raises(StrategyFileError, match="is not its value"):
        unpack((small.model, small.strategy, {"value": 1.5}))


def test_one_throw_has_no_reroll_chart(tmp_path):
    sol = solve(BidouParams(faces=2, throws=1, max_level=1))
    assert tables.reroll_table(sol.model, sol.strategy).rows == ()
    paths = export_charts(sol, tmp_path, formats=("png",), dpi=DPI)
    assert [p.name for p in paths] == ["betting_chart_c1_o1.png", "remember_chart.png"]
    assert "no throwing decision" in tables.reroll_markdown(sol.model, sol.strategy)


# --- simplified strategy --------------------------------------------------------------------

@pytest.mark.parametrize("which", ["small", "small_keep"])
def test_simplified_is_pure_and_no_better(which, request):
    sol = request.getfixturevalue(which)
    simple = simplify.simplify(sol.model, sol.strategy, sol.value)
    assert simplify.is_pure(simple.strategy)
    e = simple.exploitability
    assert e.exploitability >= sol.exploitability.exploitability - 1e-12
    assert e.exploitability == pytest.approx(
        best_response.exploitability(sol.model, simple.strategy).exploitability)
    assert simple.captain_loss >= -1e-9 and simple.opponent_loss >= -1e-9
    assert simple.captain_loss + simple.opponent_loss == pytest.approx(e.nash_conv)
    T = sol.model.throws
    assert len(simple.thresholds) == (1 + T) * (T - 1)
    # the search never does worse than the majority thresholds
    majority = simplify.simplify(sol.model, sol.strategy, sol.value, optimize=False)
    assert e.exploitability <= majority.exploitability.exploitability + 1e-12


@pytest.mark.parametrize("which", ["small", "small_keep"])
def test_simplified_stops_by_threshold(which, request):
    sol = request.getfixturevalue(which)
    model = sol.model
    simple = simplify.simplify(model, sol.strategy, sol.value)
    order = tables.ranked_indices(model)
    for rule in simple.thresholds:
        context = 0 if rule.player == CAPTAIN else rule.context - 1
        stop = simple.strategy.throw[rule.player][context, rule.throw - 1, 0][order]
        assert list(stop) == [1.0] * rule.stop_count + [0.0] * (model.num_hands - rule.stop_count)
    assert all("after throw" in line for line in simple.describe())


def test_round_strategy_takes_most_likely(small):
    rounded = simplify.round_strategy(small.model, small.strategy)
    for key, probs in small.strategy.betting.items():
        picked = rounded.betting[key].argmax(axis=0)
        assert np.all(probs[picked, np.arange(probs.shape[1])] >= probs.max(axis=0) - 1e-9)
