"""Behaviour at equilibrium: the reach-product computations against brute-force enumeration
of every path of a tiny game (chance, throws, bets), on random and solved strategies."""

import numpy as np
import pytest

from games.bidou.betting import CAPTAIN, OPPONENT, Leaf
from games.bidou.params import BidouParams
from games.bidou.rules import STOP
from solver.analysis import behaviour
from solver.hand.model import build_model
from solver.hand.solve import solve
from solver.hand.strategy import Strategy, check_strategy, uniform_strategy


def random_strategy(model, seed):
    rng = np.random.default_rng(seed)
    s = uniform_strategy(model)
    throw = []
    for role in (CAPTAIN, OPPONENT):
        x = rng.random(s.throw[role].shape) * model.throw_legal
        throw.append(x / x.sum(axis=-2, keepdims=True))
    betting = {}
    for key, probs in s.betting.items():
        x = rng.random(probs.shape) ** 3
        betting[key] = x / x.sum(axis=0)
    out = Strategy(tuple(throw), betting)
    check_strategy(model, out)
    return out


def throw_paths(model, throw):
    """Every (throws made, final hand, probability) of a turn, path by path."""
    out = []

    def go(t, hand, p):
        if t == model.throws - 1:
            out.append((t + 1, hand, p))
            return
        for a, action in enumerate(model.throw_actions):
            q = throw[t, a, hand]
            if q == 0:
                continue
            if action == STOP:
                out.append((t + 1, hand, p * q))
            else:
                for nxt in range(model.num_hands):
                    if model.transition[a, hand, nxt] > 0:
                        go(t + 1, nxt, p * q * model.transition[a, hand, nxt])

    for h in range(model.num_hands):
        go(0, h, model.prior[h])
    return out


def brute_force(model, strategy):
    """Enumerate every deal and every betting line; count what behaviour.py computes."""
    compare = model.compare
    kinds = {"pass": 0.0, "fold": 0.0, "showdown": 0.0}
    value = moved = throws_c = throws_o = 0.0
    ranges = {}                      # (tc, to, history, action) -> bettor hand masses, etc.
    for tc, hc, pc in throw_paths(model, strategy.throw[CAPTAIN][0]):
        for to, ho, po in throw_paths(model, strategy.throw[OPPONENT][tc - 1]):
            tree = model.tree((tc, to))
            hands = (hc, ho)

            def bet(history, p):
                nonlocal value, moved, throws_c, throws_o
                if isinstance(tree.at(history), Leaf):
                    leaf = tree.at(history)
                    u = float(tree.payoff(leaf, int(compare[hc, ho])))
                    kinds[leaf.kind] += p
                    value += p * u
                    moved += p * abs(u)
                    throws_c += p * tc
                    throws_o += p * to
                    return
                node = tree.node(history)
                probs = strategy.betting[(tc, to, history)][:, hands[node.actor]]
                for i, action in enumerate(node.actions):
                    if action in ("bet", "raise"):
                        key = (tc, to, history, action, node.actor, node.level + 1)
                        r = ranges.setdefault(key, [np.zeros(model.num_hands), 0.0])
                        r[0][hands[node.actor]] += p * probs[i]
                    bet(tree.child(node, action).history, p * probs[i])

            bet("", pc * po)
    bets = {(p, a): 0.0 for p in ("captain", "opponent") for a in ("bet", "raise")}
    bluffs = dict(bets)
    for (tc, to, history, action, actor, level), (mass, _) in ranges.items():
        if mass.sum() == 0:
            continue
        who = ("captain", "opponent")[actor]
        bets[(who, action)] += mass.sum()
        tree = model.tree((tc, to))
        facing = tree.child(tree.node(history), action)
        r = behaviour.indifference_hand(model, tree, facing, mass)
        for h in range(model.num_hands):
            loses = r is None or (compare[h, r] < 0 if actor == CAPTAIN else compare[r, h] > 0)
            bluffs[(who, action)] += mass[h] * loses
    return kinds, value, moved, throws_c, throws_o, bets, bluffs


