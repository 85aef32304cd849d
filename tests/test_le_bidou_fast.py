"""Le Bidou's hand by the restricted LP (solver/hand/lp/restricted.py, the double oracle): the
same value as the full LP, exactly, on a restricted tree; and the pieces it rests on.

Each value is proved on the full model: the lifted strategies' exact best responses
(`certify`) and the exact recovery, as for any LP solution. The full LP's exact values are
pinned in tests/test_le_bidou_solve.py (max_stake 3) or computed here (max_stake 4).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from games.bidou.betting import CAPTAIN, OPPONENT
from games.le_bidou.params import LeBidouParams
from solver.hand import best_response
from solver.hand.exact.certificate import certify, decisions
from solver.hand.exact.equilibrium import recover
from solver.hand.lp import sequence_form as lp
from solver.hand.lp.restricted import double_oracle, exact_lift, restrict, solve_restricted
from solver.hand.model import build_model


def model_of(**kwargs):
    return build_model(LeBidouParams(**kwargs).description())


def exact_value(model, strategy) -> Fraction:
    strategy = best_response.complete_unreached(model, strategy)
    proof = certify(model, strategy)
    assert proof.width <= Fraction(1, 10 ** 12)
    recovery = recover(model, strategy)
    assert recovery.reason is None and recovery.certificate is not None
    assert recovery.certificate.exact is not None and proof.contains(recovery.certificate.exact)
    return recovery.certificate.exact


@pytest.mark.parametrize("kwargs, value", [
    (dict(faces=3, throws=2, max_stake=3), Fraction(1401991, 9447840)),
    (dict(faces=3, throws=2, max_stake=3, half_stake="down"), Fraction(-128779, 3280500)),
], ids=str)
def test_max_stake_3_equals_the_full_lps_exact_value(kwargs, value):
    model = model_of(**kwargs)
    found = solve_restricted(model)
    assert found.value == pytest.approx(float(value), abs=1e-12)
    assert exact_value(model, found.strategy) == value


@pytest.fixture(scope="module")
def stakes_4():
    """faces 3, throws 2, max_stake 4: the model, its double oracle and the full LP's
    exact value (each test below reads them; one solve each)."""
    model = model_of(faces=3, throws=2, max_stake=4)
    return model, double_oracle(model), exact_value(model, lp.solve_lp(model).strategy)


def test_max_stake_4_equals_the_full_lp_on_fewer_decisions(stakes_4):
    model, oracle, full = stakes_4
    assert oracle.decisions < oracle.full_decisions == 16      # it did restrict the tree
    assert exact_value(model, oracle.solution.strategy) == full


def test_max_stake_4_with_every_throw_rethrown_equals_the_full_lp():
    model = model_of(faces=4, throws=1, max_stake=4, reroll="all")
    oracle = double_oracle(model)
    assert oracle.decisions < oracle.full_decisions == 16
    assert (exact_value(model, oracle.solution.strategy)
            == exact_value(model, lp.solve_lp(model).strategy))


def test_the_lifted_strategies_are_an_equilibrium_of_the_full_game():
    """Every raise left out is completed so that no hand gains by it: the float best
    responses in the full game gain nothing over the restricted value."""
    model = model_of(faces=3, throws=2, max_stake=5)
    oracle = double_oracle(model)
    e = best_response.exploitability(model, oracle.solution.strategy)
    assert oracle.decisions < oracle.full_decisions == 32
    assert e.nash_conv <= 1e-12
    assert e.value == pytest.approx(oracle.solution.value, abs=1e-12)


def test_restrict_keeps_every_leaf_of_a_kept_decision_and_only_the_kept_raises():
    full = model_of(max_stake=3).trees[CAPTAIN]
    small = restrict(full, ["1", "13", "3"])
    assert [node.history for node in small.nodes] == ["", "1", "13", "3"]
    assert small.root.actions == ("stake 1", "stake 3")
    assert small.node("1").actions == ("withdraw", "call", "raise to 3")
    assert small.node("13").actions == ("withdraw", "call")
    assert len(small.leaves) == 6
    for leaf in small.leaves:               # the same payoffs as the full tree's leaf
        assert small.payoffs[leaf.index] == full.payoffs[full.at(leaf.history).index]
    assert small.node("13").actor == CAPTAIN and small.node("3").actor == OPPONENT
    # a kept decision below a decision left out is not reached, so it is not there
    assert "23" not in {node.history for node in restrict(full, ["1", "23"]).nodes}
    with pytest.raises(ValueError, match="must keep an action"):
        restrict(full, [])                  # the first stake must be proposed


def test_the_lifted_strategy_plays_no_raise_left_out_of_the_restricted_tree(stakes_4):
    model, oracle, _ = stakes_4
    tree = model.trees[CAPTAIN]
    kept = oracle.kept | {""}
    for (tc, to, history), probs in oracle.solution.strategy.betting.items():
        np.testing.assert_allclose(probs.sum(axis=0), 1.0, atol=1e-12)
        if history not in kept:
            continue                        # a completion, or a decision never reached
        for a, edge in enumerate(tree.node(history).edges):
            if edge.node is not None and tree.nodes[edge.node].history not in kept:
                assert not probs[a].any()
    assert {CAPTAIN, OPPONENT} == {tree.node(h).actor for h in kept}


def test_the_exact_value_recovered_on_the_restricted_model_holds_in_the_full_game(stakes_4):
    """exact_lift: the exact equilibrium of the restricted model, lifted with exact
    completions, is an exact equilibrium of the full game (the bounds meet on it), at
    the full LP's exact value; and on a variant with more stakes, at the value both the
    full LP and this route found (235558022504/1575868711275)."""
    model, oracle, full = stakes_4
    lifted = exact_lift(model, oracle)
    assert lifted.reason is None and lifted.certificate is not None
    assert lifted.certificate.exact == full
    assert lifted.exact is not None and len(lifted.exact) == len(
        list(decisions(model, oracle.solution.strategy)))
    model = model_of(faces=3, throws=2, max_stake=5, half_stake="down")
    lifted = exact_lift(model, double_oracle(model))
    assert lifted.certificate is not None
    assert lifted.certificate.exact == Fraction(235558022504, 1575868711275)


def test_exact_lift_says_why_when_the_proofs_denominator_is_too_large(stakes_4, monkeypatch):
    """The default hand's exact equilibrium passes the certificate's 4096-bit common
    denominator (docs/le-bidou.md): exact_lift then proves nothing and says why, instead of
    raising."""
    model, oracle, _ = stakes_4
    monkeypatch.setattr("solver.hand.exact.certificate.MAX_COMMON_DENOMINATOR_BITS", 8)
    lifted = exact_lift(model, oracle)
    assert lifted.certificate is None and lifted.exact is None
    assert lifted.reason is not None and "common denominator past 8 bits" in lifted.reason


def test_solve_takes_the_restricted_lp_only_above_one_lps_reach():
    from solver.hand.lp.restricted import ONE_LP_ROWS, betting_rows, too_large_for_one_lp

    assert betting_rows(build_model(LeBidouParams(max_stake=5))) == ONE_LP_ROWS == 16128
    assert not too_large_for_one_lp(build_model(LeBidouParams(max_stake=5)))
    assert too_large_for_one_lp(build_model(LeBidouParams(max_stake=6)))
    assert betting_rows(build_model(LeBidouParams())) == 258048
