"""The card flow of one hold'em hand: the expected-movement queue of RULES.md §2.1-2.2.

The hand knows which card should come next and where it should go; it is told what the
sensors saw (a card out of the shoe, a card arriving in a zone, a fold) and answers with what
happened in poker terms. It is pure: no I/O, no clock of its own, no events envelope. The table
wraps its answers into events.

Debounce (sensor noise is not an irregularity):

* the same tag read twice at the shoe exit is one card (it keeps its deck index); only a card
  put back with ``shoe_in`` comes out again;
* the same tag read again in the zone it is already in is ignored;
* a card lifted from a zone and read in the same zone again (``depart`` then ``arrive`` of the
  same zone) has not moved. The optional ``ms`` timestamps of ``depart``/``arrive`` tell how
  long it was away: a burn card away from BURN for more than ``DEBOUNCE_MS`` was looked at
  (``burn_card_disturbed``, BURN-07); any other lift, or one without timestamps, is not a move.
  A lifted card that is read in another zone has moved from the zone it was lifted from.

>>> hand = HoldemHand(seats=(1, 2, 3), button=3)
>>> [str(e) for e in hand.queue][:7]
['S1', 'S2', 'S3', 'S1', 'S2', 'S3', 'BURN']
>>> hand.card_out("U1", "As", face_up=False)
[]
>>> hand.arrive("S1", "U1", "As")
[Dealt(seat=1, n=1, index=1, card='As', face_up=False, hole=None)]
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Literal

from tablesvc.core.card_flow import (
    CardAfterEnd,
    CardRecord,
    Dealt,
    Folded,
    Irregularity,
    deal_order,
)

# Rule ID -> the alerts this tracker raises for it (as Irregularity objects the session turns
# into alerts); docs/RULES-COVERAGE.md is generated from such declarations.
RULES: dict[str, tuple[str, ...]] = {
    "DEAL-02": ("deal_order_error",),
    "DEAL-05": ("redress_instructions", "redress_order_error", "redress_completed"),
    "DEAL-08": ("too_many_cards",),
    "SEAT-05": ("absent_player_hand_dead",),
    "BURN-01": ("burn_unexpected",),
    "BURN-02": ("burn_wrong_zone",),
    "BURN-03": ("burn_premature",),
    "BURN-04": ("burn_missing",),
    "BURN-05": ("burn_extra", "burn_skip_expected"),
    "BURN-06": ("burn_card_exposed",),
    "BURN-07": ("burn_card_disturbed",),
    "BURN-08": ("card_unaccounted",),
    "BOARD-01": ("board_card_count_error",),
    "BOARD-05": ("premature_card",),
    "BET-04": ("bb_option_skipped",),
    "EXPOSE-02": ("card_exposed",),
    "EXPOSE-03": ("exposed_card_kept",),
    "EXPOSE-04": ("boxed_card",),
    "MISDEAL-04": ("deal_order_error", "misdeal_required"),
    "MISDEAL-06": ("misdeal_required",),
    "MISDEAL-07": ("misdeal_required",),
    "MISDEAL-08": ("misdeal_required",),
    "MISDEAL-12": ("card_exposed", "exposed_card_not_replaced"),
    "DECK-04": ("deck_defective_duplicate",),
    "SHOW-13": ("live_hand_in_muck", "hand_reconstructed"),
    "CONDUCT-02": ("card_in_foreign_seat_zone",),
}

StreetName = Literal["preflop", "flop", "turn", "river"]
BOARD_STREETS: tuple[tuple[StreetName, int], ...] = (("flop", 3), ("turn", 1), ("river", 1))
STREET_SIZE: dict[str, int] = dict(BOARD_STREETS)
HOLE_CARDS = 2  # the deal plan: two hole cards a seat (DEAL-02)
DEBOUNCE_MS = 2000  # [derived] a burn card lifted longer than this was looked at (BURN-07)


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


# What the hand answers with besides the records every game shares (tablesvc.core.card_flow).
@dataclass(frozen=True, slots=True)
class Burned:
    before: StreetName
    index: int


@dataclass(frozen=True, slots=True)
class BoardDealt:
    street: StreetName
    cards: tuple[str, ...]
    board: tuple[str, ...]


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


def _seat_of(zone: str) -> int | None:
    return int(zone[1:]) if zone.startswith("S") and zone[1:].isdigit() else None


def _where(zone: str | None) -> str:
    if zone is None:
        return "no card"
    seat = _seat_of(zone)
    return f"seat {seat}" if seat is not None else zone.lower()


@dataclass
class HoldemHand:
    """Card flow of one hand. ``seats`` are the seats dealt in; ``button`` is the button seat.

    The betting gate (RULES.md §2.3): the hand does not know the chips, so the table passes the
    betting state with every card arrival, ``arrive(zone, uid, card, betting_over=...,
    bb_option_pending=...)``. ``betting_over`` is True when no betting round is open on the
    current street (the round is complete, or nobody can bet); ``bb_option_pending`` is True
    pre-flop while nobody has raised and the big blind has not acted. While a round is open no
    card is expected: a burn is ``burn_premature`` (R5), a board card ``premature_card`` (R6).
    Cards put back on top of the deck (redress, "Burn Card zurück") are reported with
    ``shoe_in(uid)``; a card leaving a zone may be reported with ``depart(zone, uid)``.

    The misdeal window (MISDEAL-01: open from the first card until the first voluntary action
    of pre-flop betting) is the table's knowledge: the console inputs ``exposed(uid,
    window_open)`` and ``boxed(uid, window_open)`` take it as a parameter. For what the sensors
    see during the deal itself (a card drawn face up that reaches its seat, or BURN) the hand
    takes the window as open unless a seat has folded: no voluntary action can come before the
    deal is complete. ``collected()`` is the inventory at the end of the hand (BURN-08).
    After ``misdeal_required`` (R10) or ``deck_defective_duplicate`` (R11) ``voided`` is set,
    the queue is empty and only the collection is expected.
    """

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
    # irregularities in progress (RULES.md §2.5)
    misplaced: dict[str, int] = field(default_factory=dict)  # R9: uid -> correct seat
    excess: set[str] = field(default_factory=set)  # R7: excess cards at a seat
    early_burn: str | None = None  # R5: burned while the round was open
    premature: list[str] = field(default_factory=list)  # R6: Rset (uids), in order
    premature_street: StreetName | None = None
    retracted_burned: set[str] = field(default_factory=set)
    r6_pending: bool = False
    missing_burn: list[str] = field(default_factory=list)  # R3: the street's cards so far
    missing_street: StreetName | None = None
    extra_burn: str | None = None  # R4: the second burn card
    skipped_burn: Expect | None = None  # R4(b): the next street's burn, removed
    exposures: list[str] = field(default_factory=list)  # D4: exposed hole cards, in order
    boxes: list[str] = field(default_factory=list)  # D2: boxed cards, in order
    boxed_pending: tuple[str | None, bool] | None = None  # D2 input before the card: (uid, window)
    wrong_burn: str | None = None  # D16: a deck card burned instead of the exposed card
    duplicates: set[str] = field(default_factory=set)  # D7
    absent: list[int] = field(default_factory=list)  # SEAT-05: reported absent during the deal
    dead: set[int] = field(default_factory=set)  # SEAT-05: dead hands
    live_mucked: dict[int, list[str]] = field(default_factory=dict)  # D19: seat -> tags in MUCK
    voided: str | None = None  # "misdeal" (R10) or "cancelled" (R11)
    wrong_zone: dict[str, str] = field(default_factory=dict)  # BURN-02: uid -> where it belongs
    # card -> its first record: a face seen twice is a defective deck (D7); looked up here
    # instead of searched for among every card out, for each card that leaves the shoe
    faces: dict[str, CardRecord] = field(default_factory=dict)

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

    @property
    def dealing(self) -> bool:
        return any(e.dest.startswith("S") for e in self.queue)

    @property
    def over(self) -> bool:
        """No more card is expected from the deck: the cards on the table may be collected."""
        return (self.ended or self.voided is not None or not self.queue
                or (not self.dealing and len(self.active) <= 1))

    def owner(self, uid: str) -> int | None:
        rec = self.cards.get(uid)
        if rec is None or rec.zone is None or not rec.zone.startswith("S"):
            return None
        seat = int(rec.zone[1:])
        return seat if rec.card in self.hole.get(seat, ()) else None

    def hole_count(self, seat: int) -> int:
        return len(self.hole.get(seat, ()))

    def cards_of(self, seat: int) -> list[str]:
        """The hole cards seat holds now (secure)."""
        return list(self.hole.get(seat, ()))

    def card_expected(self, betting_over: bool) -> bool:
        """May the next card leave the shoe now?"""
        return self.expected(betting_over) is not None

    @property
    def cards_coming(self) -> bool:
        """A batch of cards is being dealt (the deal, a street) and is not complete yet: no
        betting can come before its last card."""
        return bool(self.queue) and not self.queue[0].gate and self.next_index > 1 \
            and not self.ended and self.voided is None

    def expected(self, betting_over: bool = True) -> str | None:
        """Destination of the next card out of the deck; None: no card may leave the deck."""
        head = self.queue[0] if self.queue else None
        if head is None or self.ended or (head.gate and not betting_over):
            return None
        return head.dest

    # --- what the sensors saw ------------------------------------------------------
    def card_out(self, uid: str, card: str, face_up: bool) -> list[Outcome]:
        """A card left the shoe: it takes the next deck index and awaits its destination.

        A card that was put back (``shoe_in``) keeps its index when it comes out again. A face
        already seen in this hand under another UID is a defective deck (D7, DECK-04).
        """
        rec = self.cards.get(uid)
        if rec is not None:
            if rec.zone == "DECK":
                rec.zone = None
                rec.face_up = face_up
                self.pending = uid
            return []  # otherwise the same tag read again at the exit: noise, not a new card
        twin = self.faces.get(card)
        rec = self.cards[uid] = CardRecord(self.next_index, card, face_up)
        if twin is None:
            self.faces[card] = rec
        self.next_index += 1
        self.pending = uid
        if twin is None or self.ended:
            return []
        self.duplicates.add(uid)  # D7 -> R11 (R10 while the window is open)
        if self.voided is None:
            self.voided = "cancelled"
            self.queue.clear()
        return [self._irr(
            "deck_defective_duplicate", "DECK-04", "critical", None, rec, None, "SHOE",
            f"card #{rec.index} has the same face as card #{twin.index}: the deck is defective",
            "stop; while no player has acted: misdeal (MISDEAL-10); otherwise the hand is "
            "cancelled and every bet is returned (DECK-04); replace the deck before the next "
            "hand")]

    def depart(self, zone: str, uid: str, ms: int | None = None) -> None:
        """A card left ``zone`` (e.g. premature board cards taken back, R6). ``ms``: when, for
        the debounce (module docstring); nothing is decided until the card is read again."""
        rec = self.cards.get(uid)
        if rec is None or rec.zone != zone:
            return
        rec.lifted_from, rec.lifted_ms = zone, ms
        if zone == "BOARD" and uid in self.premature:
            rec.zone = "RETRACTED"

    def shoe_in(self, uid: str, bottom: bool = False) -> list[Outcome]:
        """A card went back on top of the deck (redress, "Burn Card zurück"); it keeps its index
        and must be the next card out (RULES.md §2.1). Hold'em has no stub to put a card
        under, so ``bottom`` changes nothing."""
        del bottom
        rec = self.cards.get(uid)
        if rec is None or self.ended:
            return []
        previous, rec.zone = rec.zone, "DECK"
        rec.lifted_from = None
        out: list[Outcome] = []
        if previous == "BURN" and self.voided is None and not self._may_leave_burn(uid):
            out.append(self._disturbed(rec, "DECK"))
        if uid == self.wrong_burn:  # D16 remedy: it is the first card of the street again
            self.wrong_burn = None
            i = next((i for i, e in enumerate(self.queue) if e.dest == "BOARD"), None)
            if i is not None:
                self.queue[i] = replace(self.queue[i], tag=uid)
            return out
        if uid in self.misplaced:
            return out
        if uid in self.excess:  # R7 redress: it takes its own place again
            self.excess.discard(uid)
            self._tag_head(uid)
        elif uid == self.extra_burn:  # R4(a): the second burn goes to the board
            self.extra_burn = None
            if self.skipped_burn is not None:
                self._restore_skipped_burn()
            self._tag_head(uid)
        elif uid in self.missing_burn:  # R3(a): street cards back, last dealt first
            self._redress_missing_burn(uid)
        return out

    def _may_leave_burn(self, uid: str) -> bool:
        """A remedy takes this burn card back (R4(a), R5, D3, D14, D16)."""
        return uid in (self.early_burn, self.extra_burn, self.wrong_burn) \
            or any(e.tag == uid for e in self.queue)

    def arrive(self, zone: str, uid: str, card: str, betting_over: bool = True,
               bb_option_pending: bool = False, ms: int | None = None,
               fold_possible: bool = True) -> list[Outcome]:
        """A card was read in ``zone``. ``betting_over``/``bb_option_pending``: see the class;
        ``ms``: when, for the debounce (module docstring).

        ``fold_possible``: the table's word (it knows the turn and the chips) that the seat
        whose hole card this is may be folding now. False when that seat is not the next to act
        and has nothing to call (e.g. the last bettor, SHOW-13): a live hole card read at MUCK
        is then ``live_hand_in_muck`` (D19), not a fold."""
        rec = self.cards.get(uid)
        out: list[Outcome] = []
        if rec is None:
            # no shoe (or the shoe missed it): the first read in a zone is the deal
            out += self.card_out(uid, card, face_up=False)
            rec = self.cards[uid]
        lifted, lifted_ms = rec.lifted_from, rec.lifted_ms
        rec.lifted_from = rec.lifted_ms = None
        if lifted == zone:  # lifted and put back: not a move
            if rec.zone == "RETRACTED":
                rec.zone = zone
            away = ms is not None and lifted_ms is not None and ms - lifted_ms > DEBOUNCE_MS
            if away and zone == "BURN" and not self.over:
                return [self._disturbed(rec, zone)]
            return []
        if rec.zone == zone:
            return []  # the same tag read again in its zone: noise
        if rec.zone is None:
            rec.zone = zone
            if self.pending == uid:
                self.pending = None
            return out + self._from_deck(zone, uid, rec, betting_over, bb_option_pending)
        previous, rec.zone = rec.zone, zone
        if self.ended and previous == "BURN" and zone not in ("MUCK", "DECK"):
            return self._burn_after_end(zone, rec)  # BURN-07: looked at after the hand
        if self.ended or self.voided is not None:
            return []
        if not fold_possible and zone == "MUCK" and previous.startswith("S"):
            seat = int(previous[1:])
            if seat in self.active and rec.card in self.hole.get(seat, ()):
                return self._live_in_muck(seat, uid, rec)
        return self._moved(previous, zone, uid, rec)

    def exposed(self, uid: str, window_open: bool) -> list[Outcome]:
        """The console reports hole card ``uid`` exposed (face up, or on the floor) - D4.

        ``window_open``: the misdeal window (MISDEAL-01) is still open, i.e. no player has made
        a voluntary action (call, bet, raise, fold) in the pre-flop round; the table knows it.
        The first exposure while it is open: ``card_exposed`` and R1 (MISDEAL-12); the second:
        ``misdeal_required`` (MISDEAL-07, R10). After the window the card is kept (EXPOSE-03).
        A burn card reported exposed is shown and stays burned (BURN-06).
        """
        rec = self.cards.get(uid)
        if rec is None or rec.zone is None or self.ended or self.voided is not None:
            return []
        if rec.zone == "BURN":
            return [self._irr("burn_card_exposed", "BURN-06", "info", None, rec, None, "BURN",
                              f"burn card #{rec.index} was exposed",
                              "show it to all players, then burn it face down; nothing else "
                              "changes")]
        seat = _seat_of(rec.zone)
        if seat is None or seat not in self.hole:
            return []
        return self._expose(uid, rec, seat, window_open)

    def boxed(self, uid: str | None, window_open: bool) -> list[Outcome]:
        """The console reports a face-up card in the deck (``BOXED``) - D2.

        ``uid``: the boxed card if known; None means the card burned during the deal that is
        waiting for its confirmation (D3), or else the next card out that is burned.
        ``window_open``: as for ``exposed``. The first boxed card: ``boxed_card`` and R2 (it
        stays in BURN, the seat still gets the next card, later indices shift by +1); the
        second while the window is open: ``misdeal_required`` (MISDEAL-08, R10).
        """
        if self.ended or self.voided is not None:
            return []
        if uid is None:
            head = self.queue[0] if self.queue else None
            if head is not None and head.tag is not None and head.dest.startswith("S") \
                    and self.cards[head.tag].zone == "BURN":
                uid = head.tag
        rec = self.cards.get(uid) if uid is not None else None
        if uid is not None and uid in self.boxes:
            return []  # confirmed twice
        if rec is None or rec.zone in (None, "DECK"):
            self.boxed_pending = (uid, window_open)  # the card is still to come
            return []
        if rec.zone == "BURN" and uid is not None:
            return self._boxed(uid, rec, window_open)
        seat = _seat_of(rec.zone)
        if uid is not None and seat is not None and seat in self.hole:
            return self._expose(uid, rec, seat, window_open)  # dealt face up: exposed
        return []

    def collected(self) -> list[Outcome]:
        """The hand is over and its cards are collected (BURN-08, D23): every tag that left the
        shoe must have reached MUCK (or be back in the deck stub). One ``card_unaccounted``
        (critical) per missing card."""
        out: list[Outcome] = []
        for rec in sorted(self.cards.values(), key=lambda r: r.index):
            if rec.zone in ("MUCK", "DECK"):
                continue
            where = "the shoe" if rec.zone is None else _where(rec.zone)
            out.append(self._irr(
                "card_unaccounted", "BURN-08", "critical", _seat_of(rec.zone or ""), rec, "MUCK",
                rec.zone or "SHOE",
                f"card #{rec.index} was not collected; it was last read at {where}",
                "stop and search for the card before the next hand; floor ruling"))
        return out

    def fold(self, seat: int) -> list[Outcome]:
        if seat not in self.hole or seat in self.folded or self.ended:
            return []
        self.folded.add(seat)
        return [Folded(seat)]

    # --- a card already on the table moved ----------------------------------------
    def _moved(self, previous: str, zone: str, uid: str, rec: CardRecord) -> list[Outcome]:
        head = self.queue[0] if self.queue else None
        if uid in self.misplaced:
            return self._redressed(zone, uid, rec)
        if head is not None and head.tag == uid and head.dest == zone:
            if uid in self.exposures and zone == "BURN":
                return self._take_exposed_burn(rec)
            return self._take(zone, rec)
        if uid in self.exposures and zone == "BURN" and previous.startswith("S"):
            return []  # R1: burned before its replacement; it serves when the flop burn is due
        if self.wrong_zone.get(uid) == zone:
            del self.wrong_zone[uid]  # BURN-02 remedied: the card now serves as the burn
            if head is not None and head.dest == zone:
                return self._take(zone, rec)
            return []
        out: list[Outcome] = []
        if previous == "BURN" and not (zone == "MUCK" and self.over):
            out.append(self._disturbed(rec, zone))  # D18
        seat = _seat_of(zone)
        if seat is not None and rec.card not in self.hole.get(seat, ()):  # D20
            out.append(self._foreign(previous, seat, rec))
        if out:
            return out
        if seat is not None and uid in self.live_mucked.get(seat, ()):
            return self._rebuilt(seat, uid, rec)
        if uid in self.premature and zone == "BURN" and uid not in self.retracted_burned:
            self.retracted_burned.add(uid)
            return [Burned(self.premature_street or self.street, rec.index)]
        if uid in self.excess:
            if zone == "BURN":  # R7: burned as excess, not the regular burn
                self.excess.discard(uid)
            return []
        if zone == "MUCK" and previous.startswith("S"):
            seat = int(previous[1:])
            if seat in self.hole and seat not in self.folded and rec.card in self.hole[seat]:
                return self.fold(seat)
        return []

    def _foreign(self, previous: str, seat: int, rec: CardRecord) -> Irregularity:
        return self._irr(
            "card_in_foreign_seat_zone", "CONDUCT-02", "warning", seat, rec, None, f"S{seat}",
            f"card #{rec.index} was moved from {_where(previous)} to seat {seat}",
            "floor: the card goes back where it belongs; warning or penalty (CONDUCT-02)")

    def _burn_after_end(self, zone: str, rec: CardRecord) -> list[Outcome]:
        """D18/D20 after the hand: a burn card taken anywhere but the collection (BURN-07)."""
        out: list[Outcome] = [self._disturbed(rec, zone)]
        seat = _seat_of(zone)
        if seat is not None:
            out.append(self._foreign("BURN", seat, rec))
        return out

    # --- D19: a live hand in the muck (SHOW-13) -------------------------------------
    def _live_in_muck(self, seat: int, uid: str, rec: CardRecord) -> list[Outcome]:
        mucked = self.live_mucked.setdefault(seat, [])
        first = not mucked
        mucked.append(uid)
        if not first:
            return []
        held = sorted(self.cards[u].index for u, r in self.cards.items()
                      if r.card in self.hole[seat])
        tags = ", ".join(f"#{i}" for i in held)
        return [self._irr(
            "live_hand_in_muck", "SHOW-13", "critical", seat, rec, f"S{seat}", "MUCK",
            f"the live hand of seat {seat} ({tags}) reached the muck without a fold",
            f"stop; if the hand was protected, take {tags} back out of the muck to seat {seat} "
            "(SHOW-13); otherwise the hand is foul and its bets stay in the pot (POT-08)")]

    def _rebuilt(self, seat: int, uid: str, rec: CardRecord) -> list[Outcome]:
        mucked = self.live_mucked[seat]
        mucked.remove(uid)
        if any(self.cards[u].zone == "MUCK" for u in mucked):
            return []
        del self.live_mucked[seat]
        return [self._irr("hand_reconstructed", "SHOW-13", "info", seat, rec, None, f"S{seat}",
                          f"the hand of seat {seat} is back at the seat", "the hand plays on")]

    def foul(self, seat: int) -> list[Outcome]:
        """The floor rules a live hand in the muck foul (SHOW-13 unprotected, POT-08): the
        seat is out of the hand, like a fold; its bets stay in the pot."""
        self.live_mucked.pop(seat, None)
        return self.fold(seat)

    # --- R9/R7 with FLOOR:redress_impossible --------------------------------------
    def redress_impossible(self, window_open: bool) -> list[Outcome]:
        """The floor rules that a pending redress cannot be done (``FLOOR:redress_impossible``).

        Wrongly dealt cards (R9) or an excess card (R7) while the misdeal window is open:
        ``misdeal_required`` (MISDEAL-04 / MISDEAL-06, R10). After the window the wrongly dealt
        cards stay where they are: each counts as a hole card of the seat that holds it (R9 ->
        R7/R8 per seat). A missing or second burn (R3(b), R4(b)) needs nothing here: the
        tracker already finishes the street as those rules say.
        """
        if self.ended or self.voided is not None:
            return []
        if self.misplaced:
            uids = sorted(self.misplaced, key=lambda u: self.cards[u].index)
            first = self.cards[uids[0]]
            if window_open:
                return [self._misdeal(first, _seat_of(first.zone or ""), "MISDEAL-04",
                                      f"the deal-order error from card #{first.index} cannot "
                                      "be redressed before any player acted")]
            out: list[Outcome] = []
            self.misplaced.clear()
            for u in uids:
                rec = self.cards[u]
                seat = _seat_of(rec.zone or "")
                if seat is None or seat not in self.hole:
                    continue
                if len(self.hole[seat]) >= 2:
                    out += self._excess(f"S{seat}", u, rec, None)
                else:
                    out += self._hole_card(seat, rec)
            return out
        if self.excess and window_open:
            rec = min((self.cards[u] for u in self.excess), key=lambda r: r.index)
            return [self._misdeal(rec, _seat_of(rec.zone or ""), "MISDEAL-06",
                                  f"the excess card #{rec.index} cannot be redressed before "
                                  "any player acted")]
        return []

    # --- SEAT-05: the absent player's dead hand -------------------------------------
    def player_absent(self, seat: int, window_open: bool) -> list[Outcome]:
        """The console reports seat ``seat`` away (``CON:player_absent``, SEAT-05).

        During the deal the report waits for the deal to complete. At the deal's completion,
        or once it is complete while no player has acted yet (``window_open``; the report is
        the presence check of DEAL-03 [derived]), the seat's hand is dead:
        ``absent_player_hand_dead`` (warning) and the seat is out of the hand like a fold. A
        player who leaves later is the table's absent-player rule (BET-16), not a dead hand.
        """
        if seat not in self.hole or seat in self.folded or self.ended \
                or self.voided is not None:
            return []
        if self.dealing:
            if seat not in self.absent:
                self.absent.append(seat)
            return []
        if not window_open:
            return []
        return self._dead_hand(seat)

    def _dead_hand(self, seat: int) -> list[Outcome]:
        self.dead.add(seat)
        held = sorted((self.cards[u] for u, r in self.cards.items()
                       if r.card in self.hole[seat]), key=lambda r: r.index)
        tags = " and ".join(f"#{r.index}" for r in held)
        rec = held[-1] if held else max(self.cards.values(), key=lambda r: r.index)
        return [self._irr(
            "absent_player_hand_dead", "SEAT-05", "warning", seat, rec, "MUCK", f"S{seat}",
            f"seat {seat} was absent when the deal was completed: the hand is dead",
            f"move {tags or 'the cards'} of seat {seat} to the muck; the seat is skipped in "
            "all betting; its posted blind stays in the pot (SEAT-05)"), *self.fold(seat)]

    def _deal_completed(self) -> list[Outcome]:
        """DEAL-03: the presence check runs once every seat has its cards (SEAT-05)."""
        if not self.absent or self.dealing:
            return []
        out: list[Outcome] = []
        for seat in self.absent:
            if seat not in self.folded:
                out += self._dead_hand(seat)
        self.absent.clear()
        return out

    def _redressed(self, zone: str, uid: str, rec: CardRecord) -> list[Outcome]:
        seat = self.misplaced[uid]
        if zone != f"S{seat}":
            return []
        del self.misplaced[uid]
        out: list[Outcome] = self._hole_card(seat, rec)
        if not self.misplaced:
            out.append(self._irr("redress_completed", "DEAL-05", "info", seat, rec, None, zone,
                                 "redress completed: every hole card is at its correct seat",
                                 "continue the deal"))
        return out + self._deal_completed()

    # --- a new card from the deck, matched against the queue ----------------------
    def _from_deck(self, zone: str, uid: str, rec: CardRecord, betting_over: bool,
                   bb_pending: bool) -> list[Outcome]:
        if self.r6_pending and betting_over:
            self._close_premature()
        if self.voided is not None:  # R10 / R11: only the collection is expected
            return [] if uid in self.duplicates else [CardAfterEnd(zone, rec.card)]
        # (one seat left and no hole card to come; ``active`` counted without its list)
        if self.ended or not self.queue or (
                len(self.order) - len(self.folded) <= 1 and not self.dealing):
            return [CardAfterEnd(zone, rec.card)]  # D21
        out: list[Outcome] = []
        head = self.queue[0]
        if head.tag == uid and uid in self.exposures and zone == "BURN":
            return self._take_exposed_burn(rec)  # R1: x via SHOE_IN/SHOE_OUT to the burn
        if head.tag is not None and head.tag != uid and head.tag in self.exposures \
                and head.dest == "BURN" and zone == "BURN" \
                and self.cards[head.tag].zone != "BURN":  # D16
            self.wrong_burn = uid
            x = self.cards[head.tag]
            return [self._irr(
                "exposed_card_not_replaced", "MISDEAL-12", "warning", None, rec, "BURN", zone,
                f"card #{rec.index} was burned; the burn before the flop must be the exposed "
                f"card #{x.index}",
                f"put card #{rec.index} back on top of the deck and burn the exposed card "
                f"#{x.index}")]
        if head.tag is not None and head.tag != uid:
            held = self.cards.get(head.tag)
            blocked = head.gate and not betting_over
            returned = held is not None and held.zone == "DECK"
            if held is not None and held.zone == head.dest and not blocked:
                # R5: the early burn never went back, and the round is now over: it stands
                out += self._take(head.dest, held)
                if not self.queue:
                    return [*out, CardAfterEnd(zone, rec.card)]
                head = self.queue[0]
            elif returned or not blocked:
                return [self._irr("redress_order_error", "DEAL-05", "warning", _seat_of(zone), rec,
                                  head.dest, zone,
                                  f"card #{rec.index} came out, but the returned card "
                                  f"#{held.index if held else '?'} must come out first",
                                  "put this card back on top of the deck and deal the returned "
                                  "card")]
        if head.dest.startswith("S"):
            return out + self._during_deal(zone, uid, rec, head)
        if head.gate and not betting_over:
            return out + self._betting_open(zone, uid, rec, head, bb_pending)
        if zone.startswith("S"):
            return out + self._excess(zone, uid, rec, head)
        if zone == head.dest:
            return out + self._take(zone, rec)
        if head.dest == "BURN" and zone == "BOARD":
            return out + self._burn_missing(zone, uid, rec, head)
        if head.dest == "BOARD" and zone == "BURN":
            if head.gate:
                return out + self._burn_skip_expected(zone, uid, rec, head)
            return out + self._burn_extra(zone, uid, rec, head)
        burn = head.dest == "BURN"
        if burn:
            self.wrong_zone[uid] = "BURN"  # moved there, it is the burn after all
        return [*out, self._irr("burn_wrong_zone" if burn else "deal_order_error",
                                "BURN-02" if burn else "DEAL-02", "warning", None, rec,
                                head.dest, zone,
                                f"card #{rec.index} went to {_where(zone)}; expected "
                                f"{_where(head.dest)}", f"move the card to {_where(head.dest)}")]

    def _take(self, zone: str, rec: CardRecord) -> list[Outcome]:
        """The head of Q is served by this card."""
        head = self.queue.popleft()
        if head.gate:
            self.early_burn = None
        if zone == "BURN":
            return [Burned(head.street, rec.index)]
        if zone == "BOARD":
            self.board.append(rec.card)
            self.street_cards.append(rec.card)
            if self.missing_street == head.street:
                uid = next(u for u, r in self.cards.items() if r is rec)
                self.missing_burn.append(uid)
            nxt = self.queue[0] if self.queue else None
            if nxt is not None and nxt.dest == "BOARD" and nxt.street == head.street:
                return []
            cards = tuple(self.street_cards)
            self.street, self.street_cards = head.street, []
            return [BoardDealt(head.street, cards, tuple(self.board))]
        return (self._hole_card(int(zone[1:]), rec) + self._settle_exposed_burn()
                + self._deal_completed())

    def _take_exposed_burn(self, rec: CardRecord) -> list[Outcome]:
        """R1: the exposed card serves the flop burn, possibly before pre-flop betting; the
        betting gate passes to the first flop card."""
        head = self.queue.popleft()
        if head.gate and self.queue:
            self.queue[0] = replace(self.queue[0], gate=True)
        return [Burned(head.street, rec.index)]

    def _settle_exposed_burn(self) -> list[Outcome]:
        """R1: the exposed card already went to BURN; once the burn is due, it is taken."""
        head = self.queue[0] if self.queue else None
        if head is None or head.tag not in self.exposures or head.dest != "BURN":
            return []
        rec = self.cards[head.tag]
        return self._take_exposed_burn(rec) if rec.zone == "BURN" else []

    @property
    def _deal_window(self) -> bool:
        """The misdeal window as far as the hand knows: no seat has folded."""
        return not self.folded

    def _expose(self, uid: str, rec: CardRecord, seat: int,
                window_open: bool) -> list[Outcome]:
        """D4: hole card ``uid`` at ``seat`` was exposed."""
        if uid in self.exposures:
            return []  # reported twice (sensor and console): one exposure
        self.exposures.append(uid)
        if not window_open:  # EXPOSE-03 / MISDEAL-14: kept, nothing rewritten
            return [
                self._irr("card_exposed", "EXPOSE-02", "warning", seat, rec, None, rec.zone or "",
                          f"hole card #{rec.index} at seat {seat} was exposed after the "
                          "misdeal window closed",
                          "the player keeps the card (MISDEAL-14)"),
                self._irr("exposed_card_kept", "EXPOSE-03", "info", seat, rec, None,
                          rec.zone or "", f"hole card #{rec.index} at seat {seat} is kept",
                          "it counts as a face-down card for every game purpose")]
        if len(self.exposures) >= 2:
            return [self._misdeal(rec, seat, "MISDEAL-07",
                                  f"a second hole card (#{rec.index}, seat {seat}) was exposed "
                                  "before any player acted")]
        # R1: a replacement after #2N (DEAL_FIX); x becomes the flop burn
        if rec.card in self.hole[seat]:
            self.hole[seat].remove(rec.card)
        last = max((i for i, e in enumerate(self.queue) if e.dest.startswith("S")), default=-1)
        self.queue.insert(last + 1, Expect(f"S{seat}", replaces=uid))
        for i, e in enumerate(self.queue):
            if e.dest == "BURN" and e.gate and e.street == "flop":
                self.queue[i] = replace(e, tag=uid)
                break
        return [self._irr(
            "card_exposed", "MISDEAL-12", "warning", seat, rec, None, rec.zone or "",
            f"hole card #{rec.index} at seat {seat} was exposed during the deal",
            f"leave it at seat {seat} until every other player has his cards; then deal seat "
            f"{seat} the next card and use card #{rec.index} as the burn before the flop")]

    def _boxed(self, uid: str, rec: CardRecord, window_open: bool) -> list[Outcome]:
        """D2: ``uid`` was a face-up card in the deck and went to BURN."""
        self.boxed_pending = None
        self.boxes.append(uid)
        if len(self.boxes) >= 2 and window_open:
            return [self._misdeal(rec, None, "MISDEAL-08",
                                  f"a second face-up card in the deck (#{rec.index}) before any "
                                  "player acted")]
        head = self.queue[0] if self.queue else None
        if head is not None and head.tag == uid and head.dest.startswith("S"):
            self.queue[0] = replace(head, tag=None)  # R2: the seat gets the next card
        return [self._irr(
            "boxed_card", "EXPOSE-04", "warning", None, rec, None, "BURN",
            f"card #{rec.index} was face up in the deck and was burned",
            "show it to all players; it stays burned; the seat gets the next card")]

    def _misdeal(self, rec: CardRecord, seat: int | None, rule: str,
                 message: str) -> Irregularity:
        """R10: Q := every card to collection."""
        self.voided = "misdeal"
        self.queue.clear()
        return self._irr("misdeal_required", rule, "critical", seat, rec, None,
                         rec.zone or "", message,
                         "misdeal: collect every card, shuffle and cut, deal again; the button "
                         "and the posted blinds stay (MISDEAL-02)")

    def _disturbed(self, rec: CardRecord, zone: str) -> Irregularity:
        return self._irr("burn_card_disturbed", "BURN-07", "warning", _seat_of(zone), rec,
                         None, zone, f"burn card #{rec.index} left the burn stack",
                         "floor: nobody may look at burn cards; warning or penalty "
                         "(CONDUCT-02)")

    def _hole_card(self, seat: int, rec: CardRecord) -> list[Outcome]:
        held = self.hole[seat]
        held.append(rec.card)
        faces = self.faces  # every face here is seen once: a deck with twins is void by now
        held.sort(key=lambda c: faces[c].index if c in faces else 0)
        complete = tuple(held) if len(held) == HOLE_CARDS else None
        return [Dealt(seat, len(held), rec.index, rec.card, rec.face_up, complete)]

    def _tag_head(self, uid: str) -> None:
        if self.queue:
            self.queue[0] = replace(self.queue[0], tag=uid)

    def _irr(self, name: str, rule: str, severity: str, seat: int | None, rec: CardRecord,
             expected: str | None, observed: str, message: str, remedy: str) -> Irregularity:
        return Irregularity(name, rule, severity, seat, rec.index, rec.card, expected, observed,
                            message, remedy)

    # --- D1, D3, D5: the initial deal -----------------------------------------------
    def _during_deal(self, zone: str, uid: str, rec: CardRecord, head: Expect) -> list[Outcome]:
        if zone == head.dest:
            got = self._take(zone, rec)
            if not rec.face_up:
                return got
            to = int(zone[1:])  # D4: dealt face up to its seat
            exposure = self._expose(uid, rec, to, self._deal_window)
            if uid in self.exposures and rec.card not in self.hole[to]:  # R1: not a hole card
                got = [replace(o, hole=None) if isinstance(o, Dealt) else o for o in got]
            return got + exposure
        if zone == "BURN":
            if uid in self.exposures:
                return []  # R1: x burned from the deck before its replacement
            pending = self.boxed_pending
            if rec.face_up or (pending is not None and pending[0] in (None, uid)):
                return self._boxed(uid, rec, pending[1] if pending else self._deal_window)
            if head.replaces is not None:  # D16: the replacement card was burned
                self._tag_head(uid)
                x = self.cards[head.replaces]
                return [self._irr(
                    "exposed_card_not_replaced", "MISDEAL-12", "warning", None, rec,
                    head.dest, zone,
                    f"card #{rec.index} was burned; it is the replacement for the exposed "
                    f"card #{x.index} at {_where(head.dest)}",
                    f"give card #{rec.index} to {_where(head.dest)}; card #{x.index} is the "
                    "burn before the flop")]
        seat = _seat_of(zone)
        if seat is not None:  # D1 -> R9
            self.queue.popleft()
            first = not self.misplaced
            self.misplaced[uid] = int(head.dest[1:])
            out: list[Outcome] = []
            if first:
                out.append(self._irr(
                    "deal_order_error", "DEAL-02", "warning", seat, rec, head.dest, zone,
                    f"card #{rec.index} went to seat {seat}; expected {_where(head.dest)}",
                    "redress: move every wrongly dealt card to its correct seat (DEAL-05); if "
                    "that is impossible while no player has acted: misdeal (MISDEAL-04)"))
            moves = sorted((self.cards[u].index, u, s) for u, s in self.misplaced.items())
            steps = "; ".join(f"#{i} {_where(self.cards[u].zone)} -> seat {s}"
                              for i, u, s in moves)
            out.append(self._irr("redress_instructions", "DEAL-05", "info", seat, rec, head.dest,
                                 zone, f"redress: {steps}",
                                 "move each card to its correct seat, then continue the deal"))
            return out
        self._tag_head(uid)  # the card must reach its seat (back via the deck, or directly)
        if zone == "BOARD":  # D5
            return [self._irr("deal_order_error", "MISDEAL-04", "critical", None, rec, head.dest,
                              zone, f"card #{rec.index} went to the board during the deal; "
                              f"expected {_where(head.dest)}",
                              f"redress: put card #{rec.index} back on top of the deck and deal "
                              f"it to {_where(head.dest)}")]
        if zone == "BURN":  # D3
            return [self._irr("burn_unexpected", "BURN-01", "warning", None, rec, head.dest, zone,
                              f"card #{rec.index} was burned during the deal; expected "
                              f"{_where(head.dest)}",
                              "confirm a boxed card (EXPOSE-04), or redress the card to "
                              f"{_where(head.dest)}")]
        return [self._irr("deal_order_error", "DEAL-02", "warning", None, rec, head.dest, zone,
                          f"card #{rec.index} went to {_where(zone)} during the deal; expected "
                          f"{_where(head.dest)}", f"redress the card to {_where(head.dest)}")]

    # --- D9: an excess hole card ---------------------------------------------------
    def _excess(self, zone: str, uid: str, rec: CardRecord, head: Expect | None) -> list[Outcome]:
        self.excess.add(uid)
        seat = _seat_of(zone)
        return [self._irr("too_many_cards", "DEAL-08", "warning", seat, rec,
                          None if head is None else head.dest, zone,
                          f"card #{rec.index} is an excess card at seat {seat}",
                          "if no other player has bet yet: put it back on top of the deck (it "
                          "keeps its place in the sequence); otherwise burn it as an excess card "
                          "before the regular burn (DEAL-08, A-14); if it cannot be redressed "
                          "while no player has acted: misdeal (MISDEAL-06)")]

    # --- D10, D11, D15: cards while a betting round is open ------------------------
    def _betting_open(self, zone: str, uid: str, rec: CardRecord, head: Expect,
                      bb_pending: bool) -> list[Outcome]:
        if zone.startswith("S"):
            return self._excess(zone, uid, rec, None)
        if zone == "BURN" and not self.premature:  # D10 -> R5
            self.early_burn = uid
            if head.dest == "BURN":
                self._tag_head(uid)
            out: list[Outcome] = [self._irr(
                "burn_premature", "BURN-03", "warning", None, rec, None, zone,
                f"card #{rec.index} was burned before the betting round was complete",
                f"Burn Card zurück: put card #{rec.index} back on top of the deck; it is burned "
                "again when the round is complete")]
            if bb_pending:
                out.append(self._irr(
                    "bb_option_skipped", "BET-04", "critical", None, rec, None, zone,
                    "the big blind has not used the option yet",
                    "stop dealing; the big blind checks or raises before any card is dealt"))
            return out
        if zone == "BOARD":  # D11 / D15 -> R6
            first = not self.premature
            self.premature.append(uid)
            self.premature_street = head.street
            self.r6_pending = True
            if not first:
                return []
            count_error = self.early_burn is None and bool(self.board)
            if self.early_burn is not None and head.tag == self.early_burn:
                # the burn before the premature cards stays burned and does not count
                self.queue[0] = replace(head, tag=None)
            return [self._irr(
                "board_card_count_error" if count_error else "premature_card",
                "BOARD-01" if count_error else "BOARD-05", "critical", None, rec, None, zone,
                (f"card #{rec.index} was placed on the board after the {self.street}"
                 if count_error else
                 f"card #{rec.index} was dealt to the board before the betting round was "
                 "complete"),
                "take the premature card(s) back; finish the betting round; then burn as many "
                "cards as players are left, counting the cards taken back, burn one more card "
                f"and deal the {head.street} (BOARD-05)")]
        return [self._irr("burn_premature", "BURN-03", "warning", None, rec, None, zone,
                          f"card #{rec.index} left the deck before the betting round was "
                          "complete", "put the card back on top of the deck")]

    def _close_premature(self) -> None:
        """R6: the round is over; P players left: Rset -> BURN, E more burns, the burn, street."""
        self.r6_pending = False
        players = len(self.active)
        if players <= 1:
            self.queue.clear()
            return
        extra = max(0, players - len(self.premature))
        head = self.queue[0]
        street = head.street
        self.queue[0] = replace(head, gate=False, tag=None)
        for _ in range(extra):
            self.queue.appendleft(Expect("BURN", street))
        self.queue[0] = replace(self.queue[0], gate=True)

    # --- D12-D14: burn errors ------------------------------------------------------
    def _burn_missing(self, zone: str, uid: str, rec: CardRecord, head: Expect) -> list[Outcome]:
        """D12 -> R3(b): finish the street, then the late burn (either timing, A-10)."""
        street = head.street
        self.queue.popleft()
        n = 0
        while n < len(self.queue) and self.queue[n].dest == "BOARD" \
                and self.queue[n].street == street:
            n += 1
        late = Expect("BURN", street)
        self.queue.insert(n, late)
        self.missing_street, self.missing_burn = street, []
        out: list[Outcome] = [self._irr(
            "burn_missing", "BURN-04", "critical", None, rec, "BURN", zone,
            f"card #{rec.index} went to the board without a burn before the {street}",
            "redress if possible: put the board cards back on the deck in their original "
            "order, then burn and deal; otherwise finish the street and burn the next card "
            "right after it (BURN-04)")]
        return out + self._take(zone, rec)

    def _redress_missing_burn(self, uid: str) -> None:
        """R3(a): once every card of the street is back, the first goes to BURN, the rest to
        BOARD in order, and the deck fills the street."""
        street = self.missing_street
        if street is None:
            return
        back = [u for u in self.missing_burn if self.cards[u].zone == "DECK"]
        if len(back) < len(self.missing_burn) or self.street == street:
            return  # not all back yet (or the street was already announced)
        for u in self.missing_burn:
            self.board.remove(self.cards[u].card)
            self.street_cards.remove(self.cards[u].card)
        while self.queue and self.queue[0].street == street and \
                not (self.queue[0].dest == "BURN" and self.queue[0].gate):
            self.queue.popleft()
        tags = list(self.missing_burn)
        front = [Expect("BURN", street, tag=tags[0])]
        front += [Expect("BOARD", street, tag=t) for t in tags[1:]]
        front += [Expect("BOARD", street) for _ in range(STREET_SIZE[street] - len(tags) + 1)]
        self.queue.extendleft(reversed(front))
        self.missing_street, self.missing_burn = None, []

    def _burn_extra(self, zone: str, uid: str, rec: CardRecord, head: Expect) -> list[Outcome]:
        """D13 -> R4(b): deal the street from the following cards; skip the next burn."""
        self.extra_burn = uid
        street = head.street
        nxt = next((i for i, e in enumerate(self.queue)
                    if e.street != street and e.dest == "BURN" and e.gate), None)
        if nxt is not None:
            self.skipped_burn = self.queue[nxt]
            del self.queue[nxt]
            self.queue[nxt] = replace(self.queue[nxt], gate=True)
            remedy = ("redress if possible: put the second burn card back on top of the deck; "
                      "otherwise deal the street from the following cards and burn no card "
                      "before the next street (BURN-05)")
        else:
            remedy = ("redress if possible: put the second burn card back on top of the deck; "
                      "otherwise deal the river from the following card; the river stays "
                      "shifted by one (A-10)")
        return [self._irr("burn_extra", "BURN-05", "warning", None, rec, "BOARD", zone,
                          f"card #{rec.index} was a second burn before the {street}", remedy)]

    def _restore_skipped_burn(self) -> None:
        burn = self.skipped_burn
        self.skipped_burn = None
        if burn is None:
            return
        for i, e in enumerate(self.queue):
            if e.street == burn.street and e.gate:
                self.queue[i] = replace(e, gate=False)
                self.queue.insert(i, burn)
                return

    def _burn_skip_expected(self, zone: str, uid: str, rec: CardRecord,
                            head: Expect) -> list[Outcome]:
        """D14: a burn although the skip is pending: the card goes back and then to BOARD."""
        self.skipped_burn = None
        self._tag_head(uid)
        return [self._irr("burn_skip_expected", "BURN-05", "warning", None, rec, "BOARD", zone,
                          f"card #{rec.index} was burned, but no burn is due before the "
                          f"{head.street} (a second burn was taken before)",
                          f"Burn Card zurück: put card #{rec.index} back on top of the deck "
                          f"and deal it as the {head.street}")]
