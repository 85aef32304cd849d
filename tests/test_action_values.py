"""The worth of each action (solver/analysis/action_values.py): indifference of an exact
equilibrium's mixes, the game value at the root, OpenSpiel's action values on the faithful
game, and the off-path limit against small trembles."""

from fractions import Fraction

import numpy as np
import pytest
from open_spiel.python.algorithms.action_value import TreeWalkCalculator

from games.bidou.betting import ACTIONS, CAPTAIN, OPPONENT, Node
from games.bidou.params import BidouParams
from solver.analysis.action_values import action_values
from solver.checks.openspiel_bridge import load_game, to_openspiel_policy
from solver.hand.best_response import policy_value
from solver.hand.exact_solution import exact_solution
from solver.hand.model import build_model
from solver.hand.reach import own_reach
from solver.hand.solve import solve
from solver.hand.strategy import Strategy

SMALL = BidouParams(faces=3, throws=2, max_level=2)
KEEP = BidouParams(faces=3, throws=2, max_level=2, reroll="keep", ranking="french")


def _exact(params):
    found = exact_solution(solve(params))
    assert found.exact is not None, found.reason
    return found.solution.model, found.solution.strategy, found.exact


@pytest.fixture(scope="module", params=[SMALL, KEEP], ids=["small", "keep-french"])
def exact_small(request):
    model, strategy, exact = _exact(request.param)
    return model, strategy, exact, action_values(model, strategy, exact)


def _root_values(model, values):
    """The captain's value of the strategy's mix at his first decision, over his first throw."""
    captain = values.throw(CAPTAIN, 0, 0)
    return sum(p * m for p, m in zip(model.prior_exact, captain.mix))


def test_root_value_is_the_exact_game_value(exact_small):
    model, strategy, exact, values = exact_small
    assert values.exact
    root = _root_values(model, values)
    assert isinstance(root, Fraction)
    assert float(root) == pytest.approx(policy_value(model, strategy), abs=1e-12)
    # the opponent's side: his first decision's mix, per captain's throw count, weighted by
    # how often the captain stops there
    captain_stops = [Fraction(0)] * model.throws
    for h, p in enumerate(model.prior_exact):
        row = exact[("throw", CAPTAIN, 0, 0, h)]
        captain_stops[0] += p * row[0]
        captain_stops[1] += p * (1 - row[0])
    opponent = sum(captain_stops[c] * sum(p * m for p, m in zip(
        model.prior_exact, values.throw(OPPONENT, c, 0).mix)) for c in range(model.throws))
    assert opponent == -root


@pytest.mark.slow
def test_default_root_value_is_the_published_fraction():
    from solver.hand.strategy import load_exact, load_strategy_file

    path = "outputs/default/strategy.json"
    model, strategy, _ = load_strategy_file(path)
    exact = load_exact(path, model, strategy)
    values = action_values(model, strategy, exact)
    assert _root_values(model, values) == Fraction(-67764799477, 1836660096000)
    floats = action_values(model, strategy)
    assert not floats.exact
    assert float(_root_values(model, floats)) == pytest.approx(-0.0368956670995262914,
                                                               abs=1e-13)


def test_equilibrium_mixes_are_indifferent_on_path(exact_small):
    """Where both players' strategies lead, the actions an exact equilibrium plays are
    worth exactly the same, and no action is worth more."""
    model, strategy, exact, values = exact_small
    checked = mixed = 0
    for player in (CAPTAIN, OPPONENT):
        throw_reach, bet_reach = own_reach(model, strategy, player)
        for where, decision in values.decisions.items():
            if decision.player != player or decision.off_path:
                continue
            for h in range(model.num_hands):
                if where[0] == "throw":
                    _, _, c, t = where
                    reached = throw_reach[c, t, 0, h] > 0
                    probs = exact[("throw", player, c, t, h)]
                else:
                    reached = bet_reach[where[1]][0, h] > 0
                    probs = exact[("bet", where[1], h)]
                if not reached:
                    continue
                row = decision.values[h]
                played = {row[a] for a, p in enumerate(probs) if p > 0}
                assert len(played) == 1, (where, h, row, probs)
                assert max(v for v in row if v is not None) == played.pop()
                assert decision.mix[h] == decision.best(h)
                checked += 1
                mixed += sum(p > 0 for p in probs) > 1
    assert checked > 50 and mixed > 0


def _by_state(states, model, values):
    """Our values at each OpenSpiel information state (one state of each), by (player,
    info state string)."""
    hand_index = {h: i for i, h in enumerate(model.hands)}
    out = {}
    for state in states:
        player = state.current_player()
        hand = hand_index[tuple(state.hands[player])]
        counts = state.throw_counts
        names = [state.action_to_string(player, a) for a in state.legal_actions()]
        if names[0] in ACTIONS:
            node = model.tree(tuple(counts)).after(state.betting)
            assert isinstance(node, Node)
            decision = values.bet(counts[0], counts[1], node.history)
        else:
            context = 0 if player == CAPTAIN else counts[0] - 1
            decision = values.throw(player, context, counts[player] - 1)
        row = dict(zip(decision.actions, decision.values[hand]))
        out[(player, state.information_state_string())] = (
            {a: row[name] for a, name in zip(state.legal_actions(), names)}, decision.off_path)
    return out


