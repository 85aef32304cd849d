"""House rules that the code keeps by itself, checked by reading the files.

- The text says what the code and the results are, and why, in the present tense: the
  number of an earlier stretch of work, or of an issue, means nothing to a reader, and
  ages as soon as it is written.
- A module of the project uses another one's public names only: a name with a leading
  underscore is its module's own, free to change without a search through the others.
- The tests test the library and the command line, never the benchmarks: a benchmark is
  a measuring tool, free to change; a test that runs one runs it as a user does, in a
  process of its own.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# --- no narration of the project's history by number ------------------------------------

TEXT_SUFFIXES = {".py", ".md", ".c", ".js", ".html", ".css", ".toml", ".json"}
SKIPPED_FOLDERS = {"outputs", "__pycache__"}
# Each needs a number after the word, so pytest's scope="session" and the DevTools
# protocol's session words (tests/test_site.py) do not match. A "#" before digits counts
# unless it is a colour (#1f77b4, #fff, "#000", #222;), an HTML entity (&#38;), a Markdown
# anchor ([x](#3-the-round)) or a format spec ({:#10x}).
NARRATION = (
    re.compile(r"\b[Ss]essions? \d"),
    re.compile(r"\b[Ss]ession \d+'s"),
    re.compile(r"\b[Ii]ssues? #?\d"),
    re.compile(r"(?<![\w&/:%{\"'])(?<!\]\()#\d{1,3}\b(?![\w;\"'-])"),
    re.compile(r"\b[Ww]ork periods?\b"),
)
AREAS = {
    "readme-and-docs": ("README.md", "docs"),
    "code": ("solver", "games", "benchmarks", "tests"),
}


def text_files(names: tuple[str, ...]) -> list[Path]:
    """The text files of `names` (files or folders under the root): Markdown only under
    docs/, the TEXT_SUFFIXES elsewhere; outputs/ and caches skipped."""
    found = []
    for name in names:
        path = ROOT / name
        if path.is_file():
            found.append(path)
            continue
        suffixes = {".md"} if name == "docs" else TEXT_SUFFIXES
        for file in sorted(path.rglob("*")):
            parts = set(file.relative_to(ROOT).parts)
            if file.is_file() and file.suffix in suffixes and not parts & SKIPPED_FOLDERS:
                found.append(file)
    return found


def narration(line: str) -> bool:
    return any(pattern.search(line) for pattern in NARRATION)


def narrated_lines(files: list[Path]) -> list[str]:
    """`file:line: text` for every line of `files` that narrates the project's history."""
    found = []
    for file in files:
        data = file.read_bytes()
        if b"\0" in data:
            continue                                    # binary
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if narration(line):
                found.append(f"{file.relative_to(ROOT)}:{number}: {line.strip()[:160]}")
    return found


# Written in pieces so that this file holds no narration of its own.
NARRATED = ["(iss" "ue 25, item 1)", "iss" "ue 19's fresh clone", "Iss" "ue #" "12, a newcomer",
            "before sess" "ion 12: dense", "sess" "ion 16's code", "Sess" "ions 9 and 10",
            "the complaint of #" "23", "(#" "19)", "in a later work" " period"]
NOT_NARRATED = ['@pytest.fixture(scope="session")', 'message["sessionId"] = self.session',
                'self.call("Target.attachToTarget", session=False)', "color: #1f77b4;",
                "color: #222; background: #fff;", 'return "#000" if light else "#fff"',
                "&#38; and &#x26;", "see [the round](#3-the-round) and (#section)",
                'f"{x:#10x}"', "'%#5d' % n", "the session's fixture", "an issue of the LP",
                "pass 2 of 3", "cut #4b"]


def test_the_narration_patterns():
    assert [line for line in NARRATED if not narration(line)] == []
    assert [line for line in NOT_NARRATED if narration(line)] == []


@pytest.mark.parametrize("area", AREAS)
def test_no_history_narration(area):
    """No history told by number in the texts (CHANGELOG.md, the history, is the one place
    for it)."""
    files = text_files(AREAS[area])
    assert len(files) > 10
    found = narrated_lines(files)
    assert not found, (f"{len(found)} lines narrate the project's history; state the fact "
                       f"they carry instead:\n" + "\n".join(found))


# --- no private name imported across modules ---------------------------------------------

PROJECT_PACKAGES = ("solver", "games")


