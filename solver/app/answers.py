"""Reading a person's answers at `bidou play`'s prompts, from a terminal or from a pipe.

A terminal gets click's prompt (line editing). Anything else is read in bounded pieces: a
closed standard input (`<&-`) made `input()` raise RuntimeError, and an endless line
(`< /dev/zero`) was read whole into memory until the kernel killed the process.
"""

from __future__ import annotations

import sys

import click

# The longest answer read; the rest of a longer line is skipped, up to MAX_LINE_CHARS in
# all, beyond which the input is not a person's and counts as ended.
MAX_ANSWER_CHARS = 4096
MAX_LINE_CHARS = 1 << 21


def read_answer(prompt: str) -> str:
    """The next line typed after `prompt`, without its line ending. EOFError at the end of
    the input (or when there is none); KeyboardInterrupt for Ctrl-C."""
    stream = sys.stdin
    try:
        interactive = stream is not None and stream.isatty()
    except (OSError, ValueError):          # a closed stream
        interactive = False
    if interactive:
        try:
            return click.prompt(prompt, prompt_suffix=" ")
        except click.Abort as error:       # click turns Ctrl-C and end of input into it
            if isinstance(error.__context__, KeyboardInterrupt):
                raise KeyboardInterrupt from None     # exit 130, not a game over
            raise EOFError from None
        except RuntimeError:               # "lost sys.stdin"
            raise EOFError from None
    click.echo(f"{prompt} ", nl=False)
    if stream is None:
        raise EOFError
    try:
        line = stream.readline(MAX_ANSWER_CHARS)
        if not line:
            raise EOFError
        read, tail = len(line), line
        while len(tail) == MAX_ANSWER_CHARS and not tail.endswith("\n"):   # over-long:
            tail = stream.readline(MAX_ANSWER_CHARS)                         # skip the rest
            read += len(tail)
            if read > MAX_LINE_CHARS:
                raise EOFError
    except (OSError, ValueError):          # a closed or unreadable stream
        raise EOFError from None
    return line.rstrip("\r\n")
