"""The sweep table's reader under the name `bidou results` imports (solver/app/results.py);
the sweep itself is solver/pipeline/sweep.py, two-hand Bidou's part of it
solver/pipeline/bidou_sweep.py."""

from __future__ import annotations

from solver.pipeline.sweep_grid import read_rows

__all__ = ["read_rows"]
