"""Omaha win probabilities: every board counted from the flop on, boards sampled pre-flop.

An Omaha hand is exactly two of the hole cards (four, or five in five-card Omaha) and exactly
three of the five board cards: per board and seat the best of 6 x 10 = 60 five-card hands (10
x 10 with five hole cards). Ranking them one by one costs 60 evaluations where hold'em's
tables cost one; here the work is moved to once per seat, so that a board costs each seat one
or two table reads, as in hold'em:

- Without a flush a five-card hand's value depends only on its ranks: the rank multiset of the
  hole pair (one of 91) and of the board triple (one of 455) give it (``pair_triple``). For a
  seat, the best of its pairs against each triple kind is a row of 455 values, and since the
  ten triples of a board depend only on the board's rank multiset (one of 6,175), the best of
  them is a row of 6,175 values per seat, worked out once per hand state. A board's value for
  the seat is one read from that row. A flush counted as its ranks alone is a high card or a
  straight, which the real flush beats, so the flushes can be laid over it afterwards.
- A flush needs two hole cards of a suit and three board cards of that suit; a five-card board
  has at most one suit three times. Per seat and suit, the best flush of its suited pairs with
  three ranks of each possible board mask of that suit (3 to 5 ranks, 2,288 masks) is a row
  of 8,192 values (``flush_masks``); a board with three or more cards of a suit reads it once.

The boards are those of hold'em (``tablesvc.equity.holdem``): the ways to complete the known
board from the unseen cards, the dead cards removed; every one counted when there are at most
``OMAHA_EXACT_LIMIT`` hands to rank (the flop is at most about 2,100: six four-card hands leave
C(25, 2) = 300 boards), otherwise ``samples`` boards drawn from a generator seeded by the hand
state, with the error stated. Pre-flop is sampled but for many players or many dead cards (ten
four-card hands leave 792 boards, which are all counted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import comb

import numpy as np
import numpy.typing as npt

from tablesvc.equity.holdem import (
    SAMPLE_CHUNK,
    SAMPLES,
    Counts,
    _Accumulator,
    _distinct,
    _Flushes,
    _Part,
)
from tablesvc.equity.tables import (
    _EVAL,
    RANK_KEYS,
    Tables,
    card_id,
    card_name,
    colex,
    rank_multisets,
    tables,
)

OMAHA_EXACT_LIMIT = 150_000
"""Hands (a board for one seat, the best of its 60 five-card hands) one exact computation may
rank by default; more are sampled. The flop is at most about 2,100 hands, pre-flop six-handed
589,680 and heads-up 2,172,016. ``compute`` never lets the service's limit raise it."""
OMAHA_VARIANTS = ("omaha", "omaha5")
"""The request variants of four-card and five-card Omaha."""
HOLE_SIZES = (4, 5)
NONE = 32767  # worse than any value (7462 is the worst hand): no hand of this kind
FIVE_COLEX = 26
"""Exact boards of five cards are the first C(n, 5) rows of one colex table of range(26): one
table for every deck size that small, not one per size."""


@dataclass(frozen=True)
class OmahaTables:
    """What every seat's rows are made from, worked out once per process (``omaha_tables``)."""

    pair_triple: npt.NDArray[np.int16]  # [pair's rank kind, triple's rank kind] -> value
    # the second index runs over the many kinds or masks, so that taking the best of the ten
    # is an element-wise minimum of ten long rows, which numpy does fast
    triples_of_five: npt.NDArray[np.int16]  # [10, five ranks' kind] -> kinds of its triples
    flush_masks: npt.NDArray[np.uint16]  # the 2,288 rank masks of 3 to 5 ranks
    flush_triples: npt.NDArray[np.uint16]  # [10, mask] -> its 3-rank sub-masks, 0 past the last
    flush5: npt.NDArray[np.int16]  # 13-bit rank mask -> value of that flush, NONE unless 5 bits


