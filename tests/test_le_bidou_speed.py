"""The double oracle's LPs solved warm (solver/hand/lp/warm.py): each LP of a grown restricted
tree starts from the last one's basis, carried over by the names of its columns and rows;
the LP is the same (same value as a cold solve), only its path is shorter."""

from __future__ import annotations

import pytest

from games.bidou.betting import CAPTAIN
from games.le_bidou.params import LeBidouParams
from solver.hand import best_response
from solver.hand.lp.restricted import _check_frontier, default_start, restricted_model
from solver.hand.lp.sequence_form import BuiltLP, solve_lp, solve_lp_from
from solver.hand.lp.warm import KeyedBasis, carry, lifted_guide, lp_keys, solve_grown
from solver.hand.model import build_model


@pytest.fixture(scope="module")
def grown():
    """faces 3, throws 2, max_stake 4: a restricted model and one grown from it."""
    model = build_model(LeBidouParams(faces=3, throws=2, max_stake=4).description())
    start = default_start(model)
    small = restricted_model(model, start)
    large = restricted_model(model, start | {"12", "13", "14", "123", "124"})
    return model, small, large


def test_every_column_and_row_has_its_own_name(grown):
    _, small, large = grown
    for model in (small, large):
        built = BuiltLP(model, CAPTAIN)
        cols, rows = lp_keys(model, built)
        assert len(cols) == len(set(cols)) == built.A_ub.shape[1]
        assert len(rows) == len(set(rows)) == built.A_ub.shape[0] + built.A_eq.shape[0]
    small_cols, small_rows = lp_keys(small, BuiltLP(small, CAPTAIN))
    large_cols, large_rows = lp_keys(large, BuiltLP(large, CAPTAIN))
    # the tree only grows: every column and row of the small LP is one of the large LP's
    assert set(small_cols) < set(large_cols) and set(small_rows) < set(large_rows)


def test_the_grown_lp_from_the_small_ones_basis_is_the_same_lp_by_a_shorter_path(grown):
    _, small, large = grown
    _, basis = solve_grown(small)
    warm, _ = solve_grown(large, basis)
    cold, _ = solve_lp_from(large, None)                    # HiGHS's dual simplex, cold
    assert warm.value == pytest.approx(solve_lp(large).value, abs=1e-10)
    assert warm.value == pytest.approx(cold.value, abs=1e-10)
    assert warm.iterations < 0.75 * cold.iterations          # measured: 347 against 664


def test_a_cold_lp_by_the_interior_point_method_ends_at_a_vertex_with_its_basis(grown):
    _, small, _ = grown
    ipm, basis = solve_grown(small)
    simplex, _ = solve_lp_from(small, None)
    assert "interior point and crossover" in ipm.message and ipm.iterations == 0
    assert ipm.value == pytest.approx(simplex.value, abs=1e-12)
    again, _ = solve_grown(small, basis)                    # its basis is optimal: no pivot
    assert again.iterations == 0 and again.value == pytest.approx(ipm.value, abs=1e-12)


def test_the_lifted_strategies_guide_a_start_that_already_holds_the_new_flows(grown):
    model, small, large = grown
    lp, basis = solve_grown(small)
    lifted, _ = _check_frontier(model, small, lp.strategy, lp.value,
                                best_response.leaf_matrices(model))
    built = BuiltLP(large, CAPTAIN)
    cols, rows = lp_keys(large, built)
    free = built.bounds[:, 0] == -float("inf")
    plain = carry(basis, cols, rows, free)
    crashed = carry(basis, cols, rows, free, lifted_guide(model, lifted))
    assert plain is not None and crashed is not None
    # as many basic variables as rows, some new rows traded for new columns
    assert (crashed.cols == 1).sum() + (crashed.rows == 1).sum() == len(rows)
    assert (crashed.rows == 1).sum() < (plain.rows == 1).sum()
    guided, _ = solve_grown(large, basis, lifted_guide(model, lifted))
    unguided, _ = solve_grown(large, basis)
    assert guided.value == pytest.approx(unguided.value, abs=1e-10)
    assert guided.iterations < unguided.iterations


