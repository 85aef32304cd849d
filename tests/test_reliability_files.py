"""Reliability: files, `evaluate` and the command line. Each test
reproduces one fault listed in docs/reliability.md, section "File and command faults"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest
from test_reliability import one_error_line, run  # the same CLI runner and error check

from solver.hand.strategy import (
    MAX_COMMON_DENOMINATOR_BITS,
    StrategyFileError,
    exact_number,
    load_strategy_file,
)

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_STRATEGY = ROOT / "outputs" / "default" / "strategy.json"
TINY = ("--faces", "2", "--throws", "2", "--max-level", "1")



def bidou(*args: str, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    """The command in a fresh interpreter, killed (and the test failed) past `timeout`."""
    return subprocess.run([sys.executable, "-m", "solver.app.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


@pytest.fixture(scope="module")
def exact_file(tmp_path_factory) -> Path:
    """A tiny strategy file with its exact section (`solve --exact`)."""
    out = tmp_path_factory.mktemp("exact") / "s.json"
    result = run("solve", *TINY, "--exact", "--out", out)
    assert result.exit_code == 0, result.output
    assert "exact" in json.loads(out.read_text())
    return out


# --- item 2: hostile exact numbers -----------------------------------------------------------

@pytest.mark.parametrize("text", ["1e-999999999", "1/1e999999999", " 1/2", "-1/2", "0.5",
                                  "1_000/2", "\u0661/\u0662", "1/0", "9" * 5000])
def test_exact_numbers_are_parsed_with_a_size_bound_first(text, monkeypatch):
    """Refused on its text: no number is made of it, nor of any part longer than the
    bound (a Fraction of "1e-999999999" computes 10**999999999 first)."""
    from solver.hand import strategy

    made = []

    def recorded(kind):
        def make(*args):
            made.append((kind.__name__, args))
            return kind(*args)
        return make

    monkeypatch.setattr(strategy, "Fraction", recorded(Fraction))
    monkeypatch.setattr(strategy, "int", recorded(int), raising=False)
    with pytest.raises(StrategyFileError, match="exact.throw"):
        exact_number(text, "exact.throw.captain")
    assert all(kind == "int" and len(args[0]) <= strategy.MAX_EXACT_DIGITS
               for kind, args in made), made
    made.clear()                                  # and the spies do see an accepted one
    assert exact_number("1/3", "x") == Fraction(1, 3) and ("Fraction", (1, 3)) in made


def test_plain_exact_numbers_still_read():
    assert exact_number("1269709/2733750", "x") == Fraction(1269709, 2733750)
    assert exact_number("1", "x") == 1 and exact_number("0", "x") == 0


def test_an_exponent_in_an_exact_entry_is_refused_at_once(exact_file, tmp_path):
    document = json.loads(exact_file.read_text())
    document["exact"]["betting"][0]["probabilities"][0][0] = "1e-999999999"
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(document))
    result = bidou("evaluate", "--strategy", str(hostile), timeout=120)   # read, it hangs
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "/exact/betting/0/probabilities/0/0" in result.stderr
    assert "1e-999999999" in result.stderr


def _huge_denominators(document: dict, digits: int) -> int:
    """Every mixed two-action exact betting row rewritten over its own `digits`-digit
    denominator (still a distribution, within 1e-12 of the floats); the rows changed."""
    changed = 0
    for entry in document["exact"]["betting"]:
        rows = entry["probabilities"]
        if len(rows) != 2:
            continue
        for h in range(len(rows[0])):
            first = Fraction(rows[0][h])
            if 0 < first < 1:
                q = 10 ** (digits - 1) + 2 * changed + 1      # odd, distinct: coprime enough
                p = first.numerator * q // first.denominator
                rows[0][h], rows[1][h] = f"{p}/{q}", f"{q - p}/{q}"
                changed += 1
    return changed


def test_huge_common_denominators_are_refused_naming_the_field(tmp_path):
    document = json.loads(DEFAULT_STRATEGY.read_text())
    assert _huge_denominators(document, 200) * 600 > MAX_COMMON_DENOMINATOR_BITS
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(document))
    result = bidou("evaluate", "--strategy", str(hostile), timeout=300)   # summed, it hangs
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "/exact/betting/" in result.stderr and "common denominator" in result.stderr


def test_the_certificate_bounds_the_common_denominator(exact_file, monkeypatch):
    from solver.hand.exact import certificate
    from solver.hand.exact.certificate import prove_fractions
    from solver.hand.strategy import load_exact

    model, strategy, _ = load_strategy_file(exact_file)
    fractions = {k: list(v) for k, v in load_exact(exact_file, model, strategy).items()}
    prove_fractions(model, strategy, fractions)             # the real one proves
    where = next(k for k, row in fractions.items() if len(row) == 2)
    big = 3 ** 2600                                          # 4121 bits
    fractions[where] = [Fraction(1, big), 1 - Fraction(1, big)]

    def no_proof(*_, **__):
        raise AssertionError("the proof started over the huge common denominator")

    monkeypatch.setattr(certificate, "_assemble", no_proof)        # refused before it
    with pytest.raises(StrategyFileError, match="common denominator"):
        prove_fractions(model, strategy, fractions)


def test_the_published_exact_files_stay_within_the_bound():
    for name in ("default", "french", "keep"):
        path = ROOT / "outputs" / name / "strategy.json"
        model, strategy, _ = load_strategy_file(path)
        from solver.hand.strategy import load_exact
        assert load_exact(path, model, strategy) is not None


# --- item 5: evaluate trusts nothing the file claims ----------------------------------------

def _with_result(source: Path, tmp_path: Path, **result) -> Path:
    document = json.loads(source.read_text())
    document["result"].update(result)
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(document))
    return path


def test_a_recorded_game_value_outside_the_proof_is_refused(tmp_path):
    """Game value 5.0 recorded beside strategies proving an interval that excludes it:
    refused in one line (it used to be printed as "more than the game value +5.000000")."""
    plain = tmp_path / "plain.json"
    assert run("solve", *TINY, "--out", plain).exit_code == 0
    result = run("evaluate", "--strategy", _with_result(plain, tmp_path, game_value=5.0))
    one_error_line(result, "result.game_value")
    assert "outside the interval" in result.output and "+5.000000" in result.output


def test_a_recorded_game_value_is_said_to_be_the_files(tmp_path):
    """A simplified strategy records its equilibrium's game value (inside the interval
    its own strategies prove): compared with, and said to be the file's."""
    path = ROOT / "outputs" / "default" / "simplified_strategy.json"
    recorded = json.loads(path.read_text())["result"]["game_value"]
    result = run("evaluate", "--strategy", path)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if "more than the game value" in line]
    assert len(lines) == 2 and all(f"{recorded:+.6f}, as the file records it" in line
                                   for line in lines), result.output
    as_json = json.loads(run("evaluate", "--strategy", path, "--json").output)
    assert as_json["claimed"]["game_value"] == recorded


