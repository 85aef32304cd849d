"""What a solved manche says, as one JSON-ready document (`bidou manche --json` / `--out`):
the keys of `bidou round --json` (solver/round/report.py), the pool in `centre`, each
player's received chips in `captain` and `opponent`, plus what a manche adds: the match,
each state's tie probabilities and how its stage was solved."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from games.le_bidou.manche import MancheState, match_win, start
from solver.hand.exact.certificate import decimal, float_down, float_up
from solver.hand.result import versions
from solver.manche.certify import MancheCertificate
from solver.manche.solve import MancheSolution

SCHEMA = "bidou-manche"
SCHEMA_VERSION = 1


def state_entry(solution: MancheSolution, certificate: MancheCertificate,
                state: MancheState) -> dict[str, Any]:
    """One state: its chips, value, proved bounds, each side's exploitability (what a best
    reply over the whole manche gains against that seat's strategy, in win probability),
    P(the manche ends) and, for a state played, its tie bound and stage solve."""
    proof = certificate.states[state]
    value = shown_value(solution, certificate, state)
    stage = solution.stages.get(state)
    return {"centre": state.pool, "captain": state.first, "opponent": state.second,
            "open_throw": False,
            "value": value,
            "lower": decimal(proof.lower, 15, up=False),
            "upper": decimal(proof.upper, 15, up=True),
            "width": float(proof.width),
            "exploitability": max(0.0, value - float(proof.lower), float(proof.upper) - value),
            "captain_exploitability": max(0.0, value - float(proof.lower)),
            "opponent_exploitability": max(0.0, float(proof.upper) - value),
            "p_end": 1.0,
            "decided": stage is None,
            "max_tie": float(proof.tie_bound),
            "stage": None if stage is None else stage.method,
            "stage_seconds": None if stage is None else stage.seconds}


def shown_value(solution: MancheSolution, certificate: MancheCertificate,
                state: MancheState) -> float:
    """The solved value, moved into its proved interval when the LP's rounding left it a
    few 1e-16 outside (the interval is the proof; the value is the solve's float)."""
    proof = certificate.states[state]
    low, high = float_up(proof.lower), float_down(proof.upper)     # floats inside it
    if low > high:                      # no float inside: the nearest to the interval
        return float(proof.lower)
    return min(max(solution.values[state], low), high)


def match_entry(solution: MancheSolution, certificate: MancheCertificate) -> dict[str, Any]:
    """P(the first manche's first player wins the match), its proved interval (the match
    value increases with the manche's), under the rule naming the later first players."""
    rule = solution.params.match_start
    first = certificate.states[start(solution.params.chips)]
    lower, upper = match_win(first.lower, rule), match_win(first.upper, rule)
    return {"match_start": rule,
            "value": float(match_win(Fraction(shown_value(
                solution, certificate, start(solution.params.chips))), rule)),
            "lower": decimal(lower, 15, up=False), "upper": decimal(upper, 15, up=True),
            "width": float(upper - lower),
            "by_die": 0.5}


def manche_report(solution: MancheSolution, certificate: MancheCertificate,
                  seconds: float, prove_seconds: float) -> dict[str, Any]:
    """The rules, the first player's chance, every state, the match, and the provenance."""
    first = start(solution.params.chips)
    states = sorted(solution.values, key=lambda s: (-s.pool, s.first, s.second))
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "rules": solution.params.to_dict(),
        "start_value": shown_value(solution, certificate, first),
        "start_lower": decimal(certificate.states[first].lower, 15, up=False),
        "start_upper": decimal(certificate.states[first].upper, 15, up=True),
        "max_width": certificate.max_width,
        "min_p_end": 1.0,
        "states": [state_entry(solution, certificate, s) for s in states],
        "equilibrium": "plain LP vertex",
        "seconds": seconds,
        "solve_seconds": solution.seconds,
        "prove_seconds": prove_seconds,
        "convergence": [{"states": [s.label() for s in component], "residuals": residuals,
                         "seconds": seconds}
                        for component, residuals, seconds in zip(
                            solution.components, solution.history.values(),
                            solution.component_seconds)],
        "match": match_entry(solution, certificate),
        "versions": versions(),
    }
