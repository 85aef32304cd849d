"""`bidou montevideo`: the heads-up end of Montevideo solved and proved
(`solver.pipeline.montevideo`): every state's chance for the captain to end with every chip,
one state's value and its push-or-fold play in words, the report as JSON and its charts.
The default rules are answered from the published report (outputs/montevideo/), checked;
--fresh solves."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import click

from games.montevideo.heads_up import HeadsUpParams, HeadsUpState, parse_state
from games.montevideo.params import MontevideoParams, ParameterError
from solver.app.commands.group import guarded

ALWAYS, NEVER = 0.999, 0.001          # a share read as "always" or "never" in words
NAMED = 8                             # hands named in one list of words

MEANING = ("value: the captain's chance of ending with every chip; the other player's is one "
           "minus it. chips: the captain's share of the chips, what counting chips would "
           "say. Proved: both strategies' guarantees, in exact arithmetic.")


def published_path() -> Path:
    from solver.app.saved_rounds import outputs_root
    from solver.pipeline.montevideo import REPORT_NAME

    return outputs_root() / "montevideo" / REPORT_NAME


def heads_up_params(players: int, chips: int, faces: int, throws: int) -> HeadsUpParams:
    """The heads-up end of a game of `players` with `chips` each; a one-line ParameterError
    naming the option otherwise."""
    try:
        game = MontevideoParams(players=players, chips=chips, faces=faces, throws=throws)
    except ParameterError as error:
        text = str(error)
        name = text.split(" ", 1)[0]
        raise ParameterError(f"--{name}{text[len(name):]}") from None
    try:
        return HeadsUpParams.of_game(game)
    except ParameterError as error:
        raise ParameterError(f"--players {players} --chips {chips}: {error}") from None


def _hands_in_words(hands: list[str], names: list[str]) -> str:
    """A list of hands, shortened: a run of the strongest hands as "the k strongest, A down
    to B"."""
    if not names:
        return "none"
    if names == hands[:len(names)] and len(names) > 2:
        return f"the {len(names)} strongest, {names[0]} down to {names[-1]}"
    more = f" and {len(names) - NAMED} more" if len(names) > NAMED else ""
    return ", ".join(names[:NAMED]) + more


def _amount(action: str) -> int:
    """A first action's chips: 0 for a check, n for "bet n"."""
    return 0 if action == "check" else int(action.rsplit(" ", 1)[1])


def push_fold_lines(hands: list[str], push: dict[str, Any] | None) -> list[str]:
    if push is None:
        return ["play:           a player is all in by the ante: no betting, the hands are "
                "shown"]
    lines = []
    openings: dict[str, list[str]] = {}
    for hand, action in zip(hands, push["opening"]):
        if action is not None:
            openings.setdefault(action, []).append(hand)
    for action, names in sorted(openings.items(), key=lambda item: _amount(item[0])):
        shown = f"{action} (all in)" if action == push["all_in_bet"] else action
        lines.append(f"captain leading the betting, most often {shown}: "
                     f"{_hands_in_words(hands, names)}")
    for key, who in (("all_in", "captain leading the betting, all in at once"),
                     ("call", "other player facing that all in, calls")):
        shares = push[key]
        if all(p is None for p in shares):
            lines.append(f"{who}: never met (nobody goes all in at once here)")
            continue
        always = [h for h, p in zip(hands, shares) if p is not None and p >= ALWAYS]
        mixed = [f"{h} ({100 * p:.1f}%)" for h, p in zip(hands, shares)
                 if p is not None and NEVER < p < ALWAYS]
        if not always and not mixed:
            lines.append(f"{who}: never")
            continue
        said = f"always with {_hands_in_words(hands, always)}" if always else ""
        if mixed:
            shown = ", ".join(mixed[:NAMED]) + (f" and {len(mixed) - NAMED} more"
                                                if len(mixed) > NAMED else "")
            said += ("; " if said else "") + f"sometimes with {shown}"
        lines.append(f"{who}: {said}")
    return ["play (stage equilibrium, hands after the last throw):"] + \
        [f"  {line}" for line in lines]


def _state_lines(report: dict[str, Any], state: HeadsUpState, source: str) -> list[str]:
    from solver.pipeline.montevideo import entry_of

    entry = entry_of(report, state)
    params = HeadsUpParams.from_dict(report["rules"])
    return [
        f"rules:          {params.describe()}",
        f"state:          captain {state.captain} chips, other player {state.opponent}, "
        f"ante {state.ante}",
        f"value:          {entry['value']:.12f} = P(the captain ends with every chip)",
        f"proved:         {entry['lower']} <= value <= {entry['upper']}",
        f"exploitability: captain {entry['captain_exploitability']:.1e}, other player "
        f"{entry['other_exploitability']:.1e} (what a best reply over the whole game "
        f"gains, in win probability)",
        f"chips:          {entry['chip_share']:.12f} (edge of the captaincy and the play "
        f"over counting chips: {entry['value'] - entry['chip_share']:+.6f})",
        f"equilibrium:    {report['equilibrium']} (not refined: where a stage's play never "
        f"goes, its actions are the LP's)",
        *push_fold_lines(report["hands"], entry["push_fold"]),
        f"source:         {source}",
    ]


