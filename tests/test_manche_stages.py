"""How the manche's stages are solved (solver/manche/stage_solve.py): each solve of a stage
starts where its last one ended and reaches the same equilibrium value as a cold solve, the
double oracle from its last tree and basis, and the stages run side by side in worker
processes with the numbers of a solve in one process."""

from __future__ import annotations

import numpy as np
import pytest

from games.le_bidou.manche import MancheParams, MancheState, all_states, decided
from solver.hand.lp.restricted import double_oracle
from solver.hand.lp.sequence_form import solve_lp_from
from solver.manche.certify import PoolProofs, certify_manche
from solver.manche.solve import decided_values, first_guess, solve_manche
from solver.manche.stage_solve import model_at, solve_stage

SMALL = MancheParams(chips=5, faces=3, throws=2)


def rough_values(params: MancheParams) -> dict[MancheState, float]:
    """Some continuation values (not a solution: the stage LP does not care)."""
    return {s: float(v) if (v := decided(s)) is not None
            else 0.5 + 0.03 * (s.second - s.first) + 0.01 * s.pool
            for s in all_states(params.chips)}


def nudged(values: dict[MancheState, float], state: MancheState, by: float
           ) -> dict[MancheState, float]:
    """A Newton step's new values: the component's own (the tie leaves) moved a little."""
    out = dict(values)
    out[state] += by
    out[state.swapped()] -= by
    return out


def test_a_stage_solved_again_starts_from_its_last_basis():
    state = MancheState(4, 0, 1)
    values = rough_values(SMALL)
    first = solve_stage(SMALL, state, values, None)
    assert first.method == "LP of the whole tree" and first.start.basis is not None
    moved = nudged(values, state, 1e-4)
    again = solve_stage(SMALL, state, moved, first.start)
    cold, _ = solve_lp_from(model_at(SMALL, state, moved), None)
    assert again.value == pytest.approx(cold.value, abs=1e-12)
    assert again.value != pytest.approx(first.value, abs=1e-9)     # the leaves did move
    warm, _ = solve_lp_from(model_at(SMALL, state, moved), first.start.basis)
    assert warm.iterations < cold.iterations / 4


def test_the_double_oracle_starts_from_its_last_tree_and_basis():
    state = MancheState(5, 0, 0)
    values = rough_values(SMALL)
    model = model_at(SMALL, state, values)
    full, _ = solve_lp_from(model, None)
    first = double_oracle(model)
    assert first.solution.value == pytest.approx(full.value, abs=1e-10)
    moved = model_at(SMALL, state, nudged(values, state, 1e-4))
    again = double_oracle(moved, start=first.kept, basis=first.basis)
    cold, _ = solve_lp_from(moved, None)
    assert again.solution.value == pytest.approx(cold.value, abs=1e-10)
    assert again.rounds == 1 and again.kept == first.kept
    assert again.solution.iterations < first.solution.iterations / 4


@pytest.mark.slow
def test_stages_side_by_side_give_the_numbers_of_one_process():
    """And so do the proofs: the same exact bounds, whichever process found them."""
    params = MancheParams(chips=4, faces=3, throws=2)     # pool 2: two components
    one = solve_manche(params, workers=1)
    two = solve_manche(params, workers=2)
    assert len(one.components) == 5 and len(one.stages) == 8
    assert one.values == two.values
    assert one.history == two.history
    for state, stage in one.stages.items():
        other = two.stages[state].strategy
        assert stage.method == two.stages[state].method
        for key, probs in stage.strategy.betting.items():
            np.testing.assert_array_equal(probs, other.betting[key])
    proved = certify_manche(two, workers=2).states
    assert proved == certify_manche(two, workers=1).states
    assert max(float(p.width) for p in proved.values()) < 1e-13


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.slow
def test_the_proof_beside_the_solve_is_the_proof_after_it(workers):
    """`PoolProofs` run beside the solve (each pool's proof in the next pool's first batch,
    the last pool's after it), as `bidou manche` does, proves the exact bounds that
    `certify_manche` proves after the solve, and leaves the solve's numbers as they were."""
    params = MancheParams(chips=4, faces=3, throws=2)
    proofs = PoolProofs(params, decided_values(params))
    asked: list[int] = []
    calls = proofs.calls

    def counted(components, strategies, values):
        asked.append(components[0][0].pool)
        # only the pools solved so far are known to the proof
        assert all(s.pool <= asked[-1] for s in strategies)
        return calls(components, strategies, values)

    proofs.calls = counted                              # type: ignore[method-assign]
    beside = solve_manche(params, workers=workers, beside=proofs)
    alone = solve_manche(params, workers=workers)
    assert asked == sorted({c[0].pool for c in alone.components})
    assert beside.values == alone.values and beside.history == alone.history
    assert proofs.certificate().states == certify_manche(alone, workers=1).states
    assert beside.beside_seconds > 0 and alone.beside_seconds == 0


