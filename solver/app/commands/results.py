"""`bidou results`: docs/results.md written from the sweep table and exact solves
(`solver.app.results`: the results pipelines, then the page and plots rendered)."""

from __future__ import annotations

import click

from solver.app.commands.group import guarded


@click.command("results", short_help="Write docs/results.md, the findings, from the sweep table.",
               epilog="""\b
Examples:
  bidou results                        the whole page, run in the project's folder
  bidou results --le-bidou             Le Bidou's section alone, the rest kept
  bidou results --root ~/bidou-solver  the project's folder named""")
@guarded
@click.option("--root", default=".", show_default=True,
              help="The project directory (reads docs/data/sweep.csv).")
@click.option("--le-bidou", is_flag=True,
              help="Solve only Le Bidou's section again (its default hand, and stakes up "
                   "to 5 under each withdrawal penalty: minutes), keeping the rest of the "
                   "page.")
def results(root: str, le_bidou: bool) -> None:
    """docs/results.md: the findings, from the sweep table and exact solves (minutes: the
    featured games are solved exactly). Le Bidou's section is kept as it was unless
    --le-bidou, which solves it alone."""
    from solver.app.progress import Progress
    from solver.app.results import write_results

    with Progress() as progress:
        paths = write_results(root, progress=progress, le_bidou=le_bidou)
    for path in paths:
        click.echo(str(path))
