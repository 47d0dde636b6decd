"""Hold'em win probabilities: every board counted, or enough of them drawn at random.

The boards still possible are the ways to complete the known board from the cards not seen
(the deck less the live hole cards, the board and, by default, the dead cards). Each is
ranked for every live seat with the tables of ``tablesvc.equity.tables``; a seat wins a board
alone or shares it with the others that tie, and its ``tie`` is its share of the split
boards (a split among k players counts 1/k), so win + tie over the seats is the whole pot.

Pre-flop the boards are the 5-subsets of the unseen cards (1,712,304 heads-up). They are
enumerated by their lowest card: for the i-th unseen card, the other four come from the
cards above it, which are the first C(n-1-i, 4) rows of one colex table of 4-subsets (see
``tables.colex``) laid over the unseen cards in reverse. So the sums of the four are worked
out once, and each first card adds a constant: per seat and board, one addition and one table
read, in numpy. When even that is more than ``exact_limit`` hands, ``samples`` boards are
drawn at random instead, from a generator seeded by the hand state, so the same state gives
the same figures, with the error stated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from math import comb, sqrt
from typing import Any

import numpy as np
import numpy.typing as npt

from tablesvc.equity.tables import (
    NO_SUIT,
    RANK_KEYS,
    Tables,
    card_id,
    card_name,
    colex,
    hole_kind,
    rank_multisets,
    tables,
)

EXACT_LIMIT = 6_000_000
"""Seven-card hands one exact computation may rank; ten live hands pre-flop are 2.0 M, two
are 3.4 M, four (the most) 4.3 M. Above the limit the boards are sampled."""
SAMPLES = 60_000
SAMPLE_CHUNK = 20_000
CONFIDENCE_Z = 3.0  # the stated error is a 99.7 % confidence half-width


@dataclass(frozen=True)
class Counts:
    """What the boards gave: per seat, boards won alone and the share of split boards."""

    boards: int
    wins: npt.NDArray[np.float64]
    ties: npt.NDArray[np.float64]
    method: str  # "exact" | "sampled"
    outs: tuple[tuple[str, ...], ...] | None = None  # per seat, on the turn

    def percentages(self) -> list[tuple[float, float]]:
        """(win %, tie %) per seat, rounded to 0.01 so that they add up to exactly 100."""
        shares = np.concatenate([self.wins, self.ties]) / max(self.boards, 1) * 10_000
        floors = np.floor(shares + 1e-9)
        short = round(10_000 - floors.sum())
        order = np.argsort(-(shares - floors), kind="stable")
        floors[order[:max(short, 0)]] += 1
        n = len(self.wins)
        return [(float(floors[i]) / 100, float(floors[n + i]) / 100) for i in range(n)]

    def error(self) -> float | None:
        """Sampled: the largest 99.7 % confidence half-width of a seat's win or equity, in
        percent (a share in [0, 1] has variance at most p (1 - p))."""
        if self.method != "sampled" or not self.boards:
            return None
        worst = 0.0
        for p in np.concatenate([self.wins / self.boards,
                                 (self.wins + self.ties) / self.boards]):
            worst = max(worst, CONFIDENCE_Z * sqrt(p * (1 - p) / self.boards))
        return round(worst * 100, 2)


def holdem_counts(holes: Sequence[Sequence[str]], board: Sequence[str],
                  dead: Sequence[str] = (), *, exact_limit: int = EXACT_LIMIT,
                  samples: int = SAMPLES, seed: Sequence[int] = (0,)) -> Counts:
    """Count the boards for these live hands. Raises ValueError on a card seen twice."""
    hole_ids = [(card_id(a), card_id(b)) for a, b in holes]
    board_ids = [card_id(c) for c in board]
    seen = [c for h in hole_ids for c in h] + board_ids
    if len(set(seen)) != len(seen):
        raise ValueError("a card is in two places")
    if len(hole_ids) < 2 or len(board_ids) not in (0, 3, 4, 5):
        raise ValueError("equity needs two live hands and a board of 0, 3, 4 or 5 cards")
    out = set(seen) | {card_id(c) for c in dead}
    deck = np.array([c for c in range(52) if c not in out], dtype=np.int64)
    k = 5 - len(board_ids)
    if len(deck) < k:
        raise ValueError("not enough unseen cards to complete the board")
    t = tables()
    acc = _Accumulator(len(hole_ids))
    if comb(len(deck), k) * len(hole_ids) > exact_limit:
        _sampled(t, acc, hole_ids, board_ids, deck, k, samples, seed)
        return Counts(acc.boards, acc.wins, acc.ties, "sampled")
    if k == 5:
        _exact_preflop(t, acc, hole_ids, deck)
        return Counts(acc.boards, acc.wins, acc.ties, "exact")
    rest = colex(len(deck), k) if k else np.zeros((1, 0), dtype=np.uint8)
    cards = deck[rest.astype(np.intp)]
    eq = _boards(t, acc, hole_ids, _Part.of(t, cards), _Part.base(t, board_ids), keep=k == 1)
    outs = None
    if k == 1:
        outs = tuple(tuple(card_name(int(c)) for c in deck[eq[p]]) for p in range(len(holes)))
    return Counts(acc.boards, acc.wins, acc.ties, "exact", outs)


class _Accumulator:
    def __init__(self, players: int) -> None:
        self.boards = 0
        self.wins = np.zeros(players)
        self.ties = np.zeros(players)

    def add(self, values: npt.NDArray[np.int16], keep: bool = False) -> npt.NDArray[np.bool_]:
        """Rank one batch of boards (a row of values per seat; lower is better). ``keep``:
        return which seats win or tie each board (the outs)."""
        players, n = values.shape
        self.boards += n
        if players == 2 and not keep:  # heads-up: two comparisons say everything
            a, b = values
            first, second = np.count_nonzero(a < b), np.count_nonzero(b < a)
            self.wins += (first, second)
            self.ties += (n - first - second) / 2
            return np.empty((0, 0), dtype=np.bool_)
        best = np.minimum.reduce(values, axis=0)
        eq: npt.NDArray[np.bool_] = values == best
        count = np.zeros(n, dtype=np.uint8)
        for row in eq:
            count += row
        single = count == 1
        for p in range(players):
            self.wins[p] += np.count_nonzero(eq[p] & single)
        split = np.flatnonzero(~single)
        if split.size:
            shares = 1.0 / count[split]
            for p in range(players):
                self.ties[p] += shares[eq[p, split]].sum()
        return eq


@dataclass(frozen=True)
class _Part:
    """Sums over some cards of many boards (or of a few known cards): rank keys, suit codes,
    and the rank masks of the four suits packed 16 bits apart."""

    rank_key: npt.NDArray[np.int64]
    suit_code: npt.NDArray[np.int64]
    packed: npt.NDArray[np.uint64]

    @classmethod
    def of(cls, t: Tables, cards: npt.NDArray[np.int64]) -> _Part:
        """Per row of ``cards`` (boards x cards); a column at a time, which numpy does fast."""
        n = len(cards)
        rank_key = np.zeros(n, dtype=np.int64)
        suit_code = np.zeros(n, dtype=np.int64)
        packed = np.zeros(n, dtype=np.uint64)
        for j in range(cards.shape[1]):
            col = cards[:, j]
            rank_key += t.rank_key[col]
            suit_code += t.suit_code[col]
            packed |= t.packed_bit[col]
        return cls(rank_key, suit_code, packed)

    @classmethod
    def base(cls, t: Tables, cards: Sequence[int]) -> _Part:
        return cls.of(t, np.array([list(cards)], dtype=np.int64).reshape(1, len(cards)))


class _Hole:
    """One seat's two cards as the tables need them."""

    def __init__(self, t: Tables, a: int, b: int) -> None:
        # its row of values, by the board's rank kind
        self.values = t.noflush[hole_kind(int(t.rank_key[a]) + int(t.rank_key[b]))]
        self.held = np.zeros(4, dtype=np.int64)  # cards per suit
        self.mask = np.zeros(4, dtype=np.uint16)  # rank mask per suit
        for c in (a, b):
            self.held[t.suit[c]] += 1
            self.mask[t.suit[c]] |= t.rank_bit[c]


