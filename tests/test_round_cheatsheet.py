"""The round cheat sheet (solver/pipeline/round_cheatsheet.py): chip rules in words that
read back to the strategy whose cost is printed, and costs proved in the right order.

One small round (4 chips, 3 faces, 2 throws) is solved, saved and given a sheet once,
through `bidou round --cheatsheet` (the saved round read back), shared by every test; one
more sheet is made with a time limit that a counting clock makes stop the search."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from solver.app.cli import main
from solver.cheatsheet.round_rules import (
    Base,
    SheetPlay,
    parse_chip_rule,
    parse_chip_rules,
    sheet_strategies,
    strategy_in_stage,
)
from solver.cheatsheet.rulebook import RuleTextError
from solver.export.round_cheatsheet_page import FILES, cost_rows
from solver.hand.model import build_model

# every test reads the sheet the module's round command writes: about 7 s
pytestmark = pytest.mark.slow

SMALL = RoundParams(chips=4, hand=BidouParams(faces=3, throws=2))
OPTIONS = ["--chips", "4", "--faces", "3", "--throws", "2"]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """(the sheet's JSON document, its Markdown, the saved round rebuilt, the hand game's
    equilibrium): the command run once, reading the round it saved."""
    from solver.app.saved_rounds import read_saved
    from solver.pipeline.hand import solve_hand
    from solver.pipeline.round_cheatsheet import solution_from_saved

    out = tmp_path_factory.mktemp("sheet")
    runner = CliRunner()
    solved = runner.invoke(main, ["round", *OPTIONS])
    assert solved.exit_code == 0, solved.output
    result = runner.invoke(main, ["round", *OPTIONS, "--cheatsheet", "--base", "equilibrium",
                                  "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    for side in ("cheatsheet.png", "cheatsheet_back.png"):
        assert (out / side).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    solution = solution_from_saved(read_saved(SMALL, True))
    equilibrium = solve_hand(SMALL.hand).solution.strategy
    return document, (out / "cheatsheet.md").read_text(), solution, equilibrium, out


def _strategies(solution, equilibrium, chip_rules):
    hand = build_model(SMALL.hand)
    play = SheetPlay(hand, Base("the hand game's equilibrium", equilibrium))
    return sheet_strategies({s: st.model for s, st in solution.stages.items()}, play,
                            chip_rules)


def test_the_words_read_back_to_the_strategy_whose_cost_is_printed(made):
    from solver.pipeline.round_cheatsheet import prove_cost

    document, markdown, solution, equilibrium, _ = made
    hand = build_model(SMALL.hand)
    parsed = parse_chip_rules(hand, SMALL.chips, markdown.splitlines())
    assert 1 <= len(parsed) <= 12
    assert [r.to_dict() for r in parsed] == document["chip_rule_list"]
    assert f"1. {document['chip_rules'][0]}." in markdown
    cost = prove_cost(solution, _strategies(solution, equilibrium, parsed), "read back")
    printed = document["costs"][0]
    assert printed["name"] == "the round cheat sheet"
    assert str(cost.best_reply_upper) == printed["best_reply_upper"]
    assert str(cost.equilibrium_lower) == printed["equilibrium_lower"]
    assert str(cost.equilibrium_upper) == printed["equilibrium_upper"]
    # the page prints the same numbers, rounded up where they bound a cost from above
    row = cost_rows(document)[0]
    assert f"| {row[0]} | {row[1]} | {row[2]} |" in markdown
    assert float(row[1].removeprefix("at most ").rstrip("%")) >= 100 * cost.best_reply_upper


def test_proved_costs_are_ordered_and_the_chip_rules_buy_something(made):
    document, _, _, _, _ = made
    sheet, base = document["costs"]
    for cost in (sheet, base):
        upper, eq_low, eq_high = (Fraction(cost[k]) for k in
                                  ("best_reply_upper", "equilibrium_lower",
                                   "equilibrium_upper"))
        assert upper >= eq_high >= eq_low >= 0
        assert eq_high - eq_low < Fraction(1, 10 ** 9)          # proved to a tight bracket
        assert abs(float(upper) - cost["best_reply_estimate"]) < 1e-9
    assert base["name"] == "the hand game's equilibrium regardless of chips"
    assert 0.02 < base["best_reply"] < 0.5                    # chips matter in this round
    assert sheet["best_reply"] < base["best_reply"] - 0.005
    steps = [s["best_reply_cost"] for s in document["search"]["steps"]]
    assert steps == sorted(steps, reverse=True) and len(steps) == len(document["chip_rules"]) + 1
    assert abs(steps[0] - base["best_reply"]) < 1e-9 and abs(steps[-1] - sheet["best_reply"]) < 1e-9


def test_the_round_equilibrium_costs_nothing_and_the_exact_bracket_holds_the_float_chain(made):
    """Against itself the round's equilibrium loses nothing (both proofs); and the exact
    bracket of a sheet against the equilibrium contains `evaluate.pair_values`' floats."""
    from solver.cheatsheet.round_exact import exact_rows, prove_pair
    from solver.pipeline.round_cheatsheet import prove_cost
    from solver.round.evaluate import pair_values, solved

    _, markdown, solution, equilibrium, _ = made
    own = {s: st.strategy for s, st in solution.stages.items()}
    cost = prove_cost(solution, own, "the round's equilibrium")
    assert 0 <= cost.best_reply_upper < Fraction(1, 10 ** 9)
    assert cost.equilibrium_lower <= 0 <= cost.equilibrium_upper
    hand = build_model(SMALL.hand)
    sheet = _strategies(solution, equilibrium, parse_chip_rules(hand, SMALL.chips,
                                                                markdown.splitlines()))
    bounds = prove_pair(exact_rows(solution, lambda s: sheet[s]))
    floats = pair_values(solution, lambda s, _: sheet[s], solved)
    assert floats.keys() == bounds.lower.keys()
    for key, value in floats.items():
        assert bounds.lower[key] - Fraction(1, 10 ** 12) <= Fraction(value) \
            <= bounds.upper[key] + Fraction(1, 10 ** 12)


