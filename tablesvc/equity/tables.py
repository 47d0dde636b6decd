"""Lookup tables that let numpy rank seven-card hands by the million.

A seven-card hold'em hand is the two hole cards plus a board of five; its value is the best
five-card value of phevaluator (1 = royal flush ... 7462 = 7-5-4-3-2 offsuit; lower is better),
so these tables can never disagree with the showdown the core settles.

- Without a flush a hand's value depends only on its ranks. Each rank has a key
  (``RANK_KEYS``, the keys of Kenneth Shackleton's SKPokerEval) chosen so that the sum of the
  keys of any seven ranks (each at most four times) is unique. Sums are additive, so the key of
  many boards is worked out a column of cards at a time. A table indexed by the seven-rank sum
  would take 16 MB of the box's memory for 49,205 values, so the sum is split where the cards
  split: the five board ranks (one of 6,175 multisets, found by a search in their sorted sums,
  ``rank_multisets(5)``) and the two hole ranks (one of 91): ``noflush[hole kind, board kind]``
  is the value, 1.1 MB.
- A flush needs three board cards of one suit. ``suit code`` = the sum of 8**suit over the
  cards counts each suit in three bits, so ``BOARD_FLUSH_SUIT[code]`` says which suit (if any)
  a board has three of, and ``FLUSH[rank mask]`` values the flush (or straight flush) of the
  ranks held in that suit. With five of a suit among seven cards no four of a kind or full
  house is possible, so the flush value is the hand's value.

The values come from the evaluator itself, for every rank multiset (49,205 hands) and every
flush mask (4,719); they are shipped in ``hand_values.npz`` (see ``VALUES_FILE``) and laid out
once per process (``tables()`` caches them).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tablesvc.core.cards import RANKS

try:
    from phevaluator import _pheval  # type: ignore[import-untyped]

    _EVAL = {5: _pheval.evaluate_5cards, 6: _pheval.evaluate_6cards,
             7: _pheval.evaluate_7cards}
except ImportError:  # a build without the extension: the public function takes ids too
    from phevaluator.evaluator import evaluate_cards  # type: ignore[import-untyped]

    _EVAL = dict.fromkeys((5, 6, 7), evaluate_cards)

SUITS = "cdhs"  # phevaluator's card id: rank * 4 + suit, in this suit order
RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
NO_SUIT = 4  # BOARD_FLUSH_SUIT's answer for a board without three cards of one suit

Ints = npt.NDArray[np.int64]


def card_id(card: str) -> int:
    """``"As"`` -> 51: phevaluator's id, rank * 4 + suit."""
    return RANKS.index(card[0]) * 4 + SUITS.index(card[1])


