"""Omaha hands: exactly two hole cards and exactly three board cards, never more or fewer.

Each trap a hold'em reading would get wrong is named and ordered here; then a few thousand
random deals are ranked by pokerkit's Omaha hand type, which shares no code with the core's
evaluator, and the two must agree on who wins each pair of hands.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from pokerkit import OmahaHoldemHand
from pokerkit.lookups import Label

from tablesvc.core.cards import ALL_CARDS
from tablesvc.core.showdown import CATEGORIES, evaluate, evaluate_omaha

NINE_QUADS = ["9s", "9h", "9d", "9c", "Ks"]
RUN = ["5c", "6d", "7h", "8s", "9c"]
PAIRED = ["Ks", "Kd", "7c", "4h", "2s"]
LOW = ["3c", "4d", "5h", "Jc", "9s"]
DECK = sorted(ALL_CARDS)


def name(hole: list[str], board: list[str]) -> str:
    return evaluate_omaha(hole, board).name


def test_four_hearts_in_the_hand_and_two_on_the_board_are_no_flush() -> None:
    hole, board = ["Ah", "Kh", "7h", "6h"], ["Qh", "Jh", "8c", "4d", "2s"]
    v = evaluate_omaha(hole, board)
    assert (v.category, v.name) == ("high card", "ace high")
    assert v.best == ("Ah", "Kh", "Qh", "Jh", "8c")
    # what a reading of any seven of the nine cards with five hearts would say
    assert evaluate([*hole[:3], *board[:4]]).name == "flush, ace high"
    assert v < evaluate_omaha(["2c", "2d", "3s", "5c"], board)  # any pair beats it


def test_a_board_of_four_of_a_kind_gives_no_one_four_of_a_kind() -> None:
    aces = evaluate_omaha(["Ac", "Ad", "2s", "3h"], NINE_QUADS)
    kings = evaluate_omaha(["Kd", "Kh", "2c", "3c"], NINE_QUADS)
    nothing = evaluate_omaha(["2c", "3c", "4d", "5d"], NINE_QUADS)
    assert aces.name == "full house, nines full of aces"
    assert kings.name == "full house, kings full of nines"  # K K from the hand, the K on board
    assert nothing.name == "three of a kind, nines"
    assert kings > aces > nothing


def test_one_ace_of_spades_with_four_spades_on_the_board_is_no_flush() -> None:
    board = ["Ks", "Qs", "Js", "3s", "4d"]
    assert name(["As", "Kd", "7c", "2h"], board) == "a pair of kings"
    assert name(["As", "9d", "8c", "2h"], board) == "ace high"
    two_spades = evaluate_omaha(["2s", "5s", "8c", "9h"], board)
    assert two_spades.name == "flush, king high"  # two small spades make it, the ace alone not
    assert two_spades > evaluate_omaha(["As", "Kd", "7c", "2h"], board)


def test_a_straight_on_the_board_plays_only_with_two_hole_cards() -> None:
    assert name(["Kh", "Kc", "4c", "4d"], RUN) == "a pair of kings"  # 4 + 5-6-7-8 needs four
    assert name(["Ac", "Ad", "Kh", "Ks"], RUN) == "a pair of aces"
    jack = evaluate_omaha(["Tc", "Jd", "2h", "2s"], RUN)
    assert jack.name == "straight, jack high"
    assert jack > evaluate_omaha(["Ac", "Ad", "Kh", "Ks"], RUN) > evaluate_omaha(
        ["Kh", "Kc", "4c", "4d"], RUN)


def test_a_pair_on_the_board_and_a_pair_in_the_hand_make_a_full_house() -> None:
    sevens = evaluate_omaha(["7h", "7d", "Ac", "Qc"], PAIRED)
    aces = evaluate_omaha(["As", "Ah", "Qd", "Js"], PAIRED)
    kings = evaluate_omaha(["Kh", "2d", "9c", "8c"], PAIRED)
    assert sevens.name == "full house, sevens full of kings"
    assert aces.name == "two pair, aces and kings"  # A A K K and a kicker: no third ace
    assert kings.name == "full house, kings full of twos"
    assert kings > sevens > aces


def test_wheels_and_the_straights_above_them() -> None:
    wheel = evaluate_omaha(["As", "2d", "Kc", "Qh"], LOW)
    assert (wheel.name, wheel.best) == ("straight, five high", ("5h", "4d", "3c", "2d", "As"))
    seven = evaluate_omaha(["6c", "7d", "Kh", "Ks"], LOW)
    assert seven.name == "straight, seven high"
    assert seven > wheel
    assert name(["Ad", "5c", "Kh", "Qh"], ["2h", "3s", "4c", "9d", "Td"]) == "straight, five high"
    # A-2 in the hand and 3-4-5 on the board in one suit: the steel wheel
    assert name(["Ah", "2h", "Kc", "Kd"], ["3h", "4h", "5h", "Ks"]) == "straight flush, five high"


def test_a_hole_pair_and_a_board_pair_are_four_of_a_kind() -> None:
    v = evaluate_omaha(["8c", "8d", "Ah", "Kh"], ["8h", "8s", "Qh"])  # a flop: three cards
    assert v.name == "four of a kind, eights"
    assert v > evaluate_omaha(["Jh", "Th", "2c", "3c"], ["8h", "8s", "Qh"]) == evaluate_omaha(
        ["Jh", "Th", "2c", "3c"], ["8h", "8s", "Qh"])


def test_two_pair_in_the_hand_plays_only_one_of_its_pairs() -> None:
    board = ["Qs", "Qd", "2c", "7h"]  # the turn: four cards
    v = evaluate_omaha(["As", "Ad", "Kc", "Kh"], board)
    assert v.name == "two pair, aces and queens"


def test_five_card_omaha_chooses_two_of_five() -> None:
    board = ["Th", "9h", "2h", "Kc", "4d"]
    kings = evaluate_omaha(["Ah", "3c", "Kd", "Ks", "2c"], board)
    assert kings.name == "three of a kind, kings"  # one heart in the hand: no flush
    flush = evaluate_omaha(["Ah", "3h", "5h", "Kd", "Ks"], board)
    assert flush.name == "flush, ace high"  # the best two of three hearts, over the kings
    assert flush.best == ("Ah", "Th", "9h", "5h", "2h")
    assert flush > kings


@pytest.mark.parametrize(("hole", "board", "why"), [
    (["Ah", "Kh", "Qh"], ["2c", "3d", "4s"], "4 or 5 hole cards"),
    (["Ah", "Kh", "Qh", "Jh", "Th", "9h"], ["2c", "3d", "4s"], "4 or 5 hole cards"),
    (["Ah", "Kh", "Qh", "Jh"], ["2c", "3d"], "3 to 5 cards"),
    (["Ah", "Kh", "Qh", "Jh"], ["2c", "3d", "4s", "5s", "6s", "7s"], "3 to 5 cards"),
    (["Ah", "Kh", "Qh", "Jh"], ["2c", "3d", "Ah"], "twice"),
    (["Ah", "Kh", "Qh", "Xh"], ["2c", "3d", "4s"], "not a card"),
])
def test_a_hand_that_is_not_omaha_is_refused(hole: list[str], board: list[str],
                                             why: str) -> None:
    with pytest.raises(ValueError, match=why):
        evaluate_omaha(hole, board)


def test_omaha_values_compare_with_holdem_values_of_the_same_five() -> None:
    hole, board = ["As", "Ks", "2d", "3c"], ["Qs", "Js", "Ts", "4h", "4d"]
    v = evaluate_omaha(hole, board)
    assert v.name == "royal flush"
    assert v == evaluate(["As", "Ks", "Qs", "Js", "Ts"])


# ------------------------------------------------------------------ against pokerkit
DEALS = 3_000


def _order(a: Any, b: Any) -> int:
    return int(a > b) - int(a < b)


def test_who_wins_agrees_with_pokerkit_on_random_deals() -> None:
    rng = random.Random(31)
    labels = list(Label)
    for deal in range(DEALS):
        hole_size = 5 if deal % 5 == 0 else 4  # a fifth of the deals five-card Omaha
        board_size = (5, 5, 4, 3)[deal % 4]
        cards = rng.sample(DECK, 2 * hole_size + board_size)
        first, second = cards[:hole_size], cards[hole_size:2 * hole_size]
        board = cards[2 * hole_size:]
        ours = [evaluate_omaha(first, board), evaluate_omaha(second, board)]
        theirs = [OmahaHoldemHand.from_game("".join(h), "".join(board))
                  for h in (first, second)]
        assert _order(*ours) == _order(*theirs), (first, second, board)
        for v, h in zip(ours, theirs, strict=True):
            assert CATEGORIES[v.key[0] - 1] == v.category
            assert labels.index(h.entry.label) == v.key[0] - 1, (v.name, h)
