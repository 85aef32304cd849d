"""`bidou evaluate`: a strategy file measured again (`solver.pipeline.hand.file_report`)."""

from __future__ import annotations

import json
from typing import Any

import click

from games.catalog import GAMES, GameParams, params_from_rules
from solver.app.commands.group import guarded
from solver.app.commands.options import game_options, strategy_source
from solver.app.commands.printing import gain, proved
from solver.hand.strategy import StrategyFileError


def _report_lines(report: dict[str, Any], recorded_game_value: float | None) -> list[str]:
    """The report as text. The game value the exploitabilities are compared with is the
    one the exact probabilities prove; else the one the file records (a simplified or
    cheat-sheet strategy records its equilibrium's), said to be the file's, and only if
    the interval the strategies prove contains it (StrategyFileError otherwise)."""
    from solver.hand.exact.certificate import Certificate

    rules = params_from_rules(report["rules"])
    proof = Certificate.from_dict(report["certified_value"])
    game_value: float | None = None if proof.exact is None else float(proof.exact)
    source = ""
    if recorded_game_value is not None and not proof.contains(recorded_game_value):
        low, high = (float(bound) for bound in (proof.lower, proof.upper))
        raise StrategyFileError(f"result.game_value recorded in the strategy file "
                                f"({recorded_game_value:+.6f}) lies outside the interval its "
                                f"strategies prove [{low:+.6f}, {high:+.6f}]: was it edited?")
    if game_value is None and recorded_game_value is not None:
        game_value, source = recorded_game_value, ", as the file records it"
    pair = report["on_policy_value"]
    claimed = report["claimed"]
    solved_by = (f"{claimed['method']} ({claimed['status']}), as the file claims; the numbers "
                 f"below are measured" if claimed["method"] else "not recorded")
    lines = [
        f"rules:          {rules.describe()} (the file's)",
        f"solved by:      {solved_by}",
        f"pair value:     {pair:+.12f} chips per hand to the captain, both playing the "
        f"file's strategies",
        f"exploitability: {gain(report['exploitability'])} (NashConv / 2, the mean of the two "
        f"below)",
    ]
    for side, key, who in (("captain", "captain_exploitability", "opponent"),
                           ("opponent", "opponent_exploitability", "captain")):
        line = (f"  vs {side + ':':9s} a best-responding {who} wins {gain(report[key])} more "
                f"than the pair value")
        if game_value is not None:
            beyond = (float(game_value) - (pair - report[key]) if side == "captain"
                      else pair + report[key] - float(game_value))
            line += (f" ({gain(beyond)} more than the game value {game_value:+.6f}"
                     f"{source})")
        lines.append(line)
    lines.append(f"certified:      {proved(report['certified_value'], 'game value')}")
    return lines


@click.command("evaluate", short_help="Measure a strategy file: value, exploitability, proof.",
               epilog="""\b
Examples:
  bidou evaluate --strategy s.json
  bidou evaluate --strategy outputs/default/simplified_strategy.json --json""")
@guarded
@game_options(games=True)
@click.option("--strategy", "strategy_file", type=click.Path(dir_okay=False), required=True,
              help="A strategy file (`bidou solve --out`, `simplified_strategy.json`, ...; "
                   "docs/strategy-file.md says how to write one by hand).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def evaluate(params: GameParams, strategy_file: str, as_json: bool,
             rules_given: tuple[str, ...]) -> None:
    """Measure a strategy file: the value of its strategy pair, what a best response wins
    against each side, and the interval of the game value it proves in exact arithmetic
    (the value itself when the file holds an exact equilibrium). Nothing recorded in the
    file is trusted; the rules are the file's own (rules options must agree with them)."""
    from solver.pipeline.hand import file_report

    source = strategy_source(params, strategy_file, rules_given, games=GAMES)
    assert isinstance(source, tuple)                # a strategy file is read, not solved
    report, recorded_game_value = file_report(source, strategy_file)
    lines = _report_lines(report, recorded_game_value)      # checks the recorded value
    if recorded_game_value is not None:
        report["claimed"]["game_value"] = recorded_game_value
    if as_json:
        click.echo(json.dumps(report, indent=1))
    else:
        click.echo("\n".join(lines))
