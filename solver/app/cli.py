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

from games.bidou.params import (
    MAX_LEVEL_LIMIT,
    RANKINGS,
    REROLL_MODES,
    BidouParams,
    ParameterError,
)
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


RULES = ("faces", "throws", "max_level", "reroll", "ranking", "aces_beat_bidou")


def _option_name(name: str) -> str:
    return "--" + name.replace("_", "-")


def _rules_error(error: ParameterError) -> ParameterError:
    """The library's message, naming the command-line option (--max-level, not max_level)."""
    text = str(error)
    for name in RULES:
        if text.startswith(name + " "):
            return ParameterError(_option_name(name) + text[len(name):])
    return error


def game_options(func: Callable | None = None, *, only: tuple[str, ...] = RULES) -> Callable:
    """The rules options shared by every command; they become one `params` argument.

    `only` keeps the options that matter to a command (stats needs no betting rules);
    the others keep their defaults.
    """
    if func is None:
        return functools.partial(game_options, only=only)
    defaults = BidouParams()
    options = {
        "faces": click.option("--faces", type=int, default=defaults.faces, show_default=True,
                              help="Sides of each die (2..6)."),
        "throws": click.option("--throws", type=int, default=defaults.throws,
                               show_default=True, help="Most throws in a turn (1..3)."),
        "max_level": click.option(
            "--max-level", type=int, default=defaults.max_level, show_default=True,
            help=f"Highest bet level a raise may reach (1..{MAX_LEVEL_LIMIT}; the nine "
                 "chips of a real game allow 4)."),
        "reroll": click.option(
            "--reroll", type=click.Choice(REROLL_MODES), default=defaults.reroll,
            show_default=True, help="Throw all three dice again, or keep some aside."),
        "ranking": click.option(
            "--ranking", type=click.Choice(RANKINGS), default=defaults.ranking,
            show_default=True, help="Ranking of hands (`bidou stats` lists it)."),
        "aces_beat_bidou": click.option(
            "--aces-beat-bidou/--no-aces-beat-bidou", default=defaults.aces_beat_bidou,
            show_default=True, help="French ranking only: 1-1-1 beats the bidou 2-1-1."),
    }

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        rules = {name: kwargs.pop(name) for name in only}
        if rules.get("ranking", defaults.ranking) != "french":    # the flag means nothing
            rules["aces_beat_bidou"] = defaults.aces_beat_bidou  # there: one spelling
        try:
            params = BidouParams(**rules)
        except ParameterError as error:
            raise _rules_error(error) from None
        if "rules_given" in inspect.signature(func).parameters:
            context = click.get_current_context()
            kwargs["rules_given"] = tuple(
                name for name in only
                if context.get_parameter_source(name) != click.core.ParameterSource.DEFAULT)
        return func(*args, params=params, **kwargs)

    for name in reversed(RULES):
        if name in only:
            wrapper = options[name](wrapper)
    return wrapper


class _OneLineError(click.ClickException):
    """A usage error shown like every other error: one line, exit status 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"bidou: error: {self.format_message()}", err=True)


def _usage_message(error: click.UsageError) -> str:
    text = error.format_message().rstrip(".")
    command = error.ctx.command_path if error.ctx is not None else "bidou"
    return f"{text[:1].lower()}{text[1:]} (see `{command} --help`)"


# `bidou` alone prints the help (click 8.2+ raises this usage error to do it): left as is
_HELP_ERRORS = tuple(getattr(click.exceptions, name) for name in ("NoArgsIsHelpError",)
                     if hasattr(click.exceptions, name))


class _Bidou(click.Group):
    """The command group, with click's usage errors (unknown option, bad choice, missing
    value) reported in the same one-line style as the library's errors."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as error:
            if isinstance(error, _HELP_ERRORS):
                raise
            raise _OneLineError(_usage_message(error)) from None

    def invoke(self, ctx: click.Context) -> Any:
        """Ctrl-C and SIGTERM end with 130 and 143 (not click's "Aborted!" and 1, which
        would read as a solver failure)."""
        with sigterm_unwinds():
            try:
                return super().invoke(ctx)
            except click.UsageError as error:
                if isinstance(error, _HELP_ERRORS):
                    raise
                raise _OneLineError(_usage_message(error)) from None
            except Terminated:
                click.echo("\nbidou: terminated", err=True)
                sys.exit(EXIT_TERMINATED)
            except (KeyboardInterrupt, click.exceptions.Abort) as error:
                if isinstance(error.__context__, EOFError):       # stdin ended at a prompt
                    _fail("input ended before the command did", 2)
                click.echo("\nbidou: interrupted", err=True)
                sys.exit(EXIT_INTERRUPTED)


