"""A solved two-player vuelta of Bidú as a file: its summary and both exact strategies.

Every probability of the two strategies is a multiple of 2^-53 (solver/bidu/proof.py), so
the floats the file holds are the exact strategies, and reading them back gives the same
integers. What the file says of the value is not taken on trust: `read_solution` proves it
again from the strategies (their best replies over the whole vuelta, in exact arithmetic,
in about a second at the default dice) and refuses a file whose proof does not give the
interval it states, so a hand-edited probability or bound is caught. The file states no run
time, so that solving again on the same machine writes it byte for byte (another machine's
floats may pick another equilibrium: the same value).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from games.bidou import rules
from games.bidu.params import BiduParams
from games.parameters import ParameterError
from solver.bidu.model import VueltaModel, build_model
from solver.bidu.proof import ExactBehaviour, Q, guaranteed
from solver.bidu.solve import BiduSolution, proved
from solver.hand.exact.certificate import Certificate
from solver.hand.strategy import StrategyFileError
from solver.schemas import SchemaViolation, validate

__all__ = ["NAME", "SCHEMA", "SCHEMA_VERSION", "document", "load_json", "read_solution",
           "rules_of", "solution_text"]

SCHEMA = "bidou-bidu-solution"
SCHEMA_VERSION = 1
NAME = "bidu-solution.json"
MAX_BYTES = 16 * 2**20          # the default dice's file is about 0.9 MB


def rules_of(params: BiduParams) -> dict[str, Any]:
    return {"game": "bidu", **params.to_dict()}


def summary(solution: BiduSolution) -> dict[str, Any]:
    """What is known of the value, as JSON (the command's --json, the file's head)."""
    proof = Certificate(solution.lower, solution.upper)
    lower, upper = proof.decimals(16)
    return {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION,
        "rules": rules_of(solution.params),
        "method": "lp",
        "status": "optimal",
        "equilibrium": "plain LP vertex",
        "value": solution.estimate,
        "certified_value": {"lower": str(solution.lower), "upper": str(solution.upper),
                            "lower_decimal": lower, "upper_decimal": upper,
                            "width": float(proof.width),
                            "exact": None if proof.exact is None else str(proof.exact)},
        "captain_exploitability": solution.captain_exploitability,
        "opponent_exploitability": solution.other_exploitability,
        "replay_probability": float(solution.replay_probability),
        "newton_steps": solution.steps,
    }


def document(solution: BiduSolution) -> dict[str, Any]:
    """The file: the summary, then both seats' strategies: standing chances by throw, what
    is known of the other's stand and hand; betting by stand throws, node of the betting
    tree (numbered as `solver.bidu.model` builds it, its actions listed) and hand."""
    model = solution.model
    names = [rules.format_hand(h) for h in model.hands]
    seats = []
    for behaviour in solution.strategies:
        stand = [{"throw": t, "other_stood": pub,
                  "stand": {name: s / Q for name, s in zip(names, probs)}}
                 for (t, pub), probs in sorted(behaviour.stand.items(),
                                               key=lambda kv: (kv[0][0], kv[0][1] or 0))]
        bets = []
        for stands, nodes in sorted(behaviour.bets.items()):
            tree = model.tree(stands)
            for node, probs in sorted(nodes.items()):
                bets.append({"stands": list(stands), "node": node,
                             "actions": list(tree.labels[node]),
                             "play": {name: [int(v) / Q for v in probs[:, h]]
                                      for h, name in enumerate(names)}})
        seats.append({"seat": behaviour.seat, "stand": stand, "betting": bets})
    return {**summary(solution), "strategies": seats}


def solution_text(solution: BiduSolution) -> str:
    """`document` as JSON text with one line per decision (the file stays diffable: its
    115 000 probabilities on 600 lines, not one a line)."""
    doc = document(solution)
    head = [f" {json.dumps(key)}: {json.dumps(value, allow_nan=False)}"
            for key, value in doc.items() if key != "strategies"]
    seats = []
    for seat in doc["strategies"]:
        decisions = [f"    {json.dumps(entry, allow_nan=False)}"
                     for entry in seat["stand"]]
        bets = [f"    {json.dumps(entry, allow_nan=False)}" for entry in seat["betting"]]
        seats.append(f'  {{"seat": {seat["seat"]},\n   "stand": [\n'
                     + ",\n".join(decisions) + '\n   ],\n   "betting": [\n'
                     + ",\n".join(bets) + "\n   ]}")
    return ("{\n" + ",\n".join(head) + ',\n "strategies": [\n' + ",\n".join(seats)
            + "\n ]\n}\n")


def load_json(path: Path) -> Any:
    """The file's JSON, whatever it holds; StrategyFileError (one line) if it cannot be
    read as JSON or is larger than a solution can be."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise StrategyFileError(f"{path} is larger than a Bidú solution can be")
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise StrategyFileError(f"{path} is not a readable Bidú solution: {error}") from None


