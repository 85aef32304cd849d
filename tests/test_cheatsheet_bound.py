"""Proved lower bounds on cheat sheets (solver/cheatsheet/bound.py): the relaxed
program against brute force on a tiny hand, below the full MILP's proved optimum, and a
bound above 0 on the default game's published front."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.cheatsheet import bound as cheatsheet_bound
from solver.cheatsheet import milp as cheatsheet_milp
from solver.cheatsheet import rulebook
from solver.cheatsheet import search as cheatsheet
from solver.hand.lp import sequence_form as sequence_lp
from solver.hand.solve import solve

# Four hands under the french ranking, two throws, one bet level: sharing one stop cut
# between the captain and the opponent costs much here (the quarters too), and the 70
# staircases of four hands can all be tried.
TINY = BidouParams(faces=2, throws=2, max_level=1, ranking="french")
FRONT = Path(__file__).resolve().parent.parent / "outputs" / "cheatsheet-front"


@pytest.fixture(scope="module")
def tiny():
    solution = solve(TINY)
    point = cheatsheet.front_points(solution.model, solution.strategy, solution.value, 3)[0]
    return solution.model, point


def _pinned_exploitability(model, stop: np.ndarray) -> float:
    """Half of what each side loses with every first throw stopping with probability
    stop[h] and the rest played as well as it can: the LP (`solve_lp`'s own pinning rows),
    no code shared with the bound's program."""
    n = model.num_hands
    captain = {("throw", CAPTAIN, 0, 0, h): [stop[h], 1 - stop[h]] for h in range(n)}
    opponent = {("throw", OPPONENT, c, 0, h): [stop[h], 1 - stop[h]]
                for c in range(model.throws) for h in range(n)}
    worst = sequence_lp.solve_lp(model, maximizer=OPPONENT, fixed_behaviour=opponent).value
    best = sequence_lp.solve_lp(model, maximizer=CAPTAIN, fixed_behaviour=captain).value
    return 0.5 * (worst - best)


@pytest.mark.slow
def test_the_first_throw_program_is_the_brute_force_minimum(tiny):
    """One stop rule for every first throw: the program's proved optimum (quarters) is the
    least, over all 70 staircases of four hands, of the LP with the first throws pinned to
    it; the LP relaxation (any non-increasing frequencies) bounds it from below."""
    model, point = tiny
    groups = cheatsheet_bound.book_groups(model, point.rules)
    assert groups == ((0, 1, 2),)
    pos = rulebook.positions(model)
    stairs = [c for c in itertools.product(range(model.num_hands + 1), repeat=4)
              if all(a >= b for a, b in zip(c, c[1:]))]
    assert len(stairs) == 70
    brute = min(_pinned_exploitability(model, (pos[:, None] < np.array(c)).mean(axis=1))
                for c in stairs)
    found = cheatsheet_bound.bound(model, groups, 60, integer=True)
    assert found.proved_optimal
    assert found.bound == pytest.approx(brute, abs=1e-9)
    assert found.bound == pytest.approx(0.18359375, abs=1e-9)
    relaxed = cheatsheet_bound.bound(model, groups, 60, integer=False)
    assert relaxed.proved_optimal
    assert relaxed.bound == pytest.approx(0.17708333333333334, abs=1e-9)


def test_the_book_bound_is_below_the_milps_proved_optimum(tiny):
    """The full MILP proves the best cuts of the book's scopes (0.1992, gap 0); the bound
    (first throws and ties pinned, every cut free) is a proof for a larger class, so it is
    below that optimum, and above the first throws' bound alone."""
    model, point = tiny
    best = cheatsheet_milp.optimize(model, point.rules, time_limit=60)
    assert best.proved_optimal
    assert best.objective == pytest.approx(0.19915771484375, abs=1e-9)
    found = cheatsheet_bound.book_bound(model, point.rules, 60, integer=True)
    assert found.proved_optimal
    assert 0.18359375 - 1e-9 <= found.bound <= best.objective + 1e-9


@pytest.mark.slow
def test_every_front_book_is_a_plan_of_some_relaxed_program():
    """`relaxed_programs(k)` covers every book of at most k rules: each published default
    book of k <= 6 rules pins all that one of them pins (that program's groups and ties
    lie inside the book's), and a 3-rule book has no choice of scopes."""
    solution_model = _default_model()
    files = sorted(FRONT.glob("front_default_*.json"))
    for path in files[:4]:                # 3 to 6 rules
        rules = [rulebook.Rule.from_dict(d)
                 for d in json.loads(path.read_text())["result"]["rule_list"]]
        groups = cheatsheet_bound.book_groups(solution_model, rules)
        ties = cheatsheet_bound.book_ties(solution_model, rules)
        programs = cheatsheet_bound.relaxed_programs(solution_model, len(rules))
        # a program relaxes the book: every group and tie it pins, the book pins too
        assert any(all(any(set(a) <= set(b) for b in groups) for a in g)
                   and all(any(set(a) <= set(b) for b in ties) for a in t)
                   for g, t in programs)
        if len(rules) == 3:
            assert programs == [(groups, tuple(sorted(ties)))]


def _default_model():
    from solver.hand.strategy import load_strategy_file

    return load_strategy_file(FRONT / "front_default_03.json")[0]


@pytest.mark.slow
def test_a_default_front_point_has_a_bound_above_zero():
    """The default game's 3-rule book (0.2259): no book with its scopes, whatever its cuts,
    costs less than 0.0884 (proved: the LP's optimum), the same for every book of 3 rules
    (one scope per kind). The first throws alone bound 0.0021; the ties (the opponent's
    throwing whatever the captain's count, the captain's betting whatever the opponent's)
    make the rest."""
    model = _default_model()
    result = json.loads((FRONT / "front_default_03.json").read_text())["result"]
    rules = [rulebook.Rule.from_dict(d) for d in result["rule_list"]]
    found = cheatsheet_bound.book_bound(model, rules, 120, integer=False)
    assert found.proved_optimal
    assert found.bound == pytest.approx(0.0884363, abs=1e-6)
    assert 0.08 < found.bound < result["exploitability"]
    alone = cheatsheet_bound.bound(model, cheatsheet_bound.book_groups(model, rules), 120,
                                   integer=False)
    assert alone.bound == pytest.approx(0.0021106, abs=1e-6)


@pytest.mark.parametrize("game", ["default", "french", "keep"])
def test_published_front_points_state_their_bounds(game):
    """Every published front point records a proved bound for its scopes, never above its
    cost (each book is in its own class), and, for the smallest sizes, one over every book
    of at most that many rules, never above the book's own bound nor rising with k; the
    smallest book's bound is well above 0."""
    files = sorted(FRONT.glob(f"front_{game}_*.json"))
    results = [json.loads(path.read_text())["result"] for path in files]
    table = (FRONT / "front.md").read_text()
    every = []
    for path, result in zip(files, results):
        entry = result["lower_bound"]
        assert entry["scopes"]["status"] == "optimal"
        assert 0.0 <= entry["scopes"]["bound"] <= result["exploitability"]
        assert entry["scopes"]["gap"] == pytest.approx(
            result["exploitability"] - entry["scopes"]["bound"], abs=1e-12)
        assert f"its scopes: {entry['scopes']['bound']:.4f}" in table.split(path.name)[1]
        if "all_scopes" in entry:
            assert entry["all_scopes"]["bound"] <= entry["scopes"]["bound"] + 1e-12
            every.append(entry["all_scopes"]["bound"])
    assert len(every) >= 2 and all(a >= b - 1e-12 for a, b in zip(every, every[1:]))
    assert results[0]["lower_bound"]["scopes"]["bound"] > 0.05
    assert every[0] == pytest.approx(results[0]["lower_bound"]["scopes"]["bound"], abs=1e-12)


@pytest.mark.slow
def test_the_books_of_one_rule_more_are_every_split():
    """One rule more than one per kind: a kind's decisions cut into two scopes, every way
    (default game: 2 ways for the throws, 7 for the openings, 10 for the faced bets), each
    a book that partitions the decisions; their programs, the finest kept, are what the
    bound over every book of 4 rules solves."""
    model = _default_model()
    books = cheatsheet_bound.split_books(model)
    counts: dict[str, int] = {}
    for book in books:
        rulebook.assign(book, rulebook.atoms(model))            # raises unless a partition
        kinds = [r.kind for r in book]
        split = next(k for k in kinds if kinds.count(k) == 2)
        counts[split] = counts.get(split, 0) + 1
    assert counts == {"throw": 2, "open": 7, "face": 10}
    assert len(cheatsheet_bound.relaxed_programs(model, 4)) == 8
