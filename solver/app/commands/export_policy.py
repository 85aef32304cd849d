"""`bidou export-policy`: a solved strategy (of the rules, or a strategy file) as an
OpenSpiel tabular policy of the faithful game `python_bidou(...)` with the same rules, in
the policy-file format of `bidou lp --out` (`solver.export.policy`, docs/exports.md)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import click

from games.bidou.params import BidouParams
from solver.app.commands.group import guarded
from solver.app.commands.options import STRATEGY_OPTION, game_options, strategy_source
from solver.common.types import Exact
from solver.hand.model import HandModel

# What the policy file's `result` keeps of the measured summary.
RESULT_KEYS = ("method", "status", "value", "on_policy_value", "exploitability", "nash_conv",
               "captain_exploitability", "opponent_exploitability", "certified_value")


@click.command("export-policy", short_help="A solved strategy as an OpenSpiel policy file.",
               epilog="""\b
Examples:
  bidou export-policy --faces 2 --throws 2 --out policy.json
  bidou solve --faces 3 --throws 1 --exact --out s.json
  bidou export-policy --strategy s.json --out policy.json     exact fractions too

The file lists, for every information state of python_bidou(...) with the same rules,
the OpenSpiel action ids and their probabilities (and their exact fractions when the
strategy has them); docs/exports.md has the lines that load it into
open_spiel.python.policy.TabularPolicy. Small variants only: the policy lists
every state of the faithful game (refused above 1,000,000 histories; the default
game has about 1e12).""")
@guarded
@game_options
@STRATEGY_OPTION
@click.option("--out", "out_file", type=click.Path(dir_okay=False), required=True,
              help="The policy file to write (JSON).")
@click.option("--exact", is_flag=True,
              help="Recover the exact rational equilibrium first and write its fractions "
                   "too; exit 1 if it cannot. A strategy file that holds exact "
                   "probabilities (`bidou solve --exact --out`) needs no flag.")
def export_policy(params: BidouParams, strategy_file: str | None, out_file: str,
                  exact: bool, rules_given: tuple[str, ...]) -> None:
    """The solved strategy of the rules (or of a strategy file) as an OpenSpiel tabular
    policy of python_bidou(...) with the same rules: a JSON policy file, with the exact
    fractions when the strategy has them."""
    from solver.app.commands.faithful import faithful_game
    from solver.checks.openspiel_bridge import to_openspiel_policy
    from solver.common.files import check_file_destination
    from solver.export.bundle import unpack
    from solver.export.policy import (
        PlayerPolicy,
        players_from_tabular,
        policy_document,
        write_policy,
    )
    from solver.pipeline.hand import exact_source

    check_file_destination(out_file)
    # too big a game is refused before solving (a strategy file's rules are known once read)
    game = faithful_game(params, "export-policy") if strategy_file is None else None
    source, fractions = exact_source(strategy_source(params, strategy_file, rules_given),
                                     strategy_file, exact)
    model, strategy, summary = unpack(source, fractions)
    game = game or faithful_game(model.params, "export-policy")
    tabular = to_openspiel_policy(game, strategy, model)
    players: list[PlayerPolicy] = list(players_from_tabular(tabular))
    if fractions is not None:
        players = list(_exact_players(model, tabular, fractions))
    result = {"rules": model.params.to_dict(),
              **{key: summary[key] for key in RESULT_KEYS if key in summary}}
    document = policy_document(model.params.to_game_string(), players, result)
    write_policy(out_file, document)
    click.echo(f"{out_file}: {len(tabular.states)} information states of "
               f"{model.params.to_game_string()}; "
               f"exploitability {summary.get('exploitability', float('nan')):.3g}")


def _exact_players(model: HandModel, tabular: Any, fractions: Exact
                   ) -> list[dict[str, dict[int, Fraction]]]:
    """Both players' exact strategies per faithful information state: each state plays
    the exact probabilities of the compact decision it ends in (legal actions only,
    normalised exactly)."""
    from solver.checks.openspiel_bridge import faithful_decisions

    key_of = {row: key for key, row in tabular.state_lookup.items()}
    players: list[dict[str, dict[int, Fraction]]] = [{}, {}]
    for row, legal, decision, index in faithful_decisions(model, tabular):
        probs = [Fraction(fractions[decision][i]) for i in index]
        total = sum(probs, Fraction(0))
        player = tabular.states[row].current_player()
        players[player][key_of[row]] = {a: p / total for a, p in zip(legal, probs)}
    return players
