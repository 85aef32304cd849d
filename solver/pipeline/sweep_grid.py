"""The sweep's grid of rule sets and each rule set's key in a table: shared by `bidou sweep`,
which solves the grid, and the results pipelines, which read the table it wrote."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Mapping, Sequence

from games.bidou.params import RANKINGS, REROLL_MODES, BidouParams, ParameterError

RULE_COLUMNS = ("faces", "throws", "max_level", "reroll", "ranking", "aces_beat_bidou")

RuleKey = tuple[int, int, int, str, str, bool]


def parse_list(name: str, text: str) -> list[str]:
    """A comma-separated option value as its items; empty items are an error."""
    items = [item.strip() for item in str(text).split(",")]
    if not items or any(item == "" for item in items):
        raise ParameterError(f"--{name.replace('_', '-')} must be a comma-separated list of "
                             f"values, got {text!r}")
    return items


def build_grid(faces: str = "6", throws: str = "3", max_level: str = "4", reroll: str = "all",
               ranking: str = "encyclopedia", aces_beat_bidou: str = "true"
               ) -> list[BidouParams]:
    """Every rule set of the grid, validated (ParameterError names the first bad value).

    `aces_beat_bidou` only changes the French ranking: encyclopedia rule sets appear once,
    with the default flag, however many values it is given.
    """
    lists = {name: parse_list(name, text) for name, text in zip(
        RULE_COLUMNS, (faces, throws, max_level, reroll, ranking, aces_beat_bidou))}
    for name, allowed in (("reroll", REROLL_MODES), ("ranking", RANKINGS)):
        for value in lists[name]:
            if value not in allowed:
                raise ParameterError(f"--{name} values must be among {', '.join(allowed)}, "
                                     f"got {value!r}")
    distinct = {name: _distinct(name, lists[name]) for name in RULE_COLUMNS}
    grid: dict[BidouParams, None] = {}
    for values in itertools.product(*(distinct[name] for name in RULE_COLUMNS)):
        params = BidouParams.from_mapping(dict(zip(RULE_COLUMNS, values)))
        if params.ranking != "french":
            params = dataclasses.replace(params, aces_beat_bidou=BidouParams().aces_beat_bidou)
        grid[params] = None
    return list(grid)


def _distinct(name: str, items: Sequence[str]) -> list[Any]:
    """The list's values parsed and validated one by one (the first bad one named), each
    once: 300 copies of a value used to be multiplied out before the grid dropped them."""
    return list(dict.fromkeys(getattr(BidouParams.from_mapping({name: item}), name)
                              for item in items))


def rule_key(rules: Mapping[str, Any] | BidouParams) -> RuleKey:
    """The identity of a rule set in a table, whatever types the table read it as."""
    if isinstance(rules, BidouParams):
        rules = rules.to_dict()
    aces = rules["aces_beat_bidou"]
    if isinstance(aces, str):
        aces = aces.strip().lower() == "true"
    return (int(rules["faces"]), int(rules["throws"]), int(rules["max_level"]),
            str(rules["reroll"]), str(rules["ranking"]), bool(aces))