class _Flushes:
    """The boards of a batch with three or more cards of one suit, and that suit's ranks."""

    def __init__(self, idx: npt.NDArray[np.integer[Any]], suit: npt.NDArray[np.integer[Any]],
                 count: npt.NDArray[np.integer[Any]], mask: npt.NDArray[np.uint16]) -> None:
        self.idx, self.suit, self.count, self.mask = idx, suit, count, mask

    @classmethod
    def of(cls, t: Tables, suit_code: npt.NDArray[np.int64],
           packed: npt.NDArray[np.uint64]) -> _Flushes:
        flush_suit = t.board_flush_suit[suit_code]
        idx = np.flatnonzero(flush_suit != NO_SUIT)
        fs = flush_suit[idx].astype(np.intp)
        shift = (16 * fs).astype(np.uint64)
        mask = ((packed[idx] >> shift) & np.uint64(0xFFFF)).astype(np.uint16)
        count = (suit_code[idx] >> (3 * fs)) & 7
        return cls(idx, fs, count, mask)

    def compact(self) -> _Flushes:
        """The same boards in the smallest types that hold them, to be kept for long."""
        return _Flushes(self.idx.astype(np.int32), self.suit.astype(np.int8),
                        self.count.astype(np.int8), self.mask)

    def apply(self, t: Tables, hole: _Hole, values: npt.NDArray[np.int16]) -> None:
        """The seat's value on each board where it makes a flush."""
        if not self.idx.size:
            return
        flush = self.count + hole.held[self.suit] >= 5
        if flush.any():
            values[self.idx[flush]] = t.flush[self.mask[flush] | hole.mask[self.suit[flush]]]


