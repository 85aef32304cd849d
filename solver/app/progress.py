"""Progress of long work on one line of a terminal, and nothing when stderr is not one.

Library functions that take a while accept an optional callback of the one protocol
`progress(what, done, total)` (`solver.common.progress.Step`). They know nothing of terminals;
`Progress` turns the calls into a line on stderr that is rewritten in place.
"""

from __future__ import annotations

import sys
from typing import TextIO

from solver.common.progress import Step, quiet, within

__all__ = ["Progress", "Step", "quiet", "within"]


class Progress:
    """`what (n of m)` on one line of stderr, rewritten in place; silent unless stderr is
    a terminal (or `enabled` says otherwise). Use as a context manager, or call `close()`
    to clear the line before printing results."""

    def __init__(self, enabled: bool | None = None, stream: TextIO | None = None):
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled
        self._shown = 0

    def __call__(self, what: str, done: int = 0, total: int = 0) -> None:
        if not self.enabled:
            return
        text = f"{what} ({done} of {total})" if total else what
        text = text[:118]
        self.stream.write("\r" + text.ljust(self._shown))
        self.stream.flush()
        self._shown = len(text)

    def close(self) -> None:
        """Clear the line, so what follows starts on a clean one."""
        if self.enabled and self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self.stream.flush()
        self._shown = 0

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
