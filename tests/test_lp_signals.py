"""Ctrl-C and SIGTERM during a long HiGHS run: the command ends at once, in one line, with
130 or 143, and HiGHS itself is stopped (its interrupt callback), not left to finish.

Python runs a signal's handler only between the bytecodes of the main thread: a Ctrl-C
during `bidou solve --reroll keep` once waited for its whole LP. Each test runs the
work in a fresh interpreter with `solver.hand.lp.highs.interruptible` watched: the LP's
thread marks when HiGHS starts, and how its run ended (HiGHS's model status, or scipy's
message), so the signal lands inside the LP and the test reads what stopped it."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

SCRIPT = textwrap.dedent("""
    import os, sys
    from solver.hand.lp import highs

    mode, marks = sys.argv[1], sys.argv[2]
    real = highs.interruptible

    def ended(call, result):
        h = getattr(call, "__self__", None)          # highspy's run: its HiGHS
        if h is not None:
            return h.modelStatusToString(h.getModelStatus())
        return str(getattr(result, "message", result))     # scipy's linprog: its result

    def watched(call, stop=None):
        def run():
            open(os.path.join(marks, "started"), "w").close()
            result = call()
            with open(os.path.join(marks, "ended"), "w") as file:
                file.write(ended(call, result))
            return result
        return real(run, stop)

    highs.interruptible = watched
    if mode == "cli":                                # the refined hand's first LP: highspy
        from solver.app.cli import main
        main(["solve", "--reroll", "keep"], prog_name="bidou")
    else:                                            # the perturbed LP by scipy's linprog
        from games.bidou.params import BidouParams
        from solver.hand.lp.perturbed import LINPROG, solve_perturbed
        from solver.hand.model import build_model

        try:
            solve_perturbed(build_model(BidouParams(reroll="keep")), 1e-3, lp_solver=LINPROG)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            sys.exit(130)
""")

# Only a hang gets this far: the work is cut short in its first LP.
HANG_GUARD = 300


def interrupted(marks: Path, mode: str, signum: int) -> tuple[int, str]:
    process = subprocess.Popen([sys.executable, "-c", SCRIPT, mode, str(marks)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        for _ in range(HANG_GUARD * 20):
            if (marks / "started").exists() or process.poll() is not None:
                break
            time.sleep(0.05)
        assert (marks / "started").exists(), "HiGHS never started"
        assert not (marks / "ended").exists(), "the LP ended before the signal was sent"
        os.kill(process.pid, signum)
        _, err = process.communicate(timeout=HANG_GUARD)
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return process.returncode, err


def test_ctrl_c_in_a_long_lp_of_solve_ends_it_at_once(tmp_path):
    code, err = interrupted(tmp_path, "cli", signal.SIGINT)
    assert code == 130 and err.strip() == "bidou: interrupted", err
    assert (tmp_path / "ended").read_text() == "Interrupted by user"


def test_sigterm_in_a_long_lp_of_solve_ends_it_at_once(tmp_path):
    code, err = interrupted(tmp_path, "cli", signal.SIGTERM)
    assert code == 143 and err.strip() == "bidou: terminated", err
    assert (tmp_path / "ended").read_text() == "Interrupted by user"


def test_ctrl_c_stops_scipys_linprog_too(tmp_path):
    code, err = interrupted(tmp_path, "linprog", signal.SIGINT)
    assert code == 130 and err.strip() == "interrupted", err
    assert "Interrupted by user" in (tmp_path / "ended").read_text()
