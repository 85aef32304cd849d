"""The compact model, the LP and the exact best response, on real numbers."""

import json
import os

import numpy as np
import pytest
import scipy.optimize

from games.bidou.betting import CAPTAIN, OPPONENT, build_tree, hand_payoff
from games.bidou.params import BidouParams
from solver.common.errors import SolverError
from solver.common.files import write_json_atomic
from solver.hand import best_response
from solver.hand.best_response import exploitability
from solver.hand.lp import sequence_form as lp
from solver.hand.model import build_model
from solver.hand.reach import own_reach
from solver.hand.solve import solve
from solver.hand.strategy import (
    StrategyFileError,
    check_strategy,
    load_strategy_file,
    strategy_from_json,
    uniform_strategy,
)

DEFAULT_VALUE = -0.036895667099526
KEEP_VALUE = -0.061388065840709
FRENCH_VALUE = -0.036904226867802


@pytest.fixture(scope="module")
def default(default_solution):
    return default_solution


def test_default_value_and_exploitability(default):
    assert default.value == pytest.approx(DEFAULT_VALUE, abs=1e-9)
    assert default.status == "optimal" and default.converged
    e = default.exploitability
    assert e.value == pytest.approx(default.value, abs=1e-9)
    assert 0 <= e.nash_conv <= 1e-9
    assert abs(e.captain_exploitability) <= 1e-9 and abs(e.opponent_exploitability) <= 1e-9


@pytest.mark.slow
def test_keep_and_french_values():
    keep = solve(BidouParams(reroll="keep"))
    assert keep.value == pytest.approx(KEEP_VALUE, abs=1e-9)
    assert keep.exploitability.nash_conv <= 1e-9
    french = solve(BidouParams(ranking="french"))
    assert french.value == pytest.approx(FRENCH_VALUE, abs=1e-9)
    assert french.exploitability.nash_conv <= 1e-9


def test_strategies_are_proper_distributions(default):
    check_strategy(default.model, default.strategy, tol=1e-9)
    for array in default.strategy.throw:
        sums = array.sum(axis=-2)
        assert np.allclose(sums, 1.0)


def test_betting_tree_shape():
    tree = build_tree(CAPTAIN, max_level=2)
    assert [n.history for n in tree.nodes] == ["", "p", "pb", "pbr", "b", "br"]
    assert {leaf.history: leaf.kind for leaf in tree.leaves} == {
        "pp": "pass", "pbf": "fold", "pbc": "showdown", "pbrf": "fold", "pbrc": "showdown",
        "bf": "fold", "bc": "showdown", "brf": "fold", "brc": "showdown"}
    assert tree.node("br").actions == ("fold", "call")       # level 2 = max: no raise
    assert tree.node("pbr").actor == OPPONENT
    # every edge leads to a later node (pre-order) or to a leaf
    for node in tree.nodes:
        for edge in node.edges:
            assert (edge.leaf is None) != (edge.node is None)
            assert edge.node is None or edge.node > node.index
    assert tree.after(["bet", "raise", "call"]).kind == "showdown"
    assert tree.after(["bet", "raise", "call"]).level == 2


def test_one_throw_one_level_game_by_hand():
    """faces=2, throws=1, max_level=1 is small enough to know: the OpenSpiel LP gives -0.075."""
    solution = solve(BidouParams(faces=2, throws=1, max_level=1))
    assert solution.value == pytest.approx(-0.075, abs=1e-12)


def chip_trees(max_level: int, scale: int):
    def payoff(leaf):
        return tuple(scale * v for v in hand_payoff(leaf.kind, leaf.level, leaf.folder))
    return {first: build_tree(first, max_level, payoff=payoff) for first in (CAPTAIN, OPPONENT)}


def test_zero_payoffs_give_zero_value():
    params = BidouParams(faces=3, throws=2, max_level=2)
    model = build_model(params, chip_trees(2, 0))
    assert lp.solve_lp(model).value == pytest.approx(0, abs=1e-12)


