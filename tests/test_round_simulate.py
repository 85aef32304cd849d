"""The Monte Carlo round simulator (solver/round/simulate.py) against exact win probabilities:
a closed form, and the faithful OpenSpiel game (games/bidou/round_game.py) evaluated exactly
as a Markov chain over the stages of the round."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pyspiel
import pytest

import games.bidou.round_game  # noqa: F401  (registers python_bidou_round)
from games.bidou import rules
from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from solver.round.simulate import STOP, UniformPolicy, play_round, simulate_rounds


class BetFold:
    """The captain always bets, the opponent always folds; open throws: stop at once."""

    def throw(self, chips, role, throws, hand, captain_throws):
        return {STOP: 1.0}

    def bet(self, chips, role, captain_throws, opponent_throws, history, hand, legal):
        return {"bet": 1.0} if "bet" in legal and role == "captain" else \
            {"pass": 1.0} if "pass" in legal else {"fold": 1.0}

    def open_throw(self, chips, role, throws, hand, low_hand):
        return {STOP: 1.0}


@pytest.mark.parametrize("chips, faces", [(3, 2), (5, 6)])
def test_bet_fold_closed_form(chips, faces):
    """The opponent folds until he holds N - 1; each open throw is then a fair coin (L wins
    outright with probability 1/2 over the replays), and after each one the loser of the coin
    folds up to N - 1 in turn. Player 0 is L of the 1st, 3rd, ... open throw:
    P(player 0 wins) = 1/2 + 1/8 + ... = 2/3. Hands: N - 1 folds before the first open throw,
    N - 2 after the first, N - 3 after each later one; K open throws, P(K = k) = 2**-k, each
    taking 1/(1 - P(tie)) attempts on average."""
    params = RoundParams(chips, BidouParams(faces=faces, throws=1))
    result = simulate_rounds(params, [BetFold(), BetFold()], 4000, np.random.default_rng(5))
    assert result.unfinished == 0
    assert abs(result.win_rate - 2 / 3) < 4 * result.standard_error
    assert result.standard_error == pytest.approx(np.sqrt(2 / 9 / 4000), rel=0.05)
    p_tie = float(sum(p * p for p in rules.hand_distribution(faces).values()))
    mean_hands = (chips - 1) + (chips - 2) / 2 + (chips - 3) / 2
    assert result.mean_hands == pytest.approx(mean_hands, abs=0.15)
    assert result.mean_open_throws == pytest.approx(2 / (1 - p_tie), rel=0.06)


def test_seeded_and_validated():
    params = RoundParams(3, BidouParams(faces=2, throws=2, max_level=1))
    u = UniformPolicy(params)
    a = simulate_rounds(params, [u, u], 50, np.random.default_rng(9))
    b = simulate_rounds(params, [u, u], 50, np.random.default_rng(9))
    assert a == b
    with pytest.raises(ValueError, match="start"):
        play_round(params, [u, u], np.random.default_rng(0), start=(1, 1, 0))

    class Bad(UniformPolicy):
        def bet(self, *args):
            return {"raise": 1.0}

    with pytest.raises(ValueError, match="raise"):
        simulate_rounds(params, [Bad(params), Bad(params)], 5, np.random.default_rng(0))
    # The stage limit cuts rounds that never end (two players who always pass).
    result = simulate_rounds(params, [Passive(), Passive()], 10, np.random.default_rng(0),
                             max_stages=7)
    assert result.unfinished == 10 and result.win_rate == 0.5 and result.mean_hands == 7


class Passive:
    def throw(self, *args):
        return {STOP: 1.0}

    def bet(self, chips, role, captain_throws, opponent_throws, history, hand, legal):
        return {"pass": 1.0} if "pass" in legal else {"call": 1.0}

    def open_throw(self, *args):
        return {STOP: 1.0}


# --- against the faithful OpenSpiel game, exactly -----------------------------------------------

STRONG = {(2, 1, 1), (2, 2, 2)}


class Sensible:
    """A stochastic Markov policy that uses every input the protocol gives."""

    def throw(self, chips, role, throws, hand, captain_throws):
        if hand in STRONG:
            return {STOP: 1.0}
        stay = 0.2 if role == "captain" or captain_throws == 1 else 0.4
        return {STOP: stay, (): 1 - stay}

    def bet(self, chips, role, captain_throws, opponent_throws, history, hand, legal):
        strong = hand in STRONG
        if "bet" in legal:
            p = 0.9 if strong else 0.3 + 0.1 * chips[1]
            return {"bet": p, "pass": 1 - p}
        if "call" in legal:
            p = 1.0 if strong else 0.35 if opponent_throws > captain_throws else 0.5
            return {"call": p, "fold": 1 - p}
        return {legal[0]: 1.0}

    def open_throw(self, chips, role, throws, hand, low_hand):
        if role == "high":
            beats = rules.compare(hand, low_hand) > 0
            return {STOP: 1.0} if beats else {(): 1.0}
        return {STOP: 1.0} if hand in STRONG else {STOP: 0.25, (): 0.75}


class KeepTwos(Sensible):
    """Under reroll=keep: keeps its 2s (at most two) before throwing again."""

    def throw(self, chips, role, throws, hand, captain_throws):
        if hand in STRONG:
            return {STOP: 1.0}
        twos = tuple(d for d in hand if d == 2)[:2]
        return {STOP: 0.2, twos: 0.5, (): 0.3} if twos else {STOP: 0.3, (): 0.7}

    def open_throw(self, chips, role, throws, hand, low_hand):
        return self.throw(chips, role, throws, hand, None) if role == "low" else \
            super().open_throw(chips, role, throws, hand, low_hand)


def _decision(state, policy, game):
    """The OpenSpiel player's move probabilities, asked of a simulator policy."""
    player = state.current_player()
    hand = state.stage_hands[player]
    counts = state.throw_counts
    chips0 = state.stage_chips
    if state.in_open_throw:
        low = state.low_player
        chips = (chips0[0], chips0[1 + low], chips0[2 - low])
        role = "low" if player == low else "high"
        probs = policy.open_throw(chips, role, counts[player], hand,
                                  state.stage_hands[low] if role == "high" else None)
    else:
        cap = state.captain
        chips = (chips0[0], chips0[1 + cap], chips0[2 - cap])
        role = "captain" if player == cap else "opponent"
        if state.is_betting:
            legal = tuple(game.action_name(a) for a in state.legal_actions())
            if len(legal) == 1:
                return {state.legal_actions()[0]: 1.0}
            probs = policy.bet(chips, role, counts[cap], counts[1 - cap], state.betting,
                               hand, legal)
            return {game.action_id(a): p for a, p in probs.items()}
        probs = policy.throw(chips, role, counts[player], hand,
                             counts[cap] if role == "opponent" else None)
    ids = {}
    for action, p in probs.items():
        name = "stop" if action == STOP else "reroll" if action == () else \
            "keep " + rules.format_hand(action)
        ids[game.action_id(name)] = p
    return ids


