"""`bidou results`: docs/results.md written from the sweep table and exact solves
(`solver.app.results`, over the hand pipeline)."""

from __future__ import annotations

import click

from solver.app.commands.group import guarded


@click.command("results", short_help="Write docs/results.md, the findings, from the sweep table.")
@guarded
@click.option("--root", default=".", show_default=True,
              help="The project directory (reads docs/data/sweep.csv).")
def results(root: str) -> None:
    """docs/results.md: the findings, from the sweep table and exact solves (about 15
    minutes on 2 cores, busy)."""
    from solver.app.progress import Progress
    from solver.app.results import write_results

    with Progress() as progress:
        paths = write_results(root, progress=progress)
    for path in paths:
        click.echo(str(path))
