"""Files written by someone else, to break the command that reads them: nested thousands
deep, of the wrong shape, with numbers out of range or strings standing for numbers. Each
is refused in one line with exit 2 (bad input), never a traceback (exit 1, the code for
numbers the solver cannot vouch for); a cached result's certificate is measured again."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from games.bidou_multi.params import MultiParams, ParameterError
from solver.app.cli import main
from solver.common.files import MAX_JSON_DEPTH, strict_json
from solver.multi.situations import SituationCache, Situations, hand_params

# A small multi-hand variant: the default game is answered from its published solution.
SMALL_DICE = ("--faces", "2", "--throws", "1")
SMALL_GAME = (*SMALL_DICE, "--chips", "2")

DEEP = "[" * 100_000 + "]" * 100_000
SMALL = MultiParams(faces=2, throws=1, chips=3)


def one_error_line(result, words: str) -> None:
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("bidou: error:")]
    assert len(errors) == 1 and words in errors[0], result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("text", [DEEP, "[" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000])
def test_the_one_json_reader_refuses_deep_nesting(text):
    words = fr"nested too deeply \(more than {MAX_JSON_DEPTH} levels\)"
    with pytest.raises(ValueError, match=words):
        strict_json(text.encode())
    deep_enough = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert strict_json(deep_enough.encode()) is not None
    assert strict_json(b'{"a": "[[[[[[[[", "b": ["\\"]]]]"]}') == {"a": "[[[[[[[[",
                                                                  "b": ['"]]]]']}


# --- the multi cache ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cached(tmp_path_factory) -> tuple[Path, dict]:
    """A cache holding the solved situation 3-3-3 of SMALL, and that file's document."""
    folder = tmp_path_factory.mktemp("cache")
    situations = Situations(SMALL, 30, cache=SituationCache(folder))
    situations.strategy((3, 3, 3))
    path = SituationCache(folder).path(hand_params(SMALL, 3), (3, 3, 3), situations.settings)
    return path, json.loads(path.read_text())


def _edited(cached, tmp_path: Path, change) -> Situations:
    path, doc = cached
    doc = json.loads(json.dumps(doc))
    written = change(doc)
    target = tmp_path / path.name
    target.write_text(written if isinstance(written, str) else json.dumps(doc))
    return Situations(SMALL, 30, cache=SituationCache(tmp_path))


def _first_label(doc: dict) -> str:
    return next(iter(doc["strategy"]))


def _rename_actions(doc: dict) -> None:
    entry = doc["strategy"][_first_label(doc)]
    entry["actions"] = ["x" + a for a in entry["actions"]]


@pytest.mark.parametrize("change,words", [
    (lambda doc: "[]", "not a JSON object"),
    (lambda doc: DEEP, "nested too deeply"),
    (lambda doc: doc.update(strategy=[]), "strategy is not an object"),
    (lambda doc: doc["strategy"].pop(_first_label(doc)), "is missing or has other actions"),
    (_rename_actions, "is missing or has other actions"),
    (lambda doc: doc["strategy"].update({"\x1b]0;owned\x07": doc["strategy"][_first_label(doc)]}),
     "\\x1b]0;owned\\x07"),
    (lambda doc: doc["strategy"][_first_label(doc)].update(actions="pb"), "no list of actions"),
    (lambda doc: doc["strategy"][_first_label(doc)].update(
        probabilities=[[str(p) for p in row]
                       for row in doc["strategy"][_first_label(doc)]["probabilities"]]),
     "are not numbers"),
    (lambda doc: doc.update(epsilon=-3.0), "epsilon is not a number, 0 or more"),
    (lambda doc: doc.update(method="\x1b[2Jcfr"), "method is not one of"),
    (lambda doc: doc.update(iterations=10**30), "iterations is not"),
    (lambda doc: doc.update(seconds=1e308), "seconds is not"),
])
def test_a_hostile_cache_file_is_one_parameter_error(cached, tmp_path, change, words):
    situations = _edited(cached, tmp_path, change)
    with pytest.raises(ParameterError) as raised:
        situations.strategy((3, 3, 3))
    message = str(raised.value)
    assert words in message and "\n" not in message and "\x1b" not in message