@click.group(cls=_Bidou, epilog="""\b
Examples:
  bidou solve                          value and exploitability of the default game
  bidou solve --exact --out s.json     prove the exact value, save the exact strategy
  bidou charts --strategy s.json --out charts
  bidou play                           play five hands against the equilibrium
  bidou stats --faces 4                the ranking of hands with four-sided dice

Every command accepts the rules options (--faces, --throws, --max-level, --reroll,
--ranking); `bidou COMMAND --help` lists them with their ranges.""")
@click.version_option(package_name="bidou-solver")
def main() -> None:
    """Exact equilibria of two-hand Bidou, the bluffing dice game."""


@main.command(short_help="The ranking of hands, their odds and what each beats.",
              epilog="""\b
Examples:
  bidou stats
  bidou stats --ranking french --json""")
@_guarded
@game_options(only=("faces", "ranking", "aces_beat_bidou"))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def stats(params: BidouParams, as_json: bool) -> None:
    """The ranking table: every hand, strongest first, its probability and what it beats.

    Only the dice and the ranking matter here: the throws and the betting rules do not
    change which hand beats which."""
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

    def __call__(self, what: str, iteration: int, cap: int) -> None:
        if self.enabled:
            sys.stderr.write(f"\riteration {iteration:>8d}  {what}   ")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


# What a CFR method stops at when the command line says neither --iterations nor
# --target-exploitability. Vanilla CFR converges like 1/sqrt(T): it reaches 1e-3 on the
# default game in about 3 600 iterations (0.6 s) but 1e-6 in no reasonable time, so its
# default target is 1e-3; the others reach 1e-6 in a second or two.
CFR_DEFAULT_TARGET = {"cfr": 1e-3, "cfr+": 1e-6, "dcfr": 1e-6, "pcfr+": 1e-6}
CFR_DEFAULT_CAP = 100_000


@main.command(short_help="Solve one hand: value, exploitability, strategies.", epilog="""\b
Examples:
  bidou solve                                  the default game by the exact LP
  bidou solve --exact --out s.json             prove the exact rational value, save it
  bidou solve --method pcfr+                   CFR family: stops at exploitability 1e-6
  bidou solve --method cfr+ --iterations 500   the strategy after 500 iterations
  bidou solve --faces 4 --throws 2 --json""")
@_guarded
@game_options
@click.option("--method", type=click.Choice(["lp", "cfr", "cfr+", "dcfr", "pcfr+"]),
              default="lp", show_default=True,
              help="The exact sequence-form LP, or a CFR variant (cfr: vanilla, cfr+, "
                   "dcfr: discounted, pcfr+: predictive).")
@click.option("--iterations", type=click.IntRange(min=1), default=None,
              help=f"CFR: run this many iterations and keep that strategy, labelled with "
                   f"its measured exploitability (with a target too: stop at whichever "
                   f"comes first). Without it CFR stops at the target, or fails after "
                   f"{CFR_DEFAULT_CAP:,} iterations.")
@click.option("--target-exploitability", type=click.FloatRange(min=0, min_open=True),
              default=None,
              help="CFR: stop once the exact exploitability is this low; exit 1 if it is "
                   "not reached. Default 1e-6 (vanilla cfr: 1e-3, as it converges slowly).")
