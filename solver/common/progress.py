"""The one progress protocol of the library: `progress(what, done, total)`.

Every library function that takes a while accepts an optional callback of this shape:
`what` says what is under way in words ("state 0,2,7", "cfr+: exploitability 3.1e-04"),
`done` is how far it got (1-based) and `total` how far it goes (0 when unknown). Library
code knows nothing of terminals; `solver/app/progress.py` turns the calls into one line on
stderr. Numbers a caller needs (a CFR method's convergence history, a sweep's rows) come
back in the result, never through this callback.
"""

from __future__ import annotations

from typing import Callable

Step = Callable[[str, int, int], None]


def quiet(what: str, done: int, total: int) -> None:
    """The callback that says nothing (every library function's default)."""


def within(progress: Step | None, prefix: str) -> Step:
    """The callback with `prefix: ` before every step (e.g. the variant being exported)."""
    if progress is None:
        return quiet
    return lambda what, done, total: progress(f"{prefix}: {what}", done, total)


def scaled(progress: Step | None, offset: int, total: int) -> Step:
    """The callback that reports a sub-task's steps as steps `offset + done` of `total`."""
    if progress is None:
        return quiet
    return lambda what, done, _: progress(what, offset + done, total)
