"""`bidou export` and `bidou charts`: a solved hand's files (`solver.export.bundle`), from
the rules or a strategy file, optionally with its exact equilibrium
(`solver.pipeline.hand.exact_source`)."""

from __future__ import annotations

from typing import Callable

import click

from games.catalog import GAMES, GameParams
from solver.app.commands.group import guarded
from solver.app.commands.options import (
    PLAIN_OPTION,
    STRATEGY_OPTION,
    format_option,
    game_options,
    strategy_source,
)


def _writer_command(name: str, short_help: str, epilog: str,
                    extra: tuple[Callable[[Callable], Callable], ...] = ()) -> Callable:
    """export and charts: rules or a strategy file in, a directory of files out (`extra`:
    options of one command only)."""
    options: list[Callable[[Callable], Callable]] = [
        guarded, game_options(games=True), STRATEGY_OPTION, PLAIN_OPTION,
        click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True,
                     help="Directory to write into (created if missing)."),
        format_option("Chart formats (repeatable; default: all three)."),
        click.option("--exact", is_flag=True,
                     help="Recover the exact rational equilibrium first (as `bidou solve "
                          "--exact` does), so the labels can say it is one; exit 1 if it "
                          "cannot. A strategy file that holds exact probabilities "
                          "(`bidou solve --exact --out`) needs no flag."),
        *extra,
    ]

    def decorate(func: Callable) -> click.Command:
        for option in reversed(options):
            func = option(func)
        return click.command(name, short_help=short_help, epilog=epilog)(func)
    return decorate


def _write(writer_name: str, params: GameParams, strategy_file: str | None, out_dir: str,
           formats: tuple[str, ...], rules_given: tuple[str, ...], exact: bool,
           plain: bool, **writer_options: bool) -> None:
    from solver.app.progress import Progress
    from solver.common.files import check_directory_destination
    from solver.common.progress import within
    from solver.export import bundle
    from solver.pipeline.hand import exact_source

    check_directory_destination(out_dir)
    with Progress() as progress:
        progress(f"reading and measuring {strategy_file}" if strategy_file
                 else f"solving {params.describe()}", 0, 0)
        source, fractions = exact_source(
            strategy_source(params, strategy_file, rules_given, plain, games=GAMES),
            strategy_file, exact,
            within(progress, "recovering the exact rational equilibrium"))
        writer = getattr(bundle, writer_name)
        paths = writer(source, out_dir, formats=formats or bundle.FORMATS,
                       progress=progress, exact=fractions, **writer_options)
    for path in paths:
        click.echo(str(path))


_WRITER_EXAMPLES = """\b
Examples:
  bidou {name} --out {out}                     the default game, solved now (refined)
  bidou {name} --plain --out {out}-plain       ... its plain LP vertex instead
  bidou {name} --reroll keep --out {out}-keep
  bidou solve --exact --out s.json && bidou {name} --strategy s.json --out {out}
  bidou {name} --exact --format png --out {out}"""


PARQUET_OPTION = click.option(
    "--parquet", is_flag=True,
    help="Also write the tables as Parquet (reroll.parquet, betting.parquet): one row per "
         "(decision, hand, action), typed columns (docs/exports.md).")


@_writer_command("export", "Every table, strategy file and chart of a solved hand.",
                 _WRITER_EXAMPLES.format(name="export", out="out")
                 + "\n  bidou export --parquet --out out             the tables as Parquet too",
                 extra=(PARQUET_OPTION,))
def export(params: GameParams, strategy_file: str | None, out_dir: str,
           formats: tuple[str, ...], exact: bool, parquet: bool, plain: bool,
           rules_given: tuple[str, ...]) -> None:
    """Every table (CSV, Markdown; Parquet with --parquet), strategy file (JSON), summary
    and chart (PDF, PNG, SVG) of a solved hand."""
    _write("export_all", params, strategy_file, out_dir, formats, rules_given, exact, plain,
           parquet=parquet)


@_writer_command("charts", "The printable throwing, betting and remember-this charts.",
                 _WRITER_EXAMPLES.format(name="charts", out="charts"))
def charts(params: GameParams, strategy_file: str | None, out_dir: str,
           formats: tuple[str, ...], exact: bool, plain: bool, rules_given: tuple[str, ...]
           ) -> None:
    """The printable charts alone: when to stop throwing, how to bet in each public state,
    and a simplified strategy to remember (docs/charts.md explains how to read them)."""
    _write("export_charts", params, strategy_file, out_dir, formats, rules_given, exact,
           plain)
