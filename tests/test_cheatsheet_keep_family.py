"""The keep family (under reroll=keep): keep rules per throw, the "two dice of 4 or
more" preference, and throw rules that stop the hands their keep rule keeps nothing of; each
in words that read back to the rule and state the strategy they say."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from games.bidou.params import BidouParams
from solver.cheatsheet import rulebook
from solver.cheatsheet import search as cheatsheet
from solver.cheatsheet.rulebook import Rule, RuleTextError
from solver.hand.model import build_model


@pytest.fixture(scope="module")
def model():
    return build_model(BidouParams(reroll="keep"))


def _full(model, kind):
    dom = rulebook.domains(model)[kind]
    return tuple(dom[f] for f in rulebook.FEATURES[kind])


def test_two_dice_of_4_or_more_keeps_the_two_highest_when_the_middle_is_a_4_or_more():
    kept = rulebook.kept_dice
    assert kept((6, 5, 1), "high2") == (6, 5) and kept((6, 4, 1), "high2") == (6, 4)
    assert kept((5, 4, 4), "high2") == (5, 4) and kept((4, 4, 1), "high2") == (4, 4)
    assert kept((6, 3, 2), "high2") is None and kept((3, 2, 1), "high2") is None
    assert len(cheatsheet.keep_orders()) == 1 + 7 + 7 * 6 + 7 * 6 * 5 + 7 * 6 * 5 * 4


def test_there_is_a_keep_decision_for_every_throw_decision(model):
    atoms = rulebook.atoms(model)
    throws = [a for a in atoms if a.kind == "throw"]
    keeps = [a for a in atoms if a.kind == "keep"]
    # the captain after throws 1 and 2; the opponent after each, for each captain's count
    assert len(throws) == len(keeps) == 2 + 3 * 2
    assert {(a.player, a.key, a.features) for a in keeps} == {
        (a.player, a.key, a.features) for a in throws}
    assert not any(a.kind == "keep" for a in rulebook.atoms(build_model(BidouParams())))


def test_keep_rules_per_throw_read_back_and_keep_what_they_say(model):
    first = Rule("keep", ((0, 1), (0, 3), (1, 1)), ("21", "pair", "ace", "deuce"))
    second = Rule("keep", ((0, 1), (0, 3), (2, 2)), ("21", "pair", "high2"))
    for rule in (first, second):
        rule = rulebook.canonical(model, rule)
        text = rulebook.rule_text(model, rule)
        assert rulebook.parse_rule(model, f"3. {text}.") == rule
    assert rulebook.rule_text(model, second).startswith(
        "Either player, after throw 2, throwing again: keep a 2 and a 1, else a pair, else "
        "two dice of 4 or more;")
    stop = Rule("throw", _full(model, "throw"), (4 * 12,))
    book = [first, second, stop]
    atoms = rulebook.atoms(model)
    strategy = rulebook.build_strategy(model, book + _betting(model))
    hand = model.hands.index((6, 4, 1))
    pos = rulebook.positions(model)
    assert pos[hand] >= 12                        # below the stop cut: throws again
    index = model.throw_actions.index
    for atom in (a for a in atoms if a.kind == "throw"):
        c, t = atom.key
        probs = strategy.throw[atom.player][c, t - 1][:, hand]
        assert probs[index((1,) if t == 1 else (6, 4))] == 1.0
    with pytest.raises(ValueError, match="rules cover"):
        rulebook.assign(book + [rulebook.canonical(model, Rule(
            "keep", _full(model, "keep"), ("pair",)))], atoms)


def test_a_keep_rule_of_an_older_file_covers_every_throw(model):
    old = Rule.from_dict({"kind": "keep", "scope": {"player": [0, 1]},
                          "params": ["21", "pair", "ace", "deuce"]})
    rule = rulebook.canonical(model, old)
    assert rule.scope == _full(model, "keep")
    assert rulebook.rule_text(model, rule).startswith("Either player, throwing again: keep")


def _betting(model):
    top = 4 * model.num_hands
    return [Rule("open", _full(model, "open"), (40, top)),
            Rule("face", _full(model, "face"), (8, 40))]


def test_stopping_when_nothing_is_kept_stops_those_hands_only(model):
    keep = Rule("keep", _full(model, "keep"), ("21", "pair", "high2"))
    flagged = rulebook.canonical(model, Rule("throw", _full(model, "throw"), (40, 1)))
    text = rulebook.rule_text(model, flagged)
    assert text.endswith("otherwise throw again and keep what your keep rule says; if it "
                         "keeps nothing, stop")
    assert rulebook.parse_rule(model, f"2. {text}.") == flagged
    plain = rulebook.build_strategy(model, [keep, Rule("throw", flagged.scope, (40,))]
                                    + _betting(model))
    stated = rulebook.build_strategy(model, [keep, flagged] + _betting(model))
    kept = rulebook.keep_actions(model, keep.params)
    nothing = kept == model.throw_actions.index(())
    pos = rulebook.positions(model)
    # no 2 and 1, no pair, the middle die below 4: 6-3-1, 6-3-2, 5-3-1, 5-3-2, 4-3-1, 4-3-2
    assert nothing.sum() == 6 and not nothing[model.hands.index((6, 4, 1))]
    assert nothing[model.hands.index((6, 3, 1))] and nothing[model.hands.index((5, 3, 2))]
    stop, old = stated.throw[0][0, 1][0], plain.throw[0][0, 1][0]
    assert np.array_equal(stop, np.where(nothing, 1.0, old))
    assert np.array_equal(old, (pos < 10).astype(float))
    # never stopping, else stopping when nothing is kept, reads back too
    never = rulebook.canonical(model, Rule("throw", flagged.scope, (0, 1)))
    assert rulebook.rule_text(model, never).endswith(
        ": throw again and keep what your keep rule says; if it keeps nothing, stop")
    assert rulebook.parse_rule(model, rulebook.rule_text(model, never)) == never


def test_stopping_when_fewer_than_two_dice_are_kept(model):
    """The flag 2: one list for every throw ("a 2 and a 1, else a pair, else a 1, else a
    2") keeps single dice after the first throw, and after the second the hands it would
    keep one die of stop (6-4-2, 6-3-1), those it keeps two of throw again (6-2-1, 5-5-3)."""
    keep = Rule("keep", _full(model, "keep"), ("21", "pair", "ace", "deuce"))
    flagged = rulebook.canonical(model, Rule("throw", _full(model, "throw"), (40, 2)))
    text = rulebook.rule_text(model, flagged)
    assert text.endswith("; if it keeps fewer than two dice, stop")
    assert rulebook.parse_rule(model, f"4. {text}.") == flagged
    stated = rulebook.build_strategy(model, [keep, flagged] + _betting(model))
    stop = stated.throw[0][0, 1][0]
    for hand, stops in (((6, 4, 2), 1.0), ((6, 3, 1), 1.0), ((5, 3, 2), 1.0),
                        ((6, 2, 1), 0.0), ((5, 5, 3), 0.0), ((4, 4, 1), 0.0)):
        assert stop[model.hands.index(hand)] == stops
    kept = rulebook.keep_actions(model, keep.params)
    single = np.array([len(model.throw_actions[a]) < 2 for a in kept])
    pos = rulebook.positions(model)
    assert np.array_equal(stop, np.where(single | (pos < 10), 1.0, 0.0))


def test_the_flag_has_one_spelling_and_needs_a_keep_rule(model):
    top = 4 * model.num_hands
    scope = _full(model, "throw")
    assert rulebook.canonical(model, Rule("throw", scope, (40, 0))).params == (40,)
    assert rulebook.canonical(model, Rule("throw", scope, (top, 1))).params == (top,)
    assert rulebook.valid_params(model, "throw", (40, 1))
    assert rulebook.valid_params(model, "throw", (40, 2))
    assert not rulebook.valid_params(model, "throw", (40, 3))
    assert not rulebook.valid_params(model, "throw", (40, True))
    assert not rulebook.valid_params(build_model(BidouParams()), "throw", (40, 1))
    with pytest.raises(RuleTextError):
        rulebook.parse_rule(model, "Either player, after throw 1: stop with 6-6-5 or better, "
                                   "otherwise throw again; if it keeps nothing, stop")


def test_random_flagged_throw_rules_read_back(model):
    rng = np.random.default_rng(2024)
    n, scope = model.num_hands, _full(model, "throw")
    for _ in range(60):
        k = (int(rng.integers(0, 4 * n + 1)) if rng.random() < 0.5 else tuple(
            sorted((int(x) for x in rng.integers(0, n + 1, 4)), reverse=True)))
        rule = rulebook.canonical(model, Rule("throw", scope, (k, 1)))
        assert rulebook.parse_rule(model, rulebook.rule_text(model, rule)) == rule


def test_the_descent_tries_the_flag_and_the_new_preference():
    """On the 3-face keep hand: coordinate descent moves a throw rule's flag (off, on) and
    a keep rule over lists with the new preference."""
    from solver.hand.solve import solve

    tiny = BidouParams(faces=3, throws=2, max_level=2, reroll="keep")
    solution = solve(tiny)
    model = solution.model
    book = cheatsheet.Book(model, rulebook.root_rules(model))
    throw = next(i for i, r in enumerate(book.rules) if r.kind == "throw")
    choices = book.choices(throw, 1, None)
    k = book.rules[throw].params[0]
    assert choices == [(k,), (k, 1), (k, 2)]
    keep = next(i for i, r in enumerate(book.rules) if r.kind == "keep")
    assert ("21", "high2") in book.choices(keep, 0, None)


PUBLISHED = Path(__file__).resolve().parent.parent / "outputs" / "keep" / "cheatsheet_strategy.json"


def test_published_keep_sheet_rules_are_of_the_family(model):
    rules = [Rule.from_dict(d) for d in json.loads(PUBLISHED.read_text())["result"]["rule_list"]]
    for rule in rules:
        rule = rulebook.canonical(model, rule)
        assert rule.kind == "keep" or rulebook.valid_params(
            model, rule.kind, rule.params, rulebook.top_level_only(model, rule))


def test_a_locked_player_plays_the_keep_rules_of_each_throw(model):
    """`bidou exploit --rules`' reading of a book (solver/exploit/locking.py) keeps, at
    each throw, what that throw's keep rule says: the strategy the book states."""
    from solver.exploit import locking

    book = [Rule("keep", ((0, 1), (0, 3), (1, 1)), ("21", "pair", "ace", "deuce")),
            Rule("keep", ((0, 1), (0, 3), (2, 2)), ("21", "pair", "high2")),
            Rule("throw", _full(model, "throw"), (40, 1))] + _betting(model)
    book = [rulebook.canonical(model, r) for r in book]
    lines = [f"{i}. {rulebook.rule_text(model, r)}." for i, r in enumerate(book, 1)]
    stated = rulebook.build_strategy(model, book)
    for player in (0, 1):
        rows = locking.rule_book_rows(model, lines, player)
        throws = {w: r for w, r in rows.items() if w[0] == "throw"}
        assert throws
        for (_, p, c, t, h), row in throws.items():          # t counts from 0
            assert [float(x) for x in row] == pytest.approx(
                stated.throw[p][c, t][:, h].tolist())


def test_a_keep_rule_split_by_throw_is_one_rule_more_and_measured(monkeypatch):
    """`cheatsheet_local.keep_split` (the keep front's sources): on the 3-face keep hand
    with three throws (keep lists of at most two preferences), the coarsest book with its
    keep rule split after the first throw, descended: one rule more, a keep rule for each
    throw, its cost measured; with two throws there is one throw to keep after, nothing
    to split."""
    from solver.cheatsheet import local_search as cheatsheet_local
    from solver.hand import best_response
    from solver.hand.solve import solve

    monkeypatch.setattr(cheatsheet, "KEEP_LONGEST", 2)     # 50 lists, not 1100: fast
    small = solve(BidouParams(faces=3, throws=3, max_level=1, reroll="keep")).model
    start = cheatsheet.Book(small, rulebook.root_rules(small))
    seed = cheatsheet_local.keep_split(small, start.rules)
    assert seed is not None and len(seed) == len(start.rules) + 1
    keeps = [r for r in seed if r.kind == "keep"]
    assert sorted(r.scope[2] for r in keeps) == [(1, 1), (2, 2)]
    cost = best_response.exploitability(small, rulebook.build_strategy(small, seed))
    assert start.objective == pytest.approx(0.56516, abs=1e-5)
    assert cost.exploitability == pytest.approx(0.12639, abs=1e-5)    # descended, measured
    two = solve(BidouParams(faces=3, throws=2, max_level=1, reroll="keep")).model
    assert cheatsheet_local.keep_split(two, rulebook.root_rules(two)) is None
