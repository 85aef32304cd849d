"""Where a sweep runs: a Dask client on an existing scheduler, or on a LocalCluster of this
machine's cores on TLS with credentials of its own; how many local workers; and Dask's log
silenced when a sweep is interrupted.

Every game's sweep (solver/pipeline/sweep.py) runs on what this module makes; nothing here
knows what a cell is. Dask retries a task whose worker died.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from typing import Any, Iterator

from games.parameters import ParameterError
from solver.common.signals import started_whole


def max_local_workers() -> int:
    """The most worker processes a local cluster may start: a few per core (each is a
    Python process of ~150 MB; 1000 of them never finished starting)."""
    return max(8, 4 * (os.cpu_count() or 1))


def local_workers(requested: int | None, cells: int) -> int:
    """Worker processes for a local cluster solving `cells`: as asked (ParameterError above
    `max_local_workers`) or the machine's cores, and never more than the cells."""
    if requested is not None and requested > max_local_workers():
        raise ParameterError(f"--workers {requested}: at most {max_local_workers()} on this "
                             f"machine ({os.cpu_count()} cores)")
    wanted = requested if requested is not None else os.cpu_count() or 1
    return max(1, min(wanted, cells))


HANDSHAKE_SECONDS = 10.0
SCHEMES = ("tcp", "tls")    # what the project runs and tests; ucx://, ws:// need more
TLS_SETTINGS = ("distributed.comm.tls.ca-file", "distributed.comm.tls.client.cert")


def check_scheduler(address: str) -> str:
    """A `--scheduler` address the sweep can use, or ParameterError in one line: not empty
    (an empty one used to mean a local cluster, silently), and tcp:// or a bare host:port
    (Dask's default, tcp), or tls:// with the client's credentials in Dask's configuration
    (`client_security`); the other schemes need libraries the sweep does not bring, and
    gave tracebacks."""
    text = address.strip()
    if not text:
        raise ParameterError("--scheduler: the address is empty (leave the option out for a "
                             "local cluster)")
    scheme, separator, _ = text.partition("://")
    if separator and scheme.lower() not in SCHEMES:
        raise ParameterError(f"--scheduler {address}: only tcp:// and tls:// addresses are "
                             f"supported, not {scheme}://")
    if scheme.lower() == "tls" and separator:
        client_security(text)
    return text


def client_security(address: str) -> Any:
    """Dask's client security from its configuration (`distributed.comm.tls.ca-file`,
    `.client.cert`, `.client.key`: a YAML file in ~/.config/dask or DASK_DISTRIBUTED__COMM__
    TLS__... variables), checked now: for a tls:// scheduler the CA and a client certificate
    must be given and load (ParameterError in one line otherwise), as Dask's `Client` will
    read them. The sweep takes no credentials of its own on the command line."""
    import dask

    missing = [name for name in TLS_SETTINGS if not dask.config.get(name, None)]
    if address.lower().startswith("tls://") and missing:     # said before distributed loads
        raise ParameterError(f"--scheduler {address}: a tls:// scheduler needs the client's "
                             f"credentials in Dask's configuration; {', '.join(missing)} "
                             f"not set (see README, Sweeps)")
    from distributed.security import Security

    try:
        security = Security()
        security.get_connection_args("client")          # loads the files: fails here
    except (OSError, ValueError) as error:              # ssl.SSLError is an OSError
        raise ParameterError(f"--scheduler {address}: Dask's TLS settings do not load: "
                             f"{str(error).splitlines()[0][:200]}") from None
    return security


def connect(address: str, seconds: float | None = None) -> Any:
    """A Client on the scheduler at `address`, or ParameterError within about `seconds`
    (default `HANDSHAKE_SECONDS`).

    Dask's own timeout covers the TCP connect: a service that accepts and never answers
    held the command for good, and one that answers in another protocol crashed it (an
    HTTP reply read as a frame length of 3 EiB). So the scheduler is first asked who it is
    (`identify`), under a deadline, and only a scheduler gets a Client; that is made in a
    daemon thread under the same deadline, should the service change its mind."""
    from dask.distributed import Client

    seconds = HANDSHAKE_SECONDS if seconds is None else seconds
    identify(address, seconds)
    box: dict[str, Any] = {}

    def handshake() -> None:
        try:
            box["client"] = Client(address, timeout=f"{seconds}s")
        except BaseException as error:       # reported below, in the main thread
            box["error"] = error

    thread = threading.Thread(target=handshake, name="bidou-dask-handshake", daemon=True)
    thread.start()
    thread.join(seconds + 2)
    if thread.is_alive():
        raise ParameterError(f"the Dask scheduler {address} did not answer in {seconds:.0f} "
                             f"s (is it a Dask scheduler?)")
    if "error" in box:
        raise _unreachable(address, box["error"])
    return box["client"]


