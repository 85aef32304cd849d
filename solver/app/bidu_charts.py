"""`python -m solver.app.bidu_charts --out DIR`: Bidú's standing chart, drawn from the
published solution.

    python -m solver.app.bidu_charts --out DIR [--format png --format pdf ...]

Reads outputs/bidu/bidu-solution.json of the source checkout (its value proved again, under
a second) and writes bidu-standing.pdf, .png and .svg in DIR (the formats asked for, all
three by default), together: all or none. A file that cannot be read or written is one
line on stderr, exit 2. The chart's table is read from the solution here, not in
solver/export, which the layers keep beside solver/bidu rather than over it.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path
from typing import Optional, Sequence

from games.bidu.params import BiduParams
from solver.app.saved_rounds import outputs_root
from solver.bidu.proof import Q
from solver.bidu.solution_file import NAME, read_solution
from solver.bidu.solve import BiduSolution
from solver.export.bidu_charts import StandingChart, StandingRow, write_standing_charts
from solver.export.chart_files import FORMATS
from solver.hand.strategy import StrategyFileError


def standing_table(solution: BiduSolution) -> list[StandingRow]:
    """Every standing decision of both seats, in the chart's order: seat, throw, then what
    is known of the other (`VueltaModel.pubs`), each hand's chance of standing exactly
    (the strategy's integers over Q), weakest first. The last throw asks nothing (B15)."""
    model = solution.model
    rows = []
    for seat, strategy in enumerate(solution.strategies):
        for throw in range(1, model.throws):
            for pub in model.pubs(seat, throw):
                chances = tuple(Fraction(s, Q) for s in strategy.stand[(throw, pub)])
                rows.append(StandingRow(seat, throw, pub, chances))
    return rows


def standing_chart_of(solution: BiduSolution, source: str) -> StandingChart:
    """What the chart shows of `solution`, read from the file `source`."""
    model = solution.model
    return StandingChart(rules_text=solution.params.describe(), value=solution.estimate,
                         hands=model.hands, hand_chances=model.chances,
                         rows=tuple(standing_table(solution)), sequential=model.sequential,
                         source=source)


def solution_path() -> Path:
    """The published default vuelta: outputs/bidu/ of the source checkout."""
    return outputs_root() / "bidu" / NAME


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Write the chart's files and print their paths; 2 with one line on stderr if the
    solution cannot be read or a file cannot be written."""
    parser = argparse.ArgumentParser(prog="python -m solver.app.bidu_charts",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder to write into")
    parser.add_argument("--format", action="append", choices=FORMATS, dest="formats",
                        help="pdf, png or svg; repeat for several (default: all three)")
    args = parser.parse_args(argv)
    path = solution_path()
    try:
        solution = read_solution(path, BiduParams())
        chart = standing_chart_of(solution, f"outputs/bidu/{path.name}")
        paths = write_standing_charts(chart, args.out, args.formats or FORMATS)
    except (StrategyFileError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for written in paths:
        print(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
