"""`bidou sweep`: a grid of rule sets solved on Dask, one row each (`solver.app.sweep`, each
row by the hand pipeline)."""

from __future__ import annotations

import click

from games.bidou.params import ParameterError
from solver.app.commands.group import EXIT_CANNOT_VOUCH, fail, guarded
from solver.app.signals import EXIT_INTERRUPTED


@click.command("sweep", short_help="Solve a grid of rule sets in parallel on Dask.")
@guarded
@click.option("--faces", default="6", show_default=True, help="Comma-separated, e.g. 2,3,4.")
@click.option("--throws", default="3", show_default=True, help="Comma-separated, e.g. 1,2,3.")
@click.option("--max-level", default="4", show_default=True, help="Comma-separated levels.")
@click.option("--reroll", default="all", show_default=True, help="all, keep, or all,keep.")
@click.option("--ranking", default="encyclopedia", show_default=True,
              help="encyclopedia, french, or both.")
@click.option("--aces-beat-bidou", default="true", show_default=True,
              help="French ranking: true, false, or true,false.")
@click.option("--exact", is_flag=True, help="Recover each exact rational value (slower).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="An existing Dask scheduler (default: a local cluster, on TLS with "
                   "credentials of its own). It and its workers must be trusted: Dask sends "
                   "them code and takes pickles back. tls://HOST:PORT takes the client's "
                   "certificate from Dask's configuration (distributed.comm.tls.*).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Local cluster: worker processes (default: the machine's cores; never "
                   "more than the rule sets to solve; at most 4 per core, or 8).")
@click.option("--dashboard", is_flag=True,
              help="Local cluster: serve Dask's dashboard on 127.0.0.1 (any local user can "
                   "read it while the sweep runs).")
@click.option("--yes", is_flag=True,
              help="Run a grid of more than 400 rule sets without asking.")
@click.option("--out", "out_dir", required=True,
              help="Directory for sweep.csv, sweep.parquet, sweep.png (rows there are kept).")
def sweep(faces: str, throws: str, max_level: str, reroll: str, ranking: str,
          aces_beat_bidou: str, exact: bool, scheduler: str | None, workers: int | None,
          dashboard: bool, yes: bool, out_dir: str) -> None:
    """Solve a grid of rule sets in parallel on Dask: one row per rule set (resumable)."""
    from solver.app.progress import Progress
    from solver.app.sweep import (
        CONFIRM_RULE_SETS,
        build_grid,
        check_destination,
        check_scheduler,
        dask_client,
        estimate,
        local_workers,
        read_rows,
        rule_key,
        run_sweep,
        sweep_lock,
    )

    if not out_dir.strip():
        raise ParameterError("--out: the folder name is empty")
    grid = build_grid(faces, throws, max_level, reroll, ranking, aces_beat_bidou)
    out = check_destination(out_dir)
    known = {rule_key(row) for row in read_rows(out)     # a table not ours fails here
             if not exact or row["exact"] is not None}
    todo = sum(rule_key(params) not in known for params in grid)
    if scheduler is not None and (workers is not None or dashboard):
        raise ParameterError(f"--{'workers' if workers is not None else 'dashboard'} applies "
                             f"to the local cluster, not to --scheduler")
    if scheduler is not None:
        check_scheduler(scheduler)
    else:
        workers = local_workers(workers, todo)
    if todo > CONFIRM_RULE_SETS:
        guess = estimate(todo, workers or 1, exact) if scheduler is None else "time unknown"
        if not yes:
            raise ParameterError(f"{todo} rule sets to solve ({guess}); give --yes to run "
                                 f"them, or a smaller grid")
        click.echo(f"{todo} rule sets to solve ({guess})", err=True)
    try:
        with sweep_lock(out), Progress() as progress, \
                dask_client(scheduler, workers, dashboard) as client:
            if dashboard:
                click.echo(f"dashboard: {client.dashboard_link}", err=True)
            report = run_sweep(grid, out, client, exact=exact, progress=progress)
    except KeyboardInterrupt:
        table = out.absolute() / "sweep.csv"
        fail(f"interrupted; the rows solved so far are in {table}" if table.exists() else
             "interrupted before any row was solved", EXIT_INTERRUPTED)
    click.echo(f"{report.solved} rule sets solved, {report.skipped} already in the table, "
               f"{report.seconds:.1f} s: {out / 'sweep.csv'}, sweep.parquet, sweep.png")
    for params, why in report.failed:
        click.echo(f"failed: {params.describe()}: {why}", err=True)
    for params in report.not_exact:
        click.echo(f"no exact value: {params.describe()}", err=True)
    if report.failed or report.not_exact:
        fail(f"{len(report.failed)} rule sets failed, {len(report.not_exact)} without the "
             f"exact value asked; their rows are missing or inexact", EXIT_CANNOT_VOUCH)
