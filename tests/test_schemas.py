"""The JSON Schemas of solver/schemas: well-formed, shipped with the package, in
step with the code's constants; every file the project writes validates; broken files are
refused in one line naming the JSON path; the fast validator agrees with a plain one."""

from __future__ import annotations

import copy
import json
import re
import tomllib
from pathlib import Path
from typing import Any, Iterator

import jsonschema
import pytest
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from test_reliability import one_error_line, run  # the same CLI runner and error check

from games.bidou.params import MAX_LEVEL_LIMIT
from solver import schemas
from solver.hand import strategy
from solver.pipeline import bidou_sweep, round_cheatsheet
from solver.pipeline.bidou_sweep import SWEEP
from solver.round import report as round_report
from solver.schemas import SchemaViolation, validate

ROOT = Path(__file__).resolve().parents[1]
OUTPUTS = ROOT / "outputs"
TINY = ("--faces", "2", "--throws", "2", "--max-level", "1")


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _walk(node: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    """Every subschema with its place in the schema file."""
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            if key not in ("const", "enum"):
                yield from _walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{where}/{i}")


# --- the schemas themselves ---------------------------------------------------------------

@pytest.mark.parametrize("name", schemas.NAMES)
def test_each_schema_is_draft_2020_12_with_id_title_and_described_fields(name):
    document = schemas.schema(name)
    jsonschema.Draft202012Validator.check_schema(document)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert document["$id"] == schemas.ID_PREFIX + name
    assert document["title"] and len(document["description"]) > 80
    for where, node in _walk(document):
        for field, sub in node.get("properties", {}).items():
            target = sub
            if "description" not in sub and "$ref" in sub:       # described where it is defined
                target, _ = schemas._resolve(sub["$ref"], name)
            assert target.get("description"), f"{name}{where}/properties/{field}"


def test_the_schemas_are_package_data():
    """What `pip install` ships: every schema file beside solver/schemas/__init__.py, and the
    package-data entry that puts it in a wheel."""
    folder = Path(schemas.__file__).parent
    assert sorted(p.name for p in folder.glob("*.schema.json")) == sorted(
        f"{name}.schema.json" for name in schemas.NAMES)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["tool"]["setuptools"]["package-data"]["solver.schemas"] == ["*.schema.json"]
    assert any(d.startswith("jsonschema") for d in project["project"]["dependencies"])


def test_the_schemas_state_the_code_s_numbers():
    common, strat = schemas.schema("common")["$defs"], schemas.schema("strategy")
    probability = common["probability"]
    assert probability["minimum"] == -strategy.TOLERANCE
    assert probability["maximum"] == 1 + strategy.TOLERANCE
    digits = strategy.MAX_EXACT_DIGITS
    assert common["exact_probability"]["pattern"] == f"^[0-9]{{1,{digits}}}(/[0-9]{{1,{digits}}})?$"
    assert strat["properties"]["schema"]["const"] == strategy.SCHEMA
    assert strat["properties"]["schema_version"]["enum"] == list(strategy.READABLE_VERSIONS)
    assert strat["x-writes-version"] == strategy.SCHEMA_VERSION
    assert schemas.schema("exact-strategy")["x-writes-version"] == strategy.SCHEMA_VERSION
    rnd = schemas.schema("round")
    assert rnd["properties"]["schema"]["const"] == round_report.SCHEMA
    assert rnd["properties"]["schema_version"]["const"] == round_report.SCHEMA_VERSION
    assert rnd["x-writes-version"] == round_report.SCHEMA_VERSION
    assert common["rules"]["properties"]["max_level"]["maximum"] == MAX_LEVEL_LIMIT
    assert tuple(schemas.schema("sweep-row")["properties"]) == SWEEP.columns   # CSV order
    sheet = schemas.schema("round-cheatsheet")
    assert sheet["properties"]["schema"]["const"] == round_cheatsheet.SCHEMA
    assert sheet["properties"]["schema_version"]["const"] == round_cheatsheet.SCHEMA_VERSION
    assert sheet["x-writes-version"] == round_cheatsheet.SCHEMA_VERSION
    assert sheet["properties"]["chip_rules"]["maxItems"] == round_cheatsheet.MAX_RULES


# --- every file the project writes validates ----------------------------------------------

@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, Path]:
    """`bidou solve --plain --out` (the refined default is always exact), `solve --exact
    --out` and `round --out` on small variants."""
    folder = tmp_path_factory.mktemp("written")
    files = {"strategy": folder / "s.json", "exact-strategy": folder / "e.json",
             "round": folder / "r.json"}
    for args in (("solve", *TINY, "--plain", "--out", files["strategy"]),
                 ("solve", *TINY, "--exact", "--out", files["exact-strategy"]),
                 ("round", "--chips", "4", "--faces", "2", "--throws", "1", "--max-level",
                  "1", "--out", files["round"])):
        result = run(*args)
        assert result.exit_code == 0, result.output
    return files


