"""Ctrl-C and SIGTERM reach `bidou multi` inside the C kernel: one kernel call runs a tenth
of --iterations, and a trillion iterations made it a call for good, deaf to both signals
(only SIGKILL ended it). The kernel now runs Python's signal handlers while it computes.

Each test starts the command in a fresh interpreter with the kernel's entry wrapped to leave
a mark, waits until the command has spent a while in the kernel, then signals it."""

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from test_reliability_pool import finish  # the same hang guard: kill the group, fail

from solver.multi import kernel

pytestmark = pytest.mark.skipif(not kernel.available(), reason="the C kernel was not built")

SCRIPT = textwrap.dedent("""
    import os, sys
    from solver.multi import kernel

    real = kernel.Kernel.iterate
    marks = sys.argv[1]

    def iterate(self, *args, **kwargs):
        open(os.path.join(marks, "in-kernel"), "w").close()
        return real(self, *args, **kwargs)

    kernel.Kernel.iterate = iterate
    from solver.app.cli import main
    main(["multi", "--faces", "2", "--throws", "1", "--engine", "c", "--iterations",
          "1000000000000", "--out", os.path.join(marks, "out")], prog_name="bidou")
""")


def in_the_kernel(marks: Path) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", SCRIPT, str(marks)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    watched = psutil.Process(process.pid)
    for _ in range(2400):                     # two minutes: only a hang gets that far
        if (marks / "in-kernel").exists():
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the kernel never started")
    used = sum(watched.cpu_times()[:2])
    for _ in range(2400):                     # inside the call: a second of its work
        if sum(watched.cpu_times()[:2]) > used + 1.0:
            return process
        time.sleep(0.05)
    raise AssertionError("the kernel did no work")


@pytest.mark.parametrize("signum, code, line", [(signal.SIGINT, 130, "bidou: interrupted"),
                                                (signal.SIGTERM, 143, "bidou: terminated")])
@pytest.mark.slow
def test_a_signal_ends_multi_inside_the_kernel(tmp_path, signum, code, line):
    process = in_the_kernel(tmp_path)
    process.send_signal(signum)
    returned, err = finish(process, 120)
    assert returned == code and err.strip().splitlines()[-1] == line, err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
