"""The round's worker processes: a worker that dies fails the round in
one line with exit 1 instead of hanging, and SIGTERM or Ctrl-C ends the command and every
worker at once.

Each test runs `bidou round` in a fresh interpreter with two workers (a small round normally
runs without any) and the stage task wrapped: it can kill its own worker, or sleep, so the
fault lands while the pool is busy. The wrapper is installed before the workers fork, as the
command's SIGTERM handler is: the state that hung for good before."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

SCRIPT = textwrap.dedent("""
    import os, signal, sys, time
    from solver.round import solve as round_solve

    real = round_solve._solve_task
    mode, marks = sys.argv[1], sys.argv[2]

    def task(*args):
        try:                                  # the first task to get here
            os.close(os.open(os.path.join(marks, "first"), os.O_CREAT | os.O_EXCL))
            if mode == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
        except FileExistsError:
            pass
        open(os.path.join(marks, f"busy-{os.getpid()}"), "w").close()
        time.sleep(2 if mode == "kill" else 60)
        open(os.path.join(marks, f"slept-{os.getpid()}"), "w").close()
        return real(*args)

    round_solve._solve_task = task
    round_solve.default_workers = lambda params: 2
    from solver.app.cli import main
    main(["round", "--chips", "5", "--faces", "3", "--max-level", "2"], prog_name="bidou")
""")


def start(mode: str, marks: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SCRIPT, mode, str(marks)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def finish(process: subprocess.Popen, bound: float) -> tuple[int, str]:
    try:
        _, err = process.communicate(timeout=bound)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise AssertionError(f"still running after {bound} s") from None
    return process.returncode, err


def wait_until_busy(marks: Path, workers: int = 2) -> None:
    for _ in range(2400):                     # two minutes: only a hang gets that far
        if len(list(marks.glob("busy-*"))) >= workers:
            return
        time.sleep(0.05)
    raise AssertionError("the workers never started a task")


def gone(pids: set[int]) -> bool:
    for _ in range(1200):
        alive = [p for p in pids if psutil.pid_exists(p)
                 and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
        if not alive:
            return True
        time.sleep(0.05)
    return False


def test_a_killed_worker_fails_the_round_in_one_line(tmp_path):
    process = start("kill", tmp_path)
    code, err = finish(process, 300)
    assert (tmp_path / "first").exists()
    assert code == 1, err
    lines = err.strip().splitlines()
    assert lines[-1].startswith("bidou: error: a worker process of the round died "
                                "(killed by signal 9 (SIGKILL)"), err
    assert "Traceback" not in err


def sigterm_or_sigint(tmp_path, signum, group):
    process = start("sleep", tmp_path)
    wait_until_busy(tmp_path)
    workers = {c.pid for c in psutil.Process(process.pid).children(recursive=True)}
    assert len(workers) == 2
    (os.killpg if group else os.kill)(process.pid, signum)
    code, err = finish(process, 300)
    # it ended with its workers in the middle of their tasks (a minute's sleep), not after
    assert not list(tmp_path.glob("slept-*"))
    assert gone(workers)
    return code, err


def test_sigterm_ends_the_round_and_its_workers(tmp_path):
    code, err = sigterm_or_sigint(tmp_path, signal.SIGTERM, group=False)
    assert code == 143 and err.strip().splitlines()[-1] == "bidou: terminated", err


def test_ctrl_c_to_the_group_is_one_line_not_worker_tracebacks(tmp_path):
    code, err = sigterm_or_sigint(tmp_path, signal.SIGINT, group=True)
    assert code == 130 and err.strip() == "bidou: interrupted", err


@pytest.mark.slow
def test_the_pool_gives_the_serial_numbers():
    from games.bidou.params import BidouParams
    from games.bidou.round_params import RoundParams
    from solver.round.solve import solve_round

    params = RoundParams(chips=5, hand=BidouParams(faces=3, max_level=2))
    serial, pooled = solve_round(params, workers=1), solve_round(params, workers=2)
    assert pooled.values == serial.values
    assert psutil.Process().children() == []