def _exact_win_probability(text, policies):
    """P(player 0 wins) with both players following `policies`, computed on the OpenSpiel game:
    one stage at a time from each chip state met, then the absorbing Markov chain solved."""
    game = pyspiel.load_game(f"python_bidou_round({text},max_hands=40)")
    keys, rows, frontier = {}, [], [game.new_initial_state()]

    def key_of(state):
        return (state.centre, state.piles, state.captain)

    keys[key_of(frontier[0])] = 0
    while frontier:
        root = frontier.pop()
        moves: dict = {}
        win = 0.0

        def walk(state, p, stage):
            nonlocal win
            if state.is_terminal():
                assert state.returns()[0] != 0, "the cap must not be reached"
                win += p * (state.returns()[0] > 0)
                return
            if state.stages > stage:
                k = key_of(state)
                if k not in keys:
                    keys[k] = len(keys)
                    frontier.append(state)
                moves[keys[k]] = moves.get(keys[k], 0.0) + p
                return
            if state.is_chance_node():
                for a, q in state.chance_outcomes():
                    walk(state.child(a), p * q, stage)
                return
            player = state.current_player()
            for a, q in _decision(state, policies[player], game).items():
                if q > 0:
                    walk(state.child(a), p * q, stage)

        walk(root, 1.0, root.stages)
        rows.append((keys[key_of(root)], moves, win))
    n = len(keys)
    matrix, b = np.eye(n), np.zeros(n)
    for i, moves, win in rows:
        b[i] = win
        for j, p in moves.items():
            matrix[i, j] -= p
    return float(np.linalg.solve(matrix, b)[0]), n


@pytest.mark.parametrize("text, first, expected", [
    ("chips=3,faces=2,throws=2,max_level=1", Sensible, 0.805668577),
    ("chips=3,faces=2,throws=2,max_level=1,reroll=keep", KeepTwos, None),
])
@pytest.mark.slow
def test_simulator_matches_the_openspiel_game_exactly_evaluated(text, first, expected):
    params = RoundParams.from_mapping(dict(item.split("=") for item in text.split(",")))
    policies = [first(), UniformPolicy(params)]
    exact, states = _exact_win_probability(text, policies)
    assert states >= 6
    if expected is not None:
        assert exact == pytest.approx(expected, abs=1e-9)
    result = simulate_rounds(params, policies, 3000, np.random.default_rng(11))
    assert result.unfinished == 0
    assert abs(result.win_rate - exact) < 4 * result.standard_error, (result, exact)
    # The stronger policy does beat the uniform one by a margin the simulation resolves.
    assert exact > 0.5 + 5 * result.standard_error


def test_closed_form_chain_agrees_with_openspiel():
    """The bet-fold chain's 2/3 also comes out of the exact OpenSpiel evaluation."""
    exact, _ = _exact_win_probability("chips=3,faces=2,throws=1,max_level=1",
                                      [BetFold(), BetFold()])
    assert exact == pytest.approx(float(Fraction(2, 3)), abs=1e-12)
