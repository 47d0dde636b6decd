"""The virtual dealer's Omaha showdown (``simulators.handeval.best_omaha``) against pokerkit.

pokerkit is an independent implementation: its ``OmahaHoldemHand`` reads the same deals, and
both must name the same category for each hand and order any two hands on one board alike.
The deals are seeded and drawn from three decks: the full deck, a deck of two suits (flushes,
straight flushes, and hands with three or four cards of the flush suit that cannot use them)
and a deck of five ranks (pairs on the board, trips, full houses and quads in the hand that
the rule of two cuts down).
"""

from __future__ import annotations

import random

import pytest
from pokerkit import Label, OmahaHoldemHand

from simulators.handeval import best_omaha, describe

DEALS = 3000
FULL = [r + s for r in "23456789TJQKA" for s in "cdhs"]
TWO_SUITS = [c for c in FULL if c[1] in "hs"]


def five_ranks(rng: random.Random) -> list[str]:
    ranks = rng.sample("23456789TJQKA", 5)
    return [c for c in FULL if c[0] in ranks]


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def test_categories_and_order_agree_with_pokerkit_on_seeded_random_deals() -> None:
    rng = random.Random(31)
    categories: set[str] = set()
    ties = 0
    for i in range(DEALS):
        deck = (FULL, TWO_SUITS, None)[i % 3] or five_ranks(rng)
        cards = rng.sample(deck, 13)
        board, a, b = cards[8:], cards[:4], cards[4:8]
        ours = best_omaha(a, board), best_omaha(b, board)
        theirs = (OmahaHoldemHand.from_game("".join(a), "".join(board)),
                  OmahaHoldemHand.from_game("".join(b), "".join(board)))
        for value, hand, hole in zip(ours, theirs, (a, b), strict=True):
            assert describe(value) == hand.entry.label.value.lower(), (hole, board, hand)
            categories.add(describe(value))
        expected = 1 if theirs[0] > theirs[1] else -1 if theirs[0] < theirs[1] else 0
        assert sign((ours[0] > ours[1]) - (ours[0] < ours[1])) == expected, (a, b, board)
        ties += expected == 0
    assert categories == {label.value.lower() for label in Label}, categories
    assert ties > 10  # split pots are among the deals too


@pytest.mark.parametrize(
    ("hole", "board", "category"),
    [
        (["Ah", "Kh", "Qh", "Jh"], ["Th", "2c", "3d", "7s", "9c"], "high card"),  # one heart
        (["Ah", "Kh", "2c", "3d"], ["Qh", "Jh", "Th", "7s", "8s"], "straight flush"),
        (["2c", "3d", "4s", "9h"], ["As", "Ad", "Ac", "Ah", "Kd"], "three of a kind"),
        (["Ks", "2c", "3d", "4h"], ["As", "Qd", "Jc", "Th", "8d"], "high card"),  # one plays
        (["7c", "7d", "7h", "7s"], ["2c", "5d", "9h", "Jd", "Kc"], "one pair"),  # quads in hand
        (["As", "Ad", "2c", "3h"], ["Kd", "Kc", "Ks", "8h", "4d"], "full house"),
        (["5c", "6d", "Kh", "Qs"], ["2d", "3h", "4s", "Ac", "9c"], "straight"),  # six high
    ],
)
def test_exactly_two_hole_cards_and_three_of_the_board_play(
    hole: list[str], board: list[str], category: str,
) -> None:
    assert describe(best_omaha(hole, board)) == category
    assert OmahaHoldemHand.from_game("".join(hole), "".join(board)).entry.label.value.lower(
    ) == category


def test_too_few_cards_are_refused() -> None:
    with pytest.raises(ValueError, match="hole"):
        best_omaha(["Ah"], ["2c", "3d", "4h"])
    with pytest.raises(ValueError, match="board"):
        best_omaha(["Ah", "Kd", "Qc", "Js"], ["2c", "3d"])
