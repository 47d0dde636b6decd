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

>>> hand = CommunityHand(seats=(1, 2, 3), button=3)
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

from tablesvc.core.card_flow import (
    CardAfterEnd,
    CardRecord,
    Dealt,
    Folded,
    Irregularity,
    deal_order,
    irregularity,
    seat_of,
    unaccounted,
    where,
)
from tablesvc.core.games.community.burns import BurnRepairs, disturbed
from tablesvc.core.games.community.deal_queue import (
    HOLE_CARDS,
    BoardDealt,
    Burned,
    Expect,
    Outcome,
    StreetName,
    build_queue,
    tag_head,
)
from tablesvc.core.games.community.exposures import Exposures, take_burn
from tablesvc.core.games.community.mucked_hands import MuckedHands

# Rule ID -> the alerts this tracker raises for it (as Irregularity objects the session turns
# into alerts); docs/RULES-COVERAGE.md is generated from such declarations. The burn and
# premature-card repairs declare theirs in ``community.burns``, the exposed and boxed
# cards in ``community.exposures`` (the misdeal they may require is declared here), a
# live hand in the muck (SHOW-13) in ``community.mucked_hands``, the collection (BURN-08)
# in ``tablesvc.core.card_flow``.
RULES: dict[str, tuple[str, ...]] = {
    "DEAL-02": ("deal_order_error",),
    "DEAL-05": ("redress_instructions", "redress_order_error", "redress_completed"),
    "DEAL-08": ("too_many_cards",),
    "SEAT-05": ("absent_player_hand_dead",),
    "BURN-01": ("burn_unexpected",),
    "BURN-02": ("burn_wrong_zone",),
    "MISDEAL-04": ("deal_order_error", "misdeal_required"),
    "MISDEAL-06": ("misdeal_required",),
    "MISDEAL-07": ("misdeal_required",),
    "MISDEAL-08": ("misdeal_required",),
    "DECK-04": ("deck_defective_duplicate",),
    "CONDUCT-02": ("card_in_foreign_seat_zone",),
}

# what the session reads of a hold'em hand: the tracker and the outcomes it answers with
__all__ = ["DEBOUNCE_MS", "HOLE_CARDS", "RULES", "BoardDealt", "Burned", "CommunityHand", "Outcome"]

DEBOUNCE_MS = 2000  # [derived] a burn card lifted longer than this was looked at (BURN-07)

