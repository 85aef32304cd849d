"""The `bidou` command: thin shells over library functions that the tests call directly.

Every failure a user can cause (bad parameters, unreadable files, unusable destinations) is
one line on stderr and exit status 2; a solver that cannot vouch for its answer exits 1;
Ctrl-C exits 130 and SIGTERM 143, leaving no temporary file behind.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import math
import os
import sys
from typing import Any, Callable

import click

from games.bidou.params import RANKINGS, REROLL_MODES, BidouParams, ParameterError
from solver.app.signals import EXIT_INTERRUPTED, EXIT_TERMINATED, Terminated, sigterm_unwinds
from solver.errors import SolverError
from solver.files import DestinationError
from solver.strategy import StrategyFileError


def _fail(message: str, code: int) -> None:
    click.echo(f"bidou: error: {message}", err=True)
    sys.exit(code)


def _guarded(func: Callable) -> Callable:
    """Turn the library's expected errors into one-line messages and exit codes."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (ParameterError, StrategyFileError, DestinationError) as error:
            _fail(str(error), 2)
        except SolverError as error:
            _fail(str(error), 1)
    return wrapper


class _ShortChoice(click.Choice):
    """A prompt's choice whose error quotes a long wrong answer cut short, not in full."""

    def get_invalid_choice_message(self, value: Any, ctx: click.Context | None) -> str:
        text = str(value)
        if len(text) > 40:
            text = f"{text[:40]}... ({len(text):,} characters)"
        return super().get_invalid_choice_message(text, ctx)


@contextlib.contextmanager
def _quiet_stderr():
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


def game_options(func: Callable) -> Callable:
    """The rules options shared by every command; they become one `params` argument."""
    defaults = BidouParams()
    options = [
        click.option("--faces", type=int, default=defaults.faces, show_default=True,
                     help="Sides of each die (2..6)."),
        click.option("--throws", type=int, default=defaults.throws, show_default=True,
                     help="Most throws in a turn (1..3)."),
        click.option("--max-level", type=int, default=defaults.max_level,
                     show_default=True, help="Highest bet level a raise may reach."),
        click.option("--reroll", type=click.Choice(REROLL_MODES), default=defaults.reroll,
                     show_default=True, help="Rethrow all dice, or keep some aside."),
        click.option("--ranking", type=click.Choice(RANKINGS), default=defaults.ranking,
                     show_default=True, help="Ranking of hands."),
        click.option("--aces-beat-bidou/--no-aces-beat-bidou",
                     default=defaults.aces_beat_bidou, show_default=True,
                     help="French ranking: 1-1-1 beats 2-1-1."),
    ]

    @functools.wraps(func)
    def wrapper(*args: Any, faces: int, throws: int, max_level: int, reroll: str,
                ranking: str, aces_beat_bidou: bool, **kwargs: Any) -> Any:
        if ranking != "french":          # the flag means nothing there: one spelling of rules
            aces_beat_bidou = defaults.aces_beat_bidou
        params = BidouParams(faces=faces, throws=throws, max_level=max_level, reroll=reroll,
                             ranking=ranking, aces_beat_bidou=aces_beat_bidou)
        if "rules_given" in inspect.signature(func).parameters:
            context = click.get_current_context()
            kwargs["rules_given"] = tuple(
                name for name in ("faces", "throws", "max_level", "reroll", "ranking",
                                  "aces_beat_bidou")
                if context.get_parameter_source(name) != click.core.ParameterSource.DEFAULT)
        return func(*args, params=params, **kwargs)

    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


class _Bidou(click.Group):
    """The command group: usage errors in one line; Ctrl-C and SIGTERM end with 130 and 143
    (not click's "Aborted!" and 1, which would read as a solver failure)."""

    def invoke(self, ctx: click.Context) -> Any:
        with sigterm_unwinds():
            try:
                return super().invoke(ctx)
            except click.UsageError as error:          # bad option or value: one line too
                where = error.ctx.command_path if error.ctx else "bidou"
                _fail(f"{error.format_message()} (see '{where} --help')", 2)
            except Terminated:
                click.echo("\nbidou: terminated", err=True)
                sys.exit(EXIT_TERMINATED)
            except (KeyboardInterrupt, click.exceptions.Abort) as error:
                if isinstance(error.__context__, EOFError):       # stdin ended at a prompt
                    _fail("input ended before the command did", 2)
                click.echo("\nbidou: interrupted", err=True)
                sys.exit(EXIT_INTERRUPTED)


