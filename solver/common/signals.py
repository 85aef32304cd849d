"""Ending on a signal the way a Unix tool should: unwind, remove temporary files, exit 130
on Ctrl-C (SIGINT) and 143 on SIGTERM.

Python turns SIGINT into KeyboardInterrupt, which unwinds through every ``finally`` and
``except BaseException`` (the atomic writers delete their ``.tmp-*`` files there). SIGTERM
would kill the process on the spot, leaving them behind; `signals_unwind` makes it raise
`Terminated` instead, so it unwinds the same way, and keeps both out of gc callbacks and
finalizers, which would drop them. What must not be cut short while it starts (the
sweep's Dask cluster) is started with Ctrl-C and SIGTERM held (`started_whole`), and the
processes it starts never see Ctrl-C. A long call into C that lets go of the interpreter
(HiGHS's LPs) runs in a thread of its own while the main thread waits in short slices
(`interruptible`): Python runs a signal's handler only between the bytecodes of the main
thread, so a Ctrl-C once waited for the whole LP.
"""

from __future__ import annotations

import contextlib
import gc
import signal
import threading
import weakref
from types import CodeType, FrameType
from typing import Any, Callable, ContextManager, Iterator, TypeVar

EXIT_INTERRUPTED = 130          # 128 + SIGINT
EXIT_TERMINATED = 143           # 128 + SIGTERM


class Terminated(BaseException):
    """SIGTERM arrived; a BaseException so that no ``except Exception`` swallows it."""


def drops_exceptions(frame: FrameType | None) -> bool:
    """Whether `frame` (where a signal's handler interrupts the program) runs inside code
    whose exceptions Python prints and drops: a gc callback, a ``__del__`` method or a
    `weakref.finalize` callback (run when an object's last reference goes, collection or
    not)."""
    codes = {_code(callback) for callback in gc.callbacks}
    codes.add(_FINALIZE_CALL)
    while frame is not None:
        if frame.f_code in codes or frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _code(callback: Callable[..., object]) -> CodeType | None:
    """The code a gc callback runs: a function's or a method's, or the ``__call__`` of a
    callable object (like `_Collections`: a signal handled at the start of its call, before
    it marks the collection, was once raised there and dropped)."""
    code = getattr(getattr(callback, "__func__", callback), "__code__", None)
    if code is None:
        call = getattr(type(callback), "__call__", None)
        code = getattr(call, "__code__", None)
    return code if isinstance(code, CodeType) else None


_FINALIZE_CALL = weakref.finalize.__call__.__code__


class _Collections:
    """Whether a garbage collection runs: a gc callback of our own, first in the list,
    told of each one's start before the other callbacks and of its stop. The weakref
    callbacks and finalizers a collection runs drop what they raise, like gc callbacks."""

    def __init__(self) -> None:
        self.running = False

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        self.running = phase == "start"


class _Resends:
    """Signals to send the main thread again in a moment, by another thread, once it has
    left the collection where its handler could not raise (a real signal, which also wakes
    a sleep or a wait). Not `_thread.interrupt_main` from the handler: the interpreter would
    run the handler again at once, still inside it, and again, to the recursion limit.

    A resend is dropped if the handler raised meanwhile (`raised`) or the block ended
    (`stop`): a second delivery would come when the command is already ending, and after
    the interpreter has reset the handlers, kill it by SIGINT (exit -2, not 130)."""

    def __init__(self, delay: float = 0.001) -> None:
        self.delay = delay
        self.raised = 0                     # times a handler raised: a resend's token
        self.live = True
        self._timers: list[threading.Timer] = []

    def later(self, signum: int) -> None:
        token, ident = self.raised, threading.main_thread().ident
        if ident is None:                   # no main thread: nothing to send to
            return
        main: int = ident

        def send() -> None:
            if self.live and self.raised == token:
                signal.pthread_kill(main, signum)

        timer = threading.Timer(self.delay, send)
        timer.daemon = True
        self._timers.append(timer)
        timer.start()

    def stop(self) -> None:
        self.live = False
        for timer in self._timers:
            timer.cancel()


def _handlers(collections: _Collections, resends: _Resends
              ) -> tuple[Callable[[int, FrameType | None], None],
                         Callable[[int, FrameType | None], None]]:
    """Ctrl-C's and SIGTERM's handlers: KeyboardInterrupt and `Terminated`, each asked for
    again later when it would be raised where Python drops it (in a collection, or a gc
    callback: Dask's scheduler registers one, its GC diagnosis, in the process of `bidou
    sweep`, and a Ctrl-C handled there was lost and the sweep went on)."""
    def dropped_here(frame: FrameType | None) -> bool:
        return collections.running or drops_exceptions(frame)

    def interrupt(signum: int, frame: FrameType | None) -> None:
        if dropped_here(frame):
            resends.later(signum)
            return
        resends.raised += 1
        raise KeyboardInterrupt()

    def terminate(signum: int, frame: FrameType | None) -> None:
        if dropped_here(frame):
            resends.later(signum)
            return
        resends.raised += 1
        signal.signal(signal.SIGTERM, signal.SIG_IGN)     # a second one must not cut cleanup
        raise Terminated()

    return interrupt, terminate


