"""The `bidou` group's error handling: every failure is one line on stderr with its exit code.

Every failure a user can cause (bad parameters, unreadable files, unusable destinations) is
one line on stderr and exit status 2; a solver that cannot vouch for its answer exits 1;
Ctrl-C exits 130 and SIGTERM 143, leaving no temporary file behind.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, NoReturn, TypeVar, cast

import click

from games.bidou.params import ParameterError
from solver.common.errors import SolverError
from solver.common.files import DestinationError
from solver.common.signals import EXIT_INTERRUPTED, EXIT_TERMINATED, Terminated, signals_unwind
from solver.hand.strategy import StrategyFileError

EXIT_CANNOT_VOUCH = 1           # the solver could not prove what was asked
EXIT_BAD_INPUT = 2              # parameters, files or destinations the user gave
EXIT_BROKEN_PIPE = 141          # 128 + SIGPIPE: stdout closed by its reader (`| head`)

F = TypeVar("F", bound=Callable[..., Any])


# An error line quoting what was typed (a 100 KB game string, a 5000-digit state) keeps
# its start and end only.
MAX_MESSAGE_CHARS = 1000


def one_line(message: str) -> str:
    """`message` as an error line: its line breaks as spaces, at most MAX_MESSAGE_CHARS."""
    text = " ".join(message.splitlines())
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return (f"{text[:MAX_MESSAGE_CHARS * 2 // 3]} ... {text[-MAX_MESSAGE_CHARS // 4:]} "
            f"({len(text):,} characters)")


def fail(message: str, code: int) -> NoReturn:
    """One line on stderr, then exit with `code`."""
    click.echo(f"bidou: error: {one_line(message)}", err=True)
    sys.exit(code)


def _end_line(word: str) -> None:
    """'bidou: interrupted' on a line of its own: after a progress line on a terminal, a
    line break first; in a log, nothing else."""
    click.echo(("\n" if _stderr_is_terminal() else "") + f"bidou: {word}", err=True)


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (OSError, ValueError):
        return False


def guarded(func: F) -> F:
    """Turn the library's expected errors into one-line messages and exit codes."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (ParameterError, StrategyFileError, DestinationError) as error:
            fail(str(error), EXIT_BAD_INPUT)
        except SolverError as error:
            fail(str(error), EXIT_CANNOT_VOUCH)
    return cast(F, wrapper)


def _quiet_broken_pipe() -> NoReturn:
    """stdout's reader went away (`bidou stats --json | true`): exit quietly with 141, the
    status of a tool killed by SIGPIPE, not click's 1 (which would read as "cannot vouch for
    the numbers"). stdout is pointed at /dev/null first, so that the interpreter's final
    flush does not fail again and print "Exception ignored"."""
    import os

    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    sys.exit(EXIT_BROKEN_PIPE)


class OneLineError(click.ClickException):
    """A usage error shown like every other error: one line, exit status 2."""

    exit_code = EXIT_BAD_INPUT

    def show(self, file: Any = None) -> None:
        click.echo(f"bidou: error: {one_line(self.format_message())}", err=True)


def _usage_message(error: click.UsageError, group: click.Context | None = None) -> str:
    """The error in one line, naming the help to read: the command's own, also when click
    raised it without the command's context (an option's missing value)."""
    text = error.format_message().rstrip(".")
    if error.ctx is not None and error.ctx is not group:
        command = error.ctx.command_path
    elif group is not None and group.invoked_subcommand:
        command = f"bidou {group.invoked_subcommand}"
    else:
        command = "bidou"
    return f"{text[:1].lower()}{text[1:]} (see `{command} --help`)"


# `bidou` alone prints the help (click 8.2+ raises this usage error to do it): left as is
_HELP_ERRORS = tuple(getattr(click.exceptions, name) for name in ("NoArgsIsHelpError",)
                     if hasattr(click.exceptions, name))


def quiet_plotting_folders() -> None:
    """Point matplotlib (MPLCONFIGDIR) at a private temporary folder, removed at exit, when
    its own folders (~/.config/matplotlib, ~/.cache/matplotlib, or their XDG homes) cannot
    be made or written: an immutable or missing HOME. matplotlib would make such a folder
    itself, but print two warning lines on stderr, beside a command's one-line contract,
    and it would make its folders under a HOME that does not exist. Before matplotlib is
    imported (commands import it when they run); a given MPLCONFIGDIR is left alone."""
    if os.environ.get("MPLCONFIGDIR"):
        return
    home = Path(os.path.expanduser("~"))
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "matplotlib"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "matplotlib"
    if home.is_dir() and _can_make(config) and _can_make(cache):
        return
    folder = tempfile.mkdtemp(prefix="bidou-matplotlib-")
    atexit.register(shutil.rmtree, folder, True)
    os.environ["MPLCONFIGDIR"] = folder


def _can_make(folder: Path) -> bool:
    """Whether `folder` is a writable folder, or its nearest existing ancestor is one (a
    check: nothing is made)."""
    for path in (folder, *folder.parents):
        if os.path.lexists(path):
            return path.is_dir() and os.access(path, os.W_OK | os.X_OK)
    return False


class Bidou(click.Group):
    """The command group, with click's usage errors (unknown option, bad choice, missing
    value) reported in the same one-line style as the library's errors."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as error:
            if isinstance(error, _HELP_ERRORS):
                raise
            raise OneLineError(_usage_message(error)) from None

    def invoke(self, ctx: click.Context) -> Any:
        """Ctrl-C and SIGTERM end with 130 and 143 (not click's "Aborted!" and 1, which
        would read as a solver failure)."""
        if sys.stdout is None:          # started with standard output closed (`>&-`)
            fail("standard output is closed: nothing the command prints could be seen",
                 EXIT_BAD_INPUT)
        quiet_plotting_folders()
        with signals_unwind():
            try:
                return super().invoke(ctx)
            except click.UsageError as error:
                if isinstance(error, _HELP_ERRORS):
                    raise
                raise OneLineError(_usage_message(error, ctx)) from None
            except BrokenPipeError:
                _quiet_broken_pipe()
            except Terminated:
                _end_line("terminated")
                sys.exit(EXIT_TERMINATED)
            except (KeyboardInterrupt, click.exceptions.Abort) as error:
                if isinstance(error.__context__, EOFError):       # stdin ended at a prompt
                    fail("input ended before the command did", EXIT_BAD_INPUT)
                _end_line("interrupted")
                sys.exit(EXIT_INTERRUPTED)
