"""The cheat sheet's MILP (solver/cheatsheet/milp.py): the best cuts of a rule
book proved, checked against the exact best response and against exhaustive search."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from games.bidou.params import BidouParams
from solver.cheatsheet import milp as cheatsheet_milp
from solver.cheatsheet import rulebook
from solver.cheatsheet import search as cheatsheet
from solver.hand import best_response
from solver.hand.solve import solve

# Four hands (faces 2), one throw decision, one bet level: the smallest hand with every
# kind of decision, whose whole MILP HiGHS proves in seconds.
SMALL = BidouParams(faces=2, throws=2, max_level=1)


@pytest.fixture(scope="module")
def small():
    solution = solve(SMALL)
    points = cheatsheet.front_points(solution.model, solution.strategy, solution.value, 3)
    return solution, points[0]


def _cost(model, rules) -> float:
    return best_response.exploitability(model, rulebook.build_strategy(model, rules)
                                        ).exploitability


@pytest.mark.slow
def test_the_milp_proves_the_best_cuts_of_a_book(small):
    """Three rules (stop, open, face): the greedy search's integer cuts cost 0.0522; the
    MILP finds a bluff mixed over a range (0.0507, exact in binary fractions) and proves
    that no cuts of these three scopes do better (gap 0). Its objective is the exact best
    response's measure of the book it returns (no shared code)."""
    solution, start = small
    model = solution.model
    assert start.exploitability.exploitability == pytest.approx(0.05218505859375, abs=1e-12)
    result = cheatsheet_milp.optimize(model, start.rules, time_limit=120)
    assert result.status == "optimal" and result.proved_optimal
    assert result.objective == pytest.approx(_cost(model, result.rules), abs=1e-9)
    assert result.objective == pytest.approx(0.0506591796875, abs=1e-9)
    assert result.gap == pytest.approx(0.0, abs=1e-9)
    assert result.bound <= result.objective
    open_rule = next(r for r in result.rules if r.kind == "open")
    assert isinstance(open_rule.params[1], tuple)             # a staircase: a mixed range
    text = rulebook.rule_text(model, open_rule)
    assert "bluff (bet) half the time with 1-1-1 to 2-2-1" in text
    assert rulebook.parse_rule(model, text) == open_rule


@pytest.mark.parametrize("which", ["throw", "face"])
def test_a_block_solve_finds_the_exhaustive_optimum(small, which):
    """With the other rules fixed, the MILP's best cuts for one rule cost exactly the
    least of every valid cut of that rule, each measured by the exact best response."""
    solution, start = small
    model = solution.model
    i = next(k for k, r in enumerate(start.rules) if r.kind == which)
    rule = start.rules[i]
    n = model.num_hands
    stairs = [c for c in itertools.product(range(n + 1), repeat=4)
              if all(a >= b for a, b in zip(c, c[1:]))]
    assert len(stairs) == 70
    top_only = rulebook.top_level_only(model, rule)
    costs = []
    for cut in stairs:
        params = (rulebook.cut_of(cut),) if which == "throw" else (0, rulebook.cut_of(cut))
        if rulebook.valid_params(model, rule.kind, params, top_only):
            trial = list(start.rules)
            trial[i] = dataclasses.replace(rule, params=params)
            costs.append(_cost(model, trial))
    found = cheatsheet_milp.best_cuts(model, start.rules, [i])
    assert found.status == "optimal"
    assert found.objective == pytest.approx(min(costs), abs=1e-9)
    assert _cost(model, found.rules) == pytest.approx(min(costs), abs=1e-12)


def test_improve_never_makes_a_book_worse(small):
    solution, start = small
    model = solution.model
    better = cheatsheet_milp.improve(model, start.rules, time_per_rule=20, sweeps=1)
    assert [r.scope for r in better] == [r.scope for r in start.rules]
    assert _cost(model, better) <= start.exploitability.exploitability + 1e-12
    assert _cost(model, better) < start.exploitability.exploitability - 1e-3


