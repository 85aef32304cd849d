"""The generated record of how long things take, and the doc passages that quote it.

A timing typed into a doc drifts: it was one machine's figure under one load, and the next
reader measures another. So the benchmarks write what they measure into one record,
`docs/data/benchmarks.json`, each entry with the machine and its load when it ran, and the
docs quote that record only in passages kept between markers:

    <!-- generated: timings NAME (benchmarks) -->
    ...
    <!-- end generated -->

`record` stores a benchmark's medians and rewrites every such passage of README.md and docs/;
a test checks that each passage is what the record renders, so a doc cannot quote a number
the record does not hold.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

from solver.common.files import write_json_atomic, write_text_atomic

SCHEMA = 1
_MARKED = re.compile(
    r"(<!-- generated: timings (\w+) \(benchmarks\) -->\n)(.*?)(<!-- end generated -->)", re.S)


def project_root() -> Path:
    return Path(__file__).resolve().parents[2]


def record_path(root: Path | None = None) -> Path:
    return (root or project_root()) / "docs" / "data" / "benchmarks.json"


def machine() -> dict[str, Any]:
    """What a reader needs to compare a timing with his own: processor, cores, Python."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "system": platform.system()}


def read_record(path: Path | None = None) -> dict[str, Any]:
    path = path or record_path()
    if not path.exists():
        return {"schema": SCHEMA, "benchmarks": {}}
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("schema") != SCHEMA or not isinstance(data.get("benchmarks"), dict):
        raise ValueError(f"{path}: not a timings record of schema {SCHEMA}")
    return data


def record(name: str, command: str, rows: Sequence[Mapping[str, Any]],
           load: Sequence[float], root: Path | None = None) -> Path:
    """Store one benchmark's rows (each a `what`, shown as code unless `code` is False, and
    its `median_s`, with any other columns)
    with the machine, the load average when it started and the command that measured it,
    then rewrite every generated timings passage of the docs from the new record."""
    path = record_path(root)
    data = read_record(path)
    data["benchmarks"][name] = {
        "command": command,
        "measured": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "machine": machine(),
        "load": [round(x, 2) for x in load],
        "rows": [dict(row) for row in rows],
    }
    write_json_atomic(path, data)
    for doc in documents(root):
        text = doc.read_text(encoding="utf-8")
        updated = update(text, data)
        if updated != text:
            write_text_atomic(doc, updated)
    return path


def documents(root: Path | None = None) -> list[Path]:
    root = root or project_root()
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def render(name: str, data: Mapping[str, Any]) -> str:
    """The passage for benchmark `name`: a table of its rows, then where and how it ran."""
    entry = data["benchmarks"].get(name)
    if entry is None:
        return f"(no `{name}` benchmark in docs/data/benchmarks.json yet)\n"
    rows = entry["rows"]
    extra = [key for key in rows[0] if key not in ("what", "median_s", "code")] if rows else []
    lines = ["| " + " | ".join(["what", "median (s)", *extra]) + " |",
             "|" + "---|" * (2 + len(extra))]
    for row in rows:
        cells = [f"`{row['what']}`" if row.get("code", True) else row["what"],
                 _seconds(row["median_s"]), *(str(row[key]) for key in extra)]
        lines.append("| " + " | ".join(cells) + " |")
    m = entry["machine"]
    load = ", ".join(f"{x:.2f}" for x in entry["load"])
    lines += ["", f"Measured {entry['measured']} by `{entry['command']}` on {m['cpu']} "
                  f"({m['cores']} cores, Python {m['python']}), load average {load} at the "
                  f"start; a busy or slower machine takes longer."]
    return "\n".join(lines) + "\n"


def _seconds(x: float) -> str:
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def update(text: str, data: Mapping[str, Any]) -> str:
    """`text` with every timings passage rendered again from `data`."""
    return _MARKED.sub(lambda m: m.group(1) + render(m.group(2), data) + m.group(4), text)


def stale(root: Path | None = None) -> list[str]:
    """The docs whose timings passages differ from what the record renders."""
    data = read_record(record_path(root))
    texts = {doc: doc.read_text(encoding="utf-8") for doc in documents(root) if doc.exists()}
    return [str(doc) for doc, text in texts.items() if update(text, data) != text]
