"""The rule family with mixing over ranges of hands: staircase cuts, their words,
and the words read back."""

from __future__ import annotations

import numpy as np
import pytest

from games.bidou.params import BidouParams
from solver.cheatsheet import rulebook
from solver.cheatsheet.rulebook import Rule, RuleTextError
from solver.hand.model import build_model


@pytest.fixture(scope="module")
def model():
    return build_model(BidouParams())


def _full(model, kind):
    dom = rulebook.domains(model)[kind]
    return tuple(dom[f] for f in rulebook.FEATURES[kind])


def _staircase(rng, n, lo=0, hi=None):
    hi = n if hi is None else hi
    return tuple(sorted((int(x) for x in rng.integers(lo, hi + 1, 4)), reverse=True))


def test_integer_cuts_are_the_staircases_within_one_hand():
    assert rulebook.counts(0) == (0, 0, 0, 0)
    assert rulebook.counts(9) == (3, 2, 2, 2)              # 2 hands and a quarter of one
    assert rulebook.counts(11) == (3, 3, 3, 2)
    assert all(rulebook.cut_of(rulebook.counts(k)) == k for k in range(4 * 56 + 1))
    assert rulebook.cut_of([5, 5, 3, 3]) == (5, 5, 3, 3)
    with pytest.raises(ValueError):
        rulebook.cut_of((5, 4, 3))


def test_a_staircase_mixes_whole_ranges_in_quarters(model):
    pos = rulebook.positions(model)
    cut = (30, 30, 20, 18)
    inside = rulebook.above(cut, pos)
    by_position = inside[np.argsort(pos)]
    assert np.all(by_position[:18] == 1.0) and np.all(by_position[18:20] == 0.75)
    assert np.all(by_position[20:30] == 0.5) and np.all(by_position[30:] == 0.0)
    rule = rulebook.canonical(model, Rule("face", _full(model, "face"), ((3, 3, 1, 1), cut)))
    assert rulebook.action_text(model, rule) == (
        "raise with 2-1-1, half the time with 6-6-6 to 5-5-5, call with 6-5-5 or "
        "better, three times in four with 6-5-3 to 6-5-2, half the time with 6-5-1 to "
        "6-2-1, otherwise fold (facing a raise to 4 you cannot raise: call)")
    atom = next(a for a in rulebook.atoms(model) if a.kind == "face" and a.features[1] == 1)
    probs = rulebook.action_probs(model, rule, atom, pos)
    actions = model.tree(atom.key[:2]).node(atom.key[2]).actions
    raise_ = probs[actions.index("raise")][np.argsort(pos)]
    call = probs[actions.index("call")][np.argsort(pos)]
    assert list(raise_[:4]) == [1.0, 0.5, 0.5, 0.0] and list(call[:4]) == [0.0, 0.5, 0.5, 1.0]
    assert np.allclose(probs.sum(axis=0), 1.0)


def test_bluffs_in_ranges_read_back(model):
    rule = rulebook.canonical(model, Rule("open", _full(model, "open"),
                                          ((3, 3, 0, 0), (56, 56, 56, 50))))
    text = rulebook.rule_text(model, rule)
    assert text.endswith(": bet half the time with 2-1-1 to 5-5-5, bluff (bet) one time in "
                         "four with 4-2-1 to 3-1-1, otherwise pass")
    assert rulebook.parse_rule(model, text) == rule