@pytest.mark.parametrize("value", ["abc", True, [1], {"a": 1}])
def test_a_non_numeric_recorded_game_value_is_one_line(tmp_path, value):
    plain = tmp_path / "plain.json"
    assert run("solve", *TINY, "--out", plain).exit_code == 0
    one_error_line(run("evaluate", "--strategy", _with_result(plain, tmp_path,
                                                                game_value=value)),
                   "/result/game_value")


def test_the_proved_exact_value_is_the_one_compared(exact_file):
    result = run("evaluate", "--strategy", exact_file)
    assert result.exit_code == 0, result.output
    assert result.output.count("more than the game value") == 2


# --- item 7: regular files reached through /proc and /dev/shm --------------------------------

@pytest.mark.parametrize("through", ["proc", "shm"])
def test_a_regular_file_under_proc_or_dev_shm_is_replaced(tmp_path, through, monkeypatch):
    if through == "proc":
        monkeypatch.chdir(tmp_path)
        out, real = "/proc/self/cwd/x.json", tmp_path / "x.json"
    else:
        if not os.access("/dev/shm", os.W_OK):
            pytest.skip("no writable /dev/shm")
        out = f"/dev/shm/bidou-test-{os.getpid()}.json"
        real = Path(out)
    try:
        for _ in range(2):
            result = run("solve", *TINY, "--out", out)
            assert result.exit_code == 0, result.output
        json.loads(real.read_text())                     # one document, not two
        real.write_text("x" * 10**6)                     # a longer old file: no tail left
        assert run("solve", *TINY, "--out", out).exit_code == 0
        json.loads(real.read_text())
    finally:
        if through == "shm" and real.exists():
            real.unlink()


