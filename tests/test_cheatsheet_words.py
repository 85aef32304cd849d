"""The published cheat sheets read as a player reads them: the default sheet raises with the
bidou facing a bet, as the equilibrium does; no clause names an action no hand takes (hand
sheets and Le Bidou's); the throw counts a rule covers are said in short words that read
back to the same rule; an open rule bets no hand less often than a weaker one except its
bluffs, below a hand that passes, and the sheet says why."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from games.bidou.params import BidouParams
from solver.cheatsheet import rulebook
from solver.cheatsheet import stakes_rules as stakes_sheet
from solver.cheatsheet.rulebook import STEPS, Rule
from solver.hand.model import build_model
from solver.hand.strategy import load_strategy_file, strategy_from_json
from solver.pipeline import stakes_cheatsheet

OUTPUTS = Path(__file__).resolve().parent.parent / "outputs"
GAMES = ["default", "french", "keep"]
# a clause of a rule's action, by how it starts, and the action it names
CLAUSES = (("raise with", "raise"), ("call with", "call"), ("otherwise fold", "fold"),
           ("bet with", "bet"), ("bluff (bet)", "bet"), ("otherwise pass", "pass"),
           ("stop with", "stop"), ("otherwise throw", "again"))


def published(game: str) -> tuple:
    """The model, the sheet's rules read from its words, and its text."""
    folder = OUTPUTS / game
    text = (folder / "cheatsheet.md").read_text()
    model, _, _ = load_strategy_file(folder / "cheatsheet_strategy.json")
    return model, rulebook.parse_rules(model, text.split("## What they cost")[0].splitlines()), text


def test_default_sheet_raises_with_the_bidou_facing_a_bet():
    """The equilibrium raises with 2-1-1 facing a bet in 16 of its 18 spots; a rule of the
    sheet facing a bet does too, and says so first."""
    model, rules, text = published("default")
    bidou = rulebook.positions(model).argmin()
    raising = []
    for rule in rules:
        if rule.kind == "face" and rule.scope[1][0] == 1:
            atom = next(a for a in rulebook.atoms(model) if rule.covers(a)
                        and a.features[1] == 1)
            probs = rulebook.action_probs(model, rule, atom, rulebook.positions(model))
            actions = model.tree(atom.key[:2]).node(atom.key[2]).actions
            if probs[actions.index("raise"), bidou] == 1.0:
                raising.append(rulebook.rule_text(model, rule))
    assert raising
    assert any("facing a bet: raise with 2-1-1," in line for line in raising)
    assert "facing a bet: raise with 2-1-1," in text


def _clause_actions(model, rule: Rule) -> list[tuple[str, np.ndarray]]:
    """Each clause of the rule's words with the mass its action takes, summed over hands,
    at every decision the rule answers."""
    pos = rulebook.positions(model)
    out = []
    mine = [a for a in rulebook.atoms(model) if rule.covers(a)]
    for clause in rulebook.action_text(model, rule).split(", "):
        for start, action in CLAUSES:
            if clause.startswith(start):
                break
        else:
            continue
        mass = []
        for atom in mine:
            keep = rulebook.keep_for(model, [], atom)
            probs = rulebook.action_probs(model, rule, atom, pos, keep)
            if atom.kind == "throw":
                names = ["stop"] + ["again"] * (probs.shape[0] - 1)
            else:
                names = list(model.tree(atom.key[:2]).node(atom.key[2]).actions)
            mass.append(sum(probs[a].sum() for a, name in enumerate(names) if name == action))
        out.append((clause, np.array(mass)))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_no_printed_clause_of_a_hand_sheet_covers_no_hand(game):
    model, rules, _ = published(game)
    for rule in rules:
        for clause, mass in _clause_actions(model, rule):
            assert mass.max() > 0, (rulebook.rule_text(model, rule), clause)


def test_no_clause_of_le_bidou_sheet_covers_no_hand():
    """Every clause of the published stakes sheet names hands that play it; "withdraw
    otherwise" is printed only where some hand withdraws ("call otherwise" else)."""
    document = json.loads((OUTPUTS / "le-bidou" / "cheatsheet_strategy.json").read_text())
    model, _, _ = strategy_from_json(document)
    text = (OUTPUTS / "le-bidou" / "cheatsheet.md").read_text()
    n = model.num_hands
    for rule in stakes_cheatsheet.parse_sheet(text, model):
        words = stakes_sheet.rule_text(rule, stakes_sheet.ranked_names(model))
        advice = words.split(": ", 1)[1]
        hands = stakes_sheet.clause_hands(rule, n)
        assert all(hands.values())
        assert ("withdraw otherwise" in advice) == bool(hands.get("withdraw"))
        assert ("call" in advice) == bool(hands.get("call"))
        if rule.kind == "propose":
            assert all(a.replace("stake", "propose") in advice for a in hands)
        else:
            raised = [a for a in hands if a.startswith("raise")]
            assert all(a in advice for a in raised) and ("raise" in advice) == bool(raised)


