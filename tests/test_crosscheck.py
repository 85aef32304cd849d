"""The compact model against the faithful OpenSpiel game, solved by OpenSpiel and others.

The compact model forgets discarded dice (docs/model.md). These small variants are solved
both ways: the compact LP value must equal the faithful game's value from OpenSpiel's own
sequence-form LP and from our generic LP on the OpenSpiel tree, and the compact strategy,
played in the faithful game, must have OpenSpiel exploitability ~0.
"""

import numpy as np
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score, sequence_form_lp
from open_spiel.python.algorithms import exploitability as os_exploitability

from games.bidou.params import BidouParams
from solver.checks.openspiel_bridge import (
    from_openspiel_policy,
    load_game,
    tabular_lookup,
    to_openspiel_policy,
)
from solver.checks.openspiel_lp import solve_openspiel_game
from solver.hand.best_response import exploitability, policy_value
from solver.hand.model import build_model
from solver.hand.solve import solve
from solver.hand.strategy import uniform_strategy

VARIANTS = [
    dict(faces=2, throws=1, max_level=1),
    dict(faces=2, throws=2, max_level=2),
    dict(faces=2, throws=2, max_level=1, reroll="keep"),
    dict(faces=2, throws=2, max_level=2, reroll="keep", ranking="french"),
    dict(faces=2, throws=2, max_level=1, ranking="french", aces_beat_bidou=False),
    dict(faces=3, throws=1, max_level=3, ranking="french"),
    dict(faces=4, throws=1, max_level=2),
    dict(faces=4, throws=1, max_level=1, ranking="french"),
]
SMALLEST = VARIANTS[0]
KEEP = dict(faces=2, throws=2, max_level=1, reroll="keep", ranking="french")


def slow_but(cases, quick):
    """The cases, those not in `quick` marked slow (OpenSpiel's walks of the faithful game
    take seconds on them): the quick run keeps one or two of each check."""
    return [case if case in quick else pytest.param(case, marks=pytest.mark.slow)
            for case in cases]


@pytest.mark.parametrize("kwargs", slow_but(VARIANTS, [SMALLEST, VARIANTS[5]]),
                         ids=lambda k: BidouParams(**k).to_game_string())
def test_compact_equals_faithful(kwargs):
    params = BidouParams(**kwargs)
    game = load_game(params)
    compact = solve(params)
    v0, v1, _, _ = sequence_form_lp.solve_zero_sum_game(game)
    assert compact.value == pytest.approx(v0, abs=1e-6)
    assert v0 + v1 == pytest.approx(0, abs=1e-6)
    assert compact.value == pytest.approx(solve_openspiel_game(game).value, abs=1e-9)
    policy = to_openspiel_policy(game, compact.strategy, compact.model)
    assert os_exploitability.exploitability(game, policy) < 1e-6


@pytest.mark.parametrize("kwargs", slow_but([VARIANTS[1], KEEP], [VARIANTS[1]]))
def test_best_response_matches_openspiel_on_a_bad_strategy(kwargs):
    """Our best response and OpenSpiel's agree on a strategy far from equilibrium."""
    params = BidouParams(**kwargs)
    game = load_game(params)
    compact = solve(params)
    strategy = uniform_strategy(compact.model)
    ours = exploitability(compact.model, strategy)
    policy = to_openspiel_policy(game, strategy, compact.model)
    assert ours.nash_conv == pytest.approx(os_exploitability.nash_conv(game, policy), abs=1e-9)
    assert ours.nash_conv > 0.1


@pytest.mark.parametrize("kwargs", slow_but([VARIANTS[1], KEEP], [VARIANTS[1]]))
def test_faithful_policy_scored_through_the_compact_model(kwargs):
    """A random faithful policy (it conditions on discarded dice, which the compact model
    forgets) keeps its value and NashConv when converted to a compact strategy."""
    params = BidouParams(**kwargs)
    game = load_game(params)
    model = build_model(params)
    policy = policy_lib.TabularPolicy(game)
    rng = np.random.default_rng(7)
    weights = rng.exponential(size=policy.action_probability_array.shape)
    weights *= policy.legal_actions_mask
    policy.action_probability_array = weights / weights.sum(axis=1, keepdims=True)
    strategy = from_openspiel_policy(model, tabular_lookup(game, policy))
    theirs = os_exploitability.nash_conv(game, policy)
    assert exploitability(model, strategy).nash_conv == pytest.approx(theirs, abs=1e-9)
    value = expected_game_score.policy_value(game.new_initial_state(), [policy, policy])[0]
    assert policy_value(model, strategy) == pytest.approx(value, abs=1e-12)
    assert theirs > 0.1


@pytest.mark.parametrize("kwargs, exact", [
    (dict(faces=2, throws=1, max_level=1), "-3/40"),
    (dict(faces=2, throws=1, max_level=2, ranking="french"), "-17/256"),
    pytest.param(dict(faces=3, throws=1, max_level=1), "-2/27", marks=pytest.mark.slow),
])
def test_compact_equals_gambit_rational_value(kwargs, exact):
    """pygambit solves the faithful game in exact rationals: the compact LP must match."""
    from fractions import Fraction

    pytest.importorskip("pygambit")
    from solver.checks.gambit_bridge import gambit_value

    params = BidouParams(**kwargs)
    value = gambit_value(load_game(params))
    assert value == Fraction(exact)
    solution = solve(params)
    assert solution.value == pytest.approx(float(value), abs=1e-12)
    assert solution.certificate.exact == value      # proved without pygambit, identical