def _boards(t: Tables, acc: _Accumulator, holes: list[tuple[int, int]], part: _Part,
            base: _Part, keep: bool = False) -> npt.NDArray[np.bool_]:
    """Rank the boards of ``part`` (each completed by the cards of ``base``) for every seat."""
    rank_key = part.rank_key + base.rank_key[0]
    flushes = _Flushes.of(t, part.suit_code + base.suit_code[0], part.packed | base.packed[0])
    values = np.empty((len(holes), len(rank_key)), dtype=np.int16)
    # each board's kind of ranks (one of 6,175), then per seat a read from its row of values,
    # which stays in the processor's cache
    kind = np.searchsorted(rank_multisets(5), rank_key)
    for p, (a, b) in enumerate(holes):
        hole = _Hole(t, a, b)
        np.take(hole.values, kind, out=values[p])
        flushes.apply(t, hole, values[p])
    return acc.add(values, keep)


@dataclass(frozen=True)
class _QuadTable:
    """Every 4-subset of the 52 cards, worked out once per process (``quad_table``).

    Rows are in colex order of the reversed card ids (id 51 - r), so the subsets whose cards
    all lie above card c are exactly the first C(51 - c, 4) rows. Per row: the 52-bit set of
    its cards, the index of its rank multiset (1,820 kinds), and for each suit of a fifth card
    the boards that hold three or more cards of one suit (``flush``). ``with_rank[r]`` turns
    each of the 1,820 kinds into the kind of five ranks (``tables.noflush``'s column) it makes
    with a fifth card of rank r. Held for the process's life: each array in the smallest type
    that holds it (6 MB in all, where int64 everywhere took 14).
    """

    bits: npt.NDArray[np.uint64]
    kind: npt.NDArray[np.int16]
    with_rank: npt.NDArray[np.int16]  # [rank of the fifth card, kind of four] -> kind of five
    flush: tuple[_Flushes, ...]  # by the suit of the fifth (lowest) card


@cache
def quad_table() -> _QuadTable:
    t = tables()
    ids = (51 - colex(51, 4).astype(np.int64))
    part = _Part.of(t, ids)
    bits = np.zeros(len(ids), dtype=np.uint64)
    for j in range(4):
        bits |= np.uint64(1) << ids[:, j].astype(np.uint64)
    fours, fives = rank_multisets(4), rank_multisets(5)
    kind = np.searchsorted(fours, part.rank_key).astype(np.int16)
    with_rank = np.zeros((13, len(fours)), dtype=np.int16)
    for r in range(13):  # a rank held five times is no hand: left at 0, never read
        sums = fours + RANK_KEYS[r]
        at = np.minimum(np.searchsorted(fives, sums), len(fives) - 1)
        with_rank[r] = np.where(fives[at] == sums, at, 0)
    flush = tuple(_Flushes.of(t, part.suit_code + np.int64(8 ** s), part.packed).compact()
                  for s in range(4))
    return _QuadTable(bits, kind, with_rank, flush)


