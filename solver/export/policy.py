"""Policy files: both players' strategies of an OpenSpiel game, per information state.

One JSON format for `bidou lp GAME --out` (any small OpenSpiel game) and `bidou
export-policy` (the solved strategy of a rule set, as a policy of `python_bidou(...)`):

    {"schema": "bidou-openspiel-policy", "schema_version": 1,
     "game": "<the string pyspiel.load_game takes>",
     "result": {... what was solved and proved ...},
     "players": [{"<information state string>": {"actions": [ids], "probabilities": [...],
                                                  "exact": ["1/3", ...]}, ...},   # player 0
                 {...}]}                                                          # player 1

`actions` are OpenSpiel action ids, `probabilities` floats summing to 1, `exact` (only
where an exact strategy is known) the same probabilities as fraction strings. The file
loads into `open_spiel.python.policy.TabularPolicy` with a few lines (docs/exports.md).
This module only shapes and writes the document; it imports no OpenSpiel.
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import Any, Mapping, Sequence

from solver.common.files import write_json_atomic

SCHEMA = "bidou-openspiel-policy"
SCHEMA_VERSION = 1

# player -> information state -> action id -> probability (float or Fraction)
PlayerPolicy = Mapping[str, Mapping[int, float | Fraction]]


def policy_document(game: str, players: Sequence[PlayerPolicy],
                    result: Mapping[str, Any]) -> dict[str, Any]:
    """The policy file's document: `players[i]` is player i's strategy; an information
    set whose probabilities are Fractions also gets its `exact` strings."""
    return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "game": game,
            "result": dict(result), "players": [_player(p) for p in players]}


def _player(policy: PlayerPolicy) -> dict[str, dict[str, Any]]:
    out = {}
    for key in sorted(policy):
        probs = policy[key]
        actions = sorted(probs)
        entry: dict[str, Any] = {"actions": actions,
                                 "probabilities": [float(probs[a]) for a in actions]}
        if all(isinstance(probs[a], Fraction) for a in actions):
            entry["exact"] = [str(probs[a]) for a in actions]
        out[key] = entry
    return out


def write_policy(path: str | os.PathLike, document: Mapping[str, Any]) -> None:
    """Write the document atomically (solver/common/files.py)."""
    write_json_atomic(path, document)


def players_from_tabular(tabular: Any) -> list[dict[str, dict[int, float]]]:
    """Both players' strategies read from an OpenSpiel TabularPolicy (duck-typed: its
    `states`, `state_lookup`, `legal_actions_mask` and `action_probability_array`), the
    legal actions of each state only."""
    players: list[dict[str, dict[int, float]]] = [{}, {}]
    for key, row in tabular.state_lookup.items():
        player = tabular.states[row].current_player()
        legal = [a for a, ok in enumerate(tabular.legal_actions_mask[row]) if ok]
        probs = tabular.action_probability_array[row]
        players[player][key] = {a: float(probs[a]) for a in legal}
    return players