def _random_strategy(model, seed):
    rng = np.random.default_rng(seed)
    base = solve(model.params, model=model).strategy.copy()
    for role in (CAPTAIN, OPPONENT):
        weights = rng.exponential(size=base.throw[role].shape) * model.throw_legal
        base.throw[role][...] = weights / weights.sum(axis=-2, keepdims=True)
    for key, probs in base.betting.items():
        weights = rng.exponential(size=probs.shape)
        base.betting[key] = weights / weights.sum(axis=0)
    return base


@pytest.mark.parametrize("params, which", [
    (BidouParams(faces=2, throws=2, max_level=2), "equilibrium"),
    (BidouParams(faces=2, throws=2, max_level=2), "random"),
    # about 10 s (OpenSpiel walks every kept-dice history in Python): the one keep case
    pytest.param(BidouParams(faces=2, throws=2, max_level=1, reroll="keep", ranking="french"),
                 "random", marks=pytest.mark.slow),
], ids=["all-equilibrium", "all-random", "keep-french-random"])
def test_values_equal_openspiel_action_values(params, which):
    """OpenSpiel's tree walk over the faithful game (every dice history) gives the same
    value of each action at every information state both strategies reach (the
    equilibrium leaves some unreached: they must be the ones marked off path or the
    player's own unreached ones)."""
    game = load_game(params)
    model = build_model(params)
    strategy = solve(params, model=model).strategy if which == "equilibrium" \
        else _random_strategy(model, 3)
    policy = to_openspiel_policy(game, strategy, model)
    ours = _by_state(policy.states, model, action_values(model, strategy))
    walk = TreeWalkCalculator(game)
    walk.compute_all_states_action_values([policy, policy])
    compared = 0
    for key, (row, off_path) in ours.items():
        assert off_path == (walk.info_state_cf_prob[key] <= 1e-12), key
        if walk.info_state_prob[key] <= 1e-12:
            continue
        for action, value in row.items():
            theirs = walk.weighted_action_values[key][action][key[0]] / walk.info_state_prob[key]
            assert value == pytest.approx(theirs, abs=1e-9), (key, action)
        compared += 1
    assert compared > 20


def _trembled(model, strategy: Strategy, player: int, eps: float) -> Strategy:
    """`strategy` with the other player's every legal action kept at least eps."""
    other = 1 - player
    out = strategy.copy()
    legal = model.throw_legal
    k = legal.sum(axis=0)
    out.throw[other][...] = np.where(legal, (1 - k * eps) * strategy.throw[other] + eps, 0.0)
    for (tc, to, history), probs in strategy.betting.items():
        if model.tree((tc, to)).node(history).actor == other:
            out.betting[(tc, to, history)] = (1 - len(probs) * eps) * probs + eps
    return out


def test_off_path_values_are_the_limit_of_trembles(exact_small):
    """At decisions the other player never lets happen, the values are the limit of his
    uniform trembles: a tremble of 1e-7 (every decision then reached) gives values within
    1e-5 of them, and a tremble of 1e-5 within 1e-3."""
    model, strategy, exact, values = exact_small
    off = [w for w, d in values.decisions.items() if d.off_path]
    assert off, "these variants have decisions off the path"
    for player in (CAPTAIN, OPPONENT):
        for eps, tol in ((1e-7, 1e-5), (1e-5, 1e-3)):
            shaken = action_values(model, _trembled(model, strategy, player, eps))
            for where in off:
                if values[where].player != player:
                    continue
                assert not shaken[where].off_path
                for mine, theirs in zip(values[where].values, shaken[where].values):
                    for a, b in zip(mine, theirs):
                        assert (a is None) == (b is None)
                        if a is not None:
                            assert float(a) == pytest.approx(b, abs=tol), where


def test_costs_of_a_decision():
    model = build_model(BidouParams(faces=2, throws=1, max_level=1))
    values = action_values(model, solve(model.params, model=model).strategy)
    decision = values.bet(1, 1, "")
    for h in range(model.num_hands):
        best = decision.best(h)
        for a, name in enumerate(decision.actions):
            assert decision.cost(h, name) == pytest.approx(best - decision.values[h][a])
            assert decision.cost(h, name) >= 0
    with pytest.raises(ValueError):
        decision.cost(0, "raise")


def test_a_round_stage_game_with_continuation_values():
    """A round's stage game (betting limited by the chips, leaves paying continuation
    values, not chips): the mix at the captain's first decision is the stage's value."""
    from solver.hand.lp.sequence_form import solve_lp
    from solver.round.stage import stage_model
    from solver.round.states import ChipState

    base = build_model(BidouParams(faces=3, throws=2, max_level=4))

    def value(nxt):       # any fixed continuation, deterministic across runs
        return 0.5 + 0.01 * (sum(map(ord, repr(nxt))) % 7)

    model = stage_model(base, ChipState(2, 0, 7), value)
    assert [n.history for n in model.tree((1, 1)).nodes] == ["", "p", "pb", "b"]
    strategy = solve_lp(model).strategy
    values = action_values(model, strategy)
    root = sum(p * m for p, m in zip(model.prior, values.throw(CAPTAIN, 0, 0).mix))
    assert root == pytest.approx(policy_value(model, strategy), abs=1e-12)
    assert 0.5 <= root <= 0.56
