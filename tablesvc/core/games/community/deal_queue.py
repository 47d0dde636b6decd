"""The expected-movement queue of a hold'em hand (RULES.md §2.1-2.2): what it holds and how a
clean hand's queue is built.

One job: say which card should come next and where it should go. The clean sequence is the
deal plan of DEAL-02 (two hole cards a seat, ``HOLE_CARDS``), one burn before each street
(BURN-01) and the board's streets (BOARD-01..03: flop of three, turn and river of one). The
tracker (``community.tracker``) serves the queue's head with each card that arrives, and its
repairs (``community.burns``, ``community.exposures``) rewrite the queue as the rules
say. ``Burned`` and ``BoardDealt`` are what the tracker answers when a BURN or a BOARD entry is
served; the records every game shares are in ``tablesvc.core.card_flow``.

>>> [str(e) for e in build_queue((1, 2))]
['S1', 'S2', 'S1', 'S2', 'BURN', 'BOARD', 'BOARD', 'BOARD', 'BURN', 'BOARD', 'BURN', 'BOARD']
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from tablesvc.core.card_flow import CardAfterEnd, Dealt, Folded, GameOutcome, Irregularity

StreetName = Literal["preflop", "flop", "turn", "river"]
BOARD_STREETS: tuple[tuple[StreetName, int], ...] = (("flop", 3), ("turn", 1), ("river", 1))
STREET_SIZE: dict[str, int] = dict(BOARD_STREETS)
HOLE_CARDS = 2  # the deal plan: two hole cards a seat (DEAL-02)


@dataclass(frozen=True, slots=True)
class Expect:
    """One entry of the expected-movement queue: the next deck card goes to ``dest``.

    ``gate``: a betting round must be over before this card may leave the deck (the first
    entry of every street, RULES.md §2.3). ``tag``: TAG(x) - only that one card (by UID) may
    fill the entry (a returned burn, a redressed card); None means DECK_TOP. ``replaces``: the
    entry is the DEAL_FIX replacement for that exposed card (R1).
    """

    dest: str  # "S<n>", "BURN" or "BOARD"
    street: StreetName = "preflop"
    gate: bool = False
    tag: str | None = None
    replaces: str | None = None

    def __str__(self) -> str:
        return self.dest


# What the hold'em hand answers with besides the records every game shares.
@dataclass(frozen=True, slots=True)
class Burned(GameOutcome):
    before: StreetName
    index: int


@dataclass(frozen=True, slots=True)
class BoardDealt(GameOutcome):
    street: StreetName
    cards: tuple[str, ...]
    board: tuple[str, ...]


# Everything the hold'em tracker and its repairs answer with.
Outcome = Dealt | Burned | BoardDealt | Folded | Irregularity | CardAfterEnd


def build_queue(seats: tuple[int, ...], hole_cards: int = HOLE_CARDS) -> deque[Expect]:
    """The clean sequence of RULES.md §2.2 for seats s_1..s_N (s_1 first to receive)."""
    return deque(_clean_sequence(seats, hole_cards))


@lru_cache(maxsize=64)
def _clean_sequence(seats: tuple[int, ...], hole_cards: int) -> tuple[Expect, ...]:
    """``build_queue``'s entries, made once per seating: an ``Expect`` is immutable (a change
    to the queue puts a new one in its place), so every hand's queue can share them."""
    q: list[Expect] = []
    for _ in range(hole_cards):
        q.extend(Expect(f"S{s}") for s in seats)
    for street, n in BOARD_STREETS:
        q.append(Expect("BURN", street, gate=True))
        q.extend(Expect("BOARD", street) for _ in range(n))
    return tuple(q)


def tag_head(queue: deque[Expect], uid: str) -> None:
    """TAG(uid): only this card may serve the head of the queue (it must come back first)."""
    if queue:
        queue[0] = replace(queue[0], tag=uid)

