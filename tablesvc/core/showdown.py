"""Showdown: what each hand is worth, what to call it, and who shows first.

Hand strength comes from phevaluator (a perfect-hash evaluator; why this one:
docs/EVALUATOR.md): it maps any 5 to 7 cards to one of the 7 462 distinct five-card values,
so equal values are exactly the hands RANK-14 calls equal and suits never break a tie. The
words for the floor and the broadcast, and the five cards that make the hand, are worked out
here from the best five, which the evaluator finds by value.

>>> v = evaluate(["Kh", "Kd", "9s", "9c", "2d", "Ah", "3c"])
>>> v.category, v.name, v.best
('two pair', 'two pair, kings and nines', ('Kh', 'Kd', '9s', '9c', 'Ah'))
>>> evaluate(["As", "2d", "3h", "4c", "5s"]).name
'straight, five high'
>>> evaluate(["As", "Ks", "Qs", "Js", "Ts"]) > evaluate(["9h", "Kh", "Qh", "Jh", "Th"])
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from phevaluator.card import Card  # type: ignore[import-untyped]
from phevaluator.evaluator import evaluate_cards  # type: ignore[import-untyped]

from tablesvc.core.betting import Violation
from tablesvc.core.cards import ALL_CARDS, RANKS

CATEGORIES = ("high card", "pair", "two pair", "three of a kind", "straight", "flush",
              "full house", "four of a kind", "straight flush")
WORST = 7462  # the evaluator's weakest value (7-5-4-3-2 offsuit); 1 is a royal flush
HOLE_CARDS = 2

_VALUE = {r: v for v, r in enumerate(RANKS, start=2)}
_SUIT_ORDER = {s: i for i, s in enumerate("shdc")}
_WORD = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
         9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace"}
_ID = {card: int(Card.to_id(card)) for card in ALL_CARDS}


@dataclass(frozen=True, order=True)
class HandValue:
    """A hand's worth. Only ``key`` takes part in comparisons: equal keys are equal hands."""

    key: tuple[int, ...]  # (category 1..9, strength 1..7462): higher is better
    category: str = field(compare=False)
    name: str = field(compare=False)  # words for floor and broadcast
    best: tuple[str, ...] = field(compare=False)  # the five cards, most significant first


def evaluate(cards: Sequence[str]) -> HandValue:
    """The best five of 5 to 7 cards (RANK-13, SHOW-11); cards like "As", "Td", "2c".

    Hold'em: pass the hole cards first and the board last. When several sets of five are
    worth the same, the one using the later cards is reported, so a hand that plays the board
    shows the board as its best five (SHOW-04).

    >>> evaluate(["Ah", "Kh", "Qh", "Jh", "Th", "9h", "2c"]).name
    'royal flush'
    >>> evaluate(["4d", "4s", "9h", "Th", "Jc", "Qd", "Ks"]).best
    ('Ks', 'Qd', 'Jc', 'Th', '9h')
    """
    hand = list(cards)
    if not 5 <= len(hand) <= 7:
        raise ValueError(f"a hand is 5 to 7 cards, got {len(hand)}: {hand}")
    unknown = [c for c in hand if c not in ALL_CARDS]
    if unknown:
        raise ValueError(f"not a card: {unknown} (cards look like 'As', 'Td', '2c')")
    if len(set(hand)) != len(hand):
        twice = sorted({c for c in hand if hand.count(c) > 1})
        raise ValueError(f"the same card appears twice: {twice}")
    ids = [_ID[c] for c in hand]
    value = int(evaluate_cards(*ids))
    best = hand
    if len(hand) > 5:
        for pick in combinations(range(len(hand) - 1, -1, -1), 5):
            if int(evaluate_cards(*(ids[i] for i in pick))) == value:
                best = [hand[i] for i in sorted(pick)]
                break
    category, name, ordered = describe(best)
    return HandValue((CATEGORIES.index(category) + 1, WORST + 1 - value), category, name, ordered)


