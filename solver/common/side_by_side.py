"""Two independent computations at once: one in a forked child, the other here.

The large Le Bidou hand spends its time outside the LPs in pairs of computations that share
nothing but what they read: each player's best response in the double oracle's check, the
certificate's two exact best responses. On 2 cores a second process halves their wall
time. The child is forked, so it reads the model and the strategies from the memory it
inherits; only its answer comes back, pickled through a pipe between two processes of this
run (never a file). Its result is the one this process would compute (the same
deterministic code on the same inputs), so the output does not depend on whether a child
ran: where a child cannot be forked safely (`can_fork`: no "fork" start method, inside a
daemonic worker such as the round's pool or a sweep cell, beside other Python threads, one
core), or when it dies or fails, its half is computed here, after this one's.

solver/hand/exact/recovery.py runs the exact recovery's two systems through it, its
RecoveryError passed back from the child (`passes`) rather than computed again.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from typing import Callable, TypeVar

from solver.common.workers import end_with_parent, parent_ties

A = TypeVar("A")
B = TypeVar("B")


def can_fork() -> bool:
    """Whether a child process can be forked here and a second core may run it: not
    inside a daemonic worker (which may have no children), and not beside other Python
    threads (a Dask scheduler's, say: a lock one of them holds would stay held in the
    child)."""
    return ("fork" in multiprocessing.get_all_start_methods()
            and not multiprocessing.current_process().daemon
            and threading.active_count() == 1
            and (os.cpu_count() or 1) >= 2)


def side_by_side(here: Callable[[], A], there: Callable[[], B], parallel: bool = True,
                 passes: tuple[type[Exception], ...] = ()) -> tuple[A, B]:
    """(here(), there()): `there` in a forked child while this process computes `here`,
    when `parallel` and `can_fork()`; otherwise one after the other. An exception of
    `here` propagates (the child is stopped); a child that fails or dies without
    answering has `there` computed here, so its exception, if any, is raised here; but
    an exception of a type in `passes` (one a caller expects, whose computing again would
    only cost time) comes back from the child and is raised as it is."""
    if not (parallel and can_fork()):
        return here(), there()
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_answer, args=(send, there, passes, parent_ties()),
                            daemon=True)
    child.start()
    send.close()
    answer = None
    try:
        mine = here()
        try:
            answer = receive.recv()
        except EOFError:                # the child died without answering
            pass
    finally:
        if answer is None and child.is_alive():
            child.kill()                # a child left writing an answer nobody reads
            # would block on the pipe, and join with it
        child.join()
        receive.close()
    if answer is None or (not answer[0] and answer[1] is None):
        return mine, there()            # computed here: the same result, or its error
    if not answer[0]:
        raise answer[1]                 # one of `passes`, raised in the child
    return mine, answer[1]


def _answer(send, there: Callable[[], object], passes: tuple[type[Exception], ...],
            ties: tuple[int, bool]) -> None:
    """The child's work: (True, its result), (False, the exception) if it raised one of
    `passes`, or (False, None) if it raised another. It ignores
    Ctrl-C, which the terminal sends to the whole process group: the parent takes it (and
    stops the child), so that the command exits 130 with no traceback from the child; it
    dies with the parent, however the parent dies (`end_with_parent`)."""
    end_with_parent(ties)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        answer: tuple = (True, there())
    except passes as error:
        answer = (False, error)
    except Exception:                   # computed again by the parent, which raises it
        answer = (False, None)
    send.send(answer)
    send.close()