def test_a_character_device_under_dev_is_still_written_in_place():
    result = run("solve", *TINY, "--out", "/dev/null")
    assert result.exit_code == 0, result.output


# --- item 12: duplicate JSON keys ------------------------------------------------------------

@pytest.mark.parametrize("where", ["top", "result"])
def test_duplicate_json_keys_are_refused(exact_file, tmp_path, where):
    text = exact_file.read_text()
    if where == "top":
        text = text.replace('"schema":', '"rules": {}, "schema":', 1)
        word = "'rules' appears twice"
    else:
        text = text.replace('"result": {', '"result": {"method": "x", ', 1)
        word = "'method' appears twice"
    path = tmp_path / "twice.json"
    path.write_text(text)
    with pytest.raises(StrategyFileError, match=word):
        load_strategy_file(path)
    one_error_line(run("evaluate", "--strategy", path), word)


# --- item 9: one line, not a traceback -------------------------------------------------------

SHEET = ("--faces", "3", "--throws", "2", "--max-level", "2", "--rules-max", "4")


@pytest.mark.parametrize("state", ["\u00b2,4,5", "0,\u00b9,4"])
def test_round_state_with_odd_digits_is_one_line(state):
    one_error_line(run("round", "--chips", "5", "--faces", "2", "--state", state), "--state")


def _no_work(*args, **kwargs):
    raise AssertionError("the work started before the destination was checked")


@pytest.mark.parametrize("out, words", [("", "the folder name is empty"),
                                        ("file/sub", "is not a folder")])
def test_cheatsheet_unusable_out_is_one_line_before_the_work(tmp_path, monkeypatch, out,
                                                             words):
    import solver.cheatsheet.search

    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("mine")
    monkeypatch.setattr(solver.cheatsheet.search, "front_points", _no_work)
    one_error_line(run("cheatsheet", *SHEET, "--out", out), words)
    assert (tmp_path / "file").read_text() == "mine"