def test_a_basis_that_names_what_the_lp_lacks_is_not_carried(grown):
    _, small, large = grown
    _, basis = solve_grown(large)
    built = BuiltLP(small, CAPTAIN)
    cols, rows = lp_keys(small, built)
    free = built.bounds[:, 0] == -float("inf")
    assert carry(KeyedBasis({}, {}), cols, rows, free) is not None   # all slacks: square
    # the large LP's basis keeps basic columns the small LP does not have
    assert carry(basis, cols, rows, free) is None


def test_exact_on_a_hand_too_large_for_one_lp_goes_through_the_restricted_model(monkeypatch):
    """`bidou solve --game le-bidou --exact` above one LP's reach (the default hand):
    the double oracle, then the exact equilibrium recovered on the restricted model and
    proved on the full one (`exact_lift`); here on a small variant made to take that
    route, at the full LP's exact value (tests/test_le_bidou_fast.py)."""
    from fractions import Fraction

    from solver.pipeline.hand import solve_hand

    monkeypatch.setattr("solver.hand.lp.restricted.ONE_LP_ROWS", 0)
    result = solve_hand(LeBidouParams(faces=3, throws=2, max_stake=3), exact=True)
    assert "restricted LP" in result.solution.message
    assert result.why_not is None and result.exact is not None
    proof = result.solution.certificate
    assert proof is not None and proof.exact == Fraction(1401991, 9447840)
    assert result.solution.exploitability.nash_conv <= 1e-12


def test_the_certificate_reads_the_betting_it_needs_and_proves_the_same_bounds():
    from solver.hand.exact import certificate
    from solver.hand.solve import solve

    model = build_model(LeBidouParams(faces=3, throws=2, max_stake=4).description())
    strategy = solve(model.description).strategy
    eager = certificate._prove(model, certificate._assemble(
        model, strategy, certificate._binary(model, strategy)), certificate.Q)
    lazily = certificate._binary_lazily(model, strategy)
    assert certificate._prove(model, lazily, certificate.Q) == eager
    assert certificate.certify(model, strategy) == eager
    betting = lazily[1]
    assert 0 < len(betting._read) < len(betting) == len(strategy.betting)
    for key in betting._read:           # what was read is `_binary`'s reading
        assert betting[key] == [certificate._binary(model, strategy)[("bet", key, h)]
                                for h in range(model.num_hands)]
        break
    broken = strategy.copy()
    key = next(iter(broken.betting))
    broken.betting[key][:, 0] = 0.0     # a decision of no distribution, read or not
    with pytest.raises(ValueError, match="sum to"):
        certificate.certify(model, broken)


def _dense_mix_matrix(w_end, w_raise, n):
    """`_lp_mix`'s matrix built the plain way, the reference for its sparse build: dense
    blocks stacked, then compressed (scipy drops the zeros)."""
    import numpy as np
    import scipy.sparse as sp

    m, R = len(w_end), len(w_raise)
    P = (m + R) * n
    nv = P + R * n + 1
    rows = [np.hstack([w.T for w in w_end] + [np.zeros((n, R * n))]
                      + [np.eye(n)] * R + [-np.ones((n, 1))])]
    for r, answers in enumerate(w_raise):
        for w in answers:
            row = np.zeros((n, nv))
            row[:, (m + r) * n:(m + r + 1) * n] = w.T
            row[:, P + r * n:P + (r + 1) * n] = -np.eye(n)
            rows.append(row)
    A_eq = np.hstack([np.eye(n)] * (m + R) + [np.zeros((n, R * n + 1))])
    return sp.csc_matrix(sp.vstack([sp.csr_matrix(np.vstack(rows)), sp.csr_matrix(A_eq)]))


def test_a_completions_lp_is_built_from_its_nonzeros_into_the_same_matrix(grown):
    """The completions' LPs (`_lp_mix`) reach HiGHS entry for entry as the dense build
    gave them, so HiGHS takes the same path and the double oracle the same rounds."""
    import numpy as np

    from solver.hand.lp import restricted

    model, small, _ = grown
    lp, _ = solve_grown(small)
    spots = restricted._spots(model, small, lp.strategy)
    payoffs: dict = {}
    built = 0
    for first, spot in spots:
        full = model.tree(spot.public)
        ends, end_values, raises, raise_values = restricted._options(
            model, full, spot, payoffs.setdefault(first, {}))
        if not raises:
            continue
        w_end = [spot.reach[:, None] * v for v in end_values]
        w_raise = [[spot.reach[:, None] * v for v in answers] for answers in raise_values]
        A, inequalities = restricted._mix_matrix(w_end, w_raise, model.num_hands)
        old = _dense_mix_matrix(w_end, w_raise, model.num_hands)
        assert inequalities == old.shape[0] - model.num_hands
        assert A.shape == old.shape
        assert np.array_equal(A.indptr, old.indptr) and np.array_equal(A.indices, old.indices)
        assert np.array_equal(A.data, old.data)
        built += 1
    assert built >= 10                   # spots with last raises, whose LPs have z blocks


