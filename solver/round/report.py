"""What a solved round says, as one JSON-ready document (`bidou round --json` / `--out`)."""

from __future__ import annotations

from typing import Any

from solver.hand.exact.certificate import decimal
from solver.hand.result import versions
from solver.round.certify import RoundCertificate
from solver.round.solve import RoundSolution
from solver.round.states import ChipState, OpenThrowState, State, start

SCHEMA = "bidou-round"
SCHEMA_VERSION = 1


def state_entry(solution: RoundSolution, certificate: RoundCertificate,
                state: State) -> dict[str, Any]:
    """One state: its chips (the captain's pile first; at an open throw the first
    thrower's), value, certified bounds, each side's exploitability, P(the round ends)."""
    proof = certificate.states[state]
    where: dict[str, Any]
    if isinstance(state, OpenThrowState):
        where = {"centre": state.centre, "captain": state.low, "opponent": state.high,
                 "open_throw": True}
    else:
        where = {"centre": state.centre, "captain": state.captain,
                 "opponent": state.opponent, "open_throw": False}
    return {**where,
            "value": solution.values[state],
            "lower": decimal(proof.lower, 15, up=False),
            "upper": decimal(proof.upper, 15, up=True),
            "width": float(proof.width),
            "exploitability": max(proof.first_exploitability, proof.second_exploitability),
            "captain_exploitability": proof.first_exploitability,
            "opponent_exploitability": proof.second_exploitability,
            "p_end": proof.p_end}


def round_report(solution: RoundSolution, certificate: RoundCertificate,
                 seconds: float) -> dict[str, Any]:
    """The rules, the first captain's chance, every state, and the provenance."""
    first = start(solution.params.chips)
    states = sorted(solution.values, key=_order)
    widths = [float(certificate.states[s].width) for s in states]
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "rules": solution.params.to_dict(),
        "start_value": solution.values[first],
        "start_lower": decimal(certificate.states[first].lower, 15, up=False),
        "start_upper": decimal(certificate.states[first].upper, 15, up=True),
        "max_width": max(widths),
        "min_p_end": min(certificate.states[s].p_end for s in states),
        "states": [state_entry(solution, certificate, s) for s in states],
        "equilibrium": solution.equilibrium,
        "seconds": seconds,
        "solve_seconds": solution.seconds,
        "convergence": convergence(solution),
        "versions": versions(),
    }


def convergence(solution: RoundSolution) -> list[dict[str, Any]]:
    """Each cyclic component's residuals max |stage value - V|, one per round of stage
    solves (the first after the CFR guess; the last below solve.STOP_RESIDUAL)."""
    out = []
    for number, component in enumerate(solution.components):
        residuals = solution.history.get(number, [])
        if len(residuals) > 1:
            out.append({"states": [s.label() for s in component], "residuals": residuals})
    return out


def _order(state: State) -> tuple[int, int, int, int]:
    if isinstance(state, ChipState):
        return (-state.centre, 0, state.captain, state.opponent)
    return (-state.centre, 1, state.low, 0)
