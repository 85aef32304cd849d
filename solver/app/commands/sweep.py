"""`bidou sweep`: a grid of rule sets solved on Dask, one row each: the options read and
checked before any work, then the game's sweep (solver/pipeline/sweep.py) run, then its
report. What the games share is the pipeline's; what they say at the end is here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from games.bidou.params import ParameterError
from games.catalog import BIDOU, GAMES, LE_BIDOU
from solver.app.commands.group import EXIT_CANNOT_VOUCH, fail, guarded
from solver.app.commands.options import (
    BIDU,
    ONE_CHIP_RULES,
    STAKES_RULES,
    FiniteFloat,
    given_options,
    refuse_idle,
)
from solver.common.signals import EXIT_INTERRUPTED

# A cell's time limit at most a week: its deadline must be a time the clock can hold.
MAX_TIME_LIMIT = 7 * 24 * 3600.0
# The games of --game: the catalog's, and Bidú (a game of its own, not of the family).
SWEEP_GAMES = GAMES + (BIDU,)
# The options not every game reads, and the games that read them: their rules, and what
# their cells take. Any other game refuses them.
OWNERS = {**dict.fromkeys(ONE_CHIP_RULES + ("exact",), (BIDOU,)),
          **dict.fromkeys(("reroll", "ranking", "aces_beat_bidou"), (BIDOU, LE_BIDOU)),
          **dict.fromkeys(STAKES_RULES, (LE_BIDOU,)),
          **dict.fromkeys(("stack", "ante", "throwing"), (BIDU,)),
          "time_limit": (LE_BIDOU, BIDU)}
NOT_HERE = {(LE_BIDOU, "exact"): "every cell tries its exact value",
            (BIDU, "exact"): "its value is proved in an interval",
            (BIDU, "ranking"): "its ranking is the encyclopedia's"}
# What an interrupted sweep's line says of the rows it keeps, and when there are none.
INTERRUPTED = {BIDOU: ("rows solved", "row was solved"),
               LE_BIDOU: ("cells done", "cell was done"),
               BIDU: ("cells done", "cell was done")}


@click.command("sweep", short_help="Solve a grid of rule sets in parallel on Dask.",
               epilog="""\b
Examples:
  bidou sweep --faces 2,3 --throws 1,2 --out sweep            four rule sets
  bidou sweep --faces 2,3 --reroll all,keep --exact --out sweep
  bidou sweep --ranking french --aces-beat-bidou true,false --out sweep
  bidou sweep --faces 3 --scheduler tcp://HOST:8786 --out sweep
  bidou sweep --game le-bidou --faces 3 --throws 1 --max-stake 1,2,3 --out lb
  bidou sweep --game bidu --faces 2,3 --throws 1,2 --stack 1,2 --out bidu""")
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
@click.option("--game", type=click.Choice(SWEEP_GAMES), default=BIDOU, show_default=True,
              help="Two-hand Bidou, Le Bidou's stakes (le_bidou_sweep.csv; its defaults "
                   "--reroll keep --ranking french; docs/le-bidou.md), or Bidú's two-player "
                   "vuelta (bidu_sweep.csv; docs/bidu.md).")
@click.option("--max-stake", default=None,
              help="Le Bidou: comma-separated highest stakes, 1..9 (default 9).")
@click.option("--half-stake", default=None,
              help="Le Bidou: up, down, full, or a list such as up,down,full (default up).")
@click.option("--stack", default=None,
              help="Bidú: comma-separated stacks, 1..10 (default 5).")
@click.option("--ante", default=None, help="Bidú: comma-separated antes, 1..10 (default 1).")
@click.option("--throwing", default=None,
              help="Bidú: together, captain-first, or together,captain-first (default "
                   "together).")
@click.option("--time-limit", type=FiniteFloat(min=0, min_open=True, max=MAX_TIME_LIMIT),
              default=None,
              help="Le Bidou, Bidú: seconds of wall time a cell may take (Le Bidou: LP to "
                   "exact value, default 60; Bidú: default 600); a cell that runs out is a "
                   "row saying so, tried again by a later sweep.")
@click.option("--out", "out_dir", required=True,
              help="Directory for sweep.csv, sweep.parquet, sweep.png (rows there are kept; "
                   "Le Bidou: le_bidou_sweep.csv; Bidú: bidu_sweep.csv).")
def sweep(faces: str, throws: str, max_level: str, reroll: str, ranking: str,
          aces_beat_bidou: str, exact: bool, scheduler: str | None, workers: int | None,
          dashboard: bool, yes: bool, out_dir: str, game: str, max_stake: str | None,
          half_stake: str | None, stack: str | None, ante: str | None,
          throwing: str | None, time_limit: float | None) -> None:
    """Solve a grid of rule sets in parallel on Dask: one row per rule set (resumable).

    With --game le-bidou, a grid of Le Bidou hands (--max-stake, --half-stake), each cell
    killed at --time-limit and recorded as such, the others proved and, where the exact
    recovery finishes in time, exact (le_bidou_sweep.csv).

    With --game bidu, a grid of Bidú's two-player vuelta (--stack, --ante, --throwing),
    each cell killed at --time-limit and recorded as such, the others proved in an interval
    (bidu_sweep.csv)."""
    from solver.app.progress import Progress
    from solver.pipeline import dask_cluster
    from solver.pipeline.sweep import sweep_lock

    if not out_dir.strip():
        raise ParameterError("--out: the folder name is empty")
    chosen = sweeps()[game]
    texts = {"faces": faces, "throws": throws, "max_level": max_level, "reroll": reroll,
             "ranking": ranking, "aces_beat_bidou": aces_beat_bidou,
             "max_stake": max_stake, "half_stake": half_stake, "stack": stack, "ante": ante,
             "throwing": throwing}
    given = given_options(tuple(texts) + ("exact", "time_limit"))
    _refuse_other_games(game, given)
    grid = chosen.build_grid(**{name: texts[name] for name in chosen.rules if name in given})
    if all(params.idle_rule(given) for params in grid):     # a flag no rule set reads
        refuse_idle(grid[0], given, texts)
    out = chosen.check_destination(out_dir)
    todo = len(chosen.pending(grid, chosen.read_rows(out), exact))  # a table not ours fails
    workers = _workers(scheduler, workers, dashboard, todo)
    _confirm(chosen, todo, None if scheduler else workers, exact, yes)
    options = {"exact": exact} if game == BIDOU else {"limit": time_limit or _limit(game)}
    try:
        with sweep_lock(out), Progress() as progress, \
                dask_cluster.dask_client(scheduler, workers, dashboard) as client:
            if dashboard:
                click.echo(f"dashboard: {client.dashboard_link}", err=True)
            report = chosen.run(grid, out, client, progress=progress, **options)
    except KeyboardInterrupt:
        table = out.absolute() / chosen.TABLE
        done, none = INTERRUPTED[game]
        fail(f"interrupted; the {done} so far are in {table}" if table.exists() else
             f"interrupted before any {none}", EXIT_INTERRUPTED)
    for params, why in report.failed:
        click.echo(f"failed: {params.describe()}: {why}", err=True)
    if game == BIDOU:
        _bidou_summary(report, out / chosen.TABLE)
    else:
        _limited_summary(report, out / chosen.TABLE, options["limit"])


def sweeps() -> dict[str, Any]:
    """Each game's sweep (solver/pipeline/sweep.py and its game's part), by --game."""
    from solver.pipeline.bidou_sweep import SWEEP as BIDOU_SWEEP
    from solver.pipeline.bidu_sweep import SWEEP as BIDU_SWEEP
    from solver.pipeline.le_bidou_sweep import SWEEP as LE_BIDOU_SWEEP

    return {BIDOU: BIDOU_SWEEP, LE_BIDOU: LE_BIDOU_SWEEP, BIDU: BIDU_SWEEP}


def _limit(game: str) -> float:
    """The default time limit of a cell of `game` (Le Bidou's, Bidú's)."""
    from solver.pipeline import bidu_sweep, le_bidou_sweep

    return bidu_sweep.DEFAULT_LIMIT if game == BIDU else le_bidou_sweep.DEFAULT_LIMIT


def _refuse_other_games(game: str, given: tuple[str, ...]) -> None:
    """ParameterError naming the first option given that `game` does not read: another
    game's rules (--max-level; --max-stake, --half-stake; --stack) or what its cells take."""
    for name, owners in OWNERS.items():
        if name not in given or game in owners:
            continue
        option = "--" + name.replace("_", "-")
        if game == BIDOU:                   # the default game: say which one it needs
            raise ParameterError(f"{option} applies to --game {' or '.join(owners)}")
        note = f" ({NOT_HERE[game, name]})" if (game, name) in NOT_HERE else ""
        raise ParameterError(f"{option} does not apply to --game {game}{note}")


