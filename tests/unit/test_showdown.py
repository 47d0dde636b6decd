"""Hand values, names and showing order (RULES.md RANK-01..14, SHOW-01/02/09/11, A-19)."""

from __future__ import annotations

import doctest
import random

import pytest
from pokerkit import StandardHighHand

from tablesvc.core import showdown
from tablesvc.core.cards import ALL_CARDS
from tablesvc.core.showdown import CATEGORIES, evaluate, show_order


def test_doctests_of_the_module_hold():
    assert doctest.testmod(showdown).failed == 0


# ---------------------------------------------------------------------- names (RANK-03..12)
@pytest.mark.parametrize(("cards", "category", "name"), [
    (["Ad", "Js", "9c", "6h", "3d", "2s", "4c"], "high card", "ace high"),
    (["Ac", "Ad", "Kh", "9s", "6d", "3c", "2h"], "pair", "a pair of aces"),
    (["Kh", "Kd", "9s", "9c", "2d", "Ah", "3c"], "two pair", "two pair, kings and nines"),
    (["7c", "7d", "7h", "Ks", "2d", "4c", "Jh"], "three of a kind", "three of a kind, sevens"),
    (["Ah", "2d", "3c", "4s", "5h", "9c", "Kd"], "straight", "straight, five high"),
    (["Ts", "Jd", "Qc", "Kh", "Ah", "2c", "2d"], "straight", "straight, ace high"),
    (["Ah", "9h", "6h", "4h", "2h", "Kc", "Kd"], "flush", "flush, ace high"),
    (["Kc", "Kd", "Kh", "7s", "7d", "2c", "3h"], "full house", "full house, kings full of sevens"),
    (["Qc", "Qd", "Qh", "Qs", "2d", "3c", "4h"], "four of a kind", "four of a kind, queens"),
    (["9s", "8s", "7s", "6s", "5s", "Ad", "Kc"], "straight flush", "straight flush, nine high"),
    (["Ad", "2d", "3d", "4d", "5d", "Kc", "Qh"], "straight flush", "straight flush, five high"),
    (["Ah", "Kh", "Qh", "Jh", "Th", "2c", "3d"], "straight flush", "royal flush"),
    (["6c", "6d", "6h", "6s", "Ad"], "four of a kind", "four of a kind, sixes"),
    (["Tc", "Td", "2h", "2s", "3d"], "two pair", "two pair, tens and twos"),
])
def test_rank_every_category_is_named_for_the_floor(cards, category, name):
    v = evaluate(cards)
    assert (v.category, v.name) == (category, name)
    assert v.key[0] == CATEGORIES.index(category) + 1
    assert len(v.best) == 5 and set(v.best) <= set(cards)


def test_rank07_wheel_is_five_high_and_shown_ace_last():
    v = evaluate(["Ah", "2d", "3c", "4s", "5h", "9c", "Kd"])
    assert v.best == ("5h", "4s", "3c", "2d", "Ah")
    assert v < evaluate(["2d", "3c", "4s", "5h", "6h", "9c", "Kd"])  # six high beats it


def test_rank07_no_wrap_around_straight():
    assert evaluate(["Qh", "Kd", "Ac", "2s", "3h"]).category == "high card"


def test_rank11_12_steel_wheel_is_the_lowest_and_royal_the_highest_straight_flush():
    royal = evaluate(["Ah", "Kh", "Qh", "Jh", "Th"])
    king = evaluate(["Kh", "Qh", "Jh", "Th", "9h"])
    wheel = evaluate(["Ad", "2d", "3d", "4d", "5d"])
    assert wheel < king < royal
    assert wheel > evaluate(["Ac", "Ad", "Ah", "As", "Kc"])


def test_rank02_categories_rank_in_order():
    hands = [
        ["Ad", "Js", "9c", "6h", "3d"], ["2c", "2d", "3h", "4s", "6d"],
        ["2c", "2d", "3h", "3s", "4d"], ["2c", "2d", "2h", "3s", "4d"],
        ["2c", "3d", "4h", "5s", "6d"], ["2c", "3c", "4c", "5c", "7c"],
        ["2c", "2d", "2h", "3s", "3d"], ["2c", "2d", "2h", "2s", "3d"],
        ["2c", "3c", "4c", "5c", "6c"],
    ]
    values = [evaluate(h) for h in hands]
    assert [v.category for v in values] == list(CATEGORIES)
    assert values == sorted(values)


@pytest.mark.parametrize(("better", "worse"), [
    (["Ad", "Ks", "9c", "6h", "4d"], ["Ac", "Kh", "9d", "6s", "3c"]),  # RANK-03 fifth card
    (["8d", "8s", "Ac", "4h", "3d"], ["8c", "8h", "Kc", "Qh", "Jd"]),  # RANK-04 kicker
    (["Kd", "Ks", "3c", "3h", "2d"], ["Qc", "Qh", "Jc", "Jh", "Ad"]),  # RANK-05 higher pair
    (["Kd", "Ks", "3c", "3h", "5d"], ["Kc", "Kh", "3d", "3s", "4d"]),  # RANK-05 kicker
    (["7d", "7s", "7c", "Ah", "2d"], ["7c", "7h", "7d", "Kh", "Qd"]),  # RANK-06 kickers
    (["2d", "2s", "2c", "3h", "3d"], ["Ac", "Kh", "Qd", "Jh", "9d"]),  # full house > high
    (["9d", "9s", "9c", "3h", "3d"], ["8c", "8h", "8d", "Ah", "Ad"]),  # RANK-09 trips first
    (["9d", "9s", "9c", "Qh", "Qd"], ["9c", "9h", "9d", "Jh", "Jd"]),  # RANK-09 then the pair
    (["5d", "5s", "5c", "5h", "Ad"], ["5c", "5h", "5d", "5s", "Kd"]),  # RANK-10 kicker
    (["Ah", "Jh", "9h", "6h", "3h"], ["Ac", "Jc", "9c", "6c", "2c"]),  # RANK-08 fifth card
])
def test_rank_ties_within_a_category_are_broken_by_the_rules(better, worse):
    assert evaluate(better) > evaluate(worse)