def test_a_cached_situations_epsilon_is_measured_again(cached, tmp_path):
    """An epsilon (or values) edited in the file is not what is reported: the best
    responses to the cached strategy are run again on load."""
    _, doc = cached
    honest = Situations(SMALL, 30, cache=SituationCache(cached[0].parent))
    honest.strategy((3, 3, 3))
    assert honest.loaded == 1 and honest.worst_epsilon() == doc["epsilon"] > 0
    forged = _edited(cached, tmp_path, lambda d: d.update(epsilon=0.0, values=[5, 5, 5]))
    forged.strategy((3, 3, 3))
    assert forged.loaded == 1
    assert forged.worst_epsilon() == pytest.approx(doc["epsilon"], rel=1e-9, abs=1e-12)
    assert forged.solved[(3, 3, 3)].values == pytest.approx(doc["values"], abs=1e-9)


def test_the_command_prints_the_measured_epsilon_not_the_files(tmp_path):
    cache = tmp_path / "cache"
    args = ["multi", *SMALL_GAME, "--iterations", "20", "--simulate", "4", "--cache",
            str(cache)]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    for path in cache.glob("*.json"):
        doc = json.loads(path.read_text())
        doc["epsilon"] = 0.0
        path.write_text(json.dumps(doc))
    second = CliRunner().invoke(main, args)
    assert second.exit_code == 0, second.output
    assert "from the cache" in second.output and "worst certified epsilon 0.00e+00" \
        not in second.output
    worst = [line.rsplit(" ", 1)[1] for line in first.output.splitlines()
             if "worst certified epsilon" in line]
    assert worst and f"worst certified epsilon {worst[0]}" in second.output
    (next(cache.glob("*.json"))).write_text("[]")
    one_error_line(CliRunner().invoke(main, args), "not a JSON object")


# --- --redraw ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def strategy_document(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("solved")
    result = CliRunner().invoke(main, ["multi", *SMALL_GAME, "--iterations", "20", "--out",
                                       str(out)])
    assert result.exit_code == 0, result.output
    return json.loads((out / "multi-strategy.json").read_text())


def _string_one(doc: dict) -> None:
    entry = doc["strategy"][next(iter(doc["strategy"]))]
    hand = next(iter(entry))
    action = max(entry[hand], key=entry[hand].get)
    entry[hand] = {a: ("1" if a == action else 0.0) for a in entry[hand]}


@pytest.mark.parametrize("change,words", [
    (lambda doc: DEEP, "nested too deeply"),
    (lambda doc: "[]", "multi-strategy"),
    (lambda doc: doc.update(strategy=[]), "strategy is not an object"),
    (lambda doc: doc["strategy"].update({k: [] for k in doc["strategy"]}), "is missing"),
    (_string_one, "is not a number from 0 to 1"),
])
def test_a_hostile_redraw_file_is_one_line(strategy_document, tmp_path, change, words):
    doc = json.loads(json.dumps(strategy_document))
    written = change(doc)
    path = tmp_path / "s.json"
    path.write_text(written if isinstance(written, str) else json.dumps(doc))
    one_error_line(CliRunner().invoke(main, ["multi", "--redraw", str(path), "--out",
                                             str(tmp_path / "o")]), words)


# --- checkpoints -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def checkpoint_arrays(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("ck") / "ck.npz"
    result = CliRunner().invoke(main, ["multi", *SMALL_GAME, "--iterations", "20",
                                       "--checkpoint", str(path)])
    assert result.exit_code == 0, result.output
    with np.load(path) as archive:
        return {name: archive[name] for name in archive.files}


@pytest.mark.parametrize("field,value,words", [
    ("iterations", 10**30, "its iterations must be a whole number from 0"),
    ("seconds", 1e308, "its seconds must be a number from 0"),
    (None, DEEP, "nested too deeply"),
])
def test_a_hostile_checkpoint_meta_is_one_line(checkpoint_arrays, tmp_path, field, value, words):
    meta = json.loads(checkpoint_arrays["meta"].tobytes().decode())
    if field is None:
        text = value
    else:
        meta[field] = value
        text = json.dumps(meta)
    path = tmp_path / "edited.npz"
    np.savez(path, **{**checkpoint_arrays, "meta": np.frombuffer(text.encode(), dtype=np.uint8)})
    one_error_line(CliRunner().invoke(main, ["multi", *SMALL_GAME, "--iterations", "40",
                                             "--resume", str(path)]), words)