@pytest.mark.parametrize("params, seed", [
    (BidouParams(faces=2, throws=2, max_level=2), 1),
    (BidouParams(faces=2, throws=2, max_level=3, reroll="keep"), 2),
    (BidouParams(faces=3, throws=2, max_level=2, ranking="french"), 3),
])
def test_reach_products_equal_brute_force(params, seed):
    model = build_model(params)
    for strategy in (random_strategy(model, seed), solve(params).strategy):
        kinds, value, moved, tc, to, bets, bluffs = brute_force(model, strategy)
        got = behaviour.outcomes(model, strategy)
        assert (got.passed, got.folded, got.showdown) == pytest.approx(
            (kinds["pass"], kinds["fold"], kinds["showdown"]), abs=1e-12)
        assert got.passed + got.folded + got.showdown == pytest.approx(1, abs=1e-12)
        assert got.value == pytest.approx(value, abs=1e-12)
        assert got.chips_moved == pytest.approx(moved, abs=1e-12)
        assert (got.captain_throws, got.opponent_throws) == pytest.approx((tc, to), abs=1e-12)
        b = behaviour.bluffs(model, strategy)
        for key in bets:
            assert b.bets[key] == pytest.approx(bets[key], abs=1e-12)
            assert b.bluffs[key] == pytest.approx(bluffs[key], abs=1e-12)


def test_on_policy_value_is_the_solved_value():
    solution = solve(BidouParams(faces=3, throws=2, max_level=2))
    got = behaviour.outcomes(solution.model, solution.strategy)
    assert got.value == pytest.approx(-794 / 19683, abs=1e-12)


def test_indifference_and_bluffs_on_a_known_range():
    """f2 t1 m1. Against a range all on the strongest hand only that hand calls (a tie, 0,
    beats folding, -1); against the weakest hand every hand calls."""
    model = build_model(BidouParams(faces=2, throws=1, max_level=1))
    tree = model.tree((1, 1))
    facing = tree.node("b")                       # the opponent faces the captain's bet
    weakest, strongest = np.argsort(model.strength)[[0, -1]]
    only = np.zeros(model.num_hands)
    only[strongest] = 1
    assert behaviour.indifference_hand(model, tree, facing, only) == strongest  # tie: call 0 > -1
    only = np.zeros(model.num_hands)
    only[weakest] = 1
    assert behaviour.indifference_hand(model, tree, facing, only) == weakest
    # f2 encyclopedia: 2-1-1 > 2-2-2 > 1-1-1 > 2-2-1. The captain bets every hand (range =
    # the prior): 2-2-1 calling loses 2 with probability 5/8 (-1.25 < -1, fold), 1-1-1
    # calling is worth 2 (3/8 - 4/8) = -0.25 >= -1: the indifference hand is 1-1-1, and the
    # bluffs are the bets with 2-2-1, probability 3/8.
    s = uniform_strategy(model)
    s.betting[(1, 1, "")][:] = [[0.0], [1.0]] * np.ones((2, model.num_hands))
    assert model.hands[behaviour.indifference_hand(model, tree, facing, model.prior)] == (1, 1, 1)
    b = behaviour.bluffs(model, s)
    assert b.bets[("captain", "bet")] == pytest.approx(1.0)
    assert b.frequency("captain", "bet") == pytest.approx(3 / 8)


def test_stop_table_rows():
    model = build_model(BidouParams(faces=2, throws=3))
    strategy = random_strategy(model, 5)
    rows = behaviour.stop_table(model, strategy)
    assert len(rows) == 2 + 3 * 2
    first = rows[0]
    assert first["player"] == "captain" and first["throw"] == 1
    assert first["stop_overall"] == pytest.approx(
        float(model.prior @ strategy.throw[CAPTAIN][0][0][0]))
