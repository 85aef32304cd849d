"""Top-down rule books (solver/cheatsheet/compress.py): the fitted book states the
fits, merges keep the rules a partition, and the front is the better of both searches."""

from __future__ import annotations

import numpy as np
import pytest

from games.bidou.params import BidouParams
from solver.cheatsheet import compress as cheatsheet_compress
from solver.cheatsheet import rulebook
from solver.cheatsheet import search as cheatsheet
from solver.cheatsheet.rulebook import STEPS, Atom, Rule
from solver.hand import best_response
from solver.hand.solve import solve

TINY = BidouParams(faces=3, throws=2, max_level=2)


@pytest.fixture(scope="module")
def tiny():
    solution = solve(TINY)
    return solution, cheatsheet_compress.Target(solution.model, solution.strategy)


def _open_atom(model) -> Atom:
    return next(a for a in rulebook.atoms(model) if a.kind == "open")


@pytest.mark.parametrize("seed", range(6))
def test_fitted_quarters_become_the_rule_that_states_them(tiny, seed):
    """A bet sequence shaped value part, bluff band, passes, read as (v, b, e): the rule
    bets exactly those quarters, hand by hand (positions strongest first)."""
    solution, _ = tiny
    model = solution.model
    n = model.num_hands
    rng = np.random.default_rng(seed)
    d, e = sorted(rng.choice(np.arange(1, n), size=2, replace=False))
    value = -np.sort(-rng.integers(0, STEPS + 1, size=d))
    bluff = np.sort(rng.integers(0, STEPS + 1, size=e - d))
    bluff[-1] = max(bluff[-1], 1)
    levels = np.concatenate([value, bluff, np.zeros(n - e, dtype=int)])
    params = cheatsheet_compress.cut_params("open", {"bet": levels / STEPS}, n)
    atom = _open_atom(model)
    rule = rulebook.canonical(model, Rule("open", tuple((v, v) for v in atom.features),
                                          params))
    assert rulebook.valid_params(model, "open", rule.params)
    pos = rulebook.positions(model)
    probs = rulebook.action_probs(model, rule, atom, pos)
    actions = model.tree(atom.key[:2]).node(atom.key[2]).actions
    stated = probs[actions.index("bet")][np.argsort(pos)]
    assert stated == pytest.approx(levels / STEPS, abs=1e-12)


def test_shape_fit_is_the_closest_sequence_of_its_shape():
    y = np.array([0.9, 1.0, 0.3, 0.1, 0.6, 0.8, 0.1, 0.0])
    w = np.ones_like(y)
    fit = cheatsheet_compress.shape_fit(y, w, "diz")
    # non-increasing, then non-decreasing, then zeros: the rounded y has that shape
    assert fit == pytest.approx([1.0, 1.0, 0.25, 0.0, 0.5, 0.75, 0.0, 0.0])
    down = cheatsheet_compress.shape_fit(y, w, "d")
    assert np.all(np.diff(down) <= 0) and down[0] == 1.0


def test_the_fitted_book_is_one_rule_per_decision_and_states_its_fits(tiny):
    solution, target = tiny
    model = solution.model
    rules = cheatsheet_compress.fitted_book(model, target)
    atom_list = rulebook.atoms(model)
    assert len(rules) == len(atom_list)
    assert sorted(rulebook.assign(rules, atom_list)) == list(range(len(rules)))
    # each betting decision is the family's fit: within a quarter of the equilibrium
    # wherever the equilibrium's own reach brings the hand
    stated = rulebook.build_strategy(model, rules)
    for atom in atom_list:
        if atom.kind == "open":
            w, seqs = target.sequences(atom)
            actions = model.tree(atom.key[:2]).node(atom.key[2]).actions
            bet = stated.betting[atom.key][actions.index("bet")][target.order]
            fit = cheatsheet_compress.shape_fit(seqs["bet"], w, "diz")
            assert bet == pytest.approx(fit, abs=1e-12)
    cost = best_response.exploitability(model, stated).exploitability
    assert 0 < cost < 0.05


@pytest.fixture(scope="module")
def fronts(tiny):
    solution, _ = tiny
    model = solution.model
    bottom_up = cheatsheet.front_points(model, solution.strategy, solution.value, 6)
    both = cheatsheet_compress.with_top_down(model, solution.strategy, solution.value,
                                             bottom_up)
    return bottom_up, both


def test_merges_keep_a_partition(tiny):
    solution, target = tiny
    model = solution.model
    book = cheatsheet.Book(model, cheatsheet_compress.fitted_book(model, target))
    found = cheatsheet_compress.merges(model, book)
    assert len(found) > len(book.rules)
    for merge in found[::3]:
        trial = cheatsheet_compress._merged(model, book, merge, book.rules[merge.i].params)
        assert trial is not None
        assert len(trial.rules) == len(book.rules) - merge.saved
        assert sorted(set(rulebook.assign(trial.rules, trial.atoms))) == list(
            range(len(trial.rules)))
        # the book's losses are the best response's for the strategy it now states
        exact = best_response.exploitability(model, rulebook.build_strategy(model,
                                                                            trial.rules))
        assert trial.objective == pytest.approx(exact.exploitability, abs=1e-12)


@pytest.mark.slow
def test_the_front_is_the_better_of_both_searches(tiny, fronts):
    solution, _ = tiny
    model = solution.model
    bottom_up, front = fronts
    costs = [p.exploitability.exploitability for p in front]
    assert all(a > b for a, b in zip(costs, costs[1:]))
    assert {p.origin for p in front} == {"bottom-up", "top-down"}
    for p in front:                  # never worse than the bottom-up book of its size or less
        smaller = [q.exploitability.exploitability for q in bottom_up if q.size <= p.size]
        assert p.exploitability.exploitability <= min(smaller) + 1e-12
        strategy = rulebook.build_strategy(model, p.rules)
        assert p.exploitability.exploitability == pytest.approx(
            best_response.exploitability(model, strategy).exploitability, abs=1e-12)
        if p.origin == "top-down":
            for rule in p.rules:     # the words give the rule back
                assert rulebook.parse_rule(model, rulebook.rule_text(model, rule)) == rule
    # measured: the top-down book wins at 4 rules, the bottom-up ones at 3, 5 and 6
    assert [(p.size, p.origin) for p in front] == [
        (3, "bottom-up"), (4, "top-down"), (5, "bottom-up"), (6, "bottom-up")]
    assert costs == pytest.approx([0.1724204, 0.1043096, 0.0946502, 0.0737565], abs=1e-6)
