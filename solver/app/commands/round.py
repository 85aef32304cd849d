"""`bidou round`: a whole round solved and proved (`solver.pipeline.round.prove_round`),
printed, or written as JSON and charts."""

from __future__ import annotations

import json
import os
from typing import Any

import click

from games.bidou.params import BidouParams, ParameterError
from solver.app.commands.group import guarded
from solver.app.commands.options import FiniteFloat, game_options
from solver.app.commands.printing import gain
from solver.app.saved_rounds import (
    check_state,
    parse_state,
    published_hand_sheet,
    read_saved,
    solve_and_save,
)


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
        f"exploitability: {gain(entry['exploitability'], '.1e')} (win probability)",
        f"P(round ends):  {entry['p_end']:.12f}"]


def _advice_lines(saved: Any, entry: dict[str, Any]) -> list[str]:
    """The state's advice in words (`solver.round.advice.advice_lines`, at an open throw
    `solver.round.open_throw_table.open_throw_lines`), indented."""
    from solver.round.store import state_label

    advice = saved.advice.get(state_label(entry))
    if advice is None:
        return ["advice:         none (the hand game's equilibrium, to compare with, could "
                "not be proved)" if not entry["open_throw"] else
                "advice:         an open throw: `bidou round --open-throw` says when to stop"]
    from solver.round.advice import advice_lines, open_throw_lines

    if advice.get("open_throw"):
        lines = ["an open throw, no betting: each throws in the open, the first thrower "
                 "first"] + [f"- {line}" for line in open_throw_lines(advice)]
    else:
        lines = advice_lines(advice)
    return [f"advice:         {lines[0]}"] + [f"                {line}" for line in lines[1:]]


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
        f"stage games:    {_stages_line(report)}",
        f"seconds:        {report['seconds']:.1f}"]


def _stages_line(report: dict[str, Any]) -> str:
    """Which equilibrium each stage game plays, and what the refined ones' check found."""
    check = report.get("stage_check")
    from solver.round.store import REFINED

    if report.get("equilibrium") != REFINED or check is None:
        return "the LPs' vertices (off-path play may be anything; without --plain they are "\
               "refined)"
    plain = check.get("plain", [])
    kept = (f"; {len(plain)} kept the LP's vertex, their refinement failed "
            f"({', '.join(plain[:4])}{' ...' if len(plain) > 4 else ''})" if plain else "")
    passed = ("all" if check["verified"] == check["stages"] else
              f"{check['verified']} of")
    return (f"refined equilibria, {passed} {check['stages']} pass the check at every "
            f"decision (sequential.verify){kept}; the proof above is of the strategies "
            f"kept")


def _write_charts(report: dict[str, Any], state: Any, out: str, as_json: bool) -> None:
    """round.json, the win-probability chart and, for a chip state `(saved, entry,
    label)`, its charts: staged in a hidden folder and moved in together
    (`files.publish`), so a failure leaves the previous set whole."""
    from solver.common.files import publish, staging_folder, write_json_atomic
    from solver.export.round_charts import write_round_chart
    from solver.pipeline.round import saved_state_charts

    sentence = None
    with staging_folder(out) as stage:
        write_json_atomic(stage / "round.json", report)
        staged = [stage / "round.json"] + list(write_round_chart(report, stage))
        if state is not None:
            saved, entry, label = state
            paths, sentence = saved_state_charts(saved, entry, label, stage)
            staged += paths
        names = [str(os.path.relpath(path, stage)) for path in staged]
        publish(stage, out, names)
    written = [os.path.join(out, name) for name in names]
    if sentence is not None and not as_json:
        click.echo(f"difference:     {sentence}")
    if not as_json:
        click.echo("\n".join(f"wrote:          {path}" for path in written))


def _write_saved_charts(saved: Any, entry: dict[str, Any], label: str, out: str,
                        as_json: bool) -> None:
    _write_charts(saved.report, None if entry["open_throw"] else (saved, entry, label),
                  out, as_json)


@click.command("round", short_help="Solve and prove a whole round, or query one state.")
@guarded
@game_options
@click.option("--chips", type=int, default=9, show_default=True,
              help="Chips in play (3..12); a player holding them all loses the round.")