@cache
def omaha_tables() -> OmahaTables:
    """About 0.3 MB, built in a few hundredths of a second from the evaluator's values of the
    6,175 five-rank multisets and hold'em's flush table (so they never disagree with the
    showdown)."""
    fives, threes, twos = rank_multisets(5), rank_multisets(3), rank_multisets(2)
    ranks = np.zeros((len(fives), 5), dtype=np.int64)
    values = np.zeros(len(fives), dtype=np.int16)
    for combo in combinations_with_replacement(range(13), 5):
        if any(combo.count(r) > 4 for r in combo):
            continue
        row = int(np.searchsorted(fives, sum(RANK_KEYS[r] for r in combo)))
        ranks[row] = combo
        # suits round robin: no flush, and no card twice (that takes five of a rank)
        values[row] = _EVAL[5](*[r * 4 + i % 4 for i, r in enumerate(combo)])
    # a pair and a triple of one rank are five of it: their sum of keys may be another hand's
    held = _rank_counts(2)[:, None, :] + _rank_counts(3)[None, :, :]
    sums = twos[:, None] + threes[None, :]
    at = np.minimum(np.searchsorted(fives, sums), len(fives) - 1)
    pair_triple = np.where((held <= 4).all(axis=2), values[at], NONE).astype(np.int16)
    keys = np.array(RANK_KEYS, dtype=np.int64)
    triples_of_five = np.stack(
        [np.searchsorted(threes, keys[ranks[:, list(p)]].sum(axis=1))
         for p in combinations(range(5), 3)]).astype(np.int16)
    masks = [m for m in range(1 << 13) if 3 <= m.bit_count() <= 5]
    triples = np.zeros((10, len(masks)), dtype=np.uint16)
    for i, m in enumerate(masks):
        bits = [1 << r for r in range(13) if m >> r & 1]
        for j, three in enumerate(combinations(bits, 3)):
            triples[j, i] = sum(three)
    flush = tables().flush
    fifth = np.array([m.bit_count() == 5 for m in range(1 << 13)])
    flush5 = np.where(fifth, flush, NONE).astype(np.int16)
    return OmahaTables(pair_triple, triples_of_five, np.array(masks, dtype=np.uint16), triples,
                       flush5)


def _rank_counts(k: int) -> npt.NDArray[np.int8]:
    """How often each rank is in each multiset of ``rank_multisets(k)``, k at most 4."""
    counts = np.zeros((len(rank_multisets(k)), 13), dtype=np.int8)
    for combo in combinations_with_replacement(range(13), k):
        row = int(np.searchsorted(rank_multisets(k), sum(RANK_KEYS[r] for r in combo)))
        for r in combo:
            counts[row, r] += 1
    return counts


class _Seat:
    """One seat's rows: its best value by the board's rank kind, and by a flush board's suit
    and rank mask of that suit (None when it holds no two cards of a suit)."""

    def __init__(self, t: Tables, o: OmahaTables, cards: Sequence[int]) -> None:
        pairs = list(combinations(cards, 2))
        pair_keys = [int(t.rank_key[a]) + int(t.rank_key[b]) for a, b in pairs]
        kinds = np.searchsorted(rank_multisets(2), pair_keys)
        by_triple = o.pair_triple[kinds].min(axis=0)
        self.best: npt.NDArray[np.int16] = np.minimum.reduce(by_triple[o.triples_of_five])
        self.flush: npt.NDArray[np.int16] | None = None
        for s in range(4):
            suited = [int(t.rank_bit[c]) for c in cards if int(t.suit[c]) == s]
            if len(suited) < 2:
                continue
            if self.flush is None:
                self.flush = np.full((4, 1 << 13), NONE, dtype=np.int16)
            held = np.array([a | b for a, b in combinations(suited, 2)], dtype=np.intp)
            # a board mask sharing a rank with the seat's suit never occurs: its rows are NONE
            fives = o.flush5[held[:, None, None] | o.flush_triples[None, :, :]]
            self.flush[s, o.flush_masks] = fives.reshape(-1, len(o.flush_masks)).min(axis=0)


