"""`python -m solver.app.cheatsheet_front` (solver/pipeline/cheatsheet_front.py): a published
front file measured again against the published equilibrium (read from outputs/, not solved
again) keeps its rules, its cost and, to rounding, what the rules lose seated against the
equilibrium; the table is written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import solver.pipeline.hand
from solver.app import cheatsheet_front

FRONT = Path(__file__).resolve().parent.parent / "outputs" / "cheatsheet-front"
LOSSES = ("captain_loss_vs_equilibrium", "opponent_loss_vs_equilibrium", "equilibrium_loss")


def test_a_published_front_file_measured_again_keeps_its_numbers(tmp_path, monkeypatch):
    published = FRONT / "front_default_12.json"
    (tmp_path / published.name).write_bytes(published.read_bytes())
    monkeypatch.setattr(sys, "argv", ["cheatsheet_front", "--remeasure", "--start",
                                      str(tmp_path), "--games", "default"])

    def solved_again(*_, **__):
        raise AssertionError("the equilibrium was solved again, not read from outputs/")

    monkeypatch.setattr(solver.pipeline.hand, "refined_hand", solved_again)
    cheatsheet_front.main()
    before = json.loads(published.read_text())["result"]
    after = json.loads((tmp_path / published.name).read_text())["result"]
    assert after["rule_list"] == before["rule_list"]
    assert after["exploitability"] == before["exploitability"]
    for key in LOSSES:
        assert after[key] == pytest.approx(before[key], abs=1e-9), key
    assert "12" in (tmp_path / "front.md").read_text()
