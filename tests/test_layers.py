"""The layering docs/architecture.md promises, checked: what an import loads, the
import-linter contracts of pyproject.toml, and mypy on `solver/` and `games/`.

Imports are checked in a fresh interpreter: in this process other tests have imported
pyspiel and matplotlib long ago.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

def loaded_after(code: str) -> set[str]:
    """The top-level packages a fresh interpreter holds after running `code`."""
    script = code + "\nimport sys\nprint(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def test_the_rules_and_the_lp_load_neither_openspiel_nor_matplotlib():
    loaded = loaded_after("import games.bidou.rules, games.bidou.params, games.bidou.betting, "
                          "solver.hand.model, solver.hand.lp.sequence_form")
    assert "numpy" in loaded           # the probe sees what was imported
    assert not loaded & {"pyspiel", "open_spiel", "matplotlib"}


def test_solving_the_default_hand_by_lp_loads_neither_openspiel_nor_matplotlib():
    loaded = loaded_after("from games.bidou.params import BidouParams\n"
                          "from solver.hand.solve import solve\n"
                          "assert abs(solve(BidouParams()).value) < 1")
    assert "scipy" in loaded
    assert not loaded & {"pyspiel", "open_spiel", "matplotlib"}


def test_measuring_for_export_loads_no_matplotlib():
    """`unpack` and the tables are what `bidou outputs --check` and the CLI read first."""
    loaded = loaded_after("import solver.export, solver.export.numbers, solver.export.tables, "
                          "solver.export.bundle")
    assert "matplotlib" not in loaded


def test_registering_a_game_is_an_explicit_import():
    script = ("import pyspiel, games.bidou\n"
              "names = lambda: {t.short_name for t in pyspiel.registered_games()}\n"
              "before = names()\n"
              "import games.bidou.game\n"
              "middle = names()\n"
              "import games.bidou.round_game\n"
              "after = names()\n"
              "print('python_bidou' in before, 'python_bidou_round' in before,\n"
              "      'python_bidou' in middle, 'python_bidou_round' in middle,\n"
              "      'python_bidou_round' in after)")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "True", "False", "True"]


def tool(name: str) -> str:
    """A console script of the test extra, from this interpreter's environment first."""
    path = shutil.which(name, path=str(BIN)) or shutil.which(name)
    assert path is not None, f"{name} is part of the test extra: pip install -e '.[test]'"
    return path


def test_import_contracts_hold():
    """pyproject.toml [tool.importlinter]: games below the solver, the layers of solver/,
    the checks apart, and no OpenSpiel or matplotlib under the rules, the core and the round."""
    done = subprocess.run([tool("lint-imports"), "--no-cache"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 kept, 0 broken" in done.stdout


@pytest.mark.background(["mypy", "--ignore-missing-imports", "solver", "games"])
def test_mypy_finds_no_error_in_solver_and_games(background_run):
    """Started when the tests are collected (tests/conftest.py: about 20 s from a cold
    cache, beside the first tests)."""
    tool("mypy")
    returncode, stdout, stderr = background_run
    assert returncode == 0, stdout[-5000:] + stderr
    assert "Success: no issues found" in stdout
