"""The `bidou` command: thin shells over library functions that the tests call directly.

Every failure a user can cause (bad parameters, unreadable files) is one line on stderr and
exit status 2; a solver that cannot vouch for its answer exits 1 without printing a value.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import os
import sys
from typing import Any, Callable

import click

from games.bidou.params import RANKINGS, REROLL_MODES, BidouParams, ParameterError
from solver.errors import SolverError
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
        except (ParameterError, StrategyFileError) as error:
            _fail(str(error), 2)
        except SolverError as error:
            _fail(str(error), 1)
    return wrapper


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


@click.group()
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
                   "(about 8 s on the default game); exit 1 if it cannot.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the strategy file (versioned JSON) here.")
def solve(params: BidouParams, method: str, iterations: int | None,
          target_exploitability: float | None, exact: bool, as_json: bool,
          out: str | None) -> None:
    """Solve one hand: value to the captain, exploitability, and the strategies."""
    from solver.files import write_json_atomic
    from solver.solve import solve as run

    if method == "lp" and (iterations is not None or target_exploitability is not None):
        raise ParameterError("--iterations and --target-exploitability apply to CFR methods")
    progress = _Progress(enabled=not as_json)
    try:
        solution = run(params, method, iterations=iterations,
                       target_exploitability=target_exploitability, progress=progress,
                       exact=exact)
    finally:
        progress.close()
    summary = solution.summary()
    if out and solution.converged:
        write_json_atomic(out, solution.to_json())
    if as_json:
        click.echo(json.dumps(summary, indent=1))
    else:
        _print_solution(summary)
        if out and solution.converged:
            click.echo(f"strategy:       {out}")
    if not solution.converged:
        _fail(f"{method} stopped before reaching the target ({solution.status}): "
              f"the value above is approximate" + (", no strategy file written" if out else ""),
              1)
    if exact and solution.certificate.exact is None:
        _fail("no exact equilibrium could be recovered from these strategies: the interval "
              "above is proved, the value itself is not", 1)


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
    clashes = [f"{name}={getattr(model.params, name)}" for name in rules_given
               if getattr(model.params, name) != getattr(params, name)]
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
    from solver.lp import solve_lp
    from solver.model import build_model

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

    if check:
        stale = stale_files(root)
        for path in stale:
            click.echo(f"stale: {path}")
        if stale:
            _fail(f"{len(stale)} files in {root} are stale; run `bidou outputs`", 1)
        click.echo(f"{root} is current")
        return
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
        "rules", "method", "status", "on_policy_value", "exploitability", "nash_conv",
        "captain_exploitability", "opponent_exploitability", "certified_value")}
    if as_json:
        click.echo(json.dumps(report, indent=1))
        return
    solved_by = f"{report['method']} ({report['status']})" if report["method"] else "unknown"
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

    model, strategy, summary = unpack(_strategy_source(params, strategy_file, rules_given))
    rng = np.random.default_rng(seed)

    def ask(prompt: str, options) -> str:
        return click.prompt(prompt, type=click.Choice(list(options)), show_choices=True)

    total = 0.0
    for number in range(hands):
        seat = {"captain": 0, "opponent": 1}.get(role, number % 2)
        click.echo(f"\n-- hand {number + 1} of {hands} --")
        total += play_hand(model, strategy, seat, rng, ask, click.echo)
    click.echo(f"\nTotal over {hands} hands: {total:+g} chips "
               f"(the game is worth {summary['value']:+.4f} a hand to the captain).")


@main.command("cheatsheet")
@_guarded
@game_options
@_STRATEGY_OPTION
@click.option("--rules-max", type=click.IntRange(min=1), default=12, show_default=True,
              help="Most rules on the sheet (the search grows the rule book up to this).")
@click.option("--beam", type=click.IntRange(min=1), default=1, show_default=True,
              help="Rule books kept at each step of the search (slower, often better).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True,
              help="Directory to write into (created if missing).")
def cheatsheet_command(params: BidouParams, strategy_file: str | None, rules_max: int,
                       beam: int, out_dir: str, rules_given: tuple[str, ...]) -> None:
    """A one-page cheat sheet: the best rule book of at most --rules-max threshold rules,
    found against the exact best response (PDF A4 and Letter, PNG, Markdown, strategy file)."""
    from solver.analysis.cheatsheet import front_points
    from solver.analysis.rulebook import root_rules
    from solver.export import unpack
    from solver.export.cheatsheet_page import write_cheatsheet

    source = _strategy_source(params, strategy_file, rules_given)
    model, strategy, summary = unpack(source)
    minimum = len(root_rules(model))
    if rules_max < minimum:
        raise ParameterError(f"--rules-max must be at least {minimum} for these rules "
                             "(one rule per kind of decision)")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ParameterError(f"--out {out_dir} exists and is not a directory")
    os.makedirs(out_dir, exist_ok=True)
    if not os.access(out_dir, os.W_OK):
        raise ParameterError(f"--out {out_dir} is not writable")
    show = sys.stderr.isatty()

    def progress(size: int, exploitability: float) -> None:
        if show:
            sys.stderr.write(f"\r{size:>3} rules: exploitability {exploitability:.4f}   ")
            sys.stderr.flush()

    points = front_points(model, strategy, summary["value"], rules_max, progress, beam=beam)
    if show:
        sys.stderr.write("\n")
    best = points[-1]
    result = {"equilibrium_value": summary["value"],
              "front": [{"rules_count": p.size,
                         "exploitability": p.exploitability.exploitability,
                         "equilibrium_loss": p.equilibrium_loss} for p in points]}
    for path in write_cheatsheet(model, best, out_dir, result):
        click.echo(str(path))
    click.echo(f"{best.size} rules: exploitability {best.exploitability.exploitability:.4f} "
               f"chips per hand, loss against the equilibrium {best.equilibrium_loss:.4f}")


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
        solution = solve_openspiel_game(game)
    except ValueError as error:
        raise ParameterError(str(error)) from None
    summary = {"game": game_string, "value": solution.value, "status": solution.status,
               "message": solution.message, "seconds": solution.seconds,
               "num_sequences": list(solution.num_sequences)}
    if as_json:
        click.echo(json.dumps(summary, indent=1))
    else:
        click.echo(f"{game_string}: value {solution.value:+.12f} to player 0 "
                   f"({solution.message}, {solution.seconds:.3f} s)")


if __name__ == "__main__":
    main()
