"""The game with the betting removed (both go to a level-1 showdown): our maximin LP over
occupation measures against the normal form's LP over every pure throwing strategy."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import linprog

from games.bidou.params import BidouParams
from games.bidou.rules import STOP
from solver.analysis.no_betting import exact_guarantee, solve_throw_game, stop_rule
from solver.hand.model import build_model


def pure_strategies(model):
    """Every pure throwing strategy as (T-1, A, n) arrays."""
    T, A, n = model.throws, len(model.throw_actions), model.num_hands
    choices = [[a for a in range(A) if model.throw_legal[a, h]] for h in range(n)]
    per_throw = list(itertools.product(*choices))
    for picks in itertools.product(per_throw, repeat=T - 1):
        s = np.zeros((T - 1, A, n))
        for t, pick in enumerate(picks):
            s[t, list(pick), range(n)] = 1
        yield s


def ends(model, s):
    """P(end at throw t, hand h) of a pure strategy by walking every path."""
    T, n = model.throws, model.num_hands
    out = np.zeros((T, n))

    def go(t, h, p):
        a = int(np.argmax(s[t, :, h])) if t < T - 1 else 0
        if t == T - 1 or model.throw_actions[a] == STOP:
            out[t, h] += p
            return
        for h2, q in model.exact_transition(model.throw_actions[a], h).items():
            go(t + 1, h2, p * float(q))

    for h in range(n):
        go(0, h, model.prior[h])
    return out


def normal_form_value(model):
    C = 2 * model.compare
    pures = list(pure_strategies(model))
    E = np.array([ends(model, s) for s in pures])            # (k, T, n)
    T, k = model.throws, len(pures)
    # max sum_tc v_tc  s.t.  v_tc <= sum_i x_i E_i[tc] C E_j[opp]  for each opponent pure j
    rows, b = [], []
    for tc in range(T):
        for j in range(k):
            opp = E[j].sum(axis=0)                            # opponent's final hand dist
            payoff = E[:, tc, :] @ C @ opp                     # (k,)
            row = np.zeros(k + T)
            row[:k] = -payoff
            row[k + tc] = 1
            rows.append(row), b.append(0.0)
    cost = np.zeros(k + T)
    cost[k:] = -1
    result = linprog(cost, A_ub=np.array(rows), b_ub=b,
                     A_eq=np.hstack([np.ones((1, k)), np.zeros((1, T))]), b_eq=[1],
                     bounds=[(0, None)] * k + [(None, None)] * T, method="highs")
    assert result.status == 0
    return -result.fun


@pytest.mark.parametrize("params", [
    BidouParams(faces=2, throws=2), BidouParams(faces=2, throws=3),
    BidouParams(faces=2, throws=2, reroll="keep"),
    BidouParams(faces=2, throws=2, ranking="french", aces_beat_bidou=True),
])
def test_lp_equals_the_normal_form(params):
    model = build_model(params)
    game = solve_throw_game(model)
    assert game.value == pytest.approx(normal_form_value(model), abs=1e-10)
    assert game.certificate.lower <= Fraction(game.value) + Fraction(1, 10 ** 12)
    assert game.certificate.width < Fraction(1, 10 ** 12)


def test_known_values():
    # one throw: both hands are independent draws and compare is antisymmetric: value 0
    assert solve_throw_game(build_model(BidouParams(faces=3, throws=1))).certificate.exact == 0
    # f2 t2: proved exactly, and the normal form agrees
    game = solve_throw_game(build_model(BidouParams(faces=2, throws=2)))
    assert game.certificate.exact == Fraction(-5, 256)


def test_a_fixed_stopping_rule_is_measured_exactly():
    """f2 t2: a captain who never rethrows ends with the prior; the opponent then rethrows
    exactly the hands whose stop value is below a fresh throw's: an exact number."""
    model = build_model(BidouParams(faces=2, throws=2))
    never = stop_rule(model, np.ones(model.num_hands, dtype=bool))
    value = exact_guarantee(model, never, player=0)
    C = 2 * model.compare
    prior = np.array([float(p) for p in model.prior_exact])
    stop = prior @ C                                            # by opponent hand
    fresh = float(prior @ stop)
    expected = sum(p * min(s, fresh) for p, s in zip(prior, stop))
    assert float(value) == pytest.approx(expected, abs=1e-15)
    assert value <= solve_throw_game(model).certificate.upper
