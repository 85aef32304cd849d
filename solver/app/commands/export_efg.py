"""`bidou export-efg`: the faithful game `python_bidou(...)` of a small variant as a Gambit
`.efg` file, chance probabilities and payoffs as exact fractions
(`solver.checks.gambit_bridge.export_efg`), for pygambit or the Gambit GUI."""

from __future__ import annotations

import click

from games.bidou.params import BidouParams, ParameterError
from solver.app.commands.group import guarded
from solver.app.commands.options import game_options

# A .efg file has one line per history (about 20 bytes each): 200,000 make about 4 MB.
# pygambit's rational LP needs 1.8 s for 248 lines (faces 2, throws 1, max level 2) and 17 s
# for 914 (faces 3, throws 1, max level 1) on 2 shared cores: bigger files are for its
# float solvers or the GUI.
EFG_MAX_HISTORIES = 200_000


@click.command("export-efg", short_help="The game of a small variant as a Gambit .efg file.",
               epilog="""\b
Examples:
  bidou export-efg --faces 2 --throws 1 --max-level 2 --ranking french --out game.efg
  python -c "import pygambit; g = pygambit.read_efg('game.efg'); p = list(g.players); \\
    print(pygambit.nash.lp_solve(g, rational=True).equilibrium.payoffs[p[0]])"

The whole tree of python_bidou(...) with these rules, every chance probability and
payoff an exact fraction; "Player 0" is the captain (OpenSpiel's numbering). Small
variants only: refused above 200,000 histories (the default game has about 1e12).""")
@guarded
@game_options
@click.option("--out", "out_file", type=click.Path(dir_okay=False), required=True,
              help="The .efg file to write.")
def export_efg(params: BidouParams, out_file: str) -> None:
    """The faithful game of a small variant as a Gambit .efg file (exact rationals)."""
    from solver.app.commands.faithful import faithful_game
    from solver.checks.gambit_bridge import export_efg as efg_text
    from solver.common.files import check_file_destination, write_text_atomic

    check_file_destination(out_file)
    game = faithful_game(params, "export-efg", EFG_MAX_HISTORIES)
    try:
        text = efg_text(game)
    except ValueError as error:            # a number with no small exact fraction
        raise ParameterError(f"{params.to_game_string()}: {error}") from None
    write_text_atomic(out_file, text)
    click.echo(f"{out_file}: {text.count(chr(10)) - 3} nodes of {params.to_game_string()} "
               f"(Gambit .efg, exact fractions)")
