"""docs/results.md is current: it is the rendering of docs/data/results.json, whose sweep
tables are those of docs/data/sweep.csv; a sample of the table's rows and the default game's
behaviour are solved again (the exact solves of `bidou results` take minutes: not here)."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from games.bidou.params import BidouParams
from solver.analysis import behaviour
from solver.analysis.no_betting import solve_throw_game
from solver.export.results_page import render
from solver.export.results_plots import plots
from solver.hand.lp import sequence_form as lp
from solver.hand.model import build_model
from solver.pipeline import featured_games, results_document
from solver.pipeline.bidou_sweep import SWEEP, solve_row
from solver.pipeline.hand import solve_hand
from solver.pipeline.results_sweep import sweep_tables

ROOT = Path(__file__).resolve().parent.parent
DOC = results_document.read_document(ROOT / "docs" / "data" / "results.json")
ROWS = SWEEP.read_rows(ROOT / "docs" / "data")


def test_the_page_is_the_rendering_of_the_numbers():
    assert (ROOT / "docs" / "results.md").read_text() == render(DOC), \
        "docs/results.md is stale: run `bidou results`"
    for name in plots(DOC):
        assert (ROOT / "docs" / "img" / name).exists()


def test_the_sweep_tables_are_those_of_the_committed_table():
    fresh = json.loads(json.dumps(sweep_tables(ROWS)))
    assert fresh == DOC["sweep"]
    assert len(ROWS) == 360 == DOC["sweep"]["rule_sets"]


def test_a_sample_of_the_table_solved_again():
    by_key = {SWEEP.rule_key(r): r for r in ROWS}
    sample = [BidouParams(faces=f, throws=t, max_level=m, reroll=r, ranking=k)
              for f, t, m, r, k in ((2, 1, 1, "all", "encyclopedia"), (2, 2, 3, "keep", "french"),
                                    (3, 2, 2, "all", "encyclopedia"), (3, 1, 4, "keep", "french"),
                                    (2, 3, 2, "all", "french"))]
    for params in sample:
        row = by_key[SWEEP.rule_key(params)]
        fresh = solve_row(params.to_dict(), exact=True)
        assert fresh["value"] == pytest.approx(row["value"], abs=1e-12)
        if row["exact"] is not None:
            assert fresh["exact"] == row["exact"]
            assert row["lower"] <= Fraction(row["exact"]) <= row["upper"]
        else:       # f2 t3 m2 french: the table's recovery failed; the interval is proved,
            # and a later recovery may prove the value itself, inside that interval
            assert row["upper"] - row["lower"] < 1e-14
            if fresh["exact"] is not None:
                assert row["lower"] - 1e-15 <= Fraction(fresh["exact"]) <= row["upper"] + 1e-15
            else:
                assert (fresh["lower"], fresh["upper"]) == pytest.approx(
                    (row["lower"], row["upper"]), abs=1e-15)
    # the headline numbers are the README's
    default = DOC["games"]["default"]["certificate"]
    assert default["exact"] == "-67764799477/1836660096000"
    assert DOC["games"]["keep"]["certificate"]["exact"] == \
        "-341442512050376231/5562034043169853440"
    assert DOC["games"]["french"]["certificate"]["exact"] == \
        "-409263139735053181/11089871661615430320"


def test_the_default_game_behaviour_solved_again(default_solution):
    """The behaviour is the exact equilibrium's. If the LP finds another
    equilibrium (a solver change), this fails: regenerate with `bidou results`, which
    states the new equilibrium's behaviour. The solve is the session's (tests/conftest.py:
    `solve_hand(BidouParams(), exact=True)`, as `bidou results` solves it)."""
    solution = default_solution
    assert DOC["equilibrium"] == "exact"
    expected = DOC["games"]["default"]
    assert solution.certificate.contains(Fraction(expected["certificate"]["exact"]))
    got = behaviour.outcomes(solution.model, solution.strategy).to_dict()
    for key, value in expected["outcomes"].items():
        if key == "by_public":
            assert got[key] == pytest.approx(value, abs=1e-9)
        else:
            assert got[key] == pytest.approx(value, abs=1e-9), key
    bluffs = behaviour.bluffs(solution.model, solution.strategy).to_dict()
    assert set(bluffs) == set(expected["bluffs"])
    for key, numbers in expected["bluffs"].items():
        for name, value in numbers.items():
            assert bluffs[key][name] == pytest.approx(value, abs=1e-9), (key, name)
    stops = json.loads(json.dumps(featured_games.stop_summary(solution.model, solution.strategy)))
    assert len(stops) == len(expected["stops"]) == 2 + 3 * 2
    for got_row, row in zip(stops, expected["stops"]):
        assert got_row["stop_overall"] == pytest.approx(row["stop_overall"], abs=1e-9)
        assert {k: v for k, v in got_row.items() if k != "stop_overall"} == \
            {k: v for k, v in row.items() if k != "stop_overall"}


def test_the_no_betting_value_solved_again():
    game = solve_throw_game(build_model(BidouParams()))
    proved = DOC["games"]["default"]["no_betting"]["certificate"]
    assert str(game.certificate.lower) == proved["lower"]
    assert str(game.certificate.upper) == proved["upper"]


def test_results_refuses_an_incomplete_sweep_before_solving(tmp_path):
    from click.testing import CliRunner

    from solver.app.cli import main

    (tmp_path / "docs" / "data").mkdir(parents=True)
    (tmp_path / "docs" / "data" / "sweep.csv").write_text(
        (ROOT / "docs" / "data" / "sweep.csv").read_text().splitlines()[0] + "\n")
    result = CliRunner().invoke(main, ["results", "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.startswith("bidou: error: the sweep table lacks 360 rule sets")
    assert result.output.count("\n") == 1


def test_the_folk_rule_measured_again_is_the_published_one():
    """Section 5's folk rule without betting (`featured_games.folk_costs`, from the rule
    `bidou exploit --profile folk-stop` locks): the hands it stops with and what each
    player guarantees with it, exactly, as docs/data/results.json has them."""
    published = DOC["games"]["default"]["folk"]
    found = featured_games.folk_costs(build_model(BidouParams()), Fraction(0))
    assert found["stop_hands"] == published["stop_hands"] == 31
    assert found["stop_probability"] == pytest.approx(published["stop_probability"], abs=1e-12)
    assert found["captain_guarantee"] == published["captain_guarantee"] == "-63875/314928"
    assert found["opponent_guarantee"] == published["opponent_guarantee"] == "62875/314928"
    _, throwing = featured_games.folk_rule(build_model(BidouParams()))
    assert throwing[1].shape[0] == 3 and (throwing[1] == throwing[0]).all()


def test_the_folk_rule_with_betting_solved_again():
    """The restricted game of section 5 (the captain's throwing pinned to "stop with a 6 or
    better", everything else optimized): the LP again, and its guarantee proved exactly
    matches what the page says; pinning costs, and never gains."""
    from solver.hand.exact.certificate import exact_best_response

    published = DOC["games"]["default"]["folk"]["with_betting"]
    model = build_model(BidouParams())
    _, rule = featured_games.folk_rule(model)
    restricted = lp.solve_lp(model, fixed_throw=rule[0])
    guarantee = -exact_best_response(model, restricted.strategy, 1)
    assert str(guarantee) == published["captain"]["guarantee"]
    assert restricted.value == pytest.approx(float(guarantee), abs=1e-9)
    assert restricted.value < DOC["games"]["default"]["value"] - 0.05


def test_the_round_section_is_the_published_round():
    """Section 5's round numbers: the same first state as outputs/round, and the chip
    counter's proved bounds on either side of the round's proved interval."""
    r = DOC["round"]
    report = json.loads((ROOT / "outputs" / "round" / "round.json").read_text())
    assert r["value"] == pytest.approx(report["start_value"], abs=1e-11)
    assert Fraction(r["captain_guarantee"]) < Fraction(r["lower"]) <= r["value"]
    assert r["value"] <= Fraction(r["upper"]) < Fraction(r["opponent_concedes"])
    # against the round's solved equilibrium: not kept, it moves with the machine
    assert "captain_against_equilibrium" not in r


def test_the_page_says_which_numbers_depend_on_the_equilibrium():
    page = (ROOT / "docs" / "results.md").read_text()
    assert "*Which numbers depend on the equilibrium chosen.*" in page
    assert "*These numbers depend on the equilibrium chosen.*" in page       # section 2
    assert "*These numbers depend on the equilibrium chosen*: the chip counter" in page
    assert DOC["float_decimals"] == results_document.FLOAT_DECIMALS == 12
    # every float the featured games and the round keep has at most 12 decimals
    def floats(data):
        if isinstance(data, float):
            yield data
        elif isinstance(data, dict):
            for value in data.values():
                yield from floats(value)
        elif isinstance(data, list):
            for value in data:
                yield from floats(value)
    kept = list(floats([DOC["games"], DOC["cycle_shift"], DOC["round"]]))
    assert len(kept) > 100 and all(x == round(x, 12) for x in kept)
    exact = Fraction("-67764799477/1836660096000")
    assert DOC["games"]["default"]["value"] == round(float(exact), 12)


def test_stable_rounds_floats_only():
    data = {"a": 0.1234567890123456, "b": [1e-17, -1e-17, 3], "c": "1/3", "d": True}
    assert results_document.stable(data) == {"a": 0.123456789012, "b": [0.0, 0.0, 3], "c": "1/3",
                                    "d": True}
    assert str(results_document.stable(-1e-17)) == "0.0"


@pytest.mark.slow
def test_the_chip_counting_numbers_do_not_depend_on_the_workers():
    """The cheap part of `bidou results` run twice with 1 and 2 round workers (the full run
    is measured in docs/verification.md): a small round's chip-counting numbers, from the
    hand's exact equilibrium, are the same, and the proved bounds hold the value."""
    from games.bidou.round_params import RoundParams
    from solver.round.solve import solve_round

    params = RoundParams(chips=4, hand=BidouParams(faces=2, throws=1, max_level=2))
    hands = [solve_hand(params.hand, exact=True) for _ in range(2)]
    assert hands[0].exact == hands[1].exact is not None
    one, two = (results_document.stable(results_document.chip_counting_results(
        solve_round(params, workers=workers), hand.solution))
        for workers, hand in zip((1, 2), hands))
    assert one == two
    assert Fraction(one["captain_guarantee"]) <= Fraction(one["lower"])
    assert Fraction(one["upper"]) <= Fraction(one["opponent_concedes"])