def test_payoff_scaling_scales_value():
    params = BidouParams(faces=3, throws=2, max_level=2)
    v1 = lp.solve_lp(build_model(params)).value
    v2 = lp.solve_lp(build_model(params, chip_trees(2, 2))).value
    assert v2 == pytest.approx(2 * v1, abs=1e-12)


def test_best_response_beats_uniform_and_is_consistent():
    model = build_model(BidouParams(faces=3, throws=2, max_level=2))
    uniform = uniform_strategy(model)
    e = exploitability(model, uniform)
    assert e.captain_guaranteed <= e.value <= e.captain_best
    assert e.nash_conv > 0.1
    # the best response itself, played, earns its value
    br = best_response.best_response(model, uniform, CAPTAIN)
    played = uniform.copy()
    played.throw[CAPTAIN][...] = br.throw
    for key, probs in br.betting.items():
        played.betting[key] = probs
    assert best_response.policy_value(model, played) == pytest.approx(br.value, abs=1e-12)


def test_completion_keeps_equilibrium(default):
    raw = lp.solve_lp(default.model).strategy
    completed = best_response.complete_unreached(default.model, raw)
    e_raw = exploitability(default.model, raw)
    e_done = exploitability(default.model, completed)
    assert e_done.value == pytest.approx(e_raw.value, abs=1e-12)
    assert e_done.nash_conv <= 1e-9
    # the captain never throws a third time with an excellent hand in hand: the betting
    # chart there is a best response, pure, not uniform filler
    throw_reach, betting_reach = own_reach(default.model, completed, CAPTAIN)
    dead = [(k, h) for k, r in betting_reach.items() for h in np.nonzero(r[0] <= 1e-12)[0]]
    assert dead, "some captain decisions are off his path"
    for key, h in dead:
        column = completed.betting[key][:, h]
        assert np.isclose(column.max(), 1.0)


def test_solver_failure_raises(monkeypatch):
    real = scipy.optimize.linprog

    def failing(*args, **kwargs):
        result = real(*args, **kwargs)
        result.status, result.message = 1, "Iteration limit reached."
        return result

    monkeypatch.setattr(scipy.optimize, "linprog", failing)
    with pytest.raises(SolverError, match="Iteration limit"):
        solve(BidouParams(faces=2, throws=1, max_level=1))


def test_strategy_file_round_trip(tmp_path, default):
    path = tmp_path / "strategy.json"
    write_json_atomic(path, default.to_json())
    assert os.listdir(tmp_path) == ["strategy.json"]
    model, strategy, result = load_strategy_file(path)
    assert model.params == default.params
    assert result["value"] == pytest.approx(DEFAULT_VALUE, abs=1e-9)
    assert exploitability(model, strategy).nash_conv <= 1e-9


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(schema_version=99), "schema_version"),
    (lambda d: d.update(schema="other"), "not a bidou-strategy"),
    (lambda d: d["rules"].update(faces=9), "faces"),
    (lambda d: d["rules"].update(faces=5), "^/hands: 56 hands, expected the rules' 35"),
    (lambda d: d["throw"]["captain"][0][0].__setitem__(0, 0.5), "sum to 1"),
    (lambda d: d["betting"][0]["probabilities"][0].__setitem__(0, -3.0),
     "^/betting/0/probabilities/0/0: must be a probability: a number from 0 to 1, got -3.0"),
    (lambda d: d["betting"].pop(), "^/betting: no entry for the decision point"),
    (lambda d: d.pop("throw"), "^/: the key 'throw' is missing"),
])
def test_bad_strategy_files_are_refused(default, edit, message):
    document = json.loads(json.dumps(default.to_json()))
    edit(document)
    with pytest.raises(StrategyFileError, match=message):
        strategy_from_json(document)