def describe(five: Sequence[str]) -> tuple[str, str, tuple[str, ...]]:
    """Category, words and display order of exactly five cards (RANK-02 to RANK-12).

    >>> describe(["7c", "Kd", "7h", "Ks", "Kc"])
    ('full house', 'full house, kings full of sevens', ('Ks', 'Kd', 'Kc', '7h', '7c'))
    >>> describe(["6s", "6d", "Qh", "6c", "6h"])[1]
    'four of a kind, sixes'
    """
    if len(five) != 5:
        raise ValueError(f"describe() takes exactly five cards, got {len(five)}")
    counts = Counter(_VALUE[c[0]] for c in five)
    # most significant first: bigger groups, then higher ranks; suits only fix the display
    ordered = sorted(five, key=lambda c: (-counts[_VALUE[c[0]]], -_VALUE[c[0]],
                                          _SUIT_ORDER[c[1]]))
    values = [_VALUE[c[0]] for c in ordered]
    groups = sorted(counts.values(), reverse=True)
    flush = len({c[1] for c in five}) == 1
    straight_high: int | None = None
    if len(counts) == 5:
        if values[0] - values[4] == 4:
            straight_high = values[0]
        elif values == [14, 5, 4, 3, 2]:  # the wheel: the ace plays low (RANK-07)
            straight_high = 5
            ordered = ordered[1:] + ordered[:1]
    top = values[0]
    if straight_high is not None and flush:
        if straight_high == 14:
            return "straight flush", "royal flush", tuple(ordered)
        return "straight flush", f"straight flush, {_WORD[straight_high]} high", tuple(ordered)
    if groups[0] == 4:
        return "four of a kind", f"four of a kind, {_plural(top)}", tuple(ordered)
    if groups == [3, 2]:
        return ("full house", f"full house, {_plural(top)} full of {_plural(values[3])}",
                tuple(ordered))
    if flush:
        return "flush", f"flush, {_WORD[top]} high", tuple(ordered)
    if straight_high is not None:
        return "straight", f"straight, {_WORD[straight_high]} high", tuple(ordered)
    if groups[0] == 3:
        return "three of a kind", f"three of a kind, {_plural(top)}", tuple(ordered)
    if groups[:2] == [2, 2]:
        return ("two pair", f"two pair, {_plural(top)} and {_plural(values[2])}",
                tuple(ordered))
    if groups[0] == 2:
        return "pair", f"a pair of {_plural(top)}", tuple(ordered)
    return "high card", f"{_WORD[top]} high", tuple(ordered)


def _plural(value: int) -> str:
    return _WORD[value] + ("es" if value == 6 else "s")


def show_order(active: Sequence[int], last_aggressor: int | None,
               seats_clockwise: Sequence[int] | None = None) -> list[int]:
    """Who shows first at the showdown, then clockwise (SHOW-01, SHOW-02, A-19).

    ``active`` is the seats still in the hand, clockwise from the button's left. The last
    aggressor shows first; with none, the first active seat left of the button. If the last
    aggressor is no longer active and ``seats_clockwise`` (every seat, clockwise) is given,
    the first active seat after him starts; without it, the first active seat left of the
    button does.

    >>> show_order([1, 2, 4, 6], last_aggressor=4)
    [4, 6, 1, 2]
    >>> show_order([1, 2, 4, 6], last_aggressor=None)
    [1, 2, 4, 6]
    >>> show_order([1, 2, 4, 6], last_aggressor=3, seats_clockwise=[1, 2, 3, 4, 5, 6])
    [4, 6, 1, 2]
    """
    seats = list(active)
    if last_aggressor is None or not seats:
        return seats
    if last_aggressor in seats:
        start = seats.index(last_aggressor)
        return seats[start:] + seats[:start]
    if seats_clockwise is None or last_aggressor not in seats_clockwise:
        return seats
    ring = list(seats_clockwise)
    i = ring.index(last_aggressor)
    after = ring[i + 1:] + ring[:i]
    first = next((s for s in after if s in seats), seats[0])
    start = seats.index(first)
    return seats[start:] + seats[:start]


def foul_hand(seat: int, hole: Sequence[str]) -> Violation | None:
    """SHOW-09: a hold'em player with more or fewer than two hole cards cannot win.

    >>> foul_hand(3, ["As", "Kd", "2c"]).name
    'foul_hand_card_count'
    >>> foul_hand(3, ["As", "Kd"]) is None
    True
    """
    if len(hole) == HOLE_CARDS:
        return None
    return Violation(
        "foul_hand_card_count", "SHOW-09",
        f"Seat {seat} holds {len(hole)} cards at the showdown; a hold'em hand has exactly "
        f"{HOLE_CARDS}. The hand is foul and cannot win; its chips stay in the pot.")
