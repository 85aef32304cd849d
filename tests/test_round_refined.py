"""The round's stage games refined (solver/round/refine_stages.py): the saved
stage strategies are refined equilibria that pass the independent check at every decision
with nothing weakly dominated, the round's values are unchanged, and the proof is the
refined strategies' own."""

from __future__ import annotations

from fractions import Fraction

import pytest
from click.testing import CliRunner

from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from solver.app.cli import main
from solver.hand.model import build_model
from solver.hand.refined.check import dominated_actions
from solver.hand.refined.quasi_perfect import refined_equilibrium
from solver.hand.refined.sequential import verify
from solver.pipeline.round import prove_round
from solver.round.refine_stages import (
    REFINED,
    SCALE,
    exact_stage_model,
    undominated,
)
from solver.round.states import ChipState

SMALL = RoundParams(chips=4, hand=BidouParams(faces=2, throws=2, max_level=2))
TINY = RoundParams(chips=3, hand=BidouParams(faces=2, throws=1, max_level=1))
TINY_ARGS = ("--chips", "3", "--faces", "2", "--throws", "1", "--max-level", "1")


@pytest.fixture(scope="module")
def both():
    """The small round proved with refined stages (the default) and with the LPs'
    vertices."""
    return prove_round(SMALL, timed=False), prove_round(SMALL, timed=False, refined=False)


def test_refined_round_keeps_the_values_and_proves_them(both):
    refined, plain = both
    assert refined.report["equilibrium"] == REFINED
    assert plain.report["equilibrium"] == "plain LP vertex" and "stage_check" not in plain.report
    assert [s["value"] for s in refined.report["states"]] == \
        [s["value"] for s in plain.report["states"]]
    for entry in refined.report["states"]:
        assert Fraction(entry["lower"]) <= Fraction(entry["value"]) <= Fraction(entry["upper"])
        assert entry["width"] < 1e-11
    check = refined.report["stage_check"]
    assert check["stages"] == len(refined.solution.stages) == 9
    assert check["verified"] == 9 and check["violations"] == 0 and check["plain"] == []


def test_every_saved_stage_passes_the_check_on_its_own_stage_game(both):
    """Re-checked here from the solution's strategies on a stage game built again, in win
    probability: every action played is a best reply to beliefs, none weakly dominated;
    the plain LP's vertices fail the same check (so it can fail)."""
    refined, plain = both
    base = build_model(SMALL.hand)
    plain_violations = 0
    for state, stage in refined.solution.stages.items():
        model = exact_stage_model(base, state, refined.solution.values)
        report = verify(model, stage.strategy)
        assert report.passed, (state, report.violations[:3])
        assert abs(stage.value - refined.solution.values[state]) < 1e-12
        plain_violations += len(verify(model, plain.solution.stages[state].strategy).violations)
    assert plain_violations > 20


def test_a_tie_that_folds_is_mended():
    """Faces 3, 5 chips, state 0,2,3: where the captain never goes with 3-3-2 (he always
    throws again after one throw) and the opponent bets only hands that beat it, folding
    and calling tie under Bayes's beliefs, and the refinement folds; calling is never
    worse (losing the call leads where the fold does). `undominated` moves it to the call
    and proves the same exact value."""
    from solver.round.solve import solve_round

    params = RoundParams(chips=5, hand=BidouParams(faces=3, throws=2))
    solution = solve_round(params, components=1)
    state = ChipState(0, 2, 3)
    model = exact_stage_model(build_model(params.hand), state, solution.values)
    raw = refined_equilibrium(exact_stage_model(build_model(params.hand), state,
                                                solution.values, SCALE))
    before = [v for p in (0, 1) for v in dominated_actions(model, raw.strategy, p)]
    assert len(before) >= 10 and {v.action for v in before} == {0}      # folds
    value = raw.certificate.exact / SCALE + Fraction(1, 2)
    mended, moved = undominated(model, raw.strategy, raw.exact, value)
    assert moved == len(before)
    assert not [v for p in (0, 1) for v in dominated_actions(model, mended, p)]
    assert verify(model, mended).passed
    assert abs(float(value) - solution.values[state]) < 1e-12


def test_the_round_refines_its_stages_unless_plain(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    result = CliRunner().invoke(main, ["round", *TINY_ARGS], env=env)
    assert result.exit_code == 0, result.output
    assert "stage games:    refined equilibria, all 4 pass the check" in result.output
    result = CliRunner().invoke(main, ["round", *TINY_ARGS, "--plain"], env=env)
    assert result.exit_code == 0, result.output
    assert "stage games:    the LPs' vertices" in result.output
    result = CliRunner().invoke(main, ["round", "--open-throw", "--plain"], env=env)
    assert result.exit_code == 2 and "--open-throw does not take --plain" in result.output
    result = CliRunner().invoke(main, ["round", "--cheatsheet", "--out", str(tmp_path),
                                       "--plain"], env=env)
    assert result.exit_code == 2 and "nor --plain" in result.output


@pytest.mark.slow
def test_a_saved_round_of_the_other_kind_is_solved_again(tmp_path):
    """A saved round of the LPs' vertices (files written before the refinement was the
    default) answers a --plain query; asked for the default, refined stages, it is named
    on stderr and the round solved again; and the other way round."""
    from solver.pipeline.round import saved_round
    from solver.round import store

    env = {"XDG_CACHE_HOME": str(tmp_path)}
    plain = prove_round(TINY, timed=False, refined=False)
    path = store.cache_path(TINY, env)
    store.save(saved_round(plain, path))
    query = ["round", *TINY_ARGS, "--state", "1,1,1"]
    result = CliRunner().invoke(main, [*query, "--plain"], env=env)
    assert result.exit_code == 0, result.output
    assert "read from" in result.output
    result = CliRunner().invoke(main, query, env=env)
    assert result.exit_code == 0, result.output
    assert "holds the stage LPs' vertices, not the refined stage equilibria; not used" \
        in result.stderr
    assert "solved now and saved" in result.output
    assert store.load(path, TINY).report["equilibrium"] == REFINED
    result = CliRunner().invoke(main, query, env=env)
    assert result.exit_code == 0 and "read from" in result.output, result.output
    result = CliRunner().invoke(main, [*query, "--plain"], env=env)
    assert result.exit_code == 0, result.output
    assert "holds the refined stage equilibria, not the stage LPs' vertices; not used" \
        in result.stderr
    assert store.load(path, TINY).report["equilibrium"] == store.PLAIN


@pytest.mark.slow
def test_a_stage_that_cannot_be_refined_keeps_its_lp_vertex(both, monkeypatch):
    """A refinement that fails (no exact limit, or exact probabilities past the
    certificate's denominator) leaves that stage's LP vertex, and the report lists it."""
    from solver.common.errors import SolverError
    from solver.round import refine_stages as round_stages

    _, plain = both
    failing = ChipState(0, 2, 2)
    real = round_stages.refine_stage

    def refine(base, state, values):
        if state == failing:
            raise SolverError("no tremble size worked")
        return real(base, state, values)

    monkeypatch.setattr(round_stages, "refine_stage", refine)
    solution, found = round_stages.refine_round(plain.solution, workers=1)
    assert found[failing].failed == "no tremble size worked"
    assert solution.stages[failing] is plain.solution.stages[failing]
    check = round_stages.stage_check(found)
    assert check["plain"] == ["0,2,2"] and check["verified"] == check["stages"] - 1
