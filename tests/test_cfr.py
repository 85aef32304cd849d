"""Tests of the vectorized CFR family (solver/hand/cfr/iterations.py) against the LP, the best
response and OpenSpiel's own CFR+ on the faithful game."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from games.bidou.params import BidouParams
from solver.hand import best_response
from solver.hand.cfr import iterations as cfr
from solver.hand.cfr import layout as cfr_layout
from solver.hand.lp.sequence_form import solve_lp
from solver.hand.model import build_model
from solver.hand.strategy import check_strategy

DEFAULT_VALUE = -0.036895667099526       # the LP's value of the default game

SMALL = {
    "f3t2m2": BidouParams(faces=3, throws=2, max_level=2),
    "f3t2m2-keep": BidouParams(faces=3, throws=2, max_level=2, reroll="keep"),
    "f2t2-french": BidouParams(faces=2, throws=2, ranking="french"),
    "f2t2m1": BidouParams(faces=2, throws=2, max_level=1),
}
# Vanilla CFR converges like 1/sqrt(T): a looser target keeps the test quick.
TARGETS = {"cfr": 1e-3, "cfr+": 1e-4, "dcfr": 1e-4, "pcfr+": 1e-4}


@pytest.fixture(scope="module")
def small_models():
    return {name: build_model(params) for name, params in SMALL.items()}


@pytest.fixture(scope="module")
def small_values(small_models):
    return {name: solve_lp(model).value for name, model in small_models.items()}


@pytest.mark.parametrize("engine", cfr.ENGINES)
@pytest.mark.parametrize("method", cfr.METHODS)
@pytest.mark.parametrize("variant", list(SMALL))
def test_converges_to_lp_value(method, variant, engine, small_models, small_values):
    model = small_models[variant]
    target = TARGETS[method]
    solution = cfr.solve_cfr(model, method, iterations=20_000, target_exploitability=target,
                             engine=engine)
    assert ("C kernel" if engine == "compiled" else "numpy engine") in solution.message
    e = solution.exploitability
    assert solution.converged and solution.status == "converged"
    assert e.exploitability <= target
    assert abs(solution.value - small_values[variant]) <= 2 * e.exploitability + 1e-9
    assert solution.value == e.value
    check_strategy(model, solution.strategy)


@pytest.mark.parametrize("method, target", [("cfr+", 1e-6), ("pcfr+", 1e-6), ("dcfr", 1e-6),
                                            ("cfr", 1e-3)])
@pytest.mark.slow
def test_default_game_converges(method, target):
    # about 1 s each on the C kernel (dcfr 2.6 s); vanilla CFR needs ~1/eps^2 iterations
    model = build_model(BidouParams())
    solution = cfr.solve_cfr(model, method, target_exploitability=target)
    assert solution.converged
    assert solution.exploitability.exploitability <= target
    assert abs(solution.value - DEFAULT_VALUE) <= 2 * target + 1e-9
    # the reported exploitability is best_response's, on the strategy returned
    again = best_response.exploitability(model, solution.strategy)
    assert again.exploitability == pytest.approx(solution.exploitability.exploitability,
                                                 abs=1e-12)
    assert "changed" not in solution.message


def test_iterations_respected(small_models):
    model = small_models["f3t2m2"]
    for method in cfr.METHODS:
        solution = cfr.solve_cfr(model, method, iterations=37)
        assert solution.iterations == 37
        assert solution.status == "iteration limit" and not solution.converged
        assert solution.history[-1][0] == 37
        assert [h[0] for h in solution.history] == [10, 20, 37]


def test_check_every_and_progress(small_models):
    seen = []
    solution = cfr.solve_cfr(small_models["f2t2m1"], "cfr+", iterations=30, check_every=10,
                             progress=lambda *args: seen.append(args))
    assert [h[0] for h in solution.history] == [10, 20, 30]
    assert seen == [(f"cfr+: exploitability {e:.3g}", it, 30) for it, _, e in solution.history]
    seconds = [h[1] for h in solution.history]
    assert seconds == sorted(seconds) and seconds[-1] <= solution.seconds


def test_target_respected(small_models):
    model = small_models["f3t2m2-keep"]
    for target in (1e-2, 1e-3):
        solution = cfr.solve_cfr(model, "cfr+", target_exploitability=target)
        assert solution.converged
        assert solution.history[-1][0] == solution.iterations
        assert solution.history[-1][2] <= target
        assert solution.exploitability.exploitability <= target
        # it stopped soon after the first time the exploitability reached the target
        assert solution.iterations <= 1.05 * first_iteration_below(model, target) + 5


def first_iteration_below(model, target):
    engine = cfr.CFRSolver(model, cfr.RULES["cfr+"], engine="compiled")   # as solve_cfr
    while True:
        engine.iterate()
        if engine.average_exploitability() <= target:
            return engine.t


def test_history_decreases(small_models):
    solution = cfr.solve_cfr(small_models["f3t2m2"], "cfr+", iterations=640)
    iterations = [h[0] for h in solution.history]
    values = [h[2] for h in solution.history]
    assert iterations == [10, 20, 40, 80, 160, 320, 640]
    assert values[-1] < values[0] / 20
    for before, after in itertools.pairwise(values):
        assert after <= 1.5 * before


def test_strategy_probabilities_sum_to_one(small_models):
    for model in small_models.values():
        for method in cfr.METHODS:
            strategy = cfr.solve_cfr(model, method, iterations=25).strategy
            check_strategy(model, strategy, tol=1e-12)
            for array in strategy.throw:
                assert np.allclose(array.sum(axis=-2), 1.0, atol=1e-12)
            for array in strategy.betting.values():
                assert np.allclose(array.sum(axis=0), 1.0, atol=1e-12)


def test_invalid_arguments(small_models):
    model = small_models["f2t2m1"]
    with pytest.raises(ValueError, match="method"):
        cfr.solve_cfr(model, "cfr++", iterations=5)
    with pytest.raises(ValueError):
        cfr.solve_cfr(model, "cfr+", iterations=0)
    with pytest.raises(ValueError):
        cfr.solve_cfr(model, "cfr+", target_exploitability=-1.0)
    with pytest.raises(ValueError):
        cfr.solve_cfr(model, "cfr+", iterations=5, averaging="cubic")
    with pytest.raises(ValueError):
        cfr.solve_cfr(model, "cfr+", iterations=5, check_every=0)


def test_solve_entry_point():
    from solver.hand.solve import solve

    solution = solve(BidouParams(faces=2, throws=2, max_level=1), method="pcfr+",
                     target_exploitability=1e-4)
    assert solution.method == "pcfr+" and solution.converged
    assert solution.summary()["exploitability"] <= 1e-4


@pytest.mark.parametrize("params", [BidouParams(), BidouParams(faces=4, ranking="french"),
                                    BidouParams(faces=3, throws=2, reroll="keep"),
                                    BidouParams(faces=3, throws=1, max_level=2)])
def test_vectorized_best_response_matches_best_response(params):
    """The stopping trigger equals solver.hand.best_response's exploitability to rounding."""
    model = build_model(params)
    for method in cfr.METHODS:
        engine = cfr.CFRSolver(model, cfr.RULES[method])
        for _ in range(23):
            engine.iterate()
        exact = best_response.exploitability(model, engine.average_strategy())
        assert engine.average_exploitability() == pytest.approx(exact.exploitability,
                                                                abs=1e-13)