@dataclass
class CommunityHand:
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
    hole_cards: int = HOLE_CARDS
    """The cards each seat is dealt: the game's (two in hold'em, four in Omaha)."""
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
    burns: BurnRepairs = field(default_factory=BurnRepairs)  # R3-R6 (community.burns)
    exposures: Exposures = field(default_factory=Exposures)  # D2, D4, D16, R1, R2
    duplicates: set[str] = field(default_factory=set)  # D7
    absent: list[int] = field(default_factory=list)  # SEAT-05: reported absent during the deal
    dead: set[int] = field(default_factory=set)  # SEAT-05: dead hands
    mucked: MuckedHands = field(default_factory=MuckedHands)  # D19: live hands in the muck
    voided: str | None = None  # "misdeal" (R10) or "cancelled" (R11)
    wrong_zone: dict[str, str] = field(default_factory=dict)  # BURN-02: uid -> where it belongs
    # card -> its first record: a face seen twice is a defective deck (D7); looked up here
    # instead of searched for among every card out, for each card that leaves the shoe
    faces: dict[str, CardRecord] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.order = deal_order(self.seats, self.button)
        self.queue = build_queue(self.order, self.hole_cards)
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
        return [irregularity(
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
        if zone == "BOARD" and uid in self.burns.premature:
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
        burns = self.burns
        if previous == "BURN" and self.voided is None and not self._may_leave_burn(uid):
            out.append(disturbed(rec, "DECK"))
        if self.exposures.wrong_burn_returned(self.queue, uid) or uid in self.misplaced:
            return out  # D16 remedy: it is the first card of the street again
        if uid in self.excess:  # R7 redress: it takes its own place again
            self.excess.discard(uid)
            tag_head(self.queue, uid)
        elif uid == burns.extra_burn:  # R4(a): the second burn goes to the board
            burns.extra_returned(self.queue, uid)
        elif uid in burns.missing_burn:  # R3(a): street cards back, last dealt first
            burns.redress_missing(self.queue, self.cards, self.board, self.street_cards,
                                  self.street)
        return out

    def _may_leave_burn(self, uid: str) -> bool:
        """A remedy takes this burn card back (R4(a), R5, D3, D14, D16)."""
        return uid in (self.burns.early_burn, self.burns.extra_burn, self.exposures.wrong_burn) \
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
                return [disturbed(rec, zone)]
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
                held = [r.index for r in self.cards.values() if r.card in self.hole[seat]]
                return list(self.mucked.mucked(seat, uid, rec, held))
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
        return self.exposures.reported(self, uid, rec, window_open)

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
        return self.exposures.boxed_reported(self, uid, window_open)

    def collected(self) -> list[Outcome]:
        """The hand is over and its cards are collected (BURN-08, D23): every tag that left the
        shoe must have reached MUCK (or be back in the deck stub). One ``card_unaccounted``
        (critical) per missing card."""
        return list(unaccounted(self.cards.values(), where, "stop and search for the card "
                                "before the next hand; floor ruling"))

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
            if uid in self.exposures.exposed and zone == "BURN":
                return take_burn(self.queue, rec)
            return self._take(zone, rec)
        if uid in self.exposures.exposed and zone == "BURN" and previous.startswith("S"):
            return []  # R1: burned before its replacement; it serves when the flop burn is due
        if self.wrong_zone.get(uid) == zone:
            del self.wrong_zone[uid]  # BURN-02 remedied: the card now serves as the burn
            if head is not None and head.dest == zone:
                return self._take(zone, rec)
            return []
        out: list[Outcome] = []
        if previous == "BURN" and not (zone == "MUCK" and self.over):
            out.append(disturbed(rec, zone))  # D18
        seat = seat_of(zone)
        if seat is not None and rec.card not in self.hole.get(seat, ()):  # D20
            out.append(self._foreign(previous, seat, rec))
        if out:
            return out
        if seat is not None and self.mucked.holds(seat, uid):
            return list(self.mucked.rebuilt(seat, uid, rec, self.cards))
        if zone == "BURN" and (back := self.burns.burned_back(uid, rec, self.street)):
            return [back]  # R6: a premature card taken back is burned
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
        return irregularity(
            "card_in_foreign_seat_zone", "CONDUCT-02", "warning", seat, rec, None, f"S{seat}",
            f"card #{rec.index} was moved from {where(previous)} to seat {seat}",
            "floor: the card goes back where it belongs; warning or penalty (CONDUCT-02)")

    def _burn_after_end(self, zone: str, rec: CardRecord) -> list[Outcome]:
        """D18/D20 after the hand: a burn card taken anywhere but the collection (BURN-07)."""
        out: list[Outcome] = [disturbed(rec, zone)]
        seat = seat_of(zone)
        if seat is not None:
            out.append(self._foreign("BURN", seat, rec))
        return out

    def foul(self, seat: int) -> list[Outcome]:
        """The floor rules a live hand in the muck foul (SHOW-13 unprotected, POT-08): the
        seat is out of the hand, like a fold; its bets stay in the pot."""
        self.mucked.ruled(seat)
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
                return [self.require_misdeal(first, seat_of(first.zone or ""), "MISDEAL-04",
                                      f"the deal-order error from card #{first.index} cannot "
                                      "be redressed before any player acted")]
            out: list[Outcome] = []
            self.misplaced.clear()
            for u in uids:
                rec = self.cards[u]
                seat = seat_of(rec.zone or "")
                if seat is None or seat not in self.hole:
                    continue
                if len(self.hole[seat]) >= self.hole_cards:
                    out += self._excess(f"S{seat}", u, rec, None)
                else:
                    out += self._hole_card(seat, rec)
            return out
        if self.excess and window_open:
            rec = min((self.cards[u] for u in self.excess), key=lambda r: r.index)
            return [self.require_misdeal(rec, seat_of(rec.zone or ""), "MISDEAL-06",
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
        return [irregularity(
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
            out.append(irregularity("redress_completed", "DEAL-05", "info", seat, rec, None, zone,
                                 "redress completed: every hole card is at its correct seat",
                                 "continue the deal"))
        return out + self._deal_completed()

    # --- a new card from the deck, matched against the queue ----------------------
    def _from_deck(self, zone: str, uid: str, rec: CardRecord, betting_over: bool,
                   bb_pending: bool) -> list[Outcome]:
        if self.burns.r6_pending and betting_over:
            self.burns.close_premature(self.queue, len(self.active))
        if self.voided is not None:  # R10 / R11: only the collection is expected
            return [] if uid in self.duplicates else [CardAfterEnd(zone, rec.card)]
        # (one seat left and no hole card to come; ``active`` counted without its list)
        if self.ended or not self.queue or (
                len(self.order) - len(self.folded) <= 1 and not self.dealing):
            return [CardAfterEnd(zone, rec.card)]  # D21
        out: list[Outcome] = []
        head = self.queue[0]
        if head.tag is not None:
            if head.tag == uid and uid in self.exposures.exposed and zone == "BURN":
                return take_burn(self.queue, rec)  # R1: x via SHOE_IN/SHOE_OUT to the burn
            wrong = self.exposures.wrong_burn_check(self, zone, uid, rec, head)  # D16
            if wrong is not None:
                return wrong
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
                return [irregularity("redress_order_error", "DEAL-05", "warning", seat_of(zone),
                                     rec, head.dest, zone,
                                     f"card #{rec.index} came out, but the returned card "
                                     f"#{held.index if held else '?'} must come out first",
                                     "put this card back on top of the deck and deal the "
                                     "returned card")]
        if head.dest.startswith("S"):
            return out + self._during_deal(zone, uid, rec, head)
        if zone.startswith("S"):  # D9, also while a betting round is open
            return out + self._excess(zone, uid, rec, None if head.gate and not betting_over
                                      else head)
        burns = self.burns
        if head.gate and not betting_over:  # D10, D11, D15
            return out + burns.round_open(self.queue, zone, uid, rec, self.street,
                                          bool(self.board), bb_pending)
        if zone == head.dest:
            return out + self._take(zone, rec)
        if head.dest == "BURN" and zone == "BOARD":  # D12
            return [*out, burns.missing(self.queue, zone, rec), *self._take(zone, rec)]
        if head.dest == "BOARD" and zone == "BURN":  # D14, D13
            return [*out, burns.skip_expected(self.queue, zone, uid, rec) if head.gate
                    else burns.extra(self.queue, zone, uid, rec)]
        burn = head.dest == "BURN"
        if burn:
            self.wrong_zone[uid] = "BURN"  # moved there, it is the burn after all
        return [*out, irregularity("burn_wrong_zone" if burn else "deal_order_error",
                                   "BURN-02" if burn else "DEAL-02", "warning", None, rec,
                                   head.dest, zone,
                                   f"card #{rec.index} went to {where(zone)}; expected "
                                   f"{where(head.dest)}", f"move the card to {where(head.dest)}")]

    def _take(self, zone: str, rec: CardRecord) -> list[Outcome]:
        """The head of Q is served by this card."""
        head = self.queue.popleft()
        if head.gate:
            self.burns.early_burn = None
        if zone == "BURN":
            return [Burned(head.street, rec.index)]
        if zone == "BOARD":
            self.board.append(rec.card)
            self.street_cards.append(rec.card)
            if self.burns.missing_street == head.street:
                uid = next(u for u, r in self.cards.items() if r is rec)
                self.burns.missing_burn.append(uid)
            nxt = self.queue[0] if self.queue else None
            if nxt is not None and nxt.dest == "BOARD" and nxt.street == head.street:
                return []
            cards = tuple(self.street_cards)
            self.street, self.street_cards = head.street, []
            return [BoardDealt(head.street, cards, tuple(self.board))]
        return (self._hole_card(int(zone[1:]), rec) + self._settle_exposed_burn()
                + self._deal_completed())

    def _settle_exposed_burn(self) -> list[Outcome]:
        """R1: the exposed card already went to BURN; once the burn is due, it is taken."""
        head = self.queue[0] if self.queue else None
        if head is None or head.tag is None or head.dest != "BURN" \
                or head.tag not in self.exposures.exposed:
            return []
        rec = self.cards[head.tag]
        return take_burn(self.queue, rec) if rec.zone == "BURN" else []

    @property
    def _deal_window(self) -> bool:
        """The misdeal window as far as the hand knows: no seat has folded."""
        return not self.folded

    def require_misdeal(self, rec: CardRecord, seat: int | None, rule: str,
                        message: str) -> Irregularity:
        """R10: Q := every card to collection."""
        self.voided = "misdeal"
        self.queue.clear()
        return irregularity("misdeal_required", rule, "critical", seat, rec, None,
                            rec.zone or "", message,
                            "misdeal: collect every card, shuffle and cut, deal again; the "
                            "button and the posted blinds stay (MISDEAL-02)")

    def _hole_card(self, seat: int, rec: CardRecord) -> list[Outcome]:
        held = self.hole[seat]
        held.append(rec.card)
        faces = self.faces  # every face here is seen once: a deck with twins is void by now
        held.sort(key=lambda c: faces[c].index if c in faces else 0)
        complete = tuple(held) if len(held) == self.hole_cards else None
        return [Dealt(seat, len(held), rec.index, rec.card, rec.face_up, complete)]

    # --- D1, D3, D5: the initial deal -----------------------------------------------
    def _during_deal(self, zone: str, uid: str, rec: CardRecord, head: Expect) -> list[Outcome]:
        if zone == head.dest:
            got = self._take(zone, rec)
            if not rec.face_up:
                return got
            to = int(zone[1:])  # D4: dealt face up to its seat
            exposure = self.exposures.expose(self, uid, rec, to, self._deal_window)
            if uid in self.exposures.exposed and rec.card not in self.hole[to]:  # R1
                got = [replace(o, hole=None) if isinstance(o, Dealt) else o for o in got]
            return got + exposure
        if zone == "BURN":  # R1, D2, D16
            burned = self.exposures.burned_in_deal(self, uid, rec, head, self._deal_window)
            if burned is not None:
                return burned
        seat = seat_of(zone)
        if seat is not None:  # D1 -> R9
            self.queue.popleft()
            first = not self.misplaced
            self.misplaced[uid] = int(head.dest[1:])
            out: list[Outcome] = []
            if first:
                out.append(irregularity(
                    "deal_order_error", "DEAL-02", "warning", seat, rec, head.dest, zone,
                    f"card #{rec.index} went to seat {seat}; expected {where(head.dest)}",
                    "redress: move every wrongly dealt card to its correct seat (DEAL-05); if "
                    "that is impossible while no player has acted: misdeal (MISDEAL-04)"))
            moves = sorted((self.cards[u].index, u, s) for u, s in self.misplaced.items())
            steps = "; ".join(f"#{i} {where(self.cards[u].zone)} -> seat {s}"
                              for i, u, s in moves)
            out.append(irregularity("redress_instructions", "DEAL-05", "info", seat, rec,
                                    head.dest, zone, f"redress: {steps}",
                                    "move each card to its correct seat, then continue the deal"))
            return out
        tag_head(self.queue, uid)  # the card must reach its seat (back via the deck, or directly)
        if zone == "BOARD":  # D5
            return [irregularity("deal_order_error", "MISDEAL-04", "critical", None, rec,
                                 head.dest, zone, f"card #{rec.index} went to the board during "
                                 f"the deal; expected {where(head.dest)}",
                                 f"redress: put card #{rec.index} back on top of the deck and "
                                 f"deal it to {where(head.dest)}")]
        if zone == "BURN":  # D3
            return [irregularity("burn_unexpected", "BURN-01", "warning", None, rec, head.dest,
                                 zone, f"card #{rec.index} was burned during the deal; expected "
                                 f"{where(head.dest)}",
                                 "confirm a boxed card (EXPOSE-04), or redress the card to "
                                 f"{where(head.dest)}")]
        return [irregularity("deal_order_error", "DEAL-02", "warning", None, rec, head.dest, zone,
                             f"card #{rec.index} went to {where(zone)} during the deal; "
                             f"expected {where(head.dest)}",
                             f"redress the card to {where(head.dest)}")]

    # --- D9: an excess hole card ---------------------------------------------------
    def _excess(self, zone: str, uid: str, rec: CardRecord, head: Expect | None) -> list[Outcome]:
        self.excess.add(uid)
        seat = seat_of(zone)
        return [irregularity("too_many_cards", "DEAL-08", "warning", seat, rec,
                             None if head is None else head.dest, zone,
                             f"card #{rec.index} is an excess card at seat {seat}",
                             "if no other player has bet yet: put it back on top of the deck "
                             "(it keeps its place in the sequence); otherwise burn it as an "
                             "excess card before the regular burn (DEAL-08, A-14); if it cannot "
                             "be redressed while no player has acted: misdeal (MISDEAL-06)")]
