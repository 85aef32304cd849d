"""Reliability: files written safely, every failure a clear message, bounded work,
honest exit codes. Each test reproduces one fault listed in docs/reliability.md.

Run as root, permission bits do not stop writes: read-only folders are made with
`chattr +i` (skipped where unsupported) and, independently, by a monkeypatched `os.access`.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import solver.hand.solve
from games.bidou.params import BidouParams
from solver.app.cli import main
from solver.common import files
from solver.common.files import (
    DestinationError,
    check_directory_destination,
    check_file_destination,
    write_bytes_atomic,
)
from solver.export.bundle import export_all, unpack
from solver.hand.strategy import StrategyFileError, load_strategy_file

# A small multi-hand variant: the default game is answered from its published solution.
SMALL_DICE = ("--faces", "2", "--throws", "1")
SMALL_GAME = (*SMALL_DICE, "--chips", "2")

ROOT = Path(__file__).resolve().parents[1]
TINY = ("--faces", "2", "--throws", "2", "--max-level", "1")
SMALL = ("--faces", "3", "--throws", "2", "--max-level", "2")


def run(*args, **kwargs):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, **kwargs)


def one_error_line(result, words: str, code: int = 2) -> None:
    assert result.exit_code == code, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("bidou: error:")]
    assert len(errors) == 1 and words in errors[0], result.output
    assert "Traceback" not in result.output


def no_temp_files(folder: Path) -> bool:
    return not [p for p in folder.rglob(".tmp-*")]


@pytest.fixture(scope="module")
def strategy_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("strategy") / "s.json"
    assert run("solve", *TINY, "--out", path).exit_code == 0
    return path


def edited(strategy_file: Path, tmp_path: Path, change) -> Path:
    document = json.loads(strategy_file.read_text())
    change(document)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(document))
    return path


def mknod_or_skip(path: Path, mode: int, device: int) -> None:
    try:
        os.mknod(path, mode, device)
    except (PermissionError, OSError) as error:
        pytest.skip(f"cannot make device nodes here: {error}")


@pytest.fixture
def immutable(tmp_path):
    """A folder nobody, root included, can create files in (chattr +i)."""
    folder = tmp_path / "locked"
    folder.mkdir()
    if shutil.which("chattr") is None or subprocess.run(
            ["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here")
    yield folder
    subprocess.run(["chattr", "-i", str(folder)], check=True)


# --- 1. --out replaces whatever is at the path ----------------------------------------------

def test_a_character_device_stays_a_device(tmp_path):
    null = tmp_path / "null"
    mknod_or_skip(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    result = run("solve", *TINY, "--out", null)
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert no_temp_files(tmp_path)


def test_a_block_device_is_refused_before_solving(tmp_path, monkeypatch):
    block = tmp_path / "disk"
    mknod_or_skip(block, stat.S_IFBLK | 0o600, os.makedev(7, 0))
    monkeypatch.setattr(solver.hand.solve, "solve", _must_not_solve)
    one_error_line(run("solve", *TINY, "--out", block), "it is a block device")
    with pytest.raises(DestinationError, match="block device"):
        write_bytes_atomic(block, b"x")
    assert stat.S_ISBLK(os.lstat(block).st_mode)


def test_a_fifo_is_written_directly(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_bytes_atomic(fifo, b"through the pipe\n")
    reader.join(10)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_symlink_is_written_through(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert run("solve", *TINY, "--out", link).exit_code == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text())["schema"] == "bidou-strategy"


def test_an_existing_files_mode_is_kept(tmp_path):
    path = tmp_path / "private.json"
    path.write_text("old")
    path.chmod(0o600)
    write_bytes_atomic(path, b"new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_bytes() == b"new"
    fresh = tmp_path / "fresh.json"
    write_bytes_atomic(fresh, b"x")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask


# --- 2. failures after the work is done -----------------------------------------------------

def _must_not_solve(*args, **kwargs):
    raise AssertionError("solved although the destination is unusable")


@pytest.mark.parametrize("command, out, words", [
    (("solve",), "{file}/", "cannot end with '/'"),
    (("solve",), "{file}/s.json", "Not a directory"),
    (("solve",), "{dir}", "is a directory"),
    (("solve",), "", "the path is empty"),
    (("export",), "{file}", "is a file"),
    (("export",), "", "folder name is empty"),
    (("charts",), "{file}/sub", "is not a folder"),
    (("convergence", "--iterations", "10"), "{file}", "is a file"),
    # a folder name over the file system's limit: Path.exists raised ENAMETOOLONG only
    # once the work was done (a traceback); a file's name was already refused
    (("export",), "{long}", "longer than 255 bytes"),
    (("charts",), "{dir}/{long}/sub", "longer than 255 bytes"),
    (("solve",), "{long}.json", "File name too long"),
])
def test_unusable_destination_is_refused_before_solving(tmp_path, monkeypatch, command, out,
                                                        words):
    (tmp_path / "file").write_text("a file")
    (tmp_path / "dir").mkdir()
    monkeypatch.setattr(solver.hand.solve, "solve", _must_not_solve)
    out = out.format(file=tmp_path / "file", dir=tmp_path / "dir", long="a" * 300)
    one_error_line(run(*command, *TINY, "--out", out), words)
    assert (tmp_path / "file").read_text() == "a file"


def test_outputs_root_that_is_a_file_is_refused_before_solving(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("a file")
    monkeypatch.setattr(solver.hand.solve, "solve", _must_not_solve)
    one_error_line(run("outputs", "--root", tmp_path / "file" / "x"), "is not a folder")


def test_immutable_folder_is_refused_before_solving(immutable, monkeypatch):
    monkeypatch.setattr(solver.hand.solve, "solve", _must_not_solve)
    one_error_line(run("solve", *TINY, "--out", immutable / "s.json"), "not writable")
    one_error_line(run("export", *TINY, "--out", immutable / "e"), "not writable")
    assert list(immutable.iterdir()) == []


def test_read_only_folder_by_access_is_refused(tmp_path, monkeypatch):
    """The same check without chattr: what `access(2)` says of a read-only folder."""
    monkeypatch.setattr(files.os, "access", lambda path, mode: False)
    with pytest.raises(DestinationError, match="is not writable"):
        check_directory_destination(tmp_path / "new")
    with pytest.raises(DestinationError, match="not writable"):
        check_file_destination(tmp_path / "s.json")


def _no_space(fd):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_full_disk_after_solving_prints_the_result_then_one_error(tmp_path, monkeypatch):
    out = tmp_path / "s.json"
    out.write_text("previous")
    monkeypatch.setattr(files.os, "fsync", _no_space)
    result = run("solve", *TINY, "--out", out)
    one_error_line(result, "No space left on device")
    assert "value:          -0.029296875000" in result.output      # printed before the error
    assert result.output.index("value:") < result.output.index("bidou: error")
    assert out.read_text() == "previous" and no_temp_files(tmp_path)


@pytest.mark.slow
def test_full_disk_during_export_leaves_the_old_set(tmp_path, strategy_file, monkeypatch):
    out = tmp_path / "e"
    assert run("export", "--strategy", strategy_file, "--out", out, "--format", "png"
               ).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    monkeypatch.setattr(files.os, "fsync", _no_space)
    one_error_line(run("export", "--strategy", strategy_file, "--out", out, "--format", "png"),
                   "No space left on device")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_failed_exact_leaves_no_out_file(tmp_path, monkeypatch):
    import solver.hand.exact_solution

    monkeypatch.setattr(solver.hand.exact_solution, "recover",
                        lambda model, strategy, progress=None: solver.hand.exact_solution.Recovered(
                            None, reason="a reason"))
    # and the certificate's own simple-fraction reading, which proves small games exactly
    monkeypatch.setattr(solver.hand.exact.certificate, "simple_fractions", lambda *args, **kw: None)
    out = tmp_path / "s.json"
    result = run("solve", *TINY, "--plain", "--exact", "--out", out)   # the plain recovery
    one_error_line(result, "no strategy file written", code=1)
    assert "strategies: a reason; the interval" in result.output
    assert "value:" in result.output and not out.exists() and no_temp_files(tmp_path)


# --- 3. export leaves one consistent set ----------------------------------------------------

@pytest.mark.slow
def test_repeated_export_removes_what_it_no_longer_lists(tmp_path):
    out = tmp_path / "e"
    big = solver.hand.solve.solve(BidouParams(faces=2, throws=2, max_level=1))
    small = solver.hand.solve.solve(BidouParams(faces=2, throws=1, max_level=1))
    export_all(big, out, formats=("png",), dpi=20)
    assert (out / "betting_chart_c2_o2.png").exists() and (out / "reroll_chart.png").exists()
    (out / "my notes.txt").write_text("mine")
    paths = export_all(small, out, formats=("png",), dpi=20)
    assert sorted(p.name for p in out.iterdir()) == sorted([p.name for p in paths]
                                                           + ["my notes.txt"])
    assert not (out / "betting_chart_c2_o2.png").exists()
    assert json.loads((out / "summary.json").read_text())["rules"]["throws"] == 1


def test_interrupted_export_changes_nothing(tmp_path, monkeypatch):
    from solver.export import charts

    out = tmp_path / "e"
    tiny = solver.hand.solve.solve(BidouParams(faces=2, throws=1, max_level=1))
    export_all(tiny, out, formats=("png",), dpi=20)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    calls = []
    real = charts.figure_bytes

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(charts, "figure_bytes", interrupted)
    with pytest.raises(KeyboardInterrupt):
        export_all(solver.hand.solve.solve(BidouParams(faces=2, throws=2, max_level=1)), out,
                   formats=("png",), dpi=20)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_failed_first_export_leaves_no_folder(tmp_path, monkeypatch):
    from solver.export import charts

    monkeypatch.setattr(charts, "figure_bytes", lambda *a, **k: (_ for _ in ()).throw(
        RuntimeError("render failed")))
    tiny = solver.hand.solve.solve(BidouParams(faces=2, throws=1, max_level=1))
    with pytest.raises(RuntimeError):
        export_all(tiny, tmp_path / "new", formats=("png",))
    assert list(tmp_path.iterdir()) == []


# --- 4, 7. signals: no temporary files, exit 143 and 130 ------------------------------------

def _signal_export_while_staging(tmp_path: Path, sig: int) -> subprocess.CompletedProcess:
    out = tmp_path / "e"
    out.mkdir()
    (out / "kept.txt").write_text("kept")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-m", "solver.app.cli", "export", *SMALL, "--out", str(out),
         "--format", "png", "--format", "pdf", "--format", "svg"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    # signalled once the first file is staged: a fixed wait after the staging folder
    # appeared (0.2 s) sometimes ended with the set already moved in on a fast machine
    while not list(out.glob(".tmp-*/*")) and process.poll() is None:
        assert time.monotonic() < deadline, "export never started writing"
        time.sleep(0.01)
    assert process.poll() is None, "export finished before it could be signalled"
    process.send_signal(sig)
    stdout, stderr = process.communicate(timeout=60)
    assert [p.name for p in out.iterdir()] == ["kept.txt"], list(out.iterdir())
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def _signalled(tmp_path: Path, sig: int, code: int) -> subprocess.CompletedProcess:
    """The export signalled while staging; tried twice, because where in the program a
    signal lands is a race (about 1 run in 10 of the suite saw a traceback once, never
    reproduced alone): two failures in a row still fail the test."""
    for attempt in range(2):
        folder = tmp_path / f"attempt{attempt}"
        folder.mkdir()
        done = _signal_export_while_staging(folder, sig)
        if done.returncode == code:
            break
    return done


def test_sigterm_during_export_removes_temporary_files(tmp_path):
    done = _signalled(tmp_path, signal.SIGTERM, 143)
    assert done.returncode == 143, done.stderr
    assert done.stderr.strip().endswith("bidou: terminated") and "Traceback" not in done.stderr


def test_sigint_exits_130_not_1(tmp_path):
    done = _signalled(tmp_path, signal.SIGINT, 130)
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip().endswith("bidou: interrupted") and "Aborted" not in done.stderr


def test_ctrl_c_in_process_exits_130(monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(solver.hand.solve, "solve", interrupted)
    result = run("solve", *TINY, "--plain")                 # the plain LP's solve
    assert result.exit_code == 130 and "bidou: interrupted" in result.output


def test_end_of_input_in_play_ends_the_game_cleanly(strategy_file):
    result = run("play", "--strategy", strategy_file, "--role", "captain", "--seed", "1",
                 input="")
    assert result.exit_code == 0 and "Traceback" not in result.output
    assert "No hand played." in result.output and "Aborted" not in result.output


# --- 5. bounded work ------------------------------------------------------------------------

@pytest.mark.parametrize("game", ["chess", "kriegspiel", "python_bidou()"])
def test_lp_refuses_huge_games_early(game, monkeypatch):
    """Refused on the estimate, before the walk of the tree starts."""
    from solver.checks import openspiel_lp

    def no_walk(*_, **__):
        raise AssertionError("the walk of the tree started")

    monkeypatch.setattr(openspiel_lp._Walk, "visit", no_walk)
    one_error_line(run("lp", game), "histories")


def test_history_estimate_is_near_the_count():
    import pyspiel

    from solver.checks.openspiel_lp import _build, estimate_histories

    game = pyspiel.load_game("leduc_poker")
    counted = [0]

    def count(state):
        counted[0] += 1
        for action in ([] if state.is_terminal() else state.legal_actions()):
            count(state.child(action))

    count(game.new_initial_state())
    assert estimate_histories(game, samples=4000) == pytest.approx(counted[0], rel=0.1)
    _build(game)                                    # a game within bounds is not refused


def test_lp_caps_the_memory_of_information_states(monkeypatch):
    from solver.checks import openspiel_lp

    monkeypatch.setattr(openspiel_lp, "MAX_KEY_BYTES", 10)
    one_error_line(run("lp", "kuhn_poker"), "MiB")


# --- 8, 9. strategy files -------------------------------------------------------------------

def test_fifo_strategy_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "s.json"
    os.mkfifo(fifo)
    one_error_line(run("evaluate", "--strategy", fifo), "not a regular file")


@pytest.mark.parametrize("args", [
    ("exploit", *TINY, "--lock", "captain", "--rules", "{fifo}"),
    ("exploit", *TINY, "--lock", "captain", "--profile", "never-bluffs", "--at", "{fifo}"),
    ("exploit", *TINY, "--lock", "captain", "--rules", "/dev/zero"),
    ("multi", *SMALL_GAME, "--resume", "{fifo}"),
    ("multi", "--chips", "2", "--redraw", "{fifo}", "--out", "{tmp}/out"),
    ("multi", "--chips", "2", "--redraw", "/dev/zero", "--out", "{tmp}/out"),
    ("round", "--faces", "2", "--throws", "1", "--max-level", "1", "--chips", "3",
     "--cheatsheet", "--base", "{fifo}", "--out", "{tmp}/out"),
])
def test_other_input_files_that_are_not_regular_are_refused_without_reading(tmp_path, args):
    """Each of these blocked forever on a FIFO, or read /dev/zero until memory ran out
    (solver.common.files.read_input_file now reads every one); a child process, so that a
    regression fails by its timeout instead of hanging the suite."""
    fifo = tmp_path / "in.json"
    os.mkfifo(fifo)
    args = [a.format(fifo=fifo, tmp=tmp_path) for a in args]
    done = subprocess.run([sys.executable, "-m", "solver.app.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache")))
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "not a regular file" in done.stderr, done.stderr


def test_a_hand_edited_checkpoint_count_is_one_line(tmp_path):
    """A checkpoint whose iterations are not a whole number raised int()'s ValueError."""
    import numpy as np

    path = tmp_path / "ck.npz"
    assert run("multi", *SMALL_GAME, "--iterations", "20", "--checkpoint",
               path).exit_code == 0
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    for bad in ("x", -5, 1.5):
        meta = json.loads(arrays["meta"].tobytes().decode())
        meta["iterations"] = bad
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
        edited_path = tmp_path / "edited.npz"
        np.savez(edited_path, **arrays)
        one_error_line(CliRunner().invoke(main, ["multi", *SMALL_GAME, "--iterations",
                                                 "40", "--resume", str(edited_path)]),
                       "its iterations must be a whole number")
    with np.load(path) as archive:               # NaN regrets, a negative sum: ran on
        arrays = {name: archive[name] for name in archive.files}
    for name, value, words in (("regrets", np.nan, "its regrets are not all finite"),
                               ("strategy_sum", -1.0, "strategy_sum has negative entries")):
        edited = dict(arrays)
        edited[name] = arrays[name].copy()
        edited[name].flat[0] = value
        np.savez(tmp_path / "edited.npz", **edited)
        one_error_line(CliRunner().invoke(main, ["multi", *SMALL_GAME, "--iterations",
                                                 "40", "--resume",
                                                 str(tmp_path / "edited.npz")]), words)