def _exact_preflop(t: Tables, acc: _Accumulator, holes: list[tuple[int, int]],
                   deck: npt.NDArray[np.int64]) -> None:
    """Every 5-subset of ``deck``, grouped by its lowest card (see the module's docstring).

    The four higher cards are reduced to the index of their rank multiset, so for one lowest
    card and one seat the value of every board is a read from a table of 1,820 values, which
    fits in the processor's fastest cache; the few boards where a seat makes a flush are
    listed once per seat and suit and overwritten.
    """
    q = quad_table()
    out = np.uint64(0)
    for c in set(range(52)) - {int(c) for c in deck}:
        out |= np.uint64(1) << np.uint64(c)
    valid = (q.bits & out) == 0
    kept = np.flatnonzero(valid)  # the quads of unseen cards, in table order
    kind = q.kind[kept].astype(np.intp)  # once, not at every take
    position = np.cumsum(valid) - 1  # table row -> its place among the kept ones
    seats = [_Hole(t, a, b) for a, b in holes]
    boards = []  # per suit of the lowest card: the boards with three of a suit among the kept
    for f in q.flush:
        keep = valid[f.idx]
        boards.append((position[f.idx[keep]], f.suit[keep], f.count[keep], f.mask[keep]))
    # per seat and suit of the lowest card: where the seat has a flush, and its ranks there
    flushes: list[list[tuple[Any, ...]]] = []
    for hole in seats:
        per_suit = []
        for where, fs, count, mask in boards:
            mine = np.flatnonzero(count + hole.held[fs] >= 5)  # count has the lowest card
            per_suit.append((where[mine], fs[mine], mask[mine] | hole.mask[fs[mine]]))
        flushes.append(per_suit)
    values = np.empty((len(holes), len(kept)), dtype=np.int16)
    for c in deck[:-4]:
        first = int(c)
        size = int(np.searchsorted(kept, comb(51 - first, 4)))
        suit, bit = int(t.suit[first]), t.rank_bit[first]
        row = values[:, :size]
        for p, hole in enumerate(seats):
            table = hole.values[q.with_rank[first // 4]]  # a card id is rank * 4 + suit
            np.take(table, kind[:size], out=row[p])
            where, fs, mask = flushes[p][suit]
            m = int(np.searchsorted(where, size))
            if m:
                row[p, where[:m]] = t.flush[np.where(fs[:m] == suit, mask[:m] | bit, mask[:m])]
        acc.add(row)


def _sampled(t: Tables, acc: _Accumulator, holes: list[tuple[int, int]], board: list[int],
             deck: npt.NDArray[np.int64], k: int, samples: int, seed: Sequence[int]) -> None:
    """``samples`` boards completed with k cards drawn at random without replacement."""
    rng = np.random.default_rng(list(seed))
    base = _Part.base(t, board)
    left = samples
    while left > 0:
        batch = min(SAMPLE_CHUNK, left)
        _boards(t, acc, holes, _Part.of(t, deck[_distinct(rng, batch, len(deck), k)]), base)
        left -= batch


def _distinct(rng: np.random.Generator, rows: int, n: int, k: int) -> npt.NDArray[np.intp]:
    """``rows`` uniform random k-subsets of range(n): k draws each, and the rows that drew a
    number twice drawn again until none did (a fifth of them with 5 of 44)."""
    picks = rng.integers(0, n, size=(rows, k))
    todo = np.arange(rows)
    while todo.size:
        bits = np.uint64(1) << picks[todo].astype(np.uint64)
        union, total = bits[:, 0].copy(), bits[:, 0].copy()
        for j in range(1, k):  # a number drawn twice: the bits' sum and union differ
            union |= bits[:, j]
            total += bits[:, j]
        todo = todo[union != total]
        picks[todo] = rng.integers(0, n, size=(len(todo), k))
    return picks.astype(np.intp)
