"""A solved round kept on disk and read back: every state's numbers (the round's report),
its stage strategies and its advice, so that a later query of a state answers in a moment
instead of solving the 51 stage games again.

Two JSON files per rule set, written together: the round (schema `bidou-solved-round`:
the rules, the report of every state, every chip state's advice, the SHA-256 of the second
file, and a checksum of all of it; about 150 kB) and its stage strategies
(`*.strategies.json`, about 5 MB with the default rules), which a query reads only for
`--json` or `--charts`, so that it answers in well under a second. The published rule sets
are kept beside their report in `outputs/round*/` (`FILE_NAME`, written by `bidou
outputs`); any other rule set in the user's cache folder (`$XDG_CACHE_HOME/bidou-solver`,
else `~/.cache/bidou-solver`), named by a hash of the rules.

Nothing read is trusted: a file that is not this schema or version, was solved for other
rules, fails its checksum or is malformed is refused with one line (`SavedRoundError`),
and the caller solves again. The checksum is a plain SHA-256 of the body: it catches
corruption (a torn or bit-flipped file), not an edit, since anyone can recompute it. So
every number and word is checked as well (solver/round/saved_checks.py: probabilities in
[0, 1], lower <= value <= upper, exploitabilities >= 0, advice in the solver's shape,
no control characters). The numbers were proved when the file was written (the round's
certificate); an answer read from it says so, `bidou round --state ... --verify` proves
the state again, and `--charts` re-measures the state's strategy against the file's
values before drawing it.

This module imports no solver (no scipy, no networkx, no numpy): a query reads JSON only.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Mapping

from games.bidou.round_params import RoundParams
from solver.common.files import read_input_file, strict_json
from solver.round.saved_checks import (
    SavedCheckError,
    check_advice,
    check_entry,
    check_report,
    escaped,
)

SCHEMA = "bidou-solved-round"
SCHEMA_VERSION = 1
STRATEGIES_SCHEMA = "bidou-solved-round-strategies"
FILE_NAME = "solved_round.json"
STRATEGIES_SUFFIX = ".strategies.json"
MAX_BYTES = 256 * 2**20
CACHE_FOLDER = "bidou-solver"
# The report's `equilibrium`: the stage strategies refined (solver/round/refine_stages.py,
# the default) or the stage LPs' vertices (`bidou round --plain`); a saved round without it
# (written before the stage games were refined) holds the LPs' vertices.
REFINED = "refined"
PLAIN = "plain LP vertex"


class SavedRoundError(ValueError):
    """A saved round cannot be used; the message is one line naming the file and why."""


def equilibrium_of(report: Mapping[str, Any]) -> str:
    """Which equilibrium a round report's stage strategies are (REFINED or PLAIN)."""
    return REFINED if report.get("equilibrium") == REFINED else PLAIN


