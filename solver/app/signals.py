"""Ending on a signal the way a Unix tool should: unwind, remove temporary files, exit 130
on Ctrl-C (SIGINT) and 143 on SIGTERM.

Python turns SIGINT into KeyboardInterrupt, which unwinds through every ``finally`` and
``except BaseException`` (the atomic writers delete their ``.tmp-*`` files there). SIGTERM
would kill the process on the spot, leaving them behind; `sigterm_unwinds` makes it raise
`Terminated` instead, so it unwinds the same way.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator

EXIT_INTERRUPTED = 130          # 128 + SIGINT
EXIT_TERMINATED = 143           # 128 + SIGTERM


class Terminated(BaseException):
    """SIGTERM arrived; a BaseException so that no ``except Exception`` swallows it."""


def _raise_terminated(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)     # a second SIGTERM must not cut cleanup
    raise Terminated()


@contextlib.contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """Within the block SIGTERM raises `Terminated` (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
