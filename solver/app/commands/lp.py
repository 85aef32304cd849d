"""`bidou lp`: the sequence-form LP of any small OpenSpiel game
(`solver.checks.openspiel_lp`); the only command that imports pyspiel."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import Iterator

import click

from games.bidou.params import ParameterError
from solver.app.commands.group import guarded


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence native code writing to file descriptor 2 for the duration."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@click.command("lp", short_help="Sequence-form LP of a small OpenSpiel game.",
               epilog="""\b
Examples:
  bidou lp kuhn_poker                       value -1/18 to player 0
  bidou lp "python_bidou(faces=3,throws=1)"
  bidou lp leduc_poker --json""")
@click.argument("game_string")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@guarded
def lp(game_string: str, as_json: bool) -> None:
    """Sequence-form LP of any small two-player zero-sum OpenSpiel game (e.g. kuhn_poker)."""
    import pyspiel

    import games.bidou.game  # noqa: F401  (registers python_bidou)
    from solver.checks.openspiel_lp import solve_openspiel_game

    try:
        with _quiet_stderr():         # OpenSpiel prints every known game name on failure
            game = pyspiel.load_game(game_string)
    except (pyspiel.SpielError, ValueError, RuntimeError) as error:
        first_line = (str(error).splitlines() or [""])[0].split(". Available")[0]
        raise ParameterError(f"cannot load game {game_string!r}: {first_line}") from None
    try:
        with _quiet_stderr():         # OpenSpiel also prints its exceptions on stderr itself
            solution = solve_openspiel_game(game)
    except ValueError as error:
        raise ParameterError(str(error)) from None
    except pyspiel.SpielError as error:       # the game's own code failed on a state
        first_line = (str(error).splitlines() or [""])[0]
        raise ParameterError(f"game {game_string!r} failed while being walked: "
                             f"{first_line}") from None
    # the same words as `bidou solve`: a solution that is returned is optimal (any other
    # linprog status raises); scipy's own code is kept beside it
    summary = {"game": game_string, "value": solution.value, "status": "optimal",
               "linprog_status": solution.status, "message": solution.message,
               "seconds": solution.seconds, "num_sequences": list(solution.num_sequences)}
    if as_json:
        click.echo(json.dumps(summary, indent=1))
    else:
        click.echo(f"{game_string}: value {solution.value:+.12f} to player 0 "
                   f"({solution.message}, {solution.seconds:.3f} s)")
