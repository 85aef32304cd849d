"""What the refined equilibrium guarantees, and the check of it (solver/hand/refined/sequential.py),
on a variant small enough to enumerate; why the uniform-tremble test asks too much."""

from fractions import Fraction

import numpy as np
import pytest

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.hand.exact.certificate import prove_fractions
from solver.hand.lp.perturbed import solve_perturbed
from solver.hand.refined.check import check, describe, tremble_violations
from solver.hand.refined.complete import complete_sequentially
from solver.hand.refined.sequential import _best_margin, verify

SMALL = BidouParams(faces=3, throws=2, max_level=2)


@pytest.fixture(scope="module")
def small(refined_small):
    assert refined_small[0].params == SMALL          # conftest's shared solve of SMALL
    return refined_small


def test_refined_strategy_passes_at_every_decision(small):
    model, refined, _ = small
    report = verify(model, refined.strategy)
    assert report.passed and report.violations == ()
    assert report.decisions == 270           # every (decision, hand) of both players


def test_check_finds_the_plain_lps_off_path_defects(small):
    model, _, lp = small
    report = verify(model, lp.strategy)
    assert report.sequential == ()            # an equilibrium is right wherever beliefs are
    assert len(report.dominated) == 3
    [belief] = report.belief                  # 2-1-1 folding to a raise only a tremble makes
    assert describe(model, belief).startswith("captain at C1 O2 after 'br' with 2-1-1: fold")
    assert belief.loss == pytest.approx(1.0)  # no belief about his hand makes a fold pay


def test_check_finds_a_throw_no_belief_justifies(small):
    model, refined, _ = small
    strategy = refined.strategy.copy()
    best = int(np.argmax(model.strength))     # 2-1-1: nothing beats it, rethrowing it loses
    strategy.throw[CAPTAIN][0, 0, :, best] = [0.0, 1.0]
    found = [v for v in verify(model, strategy).sequential
             if v.where == ("throw", CAPTAIN, 0, 0) and v.hand == best]
    assert [v.action for v in found] == [1] and found[0].loss > 0.1


def test_uniform_trembles_ask_more_than_perfection(small):
    """The evidence that the uniform-tremble test is too strict: the refined strategy loses
    up to 4 chips against uniform trembles, but against the perturbed optimum's OWN trembles
    (the sequence that defines the limit) it loses under 4 eta at eta = 1e-3 and 1e-4,
    vanishing with eta: each action is a best reply to some sequence of trembles."""
    model, refined, _ = small
    uniform = check(model, refined.strategy).persistent
    assert max(v.loss for v in uniform) > 4.0
    assert not any(v.other_reaches for v in uniform if v.kind == "tremble")
    for eta in (1e-3, 1e-4):
        trembling = solve_perturbed(model, eta).strategy
        losses = []
        for player in (CAPTAIN, OPPONENT):
            mixed = refined.strategy.copy()         # his play refined, the other's trembling
            mixed.throw[1 - player][...] = trembling.throw[1 - player]
            for key in mixed.betting:
                if model.tree(key[:2]).node(key[2]).actor != player:
                    mixed.betting[key] = trembling.betting[key]
            losses += [v.loss for v in tremble_violations(model, mixed, player, 1e-12)]
        assert 0 < max(losses) < 4 * eta


def test_completion_restores_a_best_reply_where_only_the_other_goes(small):
    model, refined, _ = small
    key, hand = (1, 2, "pb"), int(np.argmax(model.strength))
    assert model.tree(key[:2]).node(key[2]).actor == CAPTAIN
    strategy, exact = refined.strategy.copy(), dict(refined.exact)
    assert strategy.betting[(1, 2, "")][0, hand] == 0.0     # he never passes 2-1-1 first
    strategy.betting[key][:, hand] = [1.0, 0.0, 0.0]         # then folds it to a bet
    exact[("bet", key, hand)] = [Fraction(1), Fraction(0), Fraction(0)]
    assert [v.where for v in verify(model, strategy).sequential] == [("bet", key)]
    completed, fractions, changed = complete_sequentially(model, strategy, exact)
    assert changed == 1 and completed.betting[key][0, hand] == 0.0
    assert verify(model, completed).passed
    # a decision its player never reaches pays nothing: the value is proved unchanged
    assert prove_fractions(model, completed, {k: list(v) for k, v in fractions.items()}
                           ).exact == Fraction(-794, 19683)
    assert rules.format_hand(model.hands[hand]) == "2-1-1"


def test_best_margin_is_the_best_belief():
    assert _best_margin(np.array([[-1.0, 2.0]])) == 2.0                 # two actions
    assert _best_margin(np.array([[-1.0, -2.0]])) == -1.0
    # three actions: no single hand justifies it, an even mix of the two does
    assert _best_margin(np.array([[1.0, -1.0], [-1.0, 1.0]])) == pytest.approx(0.0)
    assert _best_margin(np.array([[3.0, -1.0], [-1.0, 1.0]])) == pytest.approx(1 / 3)
    assert _best_margin(np.array([[-1.0, -1.0], [1.0, 1.0]])) == -1.0


def test_completion_gives_a_dominated_ending_action_to_the_better_one(small):
    """Where only the other's trembles lead, play the player does reach: a fold that a call
    beats against every hand is given to the call; no deviation of the other gains (after a
    call he has no choice left), so the proof still proves the value."""
    model, refined, _ = small
    key, hand = (1, 1, "br"), int(np.argmax(model.strength))      # 2-1-1 facing a raise
    strategy, exact = refined.strategy.copy(), dict(refined.exact)
    strategy.betting[key][:, hand] = [0.25, 0.75]                 # fold, call (level 2)
    exact[("bet", key, hand)] = [Fraction(1, 4), Fraction(3, 4)]
    assert [v.action for v in verify(model, strategy).dominated] == [0]
    completed, fractions, changed = complete_sequentially(model, strategy, exact)
    assert changed == 1 and fractions[("bet", key, hand)] == [0, 1]
    assert completed.betting[key][:, hand].tolist() == [0.0, 1.0]
    assert verify(model, completed).passed
    assert prove_fractions(model, completed, {k: list(v) for k, v in fractions.items()}
                           ).exact == Fraction(-794, 19683)
