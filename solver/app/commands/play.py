"""`bidou play`: hands of Bidou against the equilibrium, with advice after each
(`solver.app.play`)."""

from __future__ import annotations

from typing import Sequence

import click

from games.bidou.params import BidouParams, ParameterError
from solver.app.answers import read_answer
from solver.app.commands.group import guarded
from solver.app.commands.options import STRATEGY_OPTION, game_options, strategy_source


@click.command("play", short_help="Play hands of Bidou against the equilibrium.",
               epilog="""\b
Examples:
  bidou play                        five hands, seats alternating
  bidou play --role captain --hands 20 --seed 1
  bidou play --strategy outputs/default/simplified_strategy.json

Type the first letters of a choice (e.g. `s` for stop); `?` shows the ranking of
hands; Ctrl-D ends the game.""")
@guarded
@game_options
@STRATEGY_OPTION
@click.option("--role", type=click.Choice(["captain", "opponent", "alternate"]),
              default="alternate", show_default=True,
              help="Your seat: the captain throws first and reveals his throw count first.")
@click.option("--hands", type=click.IntRange(min=1), default=5, show_default=True,
              help="How many hands to play.")
@click.option("--seed", type=int, default=None, help="Dice seed (default: random).")
@click.option("--round", "whole_round", is_flag=True,
              help="Play a whole round (chips, open throws) against the round's "
                   "equilibrium, read from the saved round (solved first if need be).")
@click.option("--chips", type=int, default=9, show_default=True,
              help="With --round: chips in play (3..12).")
def play(params: BidouParams, strategy_file: str | None, role: str, hands: int,
         seed: int | None, whole_round: bool, chips: int,
         rules_given: tuple[str, ...]) -> None:
    """Play hands against the equilibrium strategy, and learn from each: after every hand,
    what the equilibrium would have done with your dice and what your choices cost."""
    import numpy as np

    if chips != 9 and not whole_round:
        raise ParameterError("--chips is for a whole round: add --round")
    if whole_round:
        from solver.app.play_round import play_round_command

        return play_round_command(params, chips, seed, strategy_file)

    from solver.app import play as game
    from solver.export.bundle import unpack

    if seed is not None and seed < 0:
        raise ParameterError(f"--seed must be 0 or more, got {seed}")
    model, strategy, summary = unpack(strategy_source(params, strategy_file, rules_given))
    rng = np.random.default_rng(seed)

    def ask(prompt: str, options: Sequence[str]) -> str:
        while True:
            answer = read_answer(prompt)
            choice = game.match_choice(answer, options)
            if choice == "?":
                click.echo(game.ranking_text(model))
            elif choice is not None:
                return choice
            else:
                click.echo(f"  Please type one of: {', '.join(options)} (or ? for the ranking).")

    click.echo(game.introduction(model, summary))
    advisor = game.Advisor(model, strategy)
    score = game.Score()
    try:
        for number in range(hands):
            seat = {"captain": 0, "opponent": 1}.get(role, number % 2)
            click.echo(f"\n— Hand {number + 1} of {hands} —")
            result = game.play_hand(model, strategy, seat, rng, ask, click.echo, advisor)
            score.add(result)
            click.echo(score.line())
    except EOFError:
        click.echo("\nGame over (end of input).")
    click.echo(score.final(summary))
