"""The lint the project holds itself to (pyproject.toml [tool.ruff]: pyflakes, syntax,
line length, import order), run with the suite so that CI runs it too."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_is_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff is not None, "ruff is part of the test extra: pip install -e '.[test]'"
    done = subprocess.run([ruff, "check", "solver", "games", "tests", "benchmarks"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
