"""docs/architecture.md names every module of solver/ and games/, and nothing that is gone:
a reader who finds a file there finds it in the tree, and the other way round."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"


def listed(text: str) -> set[str]:
    """The paths the page's "Every module" section lists: a heading names a folder, each
    bullet under it a file of that folder."""
    section = text.split("## Every module", 1)[1]
    folder, found = None, set()
    for line in section.splitlines():
        heading = re.match(r"### `([\w/]+/)`\s*$", line)
        if heading:
            folder = heading.group(1)
            continue
        item = re.match(r"- `([\w.]+)`: \S", line)
        if item:
            assert folder is not None, f"a module listed before any folder: {line}"
            found.add(folder + item.group(1))
    return found


def modules() -> set[str]:
    return {str(path.relative_to(ROOT)) for top in ("solver", "games")
            for path in (ROOT / top).rglob("*") if path.suffix in (".py", ".c")
            and path.name != "__init__.py" and "__pycache__" not in path.parts}


def test_the_page_lists_every_module_and_no_other():
    on_page, in_tree = listed(PAGE.read_text(encoding="utf-8")), modules()
    assert len(in_tree) > 150
    assert not in_tree - on_page, f"not on docs/architecture.md: {sorted(in_tree - on_page)}"
    assert not on_page - in_tree, f"listed but gone: {sorted(on_page - in_tree)}"


def test_the_reading_of_the_page_finds_folders_and_files():
    text = "intro\n## Every module\n\n### `solver/x/`\n\n- `a.py`: one\n- `b.c`: two\nnot `c.py`\n"
    assert listed(text) == {"solver/x/a.py", "solver/x/b.c"}