def test_a_forbidden_raise_is_a_call_and_a_forbidden_bet_a_pass(made):
    _, _, solution, equilibrium, _ = made
    hand = build_model(SMALL.hand)
    lacking = 0
    for state, stage in solution.stages.items():
        mapped = strategy_in_stage(stage.model, hand, equilibrium)
        for key, probs in mapped.betting.items():
            assert np.allclose(probs.sum(axis=0), 1.0)
            node = stage.model.tree(key[:2]).node(key[2])
            theirs = hand.tree(key[:2]).node(key[2])
            if "raise" in theirs.actions and "raise" not in node.actions:
                lacking += 1
                full = equilibrium.betting[key]
                assert np.allclose(probs[node.actions.index("call")],
                                   full[theirs.actions.index("call")]
                                   + full[theirs.actions.index("raise")])
    assert lacking > 0


def test_chip_rules_that_do_not_read_are_refused_in_one_line(made):
    document, _, _, _, _ = made
    hand = build_model(SMALL.hand)
    line = document["chip_rules"][0]
    assert parse_chip_rule(hand, SMALL.chips, line).to_dict() == document["chip_rule_list"][0]
    for bad in ("With the moon full: " + line.split(": ", 1)[1],
                line.replace("With ", "Without ", 1), line.split(": ", 1)[0]):
        with pytest.raises(RuleTextError):
            parse_chip_rule(hand, SMALL.chips, bad)
    result = CliRunner().invoke(main, ["round", *OPTIONS, "--cheatsheet", "--base",
                                       "no-such-sheet.md", "--out", "somewhere"])
    assert result.exit_code == 2 and "--base no-such-sheet.md" in result.output
    result = CliRunner().invoke(main, ["round", *OPTIONS, "--cheatsheet"])
    assert result.exit_code == 2 and "--cheatsheet needs --out" in result.output


