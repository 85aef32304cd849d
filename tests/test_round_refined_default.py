"""The refined stage games are the round's default: `bidou round` saves a round
whose every stage is refined, passes the independent check at every decision with nothing
weakly dominated, and whose saved strategies, read back from the files, are the ones the
round's certificate proves."""

from __future__ import annotations

from fractions import Fraction

import pytest
from click.testing import CliRunner

from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from solver.app.cli import main
from solver.hand.model import build_model
from solver.hand.refined.check import dominated_actions
from solver.hand.refined.sequential import verify
from solver.pipeline.round_cheatsheet import solution_from_saved
from solver.round import store
from solver.round.certify import certify_round
from solver.round.refine_stages import exact_stage_model
from solver.round.report import state_entry

SMALL = RoundParams(chips=4, hand=BidouParams(faces=2, throws=2, max_level=2))
SMALL_ARGS = ("--chips", "4", "--faces", "2", "--throws", "2", "--max-level", "2")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The small round as `bidou round` (no option) saves it, read back from its files."""
    folder = tmp_path_factory.mktemp("cache")
    env = {"XDG_CACHE_HOME": str(folder)}
    result = CliRunner().invoke(main, ["round", *SMALL_ARGS], env=env)
    assert result.exit_code == 0, result.output
    assert "stage games:    refined equilibria, all 9 pass the check" in result.output
    loaded = store.load(store.cache_path(SMALL, env), SMALL)
    return loaded, solution_from_saved(loaded)


def test_the_saved_round_says_every_stage_is_refined(saved):
    loaded, solution = saved
    assert loaded.report["equilibrium"] == store.REFINED
    assert loaded.report["stage_check"] == {"stages": 9, "verified": 9, "violations": 0,
                                            "plain": []}
    assert len(solution.stages) == 9


def test_every_saved_stage_passes_verify_with_nothing_dominated(saved):
    """Each stage strategy as the file holds it, on its stage game built again from the
    file's values (the float continuation values, not the refinement's grid): a best
    reply to beliefs at every decision, reached or not, and no weakly dominated action."""
    loaded, solution = saved
    base = build_model(SMALL.hand)
    for state, stage in solution.stages.items():
        model = exact_stage_model(base, state, solution.values, bits=None)
        report = verify(model, stage.strategy)
        assert report.passed, (state, report.violations[:3])
        assert not [v for player in (0, 1)
                    for v in dominated_actions(model, stage.strategy, player)], state


def test_the_certificate_proves_the_saved_strategies(saved):
    """The round's certificate run again on the strategies read back from the file proves
    the very intervals the file states (the same decimals, rounded outward), and each
    holds its value."""
    loaded, solution = saved
    certificate = certify_round(solution)
    entries = [state_entry(solution, certificate, state) for state in certificate.states]
    assert len(entries) == len(loaded.report["states"])
    for entry in entries:
        kept = loaded.entry(entry["centre"], entry["captain"], entry["opponent"])
        assert kept is not None
        assert (entry["lower"], entry["upper"], entry["width"]) == \
            (kept["lower"], kept["upper"], kept["width"])
        assert Fraction(kept["lower"]) <= Fraction(kept["value"]) <= Fraction(kept["upper"])
        assert kept["width"] < 1e-11