@pytest.mark.parametrize("name", ["strategy", "exact-strategy", "round"])
def test_what_solve_and_round_write_validates(written, name):
    document = _load(written[name])
    validate(document, name)
    if name == "strategy":                   # no exact section: not an exact strategy file
        with pytest.raises(SchemaViolation, match="^/: the key 'exact' is missing"):
            validate(document, "exact-strategy")


def test_round_json_of_one_state_validates_as_a_state():
    result = run("round", "--chips", "4", "--faces", "2", "--throws", "1", "--max-level", "1",
                 "--state", "0,2,2", "--json")
    assert result.exit_code == 0, result.output
    state = json.loads(result.output[result.output.index("{"):])
    validate(state, "round", "/$defs/state")
    assert (state["centre"], state["captain"], state["opponent"]) == (0, 2, 2)


def test_the_round_cheatsheet_json_validates(tmp_path):
    """`bidou round --cheatsheet --json` on a small round (solved first, into the suite's
    cache): the document validates, and a cost that is no fraction is refused naming it."""
    result = run("round", "--chips", "3", "--faces", "2", "--throws", "2", "--max-level", "1",
                 "--cheatsheet", "--base", "equilibrium", "--out", tmp_path / "sheet", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output[result.output.index("{"):])
    validate(document, "round-cheatsheet")
    assert len(document["chip_rule_list"]) == len(document["chip_rules"]) >= 1
    assert [c["name"] for c in document["costs"]][0] == "the round cheat sheet"
    broken = copy.deepcopy(document)
    broken["costs"][0]["best_reply_upper"] = "0.0103"
    with pytest.raises(SchemaViolation, match="^/costs/0/best_reply_upper: "):
        validate(broken, "round-cheatsheet")


PUBLISHED = [(path, name) for pattern, name in (
    ("[!l]*/strategy.json", "exact-strategy"), ("le-bidou/strategy.json", "strategy"),
    ("*/simplified_strategy.json", "strategy"),
    ("[!l]*/cheatsheet_strategy.json", "cheatsheet-strategy"),
    # Le Bidou's stakes cheat sheet states stakes rules, not one-chip ones: a strategy file
    # whose result is its own (solver/pipeline/stakes_cheatsheet.py)
    ("le-bidou/cheatsheet_strategy.json", "strategy"),
    ("cheatsheet-front/*.json", "cheatsheet-strategy"), ("*/summary.json", "summary"),
    ("round*/round.json", "round"), ("le-bidou/manche.json", "manche"),
    ("bidu/bidu-solution.json", "bidu-solution"),
    ("montevideo/heads-up.json", "montevideo-heads-up"))
    for path in sorted(OUTPUTS.glob(pattern))]


