"""Round parameters and the open throw (games/bidou/round_params.py, solver/round/open_throw.py).

The open throw is checked against brute force: every pure policy of each player's turn is
enumerated and its final-hand distribution computed by forward simulation, independently of
the backward induction under test.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from games.bidou import rules
from games.bidou.params import BidouParams, ParameterError
from games.bidou.round_params import RoundParams
from games.bidou.rules import STOP
from solver.round.open_throw import open_throw_step, solve_open_throw

# --- round parameters -------------------------------------------------------------------------


def test_round_params_defaults_and_round_trip():
    params = RoundParams()
    assert params.chips == 9 and params.hand == BidouParams()
    assert params.open_throw_pile == 8
    assert params.to_dict() == {"chips": 9, **BidouParams().to_dict()}
    assert RoundParams.from_mapping(params.to_dict()) == params
    small = RoundParams.from_mapping({"chips": "4", "faces": "2", "reroll": "keep"})
    assert small == RoundParams(4, BidouParams(faces=2, reroll="keep"))
    assert small.describe() == "4 chips, " + BidouParams(faces=2, reroll="keep").describe()
    assert RoundParams.from_mapping({}) == RoundParams()


@pytest.mark.parametrize("values, name", [
    ({"chips": 2}, "chips"),
    ({"chips": 13}, "chips"),
    ({"chips": "many"}, "chips"),
    ({"chips": True}, "chips"),
    ({"faces": 7}, "faces"),
    ({"reroll": "some"}, "reroll"),
    ({"coins": 3}, "coins"),
])
def test_round_params_errors_name_the_parameter(values, name):
    with pytest.raises(ParameterError, match=name):
        RoundParams.from_mapping(values)


def test_round_params_hand_must_be_bidou_params():
    with pytest.raises(ParameterError, match="hand"):
        RoundParams(9, {"faces": 2})  # type: ignore[arg-type]


# --- brute force ------------------------------------------------------------------------------


def _turn_policies(params: BidouParams):
    """Every pure policy of one throwing turn, as its exact final-hand distribution."""
    faces, throws = params.faces, params.throws
    hands = rules.all_hands(faces)
    points = [(j, h) for j in range(1, throws) for h in hands]
    choices = []
    for _, h in points:
        again = rules.keep_options(h) if params.reroll == "keep" else ((),)
        choices.append((STOP,) + tuple(again))
    result = []
    for combo in itertools.product(*choices):
        policy = dict(zip(points, combo))
        final: dict = {}
        frontier = {h: p for h, p in rules.throw_distribution((), faces).items()}
        for j in range(1, throws + 1):
            nxt: dict = {}
            for h, p in frontier.items():
                action = policy.get((j, h), STOP)
                if action == STOP:
                    final[h] = final.get(h, 0) + p
                else:
                    for g, q in rules.throw_distribution(action, faces).items():
                        nxt[g] = nxt.get(g, 0) + p * q
            frontier = nxt
        assert not frontier and sum(final.values()) == 1
        result.append(final)
    return result


def _outcome(params, l_hand, h_hand):
    return rules.compare(l_hand, h_hand, params.ranking, params.aces_beat_bidou)


def _brute_step(params, c, x):
    """F(x) by enumeration: L's best pure policy against H's best pure reply to each hand."""
    policies = _turn_policies(params)
    score = {1: Fraction(1), -1: c, 0: x}
    hands = rules.all_hands(params.faces)
    reply = {h: min(sum(p * score[_outcome(params, h, g)] for g, p in pol.items())
                    for pol in policies) for h in hands}
    return max(sum(p * reply[h] for h, p in pol.items()) for pol in policies)


def _brute_ratio(params, c):
    """The open throw's value as max over L's stationary pure policies of min over H's joint
    stationary pure policies (one per L hand) of (P(L wins) + c P(H wins)) / (1 - P(tie)):
    no fixed point involved. Floats, numpy over H's joint policies."""
    policies = _turn_policies(params)
    hands = rules.all_hands(params.faces)
    per_hand = {}
    for h in hands:
        rows = []
        for pol in policies:
            pw = sum(float(p) for g, p in pol.items() if _outcome(params, h, g) > 0)
            pl = sum(float(p) for g, p in pol.items() if _outcome(params, h, g) < 0)
            pt = sum(float(p) for g, p in pol.items() if _outcome(params, h, g) == 0)
            rows.append((pw + float(c) * pl, pt))
        per_hand[h] = np.array(rows)
    best = -1.0
    for pol in policies:
        num = np.zeros(1)
        tie = np.zeros(1)
        for h in hands:
            weight = float(pol.get(h, 0))
            num = (num[:, None] + weight * per_hand[h][None, :, 0]).ravel()
            tie = (tie[:, None] + weight * per_hand[h][None, :, 1]).ravel()
        best = max(best, float(np.min(num / (1 - tie))))
    return best


# --- open throw -------------------------------------------------------------------------------


def test_one_throw_has_no_decisions_and_a_closed_form():
    # 2 faces: 2-2-2 1/8, 2-2-1 3/8, 2-1-1 3/8, 1-1-1 1/8; every pair of distinct hands is
    # won by one side, so by symmetry P(L beats H) = P(H beats L) = (1 - P(tie)) / 2.
    params = BidouParams(faces=2, throws=1)
    p_tie = Fraction(1 + 9 + 9 + 1, 64)
    for c in (Fraction(0), Fraction(1, 3), Fraction(1)):
        result = solve_open_throw(params, c)
        assert result.p_tie == p_tie
        assert result.p_l_wins == result.p_h_wins == Fraction(1, 2)
        assert result.value == (1 + c) / 2
        assert result.l_policy == {} and result.h_policy == {}
    # One attempt with a replay worth x: (1 - p_tie)/2 * (1 + c) + p_tie * x.
    step = open_throw_step(params, Fraction(1, 5), Fraction(1, 7))
    assert step.value == (1 - p_tie) / 2 * Fraction(6, 5) + p_tie * Fraction(1, 7)


