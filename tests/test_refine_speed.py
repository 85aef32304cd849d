"""What the refined equilibrium's speed-ups change, tested against what they replace: the
exact recovery's showdowns in integers, its second round keeping columns, the two players'
systems in two processes. Each must give the same numbers."""

import random
from fractions import Fraction

from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.hand.exact.equilibrium import ZERO, _eliminate, _Responder, _showdown_values, _total
from solver.hand.exact.recovery import as_pairs, can_fork, exact_limit, from_pairs
from solver.hand.lp.perturbed import solve_perturbed
from solver.hand.model import build_model
from solver.hand.refined.quasi_perfect import limit

SMALL = BidouParams(faces=3, throws=2, max_level=2)


def test_showdown_values_in_integers_are_the_fractions_sums():
    model = build_model(SMALL)
    responder = _Responder(model, None, OPPONENT)          # reads only the model here
    compare = model.compare.astype(int)
    rng = random.Random(7)
    n = model.num_hands
    for _ in range(20):
        reach = [Fraction(rng.randrange(0, 50), rng.choice([1, 3, 7, 36, 216]))
                 if rng.random() < 0.7 else Fraction(0) for _ in range(n)]
        pay = [Fraction(rng.randrange(-9, 10), rng.choice([1, 2, 3])) for _ in range(3)]
        naive = [sum((reach[y] * pay[compare[x][y]] for y in range(n)), Fraction(0))
                 for x in range(n)]
        assert _showdown_values(reach, pay, responder.beaten_by) == naive
        # one hand reached (a betting unknown's column): three shared products
        alone = [reach[y] if y == 5 else ZERO for y in range(n)]
        naive = [alone[5] * pay[compare[x][5]] for x in range(n)]
        assert _showdown_values(alone, pay, responder.beaten_by, responder.compare) == naive
        assert _showdown_values(alone, pay, responder.beaten_by) == naive


def test_sums_over_a_common_denominator_are_the_fractions_sums():
    rng = random.Random(11)
    for size in range(8):
        values = [Fraction(rng.randrange(-99, 100), rng.choice([1, 6, 36, 216, 7776, 35]))
                  if rng.random() < 0.8 else ZERO for _ in range(size)]
        assert _total(values) == sum(values, Fraction(0))
    assert _total([ZERO, ZERO]) is ZERO


def test_elimination_skipping_zeros_solves_the_system():
    # x + 2y = 3, 2x + 4y = 6 (a repeat), y - z = 0: z free, set to its guess 1/2
    rows = [[Fraction(1), Fraction(2), ZERO], [Fraction(2), Fraction(4), ZERO],
            [ZERO, Fraction(1), Fraction(-1)]]
    u = _eliminate(rows, [Fraction(3), Fraction(6), ZERO], [0.0, 0.0, 0.5])
    assert u == [Fraction(2), Fraction(1, 2), Fraction(1, 2)]
    assert _eliminate(rows, [Fraction(3), Fraction(7), ZERO], [0.0] * 3) is None


def test_the_childs_answer_as_integer_pairs_is_the_same_fractions():
    exact = {("bet", (1, 1, "p"), 3): [Fraction(2, 7), Fraction(5, 7)],
             ("throw", 1, 0, 0, 2): [Fraction(1), ZERO, Fraction(0)]}
    back = from_pairs(as_pairs(exact))
    assert back == exact and all(type(p) is Fraction for row in back.values() for p in row)


def test_recovery_in_two_processes_is_the_serial_one(monkeypatch):
    from solver.hand.exact import recovery

    model = build_model(SMALL)
    float_limit = limit(model, solve_perturbed(model, 1e-4).chosen, 1e-3)
    serial = exact_limit(model, float_limit, parallel=False)
    # forked even beside the threads an earlier test may have left (a Dask pool's)
    monkeypatch.setattr(recovery, "can_fork", lambda: True)
    assert exact_limit(model, float_limit, parallel=True) == serial


def test_no_fork_beside_other_threads():
    import threading

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not can_fork()
    finally:
        stop.set()
        thread.join()


