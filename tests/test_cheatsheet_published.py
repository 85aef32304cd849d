"""The three published cheat sheets (outputs/<game>/cheatsheet.md): a player reading the
printed words plays the strategy whose cost the sheet prints."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.cheatsheet import rulebook
from solver.cheatsheet import search as cheatsheet
from solver.hand.strategy import load_strategy_file

OUTPUTS = Path(__file__).resolve().parent.parent / "outputs"


@pytest.mark.parametrize("game", ["default", "french", "keep"])
def test_published_sheet_rebuilt_from_its_words_costs_what_it_says(game):
    folder = OUTPUTS / game
    text = (folder / "cheatsheet.md").read_text()
    model, equilibrium, summary = load_strategy_file(folder / "strategy.json")
    rules = rulebook.parse_rules(model, text.split("## What they cost")[0].splitlines())
    assert len(rules) == int(re.search(r"# Bidou cheat sheet: (\d+) rules", text).group(1))
    # the words state exactly the strategy file written beside them
    _, recorded, result = load_strategy_file(folder / "cheatsheet_strategy.json")
    stated = rulebook.build_strategy(model, rules)
    for role in (CAPTAIN, OPPONENT):
        assert np.allclose(stated.throw[role], recorded.throw[role], atol=1e-14)
    assert all(np.allclose(stated.betting[k], recorded.betting[k], atol=1e-14)
               for k in recorded.betting)
    # measured again from the words: the cost printed on the sheet and recorded in the file,
    # against a best response and against the published (refined) equilibrium
    point = cheatsheet.measure(model, rules, equilibrium, float(summary["value"]))
    e = point.exploitability.exploitability
    assert e == pytest.approx(result["exploitability"], abs=1e-9)
    assert f"exploitability {e:.3f} chips per hand" in text
    assert point.versus_equilibrium == pytest.approx(
        (result["captain_loss_vs_equilibrium"], result["opponent_loss_vs_equilibrium"]),
        abs=1e-9)
    cap, opp = point.versus_equilibrium
    assert f"loses {cap:.3f} chips per hand, the opponent {opp:.3f}" in text
    document = json.loads((folder / "cheatsheet_strategy.json").read_text())
    assert document["result"]["rules"] == [rulebook.rule_text(model, r) for r in rules]


@pytest.mark.parametrize("game", ["default", "french", "keep"])
def test_published_sheet_advises_no_weakly_dominated_betting_action(game):
    """The refined charts' check (solver/hand/refined/check.py's `dominated_actions`: with the
    player's own later play as the sheet says, no betting action it plays is weakly
    dominated by another of the same decision) holds for the sheet's strategy too. Throw
    decisions have no such test (their values depend on the betting after them)."""
    from solver.hand.refined.check import dominated_actions

    model, strategy, _ = load_strategy_file(OUTPUTS / game / "cheatsheet_strategy.json")
    for player in (CAPTAIN, OPPONENT):
        assert dominated_actions(model, strategy, player) == []
    # the check sees a dominated action: folding to a bet a hand no hand beats (2-1-1 but
    # in the french ranking, where 1-1-1 beats it and every hand can lose)
    folds = strategy.copy()
    for key, probs in folds.betting.items():
        actions = model.tree(key[:2]).node(key[2]).actions
        if "fold" in actions:
            probs[:] = 0.0
            probs[actions.index("fold")] = 1.0
    found = dominated_actions(model, folds, CAPTAIN) + dominated_actions(model, folds,
                                                                          OPPONENT)
    unbeaten = [h for h in range(model.num_hands) if (model.compare[h] >= 0).all()]
    assert bool(unbeaten) == (game != "french")
    assert {v.hand for v in found} >= set(unbeaten)
