"""The caches (the saved rounds' folder, `bidou multi --cache`) as ssh treats ~/.ssh: made
0700, refused in one line if another user could turn them against their owner, never read
or written through a symlink, a FIFO or a device; nothing made under a home that does not
exist; and a planted symlink in any folder others may write to is not followed by --out."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from games.bidou_multi.params import MultiParams
from solver.app.cli import main
from solver.multi.situations import SituationCache, Situations, hand_params
from solver.round import store

ROOT = Path(__file__).resolve().parents[1]
SMALL = RoundParams(chips=4, hand=BidouParams(faces=2, throws=2, max_level=2))
ROUND = ("round", "--chips", "4", "--faces", "2", "--throws", "2", "--max-level", "2")
MULTI = ("multi", "--faces", "2", "--throws", "1", "--chips", "2", "--iterations", "20",
         "--simulate", "2")
OTHER_UID = 12345
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user "
                                                         "needs root")


def run(env: dict, *args: str):
    return CliRunner().invoke(main, list(args), env=env)


def one_error_line(result, words: str) -> None:
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("bidou: error:")]
    assert len(errors) == 1 and words in errors[0], result.output
    assert "Traceback" not in result.output


@pytest.fixture
def no_solving(monkeypatch):
    """Solving the round from here on fails the test: a refusal comes before the work."""
    import solver.pipeline.round as pipeline

    def fails(*_, **__):
        raise AssertionError("the round was solved")

    monkeypatch.setattr(pipeline, "prove_round", fails)


def cache_folder(tmp_path: Path, mode: int = 0o700) -> tuple[dict, Path]:
    """XDG_CACHE_HOME in tmp_path, its bidou-solver folder made with `mode`."""
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    folder = store.cache_folder(env)
    folder.mkdir(parents=True)
    os.chmod(folder, mode)
    return env, folder


# --- the folder ----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702])
def test_a_round_cache_writable_by_others_is_refused_before_solving(tmp_path, no_solving,
                                                                    mode):
    env, folder = cache_folder(tmp_path, mode)
    one_error_line(run(env, *ROUND, "--state", "0,2,2"),
                   f"the folder {folder} is writable by group or others")


def test_an_unsafe_cache_is_not_checked_when_a_published_round_answers(tmp_path, no_solving):
    """The published rounds come first: the cache folder is checked only when reached."""
    env, _ = cache_folder(tmp_path, 0o777)
    result = run(env, "round", "--state", "0,4,5")
    assert result.exit_code == 0 and "read from" in result.output, result.output


@as_root
def test_a_round_cache_of_another_user_is_refused_before_solving(tmp_path, no_solving):
    env, folder = cache_folder(tmp_path)
    os.chown(folder, OTHER_UID, OTHER_UID)
    one_error_line(run(env, *ROUND, "--state", "0,2,2"),
                   f"the folder {folder} is owned by another user (uid {OTHER_UID})")


@as_root
def test_a_symlink_planted_in_a_shared_cache_is_never_written_through(tmp_path, no_solving):
    """XDG_CACHE_HOME world-writable, not sticky, another user's; his bidou-solver folder
    holds a symlink at the cache file's name to a root-owned 0600 file: refused before any
    work, the file untouched (root's write went through the link)."""
    victim = tmp_path / "victim"
    victim.write_text("root's secret\n")
    os.chmod(victim, 0o600)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    os.chown(shared, OTHER_UID, OTHER_UID)
    env = {"XDG_CACHE_HOME": str(shared)}
    folder = store.cache_folder(env)
    folder.mkdir(mode=0o700)
    link = store.cache_path(SMALL, env)
    link.symlink_to(victim)
    for path in (link, folder):
        os.lchown(path, OTHER_UID, OTHER_UID)
    one_error_line(run(env, *ROUND, "--state", "0,2,2"),
                   f"the folder {shared} is writable by group or others without the sticky")
    os.chown(folder, 0, 0)                      # ours, in a safe folder: the link refused
    os.chmod(shared, 0o755)
    one_error_line(run(env, *ROUND, "--state", "0,2,2"), "it is a symlink")
    assert victim.read_text() == "root's secret\n"
    assert stat.S_IMODE(victim.stat().st_mode) == 0o600


@pytest.mark.slow
def test_nothing_is_made_under_a_home_that_does_not_exist(tmp_path):
    missing = tmp_path / "missing"
    result = run({"HOME": str(missing / "x"), "XDG_CACHE_HOME": None},
                 *ROUND, "--state", "0,2,2")
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("bidou: note:")]
    assert len(notes) == 1 and "does not exist" in notes[0], result.output
    assert not missing.exists()