def test_a_pool_that_cannot_be_proved_beside_the_solve_stops_it(monkeypatch):
    """A proof's failure inside the solve is the certificate's error, not a wrong number:
    `prove_manche` exits 1 (SolverError) as when proving after the solve."""
    from solver.common.errors import SolverError
    from solver.manche import certify
    from solver.pipeline.manche import prove_manche

    monkeypatch.setattr(certify, "MARGINS", (-1e-3,))    # above the guarantee: never proves
    with pytest.raises(SolverError, match="could not be proved"):
        prove_manche(MancheParams(chips=3, faces=3, throws=2))


def test_the_double_oracle_solves_the_default_stages_from_pool_3():
    """Pool 3 of the default manche (4 032 betting rows) is solved on restricted trees,
    pool 2 (2 016) by one LP; with three faces and two throws, from pool 6 (2 560)."""
    from solver.manche.stage import base_model
    from solver.manche.stage_solve import DOUBLE_ORACLE_ROWS, uses_double_oracle

    default, small = MancheParams(), MancheParams(faces=3, throws=2)
    assert [uses_double_oracle(base_model(default, p)) for p in (2, 3)] == [False, True]
    assert [uses_double_oracle(base_model(small, p)) for p in (5, 6)] == [False, True]
    assert DOUBLE_ORACLE_ROWS < 4032


def test_a_stage_first_solved_by_the_double_oracle_starts_cold_from_default_start():
    """The first solve of a large stage is the double oracle from `default_start` (the
    pool below's trees were larger than needed: docs/manche.md, "Measured"), the
    same restricted trees and value as `double_oracle` run alone."""
    params = MancheParams(chips=6, faces=3, throws=2)      # pool 6: 2 560 betting rows
    state = MancheState(6, 0, 0)
    values = rough_values(params)
    solved = solve_stage(params, state, values, None)
    model = model_at(params, state, values)
    alone = double_oracle(model)
    assert solved.method.startswith("restricted LP")
    assert solved.start.kept == alone.kept
    assert solved.value == pytest.approx(alone.solution.value, abs=1e-12)
    assert alone.decisions < alone.full_decisions


def test_every_stage_solve_is_logged_and_newton_starts_from_the_pool_below():
    """`MancheSolution.tasks`: each played state solved once a round, from the mean of the
    two states of the pool below one chip away (no CFR guess), its last solve the one
    kept; each component took at least 2 rounds."""
    params = MancheParams(chips=4, faces=3, throws=2)
    solution = solve_manche(params, workers=1)
    assert first_guess(MancheState(2, 1, 1), solution.values) == pytest.approx(
        (solution.values[MancheState(1, 1, 2)] + solution.values[MancheState(1, 2, 1)]) / 2)
    assert first_guess(MancheState(1, 1, 2), solution.values) == 0.5    # pool 0: no state
    logged = [state for state, _, _ in solution.tasks]
    assert set(logged) == set(solution.stages)
    for state, stage in solution.stages.items():
        last = [method for s, _, method in solution.tasks if s == state][-1]
        assert last == stage.method
    for number, component in enumerate(solution.components):
        rounds = len(solution.history[number])
        assert rounds >= 2 and solution.history[number][-1] <= 1e-9
        assert all(logged.count(s) >= rounds for s in component)
        # the first round's residual is that of the stages solved at the guess
        guess = {s: first_guess(s, solution.values) for s in component}
        at = {**solution.values, **guess}
        first = max(abs(solve_stage(params, s, at, None).value - guess[s]) for s in component)
        assert solution.history[number][0] == pytest.approx(first, abs=1e-12)
