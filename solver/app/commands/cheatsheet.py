"""`bidou cheatsheet`: the best few threshold rules, searched against the exact best response
(`solver.cheatsheet.search`), their cuts then improved and proved by the MILP
(`solver.cheatsheet.milp`), on one printable page (`solver.export.cheatsheet_page`)."""

from __future__ import annotations

import dataclasses
import os

import click

from games.bidou.params import BidouParams, ParameterError
from solver.app.commands.group import guarded
from solver.app.commands.options import (
    STRATEGY_OPTION,
    FiniteFloat,
    game_options,
    strategy_source,
)

# Each step of the search tries every split of every rule of the `beam` books kept: the
# work grows in proportion to the beam. 1 is the default and the benchmark's best sheets
# use 3; 8 bounds a run at eight times the default's work (a beam of 1000 would run
# without end).
MAX_BEAM = 8


@click.command("cheatsheet", short_help="A one-page cheat sheet: the best few rules in words.",
               epilog="""\b
Examples:
  bidou cheatsheet --out sheet                       the default game (minutes)
  bidou cheatsheet --faces 3 --throws 1 --out small  a small game, in seconds
  bidou cheatsheet --rules-max 6 --milp-seconds 0 --out short
  bidou solve --out s.json && bidou cheatsheet --strategy s.json --out sheet
  bidou cheatsheet --beam 3 --out better             a wider search (slower)""")
@guarded
@game_options
@STRATEGY_OPTION
@click.option("--rules-max", type=click.IntRange(min=1), default=12, show_default=True,
              help="Most rules on the sheet (the search grows the rule book up to this).")
@click.option("--beam", type=click.IntRange(min=1, max=MAX_BEAM), default=1,
              show_default=True,
              help=f"Rule books kept at each step of the search (slower, often better; at "
                   f"most {MAX_BEAM}).")
@click.option("--milp-seconds", type=FiniteFloat(min=0), default=60, show_default=True,
              help="Seconds for the MILP to improve the sheet's cuts (mixing ranges of hands "
                   "in quarters) and prove a bound on them; 0: the search's book as it is.")
@click.option("--top-down/--no-top-down", default=True, show_default=True,
              help="Also compress the equilibrium's per-decision book down to --rules-max "
                   "rules (merging rules, solver/cheatsheet/compress.py), improve "
                   "the books by local moves (merges, splits, swaps; cheatsheet_local.py) and "
                   "keep the best book found at each size.")
@click.option("--raises/--no-raises", default=True, show_default=True,
              help="Every rule facing a bet raises with the strongest hands the equilibrium "
                   "raises with nearly always in its decisions (solver/cheatsheet/search.py, "
                   "RaiseFloors); without, the search never raises: a raise with the top hands "
                   "alone never lowers the cost against a best reply.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True,
              help="Directory to write into (created if missing).")
def cheatsheet(params: BidouParams, strategy_file: str | None, rules_max: int,
               beam: int, milp_seconds: float, top_down: bool, raises: bool, out_dir: str,
               rules_given: tuple[str, ...]) -> None:
    """A one-page cheat sheet: the best rule book of at most --rules-max threshold rules,
    found against the exact best response (PDF A4 and Letter, PNG, Markdown, strategy file)."""
    from solver.app.progress import Progress
    from solver.cheatsheet.local_search import with_local_search
    from solver.cheatsheet.rulebook import root_rules
    from solver.cheatsheet.search import RaiseFloors, front_points
    from solver.common.files import check_directory_destination, publish, staging_folder
    from solver.export.bundle import unpack
    from solver.export.cheatsheet_page import FILES, write_cheatsheet

    check_directory_destination(out_dir)            # '', file/sub, read-only: before the work
    source = strategy_source(params, strategy_file, rules_given)
    model, strategy, summary = unpack(source)
    minimum = len(root_rules(model))
    if rules_max < minimum:
        raise ParameterError(f"--rules-max must be at least {minimum} for these rules "
                             "(one rule per kind of decision)")
    floors = RaiseFloors(model, strategy) if raises else None
    with Progress() as progress:
        points = front_points(model, strategy, summary["value"], rules_max, progress,
                              beam=beam, floors=floors)
        if top_down:
            # the top-down chain and the local search, at the sheet's size and one below
            points = with_local_search(model, strategy, summary["value"], points,
                                       progress=progress, floors=floors)
        best = points[-1]
        if milp_seconds > 0:
            from solver.cheatsheet.milp import prove

            best = dataclasses.replace(prove(model, best.rules, strategy, summary["value"],
                                             milp_seconds, progress, floors=floors),
                                       origin=best.origin)
    result = {"equilibrium_value": summary["value"],
              "front": [{"rules_count": p.size,
                         "exploitability": p.exploitability.exploitability,
                         "equilibrium_loss": p.equilibrium_loss} for p in points]}
    with staging_folder(out_dir) as stage:          # the five files together, or none
        write_cheatsheet(model, best, stage, result)
        publish(stage, out_dir, FILES)
    for name in FILES:
        click.echo(os.path.join(out_dir, name))
    click.echo(f"{best.size} rules: exploitability {best.exploitability.exploitability:.4f} "
               f"chips per hand, loss against the equilibrium {best.equilibrium_loss:.4f}")
    if best.proof is not None:
        click.echo("Proved: among all cuts for these rules' situations, "
                   f"{best.proof.words(best.exploitability.exploitability)}")