def test_unreadable_strategy_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"schema": "bidou-strategy", "schema_version": 1, "rul')
    with pytest.raises(StrategyFileError, match="not valid JSON"):
        load_strategy_file(path)
    with pytest.raises(StrategyFileError, match="cannot read"):
        load_strategy_file(tmp_path / "missing.json")


@pytest.mark.parametrize("reroll", ["all", "keep"])
def test_either_player_as_primal_gives_the_same_game(reroll):
    """The LP solved for the captain and for the opponent (duals the other way round)."""
    model = build_model(BidouParams(faces=3, throws=2, max_level=2, reroll=reroll,
                                    ranking="french"))
    a = lp.solve_lp(model, maximizer=CAPTAIN)
    b = lp.solve_lp(model, maximizer=OPPONENT)
    assert a.value == pytest.approx(b.value, abs=1e-12)
    for solution in (a, b):
        assert exploitability(model, solution.strategy).nash_conv <= 1e-9


def test_warm_started_lp_matches_scipy_and_restarts_from_its_basis():
    """`solve_lp_from` (highspy, for the round's re-solves) solves the same LP as
    `solve_lp`; started from its own final basis it needs no pivot, from a basis of another
    shape it solves cold, and a changed game re-solved from the old basis still has the new
    game's value."""
    model = build_model(BidouParams(faces=3, throws=2, max_level=2))
    cold, basis = lp.solve_lp_from(model, None)
    assert cold.value == pytest.approx(lp.solve_lp(model).value, abs=1e-12)
    assert exploitability(model, cold.strategy).nash_conv <= 1e-9
    again, _ = lp.solve_lp_from(model, basis)
    assert again.iterations == 0 and again.value == pytest.approx(cold.value, abs=1e-14)
    wrong = lp.Basis(basis.cols[:-1], basis.rows)
    assert lp.solve_lp_from(model, wrong)[0].iterations > 0

    def scaled(leaf):
        base = hand_payoff(leaf.kind, leaf.level, leaf.folder)
        return tuple(1.5 * float(x) + (0.25 if leaf.level == 1 else 0.0) for x in base)
    other = build_model(model.params, {first: build_tree(first, 2, payoff=scaled)
                                       for first in (CAPTAIN, OPPONENT)})
    warm, _ = lp.solve_lp_from(other, basis)
    assert warm.value == pytest.approx(lp.solve_lp(other).value, abs=1e-12)
    assert warm.value != pytest.approx(cold.value, abs=1e-3)


def test_pinned_throwing_gives_the_restricted_games_value():
    """`fixed_throw`: pinned to the equilibrium's own (pure) throwing the value does not
    move; pinned to "always stop at once" it drops for the captain and rises for a pinned
    opponent; an impure or misshapen rule is refused."""
    model = build_model(BidouParams(faces=3, throws=2, max_level=2))
    free = lp.solve_lp(model)
    T, (A, n) = model.throws, model.throw_legal.shape
    stop_now = np.zeros((T - 1, A, n))
    stop_now[:, 0] = 1.0
    captain = lp.solve_lp(model, fixed_throw=stop_now)
    opponent = lp.solve_lp(model, maximizer=OPPONENT, fixed_throw=np.stack([stop_now] * T))
    assert captain.value < free.value - 1e-3 and opponent.value > free.value + 1e-3
    for solution, player in ((captain, CAPTAIN), (opponent, OPPONENT)):
        reached = own_reach(model, solution.strategy, player)[0].sum(axis=-2) > 0
        taken = solution.strategy.throw[player][..., 0, :]
        assert np.all(taken[reached[..., :T - 1, :]] == 1.0)
    with pytest.raises(ValueError, match="pure"):
        lp.solve_lp(model, fixed_throw=np.full((T - 1, A, n), 0.5))
    with pytest.raises(ValueError, match="shape"):
        lp.solve_lp(model, fixed_throw=stop_now[0])
