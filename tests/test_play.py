"""Playing against the strategy: scripted hands, the payoffs of the rules, and the advice."""

from fractions import Fraction

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
from solver.hand.solve import solve


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
    m, s, advisor = small.model, small.strategy, Advisor(small.model, small.strategy)

    def first_decision(role, context):
        """The strategy's mix after throw 1, over the first throw's hands."""
        total = 0.0
        for h in range(m.num_hands):
            values = advisor.throw_values(role, context, 1, h)
            probs = s.throw[role][context, 0, :, h]
            total += m.prior[h] * (probs[0] * values["stop"]
                                   + probs[1] * values["throw again"])
        return total

    assert first_decision(CAPTAIN, 0) == pytest.approx(small.value, abs=1e-12)
    stops = m.prior @ s.throw[CAPTAIN][0, 0, 0]        # the captain stops after one throw
    opponent = stops * first_decision(OPPONENT, 0) + (1 - stops) * first_decision(OPPONENT, 1)
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
    assert "Score after 4 hands: +2 chips (± 2.6: one standard error of that total" \
        in score.line()
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


@pytest.mark.slow
def test_equilibrium_against_itself_earns_the_value_on_average(small):
    """With nobody seated the strategy plays both sides: the mean payoff is the value."""
    rng = np.random.default_rng(7)
    quiet = lambda message: None  # noqa: E731
    hands = 20000
    payoffs = [play_hand(small.model, small.strategy, None, rng, None, quiet).payoff
               for _ in range(hands)]
    spread = np.std(payoffs) / np.sqrt(hands)
    assert np.mean(payoffs) == pytest.approx(small.value, abs=4 * spread)


def test_piped_game_prints_the_true_cost_of_a_known_mistake():
    """Seed 4 deals the captain 2-1-1 (nothing beats it) at his first throw; throwing it
    away costs stop - throw again = 2320/2187 - (-196/729) = 2908/2187 = 1.330 chips
    (exact values of the 3-face game, solver/analysis/action_values.py). The score is
    printed once."""
    from click.testing import CliRunner

    from solver.app.cli import main

    result = CliRunner().invoke(main, [
        "play", "--faces", "3", "--throws", "2", "--max-level", "2", "--seed", "4",
        "--role", "captain", "--hands", "1"], input="t\n" + "p\nc\n" * 6)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Throw 1: you have 2-1-1 (bidou)." in out
    assert ("after throw 1 with 2-1-1: you chose throw again (cost 1.330 chips in "
            "expectation; best here: stop); equilibrium: stop always.") in out
    assert float(Fraction(2908, 2187)) == pytest.approx(1.32968, abs=1e-5)
    assert out.count("Score after 1 hand:") == 1          # once, not again at the end
    assert "In your seats the equilibrium is worth -0.040 chips over 1 hand" in out


def test_off_path_mistakes_cost_what_they_lose(small):
    """The equilibrium opponent never re-raises at captain 1 throw, opponent 1 (he never
    bets then raises): the old advice valued every action 0 there ("no cost"). Against his
    smallest slips, the captain folding 2-1-1 to that raise gives up 14/5 - (-1) = 3.8
    chips, and the review says the spot is off the path."""
    m = small.model
    advisor = Advisor(m, small.strategy)
    bidou = index(m, "2-1-1")
    assert advisor.bet_off_path((1, 1), "br")
    values = advisor.bet_values((1, 1), "br", CAPTAIN, bidou)
    assert values["call"] == pytest.approx(2.8, abs=1e-12)
    review = Review("betting with 2-1-1, facing level 2", "fold", {"fold": 0.0, "call": 1.0},
                    values, advisor.bet_off_path((1, 1), "br"))
    assert review.cost == pytest.approx(3.8, abs=1e-12)
    assert "cost 3.800 chips in expectation; best here: call" in review.text()
    assert "never lets happen" in review.text()


def test_costs_are_never_clamped():
    """A choice worth more than the equilibrium's mix (possible where the mix is not a
    best reply) costs 0 against the best action, and a worse one its whole difference."""
    review = Review("x", "bet", {"pass": 1.0, "bet": 0.0}, {"pass": -0.5, "bet": 0.25})
    assert review.cost == 0 and "no cost" in review.text()
    worse = Review("x", "pass", {"pass": 0.0, "bet": 1.0}, {"pass": -0.5, "bet": 0.25})
    assert worse.cost == pytest.approx(0.75)
