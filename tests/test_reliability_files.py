"""Reliability, third pass (issue #25): files, `evaluate` and the command line. Each test
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
from click.testing import CliRunner

from solver.app.cli import main
from solver.strategy import (
    MAX_COMMON_DENOMINATOR_BITS,
    StrategyFileError,
    exact_number,
    load_strategy_file,
)

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_STRATEGY = ROOT / "outputs" / "default" / "strategy.json"
TINY = ("--faces", "2", "--throws", "2", "--max-level", "1")


def run(*args, **kwargs):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, **kwargs)


def one_error_line(result, words: str, code: int = 2) -> None:
    assert result.exit_code == code, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("bidou: error:")]
    assert len(errors) == 1 and words in errors[0], result.output
    assert "Traceback" not in result.output


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
def test_exact_numbers_are_parsed_with_a_size_bound_first(text):
    started = time.perf_counter()
    with pytest.raises(StrategyFileError, match="exact.throw"):
        exact_number(text, "exact.throw.captain")
    assert time.perf_counter() - started < 0.01


def test_plain_exact_numbers_still_read():
    assert exact_number("1269709/2733750", "x") == Fraction(1269709, 2733750)
    assert exact_number("1", "x") == 1 and exact_number("0", "x") == 0


def test_an_exponent_in_an_exact_entry_is_refused_at_once(exact_file, tmp_path):
    document = json.loads(exact_file.read_text())
    document["exact"]["betting"][0]["probabilities"][0][0] = "1e-999999999"
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(document))
    started = time.perf_counter()
    result = bidou("evaluate", "--strategy", str(hostile), timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "exact betting node" in result.stderr
    assert "1e-999999999" in result.stderr
    assert time.perf_counter() - started < 30


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
    started = time.perf_counter()
    result = bidou("evaluate", "--strategy", str(hostile), timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "exact betting node" in result.stderr and "common denominator" in result.stderr
    assert time.perf_counter() - started < 60


def test_the_certificate_bounds_the_common_denominator(exact_file):
    from solver.certificate import prove_fractions
    from solver.strategy import load_exact

    model, strategy, _ = load_strategy_file(exact_file)
    fractions = {k: list(v) for k, v in load_exact(exact_file, model, strategy).items()}
    prove_fractions(model, strategy, fractions)             # the real one proves
    where = next(k for k, row in fractions.items() if len(row) == 2)
    big = 3 ** 2600                                          # 4121 bits
    fractions[where] = [Fraction(1, big), 1 - Fraction(1, big)]
    started = time.perf_counter()
    with pytest.raises(StrategyFileError, match="common denominator"):
        prove_fractions(model, strategy, fractions)
    assert time.perf_counter() - started < 1


def test_the_published_exact_files_stay_within_the_bound():
    for name in ("default", "french", "keep"):
        path = ROOT / "outputs" / name / "strategy.json"
        model, strategy, _ = load_strategy_file(path)
        from solver.strategy import load_exact
        assert load_exact(path, model, strategy) is not None


# --- item 5: evaluate trusts nothing the file claims ----------------------------------------

def _with_result(source: Path, tmp_path: Path, **result) -> Path:
    document = json.loads(source.read_text())
    document["result"].update(result)
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(document))
    return path


def test_a_recorded_game_value_is_a_claim_not_a_finding(tmp_path):
    """A file recording game value 5.0: nothing is measured against it (the game value
    compared is the proved one); it is shown as the file's claim, outside the proof."""
    plain = tmp_path / "plain.json"
    assert run("solve", *TINY, "--out", plain).exit_code == 0
    path = _with_result(plain, tmp_path, game_value=5.0)
    result = run("evaluate", "--strategy", path)
    assert result.exit_code == 0, result.output
    assert "more than the game value +5" not in result.output
    claim = [line for line in result.output.splitlines() if "+5.0" in line]
    assert len(claim) == 1 and "claim" in claim[0] and "OUTSIDE" in claim[0]
    as_json = json.loads(run("evaluate", "--strategy", path, "--json").output)
    assert as_json["claimed"]["game_value"] == 5.0


@pytest.mark.parametrize("value", ["abc", True, [1], {"a": 1}])
def test_a_non_numeric_recorded_game_value_is_one_line(tmp_path, value):
    plain = tmp_path / "plain.json"
    assert run("solve", *TINY, "--out", plain).exit_code == 0
    one_error_line(run("evaluate", "--strategy", _with_result(plain, tmp_path,
                                                                game_value=value)),
                   "result.game_value")


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