@click.group(cls=_Bidou)
@click.version_option(package_name="bidou-solver")
def main() -> None:
    """Exact equilibria of two-hand Bidou, the bluffing dice game."""


@main.command()
@_guarded
@game_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def stats(params: BidouParams, as_json: bool) -> None:
    """The ranking table: every hand, strongest first, its probability and what it beats."""
    from games.bidou.stats import stats_json, stats_text

    if as_json:
        click.echo(json.dumps(stats_json(params), indent=1))
    else:
        click.echo(stats_text(params))


def _proved(certificate: dict[str, Any], subject: str) -> str:
    """What a certificate proves, in one line (bounds rounded outward)."""
    from solver.certificate import Certificate

    proof = Certificate.from_dict(certificate)
    if proof.exact is not None:
        return f"{subject} = {proof.exact} exactly (exact arithmetic)"
    lower, upper = proof.decimals(16)
    return (f"{lower} <= {subject} <= {upper} (exact arithmetic; width "
            f"{float(proof.width):.1e})")


def _print_solution(summary: dict[str, Any]) -> None:
    rules = BidouParams.from_mapping(summary["rules"])
    lines = [
        f"rules:          {rules.describe()}",
        f"method:         {summary['method']} ({summary['status']})",
        f"value:          {summary['value']:+.12f} chips per hand to the captain",
        f"exploitability: {summary['exploitability']:.3e} "
        f"(captain {summary['captain_exploitability']:.3e}, "
        f"opponent {summary['opponent_exploitability']:.3e}; "
        f"NashConv {summary['nash_conv']:.3e})",
    ]
    if summary.get("certified_value"):
        lines.append(f"certified:      {_proved(summary['certified_value'], 'value')}")
    if summary.get("message"):
        lines.append(f"solver says:    {summary['message']}")
    if summary.get("iterations") is not None:
        lines.append(f"iterations:     {summary['iterations']}")
    lines.append(f"seconds:        {summary['seconds']:.3f}")
    click.echo("\n".join(lines))


class _Progress:
    """Iteration and exploitability on one line of a terminal; silent elsewhere."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr.isatty()

    def __call__(self, iteration: int, seconds: float, exploitability: float) -> None:
        if self.enabled:
            sys.stderr.write(f"\riteration {iteration:>8d}  {seconds:7.2f} s  "
                             f"exploitability {exploitability:.3e}   ")
            sys.stderr.flush()

    def exact(self, step: str, done: int, total: int) -> None:
        """The exact recovery's progress (solver/exact_equilibrium.py)."""
        if self.enabled:
            sys.stderr.write(f"\rexact equilibrium: {step} {done}/{total}" + " " * 12)
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


@main.command()
@_guarded
@game_options
@click.option("--method", type=click.Choice(["lp", "cfr", "cfr+", "dcfr", "pcfr+"]),
              default="lp", show_default=True, help="Exact LP, or a CFR variant.")
@click.option("--iterations", type=click.IntRange(min=1), default=None,
              help="CFR: most iterations.")
@click.option("--target-exploitability", type=click.FloatRange(min=0, min_open=True),
              default=None, help="CFR: stop once the exact exploitability is this low.")
@click.option("--exact", is_flag=True,
              help="Also recover the exact rational equilibrium and prove the value itself "
                   "(a few seconds at the default level); exit 1 if it cannot.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the strategy file (versioned JSON) here.")
def solve(params: BidouParams, method: str, iterations: int | None,
          target_exploitability: float | None, exact: bool, as_json: bool,
          out: str | None) -> None:
    """Solve one hand: value to the captain, exploitability, and the strategies."""
    from solver.files import check_file_destination, write_json_atomic
    from solver.solve import exact_recovery
    from solver.solve import solve as run

    if method == "lp" and (iterations is not None or target_exploitability is not None):
        raise ParameterError("--iterations and --target-exploitability apply to CFR methods")
    if target_exploitability is not None and not math.isfinite(target_exploitability):
        raise ParameterError(f"--target-exploitability must be a finite number above 0, "
                             f"got {target_exploitability}")
    if out is not None:
        check_file_destination(out)             # before the work, not after it
    progress = _Progress(enabled=not as_json)
    why_not = None
    try:
        solution = run(params, method, iterations=iterations,
                       target_exploitability=target_exploitability, progress=progress)
        if exact:
            solution, why_not = exact_recovery(solution, progress.exact)
    finally:
        progress.close()
    summary = solution.summary()
    proved = not exact or solution.certificate.exact is not None
    if as_json:
        click.echo(json.dumps(summary, indent=1))
    else:
        _print_solution(summary)
    if out is not None and solution.converged and proved:
        write_json_atomic(out, solution.to_json())    # DestinationError: printed above, exit 2
        if not as_json:
            click.echo(f"strategy:       {out}")
    not_written = ", no strategy file written" if out is not None else ""
    if not solution.converged:
        _fail(f"{method} stopped before reaching the target ({solution.status}): "
              f"the value above is approximate{not_written}", 1)
    if not proved:
        _fail(f"no exact equilibrium could be recovered from these strategies: {why_not}; "
              f"the interval above is proved, the value itself is not{not_written}", 1)


