"""`bidou convergence`: every CFR method's exploitability against time, beside the LP value
(`solver.pipeline.convergence`, drawn by `solver.export.convergence_chart`)."""

from __future__ import annotations

import click

from games.bidou.params import BidouParams
from solver.app.commands.group import guarded
from solver.app.commands.options import game_options


@click.command("convergence",
               short_help="Exploitability of every CFR method against time (PNG, PDF).",
               epilog="""\b
Examples:
  bidou convergence --out plots
  bidou convergence --faces 4 --iterations 5000""")
@guarded
@game_options
@click.option("--iterations", type=click.IntRange(min=1), default=20_000, show_default=True,
              help="Iterations per method.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=".",
              show_default=True, help="Directory for convergence.png and convergence.pdf.")
def convergence(params: BidouParams, iterations: int, out_dir: str) -> None:
    """Exploitability against iterations and seconds for every CFR method (PNG and PDF)."""
    from solver.app.progress import Progress
    from solver.common.files import check_directory_destination
    from solver.export.convergence_chart import write_convergence
    from solver.pipeline.convergence import measure_convergence

    check_directory_destination(out_dir)
    with Progress() as progress:
        measured = measure_convergence(params, iterations, progress=progress)
    runs, lp_value = measured.runs, measured.lp_value
    for method, run in runs.items():                  # printed before the files are written
        click.echo(f"{method:>6}: {run.iterations:>6} iterations, {run.seconds:7.2f} s, "
                   f"exploitability {run.exploitability.exploitability:.3e}")
    with Progress() as progress:
        progress("drawing the curves", 0, 0)
        paths = write_convergence(runs, out_dir, lp_value=lp_value)
    for path in paths:
        click.echo(str(path))