def test_outputs_publish_the_sheet_over_the_published_hand_cheat_sheet():
    """The published round cheat sheets' base is the hand cheat sheet published for the
    round's hand rules, whose words read back to a rule book covering every decision."""
    from pathlib import Path

    from solver.app import round_outputs
    from solver.app.saved_rounds import published_hand_sheet
    from solver.cheatsheet.round_rules import base_from_sheet

    for name, params in round_outputs.ROUNDS.items():
        path = published_hand_sheet(params.hand)
        assert path is not None and path.name == "cheatsheet.md", name
        base = base_from_sheet(build_model(params.hand), Path(path).read_text())
        assert 3 <= len(base.rules) <= 12
        # its cost against the equilibrium says which equilibrium (the refined round's)
        from solver.export.round_cheatsheet_page import EQUILIBRIUM_NOTE

        published = Path(round_outputs.__file__).parents[2] / "outputs" / name / "cheatsheet.md"
        assert EQUILIBRIUM_NOTE in published.read_text()


def test_exact_transitions_agree_with_the_float_ones(made):
    """round_sheet_exact's integer leaf probabilities (prefix sums over the ranking, the
    exceptions moved) against stage.transitions' floats, at every state of the round."""
    from solver.cheatsheet.round_exact import exact_transitions
    from solver.round.stage import transitions

    _, _, solution, _, _ = made
    for state, stage in solution.stages.items():
        exact = exact_transitions(stage.model, state, stage.strategy)
        floats = transitions(stage.model, state, stage.strategy)
        assert sum(exact.values()) == 1
        assert {k for k, p in floats.items() if p > 1e-15} <= set(exact)
        assert max(abs(float(p) - floats.get(k, 0.0)) for k, p in exact.items()) < 1e-13


def test_exact_leaf_probabilities_follow_the_ranking_s_exceptions():
    """French ranking (1-1-1 beats 2-1-1, which is ranked above it): the exact showdown
    sums move those pairs, and agree with the float leaf probabilities."""
    from solver.cheatsheet.round_exact import _ExactPair
    from solver.hand.strategy import uniform_strategy
    from solver.round.stage import leaf_probabilities

    model = build_model(BidouParams(faces=3, throws=2, ranking="french"))
    assert model.exceptions
    strategy = uniform_strategy(model)
    from games.bidou.betting import SHOWDOWN, Role

    exact = _ExactPair(model, strategy).leaves()
    floats: dict = {}
    for (first, index, o), p in leaf_probabilities(model, strategy).items():
        shown = model.trees[Role(first)].leaves[index].kind == SHOWDOWN
        key = (first, index, o if shown else 0)     # no hands shown: one outcome
        floats[key] = floats.get(key, 0.0) + p
    assert sum(exact.values()) == 1 and set(exact) <= set(floats)
    for key, p in floats.items():
        assert abs(float(exact.get(key, 0)) - p) < 1e-15, key


def test_a_cost_that_cannot_be_proved_is_not_printed(made, monkeypatch, tmp_path):
    """No proof, no sheet: prove_cost raises SolverError and the command exits 1, writing
    nothing."""
    from solver.common.errors import SolverError
    from solver.pipeline import round_cheatsheet
    from solver.round.certify import RoundCertificateError

    _, _, solution, _, _ = made

    def refuse(_solution):
        raise RoundCertificateError("a deviator might keep the round going forever")

    monkeypatch.setattr(round_cheatsheet, "certify_round", refuse)
    own = {s: st.strategy for s, st in solution.stages.items()}
    with pytest.raises(SolverError, match="could not be proved: a deviator might keep"):
        round_cheatsheet.prove_cost(solution, own, "the round's equilibrium")
    monkeypatch.setattr(round_cheatsheet, "search", lambda *args: round_cheatsheet.
                        SearchOutcome([], [], 0.0, 0, round_cheatsheet.FINISHED))
    result = CliRunner().invoke(main, ["round", *OPTIONS, "--cheatsheet", "--base",
                                       "equilibrium", "--out", str(tmp_path / "out")])
    assert result.exit_code == 1 and "could not be proved" in result.output
    assert not (tmp_path / "out").exists()