def test_a_second_round_keeps_the_columns_its_switches_do_not_reach(monkeypatch):
    """The recovery's second round recomputes only the columns of unknowns that reach a
    public state where the responder's choice switched; the result is the full
    recomputation's, and on the faces-3 variant columns are kept in both players' rounds."""
    from solver.hand.exact import equilibrium as exact_equilibrium

    model = build_model(SMALL)
    float_limit = limit(model, solve_perturbed(model, 1e-4).chosen, 1e-3)
    kept: list[int] = []
    reuse = exact_equilibrium._unchanged_columns

    def recording(plan, columns, switched):
        found = reuse(plan, columns, switched)
        kept.append(len(found))
        return found

    monkeypatch.setattr(exact_equilibrium, "_unchanged_columns", recording)
    reused = exact_limit(model, float_limit, parallel=False)
    assert len(kept) == 2 and min(kept) > 0
    monkeypatch.setattr(exact_equilibrium, "_unchanged_columns", lambda *args: {})
    assert exact_limit(model, float_limit, parallel=False) == reused


def test_the_childs_recovery_error_reaches_the_caller(monkeypatch):
    """The opponent's system fails in the forked child: the caller gets its RecoveryError,
    with its reason, as from the serial recovery."""
    import pytest

    from solver.hand.exact import recovery
    from solver.hand.exact.equilibrium import RecoveryError

    model = build_model(BidouParams(faces=2, throws=1, max_level=1))
    float_limit = limit(model, solve_perturbed(model, 1e-4).chosen, 1e-3)
    solve_role = recovery.recover_role

    def failing(model, strategy, plans, role, progress):
        if role == OPPONENT:
            raise RecoveryError("the opponent's supports are not an equilibrium's")
        return solve_role(model, strategy, plans, role, progress)

    monkeypatch.setattr(recovery, "recover_role", failing)
    monkeypatch.setattr(recovery, "can_fork", lambda: True)
    for parallel in (True, False):
        with pytest.raises(RecoveryError, match="opponent's supports"):
            exact_limit(model, float_limit, parallel=parallel)


def test_a_failing_captain_does_not_wait_on_a_child_with_a_long_answer(monkeypatch):
    """The captain's system fails while the child still has an answer larger than a pipe
    holds (keep's is): the child is stopped, not joined while it blocks writing (that hung
    `bidou solve --reroll keep` at eta 1e-4), and the caller gets the captain's error."""
    import time

    import pytest

    from solver.hand.exact import recovery
    from solver.hand.exact.equilibrium import RecoveryError

    model = build_model(BidouParams(faces=2, throws=1, max_level=1))
    float_limit = limit(model, solve_perturbed(model, 1e-4).chosen, 1e-3)

    def captain_fails(model, strategy, plans, role, progress):
        if role == CAPTAIN:
            time.sleep(0.5)             # the child is writing its answer by now
            raise RecoveryError("the captain's supports are not an equilibrium's")
        return {("pad", i): [Fraction(1, 3)] * 8 for i in range(20000)}   # ~1 MB pickled

    monkeypatch.setattr(recovery, "recover_role", captain_fails)
    monkeypatch.setattr(recovery, "can_fork", lambda: True)
    with pytest.raises(RecoveryError, match="captain's supports"):
        exact_limit(model, float_limit, parallel=True)


def test_a_betting_unknown_moves_its_own_hand_only():
    """`_difference` computes a betting unknown's leaf reach change for its own hand only:
    on the faces-3 variant that is the full difference, for every unknown of both
    players (throwing ones, computed in full, included)."""
    from solver.hand.exact.equilibrium import _difference, both_plans

    model = build_model(SMALL)
    float_limit = limit(model, solve_perturbed(model, 1e-4).chosen, 1e-3)
    plans = both_plans(model, float_limit)
    kinds = set()
    for role in (CAPTAIN, OPPONENT):
        plan = plans[role]
        zero = [Fraction(0)] * len(plan.unknowns)
        base = plan.realize(zero)
        for k, (key, _) in enumerate(plan.unknowns):
            e = zero[:]
            e[k] = Fraction(1)
            publics = plan.publics(plan.unknowns[k])
            moved = plan.realize(e, publics, base.ends if key[0] == "bet" else None)
            full = {leaf: [a - b for a, b in zip(reach, base.leaf_reach[leaf])]
                    for leaf, reach in moved.leaf_reach.items()}
            found = _difference(moved.leaf_reach, base.leaf_reach, key)
            assert found == full
            kinds.add(key[0])
            assert any(any(row) for row in found.values())   # a unit vector moves something
    assert kinds == {"bet", "throw"}


