"""`bidou site`: the browser view (`solver.export.site`), static pages that open from the
file system, built from the published games or solved on the spot."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import click

from games.bidou.params import BidouParams
from solver.app.commands.group import guarded
from solver.app.commands.options import game_options


def _published_hand(folder: Path) -> tuple[Any, Any] | None:
    """(source, exact probabilities) of `folder/strategy.json`, or None if there is none."""
    from solver.hand.strategy import StrategyFileError, load_exact, load_strategy_file

    path = folder / "strategy.json"
    if not path.is_file():
        return None
    try:
        model, strategy, result = load_strategy_file(path)
        return (model, strategy, result), load_exact(path, model, strategy)
    except StrategyFileError as error:          # which of the published files is at fault
        message = str(error)
        raise StrategyFileError(message if str(path) in message else f"{path}: {message}") \
            from None


def _hand_views(params: BidouParams, rules_given: tuple[str, ...], root: Path | None,
                progress: Any) -> tuple[list[Any], int]:
    """The published rule sets (read from `root`, or solved now if it has none) and, if
    rules options were given for other rules, those solved now, first; and which of them
    the rules options asked for (the pages open on it)."""
    from solver.app.outputs import VARIANTS
    from solver.export.site import hand_view
    from solver.pipeline.hand import solve_hand

    # every published file read (and refused if bad) before anything is solved
    published = {name: _published_hand(root / name) if root is not None else None
                 for name in VARIANTS}
    views = []
    extra = bool(rules_given) and params not in VARIANTS.values()
    if extra:
        progress(f"solving {params.describe()}", 0, 0)
        views.append(hand_view("your rules", solve_hand(params).solution))
    for done, (name, variant) in enumerate(VARIANTS.items(), start=1):
        found = published[name]
        progress(f"measuring {name}" if found else f"solving {name}", done, len(VARIANTS))
        if found is None:
            views.append(hand_view(name, solve_hand(variant).solution))
        else:
            views.append(hand_view(name, found[0], found[1]))
    asked = [i for i, name in enumerate(VARIANTS, start=int(extra))
             if rules_given and VARIANTS[name] == params]
    return views, asked[0] if asked else 0


def _rounds(root: Path | None) -> dict[str, Any]:
    """The published rounds' reports (round.json), by folder name. One there but not a
    regular file (a FIFO, a folder) is left out with a note, not in silence: the page would
    say no round was solved."""
    from solver.app.round_outputs import ROUNDS
    from solver.export.site import check_round
    from solver.hand.strategy import read_strategy_document

    found = {}
    for name in ROUNDS:
        path = root / name / "round.json" if root is not None else None
        if path is not None and path.is_file():
            report = read_strategy_document(path)
            check_round(str(path), report)
            found[name] = report
        elif path is not None and os.path.lexists(path):
            click.echo(f"bidou: note: {path} is {_not_a_file(path)}, not a regular file: "
                       "left out of round.html", err=True)
    return found


def _montevideo(root: Path | None) -> dict[str, Any] | None:
    """The published heads-up report of Montevideo (checked), or None if there is none."""
    from games.montevideo.heads_up import HeadsUpParams
    from solver.hand.strategy import StrategyFileError
    from solver.pipeline.montevideo import REPORT_NAME, ReportError, read_report

    path = root / "montevideo" / REPORT_NAME if root is not None else None
    if path is None or not path.is_file():
        return None
    try:
        return read_report(path, HeadsUpParams())
    except ReportError as error:
        raise StrategyFileError(str(error)) from None


def _not_a_file(path: Path) -> str:
    """What `path` is instead (a stat: nothing opened, so a FIFO cannot block)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return "a broken link"
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((what for test, what in kinds if test(mode)), "a special file")


@click.command("site", short_help="A static browser view of the solved games (no server).",
               epilog="""\b
Examples:
  bidou site --out site                 the published games; open site/index.html
  bidou site --faces 4 --out site       the same, and the hand with 4-sided dice first""")
@guarded
@game_options
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True,
              help="Folder to write the pages into (created if missing).")
@click.option("--root", type=click.Path(file_okay=False, exists=True), default=None,
              help="Folder of the solved games (default: outputs/ of this source checkout; "
                   "without one, the games are solved now and the round is left out).")
def site(params: BidouParams, rules_given: tuple[str, ...], out_dir: str,
         root: str | None) -> None:
    """Write a static site (index.html, reroll.html, round.html, montevideo.html) that opens
    from the file system: pick the rules, the throw counts and the betting so far and see
    every hand's play; the reroll advice; the round's win-probability map; Montevideo's
    heads-up end. Each page holds its data."""
    from solver.app.outputs import project_outputs
    from solver.app.progress import Progress
    from solver.common.files import check_directory_destination
    from solver.export.site import write_site

    check_directory_destination(out_dir)
    folder = Path(root) if root is not None else project_outputs()
    rounds = _rounds(folder)
    heads_up = _montevideo(folder)
    with Progress() as progress:
        views, selected = _hand_views(params, rules_given, folder, progress)
        paths = write_site(out_dir, views, rounds, selected, heads_up)
    for path in paths:
        click.echo(f"{path} ({path.stat().st_size / 1e6:.2f} MB)")
    if not rounds:
        click.echo("no solved round found: round.html says how to solve one")