def _texts(figure):
    from matplotlib.text import Text

    return [t for t in figure.findobj(Text) if t.get_text()]


def test_each_side_fits_its_page_and_prints_no_text_below_8_pt(made):
    """Both sides, A4 and Letter, with the sheet's rules and with twelve long ones: every
    text at 8 pt or more (the page's own size), none off the page, none over another."""
    from solver.export.cheatsheet_page import PAGES
    from solver.export.round_cheatsheet_page import MIN_PT, sides

    document = dict(made[0])
    many = document["chip_rules"] * (12 // len(document["chip_rules"]) + 1)
    for chip_rules in (document["chip_rules"], many[:12]):
        for page, size in PAGES.items():
            for figure in sides({**document, "chip_rules": chip_rules,
                                 "base_rules": many[:12]}, page):
                assert tuple(figure.get_size_inches()) == pytest.approx(size)
                texts = _texts(figure)
                assert min(t.get_fontsize() for t in texts) >= MIN_PT >= 8
                figure.canvas.draw()
                renderer = figure.canvas.get_renderer()
                width, height = figure.bbox.width, figure.bbox.height
                boxes = [t.get_window_extent(renderer) for t in texts]
                for t, box in zip(texts, boxes):
                    assert 0 <= box.x0 and box.x1 <= width and 0 <= box.y0 \
                        and box.y1 <= height, t.get_text()
                inner = [box.padded(-1.5) for box in boxes]     # touching is not over
                for i, a in enumerate(inner):
                    for j in range(i):
                        assert not a.overlaps(inner[j]), (texts[i].get_text(),
                                                          texts[j].get_text())


def test_the_sheet_is_two_sides_in_both_paper_sizes(made):
    """cheatsheet_a4.pdf and cheatsheet_letter.pdf hold two pages each (front, back)."""
    import re

    out = made[4]
    for name in ("cheatsheet_a4.pdf", "cheatsheet_letter.pdf"):
        data = (out / name).read_bytes()
        assert re.findall(rb"/Type /Page\b", data) and \
            re.findall(rb"/Count (\d+)", data) == [b"2"], name


def test_the_back_prints_the_ranking_the_open_throws_and_the_map(made):
    """The Markdown holds, as the solved round gives them: the hand ranking strongest
    first, each open throw's stopping line (open_throw.md's rows) and every state's chance
    to win (round.json's values); the back's figure prints the same."""
    from games.bidou import rules
    from solver.export.tables import hand_label
    from solver.round.open_throw_table import first_rows, open_throw_policies, tie_rows

    document, markdown, solution, _, _ = made
    ranked = rules.ranked_hands(SMALL.hand.faces, SMALL.hand.ranking)
    ranking = [f"- {i}: {hand_label(h, SMALL.hand.ranking)}" for i, h in enumerate(ranked, 1)]
    at = markdown.index("## Back: hand ranking (strongest first)")
    assert markdown[at:].split("\n")[2:2 + len(ranking)] == ranking
    report = {"states": document["back"]["states"]}
    policies = open_throw_policies(SMALL, report)
    assert policies
    for policy in policies:
        for row in first_rows(SMALL, policy.solved) + tie_rows(SMALL, policy.solved):
            assert f"after throw {row['after_throw']} with {row['stop_with']}" in markdown
        assert f"the first thrower wins {100 * policy.value:.1f}%" in markdown
    # the map: every chip state's value, as the round was solved, in its row
    table = [line for line in markdown.splitlines() if line.startswith("| ")]
    rows = {line.split(" | ")[0][2:]: line.strip("| ").split(" | ")[1:] for line in table}
    for state, value in solution.values.items():
        if hasattr(state, "captain"):
            assert rows[str(state.centre)][state.captain] == f"{100 * value:.1f}"
        else:
            assert rows[str(state.centre)][state.low] == f"{100 * value:.1f}*"
    from solver.export.round_cheatsheet_page import back_figure

    printed = " ".join(t.get_text() for t in _texts(back_figure(document)))
    assert hand_label(ranked[0], SMALL.hand.ranking) in printed
    assert "First thrower: stop" in printed and "chips in the centre" in printed
    assert "the round cheat sheet" in printed


def test_a_search_the_time_limit_stops_says_so(made, monkeypatch, tmp_path):
    """A clock that moves a second at each reading (deterministic: never the machine's
    time) and --seconds 5: the search stops after the fourth candidate; the command exits
    0, prints why and how far it went, and the sheet says it, never "no chip rule lowered
    the cost"; the finished search of the module's sheet says nothing of a limit."""
    import itertools

    from solver.export.round_cheatsheet_page import front_figure
    from solver.pipeline import round_cheatsheet

    ticks = itertools.count()
    monkeypatch.setattr(round_cheatsheet, "CLOCK", lambda: float(next(ticks)))
    out = tmp_path / "sheet"
    said = "Search stopped by the time limit (5 s) after 4 candidates: more chip rules " \
           "may lower the cost."
    result = CliRunner().invoke(main, ["round", *OPTIONS, "--cheatsheet", "--base",
                                       "equilibrium", "--seconds", "5", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert said in result.output
    markdown = (out / "cheatsheet.md").read_text()
    assert said in markdown and "no chip rule lowered the cost" not in markdown
    result = CliRunner().invoke(main, ["round", *OPTIONS, "--cheatsheet", "--base",
                                       "equilibrium", "--seconds", "5", "--out", str(out),
                                       "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output[result.output.index("{"):])
    assert document["search"]["stopped"] == round_cheatsheet.TIME_LIMIT
    assert document["search"]["candidates"] == 4
    front = " ".join(t.get_text() for t in _texts(front_figure(document)))
    assert "Search stopped by the time limit (5 s)" in front
    finished, markdown = made[0], made[1]
    assert finished["search"]["stopped"] in (round_cheatsheet.FINISHED, round_cheatsheet.FULL)
    assert "time limit" not in markdown


def test_the_published_sheets_are_made_again_from_the_saved_round_as_outputs_makes_them(
        made, monkeypatch, tmp_path):
    """`python -m solver.app.round_outputs` (write_round_cheatsheet) reads the round saved
    in outputs/<name>/ and writes what `bidou outputs` puts under the report's SHEET, file
    for file (what `--check` compares), and removes the one-page PDF no sheet writes."""
    import shutil

    from solver.app import round_outputs
    from solver.app.saved_rounds import read_saved
    from solver.pipeline.round_cheatsheet import solution_from_saved
    from solver.round.store import FILE_NAME, strategies_path

    saved = read_saved(SMALL, True)
    folder = tmp_path / "small"
    folder.mkdir()
    shutil.copy(saved.path, folder / FILE_NAME)
    shutil.copy(strategies_path(saved.path), strategies_path(folder / FILE_NAME))
    (folder / "cheatsheet.pdf").write_bytes(b"%PDF-1.4 a page of before\n")
    monkeypatch.setattr(round_outputs, "ROUNDS", {"small": SMALL})
    written = round_outputs.write_round_cheatsheet(tmp_path, "small")
    assert sorted(p.name for p in written) == sorted(FILES)
    assert not (folder / "cheatsheet.pdf").exists()
    expected = round_outputs.round_cheatsheet_files(solution_from_saved(saved))
    assert {p.name: p.read_bytes() for p in written} == expected