@pytest.mark.slow
def test_a_proved_sheet_with_staircases_is_a_valid_file(small, tmp_path):
    """`prove` on the small hand: the sheet it writes keeps its staircase cuts as data,
    states what the MILP proved, passes the cheat-sheet schema and reads back."""
    import json

    from solver.export.cheatsheet_page import write_cheatsheet
    from solver.schemas import validate

    solution, start = small
    model = solution.model
    point = cheatsheet_milp.prove(model, start.rules, solution.strategy, solution.value, 60)
    assert point.exploitability.exploitability < start.exploitability.exploitability - 1e-3
    assert point.proof is not None and point.proof.start == pytest.approx(0.05218505859375)
    write_cheatsheet(model, point, tmp_path, dpi=30)
    document = json.loads((tmp_path / "cheatsheet_strategy.json").read_text())
    validate(document, "cheatsheet-strategy")
    assert any(isinstance(p, list) for r in document["result"]["rule_list"] for p in r["params"])
    assert [rulebook.Rule.from_dict(d) for d in document["result"]["rule_list"]] == \
        list(point.rules)
    assert document["result"]["milp"]["start_exploitability"] == pytest.approx(0.05218505859375)
    text = (tmp_path / "cheatsheet.md").read_text()
    assert "Among all cuts (mixing in quarters) for these rules' situations" in text
    assert rulebook.parse_rules(model, text.split("## What they cost")[0].splitlines()) == \
        list(point.rules)


def test_a_block_solve_with_a_bluff_band_finds_the_exhaustive_optimum(small):
    """An open rule whose bluffs stop before the weakest hand (a band ending at e = 3 of
    the 4 hands): the MILP keeps the band's end and finds the best value and bluff cuts,
    exactly the least cost of every valid (v, b) with that end (exhaustive search, the
    exact best response)."""
    solution, start = small
    model = solution.model
    i = next(k for k, r in enumerate(start.rules) if r.kind == "open")
    rule = start.rules[i]
    n = model.num_hands
    stairs = [rulebook.cut_of(c) for c in itertools.product(range(n + 1), repeat=4)
              if all(a >= b for a, b in zip(c, c[1:]))]
    costs = {}
    for v, b in itertools.product(stairs, stairs):
        if rulebook.valid_params(model, "open", (v, b, 3)):
            trial = list(start.rules)
            trial[i] = rulebook.canonical(model, dataclasses.replace(rule, params=(v, b, 3)))
            costs[trial[i].params] = _cost(model, trial)
    banded = list(start.rules)
    banded[i] = dataclasses.replace(rule, params=(0, 10, 3))      # bluff 2-2-1 half the time
    assert rulebook.canonical(model, banded[i]).params == (0, 10, 3)
    found = cheatsheet_milp.best_cuts(model, banded, [i], presolve=False)
    assert found.status == "optimal"
    assert found.objective == pytest.approx(min(costs.values()), abs=1e-9)
    assert _cost(model, found.rules) == pytest.approx(min(costs.values()), abs=1e-12)
    assert min(costs.values()) > 0.0507                 # the band costs here: the weakest
    assert rulebook.band_end(model, found.rules[i]) in (3, n)   # hand bluffs in the best


def test_the_relaxations_bound_lies_below_the_milps_proved_optimum(small):
    """`relaxed_bound` is over a larger class (every plan with the book's first-throw
    groups and ties), so it lies below the best cuts the MILP proves for these scopes
    (on this small hand far below: about 0; tests/test_cheatsheet_bound.py has the
    default game's 0.0884), and never above the cost it is given."""
    solution, start = small
    model = solution.model
    relaxed = cheatsheet_milp.relaxed_bound(model, start.rules, 1.0)
    assert relaxed is not None and -1e-12 <= relaxed <= 0.0506591796875 + 1e-9
    assert cheatsheet_milp.relaxed_bound(model, start.rules, -1.0) == -1.0


def test_a_proof_states_the_better_bound_and_what_proved_it():
    timed_out = cheatsheet.Proof("time limit reached", None, 21.0, 0.0326, relaxed=0.0054)
    assert timed_out.best_bound == 0.0054 and timed_out.gap(0.0326) == pytest.approx(0.0272)
    words = timed_out.words(0.0326)
    assert words == ("none costs less than 0.0054 (gap 0.0272), proved by an LP relaxation "
                     "(first throws exact, the decisions each rule answers tied; the MILP: "
                     "time limit reached after 21 s)")
    milp_better = cheatsheet.Proof("time limit reached", 0.01, 30.0, 0.0326, relaxed=0.0054)
    assert milp_better.best_bound == 0.01
    assert milp_better.words(0.0326) == ("none costs less than 0.0100 (gap 0.0226), proved "
                                         "by the MILP: time limit reached after 30 s")
    nothing = cheatsheet.Proof("time limit reached", None, 21.0, 0.0326)
    assert nothing.gap(0.0326) is None
    assert nothing.words(0.0326) == "no lower bound reached in 21 s (time limit reached)"
    assert cheatsheet.Proof("optimal", 0.03, 5.0, 0.04, relaxed=0.01).words(0.03) == \
        "its cuts are proved the best for these scopes (gap 0)"
