"""Hand strength for the virtual dealer's showdown (RULES.md RANK-01..14).

Deliberately the plainest possible evaluator, best five of seven by brute force: it only has to
be obviously right, and independent of the tracker's evaluator it is checked against. Omaha
(``best_omaha``) is the same brute force over the only fives its rule allows: exactly two hole
cards with exactly three of the board.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from simulators.decks import RANKS

HandValue = tuple[int, ...]
"""Category first (0 high card .. 8 straight flush; a royal flush is the ace-high straight
flush), then the ranks that break ties; larger tuples are better hands."""

CATEGORY_NAMES = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)


def _rank(card: str) -> int:
    return RANKS.index(card[0]) + 2


def _straight_high(ranks: Sequence[int]) -> int | None:
    distinct = sorted(set(ranks), reverse=True)
    if len(distinct) != 5:
        return None
    if distinct[0] - distinct[4] == 4:
        return distinct[0]
    if distinct == [14, 5, 4, 3, 2]:
        return 5  # the wheel: the ace plays low (RANK-07)
    return None


def rank5(cards: Sequence[str]) -> HandValue:
    if len(cards) != 5:
        raise ValueError("rank5 takes exactly five cards")
    ranks = [_rank(c) for c in cards]
    flush = len({c[1] for c in cards}) == 1
    high = _straight_high(ranks)
    if high is not None:
        return (8 if flush else 4, high)
    groups = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(n for _, n in groups)
    order = tuple(r for r, _ in groups)
    if flush:
        return (5, *sorted(ranks, reverse=True))
    category = {
        (4, 1): 7,
        (3, 2): 6,
        (3, 1, 1): 3,
        (2, 2, 1): 2,
        (2, 1, 1, 1): 1,
        (1, 1, 1, 1, 1): 0,
    }[shape]
    return (category, *order)


def best_hand(cards: Sequence[str]) -> HandValue:
    """Best five of five to seven cards (RANK-13: two, one or no hole cards may play)."""
    if not 5 <= len(cards) <= 7:
        raise ValueError("best_hand takes five to seven cards")
    return max(rank5(five) for five in combinations(cards, 5))


def best_omaha(hole: Sequence[str], board: Sequence[str]) -> HandValue:
    """Best Omaha hand: exactly two of the ``hole`` cards (four in Omaha) with exactly three
    of the ``board`` (three to five cards). Never the board alone, never one or three hole
    cards, whatever they would make: four hearts in the hand and one on the board are no
    flush."""
    if len(hole) < 2:
        raise ValueError("best_omaha takes at least two hole cards")
    if not 3 <= len(board) <= 5:
        raise ValueError("best_omaha takes three to five board cards")
    return max(
        rank5([*two, *three]) for two in combinations(hole, 2) for three in combinations(board, 3)
    )


def describe(value: HandValue) -> str:
    return CATEGORY_NAMES[value[0]]
