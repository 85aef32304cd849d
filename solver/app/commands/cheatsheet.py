"""`bidou cheatsheet`: the best few threshold rules, searched against the exact best response
(`solver.analysis.cheatsheet`), on one printable page (`solver.export.cheatsheet_page`)."""

from __future__ import annotations

import os

import click

from games.bidou.params import BidouParams, ParameterError
from solver.app.commands.group import guarded
from solver.app.commands.options import STRATEGY_OPTION, game_options, strategy_source


def _writable_folder(out_dir: str) -> None:
    """Create `out_dir` if missing; ParameterError if it is not a writable folder."""
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ParameterError(f"--out {out_dir} exists and is not a directory")
    os.makedirs(out_dir, exist_ok=True)
    if not os.access(out_dir, os.W_OK):
        raise ParameterError(f"--out {out_dir} is not writable")


@click.command("cheatsheet", short_help="A one-page cheat sheet: the best few rules in words.")
@guarded
@game_options
@STRATEGY_OPTION
@click.option("--rules-max", type=click.IntRange(min=1), default=12, show_default=True,
              help="Most rules on the sheet (the search grows the rule book up to this).")
@click.option("--beam", type=click.IntRange(min=1), default=1, show_default=True,
              help="Rule books kept at each step of the search (slower, often better).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True,
              help="Directory to write into (created if missing).")
def cheatsheet(params: BidouParams, strategy_file: str | None, rules_max: int,
               beam: int, out_dir: str, rules_given: tuple[str, ...]) -> None:
    """A one-page cheat sheet: the best rule book of at most --rules-max threshold rules,
    found against the exact best response (PDF A4 and Letter, PNG, Markdown, strategy file)."""
    from solver.analysis.cheatsheet import front_points
    from solver.analysis.rulebook import root_rules
    from solver.app.progress import Progress
    from solver.export.bundle import unpack
    from solver.export.cheatsheet_page import write_cheatsheet

    source = strategy_source(params, strategy_file, rules_given)
    model, strategy, summary = unpack(source)
    minimum = len(root_rules(model))
    if rules_max < minimum:
        raise ParameterError(f"--rules-max must be at least {minimum} for these rules "
                             "(one rule per kind of decision)")
    _writable_folder(out_dir)
    with Progress() as progress:
        points = front_points(model, strategy, summary["value"], rules_max, progress,
                              beam=beam)
    best = points[-1]
    result = {"equilibrium_value": summary["value"],
              "front": [{"rules_count": p.size,
                         "exploitability": p.exploitability.exploitability,
                         "equilibrium_loss": p.equilibrium_loss} for p in points]}
    for path in write_cheatsheet(model, best, out_dir, result):
        click.echo(str(path))
    click.echo(f"{best.size} rules: exploitability {best.exploitability.exploitability:.4f} "
               f"chips per hand, loss against the equilibrium {best.equilibrium_loss:.4f}")