@click.option("--exact", is_flag=True,
              help="Also recover the exact rational equilibrium and prove the value itself "
                   "(a few seconds at the default level; with --out the file keeps the "
                   "exact probabilities); exit 1 if it cannot, saying why.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the strategy file (versioned JSON) here.")
def solve(params: BidouParams, method: str, iterations: int | None,
          target_exploitability: float | None, exact: bool, as_json: bool,
          out: str | None) -> None:
    """Solve one hand: the value to the captain, each side's exploitability measured by an
    exact best response, a value interval proved in exact arithmetic, and the strategies.

    The LP solves the default game in well under a second. The CFR methods stop at
    --target-exploitability (default 1e-6; vanilla cfr 1e-3) or after --iterations; a run
    that misses its target exits 1, and writes a strategy file only if --iterations asked
    for that run.
    """
    from solver.files import check_file_destination, write_json_atomic
    from solver.solve import solve as run

    if method == "lp" and (iterations is not None or target_exploitability is not None):
        raise ParameterError("--iterations and --target-exploitability apply to CFR methods")
    if target_exploitability is not None and not math.isfinite(target_exploitability):
        raise ParameterError(f"--target-exploitability must be a finite number above 0, "
                             f"got {target_exploitability}")
    if method != "lp" and iterations is None and target_exploitability is None:
        target_exploitability = CFR_DEFAULT_TARGET[method]
    if method != "lp" and iterations is None:
        iterations = CFR_DEFAULT_CAP
        capped_by_user = False
    else:
        capped_by_user = iterations is not None
    if out is not None:
        check_file_destination(out)             # before the work, not after it
    progress = _Progress(enabled=not as_json)
    try:
        solution = run(params, method, iterations=iterations,
                       target_exploitability=target_exploitability, progress=progress)
    finally:
        progress.close()
    document = why_not = None
    if exact:
        solution, document, why_not = _exact_solution(solution, quiet=as_json)
    # an explicit --iterations asks for that run's strategy, whatever its exploitability
    keep = solution.converged or capped_by_user
    summary = solution.summary()
    proved = not exact or solution.certificate.exact is not None
    if as_json:
        click.echo(json.dumps(summary, indent=1))
    else:
        _print_solution(summary)
    if out and keep and proved:
        write_json_atomic(out, document or solution.to_json())   # failure: printed, exit 2
        if not as_json:
            click.echo(f"strategy:       {out}"
                       + (" (with its exact probabilities)" if document else ""))
    not_written = ", no strategy file written" if out and not (keep and proved) else ""
    if target_exploitability is not None and not solution.converged:
        _fail(f"{method} stopped after {solution.iterations} iterations, before reaching "
              f"exploitability {target_exploitability:g} ({solution.status}): the value above "
              f"is approximate" + ("" if not out else
                                   ", strategy file written" if keep and proved else
                                   ", no strategy file written")
              + ("" if capped_by_user else "; pass a larger --iterations or a looser "
                 "--target-exploitability"), 1)
    if not proved:
        _fail(f"no exact equilibrium could be recovered from these strategies: {why_not}; "
              f"the interval above is proved, the value itself is not{not_written}", 1)


def _exact_solution(solution: Any, quiet: bool = False):
    """The solution with the exact value proved, its strategy document with the exact
    probabilities and None; or, if the value could not be proved exactly, the solution
    with what was proved, None, and why."""
    import dataclasses

    from solver import best_response
    from solver.app.progress import Progress, within
    from solver.exact_file import narrowed, recover
    from solver.strategy import exact_to_json

    with Progress(enabled=None if not quiet else False) as progress:
        found = recover(solution.model, solution.strategy,
                        within(progress, "recovering the exact rational equilibrium"))
    certificate = narrowed(solution.certificate, found.certificate)
    if found.exact is None:
        return dataclasses.replace(solution, certificate=certificate), None, found.reason
    # the strategy kept is the float rounding of the exact one, measured again
    measured = best_response.exploitability(solution.model, found.strategy)
    solution = dataclasses.replace(solution, strategy=found.strategy, exploitability=measured,
                                   certificate=certificate)
    document = exact_to_json(solution.to_json(), solution.model, solution.strategy, found.exact)
    return solution, document, None


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
    clashes = [f"{_option_value(name, getattr(model.params, name))}, not "
               f"{_option_value(name, given.get(name, getattr(params, name)))}"
               for name in rules_given
               if given.get(name, getattr(params, name)) != getattr(model.params, name)
               and (name != "aces_beat_bidou" or model.params.ranking == "french")]
    if clashes:
        raise StrategyFileError(
            f"{strategy_file} was solved for other rules ({'; '.join(clashes)}): its rules "
            f"are {model.params.describe()}; leave out the rules options to use them")
    return model, strategy, summary


