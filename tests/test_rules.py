"""Tests of the rules of Bidou (games/bidou/rules.py, games/bidou/params.py) against RULES.md
and the facts stated by the source texts."""

from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.bidou import rules
from games.bidou.params import BidouParams, ParameterError
from games.bidou.rules import compare, hand_distribution, parse_hand, rank_key

FACES = (2, 3, 4, 5, 6)


def H(text: str) -> tuple[int, int, int]:
    return parse_hand(text)


def share_beaten(hand, ranking="encyclopedia", aces_beat_bidou=True, faces=6) -> Fraction:
    return sum((p for h, p in hand_distribution(faces).items()
                if compare(hand, h, ranking, aces_beat_bidou) > 0), Fraction(0))


# --- hands and probabilities -----------------------------------------------------------------

def test_56_hands_with_six_faces():
    hands = rules.all_hands(6)
    assert len(hands) == 56
    assert len(set(hands)) == 56
    assert hands[0] == (6, 6, 6) and hands[-1] == (1, 1, 1)


@pytest.mark.parametrize("faces,count", [(2, 4), (3, 10), (4, 20), (5, 35), (6, 56)])
def test_hand_count_is_multisets_of_three(faces, count):
    assert len(rules.all_hands(faces)) == count == math.comb(faces + 2, 3)
    for hand in rules.all_hands(faces):
        assert hand[0] >= hand[1] >= hand[2]
        assert all(1 <= d <= faces for d in hand)


@pytest.mark.parametrize("faces", FACES)
def test_probabilities_are_exact_fractions_summing_to_one(faces):
    dist = hand_distribution(faces)
    assert set(dist) == set(rules.all_hands(faces))
    assert all(isinstance(p, Fraction) and p > 0 for p in dist.values())
    assert sum(dist.values()) == 1


@pytest.mark.parametrize("faces", FACES)
def test_probabilities_count_ordered_throws(faces):
    counts: dict = {}
    for throw in itertools.product(range(1, faces + 1), repeat=3):
        hand = tuple(sorted(throw, reverse=True))
        counts[hand] = counts.get(hand, 0) + 1
    for hand, n in counts.items():
        assert rules.hand_probability(hand, faces) == Fraction(n, faces ** 3)


def test_some_probabilities():
    assert rules.hand_probability((6, 3, 1), 6) == Fraction(6, 216) == Fraction(1, 36)
    assert rules.hand_probability((2, 1, 1), 6) == Fraction(3, 216)
    assert rules.hand_probability((6, 6, 6), 6) == Fraction(1, 216)
    assert rules.hand_probability((1, 3, 6), 6) == Fraction(1, 36)   # any order of dice
    assert rules.hand_probability((6, 6, 6), 5) == 0


def test_parse_and_format():
    assert parse_hand("1-3-6") == (6, 3, 1)
    assert rules.format_hand((6, 3, 1)) == "6-3-1"
    for bad in ("6-3", "6-3-1-1", "a-b-c", "7-1-1", "0-1-1", ""):
        with pytest.raises(ValueError):
            parse_hand(bad)
    with pytest.raises(ValueError):
        parse_hand("6-1-1", faces=5)


# --- the source's checkable facts -----------------------------------------------------------

def test_straight_or_better_is_one_throw_in_six():
    """Spanish 000_: "solo en uno de cada seis tiros saldrá una escalera mayor, o algo mejor"."""
    lowest_straight = rank_key(H("3-2-1"), "encyclopedia")
    p = sum(p for h, p in hand_distribution(6).items()
            if rank_key(h, "encyclopedia") >= lowest_straight)
    assert p == Fraction(1, 6)


def test_631_beats_exactly_half_of_all_throws():
    """Spanish 000_: "Un tiro de 6-3-1 estará justo por encima del promedio"."""
    assert share_beaten(H("6-3-1")) == Fraction(1, 2)
    # ...and it ties only with itself, so it loses to 1/2 - 1/36 of throws: just above average.
    assert sum(p for h, p in hand_distribution(6).items()
               if compare(H("6-3-1"), h) < 0) == Fraction(1, 2) - Fraction(1, 36)
    assert share_beaten(H("6-3-2")) > Fraction(1, 2) > share_beaten(H("6-2-2"))


# --- encyclopedia ranking -------------------------------------------------------------------