def _strategy_source(params: BidouParams, strategy_file: str | None,
                     rules_given: tuple[str, ...]):
    """A solved hand: read from a strategy file, or solved now with the LP.

    Rules options given beside a strategy file must agree with the rules it was solved for.
    """
    from solver.solve import solve as run
    from solver.strategy import load_strategy_file

    if strategy_file is None:
        return run(params)
    model, strategy, summary = load_strategy_file(strategy_file)
    context = click.get_current_context(silent=True)
    given = context.params if context else {}            # as typed, before normalizing
    clashes = [f"{name}={getattr(model.params, name)}" for name in rules_given
               if given.get(name, getattr(params, name)) != getattr(model.params, name)
               and (name != "aces_beat_bidou" or model.params.ranking == "french")]
    if clashes:
        raise StrategyFileError(
            f"{strategy_file} was solved for other rules ({', '.join(clashes)}; "
            f"{model.params.describe()})")
    return model, strategy, summary


_STRATEGY_OPTION = click.option(
    "--strategy", "strategy_file", type=click.Path(dir_okay=False), default=None,
    help="A strategy file from `bidou solve --out` (default: solve now).")


def _writer_command(func: Callable) -> Callable:
    """export and charts: rules or a strategy file in, a directory of files out."""
    options = [
        _guarded, game_options, _STRATEGY_OPTION,
        click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True,
                     help="Directory to write into (created if missing)."),
        click.option("--format", "formats", type=click.Choice(["pdf", "png", "svg"]),
                     multiple=True, help="Chart formats (repeatable; default: all three)."),
    ]
    for option in reversed(options):
        func = option(func)
    return main.command()(func)


def _write(writer_name: str, params: BidouParams, strategy_file: str | None, out_dir: str,
           formats: tuple[str, ...], rules_given: tuple[str, ...]) -> None:
    from solver import export as exporting
    from solver.files import check_directory_destination

    check_directory_destination(out_dir)
    source = _strategy_source(params, strategy_file, rules_given)
    writer = getattr(exporting, writer_name)
    for path in writer(source, out_dir, formats=formats or exporting.FORMATS):
        click.echo(str(path))


@_writer_command
def export(params: BidouParams, strategy_file: str | None, out_dir: str,
           formats: tuple[str, ...], rules_given: tuple[str, ...]) -> None:
    """Every table (CSV, Markdown, JSON) and chart (PDF, PNG, SVG) of a solved hand."""
    _write("export_all", params, strategy_file, out_dir, formats, rules_given)


@_writer_command
def charts(params: BidouParams, strategy_file: str | None, out_dir: str,
           formats: tuple[str, ...], rules_given: tuple[str, ...]) -> None:
    """The printable reroll, betting and remember-this charts alone."""
    _write("export_charts", params, strategy_file, out_dir, formats, rules_given)


@main.command()
@_guarded
@game_options
@click.option("--iterations", type=click.IntRange(min=1), default=20_000, show_default=True,
              help="Iterations per method (about 1.5 s each on the default game).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=".",
              show_default=True, help="Directory for convergence.png and convergence.pdf.")
def convergence(params: BidouParams, iterations: int, out_dir: str) -> None:
    """Exploitability against iterations and seconds for every CFR method (PNG and PDF)."""
    from solver.app.convergence import run_methods, write_convergence
    from solver.files import check_directory_destination
    from solver.lp import solve_lp
    from solver.model import build_model

    check_directory_destination(out_dir)
    model = build_model(params)
    runs = run_methods(model, iterations=iterations)
    for method, run in runs.items():
        click.echo(f"{method:>6}: {run.iterations:>6} iterations, {run.seconds:7.2f} s, "
                   f"exploitability {run.exploitability.exploitability:.3e}")
    for path in write_convergence(runs, out_dir, lp_value=solve_lp(model).value):
        click.echo(str(path))