def test_every_kind_of_published_file_is_checked():
    kinds = {name for _, name in PUBLISHED}
    assert kinds == {"exact-strategy", "strategy", "cheatsheet-strategy", "summary", "round",
                     "manche", "bidu-solution", "montevideo-heads-up"}
    # three variants' four strategy files, the fronts' 25 books (the top-down merges skip
    # some sizes), two rounds: a floor, so that a glob matching nothing fails
    assert len(PUBLISHED) >= 3 * 4 + 25 + 2


@pytest.mark.parametrize("path, name", PUBLISHED, ids=[str(p.relative_to(OUTPUTS))
                                                       for p, _ in PUBLISHED])
def test_every_published_file_validates(path, name):
    validate(_load(path), name)
    if name == "cheatsheet-strategy":        # a cheat sheet is a strategy file too
        validate(_load(path), "strategy")


def test_the_sweep_rows_validate():
    """Every row of the published sweep table (as the table's reader parses it), and a
    row a worker returns."""
    rows = SWEEP.read_rows(ROOT / "docs" / "data")
    assert len(rows) > 20
    for row in rows:
        validate(row, "sweep-row")
    fresh = bidou_sweep.solve_row({"faces": 2, "throws": 1, "max_level": 1}, exact=True)
    validate(fresh, "sweep-row")
    assert fresh["exact"] == "-3/40"
    with pytest.raises(SchemaViolation, match="^/exact: must be an exact fraction"):
        validate({**fresh, "exact": "-0.075"}, "sweep-row")


# --- broken files: one line naming the path -----------------------------------------------

BROKEN = [
    (lambda d: d["throw"]["captain"][0].__setitem__(1, 1.0),
     "/throw/captain/0/1: must be a list of probabilities, one per hand"),
    (lambda d: d["throw"]["captain"][0][0].__setitem__(2, [1.0, 0.0]),
     "/throw/captain/0/0/2: must be a probability: a number from 0 to 1, got [1.0, 0.0]"),
    (lambda d: d["betting"][3]["probabilities"][1].__setitem__(0, 1.5),
     "/betting/3/probabilities/1/0: must be a probability: a number from 0 to 1, got 1.5"),
    (lambda d: d["betting"][2].__setitem__("history", "pc"),
     "/betting/2/history: must be a betting history"),
    (lambda d: d["betting"][0].pop("actions"), "/betting/0: the key 'actions' is missing"),
    (lambda d: d["betting"][0].__setitem__("action", ["pass"]),
     "/betting/0: unknown key 'action'"),
    (lambda d: d["rules"].__setitem__("reroll", "some"),
     "/rules/reroll: must be \"all\" or \"keep\", got \"some\""),
    (lambda d: d["hands"].__setitem__(0, "2-2"), "/hands/0: must be a hand such as \"6-3-1\""),
    (lambda d: d["result"].__setitem__("certified_value", {"lower": 0.1, "upper": "1/2"}),
     "/result/certified_value/lower: must be an exact fraction"),
    # past the schema, the rules: each still names its path
    (lambda d: d["throw"]["captain"][0][1].pop(), "/throw/captain/0/1: 3 entries, expected 4 "
                                                  "(one per hand"),
    (lambda d: d["hands"].__setitem__(0, "1-1-1"),
     "/hands/0: must be '2-2-2' (the rules' hands in order: 2-2-2, 2-2-1, 2-1-1, 1-1-1)"),
    (lambda d: d["betting"].pop(), "/betting: no entry for the decision point"),
    (lambda d: d["betting"][0]["probabilities"][0].__setitem__(0, 0.25),
     "/betting/0/probabilities: probabilities do not sum to 1 over the actions for hand 2-2-2"),
]


@pytest.mark.parametrize("change, words", BROKEN, ids=[w.split(":")[0] for _, w in BROKEN])
def test_a_broken_strategy_file_is_refused_naming_the_path(written, tmp_path, change, words):
    document = _load(written["strategy"])
    change(document)
    path = tmp_path / "strategy.json"
    path.write_text(json.dumps(document))
    one_error_line(run("evaluate", "--strategy", path), f"{path}: {words}")