@pytest.mark.parametrize("winner,loser", [
    ("6-5-1", "6-4-4"),      # second die decides
    ("6-5-2", "6-5-1"),      # then the lowest die
    ("6-5-5", "6-5-1"),
    ("2-1-1", "6-6-6"),      # the bidou beats everything
    ("6-6-6", "5-5-5"),
    ("1-1-1", "2-2-1"),      # triples beat 2-2-1
    ("2-2-1", "6-5-4"),      # 2-2-1 beats the straights
    ("6-5-4", "5-4-3"),
    ("5-4-3", "4-3-2"),
    ("4-3-2", "3-2-1"),
    ("3-2-1", "6-6-5"),      # straights beat every other hand
    ("6-1-1", "5-5-4"),
    ("4-4-4", "5-1-1"),      # the contradicting Spanish sentence is ignored
    ("3-2-2", "3-1-1"),
])
def test_encyclopedia_examples(winner, loser):
    assert compare(H(winner), H(loser)) == 1
    assert compare(H(loser), H(winner)) == -1


def test_encyclopedia_full_order():
    order = rules.ranked_hands(6, "encyclopedia")
    text = [rules.format_hand(h) for h in order]
    assert text[:12] == ["2-1-1", "6-6-6", "5-5-5", "4-4-4", "3-3-3", "2-2-2", "1-1-1",
                         "2-2-1", "6-5-4", "5-4-3", "4-3-2", "3-2-1"]
    assert text[12] == "6-6-5"       # highest other hand
    assert text[-1] == "3-1-1"       # lowest hand
    assert len(order) == 56
    for stronger, weaker in zip(order, order[1:]):
        assert compare(stronger, weaker) == 1


def test_bidou_beats_every_other_hand():
    for h in rules.all_hands(6):
        if h != (2, 1, 1):
            assert compare((2, 1, 1), h) == 1


# --- french ranking -------------------------------------------------------------------------

FRENCH_CHAIN = ["2-1-1", "2-2-1", "4-2-1", "6-6-6", "1-1-1", "6-3-3", "3-3-1", "6-5-4",
                "3-2-1", "6-1-1", "3-1-1", "6-6-5", "3-2-2"]


@pytest.mark.parametrize("aces_beat_bidou", [True, False])
def test_french_order(aces_beat_bidou):
    order = [rules.format_hand(h) for h in rules.ranked_hands(6, "french")]
    positions = [order.index(h) for h in FRENCH_CHAIN]
    assert positions == sorted(positions)
    assert order[0] == "2-1-1" and order[-1] == "3-2-2"
    for stronger, weaker in zip(FRENCH_CHAIN, FRENCH_CHAIN[1:]):
        if {stronger, weaker} == {"2-1-1", "1-1-1"}:
            continue
        assert compare(H(stronger), H(weaker), "french", aces_beat_bidou) == 1
        assert compare(H(weaker), H(stronger), "french", aces_beat_bidou) == -1


def test_french_categories_in_detail():
    order = [rules.format_hand(h) for h in rules.ranked_hands(6, "french")]
    assert order[:18] == ["2-1-1", "2-2-1", "4-2-1",
                          "6-6-6", "5-5-5", "4-4-4", "3-3-3", "2-2-2", "1-1-1",
                          "6-3-3", "5-3-3", "4-3-3", "3-3-2", "3-3-1",
                          "6-5-4", "5-4-3", "4-3-2", "3-2-1"]
    assert order[18:22] == ["6-1-1", "5-1-1", "4-1-1", "3-1-1"]
    assert order[22] == "6-6-5"


def test_french_cycle_with_aces_beat_bidou():
    aces, bidou, sixes = H("1-1-1"), H("2-1-1"), H("6-6-6")
    assert compare(aces, bidou, "french", True) == 1
    assert compare(bidou, sixes, "french", True) == 1
    assert compare(sixes, aces, "french", True) == 1
    assert rules.exceptions(6, "french", True) == ((aces, bidou),)


def test_french_without_aces_beat_bidou():
    assert compare(H("2-1-1"), H("1-1-1"), "french", False) == 1
    assert compare(H("1-1-1"), H("2-1-1"), "french", False) == -1
    assert rules.exceptions(6, "french", False) == ()
    # the exception is french only
    assert compare(H("2-1-1"), H("1-1-1"), "encyclopedia", True) == 1


def test_french_631_share():
    # 6-3-1 is an "other" hand; in the french order fewer throws lie below it.
    assert share_beaten(H("6-3-1"), "french") == Fraction(13, 36)


