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

Five-card draw uses ``evaluate_draw``, which also ranks a hand left short by an irregularity
(A-21) against full hands in the same showdown. Omaha uses ``evaluate_omaha``: exactly two
hole cards and exactly three of the board.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from functools import cache
from itertools import combinations, combinations_with_replacement
from operator import itemgetter

from phevaluator.card import Card  # type: ignore[import-untyped]
from phevaluator.evaluator import evaluate_cards  # type: ignore[import-untyped]

from tablesvc.core.cards import ALL_CARDS, RANKS

try:  # the library's native evaluators, called with card ids: no conversion per card
    from phevaluator import _pheval  # type: ignore[import-untyped]

    _EVALUATE = {5: _pheval.evaluate_5cards, 6: _pheval.evaluate_6cards,
                 7: _pheval.evaluate_7cards}
except ImportError:  # a build without the extension: the public function takes ids too
    _EVALUATE = dict.fromkeys((5, 6, 7), evaluate_cards)
_EVALUATE_5 = _EVALUATE[5]


CATEGORIES = ("high card", "pair", "two pair", "three of a kind", "straight", "flush",
              "full house", "four of a kind", "straight flush")
WORST = 7462  # the evaluator's weakest value (7-5-4-3-2 offsuit); 1 is a royal flush
DRAW_CARDS = 5

_VALUE = {r: v for v, r in enumerate(RANKS, start=2)}
_SUIT_ORDER = {s: i for i, s in enumerate("shdc")}
_WORD = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
         9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace"}
_ID = {card: int(Card.to_id(card)) for card in ALL_CARDS}
# the sets of five of 6 and 7 cards, the later cards first (see ``evaluate``), each with a
# getter that takes those five out of a list in one call
_PICKS = {n: tuple((pick, itemgetter(*pick)) for pick in combinations(range(n - 1, -1, -1), 5))
          for n in (6, 7)}


class HandValue:
    """A hand's worth. Only ``key`` takes part in comparisons: equal keys are equal hands.

    ``key``: (category 1..9, strength 1..7462), higher is better. A draw hand short of five
    cards (A-21) has (category, strength of the next weaker five-card value, its five ranks
    with 0 for each missing card), which sorts between that value and the next: see
    evaluate_draw. ``category``, ``name`` (words for floor and broadcast) and ``best`` (the
    five, or, short, all the cards held, most significant first) say what the hand is.

    A value from ``evaluate`` works its words out when they are first asked for: at a
    showdown only the hands that are shown need them, and finding which five of seven cards
    make the hand was most of the cost of evaluating one. The answers are the same either
    way. Immutable by convention, like the frozen dataclass it replaces (same constructor,
    comparisons, hash and repr).
    """

    __slots__ = ("_cards", "_words", "key")

    def __init__(self, key: tuple[int, ...], category: str, name: str,
                 best: Sequence[str]) -> None:
        self.key = key
        self._words: tuple[str, str, tuple[str, ...]] | None = (category, name, tuple(best))
        self._cards: list[str] = []

    @classmethod
    def _of(cls, key: tuple[int, ...], cards: list[str]) -> HandValue:
        """The value of ``cards`` (5 to 7, checked), its words worked out when asked for."""
        value = cls.__new__(cls)
        value.key = key
        value._words = None
        value._cards = cards
        return value

    @property
    def category(self) -> str:
        return self._described()[0]

    @property
    def name(self) -> str:
        return self._described()[1]

    @property
    def best(self) -> tuple[str, ...]:
        return self._described()[2]

    def _described(self) -> tuple[str, str, tuple[str, ...]]:
        if self._words is None:
            self._words = describe(_best_five(self._cards, WORST + 1 - self.key[1]))
        return self._words

    def __eq__(self, other: object) -> bool:
        return self.key == other.key if isinstance(other, HandValue) else NotImplemented

    def __lt__(self, other: HandValue) -> bool:
        return self.key < other.key if isinstance(other, HandValue) else NotImplemented

    def __le__(self, other: HandValue) -> bool:
        return self.key <= other.key if isinstance(other, HandValue) else NotImplemented

    def __gt__(self, other: HandValue) -> bool:
        return self.key > other.key if isinstance(other, HandValue) else NotImplemented

    def __ge__(self, other: HandValue) -> bool:
        return self.key >= other.key if isinstance(other, HandValue) else NotImplemented

    def __hash__(self) -> int:
        return hash((self.key,))

    def __repr__(self) -> str:
        return (f"HandValue(key={self.key!r}, category={self.category!r}, name={self.name!r}, "
                f"best={self.best!r})")

    def __getstate__(self) -> tuple[tuple[int, ...], tuple[str, str, tuple[str, ...]]]:
        return self.key, self._described()

    def __setstate__(self, state: tuple[tuple[int, ...], tuple[str, str, tuple[str, ...]]],
                     ) -> None:
        self.key, self._words = state
        self._cards = []


