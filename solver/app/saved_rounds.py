"""The saved round a command answers from, shared by `bidou round`, `bidou exploit --round`
and `bidou play --round`: a chip state read from `--state` and checked before any work,
the saved round of some rules (published in the source checkout's outputs/round*/, else
the user's cache), or the round solved, proved and saved now."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import click

from games.bidou.params import ParameterError
from solver.common.errors import SolverError


def parse_state(text: str, chips: int) -> tuple[int, int, int]:
    """--state "C,CAPTAIN,OPPONENT" -> (centre, captain, opponent) as the report lists it
    (at an open throw the first thrower's pile first), or a one-line ParameterError."""
    parts = text.split(",")
    # ASCII digits only: str.isdigit() takes "²" or "٣", which int() then refuses
    if len(parts) != 3 or not all(p.strip().isascii() and p.strip().isdigit()
                                  and len(p.strip()) <= 6 for p in parts):
        raise ParameterError(f"--state must be three chip counts CENTRE,CAPTAIN,OPPONENT "
                             f"(whole numbers >= 0), got {text!r}")
    centre, captain, opponent = (int(p) for p in parts)
    if centre + captain + opponent != chips:
        raise ParameterError(f"--state {text}: the chips add up to "
                             f"{centre + captain + opponent}, not {chips} (--chips)")
    if chips in (captain, opponent):
        raise ParameterError(f"--state {text}: the round is over (a pile holds every chip)")
    if chips - 1 in (captain, opponent):          # an open throw: the first thrower first
        captain, opponent = sorted((captain, opponent))
    return centre, captain, opponent


def check_state(rules: Any, wanted: tuple[int, int, int], state_text: str) -> None:
    """A state no round with these rules reaches: one line, before any solving."""
    from solver.round.capped import state_of
    from solver.round.states import state_graph

    state = state_of(rules.chips, *wanted)
    if state not in state_graph(rules.chips, rules.hand.max_level):
        raise ParameterError(f"--state {state_text} cannot arise in a round with these rules")


# The most a published round.json or cheat sheet strategy is read for its rules (both are
# a few hundred kB at most).
SMALL_FILE_BYTES = 16 * 2**20


def outputs_root() -> Path:
    """The source checkout's outputs/ folder (an installed copy has none: no such path)."""
    return Path(__file__).resolve().parents[2] / "outputs"


def _published_candidates(rules: Any) -> list[Path]:
    """The saved rounds of the source checkout's outputs/round*/ whose report (round.json,
    a small file) names these rules: the published rule sets."""
    from solver.round.store import FILE_NAME

    outputs = outputs_root()
    found = []
    for folder in sorted(outputs.glob("round*")) if outputs.is_dir() else []:
        if _rules_in(folder / "round.json") == rules.to_dict() \
                and (folder / FILE_NAME).is_file():
            found.append(folder / FILE_NAME)
    return found


def _rules_in(path: Path) -> Any:
    """The "rules" of a small published JSON file, or None if it cannot be read: read by
    the bounded reader, so that a FIFO or a device there is passed over, never opened to
    block or read without end."""
    from solver.common.files import read_input_file, strict_json

    try:
        return strict_json(read_input_file(path, SMALL_FILE_BYTES)).get("rules")
    except (OSError, ValueError, AttributeError):
        return None


def published_hand_sheet(hand: Any) -> Path | None:
    """The published hand cheat sheet (outputs/<variant>/cheatsheet.md) of these hand
    rules, or None."""
    outputs = outputs_root()
    for folder in sorted(outputs.iterdir()) if outputs.is_dir() else []:
        found = _rules_in(folder / "cheatsheet_strategy.json")
        if found == hand.to_dict() and (folder / "cheatsheet.md").is_file():
            return folder / "cheatsheet.md"
    return None


def read_saved(rules: Any, strategies: bool, equilibrium: str | None = None) -> Any:
    """The saved round of these rules (published, else the user's cache), or None; a file
    that cannot be used is named on stderr, with why, and passed over (so is, when an
    `equilibrium` is asked for, `store.REFINED` or `store.PLAIN`, one holding the other).
    With `strategies` its stage strategies are read (and checked) too."""
    import dataclasses

    from solver.round.store import SavedRoundError, equilibrium_of, load

    for path in _candidates(rules):
        try:
            saved = load(path, rules)
            if equilibrium is not None and equilibrium_of(saved.report) != equilibrium:
                raise SavedRoundError(f"{path} holds {_stage_kind(saved.report)}, not "
                                      f"{_stage_kind({'equilibrium': equilibrium})}")
            return dataclasses.replace(saved, kept=saved.stages()) if strategies else saved
        except FileNotFoundError:
            continue
        except SavedRoundError as error:
            click.echo(f"bidou: note: {error}; not used", err=True)
    return None


def _candidates(rules: Any) -> Iterator[Path]:
    """The published saved rounds of these rules, then the user's cache file, whose folder
    is checked only when it is reached (DestinationError if it is unsafe: one line)."""
    from solver.round.store import NoCacheFolder, checked_cache_path

    yield from _published_candidates(rules)
    try:
        yield checked_cache_path(rules)
    except NoCacheFolder:
        return


def _stage_kind(report: dict[str, Any]) -> str:
    """What a report's stage strategies are, in words."""
    from solver.round.store import REFINED, equilibrium_of

    return ("the refined stage equilibria" if equilibrium_of(report) == REFINED
            else "the stage LPs' vertices")


def solve_and_save(rules: Any, progress: Any, plain: bool = False) -> tuple[Any, Any]:
    """Solve and prove the round, then keep it in the user's cache (a cache that cannot be
    written is a note, not a failure): the proved round and the saved round. With `plain`
    the stage games keep the LPs' vertices (not refined)."""
    from solver.common.files import DestinationError
    from solver.pipeline.round import prove_round, saved_round
    from solver.round.store import (
        FILE_NAME,
        NoCacheFolder,
        SavedRoundError,
        checked_cache_path,
        in_memory,
        load,
        save,
    )

    try:                     # before the work: an unsafe cache is refused (DestinationError)
        path: Path | None = checked_cache_path(rules)
    except NoCacheFolder as error:
        click.echo(f"bidou: note: {error}; the solved round is not kept", err=True)
        path = None
    proved = prove_round(rules, progress=progress, refined=not plain)
    try:
        files = saved_round(proved, path or Path(FILE_NAME), progress=progress)
    except SolverError as error:          # the hand's equilibrium, for the advice
        click.echo(f"bidou: note: the solved round was not saved: {error}", err=True)
        return proved, _unsaved(rules, proved)
    if path is None:
        return proved, in_memory(rules, files)
    try:
        save(files)
        return proved, load(path, rules)
    except (DestinationError, OSError, SavedRoundError) as error:
        click.echo(f"bidou: note: the solved round was not saved: {error}", err=True)
        return proved, in_memory(rules, files)


def _unsaved(rules: Any, proved: Any) -> Any:
    """The proved round as a saved round held in memory, without advice."""
    from solver.round.advice import strategy_json
    from solver.round.store import SavedRound

    stages = {state.label(): strategy_json(stage.strategy)
              for state, stage in proved.solution.stages.items()}
    return SavedRound(rules, proved.report, {}, None, None, stages)