def test_device_strategy_is_refused_without_reading(tmp_path):
    zero = tmp_path / "zero"
    mknod_or_skip(zero, stat.S_IFCHR | 0o666, os.makedev(1, 5))
    one_error_line(run("evaluate", "--strategy", zero), "not a regular file")


def test_huge_strategy_file_is_refused_before_reading(tmp_path):
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as handle:
        handle.truncate(100 * 2**20)                # sparse: no disk used
    one_error_line(run("evaluate", "--strategy", huge), "too large for a strategy file")


def test_deeply_nested_json_is_one_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    one_error_line(run("evaluate", "--strategy", deep), "nested too deeply")


def _shift_first_row(delta):
    def change(document):                       # one probability moves, inside [0, 1]
        row = document["betting"][0]["probabilities"][0]
        row[0] += -delta if row[0] > 0.5 else delta
    return change


def test_one_tolerance_shared_with_the_certificate(strategy_file, tmp_path):
    """Off by 1e-7: refused by the loader in one line (it crashed the certificate before).
    Off by 5e-10: within the certificate's 1e-9, so loaded and certified."""
    off = edited(strategy_file, tmp_path, _shift_first_row(1e-7))
    one_error_line(run("evaluate", "--strategy", off), "(off by 1.0e-07")
    close = edited(strategy_file, tmp_path, _shift_first_row(5e-10))
    result = run("evaluate", "--strategy", close, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["certified_value"]["lower"]


# Each refusal names the JSON path of the entry and what it must be (solver/schemas).
PROBABILITY, WHOLE = "must be a probability", "must be a whole number"


@pytest.mark.parametrize("change, words", [
    (lambda d: d["betting"][0]["probabilities"][0].__setitem__(0, "0.5"),
     f"/betting/0/probabilities/0/0: {PROBABILITY}"),
    (lambda d: d["betting"][0]["probabilities"][0].__setitem__(0, True),
     f"/betting/0/probabilities/0/0: {PROBABILITY}"),
    (lambda d: d["throw"]["opponent"][0][0][0].__setitem__(0, "1"),
     f"/throw/opponent/0/0/0/0: {PROBABILITY}"),
    (lambda d: d["betting"][0].__setitem__("captain_throws", 1.7),
     f"/betting/0/captain_throws: {WHOLE}"),
    (lambda d: d["betting"][0].__setitem__("captain_throws", "1"),
     f"/betting/0/captain_throws: {WHOLE}"),
    (lambda d: d.__setitem__("schema_version", True), "schema_version"),
    (lambda d: d["rules"].__setitem__("faces", 1.7), f"/rules/faces: {WHOLE} from 2 to 6"),
    (lambda d: d.__setitem__("result", [1]), "/result: must be an object"),
    (lambda d: d["result"].__setitem__("value", "abc"), "/result/value: must be a number"),
    (lambda d: d["result"].__setitem__("value", [0.1]), "/result/value: must be a number"),
])
def test_strict_types_in_strategy_files(strategy_file, tmp_path, change, words):
    one_error_line(run("evaluate", "--strategy", edited(strategy_file, tmp_path, change)),
                   words)


def test_non_numeric_value_in_unpack_is_a_strategy_error():
    tiny = solver.hand.solve.solve(BidouParams(faces=2, throws=1, max_level=1))
    with pytest.raises(StrategyFileError, match="not a number"):
        unpack((tiny.model, tiny.strategy, {"value": "oops"}))


@pytest.mark.slow
def test_recorded_claims_are_labelled_not_trusted(strategy_file, tmp_path):
    def tamper(document):
        document["result"].update(method="oracle", status="proved optimal",
                                  rules={"faces": 6, "throws": 3})
    path = edited(strategy_file, tmp_path, tamper)
    text = run("evaluate", "--strategy", path).output
    assert "solved by:      oracle (proved optimal), as the file claims" in text
    assert "rules:          2 faces, 2 throws" in text
    report = json.loads(run("evaluate", "--strategy", path, "--json").output)
    assert report["claimed"]["method"] == "oracle" and "method" not in report
    assert report["rules"]["faces"] == 2
    assert run("export", "--strategy", path, "--out", tmp_path / "e", "--format", "png"
               ).exit_code == 0
    summary = (tmp_path / "e" / "summary.md").read_text()
    assert "Solved by (as the strategy file records it): oracle" in summary
    assert json.loads((tmp_path / "e" / "summary.json").read_text())["rules"]["faces"] == 2


# --- 10. inputs that crashed ----------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (("solve", *TINY, "--method", "cfr", "--target-exploitability", "nan"), "finite"),
    (("solve", *TINY, "--method", "cfr", "--target-exploitability", "inf"), "finite"),
    (("play", *TINY, "--seed", "-1"), "--seed must be 0 or more"),
    # each of these failed after the work, with a traceback
    (("multi", *SMALL_GAME, "--iterations", "20", "--simulate", "1", "--seed", "-1"),
     "invalid value for '--seed'"),
    (("multi", *SMALL_GAME, "--target", "inf"), "not a finite number"),
    (("sweep", "--game", "le-bidou", "--faces", "2", "--throws", "1", "--out", "x",
      "--time-limit", "nan"), "not a finite number"),
    (("sweep", "--game", "le-bidou", "--faces", "2", "--throws", "1", "--out", "x",
      "--time-limit", "1e300"), "not in the range"),
    (("cheatsheet", *TINY, "--out", "x", "--milp-seconds", "nan"), "not a finite number"),
    (("round", "--cheatsheet", "--seconds", "nan", "--out", "x"), "not a finite number"),
    (("round", "--cheatsheet", "--seconds", "inf", "--out", "x"), "not a finite number"),
    (("lp", "liars_dice(numdice=0)"), "failed while being walked"),
])
def test_inputs_that_crashed_are_one_line(args, words):
    one_error_line(CliRunner().invoke(main, list(args)), words)