def _option_value(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return _option_name(name) if value else "--no-" + _option_name(name)[2:]
    return f"{_option_name(name)} {value}"


_STRATEGY_OPTION = click.option(
    "--strategy", "strategy_file", type=click.Path(dir_okay=False), default=None,
    help="A strategy file from `bidou solve --out` (default: solve now).")


def _writer_command(short_help: str, epilog: str) -> Callable:
    """export and charts: rules or a strategy file in, a directory of files out."""
    options = [
        _guarded, game_options, _STRATEGY_OPTION,
        click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True,
                     help="Directory to write into (created if missing)."),
        click.option("--format", "formats", type=click.Choice(["pdf", "png", "svg"]),
                     multiple=True, help="Chart formats (repeatable; default: all three)."),
        click.option("--exact", is_flag=True,
                     help="Recover the exact rational equilibrium first (about 10 s on the "
                          "default game), so the labels can say it is one; exit 1 if it "
                          "cannot. A strategy file that holds exact probabilities "
                          "(`bidou solve --exact --out`) needs no flag."),
    ]

    def decorate(func: Callable) -> Callable:
        for option in reversed(options):
            func = option(func)
        return main.command(short_help=short_help, epilog=epilog)(func)
    return decorate


def _write(writer_name: str, params: BidouParams, strategy_file: str | None, out_dir: str,
           formats: tuple[str, ...], rules_given: tuple[str, ...], exact: bool) -> None:
    from solver.app.progress import Progress
    from solver.export import bundle as exporting
    from solver.files import check_directory_destination

    check_directory_destination(out_dir)
    with Progress() as progress:
        progress(f"reading and measuring {strategy_file}" if strategy_file
                 else f"solving {params.describe()}")
        source, fractions = _exact_source(
            _strategy_source(params, strategy_file, rules_given), strategy_file, exact,
            progress)
        writer = getattr(exporting, writer_name)
        paths = writer(source, out_dir, formats=formats or exporting.FORMATS,
                       progress=progress, exact=fractions)
    for path in paths:
        click.echo(str(path))


def _exact_source(source: Any, strategy_file: str | None, exact: bool, progress: Callable):
    """(source, exact probabilities or None): those a strategy file holds, else with
    `exact` those recovered now (the source's strategy then becomes their rounding)."""
    from solver.exact_file import recover
    from solver.export.bundle import unpack
    from solver.strategy import load_exact

    fractions = None
    if strategy_file is not None:
        model, strategy, _ = source
        fractions = load_exact(strategy_file, model, strategy)
    if exact and fractions is None:
        model, strategy, summary = unpack(source)
        found = recover(model, strategy,
                        lambda what, done, total: progress(
                            f"recovering the exact rational equilibrium: {what}", done, total))
        if found.exact is None:
            raise SolverError(f"no exact equilibrium could be recovered from this strategy "
                              f"({found.reason}); leave out --exact for its proved interval")
        summary = {k: v for k, v in summary.items() if k != "value"}
        source, fractions = (model, found.strategy, summary), found.exact
    return source, fractions


_WRITER_EXAMPLES = """\b
Examples:
  bidou {name} --out {out}                     the default game, solved now
  bidou {name} --reroll keep --out {out}-keep
  bidou solve --exact --out s.json && bidou {name} --strategy s.json --out {out}
  bidou {name} --exact --format png --out {out}"""