def identify(address: str, seconds: float) -> None:
    """Ask the service at `address` who it is (Dask's `identity` call) within `seconds`:
    ParameterError unless a Dask scheduler answers."""
    import asyncio

    from distributed.comm import connect as open_comm

    connection_args = client_security(address).get_connection_args("client")

    async def ask() -> Any:
        comm = await open_comm(address, timeout=seconds, **connection_args)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    try:
        reply = asyncio.run(asyncio.wait_for(ask(), seconds))
    except (TimeoutError, asyncio.TimeoutError):
        raise ParameterError(f"the Dask scheduler {address} did not answer in {seconds:.0f} "
                             f"s (is it a Dask scheduler?)") from None
    except Exception as error:               # refused, unknown host, another protocol
        raise _unreachable(address, error) from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise ParameterError(f"{address} is not a Dask scheduler (it answered "
                             f"{str(reply)[:60]!r})")


def _unreachable(address: str, error: BaseException) -> BaseException:
    if not isinstance(error, Exception):     # Ctrl-C, SIGTERM: as they are
        return error
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    return ParameterError(f"cannot reach the Dask scheduler {address}: {first[:200]}")


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None,
                dashboard: bool = False) -> Iterator[Any]:
    """A Dask client: on `scheduler` if given (`check_scheduler`, `connect`), else on a new
    LocalCluster of `workers` single-threaded processes (default: the machine's cores) on
    TLS, closed on exit (`local_cluster`); the client takes the cluster's credentials."""
    from dask.distributed import Client

    if scheduler is not None:
        with connect(check_scheduler(scheduler)) as client:
            yield client
        return
    with local_cluster(workers or os.cpu_count() or 1, dashboard) as cluster, \
            started_whole(lambda: Client(cluster), quiet_dask) as client:
        yield client


@contextlib.contextmanager
def local_cluster(workers: int, dashboard: bool = False, secure: bool = True) -> Iterator[Any]:
    """A LocalCluster on loopback that lets in no one else and shows as little as Dask lets it.

    Its scheduler, nannies and workers listen on tls:// only, with credentials made for this
    cluster alone (`Security.temporary()`: a self-signed key and certificate in memory, which
    every member and this process's client must present; Dask checks both ends). Without
    them, any local user could connect to the loopback port and run code in the sweep
    (`run_on_scheduler`). `secure=False` is plain tcp://, for the benchmark's comparison
    (benchmarks/bench_sweep.py --startup) and a test's stand-in for a remote scheduler.

    No dashboard unless asked, and no HTTP pages on the scheduler's and workers' HTTP
    servers (Dask starts them anyway: info pages, logs, metrics; the routes are emptied).
    Its scratch space (spilled data, worker folders) is a private folder made by `mkdtemp`
    (mode 0700, a fresh name: nothing planted under a fixed name in $TMPDIR is followed),
    removed on exit, with whatever a killed worker left there."""
    import shutil
    import tempfile

    import dask
    from dask.distributed import LocalCluster
    from distributed.security import Security

    security = Security.temporary() if secure else Security()
    scratch = tempfile.mkdtemp(prefix="bidou-dask-")
    quiet: dict[str, Any] = {} if dashboard else {"distributed.scheduler.http.routes": [],
                                  "distributed.worker.http.routes": []}
    # the worker processes log only what is fatal: what befalls a task the sweep reports
    # itself, and a closing cluster made them log errors after the command's last line
    quiet["distributed.nanny.pre-spawn-environ"] = {
        **dask.config.get("distributed.nanny.pre-spawn-environ", {}),
        "DASK_LOGGING__DISTRIBUTED": "critical"}
    try:
        with dask.config.set({"temporary-directory": scratch, **quiet}), started_whole(
                lambda: LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True,
                    host="127.0.0.1", local_directory=scratch,
                    protocol="tls://" if secure else "tcp://", security=security,
                    dashboard_address="127.0.0.1:0" if dashboard else None,
                    # the HTTP server Dask starts anyway: a free port, not 8787
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.ERROR), quiet_dask) as cluster:
            yield cluster
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def quiet_dask() -> None:
    """Dask's log handlers (its own, on `distributed`, `distributed.client`, `tornado`, ...)
    silenced for the rest of the process. Called when a sweep is interrupted: the cancelled
    tasks and the closing cluster make Dask log errors ("Couldn't gather keys", heartbeats
    to a closed scheduler) that are its business, not the user's, who gets one line."""
    names = [name for name in logging.root.manager.loggerDict
             if name.split(".")[0] in ("distributed", "tornado")]
    for name in names:
        for handler in logging.getLogger(name).handlers:
            handler.setLevel(logging.CRITICAL + 1)