def test_a_total_skipping_shared_zeros_is_the_sum():
    from solver.hand.exact.equilibrium import ZERO, _total

    rng = random.Random(11)
    for size in (0, 1, 2, 7):
        values = [ZERO if rng.random() < 0.5 else Fraction(rng.randrange(-20, 20),
                                                             rng.choice([1, 6, 36]))
                  for _ in range(size)]
        assert _total(values) == sum(values, Fraction(0))
    assert _total([ZERO, Fraction(0), Fraction(1, 3)]) == Fraction(1, 3)


def _tremble_rows_by_loops(model, space, player, eta):
    """tremble_rows as it was written before numpy built it: one row per (hand, action)
    of each decision, in that order (the reference the numpy version must equal)."""
    import scipy.sparse as sp

    from solver.hand.lp.sequence_form import last_sequences

    rows, cols, vals, count = [], [], [], 0
    decisions = [(space.throw[c, t], None) for c in range(space.throw.shape[0])
                 for t in range(space.throw.shape[1] - 1)]
    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        parents = last_sequences(space, tree, player, tc, to)
        decisions += [(space.betting[(tc, to, node.history)], parents[node.index])
                      for node in tree.nodes if node.actor == player]
    for index, parent in decisions:
        for h in range(index.shape[1]):
            legal = index[:, h][index[:, h] >= 0]
            if len(legal) < 2:
                continue
            for a in legal:
                if parent is None:
                    for b in legal:
                        rows.append(count)
                        cols.append(int(b))
                        vals.append((1.0 - eta) if b == a else -eta)
                else:
                    rows += [count, count]
                    cols += [int(a), int(parent[h])]
                    vals += [1.0, -eta]
                count += 1
    return sp.csr_matrix((vals, (rows, cols)), shape=(count, space.size))


def test_tremble_rows_built_by_numpy_are_the_loops_rows():
    """The same matrix, entry for entry (HiGHS then pivots the same way: the round's stage
    games and the published hands must not move), for both players, with and without
    throwing decisions of several actions."""
    import numpy as np

    from solver.hand.lp.perturbed import tremble_rows
    from solver.hand.lp.sequence_form import SequenceFormLP

    for params in (BidouParams(), BidouParams(reroll="keep"), SMALL,
                   BidouParams(faces=2, throws=1, max_level=1)):
        model = build_model(params)
        lp = SequenceFormLP(model, CAPTAIN)
        for space, player in ((lp.primal, CAPTAIN), (lp.dual, OPPONENT)):
            new = tremble_rows(model, space, player, 1e-4)
            old = _tremble_rows_by_loops(model, space, player, 1e-4)
            assert new.shape == old.shape and new.nnz == old.nnz > 0
            for part in ("indptr", "indices", "data"):
                assert np.array_equal(getattr(new, part), getattr(old, part)), part


def test_the_benchmarks_phases_find_every_step_of_the_refined_command(tmp_path):
    """`bench_refined.py --phases` times the refined command's steps where the pipeline
    looks them up: each is seen running (a renamed or moved step would stop its timed
    child, or show 0 s and put its time under `other` without a word). The benchmark runs
    as it runs itself: its timed child, in a process of its own, on a small hand."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_refined.py"
    out = tmp_path / "phases.json"
    rules = ["--faces", "2", "--throws", "1", "--max-level", "1"]
    done = subprocess.run([sys.executable, str(path), "--phases-child", json.dumps(rules),
                           str(out)], cwd=path.parents[1], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text())
    wall = {step: seconds for step, _, seconds in rows}
    assert [step for step, _, _ in rows][-1] == "whole command"
    # the rows the benchmark adds around its timed steps
    added = {"imports: the command line", "imports: the refined path", "perturbed LP: the rest",
             "exact recovery (its forked child)", "other", "whole command"}
    steps = [step for step, _, _ in rows if step not in added]
    assert len(steps) >= 10 and "model" in steps and "perturbed LP: HiGHS (linprog)" in steps
    # the LP itself is shown by parts; scipy's linprog runs only where the fast LP's limit
    # is not taken (not here: its check passes on this hand)
    for step in steps:
        assert (wall[step] == 0) == (step == "perturbed LP: HiGHS (linprog)"), step
    assert wall["whole command"] >= sum(wall[step] for step in steps if step != "model")