def omaha_counts(holes: Sequence[Sequence[str]], board: Sequence[str],
                 dead: Sequence[str] = (), *, exact_limit: int = OMAHA_EXACT_LIMIT,
                 samples: int = SAMPLES, seed: Sequence[int] = (0,)) -> Counts:
    """Count the boards for these live Omaha hands (four or five hole cards each, all the
    same). Raises ValueError on a card seen twice or a hand that is not Omaha."""
    hole_ids = [[card_id(c) for c in h] for h in holes]
    board_ids = [card_id(c) for c in board]
    seen = [c for h in hole_ids for c in h] + board_ids
    if len(set(seen)) != len(seen):
        raise ValueError("a card is in two places")
    sizes = {len(h) for h in hole_ids}
    if len(hole_ids) < 2 or len(sizes) != 1 or not sizes <= set(HOLE_SIZES):
        raise ValueError("Omaha equity needs two live hands of 4 (or all of 5) hole cards")
    if len(board_ids) not in (0, 3, 4, 5):
        raise ValueError("equity needs a board of 0, 3, 4 or 5 cards")
    out = set(seen) | {card_id(c) for c in dead}
    deck = np.array([c for c in range(52) if c not in out], dtype=np.int64)
    k = 5 - len(board_ids)
    if len(deck) < k:
        raise ValueError("not enough unseen cards to complete the board")
    t, o = tables(), omaha_tables()
    seats = [_Seat(t, o, h) for h in hole_ids]
    acc = _Accumulator(len(seats))
    base = _Part.base(t, board_ids)
    if comb(len(deck), k) * len(seats) > min(exact_limit, OMAHA_EXACT_LIMIT):
        rng = np.random.default_rng(list(seed))
        left = samples
        while left > 0:
            batch = min(SAMPLE_CHUNK, left)
            cards = deck[_distinct(rng, batch, len(deck), k)]
            _boards(t, acc, seats, _Part.of(t, cards), base)
            left -= batch
        return Counts(acc.boards, acc.wins, acc.ties, "sampled")
    rest = deck[_subsets(len(deck), k)]
    eq = _boards(t, acc, seats, _Part.of(t, rest), base, keep=k == 1)
    outs = None
    if k == 1:
        outs = tuple(tuple(card_name(int(c)) for c in deck[eq[p]]) for p in range(len(seats)))
    return Counts(acc.boards, acc.wins, acc.ties, "exact", outs)


def _subsets(n: int, k: int) -> npt.NDArray[np.intp]:
    """Every k-subset of range(n), one per row."""
    if k == 0:
        return np.zeros((1, 0), dtype=np.intp)
    if k == 5 and n <= FIVE_COLEX:
        return colex(FIVE_COLEX, 5)[:comb(n, 5)].astype(np.intp)
    return colex(n, k).astype(np.intp)


def _boards(t: Tables, acc: _Accumulator, seats: list[_Seat], part: _Part, base: _Part,
            keep: bool = False) -> npt.NDArray[np.bool_]:
    """Rank the boards of ``part`` (each completed by the cards of ``base``) for every seat."""
    kind = np.searchsorted(rank_multisets(5), part.rank_key + base.rank_key[0])
    flushes = _Flushes.of(t, part.suit_code + base.suit_code[0], part.packed | base.packed[0])
    values = np.empty((len(seats), len(kind)), dtype=np.int16)
    for p, seat in enumerate(seats):
        np.take(seat.best, kind, out=values[p])
        if seat.flush is not None and flushes.idx.size:
            at = flushes.idx
            values[p, at] = np.minimum(values[p, at], seat.flush[flushes.suit, flushes.mask])
    return acc.add(values, keep)