def card_name(cid: int) -> str:
    return RANKS[cid // 4] + SUITS[cid % 4]


@dataclass(frozen=True)
class Tables:
    rank_key: npt.NDArray[np.uint32]  # card id -> its rank's key
    suit_code: npt.NDArray[np.int32]  # card id -> 8 ** suit
    suit: npt.NDArray[np.int8]  # card id -> suit
    rank_bit: npt.NDArray[np.uint16]  # card id -> 1 << rank
    packed_bit: npt.NDArray[np.uint64]  # card id -> 1 << (16 * suit + rank): a sum of these
    # over distinct cards holds the rank mask of each suit in 16 bits
    noflush: npt.NDArray[np.int16]  # [hole ranks' kind, board ranks' kind] -> value; one
    # row per hole kind, so that a seat's values of every board kind lie side by side
    flush: npt.NDArray[np.int16]  # 13-bit rank mask of one suit (5-7 bits) -> value
    board_flush_suit: npt.NDArray[np.int8]  # suit code of five cards -> suit with >= 3, or 4


@cache
def tables() -> Tables:
    ids = np.arange(52)
    rank_key = np.array([RANK_KEYS[c // 4] for c in range(52)], dtype=np.uint32)
    suit = (ids % 4).astype(np.int8)
    suit_code = (8 ** (ids % 4)).astype(np.int32)
    rank_bit = (1 << (ids // 4)).astype(np.uint16)
    packed_bit = (np.uint64(1) << (16 * (ids % 4) + ids // 4).astype(np.uint64))
    keys, values, flush = hand_values()
    noflush = seven_rank_values(keys, values)
    board_flush_suit = np.full(5 * 512 + 1, NO_SUIT, dtype=np.int8)
    for code in range(len(board_flush_suit)):
        counts = [(code >> (3 * s)) & 7 for s in range(4)]
        if sum(counts) == 5 and max(counts) >= 3:
            board_flush_suit[code] = counts.index(max(counts))
    return Tables(rank_key, suit_code, suit, rank_bit, packed_bit, noflush, flush,
                  board_flush_suit)


def seven_rank_values(keys: npt.NDArray[np.int64], values: npt.NDArray[np.int16]
                      ) -> npt.NDArray[np.int16]:
    """The ``noflush`` table from the values of the seven-rank multisets (keys: their rank-key
    sums). A pair of kinds that holds a rank five times is no hand: 0 there, never read."""
    order = np.argsort(keys)
    keys, values = keys[order], values[order]
    sums = rank_multisets(2)[:, None] + rank_multisets(5)[None, :]
    at = np.minimum(np.searchsorted(keys, sums), len(keys) - 1)
    return np.where(keys[at] == sums, values[at], 0).astype(np.int16)


def hole_kind(rank_key: int) -> int:
    """The row of ``noflush`` for two hole cards whose rank keys add up to ``rank_key``."""
    return int(np.searchsorted(rank_multisets(2), rank_key))


VALUES_FILE = Path(__file__).with_name("hand_values.npz")
"""The evaluator's values of every seven-rank multiset and every flush, as shipped: 300 KB
read in milliseconds, where working them out takes the interpreter half a second during which
the service's pipeline thread would wait for it (``python -m tablesvc.equity.tables`` writes
the file again; a test checks it against the evaluator)."""


def hand_values() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """(rank-key sums of the 49,205 seven-rank multisets, their values, the flush table)."""
    try:
        with np.load(VALUES_FILE) as f:
            return f["keys"].astype(np.int64), f["values"], f["flush"]
    except (OSError, KeyError, ValueError):
        return build_hand_values()


def build_hand_values() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int16],
                                 npt.NDArray[np.int16]]:
    """Ask the evaluator for every multiset of seven ranks, and every flush."""
    keys, values = [], []
    for ranks in combinations_with_replacement(range(13), 7):
        if any(ranks.count(r) > 4 for r in set(ranks)):
            continue
        # suits dealt round robin: no suit more than twice, so no flush
        cards = [r * 4 + i % 4 for i, r in enumerate(ranks)]
        keys.append(sum(RANK_KEYS[r] for r in ranks))
        values.append(_EVAL[7](*cards))
    flush = np.zeros(1 << 13, dtype=np.int16)
    for n in (5, 6, 7):
        for ranks in combinations(range(13), n):
            flush[sum(1 << r for r in ranks)] = _EVAL[n](*[r * 4 + 3 for r in ranks])
    return np.array(keys, dtype=np.int64), np.array(values, dtype=np.int16), flush


@cache
def rank_multisets(k: int) -> npt.NDArray[np.int64]:
    """The rank-key sums of every multiset of k ranks (each at most four times), sorted: the
    position of a sum in it is a small index of the multiset."""
    sums = {sum(RANK_KEYS[r] for r in ranks)
            for ranks in combinations_with_replacement(range(13), k)
            if all(ranks.count(r) <= 4 for r in ranks)}
    return np.array(sorted(sums), dtype=np.int64)


@cache
def colex(m: int, k: int) -> npt.NDArray[np.uint8]:
    """Every k-subset of range(m), in colexicographic order, one per row (ascending).

    In this order the subsets of range(m') for any m' < m are exactly the first C(m', k)
    rows, which is what lets ``holdem`` enumerate the boards of a shrinking deck by prefix.
    """
    if k == 1:
        return np.arange(m, dtype=np.uint8).reshape(m, 1)
    prev = colex(m - 1, k - 1)
    parts = []
    for d in range(k - 1, m):
        count = comb(d, k - 1)
        part = np.empty((count, k), dtype=np.uint8)
        part[:, :k - 1] = prev[:count]
        part[:, k - 1] = d
        parts.append(part)
    return np.concatenate(parts) if parts else np.empty((0, k), dtype=np.uint8)


if __name__ == "__main__":  # write the shipped values again (after an evaluator upgrade)
    k, v, f = build_hand_values()
    np.savez_compressed(VALUES_FILE, keys=k.astype(np.int32), values=v, flush=f)
    print(f"{VALUES_FILE}: {len(k)} multisets, {int((f > 0).sum())} flushes")
