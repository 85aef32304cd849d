"""The front's local search (solver/cheatsheet/local_search.py): every size present, each
no worse than the size below it and than both searches' books, measured exactly."""

from __future__ import annotations

import pytest

from games.bidou.params import BidouParams
from solver.cheatsheet import compress as cheatsheet_compress
from solver.cheatsheet import local_search as cheatsheet_local
from solver.cheatsheet import rulebook
from solver.cheatsheet import search as cheatsheet
from solver.hand import best_response
from solver.hand.solve import solve

# every test reads the module's fronts, searched three ways: about 13 s
pytestmark = pytest.mark.slow

TINY = BidouParams(faces=3, throws=2, max_level=2)


@pytest.fixture(scope="module")
def searched():
    solution = solve(TINY)
    model = solution.model
    bottom_up = cheatsheet.pareto_front(model, 6)
    top_down = cheatsheet_compress.compress(model, solution.strategy, 8, rules_min=3,
                                            descend_max=0)
    front = cheatsheet_local.improve_front(model, solution.strategy,
                                           list(bottom_up) + list(top_down.values()), 3, 6)
    return solution, bottom_up, top_down, front


def _cost(model, rules) -> float:
    return best_response.exploitability(model, rulebook.build_strategy(model, rules)
                                        ).exploitability


def test_every_size_is_present_and_no_worse_than_the_one_below(searched):
    solution, _, _, front = searched
    model = solution.model
    assert sorted(front) == [3, 4, 5, 6]
    costs = [_cost(model, front[size]) for size in sorted(front)]
    assert all(b <= a + 1e-12 for a, b in zip(costs, costs[1:]))
    for size, rules in front.items():
        assert len(rules) == size
        assert sorted(set(rulebook.assign(rules, rulebook.atoms(model)))) == list(range(size))
        for rule in rules:                       # the words give every rule back
            assert rulebook.parse_rule(model, rulebook.rule_text(model, rule)) == rule


def test_the_local_search_beats_both_searches_it_starts_from(searched):
    """At each size, never worse than the best book of that size or less of either search;
    measured: far better at 5 and 6 rules (0.0706 and 0.0391) than the bottom-up books
    (0.0947, 0.0738), where the chain has no book (it merges from 7 rules to 4). About 30 s
    of computing: a search over four sizes with a beam of three is what is tested."""
    solution, bottom_up, top_down, front = searched
    model = solution.model
    starts = [(len(r), _cost(model, r)) for r in list(bottom_up) + list(top_down.values())]
    for size, rules in front.items():
        cost = _cost(model, rules)
        assert cost <= min(c for s, c in starts if s <= size) + 1e-12
    measured = [round(_cost(model, front[size]), 7) for size in sorted(front)]
    assert measured == pytest.approx([0.1724204, 0.1318778, 0.070559, 0.0390947], abs=1e-6)
    assert sorted(len(r) for r in top_down.values()) == [3, 4, 7, 8]