def test_rank14_suits_never_break_a_tie():
    a = evaluate(["As", "Ks", "Qs", "Js", "9d"])
    b = evaluate(["Ah", "Kh", "Qh", "Jh", "9c"])
    assert a == b and not a < b and not b < a
    assert a.best != b.best  # different cards, same value


def test_show11_rank13_only_the_best_five_of_seven_count():
    board = ["Ah", "Ad", "Kc", "Kd", "Qs"]
    a = evaluate(["2c", "3d", *board])  # plays A A K K Q
    b = evaluate(["Jc", "9h", *board])  # J and 9 are beyond the five cards
    assert a == b and a.name == "two pair, aces and kings"


def test_rank13_best_five_may_use_one_or_no_hole_card():
    one = evaluate(["Ah", "2c", "Kh", "Qh", "Jh", "Th", "3d"])
    assert one.name == "royal flush" and "Ah" in one.best and "2c" not in one.best


def test_show04_hand_that_plays_the_board_reports_the_board():
    board = ["9h", "Th", "Jc", "Qd", "Ks"]
    v = evaluate(["4d", "4s", *board])
    assert v.name == "straight, king high" and set(v.best) == set(board)


def test_evaluate_refuses_what_is_not_a_hand():
    with pytest.raises(ValueError, match="5 to 7 cards"):
        evaluate(["As", "Kd", "Qc", "Jh"])
    with pytest.raises(ValueError, match="not a card"):
        evaluate(["As", "Kd", "Qc", "Jh", "1s"])
    with pytest.raises(ValueError, match="appears twice"):
        evaluate(["As", "Kd", "Qc", "Jh", "As"])


# ---------------------------------------------------------------------- showing order
def test_show01_t01_last_aggressor_on_the_river_shows_first():
    assert show_order([1, 3], last_aggressor=3) == [3, 1]


def test_show01_then_clockwise_from_him():
    assert show_order([1, 2, 4, 6], last_aggressor=4) == [4, 6, 1, 2]


def test_show02_a19_no_aggressor_first_active_left_of_button():
    assert show_order([2, 5, 6], last_aggressor=None) == [2, 5, 6]


def test_show02_folded_aggressor_hands_over_to_the_next_active_seat():
    assert show_order([1, 2, 5], last_aggressor=4, seats_clockwise=range(1, 7)) == [5, 1, 2]
    assert show_order([1, 2, 5], last_aggressor=4) == [1, 2, 5]


# ---------------------------------------------------------------------- differential
def test_rank_evaluate_agrees_with_pokerkit_on_2000_random_hands():
    """Same winner or tie as an independent evaluator, on shared boards and across them."""
    rng = random.Random(20240501)
    deck = sorted(ALL_CARDS)
    ours, theirs = [], []
    for _ in range(1_000):  # 1 000 deals of a board and two hands: 2 000 seven-card hands
        cards = rng.sample(deck, 9)
        board = cards[4:]
        for hole in (cards[:2], cards[2:4]):
            ours.append(evaluate([*hole, *board]))
            theirs.append(StandardHighHand.from_game("".join(hole), "".join(board)))

    def outcome(a: object, b: object) -> int:
        return (a > b) - (a < b)  # type: ignore[operator]

    pairs = [(i, i + 1) for i in range(0, len(ours), 2)]  # the two hands of one deal
    pairs += [(i, i + 3) for i in range(0, len(ours) - 3, 2)]  # hands of different deals
    disagree = [(i, j) for i, j in pairs
                if outcome(ours[i], ours[j]) != outcome(theirs[i], theirs[j])]
    assert not disagree, [(ours[i], ours[j]) for i, j in disagree[:3]]
    ties = sum(outcome(ours[i], ours[j]) == 0 for i, j in pairs)
    assert ties > 0  # shared boards give ties, so the tie path is exercised too


def test_rank02_a_hand_ranks_in_the_category_its_words_name_on_5000_random_hands():
    """A hand ranks by its value before anyone asks what it is called (the words are worked
    out only for hands that are shown): the category it ranks in is the one its best five
    show, with every category met."""
    rng = random.Random(7)
    deck = sorted(ALL_CARDS)
    seen = set()
    for n in range(5_000):
        hand = rng.sample(deck, 5 + n % 3)
        v = evaluate(hand)
        assert v.key[0] == CATEGORIES.index(showdown.describe(v.best)[0]) + 1, hand
        assert v.category == showdown.describe(v.best)[0]
        seen.add(v.category)
    for cards in (["9s", "8s", "7s", "6s", "5s"], ["6c", "6d", "6h", "6s", "Ad"],
                  ["Kc", "Kd", "Kh", "7s", "7d"], ["Ts", "Jd", "Qc", "Kh", "Ah"]):
        v = evaluate(cards)
        assert v.key[0] == CATEGORIES.index(showdown.describe(v.best)[0]) + 1
        seen.add(v.category)
    assert seen == set(CATEGORIES)