@_writer_command("Every table, strategy file and chart of a solved hand.",
                 _WRITER_EXAMPLES.format(name="export", out="out"))
def export(params: BidouParams, strategy_file: str | None, out_dir: str,
           formats: tuple[str, ...], exact: bool, rules_given: tuple[str, ...]) -> None:
    """Every table (CSV, Markdown), strategy file (JSON), summary and chart (PDF, PNG, SVG)
    of a solved hand. About 25 s on the default game."""
    _write("export_all", params, strategy_file, out_dir, formats, rules_given, exact)


@_writer_command("The printable throwing, betting and remember-this charts.",
                 _WRITER_EXAMPLES.format(name="charts", out="charts"))
def charts(params: BidouParams, strategy_file: str | None, out_dir: str,
           formats: tuple[str, ...], exact: bool, rules_given: tuple[str, ...]) -> None:
    """The printable charts alone: when to stop throwing, how to bet in each public state,
    and a simplified strategy to remember (docs/charts.md explains how to read them)."""
    _write("export_charts", params, strategy_file, out_dir, formats, rules_given, exact)


@main.command(short_help="Exploitability of every CFR method against time (PNG, PDF).",
              epilog="""\b
Examples:
  bidou convergence --out plots
  bidou convergence --faces 4 --iterations 5000""")
@_guarded
@game_options
@click.option("--iterations", type=click.IntRange(min=1), default=20_000, show_default=True,
              help="Iterations per method (about 1.5 s each on the default game).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=".",
              show_default=True, help="Directory for convergence.png and convergence.pdf.")
def convergence(params: BidouParams, iterations: int, out_dir: str) -> None:
    """Exploitability against iterations and seconds for every CFR method (PNG and PDF)."""
    from solver.app.convergence import run_methods, write_convergence
    from solver.app.progress import Progress
    from solver.files import check_directory_destination
    from solver.lp import solve_lp
    from solver.model import build_model

    check_directory_destination(out_dir)
    model = build_model(params)
    with Progress() as progress:
        runs = run_methods(model, iterations=iterations, progress=progress)
        progress("solving the LP for the reference value")
        lp_value = solve_lp(model).value
    for method, run in runs.items():                  # printed before the files are written
        click.echo(f"{method:>6}: {run.iterations:>6} iterations, {run.seconds:7.2f} s, "
                   f"exploitability {run.exploitability.exploitability:.3e}")
    with Progress() as progress:
        progress("drawing the curves")
        paths = write_convergence(runs, out_dir, lp_value=lp_value)
    for path in paths:
        click.echo(str(path))


@main.command(short_help="Re-solve the published games in outputs/ (or check them).",
              epilog="""\b
Examples:
  bidou outputs --check      are the published files current? (about 100 s: all re-drawn)
  bidou outputs              rewrite them (about 100 s)""")
@_guarded
@click.option("--root", type=click.Path(file_okay=False), default=None,
              help="Folder of the solved games (default: outputs/ of this source checkout, "
                   "found wherever you run the command).")
@click.option("--check", is_flag=True,
              help="Only say which files are stale or missing (exit 1 if any): every file "
                   "`bidou outputs` writes, the charts re-drawn and compared byte for byte.")
