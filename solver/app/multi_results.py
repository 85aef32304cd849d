"""docs/results.md's multi-hand section (section 7): three and four players against two.

    python -m solver.app.multi_results --default outputs/multi/multi-solution.json \
        --poor-fish FILE --whole FILE --two-player FILE
                        # puts the runs given into the "multi" part of
                        # docs/data/results.json (the others kept) and renders
                        # docs/results.md again
    python -m solver.app.multi_results   # only renders again (after editing FOUR_PLAYERS)

Its numbers are those of `bidou multi` runs, each named in the section: the default
three-player hand (`--out DIR`: multi-strategy.json), the same with Poor Fish, the whole game
(`--simulate`), the two-player equilibrium played by all three (`--two-player`), read by
`solver.pipeline.multi_results` (only each file's summary, never its strategy); the
four-player numbers are docs/multi.md's, recorded in that module (FOUR_PLAYERS). The
section is rendered by `solver.export.multi_section`, within the whole page.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Optional, Sequence

from solver.export.results_page import render
from solver.pipeline.multi_results import part_of
from solver.pipeline.results_document import read_document


def main(argv: Optional[Sequence[str]] = None) -> None:
    from solver.common.files import write_set

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--default", type=Path, default=None,
                        help="the default game's strategy file, or its summary "
                        "(outputs/multi/multi-solution.json)")
    parser.add_argument("--poor-fish", type=Path)
    parser.add_argument("--whole", type=Path)
    parser.add_argument("--whole-command", default="")
    parser.add_argument("--two-player", type=Path)
    parser.add_argument("--root", type=Path, default=Path("."))
    args = parser.parse_args(argv)
    path = args.root / "docs" / "data" / "results.json"
    doc = read_document(path)
    doc["multi"] = part_of(args.default, args.poor_fish, args.whole, args.two_player,
                           args.whole_command, kept=doc["multi"])
    write_set({path: (json.dumps(doc, indent=1, allow_nan=False) + "\n").encode(),
               args.root / "docs" / "results.md": render(doc).encode()})


if __name__ == "__main__":
    main()
