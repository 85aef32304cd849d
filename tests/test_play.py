"""Playing against the strategy: scripted hands, the payoffs of the rules, and the advice."""

import numpy as np
import pytest

from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.app.play import (
    Advisor,
    Review,
    Score,
    captain_payoff,
    match_choice,
    play_hand,
)
from solver.solve import solve


@pytest.fixture(scope="module")
def small():
    return solve(BidouParams(faces=3, throws=2, max_level=2))


def index(model, text):
    return model.hands.index(tuple(int(d) for d in text.split("-")))


def test_leaf_payoffs_follow_the_rules(small):
    m = small.model
    bidou, low = index(m, "2-1-1"), index(m, "3-1-1")
    assert captain_payoff(m, "bc", (bidou, low), (1, 1)) == 2        # call at level 1
    assert captain_payoff(m, "brc", (low, bidou), (1, 1)) == -4      # call at level 2
    assert captain_payoff(m, "bf", (low, bidou), (1, 1)) == 1        # opponent folds
    assert captain_payoff(m, "pbf", (bidou, low), (1, 1)) == -1      # captain folds
    assert captain_payoff(m, "pp", (bidou, low), (1, 1)) == 0
    assert captain_payoff(m, "bc", (low, low), (1, 1)) == 0          # identical hands tie
    # the opponent bets first when the captain threw more: "b" is the opponent's bet
    assert m.tree((2, 1)).node("").actor == OPPONENT


def test_scripted_hand_reports_and_returns_the_payoff(small):
    said = []
    advisor = Advisor(small.model, small.strategy)

    def ask(prompt, options):
        return "stop" if "stop" in options else ("pass" if "pass" in options else "call")

    results = [play_hand(small.model, small.strategy, CAPTAIN, np.random.default_rng(seed),
                         ask, said.append, advisor) for seed in range(30)]
    assert {r.payoff for r in results} <= {-4.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0}
    assert any("Throw 1: you have" in line for line in said)
    assert sum(line.startswith(("You win", "You lose", "Nobody")) for line in said) == 30
    assert any("bet first" in line for line in said)
    assert not any("reroll" in line for line in said)         # "throw again", as on the charts
    # every choice is reviewed: always stopping after throw 1 is one review per hand
    assert all(r.reviews and r.reviews[0].situation.startswith("after throw 1")
               for r in results)
    assert all(r.cost >= 0 for r in results)


def test_advice_values_add_up_to_the_game_value(small):
    """Following the equilibrium from the first throw is worth the game value to each seat:
    the advisor's expected values are those of the game, not a heuristic."""
    m, advisor = small.model, Advisor(small.model, small.strategy)
    captain = m.prior @ advisor._continuation(CAPTAIN, 0, 1)
    assert captain == pytest.approx(small.value, abs=1e-12)
    p_tc = advisor.end[CAPTAIN].sum(axis=1)
    opponent = sum(p_tc[c] * (m.prior @ advisor._continuation(OPPONENT, c, 1))
                   for c in range(m.throws))
    assert opponent == pytest.approx(-small.value, abs=1e-12)


def test_equilibrium_actions_are_best_responses(small):
    """Against the equilibrium opponent, every action the equilibrium plays is worth the
    most there (up to the LP's precision), so following it costs nothing."""
    m, s = small.model, small.strategy
    advisor = Advisor(m, s)
    for h in range(m.num_hands):
        values = advisor.throw_values(CAPTAIN, 0, 1, h)
        probs = s.throw[CAPTAIN][0, 0, :, h]
        for a, action in enumerate(("stop", "throw again")):
            if probs[a] > 1e-6:
                assert values[action] >= max(values.values()) - 1e-9
    for public in m.public_states:
        node = m.tree(public).node("")
        for h in range(m.num_hands):
            values = advisor.bet_values(public, "", node.actor, h)
            probs = s.betting[(*public, "")][:, h]
            for i, action in enumerate(node.actions):
                if probs[i] > 1e-6:
                    assert values[action] >= max(values.values()) - 1e-9


def test_a_review_prices_a_mistake():
    review = Review("betting", "fold", {"call": 1.0, "fold": 0.0},
                    {"call": 0.5, "fold": -1.0, "raise": 0.2})
    assert review.cost == pytest.approx(1.5)
    assert "cost 1.500 chips" in review.text()
    assert "as the equilibrium does" in Review("x", "call", {"call": 1.0},
                                               {"call": 0.5}).text()


def test_score_has_a_standard_error():
    score = Score()
    for payoff in (2.0, -1.0, 0.0, 1.0):
        score.add(type("R", (), {"payoff": payoff, "seat": CAPTAIN, "cost": 0.25})())
    assert score.total == 2.0
    assert score.standard_error() == pytest.approx(np.std([2, -1, 0, 1], ddof=1) * 2)
    assert "Score after 4 hands: +2 chips (± 2.6)" in score.line()
    assert "Score after 0 hands: 0 chips," in Score().line()
    assert "1.000 chips in expectation" in score.line()


def test_typed_answers_are_matched():
    options = ["stop", "throw again", "keep 6", "keep 6-6"]
    assert match_choice("S", options) == "stop"
    assert match_choice("t", options) == "throw again"
    assert match_choice("keep 6", options) == "keep 6"
    assert match_choice("keep", options) is None
    assert match_choice("?", options) == "?"


def test_end_of_input_ends_the_game(small):
    def ask(prompt, options):
        raise EOFError

    with pytest.raises(EOFError):
        play_hand(small.model, small.strategy, CAPTAIN, np.random.default_rng(1), ask,
                  lambda line: None)


def test_equilibrium_against_itself_earns_the_value_on_average(small):
    """With nobody seated the strategy plays both sides: the mean payoff is the value."""
    rng = np.random.default_rng(7)
    quiet = lambda message: None  # noqa: E731
    hands = 20000
    payoffs = [play_hand(small.model, small.strategy, None, rng, None, quiet).payoff
               for _ in range(hands)]
    spread = np.std(payoffs) / np.sqrt(hands)
    assert np.mean(payoffs) == pytest.approx(small.value, abs=4 * spread)