@pytest.mark.parametrize("field", ["game", "method"])
def test_a_checkpoints_words_reach_the_terminal_escaped(checkpoint_arrays, tmp_path, field):
    meta = json.loads(checkpoint_arrays["meta"].tobytes().decode())
    meta.update({field: "\x1b]0;owned\x07", "rules": {**meta["rules"], "chips": 3}}
                if field == "game" else {field: "\x1b]0;owned\x07"})
    path = tmp_path / "edited.npz"
    np.savez(path, **{**checkpoint_arrays,
                      "meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)})
    result = CliRunner().invoke(main, ["multi", *SMALL_GAME, "--iterations", "40",
                                       "--resume", str(path)])
    one_error_line(result, "is a checkpoint of '\\x1b]0;owned\\x07'")
    assert "\x1b" not in result.output


# --- exploit --at ------------------------------------------------------------------------------

def test_a_deeply_nested_situations_file_is_one_line(tmp_path):
    listed = tmp_path / "at.json"
    listed.write_text(DEEP)
    result = CliRunner().invoke(main, ["exploit", "--faces", "3", "--throws", "2",
                                       "--max-level", "2", "--lock", "opponent", "--profile",
                                       "never-bluffs", "--at", str(listed)])
    one_error_line(result, "nested too deeply")


# --- the saved round -----------------------------------------------------------------------------

ROUND_ARGS = ("round", "--chips", "4", "--faces", "2", "--throws", "2", "--max-level", "2")


def _round_rules():
    from games.bidou.params import BidouParams
    from games.bidou.round_params import RoundParams

    return RoundParams(chips=4, hand=BidouParams(faces=2, throws=2, max_level=2))


@pytest.fixture(scope="module")
def saved_round(tmp_path_factory) -> tuple[dict, Path]:
    """The small round saved by `bidou round` in a cache folder: (its environment, the
    saved round's path)."""
    from solver.round import store

    folder = tmp_path_factory.mktemp("round-cache")
    env = {"XDG_CACHE_HOME": str(folder)}
    result = CliRunner().invoke(main, list(ROUND_ARGS), env=env)
    assert result.exit_code == 0, result.output
    return env, store.cache_path(_round_rules(), env)


def _forged(path: Path, change) -> None:
    """Edit a saved round and give it the checksum of its new body, as anyone can."""
    import hashlib

    document = json.loads(path.read_text())
    change(document)
    body = {k: v for k, v in document.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    document["checksum"] = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    path.write_text(json.dumps(document))


def _state(document: dict, label: str = "0,2,2") -> dict:
    return next(s for s in document["report"]["states"]
                if f"{s['centre']},{s['captain']},{s['opponent']}" == label)


def _advice(document: dict) -> dict:
    return next(a for a in document["advice"].values() if not a.get("open_throw")
                and a["changes"])


@pytest.mark.parametrize("change,words", [
    (lambda d: _state(d).update(value=1.7), "value is 1.7, not a probability"),
    (lambda d: _state(d).update(lower="1.5", upper="abc"), "upper is not a decimal number"),
    (lambda d: _state(d).update(value=0.2, lower="0.5"), "lower <= value <= upper"),
    (lambda d: _state(d).update(exploitability=-3.0), "exploitability is -3.0, below 0"),
    (lambda d: _state(d).update(p_end=42.0), "p_end is 42.0, not a probability"),
    (lambda d: _state(d).update(captain=True), "captain is not a whole number"),
    (lambda d: _advice(d).update(concedes="lots"), "concedes is not a number: 'lots'"),
    (lambda d: _advice(d)["changes"][0].update(where="\x1b]0;owned\x07here"),
     "holds a control character: '\\x1b]0;owned\\x07here'"),
    (lambda d: _advice(d)["changes"][0].update(here="call\nvalue:          0.99"),
     "holds a control character"),
    (lambda d: _advice(d).update(changes="none"), "changes is not a list"),
    (lambda d: d["report"].update(start_value=1.2), "start_value is 1.2, not a probability"),
])
def test_a_forged_saved_round_is_refused_whatever_its_checksum(saved_round, tmp_path, change,
                                                               words):
    """The checksum is recomputed after the edit, as anyone could: the file is still refused,
    in one line, by the check of its numbers and words."""
    from solver.round import store

    path = tmp_path / store.FILE_NAME
    path.write_bytes(saved_round[1].read_bytes())
    _forged(path, change)
    with pytest.raises(store.SavedRoundError) as raised:
        store.load(path, _round_rules())
    message = str(raised.value)
    assert words in message and "malformed" in message, message
    assert "\n" not in message and "\x1b" not in message and "\x07" not in message


@pytest.mark.slow
def test_a_forged_saved_round_is_never_printed(saved_round, tmp_path):
    """`round --state` names the forged file (one note line, escapes shown escaped), solves
    again and prints the numbers proved now: no forged value, no escape sequence."""
    import shutil

    env, path = saved_round
    cache = tmp_path / "cache"
    shutil.copytree(Path(env["XDG_CACHE_HOME"]), cache)
    forged = cache / path.relative_to(env["XDG_CACHE_HOME"])
    honest = _state(json.loads(path.read_text()))
    _forged(forged, lambda d: _advice(d).update(concedes="lots"))
    result = CliRunner().invoke(main, [*ROUND_ARGS, "--state", "0,2,2"],
                                                env={"XDG_CACHE_HOME": str(cache)})
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    notes = [line for line in result.stderr.splitlines() if line.startswith("bidou: note:")]
    assert len(notes) == 1 and "concedes is not a number: 'lots'" in notes[0], result.stderr
    assert f"value:          {honest['value']:.12f}" in result.stdout
    _forged(forged, lambda d: _advice(d)["changes"][0].update(where="\x1b]0;owned\x07"))
    result = CliRunner().invoke(main, [*ROUND_ARGS, "--state", "0,2,2"],
                                                env={"XDG_CACHE_HOME": str(cache)})
    assert result.exit_code == 0 and "\x1b" not in result.output
    assert "\\x1b]0;owned\\x07" in result.stderr


@pytest.mark.slow
def test_a_saved_state_says_it_was_proved_when_saved_and_verify_proves_it_again(saved_round,
                                                                                tmp_path):
    """An answer read from a file says so; --verify solves and proves the round again and
    names a saved round whose interval the proof now refutes (consistent numbers, recomputed
    checksum: nothing but a proof can tell)."""
    import shutil

    env, path = saved_round
    cache = tmp_path / "cache"
    shutil.copytree(Path(env["XDG_CACHE_HOME"]), cache)
    forged = cache / path.relative_to(env["XDG_CACHE_HOME"])
    honest = _state(json.loads(path.read_text()))
    lie = min(honest["value"] + 0.25, 0.999) if honest["value"] < 0.5 else honest["value"] - 0.25

    def shift(document: dict) -> None:
        _state(document).update(value=lie, lower=f"{lie - 1e-9:.12f}", upper=f"{lie + 1e-9:.12f}")
    _forged(forged, shift)
    args = [*ROUND_ARGS, "--state", "0,2,2"]
    trusted = CliRunner().invoke(main, args, env={"XDG_CACHE_HOME": str(cache)})
    assert trusted.exit_code == 0, trusted.output
    assert f"read from {forged}, proved when saved (--verify proves it again)" in trusted.output
    checked = CliRunner().invoke(main, [*args, "--verify"],
                                                 env={"XDG_CACHE_HOME": str(cache)})
    assert checked.exit_code == 0, checked.output
    assert f"value:          {honest['value']:.12f}" in checked.stdout
    assert f"solved and proved now (--verify); {forged} disagrees" in checked.stdout
    notes = [line for line in checked.stderr.splitlines() if line.startswith("bidou: note:")]
    assert len(notes) == 1 and "refutes" in notes[0], checked.stderr
    again = CliRunner().invoke(main, [*args, "--verify"],
                                               env={"XDG_CACHE_HOME": str(cache)})
    assert f"{forged} agrees" in again.stdout and "note" not in again.stderr
    bad = CliRunner().invoke(main, [*ROUND_ARGS, "--verify"], env={"XDG_CACHE_HOME": str(cache)})
    one_error_line(bad, "--verify goes with --state")
