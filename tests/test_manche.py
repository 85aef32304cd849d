"""The manche of Le Bidou (solver/manche/, games/le_bidou/manche.py): its rules as
functions, every state solved and proved, invariants, the match, the report's schema."""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest

from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import ParameterError
from games.le_bidou.manche import (
    After,
    MancheParams,
    MancheState,
    after_hand,
    all_states,
    decided,
    match_win,
    start,
)
from solver.manche.solve import components
from solver.pipeline.manche import prove_manche


@functools.lru_cache(maxsize=None)
def proved(chips: int, faces: int = 3, throws: int = 1, **rules):  # type: ignore[no-untyped-def]
    return prove_manche(MancheParams(chips=chips, faces=faces, throws=throws, **rules))


def test_nine_chips_make_45_states_of_which_25_are_played():
    states = all_states(9)
    assert len(states) == len(set(states)) == 45
    assert sum(decided(s) is None for s in states) == 25
    assert sum(len(c) for c in components(9)) == 25
    assert decided(MancheState(4, 5, 0)) == 0 and decided(MancheState(4, 0, 5)) == 1
    assert decided(MancheState(5, 2, 2)) is None


def test_a_hand_leads_where_the_rules_say():
    s = MancheState(5, 1, 3)
    # the second player receives 2: the first player, who received none, is first again
    assert after_hand(s, OPPONENT, 2) == After(MancheState(3, 1, 5), same=True)
    # the first player receives 2: the other is first next, and the chips follow him
    assert after_hand(s, CAPTAIN, 2) == After(MancheState(3, 3, 3), same=False)
    # a tie: nobody receives, the two swap
    assert after_hand(s, None, 0) == After(MancheState(5, 3, 1), same=False)
    # the pool empties: fewer chips wins (1 + 5 against 3: the old first player lost)
    assert after_hand(s, CAPTAIN, 5) == After(None, end=Fraction(0))
    assert after_hand(s, OPPONENT, 5) == After(None, end=Fraction(1))
    with pytest.raises(ValueError):
        after_hand(s, CAPTAIN, 6)


def test_the_match_value():
    m = Fraction(3, 5)
    assert match_win(m, "die") == Fraction(1, 4) + m / 2
    assert match_win(m, "winner") == m ** 2 + 2 * m * (1 - m) ** 2
    assert match_win(m, "loser") == 2 * m - 3 * m ** 2 + 2 * m ** 3
    for rule in ("winner", "loser", "die"):
        assert match_win(Fraction(1, 2), rule) == Fraction(1, 2)
    # a sure manche wins the match when its winner starts again; a die leaves 3/4
    assert [match_win(Fraction(1), rule) for rule in ("winner", "loser", "die")] == [
        1, Fraction(1), Fraction(3, 4)]


def test_bad_rules_are_refused():
    with pytest.raises(ParameterError, match="chips"):
        MancheParams(chips=10)
    with pytest.raises(ParameterError, match="above the pool"):
        MancheParams(chips=5, max_stake=6)
    with pytest.raises(ParameterError, match="max_stake"):
        MancheParams(max_stake=0)


def test_every_state_is_proved_and_holds_its_value():
    report = proved(5).report
    assert len(report["states"]) == 15
    assert report["max_width"] < 1e-12
    for entry in report["states"]:
        # the solve's float, inside its interval (moved there if rounding left it outside)
        assert float(entry["lower"]) - 1e-15 <= entry["value"] <= float(entry["upper"]) + 1e-15
        state = MancheState(entry["centre"], entry["captain"], entry["opponent"])
        proof = proved(5).certificate.states[state]
        assert proof.lower <= Fraction(entry["value"]) <= proof.upper
        assert entry["exploitability"] < 1e-12
        if not entry["decided"]:
            assert 0 < entry["max_tie"] < 1
    assert float(report["start_lower"]) <= report["start_value"] <= float(report["start_upper"])
    # the last residual of every component is at the LPs' noise
    assert all(c["residuals"][-1] < 1e-9 for c in report["convergence"])


def test_chips_received_by_both_do_not_matter():
    """(pool, a + k, b + k) plays as (pool, a, b): only the difference decides, and the
    five-chip manche from 1 chip each is the three-chip manche (two solves, two models)."""
    five, three = proved(5).solution.values, proved(3).solution.values
    assert five[MancheState(3, 1, 1)] == pytest.approx(three[start(3)], abs=1e-11)
    assert five[MancheState(2, 1, 2)] == pytest.approx(three[MancheState(2, 0, 1)], abs=1e-11)


def test_the_certificate_measures_the_strategies_not_the_values():
    """With the start's stage strategy replaced by a rough one (20 CFR iterations), the
    proof must widen (what that strategy concedes) and still hold the true value."""
    import dataclasses

    from solver.hand.cfr.iterations import RULES, CFRSolver
    from solver.manche.certify import certify_manche

    solution = proved(3).solution
    s = start(3)
    stage = solution.stages[s]
    cfr = CFRSolver(stage.model, RULES["pcfr+"], engine="numpy")
    cfr.run(20)
    rough = dataclasses.replace(solution, stages={
        **solution.stages, s: dataclasses.replace(stage, strategy=cfr.average_strategy())})
    proof = certify_manche(rough).states[s]
    assert 1e-7 < float(proof.width) < 0.2
    assert proof.lower <= Fraction(solution.values[s]) <= proof.upper
    # the states below the start keep their narrow proofs
    assert float(certify_manche(rough).states[MancheState(2, 0, 1)].width) < 1e-12


def test_the_report_follows_its_schema_and_the_rounds_keys():
    from solver.schemas import validate

    report = proved(3).report
    validate(report, "manche")
    round_keys = {"schema", "schema_version", "rules", "start_value", "start_lower",
                  "start_upper", "max_width", "min_p_end", "states", "equilibrium",
                  "seconds", "solve_seconds", "convergence", "versions"}
    assert round_keys <= set(report)
    assert {"centre", "captain", "opponent", "open_throw", "value", "lower", "upper",
            "width", "exploitability", "captain_exploitability", "opponent_exploitability",
            "p_end"} <= set(report["states"][0])


def test_an_even_manche_counts_a_tie_as_half():
    report = proved(2).report
    ends = {(e["centre"], e["captain"], e["opponent"]): e for e in report["states"]}
    assert ends[(1, 1, 0)]["decided"] is False      # 1-0: whoever receives the last chip
    assert 0 < ends[(2, 0, 0)]["value"] < 1


def test_one_chip_and_one_throw_is_a_fair_coin_with_the_ties_of_the_dice():
    """One chip: the second player never withdraws (receiving it loses), so the manche is
    a race to the higher hand, a tie swapping the seats: V = (1 - t) / 2 + t (1 - V) gives
    V = 1/2 whatever t. With one throw nobody can change t = sum of P(hand)^2, 31/243 for
    three-faced dice, which the certificate's tie bound must find exactly."""
    result = proved(1, faces=3, throws=1)
    proof = result.certificate.states[start(1)]
    assert proof.lower <= Fraction(1, 2) <= proof.upper and float(proof.width) < 1e-14
    assert proof.tie_bound == Fraction(31, 243)
