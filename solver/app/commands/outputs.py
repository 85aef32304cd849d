"""`bidou outputs`: the published games in outputs/ solved again, written or checked
(`solver.app.outputs`, over the hand and round pipelines)."""

from __future__ import annotations

import click

from games.bidou.params import ParameterError
from solver.app.commands.group import EXIT_CANNOT_VOUCH, fail, guarded


@click.command("outputs", short_help="Re-solve the published games in outputs/ (or check them).",
               epilog="""\b
Examples:
  bidou outputs --check      are the published files current? (all solved and re-drawn)
  bidou outputs              rewrite them (three refined hands; two rounds, their
                             stage games refined, and their cheat sheets; Le Bidou's
                             hand, its cheat sheet and its manche; docs/round.md,
                             docs/manche.md)""")
@guarded
@click.option("--root", type=click.Path(file_okay=False), default=None,
              help="Folder of the solved games (default: outputs/ of this source checkout, "
                   "found wherever you run the command).")
@click.option("--check", is_flag=True,
              help="Only say which files are stale or missing (exit 1 if any): every file "
                   "`bidou outputs` writes, the charts re-drawn and compared byte for byte.")
def outputs(root: str | None, check: bool) -> None:
    """Re-solve the default game and the keep and french variants into outputs/, with
    their exact values, tables and charts; the rounds; and Le Bidou's default hand into
    outputs/le-bidou/ (its value proved to an interval, tables, reroll chart) with its
    stakes cheat sheet (cheatsheet.md, .png, cheatsheet_strategy.json) and its manche's page
    (manche.md, manche.json, the win-probability chart: the default manche solved and
    proved again, then simulated)."""
    from pathlib import Path

    from solver.app.docs import charts_doc_path, update_charts_doc
    from solver.app.outputs import VARIANTS, project_outputs, stale_files, write_outputs
    from solver.app.progress import Progress
    from solver.common.files import check_directory_destination

    if root is None:
        found = project_outputs()
        if found is None:
            raise ParameterError("no outputs/ folder here: this bidou is not run from a source "
                                 "checkout; pass --root DIR")
        root = str(found)
    if check and not any((Path(root) / name).is_dir() for name in VARIANTS):
        raise ParameterError(f"{root} holds none of the solved games "
                             f"({', '.join(VARIANTS)}); nothing to check")
    if not check:
        check_directory_destination(root)             # before the solving, not after it
    # the passages of docs/charts.md that describe the published solution follow it
    docs = charts_doc_path() if Path(root) == project_outputs() else None
    with Progress() as progress:
        if check:
            stale = stale_files(root, progress=progress)
            if docs is not None and not stale and not update_charts_doc(root, docs, False):
                stale.append(str(docs))
        else:
            paths = write_outputs(root, progress=progress)
            if docs is not None and not update_charts_doc(root, docs):
                paths.append(docs)
    if not check:
        for path in paths:
            click.echo(str(path))
        return
    for name in stale:
        click.echo(f"stale: {name}")
    if stale:
        fail(f"{len(stale)} files in {root} are stale; `bidou outputs` rewrites them",
             EXIT_CANNOT_VOUCH)
    click.echo(f"{root} is current")