_CATEGORY_ENDS = (10, 166, 322, 1599, 1609, 2467, 3325, 6185, WORST)
"""The evaluator's weakest value of each category, strongest category first: straight flush
1-10, four of a kind 11-166, full house, flush, straight, three of a kind, two pair, pair,
high card 6186-7462."""


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
    _check_cards(hand)
    value = int(_EVALUATE[len(hand)](*[_ID[c] for c in hand]))
    category = len(CATEGORIES) - bisect_left(_CATEGORY_ENDS, value)
    return HandValue._of((category, WORST + 1 - value), hand)


OMAHA_HOLE = (4, 5)
"""Hole cards of an Omaha hand: four, or five in five-card Omaha."""
_PAIRS = {n: tuple(combinations(range(n), 2)) for n in OMAHA_HOLE}
_TRIPLES = {n: tuple(combinations(range(n), 3)) for n in (3, 4, 5)}


def evaluate_omaha(hole: Sequence[str], board: Sequence[str]) -> HandValue:
    """The best Omaha hand: exactly two of the hole cards and exactly three of the board.

    ``hole`` is four cards (five in five-card Omaha), ``board`` three to five. Values compare
    with those of ``evaluate``: the same five cards are worth the same. The five reported are
    the first best found, hole pairs and board triples taken in the order given.

    Four hearts in the hand and two on the board are no flush, and a board of four of a kind
    gives no hand four of a kind:

    >>> evaluate_omaha(["Ah", "Kh", "7h", "6h"], ["Qh", "Jh", "8c", "4d", "2s"]).name
    'ace high'
    >>> v = evaluate_omaha(["Ac", "Ad", "2s", "3h"], ["9s", "9h", "9d", "9c", "Ks"])
    >>> v.name, v.best
    ('full house, nines full of aces', ('9s', '9h', '9d', 'Ad', 'Ac'))
    """
    held, shared = list(hole), list(board)
    if len(held) not in OMAHA_HOLE:
        raise ValueError(f"an Omaha hand is 4 or 5 hole cards, got {len(held)}: {held}")
    if len(shared) not in _TRIPLES:
        raise ValueError(f"an Omaha board is 3 to 5 cards, got {len(shared)}: {shared}")
    _check_cards(held + shared)
    hole_ids = [_ID[c] for c in held]
    board_ids = [_ID[c] for c in shared]
    five = _EVALUATE_5
    value, at = WORST + 1, ((0, 1), (0, 1, 2))
    for pair in _PAIRS[len(held)]:
        a, b = hole_ids[pair[0]], hole_ids[pair[1]]
        for triple in _TRIPLES[len(shared)]:
            v = five(a, b, board_ids[triple[0]], board_ids[triple[1]], board_ids[triple[2]])
            if v < value:
                value, at = v, (pair, triple)
    cards = [held[i] for i in at[0]] + [shared[i] for i in at[1]]
    category = len(CATEGORIES) - bisect_left(_CATEGORY_ENDS, value)
    return HandValue._of((category, WORST + 1 - value), cards)


def _best_five(hand: list[str], value: int) -> list[str]:
    """The five of ``hand`` worth ``value``; of several, the one using the later cards."""
    if len(hand) == 5:
        return hand
    ids = [_ID[c] for c in hand]
    five = _EVALUATE_5
    for pick, take in _PICKS[len(hand)]:
        if five(*take(ids)) == value:
            return [hand[i] for i in sorted(pick)]
    return hand  # never: the value of the hand is the value of one of its fives


