"""Le Bidou's stakes cheat sheet (solver/cheatsheet/stakes_rules.py, the grammar and the fit;
solver/pipeline/stakes_cheatsheet.py, its cost and files): its words read back into the
strategy it states, its printed cost found again by the exact best response, and the fit
recovering a strategy that rules state; on a small hand (seconds), then the published
default hand's sheet."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from games.le_bidou.params import LeBidouParams
from solver.cheatsheet import stakes_rules as stakes_sheet
from solver.cheatsheet.stakes_rules import StakeRule
from solver.hand import best_response
from solver.hand.model import build_model
from solver.hand.strategy import strategy_from_json
from solver.pipeline import stakes_cheatsheet
from solver.pipeline.hand import solve_hand
from solver.schemas import validate

ROOT = Path(__file__).resolve().parent.parent / "outputs"
SMALL = LeBidouParams(faces=3, throws=2, max_stake=3)


@pytest.fixture(scope="module")
def small():  # type: ignore[no-untyped-def]
    solution = solve_hand(SMALL).solution
    sheet = stakes_cheatsheet.build_sheet(solution.model, solution.strategy, solution.value)
    return solution, sheet, stakes_cheatsheet.sheet_files(solution.model, sheet)


def printed_costs(text: str) -> dict[str, float]:
    """The four losses the sheet prints, in chips a hand."""
    best = re.search(r"following them loses ([0-9.]+) chips a hand more than the game "
                     r"value, the other player ([0-9.]+) \(exploitability ([0-9.]+)\)", text)
    against = re.search(r"Against the equilibrium \(exact play\): the first player following "
                        r"them loses (-?[0-9.]+) chips a hand, the other player (-?[0-9.]+)\.",
                        text)
    assert best is not None and against is not None
    return {"captain_loss": float(best.group(1)), "opponent_loss": float(best.group(2)),
            "exploitability": float(best.group(3)),
            "captain_loss_vs_equilibrium": float(against.group(1)),
            "opponent_loss_vs_equilibrium": float(against.group(2))}


def test_the_words_state_the_strategy_and_its_printed_cost(small):
    solution, sheet, files = small
    model = solution.model
    text = files["cheatsheet.md"].decode()
    rules = stakes_cheatsheet.parse_sheet(text, model)
    assert rules == list(sheet.rules) and len(rules) == len(sheet.texts) >= 3
    rebuilt = stakes_cheatsheet.measure_rules(model, rules, solution.strategy, solution.value,
                                              check_dominance=False)
    for key in sheet.strategy.betting:
        assert np.array_equal(rebuilt.strategy.betting[key], sheet.strategy.betting[key])
    for name, shown in printed_costs(text).items():
        assert getattr(rebuilt, name) == pytest.approx(shown, abs=5e-4), name
    # the losses are what a best reply takes: never below the game value's side
    assert rebuilt.captain_loss >= -1e-12 and rebuilt.opponent_loss >= -1e-12
    # the strategy file is the same strategy, and says the same rules and cost
    document = json.loads(files["cheatsheet_strategy.json"])
    validate(document, "strategy")
    _, from_file, _ = strategy_from_json(document)
    for key in sheet.strategy.betting:
        assert np.allclose(from_file.betting[key], sheet.strategy.betting[key], atol=1e-9)
    assert document["result"]["rules"] == list(sheet.texts)
    assert document["result"]["dominated_advice"] == 0
    assert document["result"]["exploitability"] == pytest.approx(sheet.exploitability)


def test_every_decision_has_one_legal_advice(small):
    solution, sheet, _ = small
    model = solution.model
    for tc, to in model.public_states:
        for node in model.tree((tc, to)).nodes:
            probs = sheet.strategy.betting[(tc, to, node.history)]
            assert probs.shape == (len(node.actions), model.num_hands)
            assert set(np.unique(probs)) <= {0.0, 1.0}
            assert np.array_equal(probs.sum(axis=0), np.ones(model.num_hands))
    for rule in sheet.rules:
        assert rule.strong <= max(rule.call, rule.strong)
        if rule.bluff is not None:
            assert rule.strong < rule.bluff[0] <= rule.bluff[1]
            # the calls above the band, or "call otherwise": every hand not raising calls
            assert rule.call < rule.bluff[0] or rule.call == model.num_hands
        if rule.kind != "propose":
            assert rule.stake == 0 or rule.stake > rule.high     # a raise is above the band


def test_the_words_are_read_back_and_others_refused():
    names = [f"{a}-{b}-{c}" for a, b, c in ((2, 1, 1), (3, 3, 3), (3, 2, 1), (3, 2, 2))]
    rules = [StakeRule("propose", 0, 0, 3, 1, (3, 4), 0, 1),
             StakeRule("propose", 0, 0, 3, 0, (2, 2), 0, 1),
             StakeRule("propose", 0, 0, 0, 0, None, 0, 2),
             StakeRule("first", 1, 1, 3, 1, (4, 4), 2),
             StakeRule("first", 2, 3, 0, 0, None, 3),
             StakeRule("raise", 2, 2, 3, 2, None, 3),
             StakeRule("raise", 3, 3, 0, 0, None, 0)]
    for rule in rules:
        text = stakes_sheet.rule_text(rule, names)
        assert stakes_sheet.parse_rule(text, names) == rule, text
    assert stakes_sheet.rule_text(rules[0], names) == (
        "Proposing the first stake (the first player): propose 3 with 2-1-1 or better, and "
        "also with 3-2-1 to 3-2-2; propose 1 otherwise.")
    assert stakes_sheet.rule_text(rules[4], names) == (
        "Facing the first stake from 2 to 3: call with 3-2-1 or better; withdraw otherwise.")
    for bad in ("Facing a raise to 3: call with 6-6-6 or better; withdraw otherwise.",
                "Facing a raise to 3: call with 3-2-1 or better.",
                "Proposing: propose 3 with 2-1-1 or better; propose 1 otherwise."):
        with pytest.raises(ValueError):
            stakes_sheet.parse_rule(bad, names)


def test_the_fit_recovers_a_strategy_rules_state():
    """Play that rules state is fitted back exactly wherever it is met: the fit finds the
    cuts, and merging never joins stakes whose play differs."""
    model = build_model(SMALL.description())
    names = stakes_sheet.ranked_names(model)
    assert len(names) == model.num_hands == 10
    book = [StakeRule("propose", 0, 0, 3, 3, (8, 9), 0, 1),
            StakeRule("first", 1, 1, 3, 2, (9, 10), 6),
            StakeRule("first", 2, 2, 3, 1, None, 4),
            StakeRule("first", 3, 3, 0, 0, None, 5),
            StakeRule("raise", 2, 2, 3, 1, None, 3),
            StakeRule("raise", 3, 3, 0, 0, None, 2)]
    solution = solve_hand(SMALL).solution
    stated = stakes_sheet.book_strategy(model, book, solution.strategy)
    fitted = stakes_sheet.fit_book(model, stated)
    again = stakes_sheet.book_strategy(model, fitted, solution.strategy)
    weights = stakes_sheet.decision_weights(model, stated)
    for key, w in weights.items():
        met = w > 0
        assert np.array_equal(again.betting[key][:, met], stated.betting[key][:, met]), key
    assert len(fitted) <= len(book)


@pytest.mark.slow
def test_the_published_sheet():
    """The default hand's sheet in outputs/le-bidou/: its words parsed back give the
    strategy of cheatsheet_strategy.json, and the exact best response on the whole default
    hand (258 048 betting rows) finds the cost it prints. About 10 s (reading the 9 MB
    strategy file and five best responses): the only check of the published sheet."""
    folder = ROOT / "le-bidou"
    text = (folder / "cheatsheet.md").read_text()
    document = json.loads((folder / "cheatsheet_strategy.json").read_text())
    assert document["rules"] == {"game": "le-bidou", **LeBidouParams().to_dict()}
    model, strategy, _ = strategy_from_json(document)
    rules = stakes_cheatsheet.parse_sheet(text, model)
    assert 3 <= len(rules) <= 12
    stated = stakes_sheet.book_strategy(model, rules, strategy)
    for key, probs in stated.betting.items():
        assert np.array_equal(probs, strategy.betting[key]), key
    summary = json.loads((folder / "summary.json").read_text())
    equilibrium = strategy_from_json(json.loads((folder / "strategy.json").read_text()))[1]
    assert np.array_equal(strategy.throw[0], equilibrium.throw[0])       # throwing: the same
    measured = stakes_cheatsheet.measure_rules(model, rules, equilibrium, summary["value"],
                                               check_dominance=False)
    for name, shown in printed_costs(text).items():
        assert getattr(measured, name) == pytest.approx(shown, abs=5e-4), name
    assert document["result"]["dominated_advice"] == 0
    value = best_response.policy_value(model, equilibrium)
    assert value == pytest.approx(summary["value"], abs=1e-8)