def test_unknown_ranking_raises():
    with pytest.raises(ParameterError, match="ranking"):
        compare((6, 3, 1), (6, 3, 2), "x")


# --- properties over all rankings -----------------------------------------------------------

RANKING_OPTIONS = [("encyclopedia", True), ("encyclopedia", False),
                   ("french", True), ("french", False)]


@pytest.mark.parametrize("ranking,aces", RANKING_OPTIONS)
@pytest.mark.parametrize("faces", FACES)
def test_ties_only_between_identical_hands(faces, ranking, aces):
    hands = rules.all_hands(faces)
    for a in hands:
        for b in hands:
            result = compare(a, b, ranking, aces)
            assert result in (-1, 0, 1)
            assert (result == 0) == (a == b)


@pytest.mark.parametrize("faces", FACES)
@pytest.mark.parametrize("ranking", ["encyclopedia", "french"])
def test_ranked_hands_is_a_permutation(faces, ranking):
    order = rules.ranked_hands(faces, ranking)
    assert sorted(order) == sorted(rules.all_hands(faces))
    keys = [rank_key(h, ranking) for h in order]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)


hands6 = st.sampled_from(rules.all_hands(6))
options = st.sampled_from(RANKING_OPTIONS)


@settings(max_examples=300, deadline=None)
@given(hands6, hands6, options)
def test_compare_is_antisymmetric(a, b, option):
    ranking, aces = option
    assert compare(a, b, ranking, aces) == -compare(b, a, ranking, aces)


@settings(max_examples=300, deadline=None)
@given(st.permutations([6, 3, 1]), hands6, options)
def test_compare_ignores_dice_order(dice, b, option):
    ranking, aces = option
    assert compare(tuple(dice), b, ranking, aces) == compare((6, 3, 1), b, ranking, aces)


@settings(max_examples=500, deadline=None)
@given(hands6, hands6, hands6, st.booleans())
def test_encyclopedia_is_transitive(a, b, c, aces):
    if compare(a, b, "encyclopedia", aces) > 0 and compare(b, c, "encyclopedia", aces) > 0:
        assert compare(a, c, "encyclopedia", aces) > 0


@settings(max_examples=500, deadline=None)
@given(hands6, hands6, hands6)
def test_french_without_exception_is_transitive(a, b, c):
    if compare(a, b, "french", False) > 0 and compare(b, c, "french", False) > 0:
        assert compare(a, c, "french", False) > 0


def test_french_with_exception_has_exactly_one_overridden_pair():
    hands = rules.all_hands(6)
    overridden = [(a, b) for a in hands for b in hands
                  if compare(a, b, "french", True) != compare(a, b, "french", False)]
    assert sorted(overridden) == sorted([((1, 1, 1), (2, 1, 1)), ((2, 1, 1), (1, 1, 1))])


# --- names ----------------------------------------------------------------------------------

def test_names():
    assert rules.hand_name((2, 1, 1)) == "bidou"
    assert rules.hand_name((1, 1, 1)) == "three aces"
    assert rules.hand_name((6, 5, 4)) == "straight 6-5-4"
    assert rules.hand_name((6, 3, 1)) == "6 high"
    assert rules.hand_name((4, 2, 1), "french") == "4-2-1"
    assert rules.source_name((6, 5, 4)) == "Escalera mayor"
    assert rules.source_name((2, 2, 1), "french") == "Bidet"
    assert rules.source_name((1, 1, 1), "french") == "Brelan d'as"
    assert rules.source_name((5, 3, 3), "french") == "Échelle"
    assert rules.source_name((5, 1, 1), "french") == "Fourchette"
    assert rules.source_name((6, 3, 1)) == ""


# --- reroll transitions ---------------------------------------------------------------------

@pytest.mark.parametrize("faces", FACES)
def test_next_hand_distribution_sums_to_one(faces):
    for hand in rules.all_hands(faces):
        for kept in rules.keep_options(hand):
            dist = rules.next_hand_distribution(hand, kept, faces)
            assert sum(dist.values()) == 1
            assert all(isinstance(p, Fraction) and p > 0 for p in dist.values())
            assert set(dist) <= set(rules.all_hands(faces))
            for new in dist:          # kept dice stay in the hand
                rest = list(new)
                for d in kept:
                    rest.remove(d)    # raises if a kept die is missing
                assert len(rest) == 3 - len(kept)
            assert len(dist) == len(rules.throw_distribution(kept, faces))


