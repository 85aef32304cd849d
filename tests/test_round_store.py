"""A solved round kept on disk (solver/round/store.py) and `bidou round --state` reading it:
the saved numbers are the full solve's, a query of a saved round solves nothing, and a
stale, corrupt or hand-edited file is refused with one line and solved again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from solver.app.cli import main
from solver.round import store

ROOT = Path(__file__).resolve().parent.parent / "outputs"
SMALL = RoundParams(chips=4, hand=BidouParams(faces=2, throws=2, max_level=2))
SMALL_ARGS = ("--chips", "4", "--faces", "2", "--throws", "2", "--max-level", "2")


def run(env: dict, *args: str):
    return CliRunner().invoke(main, list(args), env=env)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A private cache folder holding the small round, saved by `bidou round`."""
    folder = tmp_path_factory.mktemp("cache")
    env = {"XDG_CACHE_HOME": str(folder)}
    result = run(env, "round", *SMALL_ARGS)
    assert result.exit_code == 0, result.output
    path = store.cache_path(SMALL, env)
    assert f"saved:          {path}" in result.output and path.is_file()
    return env, path


@pytest.fixture(scope="module")
def full():
    """The small round solved and proved afresh (the numbers the saved file must match)."""
    from solver.pipeline.round import prove_round

    return prove_round(SMALL, timed=False)


