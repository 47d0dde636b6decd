"""The card flow of one hold'em hand: the expected-movement queue of RULES.md §2.1-2.2.

The hand knows which card should come next and where it should go; it is told what the
sensors saw (a card out of the shoe, a card arriving in a zone, a fold) and answers with what
happened in poker terms. It is pure: no I/O, no clock, no events envelope. The table wraps its
answers into events.

>>> hand = HoldemHand(seats=(1, 2, 3), button=3)
>>> [str(e) for e in hand.queue][:7]
['S1', 'S2', 'S3', 'S1', 'S2', 'S3', 'BURN']
>>> hand.card_out("U1", "As", face_up=False)
>>> hand.arrive("S1", "U1", "As")
[Dealt(seat=1, n=1, index=1, card='As', face_up=False, hole=None)]
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Literal

StreetName = Literal["preflop", "flop", "turn", "river"]
BOARD_STREETS: tuple[tuple[StreetName, int], ...] = (("flop", 3), ("turn", 1), ("river", 1))


@dataclass(frozen=True, slots=True)
class Expect:
    """One entry of the expected-movement queue: the next deck card goes to ``dest``."""

    dest: str  # "S<n>", "BURN" or "BOARD"
    street: StreetName = "preflop"

    def __str__(self) -> str:
        return self.dest


# What the hand answers with. The table turns them into events.
@dataclass(frozen=True, slots=True)
class Dealt:
    seat: int
    n: int
    index: int
    card: str
    face_up: bool
    hole: tuple[str, ...] | None  # the seat's full hole cards once complete (secure)


@dataclass(frozen=True, slots=True)
class Burned:
    before: StreetName
    index: int


@dataclass(frozen=True, slots=True)
class BoardDealt:
    street: StreetName
    cards: tuple[str, ...]
    board: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Folded:
    seat: int


@dataclass(frozen=True, slots=True)
class Deviation:
    """A card went somewhere other than expected. The rules engine names the irregularity."""

    expected: str | None
    observed: str
    index: int
    card: str
    seat: int | None


@dataclass(frozen=True, slots=True)
class CardAfterEnd:
    zone: str
    card: str


Outcome = Dealt | Burned | BoardDealt | Folded | Deviation | CardAfterEnd


@dataclass(slots=True)
class CardRecord:
    index: int
    card: str
    face_up: bool
    zone: str | None = None  # None while between the shoe and a zone


def build_queue(seats: tuple[int, ...], hole_cards: int = 2) -> deque[Expect]:
    """The clean sequence of RULES.md §2.2 for seats s_1..s_N (s_1 first to receive)."""
    q: deque[Expect] = deque()
    for _ in range(hole_cards):
        q.extend(Expect(f"S{s}") for s in seats)
    for street, n in BOARD_STREETS:
        q.append(Expect("BURN", street))
        q.extend(Expect("BOARD", street) for _ in range(n))
    return q


def deal_order(seats: tuple[int, ...], button: int) -> tuple[int, ...]:
    """Seats clockwise starting with the first one left of the button (the button last).

    >>> deal_order((2, 5), 5)
    (2, 5)
    >>> deal_order((1, 3, 4, 7), 3)
    (4, 7, 1, 3)
    """
    ordered = sorted(seats)
    after = [s for s in ordered if s > button]
    before = [s for s in ordered if s <= button]
    return tuple(after + before)


@dataclass
class HoldemHand:
    """Card flow of one hand. ``seats`` are the seats dealt in; ``button`` is the button seat."""

    seats: tuple[int, ...]
    button: int
    order: tuple[int, ...] = ()
    queue: deque[Expect] = field(default_factory=deque)
    cards: dict[str, CardRecord] = field(default_factory=dict)
    pending: str | None = None
    next_index: int = 1
    hole: dict[int, list[str]] = field(default_factory=dict)
    board: list[str] = field(default_factory=list)
    street: StreetName = "preflop"
    street_cards: list[str] = field(default_factory=list)
    folded: set[int] = field(default_factory=set)
    ended: bool = False

    def __post_init__(self) -> None:
        self.order = deal_order(self.seats, self.button)
        self.queue = build_queue(self.order)
        self.hole = {s: [] for s in self.order}

    # --- what the table asks about -------------------------------------------------
    @property
    def active(self) -> list[int]:
        return [s for s in self.order if s not in self.folded]

    @property
    def river_dealt(self) -> bool:
        return len(self.board) == 5

    def owner(self, uid: str) -> int | None:
        rec = self.cards.get(uid)
        if rec is None or rec.zone is None or not rec.zone.startswith("S"):
            return None
        seat = int(rec.zone[1:])
        return seat if rec.card in self.hole.get(seat, ()) else None

    # --- what the sensors saw ------------------------------------------------------
    def card_out(self, uid: str, card: str, face_up: bool) -> None:
        """A card left the shoe: it takes the next deck index and awaits its destination."""
        if uid in self.cards:
            return  # the same tag read again at the exit: noise, not a new card
        self.cards[uid] = CardRecord(self.next_index, card, face_up)
        self.next_index += 1
        self.pending = uid

    def arrive(self, zone: str, uid: str, card: str) -> list[Outcome]:
        rec = self.cards.get(uid)
        if rec is None:
            # no shoe (or the shoe missed it): the first read in a zone is the deal
            self.card_out(uid, card, face_up=False)
            rec = self.cards[uid]
        if rec.zone is None:
            rec.zone = zone
            if self.pending == uid:
                self.pending = None
            if self.ended:
                return [CardAfterEnd(zone, card)]
            return self._dealt(zone, uid, rec)
        previous, rec.zone = rec.zone, zone
        if zone == "MUCK" and previous.startswith("S") and not self.ended:
            seat = int(previous[1:])
            if seat in self.hole and seat not in self.folded:
                return self.fold(seat)
        return []

    def fold(self, seat: int) -> list[Outcome]:
        if seat not in self.hole or seat in self.folded or self.ended:
            return []
        self.folded.add(seat)
        return [Folded(seat)]

    # --- matching against the expected queue --------------------------------------
    def _dealt(self, zone: str, uid: str, rec: CardRecord) -> list[Outcome]:
        head = self.queue[0] if self.queue else None
        if head is None or head.dest != zone:
            seat = int(zone[1:]) if zone.startswith("S") and zone[1:].isdigit() else None
            return [Deviation(head.dest if head else None, zone, rec.index, rec.card, seat)]
        self.queue.popleft()
        if zone == "BURN":
            return [Burned(head.street, rec.index)]
        if zone == "BOARD":
            self.board.append(rec.card)
            self.street_cards.append(rec.card)
            if self.queue and self.queue[0].dest == "BOARD":
                return []
            cards = tuple(self.street_cards)
            self.street, self.street_cards = head.street, []
            return [BoardDealt(head.street, cards, tuple(self.board))]
        seat = int(zone[1:])
        held = self.hole[seat]
        held.append(rec.card)
        complete = tuple(held) if len(held) == 2 else None
        return [Dealt(seat, len(held), rec.index, rec.card, rec.face_up, complete)]
