"""`bidou round`: a whole round solved and proved (`solver.pipeline.round.prove_round`),
printed, or written as JSON and charts."""

from __future__ import annotations

import json
import os
from typing import Any

import click

from games.bidou.params import BidouParams, ParameterError
from solver.app.commands.group import guarded
from solver.app.commands.options import game_options


def _parse_state(text: str, chips: int) -> Any:
    """--state "C,CAPTAIN,OPPONENT" -> the round's state, or a one-line ParameterError."""
    from solver.round.capped import state_of

    parts = text.split(",")
    # ASCII digits only: str.isdigit() takes "²" or "٣", which int() then refuses
    if len(parts) != 3 or not all(p.strip().isascii() and p.strip().isdigit()
                                  and len(p.strip()) <= 6 for p in parts):
        raise ParameterError(f"--state must be three chip counts CENTRE,CAPTAIN,OPPONENT "
                             f"(whole numbers >= 0), got {text!r}")
    centre, captain, opponent = (int(p) for p in parts)
    if centre + captain + opponent != chips:
        raise ParameterError(f"--state {text}: the chips add up to "
                             f"{centre + captain + opponent}, not {chips} (--chips)")
    if chips in (captain, opponent):
        raise ParameterError(f"--state {text}: the round is over (a pile holds every chip)")
    return state_of(chips, centre, captain, opponent)


def _convergence_line(components: list[dict]) -> str:
    """How the cyclic components settled: rounds of stage solves, and the slowest one's
    residuals."""
    if not components:
        return "no cyclic component"
    rounds = sorted(len(c["residuals"]) for c in components)
    slowest = max(components, key=lambda c: (len(c["residuals"]), c["residuals"][0]))
    shown = ", ".join(f"{r:.0e}" for r in slowest["residuals"])
    spread = (f"{rounds[0]}" if rounds[0] == rounds[-1] else f"{rounds[0]} to {rounds[-1]}")
    return (f"{len(components)} cyclic components, {spread} rounds of stage solves each "
            f"(residuals at {slowest['states'][0]}: {shown})")


def _state_lines(rules_text: str, state_text: str, entry: dict[str, Any]) -> list[str]:
    who = "the first thrower (open throw)" if entry["open_throw"] else "the captain"
    return [
        f"rules:          {rules_text}",
        f"state:          {state_text} (centre, captain, opponent)",
        f"value:          {entry['value']:.12f} = P({who} wins the round)",
        f"certified:      {entry['lower']} <= value <= {entry['upper']}",
        f"exploitability: {entry['exploitability']:.1e} (win probability)",
        f"P(round ends):  {entry['p_end']:.12f}"]


def _round_lines(rules_text: str, report: dict[str, Any]) -> list[str]:
    return [
        f"rules:          {rules_text}",
        f"start value:    {report['start_value']:.12f} = P(the first captain wins "
        f"the round)",
        f"certified:      {report['start_lower']} <= start value <= "
        f"{report['start_upper']}",
        f"states:         {len(report['states'])}, every one proved (widest interval "
        f"{report['max_width']:.1e}); every round ends with probability 1, whatever "
        f"either player does (proved)",
        f"convergence:    {_convergence_line(report['convergence'])}",
        f"seconds:        {report['seconds']:.1f}"]


def _write_charts(proved: Any, wanted: Any, state_text: str | None, out: str,
                  as_json: bool) -> None:
    """round.json, the win-probability chart and, for one chip state, its charts: staged
    in a hidden folder and moved in together (`files.publish`), so a failure leaves the
    previous set whole."""
    from solver.export.round_charts import write_round_chart
    from solver.files import publish, staging_folder, write_json_atomic
    from solver.pipeline.round import state_charts
    from solver.round.states import ChipState

    sentence = None
    with staging_folder(out) as stage:
        write_json_atomic(stage / "round.json", proved.report)
        staged = [stage / "round.json"] + list(write_round_chart(proved.report, stage))
        if isinstance(wanted, ChipState) and state_text is not None:
            paths, sentence = state_charts(proved, wanted, state_text, stage)
            staged += paths
        names = [str(os.path.relpath(path, stage)) for path in staged]
        publish(stage, out, names)
    written = [os.path.join(out, name) for name in names]
    if sentence is not None and not as_json:
        click.echo(f"difference:     {sentence}")
    if not as_json:
        click.echo("\n".join(f"wrote:          {path}" for path in written))


@click.command("round", short_help="Solve and prove a whole round (every chip state).")
@guarded
@game_options
@click.option("--chips", type=int, default=9, show_default=True,
              help="Chips in play (3..12); a player holding them all loses the round.")
@click.option("--state", "state_text", default=None, metavar="C,CAPTAIN,OPPONENT",
              help="Only report this state (chips in the centre, the captain's and the "
                   "opponent's piles).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--charts", is_flag=True,
              help="--out is a folder: write round.json and the win-probability chart "
                   "(PDF, PNG, SVG) there.")
@click.option("--out", default=None,
              help="Write the JSON report (every state) to this file (a folder with "
                   "--charts).")
def round_command(params: BidouParams, chips: int, state_text: str | None, as_json: bool,
                  charts: bool, out: str | None) -> None:
    """Solve a whole round (every chip state), each number proved in exact arithmetic.

    \b
    Examples:
      bidou round                         the nine-chip round, default rules
      bidou round --chips 5 --faces 3     a small round
      bidou round --state 0,4,5 --json    one state of the round
    """
    from games.bidou.round_params import RoundParams
    from solver.app.progress import Progress
    from solver.files import check_directory_destination, check_file_destination, write_json_atomic
    from solver.pipeline.round import prove_round
    from solver.round.states import state_graph

    rules = RoundParams(chips=chips, hand=params)
    wanted = _parse_state(state_text, chips) if state_text is not None else None
    if wanted is not None and wanted not in state_graph(chips, params.max_level):
        raise ParameterError(f"--state {state_text} cannot arise in a round with these rules")
    if charts and out is None:
        raise ParameterError("--charts needs --out FOLDER")
    if out is not None:
        (check_directory_destination if charts else check_file_destination)(out)
    with Progress() as progress:
        proved = prove_round(rules, progress=progress)
    if as_json:
        shown = proved.state(wanted) if wanted is not None else proved.report
        click.echo(json.dumps(shown, indent=1))
    elif wanted is not None and state_text is not None:
        click.echo("\n".join(_state_lines(rules.describe(), state_text, proved.state(wanted))))
    else:
        click.echo("\n".join(_round_lines(rules.describe(), proved.report)))
    if out is not None and charts:
        _write_charts(proved, wanted, state_text, out, as_json)
    elif out is not None:
        write_json_atomic(out, proved.report)
        if not as_json:
            click.echo(f"report:         {out}")