def rules_key(params: RoundParams) -> str:
    """A short stable hash of the rules: the cache file's name."""
    text = json.dumps(params.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class NoCacheFolder(OSError):
    """There is nowhere to keep a cache (a home folder that does not exist): nothing is
    made there, and the round is not kept."""


def cache_folder(environ: Mapping[str, str] | None = None) -> Path:
    """$XDG_CACHE_HOME/bidou-solver, or ~/.cache/bidou-solver (XDG base directories: a
    relative XDG_CACHE_HOME is ignored)."""
    return _cache_root(environ)[0] / CACHE_FOLDER


def _cache_root(environ: Mapping[str, str] | None) -> tuple[Path, Path]:
    """The folder holding the cache folder, and the folder it must lie in, which is never
    made: the home folder, or XDG_CACHE_HOME's parent."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME", "")
    if base and os.path.isabs(base):
        return Path(base), Path(base).parent
    return Path.home() / ".cache", Path.home()


def cache_path(params: RoundParams, environ: Mapping[str, str] | None = None) -> Path:
    return cache_folder(environ) / f"round-{rules_key(params)}.json"


def checked_cache_path(params: RoundParams, create: bool = False,
                       environ: Mapping[str, str] | None = None) -> Path:
    """`cache_path`, checked before any file there is opened: its folder as ssh checks
    ~/.ssh (files.private_folder: made 0700 with `create`; while it is missing, the folders
    above it), and the two files absent or regular (a FIFO would block, a symlink would be
    written through). DestinationError, one line, otherwise; NoCacheFolder where the folder
    would lie under a home (or an XDG_CACHE_HOME's parent) that does not exist."""
    from solver.common.files import check_private_file, private_folder

    path = cache_path(params, environ)
    anchor = _cache_root(environ)[1]
    if not anchor.is_dir():
        raise NoCacheFolder(f"no cache folder: {anchor} does not exist, and nothing is made "
                            f"under it")
    folder = private_folder(path.parent, create=create)
    if folder is None:
        return path
    path = folder / path.name
    for name in (path, strategies_path(path)):
        check_private_file(name)
    return path


def strategies_path(path: str | os.PathLike) -> Path:
    """The companion file of a saved round holding its stage strategies."""
    path = Path(path)
    return path.with_name(path.name.removesuffix(".json") + STRATEGIES_SUFFIX)


@dataclasses.dataclass(frozen=True)
class SavedRound:
    """A saved round as read (checked): its rules, report and per-state advice, by state
    label ("C,A,B"; "open throw C,L"); the stage strategies, most of the bytes, are read
    only when asked for (`stages`), from the companion file the round's checksum names."""

    params: RoundParams
    report: dict[str, Any]
    advice: dict[str, Any]
    path: Path | None = None
    strategies_sha256: str | None = None
    kept: dict[str, Any] | None = None       # the stage strategies, when already in memory

    def entry(self, centre: int, captain: int, opponent: int) -> dict[str, Any] | None:
        """The report's entry of a state (the captain's pile first), or None."""
        for s in self.report["states"]:
            if (s["centre"], s["captain"], s["opponent"]) == (centre, captain, opponent):
                return dict(s)
        return None

    def stages(self) -> dict[str, Any]:
        """Every chip state's stage strategy (`solver.round.advice.strategy_json`), by
        label; SavedRoundError if the companion file is missing or not the one saved."""
        if self.kept is not None:
            return self.kept
        assert self.path is not None and self.strategies_sha256 is not None
        where = strategies_path(self.path)
        try:
            data = _read_bytes(where)
        except FileNotFoundError:
            raise SavedRoundError(f"{where} is missing (the saved round's strategies)") \
                from None
        if "sha256:" + hashlib.sha256(data).hexdigest() != self.strategies_sha256:
            raise SavedRoundError(f"{where} is not the file saved with {self.path}: it is "
                                  f"corrupt, edited or stale")
        document = _parse(data, where)
        if not (isinstance(document, dict) and document.get("schema") == STRATEGIES_SCHEMA
                and document.get("rules") == self.params.to_dict()
                and isinstance(document.get("stages"), dict)):
            raise SavedRoundError(f"{where} is malformed (not the strategies of these rules)")
        return document["stages"]


def state_label(entry: Mapping[str, Any]) -> str:
    """The label `solver.round.states` gives the state of a report entry."""
    if entry["open_throw"]:
        return f"open throw {entry['centre']},{entry['captain']}"
    return f"{entry['centre']},{entry['captain']},{entry['opponent']}"


def saved_files(path: str | os.PathLike, report: Mapping[str, Any],
                stages: Mapping[str, Any], advice: Mapping[str, Any]) -> dict[Path, bytes]:
    """The two files of a saved round at `path`, as bytes: the round (its report, every
    chip state's advice, the SHA-256 of the strategies file, under a checksum of all of
    it) and its stage strategies (`strategies_path`)."""
    strategies = encode({"schema": STRATEGIES_SCHEMA, "schema_version": SCHEMA_VERSION,
                         "rules": dict(report["rules"]), "stages": dict(stages)})
    body = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION,
            "rules": dict(report["rules"]), "report": dict(report), "advice": dict(advice),
            "strategies": {"file": strategies_path(path).name,
                           "sha256": "sha256:" + hashlib.sha256(strategies).hexdigest()}}
    return {Path(path): encode({**body, "checksum": _checksum(body)}),
            strategies_path(path): strategies}


def encode(document: Mapping[str, Any]) -> bytes:
    """A file's bytes (compact: strategies are most of them)."""
    return (json.dumps(document, separators=(",", ":"), allow_nan=False) + "\n").encode()


def save(files: Mapping[Path, bytes]) -> None:
    """Write a saved round's files together (solver/common/files.py's write_set: both or
    neither) into a folder private to the user (files.private_folder: made 0700, refused
    if another user could turn it against us), over nothing but regular files."""
    from solver.common.files import private_folder, write_set

    for folder in dict.fromkeys(Path(path).parent for path in files):
        private_folder(folder)
    write_set(files, private=True)


def in_memory(params: RoundParams, files: Mapping[Path, bytes]) -> SavedRound:
    """A saved round from the files just made (when they could not be written)."""
    main, strategies = (json.loads(data) for data in files.values())
    return SavedRound(params, main["report"], main["advice"], None, None, strategies["stages"])


def load(path: str | os.PathLike, params: RoundParams) -> SavedRound:
    """The saved round at `path`, checked for `params`; SavedRoundError (one line) if it
    cannot be used, FileNotFoundError if there is none. Its strategies are checked when
    read (`SavedRound.stages`)."""
    where = str(path)
    document = _parse(_read_bytes(Path(path)), where)
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        raise SavedRoundError(f"{where} is not a saved round ({SCHEMA})")
    if document.get("schema_version") != SCHEMA_VERSION:
        raise SavedRoundError(f"{where} has schema version {document.get('schema_version')!r}"
                              f", this solver reads {SCHEMA_VERSION}")
    body = {k: v for k, v in document.items() if k != "checksum"}
    if document.get("checksum") != _checksum(body):
        raise SavedRoundError(f"{where} fails its checksum: it is corrupt or was edited")
    if document.get("rules") != params.to_dict():
        raise SavedRoundError(f"{where} was solved for other rules "
                              f"({_rules_text(document.get('rules'))})")
    report, advice, strategies = (document.get(k) for k in ("report", "advice", "strategies"))
    if not (isinstance(report, dict) and isinstance(advice, dict)
            and isinstance(strategies, dict) and isinstance(strategies.get("sha256"), str)
            and report.get("rules") == params.to_dict()
            and isinstance(report.get("states"), list)):
        raise SavedRoundError(f"{where} is malformed (report, advice or strategies missing)")
    try:                      # the checksum is for corruption: anyone can recompute it
        check_report(report)
        for entry in report["states"]:
            check_entry(entry)
        check_advice(advice)
    except SavedCheckError as error:
        raise SavedRoundError(f"{where} is malformed ({error})") from None
    return SavedRound(params, report, advice, Path(path), strategies["sha256"])


def _rules_text(rules: Any) -> str:
    if not isinstance(rules, dict):
        return "none given"
    return escaped(", ".join(f"{k} {v}" for k, v in rules.items())[:200])


def intact(document: Mapping[str, Any]) -> bool:
    """Whether a saved round's document passes its own checksum (`bidou outputs --check`)."""
    return document.get("checksum") == _checksum(
        {k: v for k, v in document.items() if k != "checksum"})


def _checksum(body: Mapping[str, Any]) -> str:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _read_bytes(path: Path) -> bytes:
    """The bytes of a regular file of sane size (FileNotFoundError if there is none)."""
    try:
        return read_input_file(path, MAX_BYTES, follow_symlinks=False)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise SavedRoundError(f"cannot read {path}: {error.strerror or error}") from None


def _parse(data: bytes, where: str | Path) -> Any:
    """JSON; duplicate keys and NaN refused."""
    try:
        return strict_json(data)
    except RecursionError:
        raise SavedRoundError(f"{where} is not a saved round: JSON nested too deeply") \
            from None
    except (UnicodeDecodeError, ValueError) as error:
        raise SavedRoundError(f"{where} is not valid JSON: {str(error)[:120]}") from None