@click.option("--state", "state_text", default=None, metavar="C,CAPTAIN,OPPONENT",
              help="Only report this state (chips in the centre, the captain's and the "
                   "opponent's piles), with its advice: read from the saved round when "
                   "these rules were solved before.")
@click.option("--open-throw", "open_throw", is_flag=True,
              help="When to stop in each open throw of the round (first thrower by throw, "
                   "second by the hand to beat), from the saved round.")
@click.option("--cheatsheet", is_flag=True,
              help="--out is a folder: write the round cheat sheet there, from the saved "
                   "round: one sheet, front and back (cheatsheet_a4.pdf and "
                   "cheatsheet_letter.pdf of two pages, cheatsheet.png and "
                   "cheatsheet_back.png, cheatsheet.md): at most 12 chip rules in words over "
                   "the hand cheat sheet, their cost proved; on the back the hand ranking, "
                   "the open throws and the chance to win by chips.")
@click.option("--base", "base_text", default=None, metavar="CHEATSHEET.md|equilibrium",
              help="With --cheatsheet: the hand play the chip rules change, a hand cheat "
                   "sheet's Markdown (`bidou cheatsheet`) or 'equilibrium' (default: the "
                   "published hand cheat sheet of these rules, else the equilibrium).")
@click.option("--seconds", type=FiniteFloat(min=1), default=600, show_default=True,
              help="With --cheatsheet: the most seconds the search of chip rules may take "
                   "(the proofs of its costs come after). A search the limit stops is said "
                   "on the output and on the sheet (more chip rules may lower the cost); "
                   "the costs printed are still proved for the rules found, so it exits 0.")
@click.option("--fresh", is_flag=True,
              help="With --state, --open-throw or --cheatsheet: solve the round again even "
                   "if it was saved.")
@click.option("--verify", is_flag=True,
              help="With --state: prove the state again now (the round is solved again) "
                   "instead of relying on the saved round's proof, made when it was saved; "
                   "a saved round that disagrees is named.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--charts", is_flag=True,
              help="--out is a folder: write round.json and the win-probability chart "
                   "(PDF, PNG, SVG) there, and with --state the state's charts.")
@click.option("--out", default=None,
              help="Write the JSON report (every state) to this file (a folder with "
                   "--charts).")
@click.option("--plain", is_flag=True,
              help="The stage games keep the LPs' vertices (an arbitrary equilibrium of "
                   "each: off-path play may be anything), not their refined equilibria at "
                   "the solved values (the default, and what `bidou outputs` publishes: "
                   "advice that holds off the path, the same values; docs/round.md). "
                   "Faster.")
def round_command(params: BidouParams, chips: int, state_text: str | None, open_throw: bool,
                  cheatsheet: bool, base_text: str | None, seconds: float, fresh: bool,
                  verify: bool, as_json: bool, charts: bool, out: str | None,
                  plain: bool) -> None:
    """Solve a whole round (every chip state), each number proved in exact arithmetic, and
    keep it (the user's cache folder, $XDG_CACHE_HOME/bidou-solver or
    ~/.cache/bidou-solver; the published rounds are in outputs/round*/): a later --state
    query reads it and answers at once.

    \b
    Examples:
      bidou round                         the nine-chip round, default rules
      bidou round --chips 5 --faces 3     a small round
      bidou round --state 0,2,7           one state: its value and what changes in play
      bidou round --state 0,4,5 --json    the same as JSON, with the state's strategy
      bidou round --open-throw            when to stop in an open throw
      bidou round --cheatsheet --out DIR  the round cheat sheet, costs proved
    """
    from games.bidou.round_params import RoundParams
    from solver.common.files import check_directory_destination, check_file_destination
    from solver.round.store import PLAIN, REFINED

    rules = RoundParams(chips=chips, hand=params)
    wanted = parse_state(state_text, chips) if state_text is not None else None
    if charts and out is None:
        raise ParameterError("--charts needs --out FOLDER")
    if verify and wanted is None:
        raise ParameterError("--verify goes with --state")
    if open_throw and (wanted is not None or charts or out is not None):
        raise ParameterError("--open-throw takes neither --state, --charts nor --out")
    if open_throw and plain:
        raise ParameterError("--open-throw does not take --plain (an open throw has no "
                             "stage game to refine)")
    if open_throw:
        _open_throw_command(rules, fresh, as_json)
        return
    if base_text is not None and not cheatsheet:
        raise ParameterError("--base goes with --cheatsheet")
    if cheatsheet:
        if out is None or wanted is not None or charts or plain:
            raise ParameterError("--cheatsheet needs --out FOLDER and takes neither --state, "
                                 "--charts nor --plain")
        _cheatsheet_command(rules, _base_sheet(rules, base_text), seconds, fresh, out,
                            as_json)
        return
    if out is not None:
        (check_directory_destination if charts else check_file_destination)(out)
    if wanted is not None and state_text is not None:
        saved = None if fresh else read_saved(rules, as_json or charts,
                                              PLAIN if plain else REFINED)
        if saved is None:
            check_state(rules, wanted, state_text)
        source = None
        if verify:
            saved, source = _verified(rules, saved, wanted, plain)
        _state_command(rules, saved, wanted, state_text, as_json, charts, out, plain, source)
    else:
        _round_command(rules, as_json, charts, out, plain)


