"""`bidou results`: docs/data/results.json, docs/results.md and docs/img/results_*.png.

    bidou sweep --faces 2,3,4,5,6 --throws 1,2,3 --max-level 1,2,3,4 --reroll all,keep \\
        --ranking encyclopedia,french --aces-beat-bidou true,false --exact --out docs/data
    bidou results            # docs/data/results.json, docs/results.md, docs/img/results_*.png

The numbers are the pipeline's (`solver.pipeline.results_document`: the sweep table's
tables, the featured games and the round solved now, Le Bidou's part with `--le-bidou`),
the page and the plots the export's (`solver.export.results_page`, `results_plots`). Here:
the destinations checked before the minutes of solving, the parts other commands made kept,
and the files written as one set.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from games.bidou.params import ParameterError
from solver.common.progress import Step
from solver.export.results_page import RESULTS_COMMAND, render
from solver.export.results_plots import plots
from solver.pipeline.results_document import fresh_document, read_document, with_le_bidou
from solver.pipeline.results_sweep import sweep_tables


def _kept_document(path: Path, strict: bool) -> dict[str, Any] | None:
    """The results document already written, whose Le Bidou part a plain run carries over:
    with `strict` (`--le-bidou`, which keeps everything else) an unreadable one is bad
    input; a plain run rewrites every other part anyway, so it only loses section 6."""
    if not path.is_file():
        return None
    try:
        return read_document(path)
    except ParameterError:
        if strict:
            raise
        return None


def write_results(root: str | Path = ".", progress: Step | None = None,
                  le_bidou: bool = False) -> list[Path]:
    """Solve the featured games, read docs/data/sweep.csv, write the JSON, page and plots.

    Le Bidou's part (section 6, `solver.pipeline.le_bidou_results`) is kept from the
    document already written unless `le_bidou`; with `le_bidou` only that part is solved
    again, and the rest kept (each part is minutes of solving: the one asked for is redone).
    The destinations are checked before the minutes of solving; the set (three folders)
    is staged beside its destinations and moved in only once every file is written, so a
    failure leaves the previous results whole."""
    from solver.common.files import check_directory_destination, write_set
    from solver.pipeline.bidou_sweep import SWEEP

    root = Path(root)
    for folder in ("docs/data", "docs", "docs/img"):
        check_directory_destination(root / folder)
    rows = SWEEP.read_rows(root / "docs" / "data")
    sweep_tables(rows)                           # an incomplete table fails before solving
    path = root / "docs" / "data" / "results.json"
    kept = _kept_document(path, strict=le_bidou)
    if le_bidou:
        if kept is None:
            raise ParameterError(f"{path} is missing: run `{RESULTS_COMMAND}` first")
        doc = with_le_bidou(kept, rows, progress)
    else:
        doc = fresh_document(rows, progress, kept)
    files = {root / "docs" / "data" / "results.json":
             (json.dumps(doc, indent=1, allow_nan=False) + "\n").encode("utf-8"),
             root / "docs" / "results.md": render(json.loads(json.dumps(doc))).encode("utf-8")}
    files.update({root / "docs" / "img" / name: data for name, data in plots(doc).items()})
    write_set(files)
    return list(files)
