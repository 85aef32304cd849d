"""docs/results.md's Montevideo section: its numbers read from the published heads-up report
(outputs/montevideo/heads-up.json, checked), kept in the "montevideo" part of
docs/data/results.json, and the page rendered again.

    python -m solver.app.montevideo_results [--root .]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Optional, Sequence

from solver.export.results_page import render
from solver.pipeline.montevideo_results import montevideo_part
from solver.pipeline.results_document import read_document, stable


def main(argv: Optional[Sequence[str]] = None) -> None:
    from solver.common.files import write_set

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("."))
    args = parser.parse_args(argv)
    path = args.root / "docs" / "data" / "results.json"
    doc = read_document(path)
    doc["montevideo"] = stable(montevideo_part(
        args.root / "outputs" / "montevideo" / "heads-up.json"))
    write_set({path: (json.dumps(doc, indent=1, allow_nan=False) + "\n").encode(),
               args.root / "docs" / "results.md": render(doc).encode()})


if __name__ == "__main__":
    main()