@contextlib.contextmanager
def signals_unwind() -> Iterator[None]:
    """Within the block SIGTERM raises `Terminated` and Ctrl-C KeyboardInterrupt (as it
    does by default), neither of them where Python would drop it (`_handlers`). Main thread
    only; elsewhere a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    collections, resends = _Collections(), _Resends()
    interrupt, terminate = _handlers(collections, resends)
    gc.callbacks.insert(0, collections)
    previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, terminate)}
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        resends.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        gc.callbacks.remove(collections)


class InterruptsHeld:
    """Ctrl-C and SIGTERM held back while something that must not be cut short starts (a
    Dask cluster), and Ctrl-C kept from every thread and process started meanwhile.

    `hold()` blocks SIGINT in this thread's signal mask, which threads created from it
    inherit, and processes forked from those, across `exec` too: the cluster's worker
    processes start with SIGINT blocked and never see the terminal's Ctrl-C, which the
    command handles for them (before, each printed its own traceback, and those cut short
    while Python started printed "init_import_site"). SIGTERM stays unblocked (Dask stops
    its workers with it). Python's handlers record either signal instead of acting on it
    (another thread may still take SIGINT). `release()` restores all and delivers what
    came to the handlers it restored (KeyboardInterrupt, `Terminated`), now that there is
    something whole to close, by calling them (not by raising the signal again, which a gc
    callback could swallow). Main thread only; elsewhere both are no-ops."""

    HELD = (signal.SIGTERM, signal.SIGINT)        # delivered in this order on release

    def __init__(self) -> None:
        self.came: set[int] = set()
        self._previous: dict[int, Any] = {}
        self._mask: set[Any] | None = None

    def _record(self, signum: int, frame: object) -> None:
        self.came.add(signum)

    def hold(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        # multiprocessing's resource tracker, started with the first child process, unblocks
        # SIGINT in the thread that starts it (Python 3.11): started here, before the block
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
        self._previous = {signum: signal.signal(signum, self._record) for signum in self.HELD}
        self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

    def release(self, deliver: bool = True) -> None:
        """The signals handled as before; what came meanwhile delivered to them (unless not
        `deliver`): the restored handler raises, or does what it does."""
        if self._mask is None:
            return
        # a Ctrl-C pending in the mask runs `_record` as the mask is restored
        signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._mask = None
        for signum in self.HELD:
            if signum in self.came and deliver:
                handler = signal.getsignal(signum)
                if callable(handler):
                    # called here, so that its exception is raised here: a signal's Python
                    # handler runs wherever the interpreter next looks, a gc callback
                    # included (Dask's GC diagnosis), where the exception is printed and
                    # dropped (a Ctrl-C lost, seen in tests/test_sweep_signals.py)
                    handler(signum, None)
                else:
                    signal.raise_signal(signum)


T = TypeVar("T", bound=ContextManager[Any])


@contextlib.contextmanager
def started_whole(start: Callable[[], T],
                  on_interrupt: Callable[[], None] | None = None) -> Iterator[T]:
    """`start()` run with Ctrl-C and SIGTERM held (`InterruptsHeld`), then what it made,
    entered: a signal that came while it started is delivered inside it, so that it is
    closed like any other (a Dask cluster cut short in its start printed pages of
    tracebacks, or left files behind). `on_interrupt()` runs first when Ctrl-C or SIGTERM
    ends the block (before the close: the sweep silences Dask's log there)."""
    held = InterruptsHeld()
    held.hold()
    try:
        thing = start()
    except BaseException:
        held.release(deliver=False)
        raise
    with thing:
        try:
            held.release()
            yield thing
        except (KeyboardInterrupt, Terminated):
            if on_interrupt is not None:
                on_interrupt()
            raise


R = TypeVar("R")

# The longest a signal waits for the main thread while `interruptible` runs its call: a
# slice of the wait (the wait itself is cut short by a signal on POSIX; the slice bounds it
# where it is not).
WAIT_SLICE = 0.1
# The longest the main thread waits, after a signal, for the call it asked to stop.
STOP_GRACE = 2.0


def interruptible(call: Callable[[], R], stop: Callable[[], None] | None = None) -> R:
    """`call()`, run so that Ctrl-C and SIGTERM end it within a moment: in a thread of its
    own (the call must let go of the interpreter's lock, as HiGHS's `run` does), while the
    main thread waits in slices, where Python runs the signals' handlers. When one raises
    (KeyboardInterrupt, `Terminated`), `stop()` asks the call to end (HiGHS's interrupt
    callback: `solver.hand.lp.highs`), the thread is given `STOP_GRACE` seconds to end and
    the exception goes on; the call's result is dropped. Outside the main thread, where no
    signal is handled: `call()` as it is. What the call raises is raised here."""
    if threading.current_thread() is not threading.main_thread():
        return call()
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            outcome["result"] = call()
        except BaseException as error:          # handed to the main thread
            outcome["error"] = error
        finally:
            done.set()

    thread = threading.Thread(target=work, name="bidou-interruptible", daemon=True)
    try:
        thread.start()
        while not done.wait(WAIT_SLICE):
            pass
    except BaseException:
        if stop is not None:
            stop()
        done.wait(STOP_GRACE)
        raise
    thread.join()                           # ended: the count of threads is one again
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]