def test_the_certificate_skips_zero_vectors_and_scaling_by_one_and_proves_the_same_bounds(
        monkeypatch):
    """`_rescale` leaves out the all-zero vectors (where the other player never goes) from
    the common denominator and copies no vector already over it: the same numbers, so
    the same proved bounds as the plain least common denominator of every vector."""
    import math
    from fractions import Fraction

    from solver.hand.exact import certificate
    from solver.hand.solve import solve

    vectors = [([0, 0, 0], 7 ** 9), ([1, 2, 3], 6), ([4, 0, 5], 4), ([6, 7, 8], 12)]
    scaled, den = certificate._rescale(vectors)
    assert den == 12 and scaled[3] is vectors[3][0]          # 12 already: not copied
    assert [[Fraction(x, den) for x in row] for row in scaled] == \
        [[Fraction(x, d) for x in nums] for nums, d in vectors]
    assert certificate._rescale([([0, 0], 5), ([0, 0], 9)]) == ([[0, 0], [0, 0]], 1)

    def plain(vectors):
        common = math.lcm(*(d for _, d in vectors))
        return [[x * (common // d) for x in nums] for nums, d in vectors], common

    model = build_model(LeBidouParams(faces=3, throws=2, max_stake=4).description())
    strategy = solve(model.description).strategy
    proof = certificate.certify(model, strategy)
    monkeypatch.setattr(certificate, "_rescale", plain)
    before = certificate.certify(model, strategy)
    assert (proof.lower, proof.upper) == (before.lower, before.upper)
    assert proof.upper - proof.lower < Fraction(1, 10 ** 12)


def test_a_completions_lp_reaches_highs_as_arrays_and_ends_where_a_highs_lp_does(grown):
    """`_highs_minimum` passes its arrays to HiGHS directly: the same LP as a HighsLp
    built attribute by attribute, so the same solution, bit for bit."""
    import highspy
    import numpy as np

    from solver.hand.lp import restricted

    def as_highs_lp(c, lower, upper, A, row_lower, row_upper):
        inf = highspy.kHighsInf
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
        lp.col_cost_ = c
        lp.col_lower_ = np.where(np.isinf(lower), -inf, lower)
        lp.col_upper_ = np.where(np.isinf(upper), inf, upper)
        lp.row_lower_ = np.where(np.isinf(row_lower), -inf, row_lower)
        lp.row_upper_ = np.where(np.isinf(row_upper), inf, row_upper)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = A.shape[1], A.shape[0]
        lp.a_matrix_.start_, lp.a_matrix_.index_ = A.indptr, A.indices
        lp.a_matrix_.value_ = A.data
        h = highspy._Highs()
        for option, value in (("output_flag", False), ("solver", "simplex"),
                              ("simplex_strategy", 1)):
            h.setOptionValue(option, value)
        h.passModel(lp)
        h.run()
        return np.asarray(h.getSolution().col_value)

    model, small, _ = grown
    lp, _ = solve_grown(small)
    calls = []
    solve = restricted._highs_minimum

    def both(*args):
        calls.append((solve(*args), as_highs_lp(*args), args))
        return calls[-1][0]

    restricted._highs_minimum = both
    try:
        restricted._completions(model, restricted._spots(model, small, lp.strategy))
    finally:
        restricted._highs_minimum = solve
    assert len(calls) >= 5
    for direct, attributes, (c, lower, upper, A, row_lower, row_upper) in calls:
        assert np.array_equal(direct, attributes)
        activity = A @ direct                            # a feasible point of the LP
        assert (row_lower - 1e-9 <= activity).all() and (activity <= row_upper + 1e-9).all()
        assert (lower - 1e-9 <= direct).all() and (direct <= upper + 1e-9).all()