def _workers(scheduler: str | None, workers: int | None, dashboard: bool,
             todo: int) -> int | None:
    """The local cluster's worker count (None on a --scheduler, whose address is checked
    now), before any work starts."""
    from solver.pipeline.dask_cluster import check_scheduler, local_workers

    if scheduler is not None and (workers is not None or dashboard):
        raise ParameterError(f"--{'workers' if workers is not None else 'dashboard'} applies "
                             f"to the local cluster, not to --scheduler")
    if scheduler is not None:
        check_scheduler(scheduler)
        return workers
    return local_workers(workers, todo)


def _confirm(chosen: Any, todo: int, workers: int | None, exact: bool, yes: bool) -> None:
    """More than CONFIRM_CELLS cells of a game whose time per cell is known (two-hand
    Bidou's; Le Bidou's cells each have their time limit) run only with --yes; the estimate
    is for the local cluster's `workers` (None: a --scheduler's, time unknown)."""
    from solver.pipeline.sweep import CONFIRM_CELLS

    if chosen.SECONDS_PER_CELL is None or todo <= CONFIRM_CELLS:
        return
    guess = "time unknown" if workers is None else chosen.estimate(todo, workers, exact)
    if not yes:
        raise ParameterError(f"{todo} rule sets to solve ({guess}); give --yes to run "
                             f"them, or a smaller grid")
    click.echo(f"{todo} rule sets to solve ({guess})", err=True)


def _bidou_summary(report: Any, table: Path) -> None:
    click.echo(f"{report.solved} rule sets solved, {report.skipped} already in the table, "
               f"{report.seconds:.1f} s: {table}, sweep.parquet, sweep.png")
    for params, why in report.incomplete:
        click.echo(f"{why}: {params.describe()}", err=True)
    if report.failed or report.incomplete:
        fail(f"{len(report.failed)} rule sets failed, {len(report.incomplete)} without the "
             f"exact value asked; their rows are missing or inexact", EXIT_CANNOT_VOUCH)


def _limited_summary(report: Any, table: Path, limit: float) -> None:
    """The last line of a sweep whose cells each have a time limit (Le Bidou's, Bidú's)."""
    click.echo(f"{report.solved} cells proved, {len(report.incomplete)} over the time limit "
               f"({limit:g} s), {len(report.failed)} failed, {report.skipped} already in the "
               f"table, {report.seconds:.1f} s: {table}")
    if report.failed:
        fail(f"{len(report.failed)} cells failed; their rows say why", EXIT_CANNOT_VOUCH)