@pytest.mark.parametrize("params", [BidouParams(), BidouParams(ranking="french"),
                                    BidouParams(faces=3, ranking="french",
                                                aces_beat_bidou=False)])
def test_showdowns_from_ranking(params):
    """The cumulative-sum and dense showdown values agree (the model checks at build time
    that the ranking's order and exceptions give the rules' compare)."""
    model = build_model(params)
    dense = cfr.CFRSolver(model, cfr.RULES["cfr+"], showdown="dense")
    cumsum = cfr.CFRSolver(model, cfr.RULES["cfr+"], showdown="cumsum")
    rng = np.random.default_rng(0)
    reach = rng.random(dense.players[0].leaf_reach.shape)
    for role in (0, 1):
        a, b = np.zeros_like(dense._values), np.zeros_like(cumsum._values)
        dense._leaf_values(role, reach, a)
        cumsum._leaf_values(role, reach, b)
        assert np.allclose(a, b, rtol=0, atol=1e-12)


@pytest.mark.slow
def test_same_iterates_as_openspiel_cfr_plus():
    """On the faithful game, OpenSpiel's CFR+ (perfect recall, full dice histories) gives
    exactly the exploitabilities of our CFR+ on merged (throw, hand) states."""
    pyspiel = pytest.importorskip("pyspiel")
    import games.bidou.game  # noqa: F401  (registers python_bidou)

    params = BidouParams(faces=2, throws=2, max_level=1)
    game = pyspiel.load_game(params.to_game_string())
    theirs = pyspiel.CFRPlusSolver(game)
    ours = cfr.CFRSolver(build_model(params), cfr.RULES["cfr+"], average_played=True)
    for _ in range(3):
        theirs.evaluate_and_update_policy()
        ours.iterate()
        assert ours.average_exploitability() == pytest.approx(
            pyspiel.exploitability(game, theirs.average_policy()), abs=1e-12)


