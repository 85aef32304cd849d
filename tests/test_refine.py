"""The refined equilibrium (solver/hand/refined) and its independent check, on small variants."""

from fractions import Fraction

import numpy as np
import pytest

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.hand.exact.certificate import certify
from solver.hand.lp.perturbed import FAST, LINPROG, SEQUENCE, sequence_bounds, solve_perturbed
from solver.hand.lp.sequence_form import SequenceFormLP
from solver.hand.model import build_model
from solver.hand.refined.check import (
    Violation,
    check,
    describe,
    dominated_actions,
    tremble_violations,
)
from solver.hand.refined.quasi_perfect import _support, limit, refined_equilibrium

SMALL = BidouParams(faces=3, throws=2, max_level=2)
KUHN_LIKE = BidouParams(faces=2, throws=1, max_level=1)      # 4 hands, one bet, no throws


@pytest.fixture(scope="module")
def small(refined_small):
    assert refined_small[0].params == SMALL          # conftest's shared solve of SMALL
    return refined_small


def test_refined_value_is_the_lp_value_exactly(small):
    model, refined, lp = small
    assert refined.certificate.exact == Fraction(-794, 19683)
    assert lp.certificate.lower <= refined.certificate.exact <= lp.certificate.upper
    # the certificate on the refined floats alone (as for any strategy) brackets it tightly
    floats = certify(model, refined.strategy)
    assert floats.contains(refined.certificate.exact) and floats.width < Fraction(1, 10**15)


def test_kuhn_like_refined_value_and_check():
    model = build_model(KUHN_LIKE)
    refined = refined_equilibrium(model)
    assert refined.certificate.exact == Fraction(-3, 40)
    report = check(model, refined.strategy)
    assert report.passed and report.persistent == ()


def test_miltersen_sorensen_perturbation_gives_the_same_exact_value():
    model = build_model(SMALL)
    refined = refined_equilibrium(model, etas=(1e-3,), kind=SEQUENCE)
    assert refined.certificate.exact == Fraction(-794, 19683)
    assert refined.perturbed.kind == SEQUENCE
    assert check(model, refined.strategy).dominated == ()


def test_sequence_bounds_are_a_consistent_flow():
    """Miltersen and Sørensen's bounds: each decision's bounds leave room in its parent."""
    model = build_model(SMALL)
    lp = SequenceFormLP(model, CAPTAIN)
    eps = 1e-2
    bound = sequence_bounds(model, lp.primal, CAPTAIN, eps)
    stop = lp.primal.throw[0, 0, 0]                    # stopping at the first throw
    assert np.allclose(bound[stop], eps * model.prior / 2)
    root = lp.primal.betting[(1, 1, "")]               # the captain's first bet after it
    assert np.allclose(bound[root], eps ** 2 * model.prior / 4)
    assert np.all(bound[root].sum(axis=0) < bound[stop])


def test_refined_plays_no_weakly_dominated_action_where_the_lp_does(small):
    model, refined, lp = small
    assert check(model, refined.strategy).dominated == ()
    found = check(model, lp.strategy).dominated
    assert len(found) == 3
    assert all(v.kind == "dominated" and v.loss > 0 for v in found)


def test_check_finds_a_deliberately_dominated_fold(small):
    model, refined, _ = small
    strategy = refined.strategy.copy()
    best = int(np.argmax(model.strength))            # nothing beats it
    key = (1, 1, "br")                               # the captain facing a raise
    assert model.tree(key[:2]).node(key[2]).actor == CAPTAIN
    strategy.betting[key][:, best] = [1.0, 0.0]      # fold, call
    found = [v for v in dominated_actions(model, strategy, CAPTAIN)
             if v.where == ("bet", key) and v.hand == best]
    assert [(v.action, v.better) for v in found] == [(0, 1)]
    assert rules.format_hand(model.hands[best]) == "2-1-1"
    trembling = [v for v in check(model, strategy, trembles=(1e-6,)).by_tremble[1e-6]
                 if v.where == ("bet", key) and v.hand == best]
    assert trembling and trembling[0].loss > 1.0
    assert describe(model, found[0]) == ("captain at C1 O1 after 'br' with 2-1-1: fold (p=1) "
                                         "loses up to 5 to call (weakly dominated)")
    assert not trembling[0].other_reaches          # the opponent's raise is only a tremble


