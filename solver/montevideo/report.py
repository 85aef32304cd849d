"""What a solved heads-up end says, as one JSON-ready document (`bidou montevideo --json` and
`--out`): the rules, every state's value with its proved interval, what the chips alone would
say (the captain's share), and each state's push-or-fold summary: with which final hand the
captain, leading the betting, goes all in at once, and with which the other player calls
that all in."""

from __future__ import annotations

from typing import Any

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT, Node
from games.montevideo.heads_up import MAX_ANTE, SHOW, HeadsUpParams, HeadsUpState
from solver.hand.exact.certificate import decimal, float_down, float_up
from solver.hand.reach import end_mass
from solver.hand.strategy import Strategy
from solver.montevideo.certify import HeadsUpCertificate
from solver.montevideo.solve import HeadsUpSolution
from solver.montevideo.stage import base_model

SCHEMA = "bidou-montevideo-heads-up"
SCHEMA_VERSION = 1
DIGITS = 15                      # the proved bounds' decimals, rounded outward
UNREACHED = None                 # a hand the captain never leads the betting with


def hand_order(params: HeadsUpParams) -> tuple[tuple[int, ...], list[str]]:
    """The hands' indices in the model, strongest first, and their names."""
    model = base_model(params, HeadsUpState(1, params.total - 1, MAX_ANTE))
    order = tuple(int(i) for i in np.argsort(-model.strength, kind="stable"))
    return order, [rules.format_hand(model.hands[i]) for i in order]


def push_fold(params: HeadsUpParams, state: HeadsUpState, strategy: Strategy
              ) -> dict[str, Any] | None:
    """P(the captain, leading the betting, goes all in at once | his final hand), P(the
    other player calls that all in | his) and the captain's likeliest first action when he
    leads, each averaged over the throw counts with the weight the strategies give them;
    None where nobody bets (a player is all in by the ante). Hands strongest first; None
    for a hand never met there."""
    model = base_model(params, state)
    if model.trees[CAPTAIN].root.actions == (SHOW,):
        return None
    n, T = model.num_hands, model.throws
    push, push_w, call, call_w = (np.zeros(n) for _ in range(4))
    root_actions = model.trees[CAPTAIN].root.actions
    opening = np.zeros((len(root_actions), n))
    captain_ends = end_mass(model, strategy.throw[CAPTAIN][0])
    for tc in range(1, T + 1):
        other_ends = end_mass(model, strategy.throw[OPPONENT][tc - 1])
        for to in range(1, T + 1):
            if model.description.betting.first_bettor(tc, to) != CAPTAIN:
                continue
            tree = model.tree((tc, to))
            root = tree.root
            assert root.actions == root_actions
            p = strategy.betting[(tc, to, "")][len(root.actions) - 1]
            weight = captain_ends[tc - 1] * other_ends[to - 1].sum()
            opening += weight[None, :] * strategy.betting[(tc, to, "")]
            push += weight * p
            push_w += weight
            facing = tree.child(root, root.actions[-1])
            if isinstance(facing, Node):
                q = strategy.betting[(tc, to, facing.history)][facing.actions.index("call")]
                weight = other_ends[to - 1] * float(captain_ends[tc - 1] @ p)
                call += weight * q
                call_w += weight
    order, _ = hand_order(params)

    def share(num: np.ndarray, den: np.ndarray) -> list[float | None]:
        return [round(float(num[i] / den[i]), 6) if den[i] > 1e-12 else UNREACHED
                for i in order]

    likeliest = [root_actions[int(np.argmax(np.round(opening[:, i] / push_w[i], 9)))]
                 if push_w[i] > 1e-12 else UNREACHED for i in order]
    return {"all_in": share(push, push_w), "call": share(call, call_w),
            "opening": likeliest, "all_in_bet": root_actions[-1]}


def shown_value(solution: HeadsUpSolution, certificate: HeadsUpCertificate,
                state: HeadsUpState) -> float:
    """The solved value, moved into its proved interval when the LP's rounding left it a
    few 1e-16 outside (the interval is the proof; the value is the solve's float)."""
    proof = certificate.states[state]
    low, high = float_up(proof.lower), float_down(proof.upper)
    if low > high:
        return float(proof.lower)
    return min(max(solution.values[state], low), high)


def state_entry(solution: HeadsUpSolution, certificate: HeadsUpCertificate,
                state: HeadsUpState) -> dict[str, Any]:
    """One state: its chips and ante, value and proved bounds, the chips' share, the stage's
    solve and its push-or-fold summary."""
    proof = certificate.states[state]
    value = shown_value(solution, certificate, state)
    stage = solution.stages[state]
    return {"captain": state.captain, "opponent": state.opponent, "ante": state.ante,
            "value": value,
            "lower": decimal(proof.lower, DIGITS, up=False),
            "upper": decimal(proof.upper, DIGITS, up=True),
            "width": float(proof.width),
            # what a best reply over the whole game gains against each seat's strategy,
            # beyond the value (in win probability)
            "captain_exploitability": max(0.0, value - float(proof.lower)),
            "other_exploitability": max(0.0, float(proof.upper) - value),
            "chip_share": state.captain / state.total,
            "stage": stage.method,
            "push_fold": push_fold(solution.params, state, stage.strategy)}


def heads_up_report(solution: HeadsUpSolution, certificate: HeadsUpCertificate
                    ) -> dict[str, Any]:
    """The rules, every state and how the proof went; no run time, so that solving again
    writes the same file."""
    states = sorted(solution.values, key=lambda s: (s.ante, s.captain))
    _, hands = hand_order(solution.params)
    entries = [state_entry(solution, certificate, s) for s in states]
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "rules": solution.params.to_dict(),
        "equilibrium": solution.equilibrium,
        "status": "every state proved",
        "max_width": certificate.max_width,
        "max_exploitability": {
            "captain": max(e["captain_exploitability"] for e in entries),
            "other": max(e["other_exploitability"] for e in entries)},
        "longest": certificate.longest,
        "margin": certificate.margin,
        "residuals": list(solution.residuals),
        "hands": hands,
        "states": entries,
    }
