"""docs/results.md's Bidú section: its numbers solved and proved, kept in the "bidu" part of
docs/data/results.json, and the page rendered again.

    python -m solver.app.bidu_results [--root .] [--sweep-only]

The default vuelta is read from outputs/bidu/bidu-solution.json (its value proved again);
the smaller stacks, the captain-first variant and the folk advice are solved now (minutes);
the sweep's summary is read from docs/data/bidu_sweep.csv (`--sweep-only`: that alone).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Optional, Sequence

from solver.export.results_page import render
from solver.pipeline.bidu_results import bidu_part, sweep_summary
from solver.pipeline.results_document import read_document, stable


def main(argv: Optional[Sequence[str]] = None) -> None:
    from solver.common.files import write_set

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--sweep-only", action="store_true",
                        help="only read the sweep's table again")
    args = parser.parse_args(argv)
    path = args.root / "docs" / "data" / "results.json"
    doc = read_document(path)
    if not args.sweep_only:
        doc["bidu"] = stable(bidu_part(args.root / "outputs" / "bidu" / "bidu-solution.json",
                                       report=print))
    doc["bidu"]["sweep"] = stable(sweep_summary(args.root / "docs" / "data"))
    write_set({path: (json.dumps(doc, indent=1, allow_nan=False) + "\n").encode(),
               args.root / "docs" / "results.md": render(doc).encode()})


if __name__ == "__main__":
    main()