def test_an_equilibrium_errs_only_where_the_other_never_goes(small):
    """Against the other's own play, an equilibrium's actions are best replies wherever he
    goes; what the check finds in either strategy lies where only his trembles lead."""
    model, refined, lp = small
    for strategy in (refined.strategy, lp.strategy):
        report = check(model, strategy)
        assert report.persistent
        assert not any(v.other_reaches for v in report.persistent if v.kind == "tremble")


def test_perturbed_lp_trembles_every_action():
    model = build_model(SMALL)
    eta = 1e-3
    perturbed = solve_perturbed(model, eta)
    for probs in perturbed.strategy.betting.values():
        assert probs.min() >= eta - 1e-9
    legal = model.throw_legal
    for throw in perturbed.strategy.throw:
        assert np.where(legal, throw, 1.0).min() >= eta - 1e-9
    # a perturbed game is worth a little less or more than the game, never far off
    assert abs(perturbed.value - (-794 / 19683)) < 1e-2


def test_support_drops_vanishing_choices():
    chosen = np.array([[1e-4, 0.3, 0.0], [0.9999, 0.3, 0.0], [0.0, 0.4, 0.0]])
    legal = np.array([[True] * 3, [True] * 3, [True, True, False]])
    out = _support(chosen, legal, 1e-3)
    assert out[:, 0].tolist() == [0.0, 1.0, 0.0]
    assert out[:, 1].tolist() == [0.3, 0.3, 0.4]
    assert out[:, 2].tolist() == [1.0, 0.0, 0.0]        # nothing chosen: the first legal


def test_perturbed_optimum_passes_the_check_at_its_own_tremble():
    """The check and the perturbed LP share no code: the LP's optimum at eta, its trembles
    removed, must be a best response everywhere to the other trembling by the same eta."""
    model = build_model(SMALL)
    eta = 1e-3
    perturbed = solve_perturbed(model, eta)
    chosen = perturbed.chosen
    for player in (CAPTAIN, OPPONENT):
        assert tremble_violations(model, chosen, player, eta) == []
    # and the limit itself, checked with the same eta, is not (its beliefs after a
    # tremble differ: see docs/refined.md)
    float_limit = limit(model, perturbed.chosen, 10 * eta)
    assert len(tremble_violations(model, float_limit, CAPTAIN, eta)) > 0


def test_the_fast_lp_is_the_same_optimum_of_the_same_lp():
    """FAST (highspy unscaled, Dantzig pricing) solves the LP that LINPROG solves: the same
    value to the tolerance, every action still trembling."""
    model = build_model(SMALL)
    scipy_lp = solve_perturbed(model, 1e-3, lp_solver=LINPROG)
    fast = solve_perturbed(model, 1e-3, lp_solver=FAST)
    assert (scipy_lp.lp, fast.lp) == (LINPROG, FAST)
    assert fast.value == pytest.approx(scipy_lp.value, abs=1e-9)
    assert all((probs >= 1e-3 - 1e-9).all() for probs in fast.strategy.betting.values())
    with pytest.raises(ValueError, match="an LP solver"):
        solve_perturbed(model, 1e-3, lp_solver="glop")


def test_fast_first_takes_the_fast_lps_limit_only_if_it_passes_the_check(monkeypatch):
    from solver.hand.refined import quasi_perfect
    from solver.hand.refined.sequential import SequentialReport, verify

    model = build_model(SMALL)
    checked = []

    def recorded(model, strategy):
        checked.append(strategy)
        return verify(model, strategy)

    monkeypatch.setattr(quasi_perfect, "verify", recorded)
    fast = refined_equilibrium(model, fast_first=True)
    assert fast.perturbed.lp == FAST and len(checked) == 1
    assert fast.certificate.exact == Fraction(-794, 19683)
    assert verify(model, fast.strategy).passed
    # a limit the check refuses is not taken: the LINPROG attempts follow, as without it
    violation = Violation(
        kind="belief", player=CAPTAIN, where=("bet", (1, 1, "b")), hand=0, action=0,
        probability=1.0, loss=1.0, tremble=0.0)
    monkeypatch.setattr(quasi_perfect, "verify", lambda model, strategy: SequentialReport(
        (), (violation,), (), 1))
    fallback = refined_equilibrium(model, fast_first=True)
    assert fallback.perturbed.lp == LINPROG
    assert fallback.certificate.exact == Fraction(-794, 19683)
    # without fast_first no check runs and the fast LP is not used (the round's stages)
    checked.clear()
    monkeypatch.setattr(quasi_perfect, "verify", recorded)
    assert refined_equilibrium(model).perturbed.lp == LINPROG and checked == []
