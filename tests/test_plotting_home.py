"""A command that draws, run with a HOME where matplotlib cannot keep its folders (immutable,
missing, or not a folder at all), prints nothing but its own lines: matplotlib printed two
warning lines on stderr ("mkdir -p failed ...", "Matplotlib created a temporary cache
directory ...")."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STRATEGY = ROOT / "outputs" / "default" / "strategy.json"


@pytest.mark.slow
@pytest.mark.parametrize("home", ["/dev/null", "{tmp}/missing/home"])
def test_charts_with_an_unusable_home_print_nothing_on_stderr(tmp_path, home):
    env = {key: value for key, value in os.environ.items()
           if key not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    env["HOME"] = home.format(tmp=tmp_path)
    env["TMPDIR"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "solver.app.cli", "charts", "--strategy", str(STRATEGY),
         "--out", str(tmp_path / "charts"), "--format", "png"],
        capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert list((tmp_path / "charts").glob("*.png"))
    assert not (tmp_path / "missing").exists()             # nothing made under that HOME
    assert [p.name for p in tmp_path.iterdir()] == ["charts"]  # its folder removed at exit