def test_a_broken_exact_section_is_refused_naming_the_path(written, tmp_path):
    document = _load(written["exact-strategy"])
    document["exact"]["throw"]["opponent"][1][0][0][2] = 0.5
    path = tmp_path / "e.json"
    path.write_text(json.dumps(document))
    one_error_line(run("evaluate", "--strategy", path),
                   "/exact/throw/opponent/1/0/0/2: must be an exact probability, a string "
                   "\"p/q\" of digits such as \"3/8\", got 0.5")


def test_the_round_schema_names_the_path():
    document = _load(OUTPUTS / "round" / "round.json")
    document["states"][4]["p_end"] = "1"
    with pytest.raises(SchemaViolation, match=r"^/states/4/p_end: must be a number from 0 to 1"):
        validate(document, "round")


# --- the fast validator is the schema's verdict -------------------------------------------

def _plain_validator(name: str) -> Any:
    """The shipped schema as any outside tool validates it: jsonschema with a registry of
    the schema files by their $id, no inlining, no fast path."""
    registry: Any = Registry().with_resources(
        (schemas.ID_PREFIX + other, Resource.from_contents(schemas.schema(other)))
        for other in schemas.NAMES)
    return jsonschema.Draft202012Validator(schemas.schema(name), registry=registry)


@pytest.mark.parametrize("change, words", BROKEN[:9] + [(lambda d: None, None)])
def test_the_plain_validator_agrees(written, change, words):
    """The same verdict, and the same entry named, as the plain validator's best match."""
    document = _load(written["strategy"])
    change(document)
    plain = best_match(_plain_validator("strategy").iter_errors(document))
    if plain is None:
        validate(document, "strategy")
        assert words is None
    else:
        with pytest.raises(SchemaViolation) as refused:
            validate(document, "strategy")
        assert refused.value.pointer == schemas.json_pointer(plain.absolute_path)
        assert str(refused.value).startswith(words)


def test_the_plain_validator_accepts_a_published_exact_file():
    document = _load(OUTPUTS / "default" / "strategy.json")
    assert _plain_validator("exact-strategy").is_valid(document)
    broken = copy.deepcopy(document)
    broken["exact"]["betting"][7]["probabilities"][0][3] = "-1/2"
    assert not _plain_validator("exact-strategy").is_valid(broken)
    with pytest.raises(SchemaViolation, match="^/exact/betting/7/probabilities/0/3: "):
        validate(broken, "exact-strategy")


# --- docs/strategy-file.md: the example, measured; the refusals it shows ------------------

EXAMPLE = ROOT / "docs" / "examples" / "tiny-strategy.json"
STRATEGY_DOC = ROOT / "docs" / "strategy-file.md"


def test_the_documented_example_is_measured_as_the_doc_says():
    """`bidou evaluate` on the hand-written example prints the doc's lines; its numbers are
    dyadic, and the proved bounds are the pair value minus and plus each side's
    exploitability, around the game's exact value -15/512."""
    from fractions import Fraction

    document = _load(EXAMPLE)
    validate(document, "strategy")
    result = run("evaluate", "--strategy", EXAMPLE)
    assert result.exit_code == 0, result.output
    doc = STRATEGY_DOC.read_text()
    for line in result.output.splitlines():
        assert line in doc, line
    assert "exploitability: 1.320e-01" in result.output
    report = json.loads(run("evaluate", "--strategy", EXAMPLE, "--json").output)
    pair = Fraction(report["on_policy_value"])
    assert pair == Fraction(-39, 4096)
    assert Fraction(report["captain_exploitability"]) == Fraction(609, 4096)
    assert Fraction(report["opponent_exploitability"]) == Fraction(472, 4096)
    lower, upper = (Fraction(report["certified_value"][k]) for k in ("lower", "upper"))
    assert lower == pair - Fraction(609, 4096) == Fraction(-81, 512)
    assert upper == pair + Fraction(472, 4096) == Fraction(433, 4096)
    assert lower < Fraction(-15, 512) < upper