@main.command()
@_guarded
@click.option("--root", type=click.Path(file_okay=False), default="outputs",
              show_default=True, help="Where the solved games live.")
@click.option("--check", is_flag=True, help="Only say which files are stale (exit 1 if any).")
def outputs(root: str, check: bool) -> None:
    """Re-solve the default game and the keep and french variants into outputs/."""
    from solver.app.outputs import stale_files, write_outputs
    from solver.files import check_directory_destination

    if check:
        stale = stale_files(root)
        for path in stale:
            click.echo(f"stale: {path}")
        if stale:
            _fail(f"{len(stale)} files in {root} are stale; run `bidou outputs`", 1)
        click.echo(f"{root} is current")
        return
    check_directory_destination(root)
    for path in write_outputs(root):
        click.echo(str(path))


@main.command()
@_guarded
@game_options
@click.option("--strategy", "strategy_file", type=click.Path(dir_okay=False), required=True,
              help="A strategy file (`bidou solve --out`, `simplified_strategy.json`, ...).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def evaluate(params: BidouParams, strategy_file: str, as_json: bool,
             rules_given: tuple[str, ...]) -> None:
    """Measure a strategy file: its value, each side's exploitability, certified bounds."""
    from solver.export import unpack

    model, _, summary = unpack(_strategy_source(params, strategy_file, rules_given))
    report = {key: summary.get(key) for key in (
        "on_policy_value", "exploitability", "nash_conv", "captain_exploitability",
        "opponent_exploitability", "certified_value")}
    report["rules"] = model.params.to_dict()
    report["claimed"] = {key: summary.get(key) for key in ("method", "status", "value")}
    if as_json:
        click.echo(json.dumps(report, indent=1))
        return
    claimed = report["claimed"]
    solved_by = (f"{claimed['method']} ({claimed['status']}), as the file claims; the numbers "
                 f"below are measured" if claimed["method"] else "not recorded")
    click.echo("\n".join([
        f"rules:          {model.params.describe()}",
        f"solved by:      {solved_by}",
        f"value:          {report['on_policy_value']:+.12f} chips per hand to the captain, "
        f"both playing this strategy",
        f"exploitability: {report['exploitability']:.3e} (captain "
        f"{report['captain_exploitability']:.3e}, opponent "
        f"{report['opponent_exploitability']:.3e})",
        f"certified:      {_proved(report['certified_value'], 'game value')}"]))


@main.command()
@_guarded
@game_options
@_STRATEGY_OPTION
@click.option("--role", type=click.Choice(["captain", "opponent", "alternate"]),
              default="alternate", show_default=True, help="Your seat.")
@click.option("--hands", type=click.IntRange(min=1), default=5, show_default=True)
@click.option("--seed", type=int, default=None, help="Dice seed (default: random).")
def play(params: BidouParams, strategy_file: str | None, role: str, hands: int,
         seed: int | None, rules_given: tuple[str, ...]) -> None:
    """Play hands against the equilibrium strategy."""
    import numpy as np

    from solver.app.play import play_hand
    from solver.export import unpack

    if seed is not None and seed < 0:
        raise ParameterError(f"--seed must be 0 or more, got {seed}")
    model, strategy, summary = unpack(_strategy_source(params, strategy_file, rules_given))
    rng = np.random.default_rng(seed)

    def ask(prompt: str, options) -> str:
        return click.prompt(prompt, type=_ShortChoice(list(options)), show_choices=True)

    total = 0.0
    for number in range(hands):
        seat = {"captain": 0, "opponent": 1}.get(role, number % 2)
        click.echo(f"\n-- hand {number + 1} of {hands} --")
        total += play_hand(model, strategy, seat, rng, ask, click.echo)
    click.echo(f"\nTotal over {hands} hands: {total:+g} chips "
               f"(the game is worth {summary['value']:+.4f} a hand to the captain).")


@main.command()
@click.argument("game_string")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@_guarded
def lp(game_string: str, as_json: bool) -> None:
    """Sequence-form LP of any small two-player zero-sum OpenSpiel game (e.g. kuhn_poker)."""
    import pyspiel

    import games.bidou  # noqa: F401  (registers python_bidou)
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
    summary = {"game": game_string, "value": solution.value, "status": solution.status,
               "message": solution.message, "seconds": solution.seconds,
               "num_sequences": list(solution.num_sequences)}
    if as_json:
        click.echo(json.dumps(summary, indent=1))
    else:
        click.echo(f"{game_string}: value {solution.value:+.12f} to player 0 "
                   f"({solution.message}, {solution.seconds:.3f} s)")


