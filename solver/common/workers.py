"""The one pool of worker processes for in-process parallel work (the round's and the
manche's stage solves); sweeps over many rule sets run on Dask instead (solver/pipeline/sweep.py).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from typing import Any, Callable, Sequence

from solver.common.errors import SolverError


def start_method() -> str:
    """fork where the platform has it (the workers share the parent's loaded modules), else
    spawn."""
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


PR_SET_PDEATHSIG = 1                 # linux/prctl.h


def parent_ties() -> tuple[int, bool]:
    """What a child started from here passes to `end_with_parent`: this process's id, and
    whether the kernel may watch this thread for it (the main thread, which lives as long
    as the process: the kernel's parent-death signal follows the thread that forked)."""
    return os.getpid(), threading.current_thread() is threading.main_thread()


def end_with_parent(ties: tuple[int, bool]) -> None:
    """Called first in a child process: it is killed as soon as its parent dies, however
    the parent dies. A parent ended by SIGKILL (a timeout, a batch scheduler, the
    out-of-memory killer) runs no cleanup, and its workers, waiting on pipes that other
    workers also hold open, stayed asleep for good, re-parented to init. On Linux the
    kernel sends SIGKILL (PR_SET_PDEATHSIG); elsewhere, or for a child of another thread,
    a thread of the child polls its parent's id. A parent already gone before that (the
    race the check closes) ends it at once."""
    parent, main_thread = ties
    if not (main_thread and sys.platform.startswith("linux") and _death_signal()):
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                         name="bidou-parent-watch").start()
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


def _death_signal() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGKILL)


def _worker_main(conn: Any, ties: tuple[int, bool]) -> None:
    """A worker: run the tasks the parent sends (None: stop), send back each result.

    Signals are the parent's business: Ctrl-C reaches the whole process group, and the
    parent, not 4 workers with 4 tracebacks, reports it; SIGTERM kills a worker at once
    (the parent's handler, inherited by fork, would only raise inside the task); the
    parent's death, however it comes, kills it (`end_with_parent`)."""
    end_with_parent(ties)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while True:
        try:
            task = conn.recv()
        except EOFError:                     # the parent is gone
            return
        if task is None:
            return
        fn, args = task
        try:
            reply: tuple[bool, Any] = (True, fn(*args))
        except Exception as error:           # the parent raises it
            reply = (False, error)
        try:
            conn.send(reply)
        except (OSError, EOFError):
            return
        except Exception as error:           # an unpicklable result or error
            conn.send((False, SolverError(f"a worker process could not send back its "
                                          f"result: {type(error).__name__}: {error}")))


class WorkerPool:
    """A few worker processes, each on its own pipe: the round's and the manche's stage
    solves (the one pool for in-process parallel work; sweeps run on Dask).

    Not `concurrent.futures.ProcessPoolExecutor`: when one of its workers dies (the OOM
    killer, `kill -9`) it terminates the others and joins them, and a worker that had
    inherited the command's SIGTERM handler survives that and waits for work for good, so
    the round hung. Here the parent only ever waits on its workers'
    pipes and process sentinels together: a death is seen at once and fails the solve
    (`SolverError`, exit 1); any other way out (Ctrl-C, SIGTERM, an error) kills them."""

    def __init__(self, workers: int, method: str, what: str) -> None:
        self.what = what                     # named when a worker dies
        context: Any = multiprocessing.get_context(method)   # Fork- or SpawnContext
        self.processes: list[Any] = []
        self.conns: list[Any] = []
        for _ in range(workers):
            parent, child = context.Pipe()
            process = context.Process(target=_worker_main, args=(child, parent_ties()),
                                      daemon=True)
            process.start()
            child.close()                    # a dead worker is then EOF, not a silent pipe
            self.processes.append(process)
            self.conns.append(parent)

    def map(self, fn: Callable[..., Any], calls: Sequence[tuple[Any, ...]],
            done: Callable[[int], None] | None = None) -> list[Any]:
        """fn(*call) for every call, in order, on the workers; SolverError if one dies.
        `done(k)` hears each result as it comes (k results so far)."""
        results: list[Any] = [None] * len(calls)
        pending = list(range(len(calls)))
        busy: dict[int, int] = {}            # worker -> call it runs
        try:
            while pending or busy:
                for worker in range(len(self.conns)):
                    if pending and worker not in busy:
                        busy[worker] = pending.pop(0)
                        self._send(worker, (fn, calls[busy[worker]]))
                ready = multiprocessing.connection.wait(
                    [self.conns[w] for w in busy] + [self.processes[w].sentinel for w in busy])
                for worker in list(busy):
                    if self.conns[worker] in ready:
                        ok, value = self._receive(worker)
                        if not ok:
                            raise value
                        results[busy.pop(worker)] = value
                        if done is not None:
                            done(len(calls) - len(pending) - len(busy))
                    elif self.processes[worker].sentinel in ready:
                        raise self._died(worker)
        except BaseException:
            self.kill()
            raise
        return results

    def _send(self, worker: int, message: Any) -> None:
        try:
            self.conns[worker].send(message)
        except (OSError, EOFError):          # its pipe broke: the worker died
            raise self._died(worker) from None

    def _receive(self, worker: int) -> Any:
        try:
            return self.conns[worker].recv()
        except (OSError, EOFError):
            raise self._died(worker) from None

    def _died(self, worker: int) -> SolverError:
        process = self.processes[worker]
        process.join(1)
        code = process.exitcode
        how = (f"killed by signal {-code} ({signal.Signals(-code).name})" if code and code < 0
               else f"exit status {code}")
        self.kill()
        return SolverError(f"a worker process of the {self.what} died ({how}; the "
                           f"out-of-memory killer?): the {self.what} was not finished")

    def kill(self) -> None:
        """Every worker killed and reaped (idempotent)."""
        for process in self.processes:
            if process.is_alive():
                process.kill()
        self.close()

    def close(self) -> None:
        """Ask the workers to stop, give them a moment, then kill what is left."""
        for conn, process in zip(self.conns, self.processes):
            if process.is_alive():
                try:
                    conn.send(None)
                except (OSError, ValueError):
                    pass
        for process in self.processes:
            process.join(2)
            if process.is_alive():
                process.kill()
                process.join()
        for conn in self.conns:
            conn.close()
        self.processes, self.conns = [], []


class Runner:
    """Batches of tasks run on a `WorkerPool`, or in this process when there is one worker
    (or one task): results in the order asked. The manche's and Montevideo's stage solves
    and proofs."""

    def __init__(self, workers: int, what: str) -> None:
        self.pool = WorkerPool(workers, start_method(), what) if workers > 1 else None

    def map(self, fn: Callable[..., Any], calls: Sequence[tuple[Any, ...]]) -> list[Any]:
        if self.pool is None or len(calls) <= 1:
            return [fn(*call) for call in calls]
        return self.pool.map(fn, calls)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None
