"""The JSON file of a multi-hand solution: schema and version, the rules it was solved for,
how it was solved, every seat's value and certified gain, and the strategy itself (for
each decision point, public history and hand, the probability of each action)."""

from __future__ import annotations

from typing import Any

import numpy as np

from games.bidou import rules
from solver.multi.solve import MultiSolution
from solver.multi.tree import PublicTree

SCHEMA = "bidou-multi-strategy"
SCHEMA_VERSION = 1

CERTIFICATE = (
    "epsilon-equilibrium: no seat can gain more than `epsilon` chips per hand by deviating "
    "alone (each seat's exact best response against the others' fixed strategies, in "
    "floating point); with three or more players this does not make the values unique")


def summary(solution: MultiSolution) -> dict[str, Any]:
    """Everything the strategy file says but its hands and strategy: what a run printed."""
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
    }


def document(solution: MultiSolution) -> dict[str, Any]:
    """The strategy file: the summary, then each decision point's strategy by hand."""
    tree, sigma = solution.tree, solution.strategy
    hands = [rules.format_hand(h) for h in tree.hands]
    strategy: dict[str, dict[str, dict[str, float]]] = {}
    for start, end in zip(tree.edge_starts, list(tree.edge_starts[1:]) + [tree.num_edges]):
        node = int(tree.edge_parent[start])
        label = f"p{int(tree.node_player[node])} {tree.node_label[node]}"
        strategy[label] = {
            hand: {tree.edge_name[e]: round(float(sigma[e, i]), 9) for e in range(start, end)}
            for i, hand in enumerate(hands)}
    return {**summary(solution), "hands": hands, "strategy": strategy}


def strategy_of_document(doc: Any, tree: PublicTree) -> np.ndarray:
    """The strategy `sigma[e, h]` of a document written by `document`, on `tree` (built for
    the document's rules); ValueError naming the first decision point missing, for other
    actions, or whose probabilities are not a distribution (to the file's 9 decimals)."""
    hands = [rules.format_hand(h) for h in tree.hands]
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA \
            or doc.get("schema_version") != SCHEMA_VERSION or doc.get("hands") != hands:
        raise ValueError(f"not a {SCHEMA} version {SCHEMA_VERSION} file of these rules")
    table = doc.get("strategy")
    if not isinstance(table, dict):
        raise ValueError("its strategy is not an object of decision points")
    sigma = np.zeros((tree.num_edges, len(hands)))
    for start, end in zip(tree.edge_starts, list(tree.edge_starts[1:]) + [tree.num_edges]):
        node = int(tree.edge_parent[start])
        label = f"p{int(tree.node_player[node])} {tree.node_label[node]}"
        entry = table.get(label)
        names = tree.edge_name[start:end]
        if not isinstance(entry, dict) or not all(
                isinstance(entry.get(hand), dict) and sorted(entry[hand]) == sorted(names)
                for hand in hands):
            raise ValueError(f"the decision point {label!r} is missing or has other actions")
        for i, hand in enumerate(hands):
            sigma[start:end, i] = [_probability(entry[hand][name], label) for name in names]
        if np.max(np.abs(sigma[start:end].sum(axis=0) - 1)) > 1e-6 or sigma[start:end].min() < 0:
            raise ValueError(f"the probabilities at {label!r} are not a distribution")
    return sigma / np.add.reduceat(sigma, tree.edge_starts, axis=0)[tree.edge_group]


def _probability(value: Any, label: str) -> float:
    """A probability as the file must hold it: a JSON number (not a string such as "1",
    which float() would take, nor true), from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"a probability at {label!r} is not a number from 0 to 1: "
                         f"{ascii(value)[:40]}")
    return float(value)
