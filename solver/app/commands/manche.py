"""`bidou manche`: a whole manche of Le Bidou solved and proved
(`solver.pipeline.manche.prove_manche`), with the match on top; printed, or written as JSON
and a win-probability chart."""

from __future__ import annotations

import json
import os
from typing import Any

import click

from games.bidou.params import RANKINGS, REROLL_MODES, ParameterError
from games.le_bidou.manche import MATCH_STARTS, MancheParams
from games.le_bidou.params import LeBidouParams
from games.le_bidou.stakes import HALF_STAKE_ROUNDING, STAKE_LIMIT
from solver.app.commands.group import guarded
from solver.app.commands.options import given_options, option_error, refuse_idle


def manche_params(**rules: Any) -> MancheParams:
    """The rules from the options, or a one-line ParameterError naming the option."""
    try:
        return MancheParams(**rules)
    except ParameterError as error:
        raise option_error(error, rules) from None


def _lines(params: MancheParams, report: dict[str, Any]) -> list[str]:
    match = report["match"]
    played = [s for s in report["states"] if not s["decided"]]
    lines = [
        f"rules:          {params.describe()}",
        f"start value:    {report['start_value']:.12f} = P(the first player wins the manche)",
        f"certified:      {report['start_lower']} <= start value <= {report['start_upper']}",
        f"match:          {match['value']:.12f} = P(the first manche's first player wins "
        f"the match; the {match['match_start']} of a manche starts the next)",
        f"certified:      {match['lower']} <= match <= {match['upper']}",
        f"states:         {len(report['states'])}, {len(played)} played and "
        f"{len(report['states']) - len(played)} decided, every one proved (widest "
        f"interval {report['max_width']:.1e}); every manche ends with probability 1, "
        f"whatever either player does (proved)",
        f"seconds:        {report['seconds']:.1f} (solve {report['solve_seconds']:.1f}, "
        f"proving beside it; the last pool's proof {report['prove_seconds']:.1f})",
        "",
        "pool  first  second  value           proved interval                      "
        "exploitability"]
    for s in report["states"]:
        note = "decided" if s["decided"] else f"{s['exploitability']:.1e}"
        lines.append(f"{s['centre']:>4}  {s['captain']:>5}  {s['opponent']:>6}  "
                     f"{s['value']:.12f}  [{s['lower']}, {s['upper']}]  {note}")
    return lines


def _write(report: dict[str, Any], out: str) -> list[str]:
    """manche.json and the win-probability chart (PDF, PNG, SVG), staged in a hidden folder
    and moved in together (`files.publish`)."""
    from solver.common.files import publish, staging_folder, write_json_atomic
    from solver.export.manche_chart import write_manche_chart

    with staging_folder(out) as stage:
        write_json_atomic(stage / "manche.json", report)
        staged = [stage / "manche.json", *write_manche_chart(report, stage)]
        names = [str(os.path.relpath(path, stage)) for path in staged]
        publish(stage, out, names)
    return [os.path.join(out, name) for name in names]


@click.command("manche", short_help="Solve and prove a manche of Le Bidou, and the match.")
@guarded
@click.option("--chips", type=int, default=9, show_default=True,
              help=f"Chips in the pool at the start (1..{STAKE_LIMIT}); fewer chips received "
                   f"wins the manche.")
@click.option("--faces", type=int, default=6, show_default=True, help="Sides of each die (2..6).")
@click.option("--throws", type=int, default=3, show_default=True,
              help="Most throws in a turn (1..3).")
@click.option("--reroll", type=click.Choice(REROLL_MODES), default="keep", show_default=True,
              help="Throw all three dice again, or keep some aside.")
@click.option("--ranking", type=click.Choice(RANKINGS), default="french", show_default=True,
              help="Ranking of hands (`bidou stats` lists it).")
@click.option("--aces-beat-bidou/--no-aces-beat-bidou", default=True, show_default=True,
              help="French ranking only: 1-1-1 beats the bidou 2-1-1.")
@click.option("--half-stake", type=click.Choice(HALF_STAKE_ROUNDING), default="up",
              show_default=True,
              help="Half of an odd first stake, paid by a withdrawal, rounded up or down "
                   "(at least one chip).")
@click.option("--max-stake", type=int, default=None,
              help="A cap on stakes (1..--chips; default none: a stake is at most the chips "
                   "left in the pool, the rules').")
@click.option("--match-start", type=click.Choice(MATCH_STARTS), default="winner",
              show_default=True,
              help="Who is first in the second manche and the belle: the winner of the "
                   "manche before, its loser, or a die (docs/rules.md section 5).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--out", default=None,
              help="A folder: write manche.json (every state) and the win-probability chart "
                   "(win_probability.pdf, .png, .svg) there.")
def manche(chips: int, faces: int, throws: int, reroll: str, ranking: str,
           aces_beat_bidou: bool, half_stake: str, max_stake: int | None, match_start: str,
           as_json: bool, out: str | None) -> None:
    """Solve a whole manche of Le Bidou (every state: chips left in the pool, chips each
    player has received), each number proved in exact arithmetic, and the match (two
    manches and a belle) on top, its stages side by side on worker processes
    (docs/manche.md; README.md, "How long things take").

    \b
    Examples:
      bidou manche --chips 5 --faces 3 --throws 2      a small manche, in seconds
      bidou manche --json                              the nine-chip manche as JSON
      bidou manche --out manche                        manche.json and the chart
    """
    from solver.app.progress import Progress
    from solver.common.files import check_directory_destination
    from solver.pipeline.manche import prove_manche

    refuse_idle(LeBidouParams(ranking=ranking), given_options(("aces_beat_bidou",)),
                {"aces_beat_bidou": aces_beat_bidou})
    params = manche_params(chips=chips, faces=faces, throws=throws, reroll=reroll,
                           ranking=ranking, aces_beat_bidou=aces_beat_bidou,
                           half_stake=half_stake, max_stake=max_stake, match_start=match_start)
    if out is not None:
        check_directory_destination(out)
    with Progress() as progress:
        proved = prove_manche(params, progress=progress)
    report = proved.report
    if as_json:
        click.echo(json.dumps(report, indent=1))
    else:
        click.echo("\n".join(_lines(params, report)))
    if out is not None:
        written = _write(report, out)
        if not as_json:
            click.echo("\n".join(f"wrote:          {path}" for path in written))