@pytest.mark.slow
def test_a_format_given_twice_counts_once(tmp_path):
    """`--format png --format png` staged every chart twice and failed at the second move,
    after the work, with exit 2 and half a folder."""
    result = run("export", *TINY, "--out", tmp_path / "out", "--format", "png",
                 "--format", "png")
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert "reroll_chart.png" in names and "summary.json" in names
    assert not [n for n in names if n.endswith((".pdf", ".svg"))] and no_temp_files(tmp_path)


def test_an_error_quoting_a_huge_input_stays_short():
    """`lp` with a 100 KB game string printed a 200 KB error line; `round --state` with a
    5000-digit count echoed all of it."""
    for args in (("lp", "kuhn_poker(" + "x" * 100_000 + ")"),
                 ("round", "--state", "1" * 5000 + ",1,1")):
        result = CliRunner().invoke(main, list(args))
        assert result.exit_code == 2 and result.output.startswith("bidou: error: ")
        assert result.output.count("\n") == 1 and len(result.output) < 1100, len(result.output)


def test_errors_in_the_exact_section_name_the_file(tmp_path):
    """The exact section's errors named the field but not the file, and a malformed one
    said only "malformed"; an empty path read "cannot read : No such file"."""
    document = json.loads((ROOT / "outputs" / "default" / "strategy.json").read_text())
    row = document["exact"]["betting"][0]["probabilities"][0]
    document["exact"]["betting"][0]["probabilities"][0] = row[:-1]
    path = tmp_path / "short.json"
    path.write_text(json.dumps(document))
    one_error_line(run("evaluate", "--strategy", path),
                   f"{path}: the exact section of the strategy file is malformed (IndexError")
    one_error_line(run("evaluate", "--strategy", ""), "cannot read '': the path is empty")