def test_a_stakes_rule_where_no_hand_withdraws_says_call_otherwise():
    names = ["2-1-1", "3-3-3", "3-2-1", "3-2-2"]
    rule = stakes_sheet.StakeRule("first", 1, 1, 3, 1, (4, 4), 4)
    text = stakes_sheet.rule_text(rule, names)
    assert text == ("Facing the first stake of 1: raise to 3 with 2-1-1 or better, and also "
                    "with 3-2-2; call otherwise.")
    assert stakes_sheet.parse_rule(text, names) == rule
    assert stakes_sheet.withdrawn(rule, len(names)) == []


SHORT = {  # the words, and the (own throws, other's throws) pairs they cover
    "after one throw each": {(1, 1)},
    "after three throws each": {(3, 3)},
    "when you threw once or twice and the other player once": {(1, 1), (2, 1)},
    "when you threw 3 times and the other player once or twice": {(3, 1), (3, 2)},
    "when the other player threw 3 times": {(1, 3), (2, 3), (3, 3)},
    "when the other player threw 2 or 3 times and you no more": {(1, 2), (2, 2), (1, 3),
                                                                 (2, 3), (3, 3)},
    "when you threw once or twice and the other player no more": {(1, 1), (2, 1), (2, 2)},
    "when you threw fewer times than the other player": {(1, 2), (1, 3), (2, 3)},
}


def test_short_scope_words_parse_back_to_the_pairs_they_say():
    model = build_model(BidouParams())
    for words, pairs in SHORT.items():
        rule = rulebook.parse_rule(model, f"Either player, {words}, facing a bet: call with "
                                          "6-5-4 or better, otherwise fold")
        relation, own, other = rule.scope[2:]
        assert rulebook.throw_pairs(model.throws, relation, own, other) == pairs, words
        atoms = [a for a in rulebook.atoms(model) if rule.covers(a)]
        assert {a.features[3:] for a in atoms} == pairs


def test_every_betting_scope_reads_back_to_itself():
    """Every scope of a betting rule (every interval of each feature) is written in words
    that read back to its tight form, which covers the same decisions."""
    model = build_model(BidouParams())
    dom = rulebook.domains(model)["face"]
    every = rulebook.atoms(model)
    for relation in [(a, b) for a in range(-1, 2) for b in range(a, 2)]:
        for own in [(a, b) for a in range(1, 4) for b in range(a, 4)]:
            for other in [(a, b) for a in range(1, 4) for b in range(a, 4)]:
                if not rulebook.throw_pairs(model.throws, relation, own, other):
                    continue
                rule = Rule("face", (dom["player"], (1, 1), relation, own, other),
                            (STEPS, 10 * STEPS))
                tight = rulebook.canonical(model, rule)
                assert [a for a in every if rule.covers(a)] == \
                    [a for a in every if tight.covers(a)]
                line = rulebook.rule_text(model, tight)
                assert rulebook.parse_rule(model, line) == tight, line


@pytest.mark.parametrize("game", GAMES)
def test_published_rules_read_back_equal(game):
    """The printed rules, read back, are the rules of the strategy file, one for one."""
    model, rules, _ = published(game)
    document = json.loads((OUTPUTS / game / "cheatsheet_strategy.json").read_text())
    recorded = [rulebook.Rule.from_dict(d) for d in document["result"]["rule_list"]]
    assert rules == recorded


@pytest.mark.parametrize("game", GAMES)
def test_open_rules_bet_monotone_down_to_their_bluffs(game):
    """No hand bets less often than a weaker one except the bluffs, which lie below a hand
    that always passes; a sheet with bluffs says why."""
    model, rules, text = published(game)
    pos = rulebook.positions(model)
    for rule in rules:
        if rule.kind != "open":
            continue
        atom = next(a for a in rulebook.atoms(model) if rule.covers(a))
        actions = model.tree(atom.key[:2]).node(atom.key[2]).actions
        bet = rulebook.action_probs(model, rule, atom, pos)[actions.index("bet")][
            np.argsort(pos)]
        passes = np.flatnonzero(bet == 0)
        head = bet[:passes[0]] if len(passes) else bet
        assert np.all(np.diff(head) <= 0), rulebook.rule_text(model, rule)
        assert rulebook.polarized(model, *rule.params[:2])
        if len(passes) and bet[passes[0]:].any():
            assert "Bluffs (rule" in text


def test_a_raise_floor_lifts_a_face_rule_to_the_hands_the_equilibrium_raises():
    """`RaiseFloors`: a rule facing a bet where the equilibrium always raises with the
    strongest hand raises with it on the sheet (and calls with it where it cannot raise)."""
    from solver.cheatsheet.search import RaiseFloors

    model, equilibrium, _ = load_strategy_file(OUTPUTS / "default" / "strategy.json")
    floors = RaiseFloors(model, equilibrium)
    dom = rulebook.domains(model)["face"]
    after_three = Rule("face", (dom["player"], (1, 1), (0, 0), (3, 3), (3, 3)), (0, 40))
    lifted = floors.lift(rulebook.canonical(model, after_three))
    assert floors(lifted) >= 1
    assert rulebook.counts(lifted.params[0])[-1] >= floors(lifted)
    assert lifted.params[1] == 40
    top = Rule("face", (dom["player"], (4, 4), dom["relation"], dom["own"], dom["other"]),
               (0, 40))
    assert floors(top) == 0