def test_one_throw_six_faces_closed_form():
    params = BidouParams(throws=1)
    dist = rules.hand_distribution(6)
    p_tie = sum(p * p for p in dist.values())
    p_win = sum(p * q for a, p in dist.items() for b, q in dist.items()
                if rules.compare(a, b) > 0)
    c = Fraction(2, 5)
    result = solve_open_throw(params, c)
    assert result.p_tie == p_tie
    assert result.value == (p_win + c * p_win) / (1 - p_tie)


@pytest.mark.parametrize("params", [
    BidouParams(faces=2, throws=2),
    BidouParams(faces=2, throws=2, reroll="keep"),
    BidouParams(faces=2, throws=3),
    BidouParams(faces=2, throws=3, ranking="french", aces_beat_bidou=False),
    BidouParams(faces=2, throws=2, reroll="keep", ranking="french"),
])
def test_step_matches_brute_force_and_value_is_its_fixed_point(params):
    c = Fraction(2, 7)
    result = solve_open_throw(params, c)
    assert _brute_step(params, c, result.value) == result.value
    for x in (Fraction(0), Fraction(1, 3), Fraction(1)):
        assert open_throw_step(params, c, x).value == _brute_step(params, c, x)
    assert result.p_l_wins + result.p_h_wins == 1
    assert 0 < result.p_tie < 1


@pytest.mark.parametrize("c", [Fraction(0), Fraction(3, 10), Fraction(1)])
def test_value_matches_brute_force_over_stationary_policies(c):
    params = BidouParams(faces=2, throws=2)
    result = solve_open_throw(params, c)
    assert _brute_ratio(params, c) == pytest.approx(float(result.value), abs=1e-12)


def test_policies_reproduce_the_value():
    """Playing the returned policies forward (not backward) gives the value exactly."""
    params = BidouParams(faces=3, throws=2, reroll="keep")
    c = Fraction(1, 4)
    result = solve_open_throw(params, c)
    hands = rules.all_hands(3)

    def final(policy):
        out: dict = {}
        for h, p in rules.throw_distribution((), 3).items():
            action = policy(h)
            if action == STOP:
                out[h] = out.get(h, 0) + p
            else:
                for g, q in rules.throw_distribution(action, 3).items():
                    out[g] = out.get(g, 0) + p * q
        return out

    pw = pl = pt = Fraction(0)
    for h, p in final(lambda g: result.l_policy[(1, g)]).items():
        for g, q in final(lambda g, h=h: result.h_policy[(h, 1, g)]).items():
            sign = rules.compare(h, g)
            pw += p * q * (sign > 0)
            pl += p * q * (sign < 0)
            pt += p * q * (sign == 0)
    assert pt == result.p_tie
    assert (pw + c * pl) / (1 - pt) == result.value
    assert pw / (1 - pt) == result.p_l_wins
    assert len(result.l_policy) == len(hands)
    assert len(result.h_policy) == len(hands) ** 2


def test_value_monotone_in_continuation_with_slope_at_most_one():
    params = BidouParams(faces=3, throws=3, reroll="keep")
    cs = [Fraction(k, 8) for k in range(9)]
    values = [solve_open_throw(params, c).value for c in cs]
    assert values[-1] == 1            # c = 1: L wins the round whatever happens
    for (c0, v0), (c1, v1) in itertools.pairwise(zip(cs, values)):
        assert v0 <= v1 and v1 - v0 <= c1 - c0
    assert values[0] > 0


def test_default_rules_values():
    """Exact values for the game's rules, recorded (and cross-checked by F(v) == v)."""
    for params, expected in [
        (BidouParams(), Fraction(27142493571, 60319104232)),
        (BidouParams(reroll="keep"), Fraction(1557675932532, 3596914261831)),
    ]:
        result = solve_open_throw(params, Fraction(0))
        assert result.value == expected
        assert open_throw_step(params, Fraction(0), expected).value == expected
        # An L who may always stop at once faces an H who may throw three times: L is
        # behind even though he picks his moment first.
        assert result.value < Fraction(1, 2)
        assert result.evaluations <= 10
        # L stops on a bidou after his first throw; H with two throws left keeps throwing
        # a hand that does not beat L's.
        assert result.l_policy[(1, (2, 1, 1))] == STOP
        assert result.h_policy[((6, 6, 6), 1, (6, 5, 4))] != STOP


def test_bad_continuation_rejected():
    with pytest.raises(ValueError, match="continuation"):
        solve_open_throw(BidouParams(faces=2, throws=1), Fraction(3, 2))
    with pytest.raises(ValueError, match="replay"):
        open_throw_step(BidouParams(faces=2, throws=1), Fraction(1, 2), Fraction(-1))


def test_value_is_the_weighted_outcomes():
    result = solve_open_throw(BidouParams(faces=3, throws=2, reroll="keep"), Fraction(2, 9))
    assert result.value == result.p_l_wins + Fraction(2, 9) * result.p_h_wins
