"""Two-hand Bidou's sweep (`bidou sweep`): what the game gives the sweep (solver/pipeline/
sweep.py). A cell is a rule set solved by `solver.hand.solve.solve` (LP, then the exact
certificate; with `exact`, the exact rational value too) in a fraction of a second, so a
worker solves it in its own process. The table is `sweep.csv`, beside it `sweep.parquet`
and `sweep.png` (solver/export/sweep_plot.py).
"""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

from games.bidou.params import BidouParams
from games.parameters import ParameterError
from solver.pipeline.sweep import (
    Row,
    Sweep,
    enclosed,
    enclosed_row,
    parse_exact,
    parse_number,
    proved_exploitability,
)

NUMBERS = ("value", "lower", "upper", "exact", "exploitability", "seconds")
# The Parquet file's column types (the CSV's are its text).
DTYPES = {"faces": "int64", "throws": "int64", "max_level": "int64", "reroll": "string",
          "ranking": "string", "aces_beat_bidou": "bool", "value": "float64",
          "lower": "float64", "upper": "float64", "exact": "string",
          "exploitability": "float64", "seconds": "float64"}


def solve_row(rules: Mapping[str, Any], exact: bool = False) -> Row:
    """One rule set solved (LP + certificate, exact value if asked), as a table row.

    The row's numbers are those `enclosed` makes of the proof: `lower <= value <= upper`
    and `lower <= exact <= upper` hold in floats and in the decimals the table prints, and
    `exploitability` is proved, rounded up, never negative. `exact` is the proved fraction,
    or None.
    """
    import solver.hand.exact.equilibrium  # noqa: F401  (imports are not the solve's time)
    import solver.hand.lp.sequence_form  # noqa: F401
    from solver.hand.solve import solve

    params = BidouParams.from_mapping(dict(rules))
    start = time.perf_counter()
    solution = solve(params, exact=exact)
    seconds = time.perf_counter() - start
    proof = solution.certificate
    assert proof is not None, "solve() certifies every solution"
    return {**params.to_dict(), **enclosed(
        solution.value, proof.lower, proof.upper, proof.exact,
        proved_exploitability(solution.model, solution.strategy)), "seconds": seconds}


class BidouSweep(Sweep):
    """Two-hand Bidou's rule sets, one row each, every number proved."""

    GAME = "bidou"
    PARAMS = BidouParams
    TABLE = "sweep.csv"
    FILES = ("sweep.csv", "sweep.parquet", "sweep.png")
    TITLE = "sweep table"
    NUMBERS = NUMBERS
    PROGRESS = "rule sets solved"
    BOOLEANS = ("False", "True")
    SECONDS_PER_CELL = 0.25       # LP + certificate, one worker (benchmarks/bench_sweep.py)
    cell = staticmethod(solve_row)

    def parse_numbers(self, fields: Mapping[str, str]) -> Row:
        """Every number finite, lower <= upper, `exact` a fraction of bounded size inside
        them. A value outside its interval is read as it is: `prepare` repairs it."""
        numbers = {name: parse_number(name, fields[name])
                   for name in NUMBERS if name != "exact"}
        lower, upper = numbers["lower"], numbers["upper"]
        if not lower <= upper:
            raise ParameterError(f"lower {lower!r} is above upper {upper!r}")
        exact = parse_exact(fields["exact"], lower, upper)
        return {name: exact if name == "exact" else numbers[name] for name in NUMBERS}

    def prepare(self, row: Mapping[str, Any]) -> Row:
        """`enclosed_row`: an old row is repaired, a new one unchanged."""
        return enclosed_row(row)

    def frame(self, rows: Sequence[Mapping[str, Any]]) -> Any:
        """The rows as a DataFrame with the table's columns and types."""
        import pandas as pd

        frame = pd.DataFrame(self.sorted_rows(rows), columns=list(self.columns))
        return frame.astype(DTYPES)

    def extra_files(self, out: Path, rows: Sequence[Row]) -> list[Path]:
        """sweep.parquet and sweep.png, each written atomically."""
        from solver.common.files import write_bytes_atomic
        from solver.export.sweep_plot import plot_png

        buffer = io.BytesIO()
        self.frame(rows).to_parquet(buffer, index=False, engine="pyarrow")
        write_bytes_atomic(out / "sweep.parquet", buffer.getvalue())
        write_bytes_atomic(out / "sweep.png", plot_png(rows))
        return [out / "sweep.parquet", out / "sweep.png"]


SWEEP = BidouSweep()
