"""The refined equilibrium is the project's default hand strategy: the pipeline's
default and the published strategies play no weakly dominated action, pass the check at
every decision, and have none of the three defects the plain LP vertex has;
nor have the published cheat sheets."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.hand.model import HandModel
from solver.hand.refined.sequential import verify
from solver.hand.strategy import Strategy, load_strategy_file
from solver.pipeline.hand import PLAIN, REFINED, solve_hand

# the default game's refined equilibrium, solved and checked (tests/test_refine.py and
# tests/test_refine_check.py examine a small variant's in the quick run)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_VALUE = Fraction(-67764799477, 1836660096000)


def vertex_defects(model: HandModel, strategy: Strategy) -> list[str]:
    """The plain LP vertex's three defects, where the rules have them (played: probability > 1e-9):
    C3 O1 under the encyclopedia ranking (where nothing beats 2-1-1; in the french one 1-1-1
    does, and folding 2-1-1 can be right), the captain's 2-1-1 folding to a raise to 3 and
    the captain passing with every hand after the opponent's pass; keep C2 O2, the opponent
    folding 6-6-6, 5-5-5 or 2-2-2 to a check-raise."""
    names = [rules.format_hand(h) for h in model.hands]
    found = []

    def probs(public: tuple[int, int], history: str, actor: int, action: str):
        node = model.tree(public).node(history)
        assert node.actor == actor
        return strategy.betting[(*public, history)][[a.value for a in node.actions]
                                                    .index(action)]

    fold = probs((3, 1), "brr", CAPTAIN, "fold")[names.index("2-1-1")]
    if fold > 1e-9 and model.params.ranking == "encyclopedia":
        found.append(f"C3 O1: captain folds 2-1-1 to a raise to 3 ({fold:.3g})")
    if probs((3, 1), "p", CAPTAIN, "bet").max() <= 1e-9 \
            and model.params.ranking == "encyclopedia":
        found.append("C3 O1: captain passes with every hand after the opponent's pass")
    if model.params.reroll == "keep":
        folds = probs((2, 2), "pbr", OPPONENT, "fold")
        found += [f"keep C2 O2: opponent folds {hand} to a check-raise"
                  for hand in ("6-6-6", "5-5-5", "2-2-2") if folds[names.index(hand)] > 1e-9]
    return found


@pytest.fixture(scope="module")
def default_hand():
    # the one refined solve of the default game in the suite (~3 s: the perturbed LP, the
    # exact recovery and the check), shared by the tests below
    return solve_hand(BidouParams())


def test_the_pipeline_default_is_the_refined_equilibrium(default_hand):
    assert default_hand.equilibrium == REFINED and default_hand.proved
    assert default_hand.solution.certificate.exact == DEFAULT_VALUE     # as the plain LP's
    assert default_hand.solution.exploitability.nash_conv < 1e-12
    document = default_hand.document()
    assert document["result"]["equilibrium"] == REFINED and "exact" in document
    # from the fast LP, whose limit the command takes only after the independent check
    assert document["result"]["message"].endswith(
        "(behaviour trembles; HiGHS unscaled, Dantzig pricing), exact value proved, "
        "independent check passed")


def test_the_default_is_the_published_strategy_bit_for_bit(default_hand):
    """What the refined pipeline computes is what outputs/default/strategy.json publishes,
    every row: its exact probabilities and their float roundings (the speed-ups of the
    recovery and the proof must change no number; the published rounds' stage games are
    refined by the same code)."""
    published = json.loads((ROOT / "outputs" / "default" / "strategy.json").read_text())
    assert published["result"]["equilibrium"] == REFINED
    document = default_hand.document()
    assert len(document["exact"]["betting"]) == len(published["exact"]["betting"]) > 0
    for section in ("throw", "betting", "exact"):
        assert document[section] == published[section], section


def test_the_default_passes_at_every_decision_with_none_of_the_defects(default_hand):
    model, strategy = default_hand.solution.model, default_hand.solution.strategy
    report = verify(model, strategy)
    assert report.decisions == 5488
    assert report.passed and report.dominated == ()
    assert vertex_defects(model, strategy) == []


def test_the_plain_vertex_has_the_defects_and_says_so():
    plain = solve_hand(BidouParams(), plain=True)
    assert plain.equilibrium == PLAIN
    assert plain.document()["result"]["equilibrium"] == PLAIN
    found = vertex_defects(plain.solution.model, plain.solution.strategy)
    assert found == ["C3 O1: captain folds 2-1-1 to a raise to 3 (0.543)",
                     "C3 O1: captain passes with every hand after the opponent's pass"]
    assert len(verify(plain.solution.model, plain.solution.strategy).dominated) == 13


@pytest.mark.parametrize("name", ["default", "keep", "french"])
def test_published_strategies_are_refined_and_sound(name):
    """outputs/ publishes the refined equilibrium: it passes the check at every decision
    and has none of the plain vertex's defects (the test above)."""
    model, strategy, result = load_strategy_file(ROOT / "outputs" / name / "strategy.json")
    assert result.get("equilibrium") == REFINED
    assert verify(model, strategy).passed
    assert vertex_defects(model, strategy) == []


@pytest.mark.parametrize("name", ["default", "keep", "french"])
def test_published_cheat_sheets_have_none_of_the_defects(name):
    """A cheat sheet is no equilibrium, but it must not advise what the plain vertex shows in
    the charts (no weakly dominated bet either: tests/test_cheatsheet_published.py)."""
    model, strategy, _ = load_strategy_file(ROOT / "outputs" / name / "cheatsheet_strategy.json")
    assert vertex_defects(model, strategy) == []
