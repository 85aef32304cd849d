"""Playing against the strategy: scripted hands and the payoffs of the rules."""

import numpy as np
import pytest

from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.app.play import captain_payoff, play_hand
from solver.solve import solve


@pytest.fixture(scope="module")
def small():
    return solve(BidouParams(faces=3, throws=2, max_level=2))


def index(model, text):
    return model.hands.index(tuple(int(d) for d in text.split("-")))


def leaf(model, *actions):
    return model.tree((1, 1)).after(actions)


def test_leaf_payoffs_follow_the_rules(small):
    m = small.model
    bidou, low = index(m, "2-1-1"), index(m, "3-1-1")

    def pay(hands, *actions):
        return captain_payoff(m, leaf(m, *actions), hands, (1, 1))

    assert pay((bidou, low), "bet", "call") == 2                # call at level 1
    assert pay((low, bidou), "bet", "raise", "call") == -4      # call at level 2
    assert pay((low, bidou), "bet", "fold") == 1                # opponent folds
    assert pay((bidou, low), "pass", "bet", "fold") == -1       # captain folds
    assert pay((bidou, low), "pass", "pass") == 0
    assert pay((low, low), "bet", "call") == 0                  # identical hands tie
    # the opponent bets first when the captain threw more: "b" is the opponent's bet
    assert m.tree((2, 1)).node("").actor == OPPONENT


def test_scripted_hand_reports_and_returns_the_payoff(small):
    said = []

    def ask(prompt, options):
        return "stop" if "stop" in options else ("pass" if "pass" in options else "call")

    results = [play_hand(small.model, small.strategy, CAPTAIN, np.random.default_rng(seed),
                         ask, said.append) for seed in range(30)]
    assert set(results) <= {-4.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0}
    assert any("Throw 1: you have" in line for line in said)
    assert sum("Your payoff" in line for line in said) == 30


def test_equilibrium_against_itself_earns_the_value_on_average(small):
    """With nobody seated the strategy plays both sides: the mean payoff is the value."""
    rng = np.random.default_rng(7)
    quiet = lambda message: None  # noqa: E731
    hands = 20000
    payoffs = [play_hand(small.model, small.strategy, None, rng, None, quiet)
               for _ in range(hands)]
    spread = np.std(payoffs) / np.sqrt(hands)
    assert np.mean(payoffs) == pytest.approx(small.value, abs=4 * spread)