DOCUMENTED_REFUSALS = [
    (lambda d: d["throw"]["captain"][0].__setitem__(1, 1.0),
     "/throw/captain/0/1: must be a list of probabilities, one per hand (numbers from 0 to 1, "
     "in the order of \"hands\"), got 1.0"),
    (lambda d: d["betting"][3]["probabilities"][1].__setitem__(0, 1.5),
     "/betting/3/probabilities/1/0: must be a probability: a number from 0 to 1, got 1.5"),
    (lambda d: d["throw"]["captain"][0][1].pop(),
     "/throw/captain/0/1: 3 entries, expected 4 (one per hand, in the order of \"hands\")"),
    (lambda d: d["betting"][0]["probabilities"][0].__setitem__(0, 0.25),
     "/betting/0/probabilities: probabilities do not sum to 1 over the actions for hand "
     "2-2-2 (off by 2.5e-01; at most 1e-09 is allowed)"),
]


@pytest.mark.parametrize("change, line", DOCUMENTED_REFUSALS)
def test_the_documented_refusals_are_what_evaluate_prints(tmp_path, change, line):
    document = _load(EXAMPLE)
    change(document)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(document))
    result = run("evaluate", "--strategy", path)
    one_error_line(result, f"bidou: error: {path}: {line}")
    assert f"bidou: error: s.json: {line}" in STRATEGY_DOC.read_text()


# --- no stale text: no pointer outside the repository, no unbacked timing ------------------

def test_the_docs_point_at_nothing_outside_the_repository():
    """The source texts and RULES.md live outside the repository: the docs name the source
    files (docs/rules.md, "Sources") but send no reader to a folder that is not there."""
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        assert "RULES.md" not in text, page
        assert "shared/seeds" not in text or "not in this\nrepository" in text, page


def test_no_help_text_types_a_timing():
    """Timings come from the record (README.md, "How long things take"), not from help
    texts, where one machine's figure would be read as a promise."""
    from solver.app.cli import COMMANDS

    timing = re.compile(r"\b\d+(?:[.,]\d+)?\s?(?:ms|s|sec|seconds?|min|minutes?|h|hours?)\b")
    for name in (command.name for command in COMMANDS):
        assert name is not None
        result = run(name, "--help")
        assert result.exit_code == 0, name
        found = timing.findall(" ".join(result.output.split()))
        assert not found, f"bidou {name} --help types timings: {found}"


def test_the_summary_reader_validates(tmp_path):
    """docs/charts.md's generated passages read outputs/default/summary.json: against its
    schema first, naming the path of a broken entry."""
    import shutil

    from games.bidou.params import ParameterError
    from solver.app.docs import passages

    folder = tmp_path / "default"
    folder.mkdir()
    for name in ("summary.json", "betting.csv"):
        shutil.copy(OUTPUTS / "default" / name, folder / name)
    assert set(passages(tmp_path)) == {"reading", "costs"}
    summary = _load(folder / "summary.json")
    summary["simplified"]["throw_rules"][2]["player"] = "dealer"
    (folder / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(ParameterError, match=r"summary.json: /simplified/throw_rules/2/player: "
                                             r"must be \"captain\" or \"opponent\""):
        passages(tmp_path)


def test_no_unmeasured_time_is_left_in_the_help():
    """Times that no command backed: outputs 'about 100 s' (4.5 min measured with
    the refined hands), results '~1-2 minutes' (15 min measured), export 'about 25 s' (32 s)."""
    stale = {"outputs": "about 100 s", "results": "1-2 minutes", "export": "About 25 s"}
    # outputs: 4.5 min until the round cheat sheets joined it (907 s measured since)
    assert "4.5 min" not in run("outputs", "--help").output
    for command, phrase in stale.items():
        result = run(command, "--help")
        assert result.exit_code == 0
        assert phrase.lower() not in " ".join(result.output.split()).lower(), command
