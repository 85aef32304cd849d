"""`bidou export-policy`: a solved strategy (of the rules, or a strategy file) as an
OpenSpiel tabular policy of the faithful game `python_bidou(...)` with the same rules, in
the policy-file format of `bidou lp --out` (`solver.export.policy`, docs/exports.md)."""

from __future__ import annotations

import click

from games.bidou.params import BidouParams
from solver.app.commands.group import guarded
from solver.app.commands.options import STRATEGY_OPTION, game_options, strategy_source

# What the policy file's `result` keeps of the measured summary.
RESULT_KEYS = ("method", "status", "value", "on_policy_value", "exploitability", "nash_conv",
               "captain_exploitability", "opponent_exploitability", "certified_value")


@click.command("export-policy", short_help="A solved strategy as an OpenSpiel policy file.",
               epilog="""\b
Examples:
  bidou export-policy --faces 2 --throws 2 --out policy.json
  bidou solve --faces 3 --throws 1 --out s.json
  bidou export-policy --strategy s.json --out policy.json

The file lists, for every information state of python_bidou(...) with the same rules,
the OpenSpiel action ids and their probabilities; docs/exports.md has the five lines
that load it into open_spiel.python.policy.TabularPolicy. Small variants only: the
policy lists every state of the faithful game (refused above 1,000,000 histories;
the default game has about 1e12).""")
@game_options
@STRATEGY_OPTION
@click.option("--out", "out_file", type=click.Path(dir_okay=False), required=True,
              help="The policy file to write (JSON).")
@guarded
def export_policy(params: BidouParams, strategy_file: str | None, out_file: str,
                  rules_given: tuple[str, ...]) -> None:
    """The solved strategy of the rules (or of a strategy file) as an OpenSpiel tabular
    policy of python_bidou(...) with the same rules: a JSON policy file."""
    from solver.app.commands.faithful import faithful_game
    from solver.checks.openspiel_bridge import to_openspiel_policy
    from solver.export.bundle import unpack
    from solver.export.policy import players_from_tabular, policy_document, write_policy
    from solver.files import check_file_destination

    check_file_destination(out_file)
    # too big a game is refused before solving (a strategy file's rules are known once read)
    game = faithful_game(params, "export-policy") if strategy_file is None else None
    source = strategy_source(params, strategy_file, rules_given)
    model, strategy, summary = unpack(source)
    game = game or faithful_game(model.params, "export-policy")
    tabular = to_openspiel_policy(game, strategy, model)
    result = {"rules": model.params.to_dict(),
              **{key: summary[key] for key in RESULT_KEYS if key in summary}}
    document = policy_document(model.params.to_game_string(), players_from_tabular(tabular),
                               result)
    write_policy(out_file, document)
    click.echo(f"{out_file}: {len(tabular.states)} information states of "
               f"{model.params.to_game_string()}; "
               f"exploitability {summary.get('exploitability', float('nan')):.3g}")