def module_name(root: Path, file: Path) -> str:
    parts = list(file.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def is_module(root: Path, dotted: str) -> bool:
    path = root.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def private_uses(root: Path, file: Path) -> list[tuple[str, int, str]]:
    """(file, line, what) for each private name of another project module that `file` uses:
    `from X import _name` ("from X import _name"), or `X._name` ("X._name") where X is a
    project module bound by an import (`import solver.a.b as X`, `from solver.a import b as
    X`, or `solver.a.b` after `import solver.a.b`) and never assigned in the file."""
    here = module_name(root, file)
    package = here if file.name == "__init__.py" else here.rpartition(".")[0]
    tree = ast.parse(file.read_text(), filename=str(file))
    where = str(file.relative_to(root))
    found: list[tuple[str, int, str]] = []
    bound: dict[str, str] = {}                      # local name -> project module
    roots: set[str] = set()                         # "solver" after `import solver.a.b`

    def project(dotted: str) -> bool:
        return dotted.split(".")[0] in PROJECT_PACKAGES and dotted != here

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([source] if source else []))
            if not project(source):
                continue
            for alias in node.names:
                if is_private(alias.name):
                    found.append((where, node.lineno, f"from {source} import {alias.name}"))
                elif is_module(root, f"{source}.{alias.name}"):
                    bound[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and project(alias.name):
                    bound[alias.asname] = alias.name
                elif not alias.asname and alias.name.split(".")[0] in PROJECT_PACKAGES:
                    roots.add(alias.name.split(".")[0])
    assigned = {node.id for node in ast.walk(tree)
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and is_private(node.attr)):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in bound and owner.id not in assigned:
            found.append((where, node.lineno, f"{bound[owner.id]}.{node.attr}"))
        elif isinstance(owner, (ast.Attribute, ast.Name)):
            dotted = ast.unparse(owner)
            if dotted.split(".")[0] in roots - assigned and project(dotted) \
                    and is_module(root, dotted):
                found.append((where, node.lineno, f"{dotted}.{node.attr}"))
    return found


def python_files(root: Path, folders: tuple[str, ...]) -> list[Path]:
    return [file for folder in folders for file in sorted((root / folder).rglob("*.py"))
            if not set(file.relative_to(root).parts) & SKIPPED_FOLDERS]


def test_the_private_name_check_finds_each_kind_of_use(tmp_path):
    for name, text in {
        "solver/__init__.py": "",
        "solver/a/__init__.py": "",
        "solver/a/b.py": "_helper = 1\nfrom solver.a.b import _helper as _same\n",
        "solver/a/c.py": ("from solver.a.b import _helper\nfrom .b import _helper as h\n"
                          "from solver.a.b import __all__\nfrom os import _exit\n"),
        "solver/d.py": ("import solver.a.b as b\nfrom solver.a import b as bb\nimport solver.a.b\n"
                        "x = b._helper + bb._helper + solver.a.b._helper + b.public\n"),
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = [f"{where}:{line}: {what}" for file in python_files(tmp_path, ("solver",))
             for where, line, what in private_uses(tmp_path, file)]
    assert found == ["solver/a/c.py:1: from solver.a.b import _helper",
                     "solver/a/c.py:2: from solver.a.b import _helper",
                     "solver/d.py:4: solver.a.b._helper", "solver/d.py:4: solver.a.b._helper",
                     "solver/d.py:4: solver.a.b._helper"]
    (tmp_path / "solver/e.py").write_text("solver = make()\nimport solver.a.b as b\n"
                                          "b = 2\nx = solver._cache + b._n\n")
    assert private_uses(tmp_path, tmp_path / "solver/e.py") == []     # not the modules


def test_no_private_name_is_imported_across_modules():
    files = python_files(ROOT, ("solver", "games", "benchmarks"))
    assert len(files) > 100
    found = [f"{where}:{line}: {what}" for file in files
             for where, line, what in private_uses(ROOT, file)]
    assert not found, ("private names used outside their module (make them public, or move "
                       "the code that needs them):\n" + "\n".join(found))


# --- the tests never import the benchmarks ------------------------------------------------

# Calls that load code from a path, or make a folder importable.
LOADERS = {"spec_from_file_location", "SourceFileLoader", "run_path", "import_module",
           "insert", "append", "extend"}


def benchmark_imports(file: Path) -> list[str]:
    """`file:line: what` for each way `file` imports a benchmark: `import benchmarks...`,
    `from benchmarks... import`, `import bench_...` (after putting benchmarks/ on sys.path),
    or, in a file that names benchmarks/, a loader call (`spec_from_file_location`,
    `runpy.run_path`, `sys.path.insert`...)."""
    tree = ast.parse(file.read_text(), filename=str(file))
    names_benchmarks = any(isinstance(node, ast.Constant) and isinstance(node.value, str)
                           and re.search(r"\bbenchmarks\b|\bbench_\w+\.py", node.value)
                           for node in ast.walk(tree))
    found = []
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            modules = [node.module or ""]
        for module in modules:
            if module.split(".")[0] == "benchmarks" or module.startswith("bench_"):
                found.append(f"{file.name}:{node.lineno}: imports {module}")
        if isinstance(node, ast.Call) and names_benchmarks:
            called = node.func.attr if isinstance(node.func, ast.Attribute) else \
                getattr(node.func, "id", "")
            path_change = called in ("insert", "append", "extend") and \
                "sys.path" in ast.unparse(node.func)
            if path_change or called in LOADERS - {"insert", "append", "extend"}:
                found.append(f"{file.name}:{node.lineno}: {ast.unparse(node)[:100]}")
    return found


def test_the_benchmark_import_check_finds_each_kind(tmp_path):
    examples = {
        "from benchmarks.bench_lp import part_peers": 1,
        "import benchmarks.bench_lp as bench": 1,
        "import sys\nsys.path.insert(0, 'benchmarks')\nimport bench_lp": 2,
        ("import importlib.util\npath = ROOT / 'benchmarks' / 'bench_refined.py'\n"
         "spec = importlib.util.spec_from_file_location('bench_refined', path)"): 1,
        "import runpy\nrunpy.run_path('benchmarks/bench_lp.py')": 1,
        "import subprocess\nsubprocess.run(['python', 'benchmarks/bench_lp.py', '--help'])": 0,
        "import importlib\nimportlib.import_module('solver.hand.model')": 0,
    }
    for source, count in examples.items():
        file = tmp_path / "test_example.py"
        file.write_text(source + "\n")
        assert len(benchmark_imports(file)) == count, source


def test_tests_never_import_benchmarks():
    files = sorted((ROOT / "tests").rglob("*.py"))
    assert len(files) > 10
    found = [use for file in files for use in benchmark_imports(file)]
    assert not found, ("tests import benchmarks (run one as a subprocess, or test the "
                       "library code it uses):\n" + "\n".join(found))