def test_no_negative_exploitability_is_printed():
    """A best response never gains less than nothing: `solve` and `evaluate` printed the
    rounding noise of the 3-face one-throw hand as -2.082e-17; they print "< 1e-12"."""
    from solver.app.commands.printing import gain

    assert gain(-2.08e-17) == gain(4e-13) == "< 1e-12" and gain(0.132) == "1.320e-01"
    args = ("--faces", "3", "--throws", "1", "--max-level", "2")
    for output in (run("solve", *args).output, run("solve", *args, "--plain").output):
        line = next(x for x in output.splitlines() if x.startswith("exploitability:"))
        assert not re.search(r"(?<![e\d])-\d", line) and "< 1e-12" in line, line


def test_a_closed_standard_output_is_refused_before_the_work():
    """`bidou solve >&-` ran, printed nothing anywhere and exited 0."""
    command = f"exec {shlex.quote(sys.executable)} -m solver.app.cli solve {' '.join(TINY)} >&-"
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert done.returncode == 2 and "standard output is closed" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1


def test_aces_flag_means_nothing_without_the_french_ranking(strategy_file, tmp_path):
    """The flag given under another ranking was dropped without a word; it is refused in
    one line, as --max-stake is without --game le-bidou. Its default, and a file that
    stores it under another ranking, are read as before."""
    result = run("solve", *TINY, "--json")
    assert json.loads(result.output)["rules"]["aces_beat_bidou"] is True
    for flag in ("--no-aces-beat-bidou", "--aces-beat-bidou"):
        one_error_line(run("solve", *TINY, flag),
                       f"{flag} applies to --ranking french only, not to --ranking "
                       "encyclopedia")
        one_error_line(run("evaluate", "--strategy", strategy_file, flag),
                       f"{flag} applies to --ranking french only")
    assert run("solve", *TINY, "--ranking", "french", "--no-aces-beat-bidou").exit_code == 0
    assert run("evaluate", "--strategy", strategy_file).exit_code == 0
    flagged = edited(strategy_file, tmp_path,
                     lambda d: d["rules"].__setitem__("aces_beat_bidou", False))
    model, _, _ = load_strategy_file(flagged)
    assert model.params.aces_beat_bidou is True
    assert run("evaluate", "--strategy", flagged, *TINY).exit_code == 0


