"""`bidou sweep`: a grid of rule sets solved on Dask, one row each (`solver.app.sweep`, each
row by the hand pipeline)."""

from __future__ import annotations

import click

from games.bidou.params import ParameterError
from games.catalog import BIDOU, GAMES, LE_BIDOU
from solver.app.commands.group import EXIT_CANNOT_VOUCH, fail, guarded
from solver.app.commands.options import FiniteFloat
from solver.app.signals import EXIT_INTERRUPTED

# A cell's time limit at most a week: its deadline must be a time the clock can hold.
MAX_TIME_LIMIT = 7 * 24 * 3600.0


@click.command("sweep", short_help="Solve a grid of rule sets in parallel on Dask.")
@guarded
@click.option("--faces", default="6", show_default=True, help="Comma-separated, e.g. 2,3,4.")
@click.option("--throws", default="3", show_default=True, help="Comma-separated, e.g. 1,2,3.")
@click.option("--max-level", default="4", show_default=True, help="Comma-separated levels.")
@click.option("--reroll", default="all", show_default=True, help="all, keep, or all,keep.")
@click.option("--ranking", default="encyclopedia", show_default=True,
              help="encyclopedia, french, or encyclopedia,french.")
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
@click.option("--game", type=click.Choice(GAMES), default=BIDOU, show_default=True,
              help="Two-hand Bidou, or Le Bidou's stakes (le_bidou_sweep.csv; its defaults "
                   "--reroll keep --ranking french; docs/le-bidou.md).")
@click.option("--max-stake", default=None,
              help="Le Bidou: comma-separated highest stakes, 1..9 (default 9).")
@click.option("--half-stake", default=None,
              help="Le Bidou: up, down, full, or a list such as up,down,full (default up).")
@click.option("--time-limit", type=FiniteFloat(min=0, min_open=True, max=MAX_TIME_LIMIT),
              default=None,
              help="Le Bidou: seconds of wall time a cell may take, LP to exact value "
                   "(default 60); a cell that runs out is a row saying so, tried again by a "
                   "later sweep.")
@click.option("--out", "out_dir", required=True,
              help="Directory for sweep.csv, sweep.parquet, sweep.png (rows there are kept; "
                   "Le Bidou: le_bidou_sweep.csv).")
def sweep(faces: str, throws: str, max_level: str, reroll: str, ranking: str,
          aces_beat_bidou: str, exact: bool, scheduler: str | None, workers: int | None,
          dashboard: bool, yes: bool, out_dir: str, game: str, max_stake: str | None,
          half_stake: str | None, time_limit: float | None) -> None:
    """Solve a grid of rule sets in parallel on Dask: one row per rule set (resumable).

    With --game le-bidou, a grid of Le Bidou hands (--max-stake, --half-stake), each cell
    killed at --time-limit and recorded as such, the others proved and, where the exact
    recovery finishes in time, exact (le_bidou_sweep.csv)."""
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
    given = _given(("max_level", "exact", "max_stake", "half_stake", "time_limit"))
    if game == LE_BIDOU:
        _le_bidou(faces, throws, reroll, ranking, aces_beat_bidou, max_stake, half_stake,
                  time_limit, scheduler, workers, dashboard, out_dir, given)
        return
    if {"max_stake", "half_stake", "time_limit"} & set(given):
        name = next(n for n in ("max_stake", "half_stake", "time_limit") if n in given)
        raise ParameterError(f"--{name.replace('_', '-')} applies to --game le-bidou")
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


def _given(names: tuple[str, ...]) -> list[str]:
    context = click.get_current_context()
    return [name for name in names
            if context.get_parameter_source(name) != click.core.ParameterSource.DEFAULT]


def _le_bidou(faces: str, throws: str, reroll: str, ranking: str, aces_beat_bidou: str,
              max_stake: str | None, half_stake: str | None, time_limit: float | None,
              scheduler: str | None, workers: int | None, dashboard: bool, out_dir: str,
              given: list[str]) -> None:
    """The Le Bidou sweep (`solver.app.le_bidou_sweep`): its grid, its cells, its report."""
    from solver.app.le_bidou_sweep import (
        DEFAULT_LIMIT,
        TABLE,
        build_grid,
        run_le_bidou_sweep,
    )
    from solver.app.progress import Progress
    from solver.app.sweep import check_destination, check_scheduler, dask_client, local_workers

    for name in ("max_level", "exact"):
        if name in given:
            raise ParameterError(f"--{name.replace('_', '-')} does not apply to --game "
                                 f"le-bidou" + (" (every cell tries its exact value)"
                                                if name == "exact" else ""))
    context = click.get_current_context()

    def default(name: str, value: str, le_bidou: str) -> str:
        source = context.get_parameter_source(name)
        return le_bidou if source == click.core.ParameterSource.DEFAULT else value

    grid = build_grid(faces, throws, max_stake or "9", default("reroll", reroll, "keep"),
                      default("ranking", ranking, "french"), aces_beat_bidou,
                      half_stake or "up")
    out = check_destination(out_dir)
    if scheduler is not None:
        check_scheduler(scheduler)
    else:
        workers = local_workers(workers, len(grid))
    limit = time_limit or DEFAULT_LIMIT
    try:
        with Progress() as progress, dask_client(scheduler, workers, dashboard) as client:
            report = run_le_bidou_sweep(grid, out, client, limit, progress)
    except KeyboardInterrupt:
        fail(f"interrupted; the cells done so far are in {out.absolute() / TABLE}",
             EXIT_INTERRUPTED)
    click.echo(f"{report.solved} cells proved, {report.timed_out} over the time limit "
               f"({limit:g} s), {report.failed} failed, {report.skipped} already in the "
               f"table, {report.seconds:.1f} s: {out / TABLE}")
    if report.failed:
        fail(f"{report.failed} cells failed; their rows say why", EXIT_CANNOT_VOUCH)