def evaluate_draw(cards: Sequence[str]) -> HandValue:
    """A five-card-draw hand of 1 to 5 cards, comparable with any other in the same showdown.

    Five cards are worth exactly what ``evaluate`` says, so draw and hold'em never disagree.
    A player left short by a draw irregularity plays on (A-21: MISDEAL-16, DRAW-07, DRAW-08),
    so a short hand must still be ranked: only combinations that fit in the cards held count
    (high card, pair, two pair, three or four of a kind), straights and flushes are impossible,
    and each missing card ranks below every card. Within its category such a hand is compared
    rank by rank like a full one, a missing card losing to any card; so "A A K Q" loses to
    "A A K Q 2" but beats "A A K J T", and any pair beats any high-card hand.

    The key of a short hand is (category, s, r1, ..., r5): ``s`` is the strength of the
    strongest five-card hand of that category that it beats (or the strength just below the
    category's weakest), and r1..r5 are its ranks, most significant first, with 0 for each
    missing card. A five-card key (category, s) is a prefix of it, so it sorts just below,
    and the next five-card value (category, s + 1) just above; short hands that share ``s``
    are ordered by their ranks. Five-card keys are left as they are.

    More than five cards is a dead hand in draw (A-21) and no hand has zero cards: both are
    a ValueError, and the caller decides what to do with the seat.

    >>> short = evaluate_draw(["As", "Kc", "Ad", "Qh"])
    >>> short.category, short.name, short.best
    ('pair', 'a pair of aces (4 cards)', ('As', 'Ad', 'Kc', 'Qh'))
    >>> short > evaluate_draw(["Ks", "Kd", "Ac", "Qh", "Jd"])  # a full pair of kings
    True
    >>> short < evaluate_draw(["Ah", "Ac", "Kd", "Qs", "2c"])  # the 2 beats the missing card
    True
    >>> evaluate_draw(["9h", "Th", "Jh", "Qh"]).name  # no straight, no flush
    'queen high (4 cards)'
    >>> evaluate_draw(["2c", "2d"]) > evaluate_draw(["Ah", "Kd", "Qs", "Jc", "9h"])
    True
    >>> five = ["As", "2d", "3h", "4c", "5s"]
    >>> evaluate_draw(five) == evaluate(five), evaluate_draw(five).name
    (True, 'straight, five high')
    >>> evaluate_draw(["As", "Kd", "Qc", "Jh", "Ts", "9c"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a draw hand is 1 to 5 cards, got 6: [...] (too many cards: the hand is dead, A-21)
    """
    hand = list(cards)
    if len(hand) == DRAW_CARDS:
        return evaluate(hand)
    if not 1 <= len(hand) <= DRAW_CARDS:
        why = " (too many cards: the hand is dead, A-21)" if len(hand) > DRAW_CARDS else ""
        raise ValueError(f"a draw hand is 1 to 5 cards, got {len(hand)}: {hand}{why}")
    _check_cards(hand)
    counts = Counter(_VALUE[c[0]] for c in hand)
    ordered = tuple(sorted(hand, key=lambda c: (-counts[_VALUE[c[0]]], -_VALUE[c[0]],
                                                _SUIT_ORDER[c[1]])))
    ranks = [_VALUE[c[0]] for c in ordered]
    groups = sorted(counts.values(), reverse=True)
    if groups[0] == 4:
        category, words = "four of a kind", f"four of a kind, {_plural(ranks[0])}"
    elif groups[0] == 3:
        category, words = "three of a kind", f"three of a kind, {_plural(ranks[0])}"
    elif groups[:2] == [2, 2]:
        category = "two pair"
        words = f"two pair, {_plural(ranks[0])} and {_plural(ranks[2])}"
    elif groups[0] == 2:
        category, words = "pair", f"a pair of {_plural(ranks[0])}"
    else:
        category, words = "high card", f"{_WORD[ranks[0]]} high"
    number = CATEGORIES.index(category) + 1
    pattern = (*ranks, *[0] * (DRAW_CARDS - len(ranks)))
    patterns, strengths = _five_card_ladder()[number]
    i = bisect_left(patterns, pattern)  # never equal: the pattern holds a 0
    below = strengths[i - 1] if i else strengths[0] - 1
    n = len(hand)
    name = f"{words} ({n} card{'s' if n > 1 else ''})"
    return HandValue((number, below, *pattern), category, name, ordered)


@cache
def _five_card_ladder() -> dict[int, tuple[list[tuple[int, ...]], list[int]]]:
    """Every five-card rank pattern a short hand can be measured against, by category.

    For each category a short hand can have (not straight, flush or full house), the rank
    patterns of all its five-card hands (most significant first, as ``describe`` orders them),
    weakest first, with the evaluator's strength for each. In these categories the evaluator
    orders hands exactly by pattern, so a bisection finds where a short hand falls (the unit
    tests check that the two orders agree). Built once, on the first short hand: about 6 000
    evaluations.
    """
    rows: dict[int, list[tuple[tuple[int, ...], int]]] = {}
    for combo in combinations_with_replacement(range(2, 15), DRAW_CARDS):
        counts = Counter(combo)
        groups = tuple(sorted(counts.values(), reverse=True))
        pattern = tuple(sorted(combo, key=lambda v: (-counts[v], -v)))
        if groups == (1, 1, 1, 1, 1):
            if pattern[0] - pattern[4] == 4 or pattern == (14, 5, 4, 3, 2):
                continue  # a straight
            number = CATEGORIES.index("high card") + 1
        elif groups in _SHORT_GROUPS:
            number = CATEGORIES.index(_SHORT_GROUPS[groups]) + 1
        else:
            continue  # five of a kind or a full house: no short hand is one
        # suits s h d c s by position: never a flush, and equal ranks get different suits
        ids = [_ID[RANKS[v - 2] + "shdcs"[i]] for i, v in enumerate(pattern)]
        strength = WORST + 1 - int(_EVALUATE[len(ids)](*ids))
        rows.setdefault(number, []).append((pattern, strength))
    ladder: dict[int, tuple[list[tuple[int, ...]], list[int]]] = {}
    for number, found in rows.items():
        found.sort()
        ladder[number] = ([p for p, _ in found], [s for _, s in found])
    return ladder


_SHORT_GROUPS = {(2, 1, 1, 1): "pair", (2, 2, 1): "two pair", (3, 1, 1): "three of a kind",
                 (4, 1): "four of a kind"}


def _check_cards(hand: list[str]) -> None:
    """Only real cards, each once: a misread tag or a doubled card must not be ranked."""
    unknown = [c for c in hand if c not in ALL_CARDS]
    if unknown:
        raise ValueError(f"not a card: {unknown} (cards look like 'As', 'Td', '2c')")
    if len(set(hand)) != len(hand):
        twice = sorted({c for c in hand if hand.count(c) > 1})
        raise ValueError(f"the same card appears twice: {twice}")


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
