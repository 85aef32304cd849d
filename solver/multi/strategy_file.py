"""The JSON file of a multi-hand solution: schema and version, the rules it was solved for,
how it was solved, every seat's value and certified gain, and the strategy itself (for
each decision point, public history and hand, the probability of each action)."""

from __future__ import annotations

from typing import Any

from games.bidou import rules
from solver.multi.solve import MultiSolution

SCHEMA = "bidou-multi-strategy"
SCHEMA_VERSION = 1

CERTIFICATE = (
    "epsilon-equilibrium: no seat can gain more than `epsilon` chips per hand by deviating "
    "alone (each seat's exact best response against the others' fixed strategies, in "
    "floating point); with three or more players this does not make the values unique")


def document(solution: MultiSolution) -> dict[str, Any]:
    tree, sigma = solution.tree, solution.strategy
    hands = [rules.format_hand(h) for h in tree.hands]
    strategy: dict[str, dict[str, dict[str, float]]] = {}
    for start, end in zip(tree.edge_starts, list(tree.edge_starts[1:]) + [tree.num_edges]):
        node = int(tree.edge_parent[start])
        label = f"p{int(tree.node_player[node])} {tree.node_label[node]}"
        strategy[label] = {
            hand: {tree.edge_name[e]: round(float(sigma[e, i]), 9) for e in range(start, end)}
            for i, hand in enumerate(hands)}
    gains = solution.gains
    return {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION,
        "game": solution.params.to_game_string(),
        "rules": solution.params.to_dict(),
        "solver": {"method": solution.variant, "engine": solution.engine,
                   "iterations": solution.iterations,
                   "seconds": round(solution.seconds, 3)},
        "values": list(gains.values), "best_response_values": list(gains.best),
        "gains": list(gains.gains), "nash_conv": gains.nash_conv, "epsilon": gains.epsilon,
        "certificate": CERTIFICATE,
        "openspiel_check": solution.openspiel,
        "curve": solution.curve,
        "hands": hands,
        "strategy": strategy,
    }
