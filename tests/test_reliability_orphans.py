"""A command ended by SIGKILL (a timeout, a batch scheduler, the out-of-memory killer) runs
no cleanup: its worker processes must end by themselves. The round's two workers stayed
alive, re-parented to init, for good; the side-by-side child would finish its half for
nobody.

Each test starts the work in a fresh interpreter with its workers busy in a long task (ten
minutes' sleep), kills the parent alone with SIGKILL, and waits for its workers to go."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

ROUND = textwrap.dedent("""
    import os, sys, time
    from solver.round import solve as round_solve

    marks = sys.argv[1]

    def task(*args):
        open(os.path.join(marks, f"busy-{os.getpid()}"), "w").close()
        time.sleep(600)

    round_solve._solve_task = task
    round_solve.default_workers = lambda params: 2
    from solver.app.cli import main
    main(["round", "--json", "--chips", "5", "--faces", "3", "--max-level", "2"],
         prog_name="bidou")
""")

SWEEP_CLUSTER = textwrap.dedent("""
    import os, sys, time
    from solver.pipeline.dask_cluster import dask_client

    marks = sys.argv[1]
    with dask_client(workers=2) as client:
        for pid in client.run(os.getpid).values():
            open(os.path.join(marks, f"busy-{pid}"), "w").close()
        time.sleep(600)
""")

SIDE_BY_SIDE = textwrap.dedent("""
    import os, sys, time
    from solver.common.side_by_side import can_fork, side_by_side

    marks = sys.argv[1]
    if not can_fork():
        sys.exit(3)

    def there():
        open(os.path.join(marks, f"busy-{os.getpid()}"), "w").close()
        time.sleep(600)

    side_by_side(lambda: time.sleep(600), there)
""")


def busy_workers(script: str, marks: Path, workers: int) -> tuple[subprocess.Popen, set[int]]:
    process = subprocess.Popen([sys.executable, "-c", script, str(marks)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True,
                               env={**os.environ, "TMPDIR": str(marks)})  # what it leaves
    for _ in range(2400):                     # two minutes: only a hang gets that far
        busy = {int(p.name.split("-")[1]) for p in marks.glob("busy-*")}
        if len(busy) >= workers:
            return process, busy
        if process.poll() is not None:
            if process.returncode == 3:
                pytest.skip("no child can be forked here")
            raise AssertionError(process.stderr.read() if process.stderr else "")
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    raise AssertionError("the workers never started a task")


def alive(pids: set[int]) -> set[int]:
    left = set()
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                left.add(pid)
        except psutil.NoSuchProcess:
            pass
    return left


def killed_parent_leaves_nothing(script: str, marks: Path, workers: int) -> None:
    process, busy = busy_workers(script, marks, workers)
    family = {c.pid for c in psutil.Process(process.pid).children(recursive=True)}
    assert busy <= family
    try:
        os.kill(process.pid, signal.SIGKILL)  # the parent alone, as the OOM killer does
        process.wait()
        for _ in range(1200):                 # a minute, against their ten minutes' task
            if not alive(family):
                break
            time.sleep(0.05)
        assert not alive(family), "processes outlived their killed parent"
    finally:
        for pid in alive(family):
            os.kill(pid, signal.SIGKILL)


def test_the_rounds_workers_end_with_a_killed_command(tmp_path):
    killed_parent_leaves_nothing(ROUND, tmp_path, workers=2)


def test_the_side_by_side_child_ends_with_a_killed_parent(tmp_path):
    killed_parent_leaves_nothing(SIDE_BY_SIDE, tmp_path, workers=1)


@pytest.mark.slow
def test_the_sweeps_local_cluster_ends_with_a_killed_command(tmp_path):
    """Dask's own guard (each worker process watches a pipe from its parent) holds."""
    killed_parent_leaves_nothing(SWEEP_CLUSTER, tmp_path, workers=2)


def test_a_child_whose_parent_is_already_gone_ends_at_once():
    """The race PR_SET_PDEATHSIG leaves open: a parent that died before the child asked
    (here a parent id that is not this child's parent)."""
    check = ("import os, sys\nfrom solver.common.workers import end_with_parent\n"
             "end_with_parent((int(sys.argv[1]), True))\nsys.exit(0)")
    ended = subprocess.run([sys.executable, "-c", check, "1"], timeout=120)
    assert ended.returncode == -signal.SIGKILL
    kept = subprocess.run([sys.executable, "-c", check, str(os.getpid())], timeout=120)
    assert kept.returncode == 0
