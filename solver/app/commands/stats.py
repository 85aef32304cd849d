"""`bidou stats`: the ranking of hands, their odds and what each beats."""

from __future__ import annotations

import json

import click

from games.bidou.params import BidouParams
from solver.app.commands.group import guarded
from solver.app.commands.options import game_options


@click.command("stats", short_help="The ranking of hands, their odds and what each beats.",
               epilog="""\b
Examples:
  bidou stats
  bidou stats --ranking french --json""")
@guarded
@game_options(only=("faces", "ranking", "aces_beat_bidou"))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def stats(params: BidouParams, as_json: bool) -> None:
    """The ranking table: every hand, strongest first, its probability and what it beats.

    Only the dice and the ranking matter here: the throws and the betting rules do not
    change which hand beats which."""
    from games.bidou.stats import stats_json, stats_text

    if as_json:
        click.echo(json.dumps(stats_json(params), indent=1))
    else:
        click.echo(stats_text(params))
