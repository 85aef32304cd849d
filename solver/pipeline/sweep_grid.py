"""Two-hand Bidou's sweep grid and its keys, for the pipelines that read the sweep's table
(the results): the names they import, bound to Bidou's sweep (solver/pipeline/bidou_sweep.py),
which builds them once for every game (solver/pipeline/sweep.py)."""

from __future__ import annotations

from solver.pipeline.bidou_sweep import SWEEP

RULE_COLUMNS = SWEEP.rules
build_grid = SWEEP.build_grid
rule_key = SWEEP.rule_key
read_rows = SWEEP.read_rows