def test_keep_nothing_is_a_fresh_throw():
    assert rules.next_hand_distribution((6, 6, 1), (), 6) == hand_distribution(6)


def test_keep_two_sixes():
    dist = rules.next_hand_distribution((6, 6, 1), (6, 6), 6)
    assert dist[(6, 6, 6)] == Fraction(1, 6)
    assert dist == {(6, 6, x): Fraction(1, 6) for x in range(6, 0, -1)}


def test_keep_one_die():
    dist = rules.next_hand_distribution((6, 3, 1), (6,), 6)
    assert dist[(6, 6, 6)] == Fraction(1, 36)
    assert dist[(6, 2, 1)] == Fraction(2, 36)
    assert rules.next_hand_distribution((2, 1, 1), (1, 1), 6)[(2, 1, 1)] == Fraction(1, 6)


def test_keep_options():
    assert rules.keep_options((6, 6, 1)) == ((), (6,), (1,), (6, 6), (6, 1))
    assert rules.keep_options((5, 5, 5)) == ((), (5,), (5, 5))
    assert len(rules.keep_options((6, 3, 1))) == 7


def test_cannot_keep_dice_not_in_hand():
    with pytest.raises(ValueError):
        rules.next_hand_distribution((6, 6, 1), (5,), 6)
    with pytest.raises(ValueError):
        rules.next_hand_distribution((6, 6, 1), (6, 6, 1), 6)


# --- parameters -----------------------------------------------------------------------------

def test_default_params():
    p = BidouParams()
    assert (p.faces, p.throws, p.max_level, p.reroll, p.ranking, p.aces_beat_bidou) == \
        (6, 3, 4, "all", "encyclopedia", True)


@pytest.mark.parametrize("name,value", [
    ("faces", 1), ("faces", 7), ("throws", 0), ("throws", 4), ("max_level", 0),
    ("reroll", "some"), ("ranking", "x"), ("faces", True), ("faces", 4.0),
    ("aces_beat_bidou", "maybe"), ("aces_beat_bidou", 1),
])
def test_bad_values_raise_naming_the_parameter(name, value):
    with pytest.raises(ParameterError, match=name):
        BidouParams(**{name: value})
    with pytest.raises(ParameterError, match=name):
        BidouParams.from_mapping({name: value})


@pytest.mark.parametrize("name,value", [
    ("faces", "seven"), ("faces", "7"), ("throws", "4"), ("aces_beat_bidou", "maybe"),
])
def test_bad_strings_raise_naming_the_parameter(name, value):
    with pytest.raises(ParameterError, match=name):
        BidouParams.from_mapping({name: value})


def test_unknown_parameter():
    with pytest.raises(ParameterError, match="colour"):
        BidouParams.from_mapping({"colour": "red"})
    assert issubclass(ParameterError, ValueError)


def test_from_mapping_parses_strings():
    p = BidouParams.from_mapping({"faces": "4", "aces_beat_bidou": "true", "throws": " 2 ",
                                  "ranking": "french", "reroll": "keep", "max_level": "2"})
    assert p == BidouParams(faces=4, throws=2, max_level=2, reroll="keep", ranking="french",
                            aces_beat_bidou=True)
    assert BidouParams.from_mapping({"aces_beat_bidou": "false"}).aces_beat_bidou is False
    assert BidouParams.from_mapping({}) == BidouParams()


def _parse_game_string(text: str) -> dict:
    match = re.fullmatch(r"python_bidou\((.*)\)", text)
    assert match, text
    return dict(item.split("=", 1) for item in match.group(1).split(","))


@pytest.mark.parametrize("params", [
    BidouParams(),
    BidouParams(faces=3, throws=2, max_level=1, reroll="keep", ranking="french",
                aces_beat_bidou=False),
    BidouParams(faces=2, throws=1, ranking="french"),
])
def test_game_string_round_trip(params):
    text = params.to_game_string()
    assert text.startswith("python_bidou(")
    assert " " not in text
    assert BidouParams.from_mapping(_parse_game_string(text)) == params
    assert BidouParams.from_mapping(params.to_dict()) == params


def test_params_are_frozen():
    with pytest.raises(Exception):
        BidouParams().faces = 5  # type: ignore[misc]