def outputs(root: str | None, check: bool) -> None:
    """Re-solve the default game and the keep and french variants into outputs/, with
    their exact values, tables and charts."""
    from pathlib import Path

    from solver.app.outputs import VARIANTS, project_outputs, stale_files, write_outputs
    from solver.app.progress import Progress

    if root is None:
        found = project_outputs()
        if found is None:
            raise ParameterError("no outputs/ folder here: this bidou is not run from a source "
                                 "checkout; pass --root DIR")
        root = str(found)
    if check and not any((Path(root) / name).is_dir() for name in VARIANTS):
        raise ParameterError(f"{root} holds none of the solved games "
                             f"({', '.join(VARIANTS)}); nothing to check")
    if not check:
        from solver.files import check_directory_destination

        check_directory_destination(root)             # before the solving, not after it
    from solver.app.docs import charts_doc_path, update_charts_doc

    # the passages of docs/charts.md that describe the published solution follow it
    docs = charts_doc_path() if Path(root) == project_outputs() else None
    with Progress() as progress:
        if check:
            stale = stale_files(root, progress=progress)
            if docs is not None and not stale and not update_charts_doc(root, docs, False):
                stale.append(str(docs))
        else:
            paths = write_outputs(root, progress=progress)
            if docs is not None and not update_charts_doc(root, docs):
                paths.append(docs)
    if not check:
        for path in paths:
            click.echo(str(path))
        return
    for path in stale:
        click.echo(f"stale: {path}")
    if stale:
        _fail(f"{len(stale)} files in {root} are stale; `bidou outputs` rewrites them", 1)
    click.echo(f"{root} is current")


@main.command(short_help="Measure a strategy file: value, exploitability, proof.",
              epilog="""\b
Examples:
  bidou evaluate --strategy s.json
  bidou evaluate --strategy outputs/default/simplified_strategy.json --json""")
@_guarded
@game_options
@click.option("--strategy", "strategy_file", type=click.Path(dir_okay=False), required=True,
              help="A strategy file (`bidou solve --out`, `simplified_strategy.json`, ...).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def evaluate(params: BidouParams, strategy_file: str, as_json: bool,
             rules_given: tuple[str, ...]) -> None:
    """Measure a strategy file: the value of its strategy pair, what a best response wins
    against each side, and the interval of the game value it proves in exact arithmetic
    (the value itself when the file holds an exact equilibrium). Nothing recorded in the
    file is trusted; the rules are the file's own (rules options must agree with them)."""
    from solver.export.bundle import unpack
    from solver.strategy import load_exact

    source = _strategy_source(params, strategy_file, rules_given)
    model, strategy, _ = source
    recorded_game_value = (source[2] or {}).get("game_value")
    model, _, summary = unpack(source, load_exact(strategy_file, model, strategy))
    report = {key: summary.get(key) for key in (
        "on_policy_value", "exploitability", "nash_conv", "captain_exploitability",
        "opponent_exploitability", "certified_value")}
    report["rules"] = model.params.to_dict()
    report["claimed"] = {key: summary.get(key) for key in ("method", "status", "value")}
    report["exploitability_against"] = "on_policy_value"
    if as_json:
        click.echo(json.dumps(report, indent=1))
        return
    from solver.certificate import Certificate

    proof = Certificate.from_dict(report["certified_value"])
    game_value = proof.exact if proof.exact is not None else recorded_game_value
    pair = report["on_policy_value"]
    claimed = report["claimed"]
    solved_by = (f"{claimed['method']} ({claimed['status']}), as the file claims; the numbers "
                 f"below are measured" if claimed["method"] else "not recorded")
    lines = [
        f"rules:          {model.params.describe()} (the file's)",
        f"solved by:      {solved_by}",
        f"pair value:     {pair:+.12f} chips per hand to the captain, both playing the "
        f"file's strategies",
        f"exploitability: {report['exploitability']:.3e} (NashConv / 2, the mean of the two "
        f"below)",
    ]
    for side, key, who in (("captain", "captain_exploitability", "opponent"),
                           ("opponent", "opponent_exploitability", "captain")):
        line = (f"  vs {side + ':':9s} a best-responding {who} wins {report[key]:.3e} more "
                f"than the pair value")
        if game_value is not None:
            beyond = (float(game_value) - (pair - report[key]) if side == "captain"
                      else pair + report[key] - float(game_value))
            line += f" ({beyond:.3e} more than the game value {float(game_value):+.6f})"
        lines.append(line)
    lines.append(f"certified:      {_proved(report['certified_value'], 'game value')}")
    click.echo("\n".join(lines))