@pytest.fixture
def immutable_folder(tmp_path):
    """A folder nothing can be created in, even by root (`chattr +i`; skipped without it)."""
    import shutil

    folder = tmp_path / "ro"
    folder.mkdir()
    if shutil.which("chattr") is None or subprocess.run(
            ["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here")
    yield folder
    subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_cheatsheet_read_only_folder_is_one_line_before_the_work(immutable_folder,
                                                                 monkeypatch):
    """A new sheet folder inside a folder that takes no new entry (a read-only disk)."""
    import solver.cheatsheet.search

    monkeypatch.setattr(solver.cheatsheet.search, "front_points", _no_work)
    one_error_line(run("cheatsheet", *SHEET, "--out", immutable_folder / "sheet"),
                   "not writable")


def test_cheatsheet_beam_is_bounded():
    result = run("cheatsheet", *SHEET, "--beam", "1000", "--out", "unused")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.startswith("bidou: error:") and "1000" in result.output


def _sweep_root(tmp_path: Path, edit=None) -> Path:
    (tmp_path / "docs" / "data").mkdir(parents=True)
    lines = (ROOT / "docs" / "data" / "sweep.csv").read_text().splitlines()
    if edit is not None:
        lines[5] = edit(lines[5])
    (tmp_path / "docs" / "data" / "sweep.csv").write_text("\n".join(lines) + "\n")
    return tmp_path


@pytest.mark.parametrize("exact", ["garbage", "1e-999999999", "1/0", "1/2/3"])
def test_results_with_a_garbage_exact_value_is_one_line_before_solving(tmp_path, monkeypatch,
                                                                       exact):
    import solver.app.results

    monkeypatch.setattr(solver.app.results, "fresh_document", _no_work)
    cells = lambda line: ",".join(line.split(",")[:9] + [exact] + line.split(",")[10:])  # noqa
    root = _sweep_root(tmp_path, cells)
    one_error_line(run("results", "--root", root), "exact")


def test_results_root_read_only_is_refused_before_solving(tmp_path, monkeypatch):
    import solver.app.results
    from solver.common import files

    root = _sweep_root(tmp_path)
    monkeypatch.setattr(solver.app.results, "fresh_document", _no_work)
    monkeypatch.setattr(files.os, "access", lambda path, mode: False)
    one_error_line(run("results", "--root", root), "not writable")


# --- item 6: sets of files staged and moved in together --------------------------------------

def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _fail_at(monkeypatch, calls: int) -> None:
    """os.fsync raises ENOSPC from its `calls`-th call on (a disk filling up mid-set)."""
    import errno

    from solver.common import files

    real, count = files.os.fsync, [0]

    def fsync(fd):
        count[0] += 1
        if count[0] >= calls:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd)

    monkeypatch.setattr(files.os, "fsync", fsync)


@pytest.mark.slow
def test_full_disk_during_cheatsheet_leaves_the_old_sheet(tmp_path, monkeypatch):
    """The sheets' search without the MILP (--milp-seconds 0: a 30 s wall-clock limit each
    time otherwise), which writes the same set of files."""
    out = tmp_path / "sheet"
    quick = (*SHEET, "--milp-seconds", "0")
    assert run("cheatsheet", *quick, "--out", out).exit_code == 0
    before = _snapshot(out)
    assert len(before) >= 5
    _fail_at(monkeypatch, 4)                  # the Markdown, after both PDFs and the PNG
    one_error_line(run("cheatsheet", *quick, "--rules-max", "3", "--out", out),
                   "No space left on device")
    assert _snapshot(out) == before


@pytest.mark.slow
def test_full_disk_during_round_charts_leaves_the_old_set(tmp_path, monkeypatch):
    out = tmp_path / "charts"
    small = ("round", "--chips", "3", "--faces", "2", "--throws", "1", "--max-level", "1",
             "--charts", "--out", out)
    assert run(*small).exit_code == 0
    (out / "round.json").write_text("{}\n")           # an older set, told apart
    before = _snapshot(out)
    _fail_at(monkeypatch, 3)
    one_error_line(run(*small), "No space left on device")
    assert _snapshot(out) == before


def test_a_failed_round_in_outputs_leaves_the_old_set(tmp_path, monkeypatch):
    import shutil

    from solver.app.round_outputs import write_round

    shutil.copytree(ROOT / "outputs" / "round", tmp_path / "round")
    (tmp_path / "round" / "round.json").write_text("{}\n")
    before = _snapshot(tmp_path)
    report = json.loads((ROOT / "outputs" / "round" / "round.json").read_text())
    _fail_at(monkeypatch, 3)
    with pytest.raises(OSError, match="No space left"):
        write_round(tmp_path, "round", report)
    assert _snapshot(tmp_path) == before


def test_a_failed_results_write_leaves_the_old_set(tmp_path, monkeypatch):
    """`results` writes docs/data/results.json, docs/results.md and docs/img/*.png: with
    the solving stubbed out, a disk full at the third file changes none of them."""
    import solver.app.results as results

    root = _sweep_root(tmp_path)
    monkeypatch.setattr(results, "fresh_document", lambda *args: {"schema": "stub"})
    monkeypatch.setattr(results, "render", lambda doc: "# new page\n")
    monkeypatch.setattr(results, "plots", lambda doc: {"a.png": b"new a", "b.png": b"new b"})
    (root / "docs" / "img").mkdir()
    for path in ("docs/data/results.json", "docs/results.md", "docs/img/a.png",
                 "docs/img/b.png"):
        (root / path).write_text("old")
    before = _snapshot(root)
    _fail_at(monkeypatch, 3)
    one_error_line(run("results", "--root", root), "No space left on device")
    assert _snapshot(root) == before