def test_complete_unreached_keeps_exploitability(small_models):
    model = small_models["f2t2-french"]
    engine = cfr.CFRSolver(model, cfr.RULES["cfr+"])
    for _ in range(50):
        engine.iterate()
    raw = engine.average_strategy()
    completed = best_response.complete_unreached(model, raw)
    assert best_response.exploitability(model, completed).exploitability == pytest.approx(
        best_response.exploitability(model, raw).exploitability, abs=1e-12)


def round_like_model(params: BidouParams):
    """Per-leaf payoffs (not proportional across leaves, ties not zero) on supply-limited
    trees, as the round solver passes them."""
    from fractions import Fraction

    from games.bidou.betting import CAPTAIN, OPPONENT, Supply, build_tree

    def payoff(leaf):
        base = Fraction(leaf.index + 3, 7) * (1 if leaf.pot.total % 2 else -1)
        if leaf.kind == "showdown":
            return (base + 2, Fraction(leaf.index, 10), base - Fraction(5, 2))
        return (base, base, base)

    supply = Supply(centre=2, piles=(3, 1))
    trees = {first: build_tree(first, params.max_level, supply, payoff)
             for first in (CAPTAIN, OPPONENT)}
    return build_model(params, trees)


def test_general_payoffs_and_supply_limits():
    """Per-leaf payoffs and supply-limited trees: both showdown forms agree, the vectorized
    best response is exact, and CFR still meets the LP."""
    params = BidouParams(faces=3, throws=2, max_level=3, ranking="french")
    model = round_like_model(params)
    dense = cfr.CFRSolver(model, cfr.RULES["cfr+"], showdown="dense")
    cumsum = cfr.CFRSolver(model, cfr.RULES["cfr+"], showdown="cumsum")
    groups = dense.lay.dense_groups[0]
    assert len(groups) > 1 and all(scale is None for *_, scale in groups)  # not proportional
    assert groups[-1][1] == dense.lay.n_showdown
    reach = np.random.default_rng(1).random(dense.players[0].leaf_reach.shape)
    for role in (0, 1):
        a, b = np.zeros_like(dense._values), np.zeros_like(cumsum._values)
        dense._leaf_values(role, reach, a)
        cumsum._leaf_values(role, reach, b)
        assert np.allclose(a, b, rtol=0, atol=1e-12)
    for _ in range(17):
        dense.iterate()
    exact = best_response.exploitability(model, dense.average_strategy()).exploitability
    assert dense.average_exploitability() == pytest.approx(exact, abs=1e-13)
    solution = cfr.solve_cfr(model, "cfr+", target_exploitability=1e-4)
    assert solution.converged
    assert abs(solution.value - solve_lp(model).value) <= 2 * 1e-4 + 1e-9


def test_trigger_interval():
    """Vectorized checks every 1% of the run (at least 5 iterations), and further apart only
    while the exploitability is more than TRIGGER_FAR times the target."""
    assert cfr._trigger_interval(0) == 5
    assert cfr._trigger_interval(1000) == 10
    assert cfr._trigger_interval(1000, 1e-7, 1e-6) == 10
    assert cfr._trigger_interval(1000, cfr.TRIGGER_FAR * 1e-6, 1e-6) == 10
    far = 2.0 ** cfr.TRIGGER_RATE * 1e-6     # at the assumed fastest rate, t must double
    assert cfr._trigger_interval(1000, far, 1e-6) == pytest.approx(1000, abs=1)


def test_normalized_falls_back_to_uniform():
    weights = np.array([[0.0, 1.0, 0.0], [0.0, 3.0, 0.0]])
    uniform = np.full_like(weights, 0.5)
    out = cfr_layout.normalized(weights, uniform, axis=0)
    assert np.array_equal(out, [[0.5, 0.25, 0.5], [0.5, 0.75, 0.5]])
    assert cfr_layout.normalized(np.zeros((2, 0)), np.zeros((2, 0)), axis=0).shape == (2, 0)
