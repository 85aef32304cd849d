"""The "multi" part of docs/data/results.json, docs/results.md's multi-hand section: the
numbers of `bidou multi` runs, read from their files (`solver.export.multi_section` renders
them; `python -m solver.app.multi_results` puts them in the document).

A strategy file of the default game holds 1.2e7 probabilities (388 MB): only its summary is
read (`summary_of`), never the strategy; outputs/multi/ publishes that summary alone. The
four-player numbers are docs/multi.md's (benchmarks/bench_multi.py), recorded here as they
are (FOUR_PLAYERS).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from solver.multi import solution_file

# docs/multi.md, "The C kernel and the default game": four players, six faces, one throw
# each (the largest four-player game the kernel holds), 368 iterations of alt-cfr+2, and
# four players on faces=2 (CFR+).
FOUR_PLAYERS = {
    "command": "python benchmarks/bench_multi.py --variants four --seconds 600",
    "faces": 6, "throws": 1, "iterations": 368, "epsilon": 0.00397,
    "values": [0.0899, 0.0946, 0.1051, 0.1418],
    # The default dice, one profile (not an equilibrium): the one-throw betting relabelled
    # from the leader, every seat's best stops against the folk rule; the streaming exact
    # best response (solver/multi/four_stream.py, docs/multi.md).
    "default_dice": {
        "command": "python benchmarks/bench_multi.py --variants four-default --iterations 368 "
                   "--improve",
        "epsilon": 0.2099, "values": [0.1028, 0.1004, 0.1072, 0.1252]}}
# The fields of a run's file that the section reads (`summary_of`).
SUMMARY = ("game", "rules", "solver", "values", "best_response_values", "gains",
           "nash_conv", "epsilon", "play", "whole_game")


def summary_of(path: Path) -> dict[str, Any]:
    """The fields the section reads of a run's strategy file, or of its summary
    (`solution_file.NAME`, as published in outputs/multi/)."""
    if path.name == solution_file.NAME:
        doc = json.loads(path.read_text(encoding="utf-8"))
    else:
        doc = solution_file.solution_of_strategy_file(path)
    return {key: doc.get(key) for key in SUMMARY}


def part_of(default: Optional[Path], poor_fish: Optional[Path], whole: Optional[Path],
            two_player: Optional[Path], whole_command: str = "",
            kept: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """The "multi" part of docs/data/results.json from the runs' files: each run given
    replaces its entry of `kept` (the part as it was), the others are kept as they are."""
    part: dict[str, Any] = dict(kept or {}, four=FOUR_PLAYERS)
    if default is not None:
        part["default"] = summary_of(default)
    if poor_fish is not None:
        part["poor_fish"] = summary_of(poor_fish)
    if whole is not None:
        w = summary_of(whole)["whole_game"]
        part["whole"] = dict(w, command=whole_command)
    if two_player is not None:
        part["two_player"] = json.loads(two_player.read_text())
    for key in ("default", "poor_fish"):
        if key in part:
            part[key].pop("whole_game", None)
    return part