def test_cache_folder_follows_xdg(tmp_path):
    assert store.cache_folder({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "bidou-solver"
    # a relative XDG_CACHE_HOME is ignored, as the XDG specification says
    assert store.cache_folder({"XDG_CACHE_HOME": "rel"}).parts[-2:] == (".cache",
                                                                       "bidou-solver")
    keep = RoundParams(hand=BidouParams(reroll="keep"))
    assert store.rules_key(keep) != store.rules_key(RoundParams())
    assert store.rules_key(RoundParams()) == store.rules_key(RoundParams(chips=9))


def test_saved_round_matches_the_full_solve(cache, full):
    env, path = cache
    saved = store.load(path, SMALL)
    states = full.report["states"]
    assert len(saved.report["states"]) == len(states) > 5
    for ours, theirs in zip(saved.report["states"], states):
        for key in ("centre", "captain", "opponent", "open_throw", "lower", "upper"):
            assert ours[key] == theirs[key]
        assert ours["value"] == pytest.approx(theirs["value"], abs=1e-12)
    # every chip state's strategy is the solve's, to the last bit
    from solver.round.advice import strategy_from_json

    for state, stage in full.solution.stages.items():
        kept = strategy_from_json(saved.stages()[state.label()], stage.model)
        for ours_t, theirs_t in zip(kept.throw, stage.strategy.throw):
            assert (ours_t == theirs_t).all()
        assert kept.betting.keys() == stage.strategy.betting.keys()
        assert all((kept.betting[k] == stage.strategy.betting[k]).all()
                   for k in kept.betting)


def test_state_query_reads_the_saved_round(cache, full, monkeypatch):
    """The query prints the full solve's numbers for the state and solves nothing (the
    round's solver is made to fail: the query must not reach it)."""
    env, path = cache
    import solver.pipeline.round as pipeline

    monkeypatch.setattr(pipeline, "prove_round", lambda *a, **k: pytest.fail("solved"))
    entry = next(s for s in full.report["states"]
                 if not s["open_throw"] and s["centre"] == 0)
    text = f"{entry['centre']},{entry['captain']},{entry['opponent']}"
    result = run(env, "round", *SMALL_ARGS, "--state", text)
    assert result.exit_code == 0, result.output
    assert f"value:          {entry['value']:.12f}" in result.output
    assert f"{entry['lower']} <= value <= {entry['upper']}" in result.output
    assert f"solved:         read from {path}" in result.output
    assert "playing the hand game's equilibrium here would concede" in result.output
    shown = json.loads(run(env, "round", *SMALL_ARGS, "--state", text, "--json").output)
    assert shown["value"] == pytest.approx(entry["value"], abs=1e-12)
    assert shown["upper"] == entry["upper"] and shown["rules"] == SMALL.to_dict()
    assert shown["strategy"]["betting"] and shown["advice"]["changes"] is not None


def test_advice_agrees_with_the_difference_of_the_full_solve(cache, full):
    """What the saved advice says playing the hand game costs at a state is what
    `compare.difference` finds on the full solve's stage (the charts' sentence)."""
    from solver.pipeline.hand import solve_hand
    from solver.round.compare import difference

    env, path = cache
    saved = store.load(path, SMALL)
    hand = solve_hand(SMALL.hand).solution
    for state, stage in list(full.solution.stages.items())[:4]:
        said = difference(stage.model, stage.strategy, hand.model, hand.strategy)
        advice = saved.advice[state.label()]
        assert advice["concedes"] == pytest.approx(said.concedes, abs=1e-12)
        assert advice["differ"] == pytest.approx(said.differ, abs=1e-12)
        for change in advice["changes"]:
            assert change["here"] != change["hand_game"] and change["hands"]
            assert 0 < change["weight"] <= 1 + 1e-9


def _copy(env: dict, path, tmp_path, edit) -> dict:
    """A copy of the saved round in another cache folder, edited by `edit(text)`."""
    other = {"XDG_CACHE_HOME": str(tmp_path)}
    target = store.cache_path(SMALL, other)
    target.parent.mkdir(parents=True)
    target.write_text(edit(path.read_text()))
    store.strategies_path(target).write_bytes(store.strategies_path(path).read_bytes())
    return other


@pytest.mark.parametrize("edit, why", [
    (lambda t: t.replace('"value":', '"value": 0.25, "was":', 1), "fails its checksum"),
    (lambda t: t[: len(t) // 2], "not valid JSON"),
    (lambda t: t.replace('"schema_version":1', '"schema_version":99', 1), "schema version"),
])
@pytest.mark.slow
def test_a_damaged_saved_round_is_refused_and_solved_again(cache, tmp_path, edit, why):
    env, path = cache
    other = _copy(env, path, tmp_path, edit)
    result = CliRunner().invoke(main, ["round", *SMALL_ARGS, "--state", "0,2,2"],
                                env=other)
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("bidou: note:")]
    assert len(notes) == 1 and why in notes[0]
    assert "solved now and saved to" in result.output
    # solved again, the file is whole again: the next query reads it
    again = CliRunner().invoke(main, ["round", *SMALL_ARGS, "--state", "0,2,2"], env=other)
    assert "read from" in again.output and "note" not in again.output


@pytest.mark.slow
def test_a_damaged_strategies_file_is_refused_when_read(cache, tmp_path):
    """The strategies, in their own file, are checked against the SHA-256 the round
    records when a query needs them (--json, --charts): an edited one is refused and the
    round solved again; a plain query does not read them."""
    env, path = cache
    other = _copy(env, path, tmp_path, lambda t: t)
    target = store.strategies_path(store.cache_path(SMALL, other))
    target.write_text(store.strategies_path(path).read_text().replace("0.5", "0.50", 1))
    plain = run(other, "round", *SMALL_ARGS, "--state", "0,2,2")
    assert "read from" in plain.output and "note" not in plain.output
    result = run(other, "round", *SMALL_ARGS, "--state", "0,2,2", "--json")
    assert result.exit_code == 0
    note = result.output.splitlines()[0]
    assert note.startswith("bidou: note:") and "is not the file saved with" in note


@pytest.mark.slow
def test_a_round_whose_advice_fails_is_still_answered(tmp_path, monkeypatch):
    """The round is proved even if the hand game's equilibrium (for the advice) is not:
    the state is answered, with a note that nothing was saved, and exit 0."""
    import solver.pipeline.round as pipeline
    from solver.common.errors import SolverError

    def fail(*args, **kwargs):
        raise SolverError("the hand could not be proved")

    monkeypatch.setattr(pipeline, "saved_round", fail)
    result = run({"XDG_CACHE_HOME": str(tmp_path)}, "round", *SMALL_ARGS, "--state", "0,2,2")
    assert result.exit_code == 0, result.output
    assert "bidou: note: the solved round was not saved: the hand could not" in result.output
    assert "advice:         none" in result.output and "solved:         solved now\n" \
        in result.output
    assert not (tmp_path / "bidou-solver").exists()


def test_a_saved_round_of_other_rules_is_refused(cache, tmp_path):
    """A file solved for other rules (renamed, or a hash collision) is never read as
    these: its rules are checked, with a valid checksum."""
    env, path = cache
    document = json.loads(path.read_text())
    document["rules"]["ranking"] = "french"
    body = {k: v for k, v in document.items() if k != "checksum"}
    document["checksum"] = store._checksum(body)
    target = tmp_path / "other.json"
    target.write_text(json.dumps(document))
    with pytest.raises(store.SavedRoundError, match="other rules"):
        store.load(target, SMALL)


@pytest.mark.parametrize("state, words", [("4,1,0", "add up to 5"),
                                          ("0,4,0", "round is over")])
def test_bad_states_are_refused_before_solving(tmp_path, monkeypatch, state, words):
    """With no saved round, a bad --state is one line and exit 2, and nothing is solved."""
    import solver.pipeline.round as pipeline

    monkeypatch.setattr(pipeline, "prove_round", lambda *a, **k: pytest.fail("solved"))
    result = run({"XDG_CACHE_HOME": str(tmp_path)}, "round", *SMALL_ARGS, "--state", state)
    assert result.exit_code == 2 and words in result.output
    assert not (tmp_path / "bidou-solver").exists()


def test_an_open_throw_state_says_when_to_stop(cache, full):
    """At an open throw the advice is its policies in words, the solve's own (the ones
    the certificate proved), the same as the open-throw table's."""
    from solver.round.open_throw_table import first_rows

    env, _ = cache
    state, opened = next(iter(full.solution.open_throws.items()))
    text = f"{state.centre},{state.low},{state.high}"
    result = run(env, "round", *SMALL_ARGS, "--state", text)
    assert result.exit_code == 0, result.output
    assert "an open throw, no betting" in result.output
    for row in first_rows(SMALL, opened.solved):
        assert (f"first thrower, after throw {row['after_throw']}: stop with "
                f"{row['stop_with']}; else {row['else']}") in result.output
    assert "second thrower: stop as soon as ahead, throw again while behind\n" \
        in result.output


def test_the_query_imports_no_solver(cache):
    """A query of a saved round reads JSON: the whole command loads neither Dask, pyspiel,
    matplotlib, scipy, highspy nor networkx (a fresh interpreter runs it, then lists)."""
    env, _ = cache
    code = ("import sys\n"
            "from solver.app.cli import main\n"
            f"main({['round', *SMALL_ARGS, '--state', '0,2,2']!r}, standalone_mode=False)\n"
            "heavy = {'dask', 'distributed', 'pyspiel', 'matplotlib', 'scipy', 'networkx',"
            " 'highspy'}\n"
            "print('LOADED', sorted({m.split('.')[0] for m in sys.modules} & heavy))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env}, check=True)
    assert "read from" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "LOADED []"


@pytest.mark.slow
def test_a_published_round_is_read_first(tmp_path, monkeypatch):
    """`bidou outputs` writes the saved round beside round.json (round_outputs.round_files)
    and a query of those rules reads it there, before the user's cache."""
    import solver.app.saved_rounds as command
    from solver.app.round_outputs import solve_and_report, write_round

    written = write_round(tmp_path, "round-small", solve_and_report(SMALL))
    assert {p.name for p in written} >= {"round.json", store.FILE_NAME, "open_throw.md",
                                         "open_throw.csv",
                                         store.strategies_path(store.FILE_NAME).name}
    report = json.loads((tmp_path / "round-small" / "round.json").read_text())
    assert "saved_files" not in report and report["rules"] == SMALL.to_dict()
    monkeypatch.setattr(command, "outputs_root", lambda: tmp_path)
    result = run({"XDG_CACHE_HOME": str(tmp_path / "empty")}, "round", *SMALL_ARGS,
                 "--state", "0,2,2", "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["source"] == (f"read from {tmp_path / 'round-small' / store.FILE_NAME}, "
                               f"proved when saved (--verify proves it again)")
    assert shown["strategy"]["throw"]


def test_open_throw_tables_of_the_published_round():
    """From outputs/round/round.json alone: each open throw solved again exactly has the
    value the round proved (inside its interval), the first thrower stops with the
    strongest hands only (19 after his first throw, 23 after his second), and the second
    stops exactly when ahead and throws again exactly when behind."""
    from fractions import Fraction

    from games.bidou import rules
    from solver.round.open_throw_table import (
        _second_exceptions,
        open_throw_csv,
        open_throw_markdown,
        open_throw_policies,
    )

    rules_ = RoundParams()
    report = json.loads((ROOT / "round" / "round.json").read_text())
    policies = open_throw_policies(rules_, report)
    assert [(p.state.centre, p.state.low, p.state.high) for p in policies] == [(0, 1, 8),
                                                                               (1, 0, 8)]
    ranked = rules.ranked_hands(6, "encyclopedia")
    entries = {(s["centre"], s["captain"]): s for s in report["states"] if s["open_throw"]}
    for policy in policies:
        entry = entries[(policy.state.centre, policy.state.low)]
        assert Fraction(entry["lower"]) <= policy.solved.value <= Fraction(entry["upper"])
        for throw, count in ((1, 19), (2, 23)):
            stops = [g for g in ranked if policy.solved.l_policy[(throw, g)] == rules.STOP]
            assert stops == list(ranked[:count])
        assert _second_exceptions(rules_, policy.solved) == 0
    text = open_throw_markdown(rules_, policies)
    assert "| 1 | 6-5-3 or better (19 hands) | throw all again |" in text
    assert "**0.877127383**" in text
    rows = open_throw_csv(rules_, policies).splitlines()
    # per open throw: the first thrower's 2 x 56 decisions, the second's 56 x 2 x 56
    assert len(rows) == 1 + 2 * (2 * 56 + 56 * 2 * 56)


def test_open_throw_command_reads_the_saved_round(cache, monkeypatch):
    env, _ = cache
    import solver.pipeline.round as pipeline

    monkeypatch.setattr(pipeline, "prove_round", lambda *a, **k: pytest.fail("solved"))
    saved = store.load(store.cache_path(SMALL, env), SMALL)
    opens = [s for s in saved.report["states"] if s["open_throw"]]
    result = run(env, "round", *SMALL_ARGS, "--open-throw")
    assert result.exit_code == 0, result.output
    assert result.output.count("## Centre ") == len(opens) > 0
    shown = json.loads(run(env, "round", *SMALL_ARGS, "--open-throw", "--json").output)
    assert [o["value"] for o in shown["open_throws"]] == pytest.approx(
        [s["value"] for s in sorted(opens, key=lambda s: (s["centre"], s["captain"]))],
        abs=1e-12)
    assert {row["player"] for row in shown["decisions"]} == {"first", "second"}
    refused = run(env, "round", *SMALL_ARGS, "--open-throw", "--state", "0,2,2")
    assert refused.exit_code == 2 and "--open-throw takes" in refused.output


def test_play_a_whole_round_with_piped_input(cache):
    """`bidou play --round` plays the saved round to its end from piped answers: before
    every hand the piles add up to the round's chips and the chance shown is the saved
    value of that state, for the person's seat; the total cost is the sum of the costs
    of the choices reviewed."""
    import itertools
    import re

    env, path = cache
    saved = store.load(path, SMALL)
    values = {(s["centre"], s["captain"], s["opponent"]): s["value"]
              for s in saved.report["states"] if not s["open_throw"]}
    # a player who bets, raises and calls moves chips fast, to an open throw; against the
    # refined stage strategies the cycle "stpcbfr" reached none in 39 seeds
    answers = "\n".join(itertools.islice(itertools.cycle("sbbrrcc"), 600)) + "\n"
    opens = 0
    for seed in range(1, 40):
        if seed > 3 and opens:
            break
        result = CliRunner().invoke(main, ["play", "--round", *SMALL_ARGS, "--seed",
                                           str(seed)], input=answers, env=env)
        assert result.exit_code == 0, result.output
        out = result.output
        hands = re.findall(r"— Hand \d+ — centre (\d+), your pile (\d+), your opponent's "
                           r"(\d+); you are the (captain|opponent); P\(you win the round\) "
                           r"= ([0-9.]+)", out)
        assert hands and "Game over" not in out
        results = re.findall(r"You win the hand:|You lose the hand:|You fold and take|"
                             r"Your opponent folds and takes|A tie: every chip bet goes back|"
                             r"Both passed: no chip moves", out)
        assert len(results) == len(hands)          # every hand ends with what moved
        assert "you put in" in out and "[fold/call" in out
        for centre, mine, theirs, seat, chance in hands:
            c, a, b = int(centre), int(mine), int(theirs)
            assert c + a + b == SMALL.chips
            value = values[(c, a, b)] if seat == "captain" else 1 - values[(c, b, a)]
            assert float(chance) == pytest.approx(value, abs=5e-5)
        end = re.search(r"You (win|lose) the round after (\d+) hands?; your choices cost "
                        r"([0-9.]+)% win probability in all", out)
        assert end is not None and int(end.group(2)) == len(hands)
        costs = [float(x) for x in re.findall(r"\(cost ([0-9.]+)% win probability\)", out)]
        assert float(end.group(3)) == pytest.approx(sum(costs), abs=0.01 * len(costs) + 0.01)
        for match in re.finditer(r"— Open throw — centre (\d+), your pile (\d+), your "
                                 r"opponent's (\d+); P\(you win the round\) = ([0-9.]+)", out):
            opens += 1
            c, a, b = (int(match.group(i)) for i in (1, 2, 3))
            first = store.load(path, SMALL).entry(c, min(a, b), max(a, b))
            assert first is not None and first["open_throw"]
            value = first["value"] if a < b else 1 - first["value"]
            assert float(match.group(4)) == pytest.approx(value, abs=5e-5)
    assert opens, "no round of these seeds reached an open throw"


def test_play_round_says_what_each_choice_puts_in_and_what_moved():
    """`bidou play --round` asked "[fold/call/raise]" without a chip, and after a fold said
    nothing: the question says what each answer puts in and risks, and every hand ends
    with who won it and the chips that moved (the settlement of the rules)."""
    from fractions import Fraction

    from games.bidou.betting import CAPTAIN, OPPONENT, build_tree
    from solver.app.play_round import bet_choice_text, hand_result_text
    from solver.round.states import ChipState

    zero = (Fraction(0),) * 3
    empty = ChipState(0, 2, 2)                   # no chip in the centre: the piles pay
    tree = build_tree(CAPTAIN, 4, empty.supply(), payoff=lambda leaf: zero)
    bet = tree.child(tree.root, "bet")
    assert bet_choice_text(tree, bet, OPPONENT) == (
        "You face a bet (1 chip in the pot). Fold (you take 1 chip, from your opponent's "
        "pile), call (you put in 1 chip, from your pile; showdown: the weaker hand takes 2 "
        "chips), or raise to 2 (you put in 2 chips, from your pile; if called, the weaker "
        "hand takes 4 chips)?")
    assert hand_result_text(empty, tree.child(bet, "fold"), 0, OPPONENT) == (
        "You fold and take 1 chip, from your opponent's pile: your opponent wins the hand.")
    assert hand_result_text(empty, tree.child(bet, "fold"), 0, CAPTAIN) == (
        "Your opponent folds and takes 1 chip, from your pile: you win the hand.")
    assert hand_result_text(empty, tree.child(bet, "call"), 1, OPPONENT) == (
        "You lose the hand: you take 1 chip, from your opponent's pile.")
    assert hand_result_text(empty, tree.child(bet, "call"), 0, OPPONENT) == (
        "A tie: every chip bet goes back; no chip moves.")
    full = ChipState(3, 1, 1)                    # the centre pays first
    tree = build_tree(CAPTAIN, 4, full.supply(), payoff=lambda leaf: zero)
    raised = tree.child(tree.child(tree.root, "bet"), "raise")
    assert bet_choice_text(tree, raised, CAPTAIN) == (
        "You face a raise to 2 (3 chips in the pot). Fold (you take 1 chip, from the "
        "centre), or call (you put in 1 chip, from your pile; showdown: the weaker hand "
        "takes 4 chips)?")
    assert hand_result_text(full, tree.child(raised, "call"), -1, OPPONENT) == (
        "You win the hand: your opponent takes 3 chips, from the centre.")
    assert bet_choice_text(tree, tree.root, CAPTAIN) == (
        "Pass (if your opponent passes too, no chip moves), or bet (you put in 1 chip, "
        "from the centre; if called, the weaker hand takes 2 chips)?")


@pytest.mark.slow
def test_published_round_files_are_reproducible():
    """Two fresh solves write the same saved round, open-throw tables and report, byte for
    byte (no timings or versions in them), so `bidou outputs --check` can compare."""
    from solver.app.round_outputs import SAVED, solve_and_report

    first, second = solve_and_report(SMALL), solve_and_report(SMALL)
    assert first[SAVED] == second[SAVED] and set(first[SAVED]) == {
        store.FILE_NAME, store.strategies_path(store.FILE_NAME).name}
    saved = json.loads(first[SAVED][store.FILE_NAME])
    assert "versions" not in saved["report"] and "seconds" not in saved["report"]


@pytest.mark.slow
def test_state_charts_from_the_saved_round_are_re_measured(cache, tmp_path):
    """--charts draws a state's charts from the saved strategy after re-measuring it on
    its rebuilt stage game; a strategy that is not the stage's equilibrium (here the
    uniform one, with a valid file around it) is refused before anything is drawn."""
    import dataclasses

    from solver.common.errors import SolverError
    from solver.hand.strategy import uniform_strategy
    from solver.pipeline.round import saved_state_charts
    from solver.round.advice import strategy_from_json, strategy_json

    env, path = cache
    out = tmp_path / "charts"
    result = run(env, "round", *SMALL_ARGS, "--state", "0,2,2", "--charts", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert (out / "reroll_chart.png").stat().st_size > 10_000 and (out / "round.json").is_file()
    saved = store.load(path, SMALL)
    concedes = saved.advice["0,2,2"]["concedes"]
    assert f"it would concede up to {concedes:.1%} win probability here" in result.output
    entry = saved.entry(0, 2, 2)
    kept = strategy_from_json(saved.stages()["0,2,2"], _stage_model(saved, entry))
    uniform = strategy_json(uniform_strategy(_stage_model(saved, entry)))
    assert len(uniform["betting"]) == len(kept.betting)
    bad = dataclasses.replace(saved, kept={**saved.stages(), "0,2,2": uniform})
    with pytest.raises(SolverError, match="a best response gains"):
        saved_state_charts(bad, entry, "0,2,2", tmp_path / "never")
    assert not (tmp_path / "never").exists()


def _stage_model(saved, entry):
    from solver.hand.model import build_model
    from solver.round.stage import stage_model
    from solver.round.states import ChipState

    state = ChipState(entry["centre"], entry["captain"], entry["opponent"])
    return stage_model(build_model(SMALL.hand), state, lambda nxt: 0.5)


@pytest.mark.slow
def test_a_one_throw_round_is_read_back_from_its_own_save(tmp_path):
    """With one throw there is no throw decision: the saved stages' empty throw lists must
    come back with the stage game's shape (they came back (1, 0), and every query that
    reads the saved strategies refused the program's own save)."""
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    args = ("--chips", "3", "--faces", "3", "--throws", "1", "--max-level", "2")
    assert run(env, "round", *args).exit_code == 0
    result = run(env, "round", *args, "--state", "1,1,1", "--charts", "--out",
                 str(tmp_path / "charts"))
    assert result.exit_code == 0, result.output
    assert "P(the captain wins the round)" in result.output
    assert (tmp_path / "charts" / "round.json").is_file()
    result = run(env, "exploit", "--faces", "3", "--throws", "1", "--max-level", "2",
                 "--lock", "captain", "--profile", "never-bluffs", "--round",
                 "--state", "1,1,1", "--chips", "3")
    assert result.exit_code == 0, result.output