@main.command(short_help="Play hands of Bidou against the equilibrium.",
              epilog="""\b
Examples:
  bidou play                        five hands, seats alternating
  bidou play --role captain --hands 20 --seed 1
  bidou play --strategy outputs/default/simplified_strategy.json

Type the first letters of a choice (e.g. `s` for stop); `?` shows the ranking of
hands; Ctrl-D ends the game.""")
@_guarded
@game_options
@_STRATEGY_OPTION
@click.option("--role", type=click.Choice(["captain", "opponent", "alternate"]),
              default="alternate", show_default=True,
              help="Your seat: the captain throws first and reveals his throw count first.")
@click.option("--hands", type=click.IntRange(min=1), default=5, show_default=True,
              help="How many hands to play.")
@click.option("--seed", type=int, default=None, help="Dice seed (default: random).")
def play(params: BidouParams, strategy_file: str | None, role: str, hands: int,
         seed: int | None, rules_given: tuple[str, ...]) -> None:
    """Play hands against the equilibrium strategy, and learn from each: after every hand,
    what the equilibrium would have done with your dice and what your choices cost."""
    import numpy as np

    from solver.app import play as game
    from solver.export.bundle import unpack

    if seed is not None and seed < 0:
        raise ParameterError(f"--seed must be 0 or more, got {seed}")
    model, strategy, summary = unpack(_strategy_source(params, strategy_file, rules_given))
    rng = np.random.default_rng(seed)

    def ask(prompt: str, options) -> str:
        while True:
            try:
                answer = click.prompt(prompt, prompt_suffix=" ")
            except click.Abort:
                raise EOFError from None
            choice = game.match_choice(answer, options)
            if choice == "?":
                click.echo(game.ranking_text(model))
            elif choice is not None:
                return choice
            else:
                click.echo(f"  Please type one of: {', '.join(options)} (or ? for the ranking).")

    click.echo(game.introduction(model, summary))
    advisor = game.Advisor(model, strategy)
    score = game.Score()
    try:
        for number in range(hands):
            seat = {"captain": 0, "opponent": 1}.get(role, number % 2)
            click.echo(f"\n— Hand {number + 1} of {hands} —")
            result = game.play_hand(model, strategy, seat, rng, ask, click.echo, advisor)
            score.add(result)
            click.echo(score.line())
    except EOFError:
        click.echo("\nGame over (end of input).")
    click.echo(score.final(summary))


@main.command("cheatsheet", short_help="A one-page cheat sheet: the best few rules in words.")
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
    from solver.export.bundle import unpack
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

    def progress(what: str, done: int, total: int) -> None:
        if show:
            sys.stderr.write(f"\r{what}   ")
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


@main.command(short_help="Sequence-form LP of a small OpenSpiel game.",
              epilog="""\b
Examples:
  bidou lp kuhn_poker                       value -1/18 to player 0
  bidou lp "python_bidou(faces=3,throws=1)"
  bidou lp leduc_poker --json""")
@click.argument("game_string")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@_guarded
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


@main.command(name="round", short_help="Solve and prove a whole round (every chip state).")
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
    from solver.round.states import ChipState, state_graph

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
            f"{report['max_width']:.1e}); every round ends with probability 1, whatever "
            f"either player does (proved)",
            f"convergence:    {_convergence_line(report['convergence'])}",
            f"seconds:        {report['seconds']:.1f}"]))
    if out is not None and charts:
        from solver.export.round_charts import write_round_chart, write_state_charts

        os.makedirs(out, exist_ok=True)
        write_json_atomic(os.path.join(out, "round.json"), report)
        written = [os.path.join(out, "round.json")] + [
            str(p) for p in write_round_chart(report, out)]
        if isinstance(wanted, ChipState):
            from solver.best_response import complete_unreached
            from solver.round.compare import difference
            from solver.solve import solve as solve_hand

            hand = solve_hand(params)
            stage = solution.stages[wanted]
            shown = complete_unreached(stage.model, stage.strategy)   # sensible off-path play
            said = difference(stage.model, shown, hand.model, hand.strategy)
            written += [str(p) for p in write_state_charts(
                stage.model, shown, state_text, said.short(), out,
                value=solution.values[wanted], exploitability=said.stage_exploitability)]
            if not as_json:
                click.echo(f"difference:     {said.sentence()}")
        if not as_json:
            click.echo("\n".join(f"wrote:          {path}" for path in written))
    elif out is not None:
        write_json_atomic(out, report)
        if not as_json:
            click.echo(f"report:         {out}")


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