# --- item 10: signals and pipes --------------------------------------------------------------

def test_ctrl_c_at_a_play_prompt_exits_130(exact_file):
    """A real SIGINT while `play` waits at its first prompt: interrupted, not game over."""
    import signal
    import threading

    process = subprocess.Popen(
        [sys.executable, "-m", "solver.app.cli", "play", "--strategy", str(exact_file),
         "--role", "captain", "--seed", "1"], cwd=ROOT, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen = bytearray()
    prompted = threading.Event()

    def read() -> None:
        while chunk := process.stdout.read1(4096):
            seen.extend(chunk)
            if b"Hand 1" in seen and seen.rstrip().endswith((b":", b"?", b"]", b")")):
                prompted.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert prompted.wait(60), bytes(seen)
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 130
    finally:
        process.kill()
    stderr = process.stderr.read().decode()
    assert "bidou: interrupted" in stderr and "Traceback" not in stderr
    assert b"end of input" not in seen


def test_end_of_input_at_a_play_prompt_still_ends_the_game():
    """The documented behaviour (docs/reliability.md): the score so far, exit 0."""
    result = run("play", *TINY, "--role", "captain", "--seed", "1", input="")
    assert result.exit_code == 0 and "Game over (end of input)." in result.output


def test_a_closed_stdout_exits_quietly_with_141():
    process = subprocess.Popen([sys.executable, "-m", "solver.app.cli", "stats", "--json"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()                      # the reader is gone before anything is printed
    assert process.wait(60) == 141
    assert process.stderr.read() == b""


# --- item 12: a symlink planted in a sticky shared folder ------------------------------------

@pytest.fixture
def sticky(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("planting another user's symlink needs root (lchown)")
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o1777)
    victim = tmp_path / "victim.json"
    victim.write_text("root's own file")
    return folder, victim


def test_a_symlink_planted_by_another_user_in_a_sticky_folder_is_not_followed(sticky):
    folder, victim = sticky
    link = folder / "s.json"
    link.symlink_to(victim)
    os.lchown(link, 12345, 12345)
    one_error_line(run("solve", *TINY, "--out", link), "owned by another user")
    assert victim.read_text() == "root's own file"
    os.lchown(link, 0, 0)                        # our own link is followed, as before
    assert run("solve", *TINY, "--out", link).exit_code == 0
    assert json.loads(victim.read_text())["schema"] == "bidou-strategy"


def test_a_planted_symlink_folder_is_not_followed_either(sticky, tmp_path):
    folder, _ = sticky
    (tmp_path / "elsewhere").mkdir()
    link = folder / "charts"
    link.symlink_to(tmp_path / "elsewhere")
    os.lchown(link, 12345, 12345)
    one_error_line(run("round", "--chips", "3", "--faces", "2", "--throws", "1",
                       "--max-level", "1", "--charts", "--out", link), "owned by another user")
    one_error_line(run("solve", *TINY, "--out", link / "s.json"), "owned by another user")
    assert not list((tmp_path / "elsewhere").iterdir())


def test_a_planted_symlink_behind_one_of_ours_is_not_followed(sticky, tmp_path):
    """Our own link in the shared folder pointing at another user's link there: each link
    of the chain is checked, not only the first."""
    folder, victim = sticky
    planted = folder / "planted.json"
    planted.symlink_to(victim)
    os.lchown(planted, 12345, 12345)
    ours = folder / "ours.json"
    ours.symlink_to("planted.json")
    one_error_line(run("solve", *TINY, "--out", ours), "owned by another user")
    assert victim.read_text() == "root's own file"
