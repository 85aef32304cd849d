"""Tests of the ranking table (games/bidou/stats.py)."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import pytest

from games.bidou import rules
from games.bidou.params import BidouParams
from games.bidou.stats import HandStats, p_straight_or_better, ranking_table, stats_json, stats_text

ALL_PARAMS = [BidouParams(faces=f, ranking=r, aces_beat_bidou=a)
              for f in (2, 3, 4, 5, 6)
              for r in ("encyclopedia", "french")
              for a in (True, False)]


def row(table, text):
    hand = rules.parse_hand(text)
    (found,) = [r for r in table if r.hand == hand]
    return found


def test_default_table():
    table = ranking_table(BidouParams())
    assert len(table) == 56
    assert all(isinstance(r, HandStats) for r in table)
    assert table[0].hand == (2, 1, 1) and table[0].name == "bidou"
    assert table[-1].hand == (3, 1, 1)
    assert [r.hand for r in table] == list(rules.ranked_hands(6, "encyclopedia"))


def test_631_beats_half():
    r = row(ranking_table(BidouParams()), "6-3-1")
    assert r.beats == Fraction(1, 2)
    assert r.ties == r.probability == Fraction(1, 36)
    assert r.loses == Fraction(17, 36)
    assert r.name == "6 high" and r.source_name == ""


def test_known_rows():
    table = ranking_table(BidouParams())
    bidou = row(table, "2-1-1")
    assert bidou.probability == Fraction(1, 72)
    assert bidou.beats == 1 - Fraction(1, 72) and bidou.loses == 0
    assert row(table, "3-1-1").beats == 0
    assert row(table, "6-5-4").source_name == "Escalera mayor"
    assert row(table, "6-5-4").beats == Fraction(11, 12)
    assert row(table, "3-2-1").beats == Fraction(5, 6)   # 1/6 of throws are 3-2-1 or better


def test_french_exception_in_beats():
    table = ranking_table(BidouParams(ranking="french", aces_beat_bidou=True))
    assert [r.hand for r in table] == list(rules.ranked_hands(6, "french"))
    bidou, aces = row(table, "2-1-1"), row(table, "1-1-1")
    assert bidou.loses == Fraction(1, 216)                  # only 1-1-1 beats it
    assert aces.beats == row(table, "2-2-2").beats - Fraction(1, 216) + Fraction(3, 216)
    assert bidou.source_name == "Bidou" and aces.source_name == "Brelan d'as"
    plain = ranking_table(BidouParams(ranking="french", aces_beat_bidou=False))
    assert row(plain, "2-1-1").loses == 0
    assert row(plain, "1-1-1").beats == row(table, "1-1-1").beats - Fraction(3, 216)


@pytest.mark.parametrize("params", ALL_PARAMS, ids=lambda p: p.describe())
def test_shares_sum_to_one(params):
    table = ranking_table(params)
    assert len(table) == len(rules.all_hands(params.faces))
    assert sum(r.probability for r in table) == 1
    for r in table:
        assert r.beats + r.ties + r.loses == 1
        assert 0 <= r.beats <= 1 and r.loses >= 0
        assert r.ties == r.probability              # ties only with the identical hand
    # Averaged over a random throw, P(win) = P(lose): the beats/loses shares weighted by
    # probability are equal, and with the ties they sum to exactly 1.
    win = sum(r.probability * r.beats for r in table)
    tie = sum(r.probability * r.ties for r in table)
    lose = sum(r.probability * r.loses for r in table)
    assert win == lose
    assert win + tie + lose == 1


def test_beats_is_decreasing_down_a_transitive_table():
    table = ranking_table(BidouParams())
    for stronger, weaker in zip(table, table[1:]):
        assert stronger.beats == weaker.beats + weaker.ties


def test_p_straight_or_better():
    assert p_straight_or_better(BidouParams()) == Fraction(1, 6)
    assert p_straight_or_better(BidouParams(ranking="french")) == Fraction(19, 72)
    assert p_straight_or_better(BidouParams(ranking="french", aces_beat_bidou=False)) == \
        Fraction(19, 72)
    assert p_straight_or_better(BidouParams(faces=2)) == 1       # no "other" hand exists
    assert isinstance(p_straight_or_better(BidouParams(faces=4)), Fraction)


def test_stats_json_round_trips():
    params = BidouParams()
    data = stats_json(params)
    assert json.loads(json.dumps(data)) == data
    assert data["rules"] == params.to_dict()
    assert BidouParams.from_mapping(data["rules"]) == params
    assert len(data["hands"]) == 56
    first = data["hands"][0]
    assert first["hand"] == "2-1-1" and first["name"] == "bidou"
    entry = next(h for h in data["hands"] if h["hand"] == "6-3-1")
    assert entry["beats"] == 0.5
    assert entry["probability_fraction"] == "1/36"
    assert entry["probability"] == pytest.approx(1 / 36)
    assert set(entry) >= {"hand", "name", "source_name", "probability",
                          "probability_fraction", "beats", "ties"}
    assert data["p_straight_or_better"] == pytest.approx(1 / 6)
    assert sum(Fraction(h["probability_fraction"]) for h in data["hands"]) == 1


@pytest.mark.parametrize("params", [BidouParams(ranking="french", faces=4),
                                    BidouParams(faces=2, throws=1, reroll="keep")])
def test_stats_json_other_params(params):
    data = stats_json(params)
    assert json.loads(json.dumps(data, ensure_ascii=False)) == data
    assert [h["hand"] for h in data["hands"]] == \
        [rules.format_hand(h) for h in rules.ranked_hands(params.faces, params.ranking)]


def test_stats_text():
    text = stats_text(BidouParams())
    lines = text.splitlines()
    body = [ln for ln in lines if ln[:4].strip().isdigit()]
    assert len(body) == 56
    assert body[0].split()[:3] == ["1", "2-1-1", "bidou"]
    line631 = next(ln for ln in body if " 6-3-1 " in ln)
    assert "1/36" in line631 and "50.00%" in line631 and "2.78%" in line631
    # aligned: the hand column starts at the same place on every row
    assert len({ln.index("-") - 1 for ln in body}) == 1
    assert "1/6" in text
    assert "Échelle" in stats_text(BidouParams(ranking="french"))


def test_table_is_frozen():
    r = ranking_table(BidouParams(faces=2))[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.beats = Fraction(0)  # type: ignore[misc]