@main.command(short_help="Solve a grid of rule sets in parallel on Dask.")
@_guarded
@click.option("--faces", default="6", show_default=True, help="Comma-separated, e.g. 2,3,4.")
@click.option("--throws", default="3", show_default=True, help="Comma-separated, e.g. 1,2,3.")
@click.option("--max-level", default="4", show_default=True, help="Comma-separated levels.")
@click.option("--reroll", default="all", show_default=True, help="all, keep, or all,keep.")
@click.option("--ranking", default="encyclopedia", show_default=True,
              help="encyclopedia, french, or both.")
@click.option("--aces-beat-bidou", default="true", show_default=True,
              help="French ranking: true, false, or true,false.")
@click.option("--exact", is_flag=True, help="Recover each exact rational value (slower).")
@click.option("--scheduler", default=None,
              help="Address of an existing Dask scheduler (default: a local cluster).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Local cluster: worker processes (default: the machine's cores).")
@click.option("--out", "out_dir", required=True,
              help="Directory for sweep.csv, sweep.parquet, sweep.png (rows there are kept).")
def sweep(faces: str, throws: str, max_level: str, reroll: str, ranking: str,
          aces_beat_bidou: str, exact: bool, scheduler: str | None, workers: int | None,
          out_dir: str) -> None:
    """Solve a grid of rule sets in parallel on Dask: one row per rule set (resumable)."""
    from solver.app.sweep import build_grid, check_destination, dask_client, read_rows, run_sweep

    grid = build_grid(faces, throws, max_level, reroll, ranking, aces_beat_bidou)
    check_destination(out_dir)
    read_rows(out_dir)                      # a table that is not ours fails before any work
    if scheduler is not None and workers is not None:
        raise ParameterError("--workers applies to the local cluster, not to --scheduler")
    terminal = sys.stderr.isatty()

    def progress(done: int, total: int, row: dict | None) -> None:
        if terminal:
            sys.stderr.write(f"\r{done}/{total} rule sets solved   ")
            sys.stderr.flush()

    try:
        with dask_client(scheduler, workers) as client:
            report = run_sweep(grid, out_dir, client, exact=exact, on_row=progress)
    except KeyboardInterrupt:
        _fail(f"interrupted; the rows solved so far are in {out_dir}/sweep.csv", 130)
    if terminal:
        sys.stderr.write("\n")
    click.echo(f"{report.solved} rule sets solved, {report.skipped} already in the table, "
               f"{report.seconds:.1f} s: {out_dir}/sweep.csv, sweep.parquet, sweep.png")
    for params, why in report.failed:
        click.echo(f"failed: {params.describe()}: {why}", err=True)
    for params in report.not_exact:
        click.echo(f"no exact value: {params.describe()}", err=True)
    if report.failed or report.not_exact:
        _fail(f"{len(report.failed)} rule sets failed, {len(report.not_exact)} without the "
              f"exact value asked; their rows are missing or inexact", 1)


@main.command(short_help="Write docs/results.md, the findings, from the sweep table.")
@_guarded
@click.option("--root", default=".", show_default=True,
              help="The project directory (reads docs/data/sweep.csv).")
def results(root: str) -> None:
    """docs/results.md: the findings, from the sweep table and exact solves (~1-2 minutes)."""
    from solver.app.results import write_results

    terminal = sys.stderr.isatty()

    def progress(name: str) -> None:
        if terminal:
            sys.stderr.write(f"\rsolving {name} exactly...          ")
            sys.stderr.flush()

    paths = write_results(root, progress=progress)
    if terminal:
        sys.stderr.write("\n")
    for path in paths:
        click.echo(str(path))


if __name__ == "__main__":
    main()
