"""The round cheat sheet (solver/pipeline/round_cheatsheet.py): chip rules in words that
read back to the strategy whose cost is printed, and costs proved in the right order.

One small round (4 chips, 3 faces, 2 throws) is solved, saved and given a sheet once,
through `bidou round --cheatsheet` (the saved round read back): about 15 s of CPU for the
whole file, most of it that one search and its two proofs, shared by every test."""

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
from solver.export.round_cheatsheet_page import cost_rows
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
    assert sorted(p.name for p in out.iterdir()) == ["cheatsheet.md", "cheatsheet.pdf",
                                                     "cheatsheet.png"]
    assert (out / "cheatsheet.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    solution = solution_from_saved(read_saved(SMALL, True))
    equilibrium = solve_hand(SMALL.hand).solution.strategy
    return document, (out / "cheatsheet.md").read_text(), solution, equilibrium


def _strategies(solution, equilibrium, chip_rules):
    hand = build_model(SMALL.hand)
    play = SheetPlay(hand, Base("the hand game's equilibrium", equilibrium))
    return sheet_strategies({s: st.model for s, st in solution.stages.items()}, play,
                            chip_rules)


def test_the_words_read_back_to_the_strategy_whose_cost_is_printed(made):
    from solver.pipeline.round_cheatsheet import prove_cost

    document, markdown, solution, equilibrium = made
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
    document, _, _, _ = made
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

    _, markdown, solution, equilibrium = made
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
    _, _, solution, equilibrium = made
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
    document, _, _, _ = made
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

    _, _, solution, _ = made
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

    _, _, solution, _ = made

    def refuse(_solution):
        raise RoundCertificateError("a deviator might keep the round going forever")

    monkeypatch.setattr(round_cheatsheet, "certify_round", refuse)
    own = {s: st.strategy for s, st in solution.stages.items()}
    with pytest.raises(SolverError, match="could not be proved: a deviator might keep"):
        round_cheatsheet.prove_cost(solution, own, "the round's equilibrium")
    monkeypatch.setattr(round_cheatsheet, "search", lambda *args: ([], [], 0.0))
    result = CliRunner().invoke(main, ["round", *OPTIONS, "--cheatsheet", "--base",
                                       "equilibrium", "--out", str(tmp_path / "out")])
    assert result.exit_code == 1 and "could not be proved" in result.output
    assert not (tmp_path / "out").exists()


def test_the_page_is_a4_and_prints_no_text_below_the_minimum(made):
    from matplotlib.text import Text

    from solver.export.charts import A4_PORTRAIT, MIN_LABEL_PT
    from solver.export.round_cheatsheet_page import round_cheatsheet_figure

    document = dict(made[0])
    many = document["chip_rules"] * (12 // len(document["chip_rules"]) + 1)
    for chip_rules in (document["chip_rules"], many[:12]):
        figure = round_cheatsheet_figure({**document, "chip_rules": chip_rules,
                                          "base_rules": many[:12]})
        assert tuple(figure.get_size_inches()) == pytest.approx(A4_PORTRAIT)
        texts = [t for t in figure.findobj(Text) if t.get_text()]
        assert min(t.get_fontsize() for t in texts) >= MIN_LABEL_PT
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        width, height = figure.bbox.width, figure.bbox.height
        for t in texts:                                   # nothing runs off the page
            box = t.get_window_extent(renderer)
            assert 0 <= box.x0 and box.x1 <= width and 0 <= box.y0 and box.y1 <= height, \
                t.get_text()
