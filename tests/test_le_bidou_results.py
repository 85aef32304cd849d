"""docs/results.md's Le Bidou section (`solver.pipeline.le_bidou_results`): the numbers of a
small hand against their definitions (stake frequencies summing to one, each bluff checked
by enumerating the responder's hands), the published numbers against what is proved
elsewhere, and `bidou results --le-bidou` redoing that part alone."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from games.bidou.betting import CAPTAIN
from games.le_bidou.params import LeBidouParams
from solver.analysis import behaviour
from solver.app import results
from solver.export.le_bidou_section import PLOT
from solver.export.results_page import render
from solver.hand.solve import solve
from solver.pipeline import le_bidou_results as lbr
from solver.pipeline.bidou_sweep import SWEEP
from solver.pipeline.results_document import read_document

ROOT = Path(__file__).resolve().parent.parent
SMALL = {rule: LeBidouParams(faces=3, throws=1, max_stake=3, half_stake=rule)
         for rule in ("up", "down", "full")}


@pytest.fixture(scope="module")
def small():
    return solve(SMALL["up"])


def test_stake_frequencies_and_answers_add_up(small):
    numbers = lbr.hand_numbers(small)
    first = numbers["first"]
    # the first player always proposes one first stake
    assert sum(c["per_hand"] for c in first.values()) == pytest.approx(1, abs=1e-9)
    assert sum(numbers["answers"].values()) == pytest.approx(1, abs=1e-12)
    # raises to s follow a first stake below s: none to 1
    assert numbers["raise"]["1"]["per_hand"] == 0
    for kind in ("first", "raise"):
        for cell in numbers[kind].values():
            assert 0 <= cell["bluffs_per_hand"] <= cell["per_hand"] + 1e-12
    assert numbers["folded"] + numbers["showdown"] == pytest.approx(1, abs=1e-9)
    assert numbers["value"] == pytest.approx(small.value, abs=1e-9)
    assert Fraction(numbers["lower"]) <= Fraction(numbers["upper"])


def test_each_bluff_by_enumeration(small):
    """The bluffs per stake counted again from the definition, hand by hand: the
    responder's call and withdrawal values by explicit sums over the proposer's hands."""
    model, strategy = small.model, small.strategy
    expected = {s: 0.0 for s in range(1, 4)}
    for kind, public, node, rc, ro in behaviour.walk(model, strategy):
        if kind != "node" or node.history != "":
            continue
        assert node.actor == CAPTAIN                                # he proposes first
        tree = model.tree(public)
        probs = strategy.betting[(*public, "")]
        for i, edge in enumerate(node.edges):
            s = tree.nodes[edge.node].level
            proposer = rc * probs[i]
            if proposer.sum() <= 0:
                continue
            fine = float(tree.payoff(tree.at(f"{s}w"), 0))          # to the first player
            callers = []
            for j in range(model.num_hands):                        # the other's hand j
                call = sum(proposer[h] * -s * np.sign(model.compare[h, j])
                           for h in range(model.num_hands)) / proposer.sum()
                if call >= -fine - 1e-12:
                    callers.append(j)
            weakest = min(callers, key=lambda j: model.strength[j]) if callers else None
            for h in range(model.num_hands):
                if weakest is None or model.compare[h, weakest] < 0:
                    expected[s] += proposer[h] * ro.sum()
    got = lbr.proposals(model, strategy)["first"]
    assert [got[s]["bluffs_per_hand"] for s in range(1, 4)] == pytest.approx(
        [expected[s] for s in range(1, 4)], abs=1e-12)
    assert sum(got[s]["bluffs_per_hand"] for s in range(1, 4)) > 0     # not vacuous


def test_the_published_numbers():
    doc = read_document(ROOT / "docs" / "data" / "results.json")
    lb = doc["le_bidou"]
    assert lb["equilibrium"] == "plain LP vertex" and lb["command"] == lbr.COMMAND
    rows = {SWEEP.rule_key(r): r for r in SWEEP.read_rows(ROOT / "docs" / "data")}
    chip = rows[SWEEP.rule_key(lbr.ONE_CHIP)]
    assert lb["one_chip"]["exact"] == chip["exact"] == "-3199364025509/63915771340800"
    for rule, hand in lb["hands"].items():
        assert hand["rules"] == {"game": "le-bidou", **lbr.PENALTIES[rule].to_dict()}
        assert Fraction(hand["lower"]) <= Fraction(hand["upper"])
        assert Fraction(hand["upper"]) - Fraction(hand["lower"]) <= 1e-9
        assert float(hand["lower"]) - 1e-12 <= hand["value"] <= float(hand["upper"]) + 1e-12
        assert max(hand["captain_exploitability"], hand["opponent_exploitability"]) <= 1e-9
        assert hand["status"] == "optimal"
        assert sum(c["per_hand"] for c in hand["first"].values()) == pytest.approx(1, abs=1e-9)
    # the default hand's value, proved in docs/le-bidou.md by the restricted LP, holding
    # the exact value that `exact_lift` found there; the penalties compared on that hand
    up = lb["headline"]
    assert up["rules"] == {"game": "le-bidou", **LeBidouParams().to_dict()}
    assert 0.864692210134 <= float(up["lower"]) <= float(up["upper"]) <= 0.864692210136
    exact = Fraction(360563684246598685420206105292698751, 416985003473412649682263647535718400)
    assert Fraction(up["lower"]) <= exact <= Fraction(up["upper"])
    assert lb["hands"]["up"] == up and lbr.COMPARE_MAX_STAKE == 9
    assert sum(c["per_hand"] for c in up["first"].values()) == pytest.approx(1, abs=1e-9)
    # a harsher fine for withdrawing from the first stake is worth more to the first player
    values = {rule: Fraction(hand["lower"]) for rule, hand in lb["hands"].items()}
    assert values["down"] < values["up"] < values["full"]
    page = (ROOT / "docs" / "results.md").read_text()
    assert "## 6. Le Bidou: stakes instead of one-chip bets" in page


def test_results_le_bidou_redoes_only_its_part(tmp_path, monkeypatch):
    (tmp_path / "docs" / "data").mkdir(parents=True)
    (tmp_path / "docs" / "img").mkdir()
    for name in ("results.json", "sweep.csv"):
        shutil.copy(ROOT / "docs" / "data" / name, tmp_path / "docs" / "data" / name)
    before = json.loads((tmp_path / "docs" / "data" / "results.json").read_text())
    monkeypatch.setattr(lbr, "PENALTIES", SMALL)
    monkeypatch.setattr(lbr, "HEADLINE", SMALL["up"])
    results.write_results(tmp_path, le_bidou=True)
    after = read_document(tmp_path / "docs" / "data" / "results.json")
    assert {k: v for k, v in after.items() if k != "le_bidou"} == \
        {k: v for k, v in before.items() if k != "le_bidou"}
    assert after["le_bidou"]["hands"]["full"]["rules"]["half_stake"] == "full"
    assert after["le_bidou"]["hands"]["up"]["rules"]["max_stake"] == 3
    assert after["le_bidou"]["headline"] == after["le_bidou"]["hands"]["up"]
    page = (tmp_path / "docs" / "results.md").read_text()
    assert page == render(after)
    assert "Against a full-stake penalty, the half-stake rule changes" in page
    assert (tmp_path / "docs" / "img" / PLOT).stat().st_size > 10_000
