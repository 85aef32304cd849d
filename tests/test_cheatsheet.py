"""The cheat sheet: rules in words, the strategy they state, its cost (tiny games only)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.app.cli import main
from solver.cheatsheet import rulebook
from solver.cheatsheet import search as cheatsheet
from solver.cheatsheet.rulebook import Rule
from solver.export.cheatsheet_page import FILES, write_cheatsheet
from solver.hand import best_response
from solver.hand.solve import solve
from solver.hand.strategy import load_strategy_file

TINY = BidouParams(faces=3, throws=2, max_level=2)
TINY_KEEP = BidouParams(faces=3, throws=2, max_level=2, reroll="keep")


@pytest.fixture(scope="module")
def tiny():
    solution = solve(TINY)
    points = cheatsheet.front_points(solution.model, solution.strategy, solution.value, 6)
    return solution, points


@pytest.fixture(scope="module")
def tiny_keep():
    solution = solve(TINY_KEEP)
    points = cheatsheet.front_points(solution.model, solution.strategy, solution.value, 4)
    return solution, points


def test_rules_partition_the_decisions(tiny):
    solution, points = tiny
    model = solution.model
    atoms = rulebook.atoms(model)
    # 2 captain + 3 opponent throw decisions, 9 public states x 2 players x 3 levels.
    assert len(atoms) == 1 + 2 + 4 * 2 * 3
    for point in points:
        owner = rulebook.assign(point.rules, atoms)
        assert sorted(set(owner)) == list(range(point.size))
    overlapping = list(points[-1].rules) + [points[0].rules[0]]
    with pytest.raises(ValueError, match="rules cover"):
        rulebook.assign(overlapping, atoms)


def test_front_is_a_pareto_front_with_known_numbers(tiny):
    solution, points = tiny
    sizes = [p.size for p in points]
    costs = [p.exploitability.exploitability for p in points]
    assert sizes[0] == 3 and sizes == sorted(set(sizes)) and sizes[-1] <= 6
    assert all(a > b for a, b in zip(costs, costs[1:]))
    assert costs[0] == pytest.approx(0.1724204, abs=1e-6)
    assert costs[-1] < 0.1
    for point in points:      # every point's numbers are the independent best response's
        strategy = rulebook.build_strategy(solution.model, point.rules)
        e = best_response.exploitability(solution.model, strategy)
        assert point.exploitability.exploitability == pytest.approx(e.exploitability, abs=1e-12)
        assert point.captain_loss + point.opponent_loss == pytest.approx(2 * e.exploitability)
        # against the equilibrium nobody gains: u(simple, y*) <= V <= u(x*, simple)
        assert min(point.versus_equilibrium) >= -1e-9


@pytest.mark.slow
def test_rule_texts_read_back_to_the_same_rules(tiny, tiny_keep):
    for solution, points in (tiny, tiny_keep):
        model = solution.model
        for point in points:
            for rule in point.rules:
                text = rulebook.rule_text(model, rule)
                assert rulebook.parse_rule(model, f"7. {text}.") == rule


def test_thresholds_mean_what_they_say(tiny):
    solution, _ = tiny
    model = solution.model
    ranked = rules.ranked_hands(3, "encyclopedia")
    lines = ["1. Captain, after throw 1: stop with 3-2-1 or better, otherwise throw all three "
             "dice again",
             "2. Opponent, after throw 1: always stop",
             "3. Either player, with nothing bet yet: bet with 3-3-3 or better, bluff (bet) "
             "with 3-1-1 or worse, otherwise pass",
             "4. Either player, facing a bet or a raise: raise with 2-1-1, call with "
             "3-3-1 or better, otherwise fold (facing a raise to 2 you cannot raise: call)"]
    book = rulebook.parse_rules(model, lines)
    stop_321 = 4 * (ranked.index((3, 2, 1)) + 1)
    assert [r.params for r in book] == [(stop_321,), (40,), (8, 36), (4, 32)]
    strategy = rulebook.build_strategy(model, book)
    index = {h: i for i, h in enumerate(model.hands)}
    stop = strategy.throw[CAPTAIN][0, 0, 0]
    assert stop[index[(3, 2, 1)]] == 1 and stop[index[(3, 3, 2)]] == 0
    assert np.all(strategy.throw[OPPONENT][:, 0, 0] == 1)
    opening = strategy.betting[(1, 1, "")]           # pass, bet
    assert opening[1, index[(3, 3, 3)]] == 1 and opening[1, index[(3, 1, 1)]] == 1
    assert opening[0, index[(2, 2, 2)]] == 1
    facing = strategy.betting[(1, 1, "b")]           # fold, call, raise
    assert facing[2, index[(2, 1, 1)]] == 1 and facing[1, index[(3, 3, 1)]] == 1
    assert facing[1, index[(3, 3, 2)]] == 1 and facing[0, index[(3, 2, 2)]] == 1
    top = strategy.betting[(1, 1, "br")]             # fold, call: a raise is called instead
    assert top.shape[0] == 2 and top[1, index[(2, 1, 1)]] == 1 and top[0, index[(3, 1, 1)]] == 1


def test_a_cut_inside_a_hand_mixes_that_hand(tiny):
    model = tiny[0].model
    index = {h: i for i, h in enumerate(model.hands)}
    line = ("Captain, after throw 1: stop with 2-2-1 or better (with 3-2-1 half the time), "
            "otherwise throw all three dice again")
    (rule,) = rulebook.parse_rules(model, ["1. " + line])
    assert rule.params == (4 * 5 + 2,) and rulebook.rule_text(model, rule) == line
    book = [rule, rulebook.parse_rule(model, "Opponent, after throw 1: always stop")]
    stop = rulebook.build_strategy(model, book + rulebook.root_rules(model)[1:]).throw[0][0, 0, 0]
    assert stop[index[(2, 2, 1)]] == 1 and stop[index[(3, 2, 1)]] == 0.5
    assert stop[index[(3, 3, 2)]] == 0
    bluff = ("Opponent, with nothing bet yet: bet with 2-1-1 one time in four, and bluff (bet) "
             "with 3-1-1 or worse (with 3-2-2 three times in four), otherwise pass")
    with pytest.raises(rulebook.RuleTextError):      # clauses are joined by ", " only
        rulebook.parse_rule(model, bluff)
    rule = rulebook.parse_rule(model, bluff.replace(", and bluff", ", bluff"))
    assert rule.params == (1, 4 * 8 + 1)


def test_bad_rule_texts_are_refused(tiny):
    model = tiny[0].model
    for line in ["Captain after throw 1 stop",
                 "Dealer, after throw 1: always stop",
                 "Captain, after throw 1: stop with 9-9-9 or better, otherwise throw all three "
                 "dice again",
                 "Captain, on a sunny day, after throw 1: always stop"]:
        with pytest.raises(rulebook.RuleTextError):
            rulebook.parse_rule(model, line)


@pytest.mark.slow
def test_keep_rules_keep_the_dice_they_name(tiny_keep):
    solution, points = tiny_keep
    model = solution.model
    assert any(r.kind == "keep" for r in points[0].rules)
    actions = rulebook.keep_actions(model, ("21", "pair", "high"))
    named = {model.hands[h]: model.throw_actions[a] for h, a in enumerate(actions)}
    assert named[(3, 2, 1)] == (2, 1) and named[(3, 3, 2)] == (3, 3)
    assert named[(3, 3, 3)] == (3, 3) and named[(3, 2, 2)] == (2, 2)
    assert rulebook.keep_actions(model, ())[0] == model.throw_actions.index(())
    kept = rulebook.kept_dice
    assert kept((6, 4, 1), "ace") == (1,) and kept((6, 5, 3), "ace") is None
    assert kept((6, 5, 2), "deuce") == (2,)
    assert kept((6, 5, 2), "run") == (6, 5) and kept((6, 4, 2), "run") is None
    for h, a in enumerate(actions):
        assert model.throw_legal[a, h]


def test_written_sheet_states_the_strategy_file(tiny, tmp_path):
    """A player reading the printed rules plays exactly the strategy file that was measured."""
    solution, points = tiny
    model, point = solution.model, points[-1]
    paths = write_cheatsheet(model, point, tmp_path, dpi=40)
    assert [p.name for p in paths] == list(FILES)
    assert all(p.stat().st_size > 0 for p in paths)
    text = (tmp_path / "cheatsheet.md").read_text()
    read = rulebook.parse_rules(model, text.split("## What they cost")[0].splitlines())
    assert read == list(point.rules)
    from_text = rulebook.build_strategy(model, read)
    model2, from_file, result = load_strategy_file(tmp_path / "cheatsheet_strategy.json")
    assert model2.params == model.params
    for role in (CAPTAIN, OPPONENT):
        assert np.array_equal(from_text.throw[role], from_file.throw[role])
    assert from_text.betting.keys() == from_file.betting.keys()
    assert all(np.array_equal(from_text.betting[k], from_file.betting[k])
               for k in from_text.betting)
    assert result["rules"] == [rulebook.rule_text(model, r) for r in point.rules]
    assert result["exploitability"] == pytest.approx(point.exploitability.exploitability)


@pytest.mark.slow
def test_cli_cheatsheet_and_evaluate(tmp_path):
    runner = CliRunner()
    out = tmp_path / "sheet"
    result = runner.invoke(main, ["cheatsheet", "--faces", "3", "--throws", "2",
                                  "--max-level", "2", "--rules-max", "4", "--milp-seconds",
                                  "4", "--out", str(out)],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("Proved: among all cuts")
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    document = json.loads((out / "cheatsheet_strategy.json").read_text())
    assert document["result"]["rules_count"] <= 4
    sheet = str(out / "cheatsheet_strategy.json")
    evaluated = runner.invoke(main, ["evaluate", "--strategy", sheet, "--json"],
                              catch_exceptions=False)
    assert evaluated.exit_code == 0
    report = json.loads(evaluated.output)
    assert report["exploitability"] == pytest.approx(document["result"]["exploitability"],
                                                     abs=1e-9)
    # the MILP starts from the best 4-rule book found, the local search's (0.1003), and
    # never makes it worse
    proof = document["result"]["milp"]
    assert proof["start_exploitability"] == pytest.approx(0.10025148605395522, abs=1e-12)
    assert document["result"]["search"] == "local"
    assert document["result"]["exploitability"] <= proof["start_exploitability"] + 1e-12
    assert proof["bound"] is None or proof["bound"] <= document["result"]["exploitability"]


def test_cli_cheatsheet_refuses_too_few_rules(tmp_path):
    result = CliRunner().invoke(main, ["cheatsheet", "--faces", "3", "--throws", "2",
                                       "--max-level", "2", "--rules-max", "2",
                                       "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.strip().startswith("bidou: error: --rules-max must be at least 3")


def test_canonical_rules_have_one_spelling(tiny):
    model = tiny[0].model
    n = model.num_hands * rulebook.STEPS
    top = Rule("face", ((0, 1), (2, 2), (-1, 1), (1, 2), (1, 2)), (4, 6))
    assert rulebook.canonical(model, top).params == (0, 6)       # no raise at the top level
    everything = Rule("open", ((0, 1), (-1, 1), (1, 2), (1, 2)), (5, 3))
    assert rulebook.canonical(model, everything).params == (n, n)
    assert rulebook.action_text(model, dataclasses.replace(everything, params=(n, n))) == \
        "always bet"


FRONT = Path(__file__).resolve().parent.parent / "outputs" / "cheatsheet-front"


@pytest.mark.parametrize("game", ["default", "french", "keep"])
def test_published_front_files_measure_what_they_record(game):
    """outputs/cheatsheet-front: every size of each game's front, from one rule per kind of
    decision to 12, is a strategy file whose rules, read back from their words, state
    exactly its strategy, whose exploitability measured again is the one recorded (and
    listed in front.md), never rising with a rule added (the local search's front is
    smooth); its 12-rule point is the published cheat sheet."""
    files = sorted(FRONT.glob(f"front_{game}_*.json"))
    table = (FRONT / "front.md").read_text()
    sizes, costs = [], []
    for path in files:
        model, strategy, result = load_strategy_file(path)
        stated = rulebook.build_strategy(model, [rulebook.parse_rule(model, line)
                                                 for line in result["rules"]])
        for role in (CAPTAIN, OPPONENT):
            assert np.allclose(stated.throw[role], strategy.throw[role], atol=1e-14)
        assert all(np.allclose(stated.betting[k], strategy.betting[k], atol=1e-14)
                   for k in strategy.betting)
        measured = best_response.exploitability(model, strategy).exploitability
        assert measured == pytest.approx(result["exploitability"], abs=1e-9)
        search = result.get("search", "bottom-up")
        assert search in ("bottom-up", "top-down", "local")
        assert (f"| `{path.name}` | {result['rules_count']} | {search} | {measured:.4f} |"
                in table)
        sizes.append(result["rules_count"])
        costs.append(measured)
    assert sizes == list(range(3 if game != "keep" else 4, 13))
    assert all(a >= b for a, b in zip(costs, costs[1:]))
    published = json.loads((FRONT.parent / game / "cheatsheet_strategy.json").read_text())
    last = json.loads(files[-1].read_text())
    assert (last["throw"], last["betting"]) == (published["throw"], published["betting"])


@pytest.mark.slow
def test_search_reports_each_size_as_what_done_total(tiny):
    """The one progress protocol (solver/common/progress.py): what the best book of each size is,
    its size as `done`, the most rules as `total`."""
    solution, points = tiny
    calls = []
    again = cheatsheet.front_points(solution.model, solution.strategy, solution.value, 6,
                                    lambda *call: calls.append(call))
    assert [p.rules for p in again] == [p.rules for p in points]
    sizes = [done for _, done, _ in calls]
    assert sizes == list(range(points[0].size, sizes[-1] + 1)) and sizes[-1] <= 6
    assert {total for _, _, total in calls} == {6}
    said = {done: what for what, done, _ in calls}
    for point in points:
        e = point.exploitability.exploitability
        assert said[point.size] == f"{point.size} rules: exploitability {e:.4f}"


def test_rich_descent_reaches_staircases_and_band_ends(tiny):
    """The rich moves try mixed ranges around every cut and move an open rule's
    band end to every hand, each move a valid action of the family; the plain moves do
    neither. The root book descended with them mixes a range (0.1655, plain 0.1724);
    `polish`, that descent from the plain root, finds nothing better here (a kink)."""
    solution, points = tiny
    model = solution.model
    n = model.num_hands
    book = cheatsheet.Book(model, points[0].rules)
    i = next(k for k, r in enumerate(book.rules) if r.kind == "open")
    for which in (0, 1):
        moves = book.choices(i, which, None, rich=True)
        assert all(rulebook.valid_params(model, "open", m) for m in moves)
        assert any(isinstance(m[which], tuple) for m in moves)
        assert not any(isinstance(m[which], tuple) for m in book.choices(i, which, None))
    v, b = book.rules[i].params[:2]
    ends = {rulebook.band_end(model, dataclasses.replace(book.rules[i], params=m))
            for m in book.choices(i, 2, None, rich=True)}
    assert ends == {n} | {e for e in range(n) if rulebook.valid_params(model, "open", (v, b, e))}
    (rich,) = cheatsheet.pareto_front(model, 3, rich=True)
    cost = best_response.exploitability(model, rulebook.build_strategy(model, rich))
    assert cost.exploitability == pytest.approx(0.1654823, abs=1e-6)
    assert any(isinstance(p, tuple) for r in rich if r.kind != "keep" for p in r.params)
    polished = cheatsheet.polish(model, points[0].rules)
    assert best_response.exploitability(model, rulebook.build_strategy(
        model, polished)).exploitability == pytest.approx(0.1724204, abs=1e-6)