def _open_throw_command(rules: Any, fresh: bool, as_json: bool) -> None:
    """The open throws' tables (`solver.round.open_throw_table`) from the saved round's
    values, or from a solve saved now."""
    from solver.app.progress import Progress
    from solver.round.open_throw_table import (
        open_throw_markdown,
        open_throw_policies,
        open_throw_rows,
    )

    saved = None if fresh else read_saved(rules, False)
    if saved is None:
        with Progress() as progress:
            _, saved = solve_and_save(rules, progress)
    policies = open_throw_policies(rules, saved.report)
    if as_json:
        click.echo(json.dumps({"rules": rules.to_dict(),
                               "open_throws": [{"centre": p.state.centre,
                                                "first_thrower_chips": p.state.low,
                                                "second_thrower_chips": p.state.high,
                                                "value": p.value} for p in policies],
                               "decisions": open_throw_rows(rules, policies)}, indent=1))
    else:
        click.echo(open_throw_markdown(rules, policies), nl=False)


def _base_sheet(rules: Any, base_text: str | None) -> str | None:
    """The hand cheat sheet's text the chip rules change (None: the equilibrium), read and
    checked before any long work (a bad file: one line, exit 2)."""
    from solver.cheatsheet.round_rules import base_from_sheet
    from solver.cheatsheet.rulebook import RuleTextError
    from solver.common.files import read_input_file
    from solver.hand.model import build_model

    if base_text == "equilibrium":
        return None
    path = published_hand_sheet(rules.hand) if base_text is None else base_text
    if path is None:
        return None
    try:
        text = read_input_file(path, 2_000_000).decode("utf-8")
        base_from_sheet(build_model(rules.hand), text)
    except OSError as error:
        raise ParameterError(f"--base {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, RuleTextError) as error:
        raise ParameterError(f"--base {path}: not a hand cheat sheet of these rules "
                             f"({str(error)[:200]})") from None
    return text


def _cheatsheet_command(rules: Any, sheet_text: str | None, seconds: float, fresh: bool,
                        out: str, as_json: bool) -> None:
    """The round cheat sheet (`solver.pipeline.round_cheatsheet`) from the saved round,
    or from a solve saved now, written into `out` (its files together, or none); a search
    the time limit stopped is said (exit 0: the costs printed are proved all the same)."""
    from solver.app.progress import Progress
    from solver.common.files import check_directory_destination, publish, staging_folder
    from solver.export.round_cheatsheet_page import FILES, cost_rows, no_rules_line, stop_line
    from solver.pipeline.round_cheatsheet import round_cheatsheet_files, solution_from_saved

    check_directory_destination(out)
    saved = None if fresh else read_saved(rules, True)
    with Progress() as progress:
        if saved is None:
            _, saved = solve_and_save(rules, progress)
        document, files = round_cheatsheet_files(solution_from_saved(saved), sheet_text,
                                                 seconds=seconds, progress=progress)
    with staging_folder(out) as stage:
        for name in FILES:
            (stage / name).write_bytes(files[name])
        publish(stage, out, list(FILES))
    stopped = stop_line(document)
    if as_json:
        if stopped is not None:          # stdout holds the JSON alone
            click.echo(f"bidou: note: {stopped[0].lower()}{stopped[1:]}", err=True)
        click.echo(json.dumps(document, indent=1))
        return
    rules = [f"{i}. {line}." for i, line in enumerate(document["chip_rules"], 1)]
    click.echo("\n".join((rules or [no_rules_line(document)])
                         + ([stopped] if stopped is not None else [])
                         + [f"{a}: against a best reply {b}, against the equilibrium {c}"
                            for a, b, c in cost_rows(document)]
                         + [f"wrote:          {os.path.join(out, name)}" for name in FILES]))


def _verified(rules: Any, saved: Any, wanted: tuple[int, int, int], plain: bool
              ) -> tuple[Any, str]:
    """--verify: the round solved and proved now, to answer from, and where the answer
    comes from; a saved round whose proved interval of the state misses the one proved
    now is named on stderr."""
    from solver.app.progress import Progress

    with Progress() as progress:
        _, now = solve_and_save(rules, progress, plain)
    old = saved.entry(*wanted) if saved is not None else None
    new = now.entry(*wanted)
    source = "solved and proved now (--verify)"
    if old is None or new is None:
        return now, source
    if float(old["upper"]) < float(new["lower"]) or float(new["upper"]) < float(old["lower"]):
        click.echo(f"bidou: note: {saved.path} holds {old['lower']} <= value <= "
                   f"{old['upper']}, which the proof now ({new['lower']} <= value <= "
                   f"{new['upper']}) refutes: it is not what was proved", err=True)
        return now, f"{source}; {saved.path} disagrees"
    return now, f"{source}; {saved.path} agrees"


def _state_command(rules: Any, saved: Any, wanted: tuple[int, int, int], state_text: str,
                   as_json: bool, charts: bool, out: str | None, plain: bool,
                   source: str | None = None) -> None:
    """One state, from the saved round (`saved`) or from a solve saved now; `source`
    says where `saved` comes from, if not from its file."""
    from solver.app.progress import Progress
    from solver.common.files import write_json_atomic

    if source is None and saved is not None:
        source = f"read from {saved.path}, proved when saved (--verify proves it again)"
    if saved is None:
        with Progress() as progress:
            _, saved = solve_and_save(rules, progress, plain)
        source = (f"solved now and saved to {saved.path}" if saved.path is not None
                  else "solved now")
    entry = saved.entry(*wanted)
    if entry is None:
        raise ParameterError(f"--state {state_text} cannot arise in a round with these rules")
    if as_json:
        click.echo(json.dumps(_state_document(saved, entry, source), indent=1))
    else:
        click.echo("\n".join(_state_lines(rules.describe(), state_text, entry)
                             + _advice_lines(saved, entry)
                             + [f"solved:         {source}"]))
    if out is not None and charts:
        _write_saved_charts(saved, entry, state_text, out, as_json)
    elif out is not None:
        write_json_atomic(out, saved.report)
        if not as_json:
            click.echo(f"report:         {out}")


def _state_document(saved: Any, entry: dict[str, Any], source: str | None) -> dict[str, Any]:
    """--state --json: the state's numbers, advice and stage strategy, the rules and where
    they were read."""
    from solver.round.store import state_label

    label = state_label(entry)
    return {**entry, "rules": saved.report["rules"], "advice": saved.advice.get(label),
            "strategy": saved.stages().get(label), "source": source}


def _round_command(rules: Any, as_json: bool, charts: bool, out: str | None,
                   plain: bool) -> None:
    """The whole round, solved and proved now (and saved for later queries)."""
    from solver.app.progress import Progress
    from solver.common.files import write_json_atomic

    with Progress() as progress:
        proved, saved = solve_and_save(rules, progress, plain)
    if as_json:
        click.echo(json.dumps(proved.report, indent=1))
    else:
        click.echo("\n".join(_round_lines(rules.describe(), proved.report)))
        if saved.path is not None:
            click.echo(f"saved:          {saved.path}")
    if out is not None and charts:
        _write_charts(proved.report, None, out, as_json)
    elif out is not None:
        write_json_atomic(out, proved.report)
        if not as_json:
            click.echo(f"report:         {out}")