def _parse_state(text: str, chips: int):
    """--state "C,CAPTAIN,OPPONENT" -> the round's state, or a one-line ParameterError."""
    from solver.round.capped import state_of

    parts = text.split(",")
    if len(parts) != 3 or not all(p.strip().isdigit() for p in parts):
        raise ParameterError(f"--state must be three chip counts CENTRE,CAPTAIN,OPPONENT "
                             f"(whole numbers >= 0), got {text!r}")
    centre, captain, opponent = (int(p) for p in parts)
    if centre + captain + opponent != chips:
        raise ParameterError(f"--state {text}: the chips add up to "
                             f"{centre + captain + opponent}, not {chips} (--chips)")
    if chips in (captain, opponent):
        raise ParameterError(f"--state {text}: the round is over (a pile holds every chip)")
    return state_of(chips, centre, captain, opponent)


class _RoundProgress:
    """"state n of m" on one line of a terminal; silent elsewhere."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr.isatty()

    def __call__(self, done: int, total: int, what: str) -> None:
        if self.enabled:
            sys.stderr.write(f"\r{what}: {done} of {total}          ")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 60 + "\r")


@main.command(name="round")
@_guarded
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
    import time

    from games.bidou.round_params import RoundParams
    from solver.files import check_directory_destination, check_file_destination, write_json_atomic
    from solver.round.certify import RoundCertificateError, certify_round
    from solver.round.report import round_report, state_entry
    from solver.round.solve import solve_round
    from solver.round.states import state_graph

    rules = RoundParams(chips=chips, hand=params)
    wanted = _parse_state(state_text, chips) if state_text is not None else None
    if wanted is not None and wanted not in state_graph(chips, params.max_level):
        raise ParameterError(f"--state {state_text} cannot arise in a round with these rules")
    if charts and out is None:
        raise ParameterError("--charts needs --out FOLDER")
    if out is not None:
        (check_directory_destination if charts else check_file_destination)(out)
    begin = time.perf_counter()
    progress = _RoundProgress(enabled=True)
    try:
        solution = solve_round(rules, progress=lambda d, t, w: progress(d, t, "solving"))
        progress(0, 1, "proving")
        try:
            certificate = certify_round(solution)
        except RoundCertificateError as error:
            raise SolverError(f"the round's numbers could not be proved: {error}") from None
    finally:
        progress.close()
    report = round_report(solution, certificate, time.perf_counter() - begin)
    if as_json:
        shown = state_entry(solution, certificate, wanted) if wanted is not None else report
        click.echo(json.dumps(shown, indent=1))
    elif wanted is not None:
        entry = state_entry(solution, certificate, wanted)
        who = "the first thrower (open throw)" if entry["open_throw"] else "the captain"
        click.echo("\n".join([
            f"rules:          {rules.describe()}",
            f"state:          {state_text} (centre, captain, opponent)",
            f"value:          {entry['value']:.12f} = P({who} wins the round)",
            f"certified:      {entry['lower']} <= value <= {entry['upper']}",
            f"exploitability: {entry['exploitability']:.1e} (win probability)",
            f"P(round ends):  {entry['p_end']:.12f}"]))
    else:
        click.echo("\n".join([
            f"rules:          {rules.describe()}",
            f"start value:    {report['start_value']:.12f} = P(the first captain wins "
            f"the round)",
            f"certified:      {report['start_lower']} <= start value <= "
            f"{report['start_upper']}",
            f"states:         {len(report['states'])}, every one proved (widest interval "
            f"{report['max_width']:.1e}); every round ends with probability 1 - "
            f"{max(0.0, 1 - report['min_p_end']):.0e} or more",
            f"seconds:        {report['seconds']:.1f}"]))
    if out is not None and charts:
        from solver.export.round_charts import write_round_chart

        os.makedirs(out, exist_ok=True)
        write_json_atomic(os.path.join(out, "round.json"), report)
        written = [os.path.join(out, "round.json")] + [
            str(p) for p in write_round_chart(report, out)]
        if not as_json:
            click.echo("\n".join(f"wrote:          {path}" for path in written))
    elif out is not None:
        write_json_atomic(out, report)
        if not as_json:
            click.echo(f"report:         {out}")


if __name__ == "__main__":
    main()