def _lines(report: dict[str, Any], source: str, seconds: str) -> list[str]:
    params = HeadsUpParams.from_dict(report["rules"])
    lines = [
        f"rules:          {params.describe()}",
        f"status:         {report['status']}: {len(report['states'])} states (widest "
        f"interval {report['max_width']:.1e}); every game ends with probability 1 whatever "
        f"either player does (proved: at most {report['longest']:.2f} rounds expected at "
        f"ante 6)",
        f"exploitability: at most {report['max_exploitability']['captain']:.1e} (the "
        f"captains' strategies), {report['max_exploitability']['other']:.1e} (the other "
        f"players'), in win probability over the whole game",
        f"seconds:        {seconds}",
        f"source:         {source}",
        f"meaning:        {MEANING}",
        "",
        "captain  other  ante  value           proved interval                        chips"]
    for e in report["states"]:
        lines.append(f"{e['captain']:>7}  {e['opponent']:>5}  {e['ante']:>4}  "
                     f"{e['value']:.12f}  [{e['lower']}, {e['upper']}]  "
                     f"{e['chip_share']:.4f}")
    return lines


def _write(report: dict[str, Any], out: str) -> list[str]:
    """heads-up.json and the charts, staged in a hidden folder and moved in together."""
    from solver.common.files import publish, staging_folder, write_json_atomic
    from solver.export.montevideo_charts import write_montevideo_charts
    from solver.pipeline.montevideo import REPORT_NAME

    with staging_folder(out) as stage:
        write_json_atomic(stage / REPORT_NAME, report)
        staged = [stage / REPORT_NAME, *write_montevideo_charts(report, stage)]
        names = [str(os.path.relpath(path, stage)) for path in staged]
        publish(stage, out, names)
    return [os.path.join(out, name) for name in names]


@click.command("montevideo", short_help="Solve and prove Montevideo's heads-up end.")
@guarded
@click.option("--players", type=int, default=3, show_default=True,
              help="Players at the start (2..4): every chip ends between the last two.")
@click.option("--chips", type=int, default=6, show_default=True,
              help="Each player's chips at the start (1..24).")
@click.option("--faces", type=int, default=6, show_default=True, help="Sides of each die (2..6).")
@click.option("--throws", type=int, default=3, show_default=True,
              help="Most throws in a turn (1..3; 1 is the pure poker reading).")
@click.option("--state", "state_text", default=None, metavar="CAPTAIN,OTHER,ANTE",
              help="Only report this state (the captain's chips, the other player's, the "
                   "round's ante), with its play in words; its round is solved again "
                   "against the report's values, which must give its value.")
@click.option("--fresh", is_flag=True, help="Solve even where a published report exists.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--out", default=None,
              help="A folder: write heads-up.json (every state) and the charts there "
                   "(win_probability and push_fold, each .pdf, .png, .svg).")
def montevideo(players: int, chips: int, faces: int, throws: int, state_text: str | None,
               fresh: bool, as_json: bool, out: str | None) -> None:
    """Solve the heads-up end of Montevideo (docs/montevideo.md): once two players are left
    the ante rises round by round to six, and the last with chips wins. Every state (each
    split of the chips, each ante, either player captain) gets the captain's chance of
    ending with every chip, proved in exact arithmetic.

    \b
    Examples:
      bidou montevideo                          18 chips (three players of six), from the
                                                published report
      bidou montevideo --state 10,8,2           one state, with its push-or-fold play
      bidou montevideo --chips 3 --faces 3 --throws 1 --fresh   a small game, in seconds
      bidou montevideo --out montevideo         heads-up.json and the charts
    """
    from solver.app.progress import Progress
    from solver.common.files import check_directory_destination
    from solver.pipeline.montevideo import (
        ReportError,
        prove_heads_up,
        read_report,
        solve_state_again,
    )

    params = heads_up_params(players, chips, faces, throws)
    state = None
    if state_text is not None:
        state = parse_state(state_text)
        params.check_state(state)
    if out is not None:
        check_directory_destination(out)
    begin = time.perf_counter()
    path = published_path()
    with Progress(enabled=False if as_json else None) as progress:
        report = None
        if not fresh and path.is_file() and params == HeadsUpParams():
            try:
                report = read_report(path, params)
                source = f"published report ({path.name}), checked"
            except ReportError as error:
                raise ParameterError(str(error)) from None
        timing, from_file = "", report is not None
        if report is None:
            proved = prove_heads_up(params, progress=progress)
            report = proved.report
            source = "solved and proved now"
            timing = f" (solve {proved.solve_seconds:.1f}, proof {proved.prove_seconds:.1f})"
        if state is not None and from_file:
            progress(f"solving the round of {state.label()} again", 0, 0)
            try:
                solve_state_again(report, state)
            except ReportError as error:
                raise ParameterError(f"{path}: {error}") from None
            source += "; this state's round solved again now"
    seconds = time.perf_counter() - begin
    if state is not None:
        from solver.pipeline.montevideo import entry_of

        if as_json:
            click.echo(json.dumps({"rules": report["rules"], "state": entry_of(report, state),
                                   "hands": report["hands"], "source": source,
                                   "seconds": seconds, "meaning": MEANING}, indent=1))
        else:
            click.echo("\n".join(_state_lines(report, state, source)))
    elif as_json:
        click.echo(json.dumps(report, indent=1))
    else:
        click.echo("\n".join(_lines(report, source, f"{seconds:.1f}{timing}")))
    if out is not None:
        written = _write(report, out)
        if not as_json:
            click.echo("\n".join(f"wrote:          {p}" for p in written))