def test_random_staircase_rules_read_back_and_state_what_they_say(model):
    """Random rules of every kind: the words give back the rule, and the strategy of the
    rule is the staircase's probability on every hand."""
    rng = np.random.default_rng(24)
    n = model.num_hands
    pos = rulebook.positions(model)
    atom_of = {kind: next(a for a in rulebook.atoms(model) if a.kind == kind
                          and (kind != "face" or a.features[1] == 1))
               for kind in ("throw", "open", "face")}
    checked = 0
    for _ in range(300):
        kind = ("throw", "open", "face")[int(rng.integers(3))]
        first = _staircase(rng, n, 0, n // 2)
        # an open rule's bluffs lie below a hand that always passes (`rulebook.polarized`)
        params = ((first,) if kind == "throw"
                  else (first, _staircase(rng, n, first[0] + (kind == "open"), n)))
        rule = rulebook.canonical(model, Rule(kind, _full(model, kind), params))
        assert rulebook.valid_params(model, kind, rule.params)
        text = rulebook.rule_text(model, rule)
        assert rulebook.parse_rule(model, text) == rule, text
        probs = rulebook.action_probs(model, rule, atom_of[kind], pos)
        inside = rulebook.above(rule.params[0], pos)
        if kind == "throw":
            assert np.allclose(probs[0], inside)
        else:
            atom = atom_of[kind]
            actions = model.tree(atom.key[:2]).node(atom.key[2]).actions
            assert np.allclose(probs.sum(axis=0), 1.0)
            second = rulebook.above(rule.params[1], pos)
            if kind == "open":                   # value bets and bluffs, never both
                assert np.allclose(probs[actions.index("bet")], inside + 1.0 - second)
            else:                                # raise, call the rest, fold outside
                assert np.allclose(probs[actions.index("raise")], inside)
                assert np.allclose(probs[actions.index("fold")], 1.0 - second)
        checked += isinstance(rule.params[0], tuple)
    assert checked > 200                       # most of them are true staircases


def test_ranges_out_of_order_are_refused(model):
    good = rulebook.canonical(model, Rule("throw", _full(model, "throw"), ((20, 18, 18, 16),)))
    text = rulebook.rule_text(model, good)
    assert "three times in four with 6-6-1 to 6-5-5, one time in four with 6-5-3" in text
    swapped = text.replace("three times in four with 6-6-1 to 6-5-5, one time in four with "
                           "6-5-3 to 6-5-2", "one time in four with 6-6-1 to 6-5-5, three "
                           "times in four with 6-5-3 to 6-5-2")
    with pytest.raises(RuleTextError):
        rulebook.parse_rule(model, swapped)
    # a hand that sometimes raises never folds
    assert not rulebook.valid_params(model, "face", ((10, 10, 5, 5), (20, 20, 8, 8)))
    assert rulebook.valid_params(model, "face", ((10, 10, 5, 5), (20, 20, 10, 10)))


def test_a_bluff_band_bluffs_with_middling_hands_only(model):
    """(v, b, e): bet inside v, bluff outside b but only with the first e hands: the
    equilibrium's shape (it passes with the weakest hands), in words and read back."""
    pos = rulebook.positions(model)
    atom = next(a for a in rulebook.atoms(model) if a.kind == "open")
    actions = model.tree(atom.key[:2]).node(atom.key[2]).actions
    rule = rulebook.canonical(model, Rule("open", _full(model, "open"), (48, 130, 41)))
    assert rule.params == (48, 130, 41) and rulebook.band_end(model, rule) == 41
    text = rulebook.rule_text(model, rule)
    assert text.endswith("bet with 3-2-1 or better, bluff (bet) with 5-5-2 to 5-3-1 (with "
                         "5-5-3 half the time), otherwise pass")
    assert rulebook.parse_rule(model, text) == rule
    bet = rulebook.action_probs(model, rule, atom, pos)[actions.index("bet")][np.argsort(pos)]
    assert np.all(bet[:12] == 1.0) and np.all(bet[12:32] == 0.0) and bet[32] == 0.5
    assert np.all(bet[33:41] == 1.0) and np.all(bet[41:] == 0.0)
    # a band of one hand, a staircase band, and the bluffs made only in part
    for params, words in (((48, 132, 34), "bluff (bet) with 5-5-2, otherwise"),
                          ((48, (36, 35, 33, 33), 41), "bluff (bet) with 5-4-2 to 5-3-1, "
                           "three times in four with 5-4-4, half the time with 5-5-2 to "
                           "5-5-1, otherwise"),
                          ((48, 130, 33), "bluff (bet) with 5-5-3 half the time, otherwise")):
        band = rulebook.canonical(model, Rule("open", _full(model, "open"), params))
        assert band.params == params and words in rulebook.rule_text(model, band)
        assert rulebook.parse_rule(model, rulebook.rule_text(model, band)) == band


def test_bands_have_one_spelling(model):
    """A band down to the weakest hand is "or worse" (no e); a band with no bluff in it is
    no bluff; an end above the bluff cut's steps is refused."""
    n, top, full = model.num_hands, 4 * model.num_hands, _full(model, "open")
    assert rulebook.canonical(model, Rule("open", full, (48, 130, n))).params == (48, 130)
    assert rulebook.canonical(model, Rule("open", full, (48, 132, 33))).params == (48, top)
    assert rulebook.valid_params(model, "open", (48, 130, 33))
    assert not rulebook.valid_params(model, "open", (48, 130, 32))      # c1 = 33 > e
    assert not rulebook.valid_params(model, "open", (48, 130, n))      # no band: (v, b)
    assert not rulebook.valid_params(model, "open", (48, (40, 36, 33, 33), 38))


def test_random_band_rules_read_back_and_state_what_they_say(model):
    rng = np.random.default_rng(24)
    n, full = model.num_hands, _full(model, "open")
    pos = rulebook.positions(model)
    atom = next(a for a in rulebook.atoms(model) if a.kind == "open")
    tried = 0
    while tried < 150:
        v = int(rng.integers(0, 80))
        b = (int(rng.integers(80, 4 * n)) if rng.random() < 0.5 else
             _staircase(rng, n, 20, n))
        e = int(rng.integers(20, n))
        if not rulebook.valid_params(model, "open", (v, b, e)):
            continue
        tried += 1
        rule = rulebook.canonical(model, Rule("open", full, (v, b, e)))
        back = rulebook.parse_rule(model, rulebook.rule_text(model, rule))
        assert back == rule
        bet = rulebook.action_probs(model, rule, atom, pos)[1]
        bluff = (1 - rulebook.above(b, pos)) * (pos < e)
        assert np.allclose(bet, np.minimum(rulebook.above(v, pos) + bluff, 1.0))