@pytest.mark.slow
def test_the_cache_folders_made_are_private(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    result = run({"HOME": str(home), "XDG_CACHE_HOME": None}, *ROUND, "--state", "0,2,2")
    assert result.exit_code == 0, result.output
    for folder in (home / ".cache", home / ".cache" / store.CACHE_FOLDER):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert store.cache_path(SMALL, {"XDG_CACHE_HOME": str(home / ".cache")}).is_file()


@pytest.mark.parametrize("mode", [0o777, 0o775])
def test_a_multi_cache_writable_by_others_is_refused_before_any_work(tmp_path, mode):
    folder = tmp_path / "mc"
    folder.mkdir()
    os.chmod(folder, mode)
    one_error_line(run({}, *MULTI, "--cache", str(folder)),
                   f"the folder {folder} is writable by group or others")
    assert os.listdir(folder) == []


@as_root
def test_a_multi_cache_of_another_user_is_refused_before_any_work(tmp_path):
    folder = tmp_path / "mc"
    folder.mkdir(mode=0o700)
    os.chown(folder, OTHER_UID, OTHER_UID)
    one_error_line(run({}, *MULTI, "--cache", str(folder)), "is owned by another user")


def test_a_new_multi_cache_is_made_private(tmp_path):
    folder = tmp_path / "new" / "mc"
    result = run({}, *MULTI, "--cache", str(folder))
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and os.listdir(folder)


# --- --out in a folder others may write to ----------------------------------------------------

@as_root
def test_a_symlink_planted_in_a_non_sticky_shared_folder_is_not_followed(tmp_path):
    """A world-writable folder without the sticky bit, another user's: his symlink at the
    destination is refused (it was followed: only sticky folders were checked); ours is
    still written through."""
    victim = tmp_path / "victim"
    victim.write_text("root's file\n")
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    os.chown(shared, OTHER_UID, OTHER_UID)
    planted = shared / "s.json"
    planted.symlink_to(victim)
    os.lchown(planted, OTHER_UID, OTHER_UID)
    result = CliRunner().invoke(main, ["solve", "--faces", "2", "--throws", "1", "--out",
                                       str(planted)])
    one_error_line(result, f"{planted} is a symlink owned by another user (uid {OTHER_UID})")
    assert victim.read_text() == "root's file\n"
    os.lchown(planted, 0, 0)
    result = CliRunner().invoke(main, ["solve", "--faces", "2", "--throws", "1", "--out",
                                       str(planted)])
    assert result.exit_code == 0, result.output
    assert planted.is_symlink() and victim.read_text().startswith("{")


# --- FIFOs, devices and links where a cache file or a published file should be -------------------

def bidou(args: list[str], env: dict | None = None, timeout: float = 120
          ) -> subprocess.CompletedProcess:
    """The command in its own process, ended by the timeout if it blocks (a FIFO)."""
    return subprocess.run([sys.executable, "-m", "solver.app.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def one_stderr_line(done: subprocess.CompletedProcess, words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and words in done.stderr, done.stderr


def test_a_fifo_named_like_a_multi_cache_entry_is_refused_without_blocking(tmp_path):
    params = MultiParams(faces=2, throws=1, chips=2)
    situations = Situations(params, 20)
    stores = situations.key((2, 2, 2))
    folder = tmp_path / "mc"
    folder.mkdir(mode=0o700)
    fifo = SituationCache(folder).path(hand_params(params, 3), stores, situations.settings)
    os.mkfifo(fifo)
    one_stderr_line(bidou([*MULTI, "--cache", str(folder)]), f"{fifo}: a FIFO, not a regular")


def test_a_fifo_as_the_round_cache_file_is_refused_before_solving(tmp_path):
    env, _ = cache_folder(tmp_path)
    os.mkfifo(store.cache_path(SMALL, env))
    done = bidou([*ROUND, "--state", "0,2,2"], env)
    one_stderr_line(done, "it is a FIFO, not a regular file")
    assert not stat.S_ISREG(os.lstat(store.cache_path(SMALL, env)).st_mode)


def test_a_link_to_a_device_as_the_round_cache_file_is_refused(tmp_path, no_solving):
    """A symlink to /dev/zero at the cache file's name: the solved round was written into
    the device, then reading it back was a traceback."""
    env, _ = cache_folder(tmp_path)
    store.cache_path(SMALL, env).symlink_to("/dev/zero")
    one_error_line(run(env, *ROUND, "--state", "0,2,2"), "it is a symlink")
    store.cache_path(SMALL, env).unlink()
    store.strategies_path(store.cache_path(SMALL, env)).symlink_to("/dev/zero")
    one_error_line(run(env, *ROUND, "--state", "0,2,2"), "it is a symlink")


PUBLISHED = """
import sys
from pathlib import Path
import solver.app.saved_rounds as saved
from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
saved.outputs_root = lambda: Path(sys.argv[1])
rules = RoundParams(chips=4, hand=BidouParams(faces=2, throws=2, max_level=2))
print(saved.read_saved(rules, False), saved.published_hand_sheet(BidouParams()))
"""


def test_a_fifo_among_the_published_outputs_is_passed_over(tmp_path):
    """A FIFO at outputs/round-keep/round.json made every `round --state` hang, whatever
    its rules (each published round.json is read for its rules); the same for a hand
    cheat sheet's strategy."""
    outputs = tmp_path / "outputs"
    for name in ("round-keep/round.json", "keep/cheatsheet_strategy.json"):
        (outputs / name).parent.mkdir(parents=True)
        os.mkfifo(outputs / name)
    done = subprocess.run([sys.executable, "-c", PUBLISHED, str(outputs)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert done.returncode == 0 and done.stdout == "None None\n", done.stderr