def test_play_does_not_echo_a_huge_answer(strategy_file):
    result = run("play", "--strategy", strategy_file, "--role", "captain", "--hands", "1",
                 "--seed", "1", input="x" * 1_000_000 + "\n" + "stop\n" * 3 + "pass\n" * 10)
    assert not re.findall("x{100,}", result.output)   # a pipe's answers are not echoed
    assert "Please type one of" in result.output


def _play_with_stdin(strategy_file, stdin_redirect: str) -> subprocess.CompletedProcess:
    """`bidou play` in a shell whose standard input is `stdin_redirect` (its memory capped:
    an endless line read whole would exhaust it)."""
    command = (f"ulimit -v 4000000; exec {shlex.quote(sys.executable)} -m solver.app.cli "
               f"play --strategy {shlex.quote(str(strategy_file))} --hands 1 --seed 1 "
               f"{stdin_redirect}")
    return subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


@pytest.mark.parametrize("stdin_redirect", ["<&-", "< /dev/zero"])
def test_play_ends_cleanly_on_a_closed_or_endless_input(strategy_file, stdin_redirect):
    """A closed standard input made input() raise RuntimeError (a traceback); /dev/zero, one
    endless line, was read whole until the kernel killed the process. Both are the end of
    the input: the game is over, exit 0."""
    done = _play_with_stdin(strategy_file, stdin_redirect)
    assert done.returncode == 0, done.stderr
    assert "Game over (end of input)." in done.stdout and "Traceback" not in done.stderr


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB tmpfs, filled up (needs root and mount; skipped elsewhere)."""
    mount = tmp_path / "full"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        with open(mount / "filler", "wb", buffering=0) as handle, \
                contextlib.suppress(OSError):
            while True:
                handle.write(b"\0" * 4096)
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_a_really_full_disk_prints_the_result_then_one_error(full_disk):
    result = run("solve", *TINY, "--out", full_disk / "s.json")
    one_error_line(result, "No space left on device")
    assert "value:          -0.029296875000" in result.output
    assert sorted(p.name for p in full_disk.iterdir()) == ["filler"]


def test_out_dev_stdout_keeps_the_order_of_a_redirected_stdout(tmp_path):
    """`--out /dev/stdout > file`: the summary, then the strategy file, then its name; the
    strategy is written through the same descriptor, not over the printed lines."""
    captured = tmp_path / "captured.txt"
    with open(captured, "wb") as stdout:
        subprocess.run([sys.executable, "-m", "solver.app.cli", "solve", *TINY, "--out",
                        "/dev/stdout"], stdout=stdout, check=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    lines = captured.read_text().splitlines()
    start, end = lines.index("{"), lines.index("}")
    assert lines[0].startswith("rules:")
    assert lines[-1] == "strategy:       /dev/stdout (with its exact probabilities)"
    assert json.loads("\n".join(lines[start:end + 1]))["schema"] == "bidou-strategy"


@pytest.mark.parametrize("args, words", [
    (("solve", "--method", "bogus"), "invalid value for '--method'"),
    (("solve", "--bogus"), "no such option '--bogus'"),
    (("nonsense",), "no such command 'nonsense'"),
    # click raises a missing value without the command's context: it named `bidou --help`
    (("solve", "--faces"), "requires an argument (see `bidou solve --help`)"),
])
def test_usage_errors_are_one_line(args, words):
    result = CliRunner().invoke(main, list(args))
    one_error_line(result, words)
    assert "--help`)" in result.output and result.output.count("\n") == 1


def test_full_disk_after_convergence_prints_the_runs_then_one_error(tmp_path, monkeypatch):
    monkeypatch.setattr(files.os, "fsync", _no_space)
    result = run("convergence", *TINY, "--iterations", "20", "--out", tmp_path)
    one_error_line(result, "No space left on device")
    assert "pcfr+:" in result.output and list(tmp_path.iterdir()) == []