def read_solution(path: Path, params: BiduParams, doc: Any = None) -> BiduSolution:
    """The solution a file holds for `params` (`doc`: its JSON, if already read), its value
    proved again from its strategies; StrategyFileError (one line) if the file is
    unreadable, of other rules, or its strategies do not prove the interval it states."""
    if doc is None:
        doc = load_json(path)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA \
            or doc.get("schema_version") != SCHEMA_VERSION:
        raise StrategyFileError(f"{path} is not a {SCHEMA} version {SCHEMA_VERSION} file")
    try:
        validate(doc, "bidu-solution")
    except SchemaViolation as error:
        raise StrategyFileError(f"{path} is corrupt: {error}") from None
    if doc.get("rules") != rules_of(params):
        raise StrategyFileError(f"{path} was solved for other rules: {doc.get('rules')}")
    model = build_model(params)
    try:
        strategies = (_behaviour(model, 0, doc["strategies"][0]),
                      _behaviour(model, 1, doc["strategies"][1]))
        stated = Certificate(Fraction(doc["certified_value"]["lower"]),
                             Fraction(doc["certified_value"]["upper"]))
        start = Fraction(doc["value"])
        steps = int(doc["newton_steps"])
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError,
            ParameterError) as error:
        raise StrategyFileError(f"{path} is corrupt: {error}") from None
    lower = guaranteed(model, strategies[0], start)
    upper = guaranteed(model, strategies[1], start)
    if (lower, upper) != (stated.lower, stated.upper):
        raise StrategyFileError(f"{path}'s strategies do not prove the interval it states "
                                f"(they prove [{float(lower)!r}, {float(upper)!r}]): the "
                                f"file was changed after it was solved")
    solution = proved(params, model, strategies, lower, upper, steps, 0.0)
    computed = summary(solution)
    if computed != {key: doc.get(key) for key in computed}:
        raise StrategyFileError(f"{path}'s numbers are not those its strategies give: the "
                                f"file was changed after it was solved")
    return solution


def _integers(values: Any, count: int, what: str) -> list[int]:
    """Probabilities of one decision as integers over Q, checked exact and summing to Q
    when `count` > 1 (a list), or one probability in [0, 1]."""
    if not isinstance(values, list) or len(values) != count:
        raise ValueError(f"{what}: expected {count} probabilities")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
            raise ValueError(f"{what}: {v!r} is not a probability")
        scaled = Fraction(v) * Q
        if scaled.denominator != 1:
            raise ValueError(f"{what}: {v!r} is not a multiple of 2^-53")
        out.append(int(scaled))
    return out


def _behaviour(model: VueltaModel, seat: int, data: dict) -> ExactBehaviour:
    names = [rules.format_hand(h) for h in model.hands]
    if data.get("seat") != seat:
        raise ValueError(f"seat {seat} is missing")
    stand: dict = {}
    for entry in data["stand"]:
        key = (int(entry["throw"]), entry["other_stood"])
        if not 1 <= key[0] < model.throws or (key[1] is not None and not 1 <= key[1] < key[0]):
            raise ValueError(f"no decision to stand at {key}")
        stand[key] = [_integers([entry["stand"][n]], 1, f"stand {key} {n}")[0] for n in names]
    expected = {(t, pub) for t in range(1, model.throws) for pub in model.pubs(seat, t)}
    if set(stand) != expected:
        raise ValueError(f"seat {seat}'s standing decisions are not those of the rules")
    bets: dict = {stands: {} for stands in model.stand_pairs()}
    for entry in data["betting"]:
        stands = tuple(int(s) for s in entry["stands"])
        node = int(entry["node"])
        tree = model.tree(stands)  # type: ignore[arg-type]
        if node not in tree.parent_edge[seat] or entry["actions"] != list(tree.labels[node]):
            raise ValueError(f"no decision of seat {seat} at node {node} of {stands}")
        count = len(tree.labels[node])
        columns = [_integers(entry["play"][n], count, f"{stands} node {node} {n}")
                   for n in names]
        if any(sum(col) != Q for col in columns):
            raise ValueError(f"{stands} node {node}: probabilities do not sum to 1")
        probs = np.empty((count, len(names)), dtype=object)
        for h, col in enumerate(columns):
            probs[:, h] = col
        bets[stands][node] = probs
    for stands, nodes in bets.items():
        if set(nodes) != set(model.tree(stands).parent_edge[seat]):
            raise ValueError(f"seat {seat}'s betting decisions at {stands} are incomplete")
    return ExactBehaviour(seat, stand, bets)
