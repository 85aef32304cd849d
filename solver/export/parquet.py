"""The strategy tables as Parquet: one row per (decision, hand, action), typed columns.

`solver.export.tables` builds the rows (one per decision and hand, one column per action)
for CSV and Markdown; here the same `Table` is turned long, which is what dataframe tools
want: every column of the table but the action columns and the display string `play`,
then `action` and its `probability` (and its expected `chips`, when the table has a
`chips_<action>` column per action). Actions not available with a hand (keeping dice one
does not hold) get no row, so the probabilities of each (decision, hand) sum to 1. Other
columns added to the tables later are carried along with the type pyarrow infers. The
file's metadata holds the rules, the table's name and a schema version.

`bidou export --parquet` writes `reroll.parquet` and `betting.parquet` beside the CSV files.
They are not among the published `outputs/`: Parquet's bytes depend on the pyarrow version.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

from solver.common.files import write_bytes_atomic
from solver.common.types import Reach
from solver.export.tables import Table, betting_table, reroll_table
from solver.hand.evaluate import reach_of
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy

SCHEMA_VERSION = 1
SKIPPED = ("play",)          # the mix spelled for people ("stop 58% / 2 42%")
# A table may give each action's expected chips in a column `chips_<action>` (the action
# values solver/export/tables.py writes): in the long table that is the row's `chips`.
VALUE_PREFIX = "chips_"

# The type of each column the tables have today; others are inferred.
_INT = ("captain_throws", "opponent_throws", "throw", "level", "rank")
_FLOAT = ("reached", "probability", "chips", VALUE_PREFIX + "play")


def _kept_columns(table: Table) -> list[str]:
    """The table's columns every long row repeats: not the actions' own columns."""
    per_action = set(table.probability_columns) | {VALUE_PREFIX + a
                                                   for a in table.probability_columns}
    return [c for c in table.columns if c not in per_action and c not in SKIPPED]


def long_columns(table: Table) -> list[str]:
    """The long table's columns, in order."""
    valued = any(VALUE_PREFIX + a in table.columns for a in table.probability_columns)
    return _kept_columns(table) + ["action", "probability"] + (["chips"] if valued else [])


def long_rows(table: Table) -> list[dict[str, Any]]:
    """One row per (row of `table`, available action): its columns but the actions' own
    and `play`, then `action`, its `probability` (and its `chips` when the table has
    action values); an empty number (the captain's captain_throws) is null."""
    keep = _kept_columns(table)
    valued = "chips" in long_columns(table)
    out = []
    for row in table.rows:
        head = {c: (None if c in _INT and row.get(c) == "" else row.get(c)) for c in keep}
        for action in table.probability_columns:
            p = row.get(action)
            if p is not None:
                item = {**head, "action": action, "probability": float(p)}
                if valued:
                    item["chips"] = row.get(VALUE_PREFIX + action)
                out.append(item)
    return out


def _schema(columns: list[str], rows: list[dict[str, Any]], metadata: dict[str, str]) -> Any:
    import pyarrow as pa

    inferred = pa.Table.from_pylist(rows).schema if rows else None
    fields = []
    for name in columns:
        if name in _INT:
            kind = pa.int16()
        elif name in _FLOAT:
            kind = pa.float64()
        elif inferred is None or pa.types.is_null(inferred.field(name).type):
            kind = pa.string()
        else:
            kind = inferred.field(name).type
        fields.append(pa.field(name, kind, nullable=True))
    return pa.schema(fields, metadata=metadata)


def parquet_bytes(table: Table, rules: dict[str, Any]) -> bytes:
    """The Parquet file of `table`, long, typed, with the rules in its metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = long_rows(table)
    columns = long_columns(table)
    metadata = {"bidou.table": table.name, "bidou.schema_version": str(SCHEMA_VERSION),
                "bidou.rules": json.dumps(rules, sort_keys=True)}
    arrow = pa.Table.from_pylist(rows, schema=_schema(columns, rows, metadata))
    buffer = io.BytesIO()
    pq.write_table(arrow, buffer)
    return buffer.getvalue()


def write_parquet_tables(model: HandModel, strategy: Strategy, out_dir: str | os.PathLike,
                         reach: Reach | None = None) -> list[Path]:
    """reroll.parquet and betting.parquet in `out_dir`, atomically (`reach`: both players'
    own reach, measured here if not given)."""
    paths = []
    rules = model.game_rules
    reach = reach or reach_of(model, strategy)
    for table in (reroll_table(model, strategy, reach), betting_table(model, strategy, reach)):
        path = Path(out_dir) / f"{table.name}.parquet"
        write_bytes_atomic(path, parquet_bytes(table, rules))
        paths.append(path)
    return paths
