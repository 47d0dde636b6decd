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
from dataclasses import dataclass, field, replace
from typing import Literal

StreetName = Literal["preflop", "flop", "turn", "river"]
BOARD_STREETS: tuple[tuple[StreetName, int], ...] = (("flop", 3), ("turn", 1), ("river", 1))
STREET_SIZE: dict[str, int] = dict(BOARD_STREETS)


@dataclass(frozen=True, slots=True)
class Expect:
    """One entry of the expected-movement queue: the next deck card goes to ``dest``.

    ``gate``: a betting round must be over before this card may leave the deck (the first
    entry of every street, RULES.md §2.3). ``tag``: TAG(x) - only that one card (by UID) may
    fill the entry (a returned burn, a redressed card); None means DECK_TOP.
    """

    dest: str  # "S<n>", "BURN" or "BOARD"
    street: StreetName = "preflop"
    gate: bool = False
    tag: str | None = None

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
class Irregularity:
    """A card movement the rules name (RULES.md §2.4); one alert for the table to raise.

    ``message`` is for floor staff and names deck indices and seats only, never a card; the
    card itself is in ``card`` for the secure evidence.
    """

    name: str  # alert name from RULES.md §5
    rule: str  # RULES.md rule ID
    severity: str  # "info" | "warning" | "critical"
    seat: int | None
    index: int  # deck index of the card concerned
    card: str  # secure evidence only
    expected: str | None  # "S2", "BURN", "BOARD"; None = no card expected
    observed: str
    message: str
    remedy: str


Deviation = Irregularity  # the former name


@dataclass(frozen=True, slots=True)
class CardAfterEnd:
    zone: str
    card: str


Outcome = Dealt | Burned | BoardDealt | Folded | Irregularity | CardAfterEnd


@dataclass(slots=True)
class CardRecord:
    index: int
    card: str
    face_up: bool
    zone: str | None = None  # None while between the shoe and a zone; "DECK" once returned


def build_queue(seats: tuple[int, ...], hole_cards: int = 2) -> deque[Expect]:
    """The clean sequence of RULES.md §2.2 for seats s_1..s_N (s_1 first to receive)."""
    q: deque[Expect] = deque()
    for _ in range(hole_cards):
        q.extend(Expect(f"S{s}") for s in seats)
    for street, n in BOARD_STREETS:
        q.append(Expect("BURN", street, gate=True))
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

    def owner(self, uid: str) -> int | None:
        rec = self.cards.get(uid)
        if rec is None or rec.zone is None or not rec.zone.startswith("S"):
            return None
        seat = int(rec.zone[1:])
        return seat if rec.card in self.hole.get(seat, ()) else None

    def expected(self, betting_over: bool = True) -> str | None:
        """Destination of the next card out of the deck; None: no card may leave the deck."""
        head = self.queue[0] if self.queue else None
        if head is None or self.ended or (head.gate and not betting_over):
            return None
        return head.dest

    # --- what the sensors saw ------------------------------------------------------
    def card_out(self, uid: str, card: str, face_up: bool) -> None:
        """A card left the shoe: it takes the next deck index and awaits its destination.

        A card that was put back (``shoe_in``) keeps its index when it comes out again.
        """
        rec = self.cards.get(uid)
        if rec is not None:
            if rec.zone == "DECK":
                rec.zone = None
                self.pending = uid
            return  # otherwise the same tag read again at the exit: noise, not a new card
        self.cards[uid] = CardRecord(self.next_index, card, face_up)
        self.next_index += 1
        self.pending = uid

    def depart(self, zone: str, uid: str) -> None:
        """A card left ``zone`` (e.g. premature board cards taken back, R6)."""
        rec = self.cards.get(uid)
        if rec is not None and rec.zone == zone and zone == "BOARD" and uid in self.premature:
            rec.zone = "RETRACTED"

    def shoe_in(self, uid: str) -> list[Outcome]:
        """A card went back on top of the deck (redress, "Burn Card zurück"); it keeps its index
        and must be the next card out (RULES.md §2.1)."""
        rec = self.cards.get(uid)
        if rec is None or self.ended:
            return []
        rec.zone = "DECK"
        if uid in self.misplaced:
            return []
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
        return []

    def arrive(self, zone: str, uid: str, card: str, betting_over: bool = True,
               bb_option_pending: bool = False) -> list[Outcome]:
        """A card was read in ``zone``. ``betting_over``/``bb_option_pending``: see the class."""
        rec = self.cards.get(uid)
        if rec is None:
            # no shoe (or the shoe missed it): the first read in a zone is the deal
            self.card_out(uid, card, face_up=False)
            rec = self.cards[uid]
        if rec.zone is None:
            rec.zone = zone
            if self.pending == uid:
                self.pending = None
            return self._from_deck(zone, uid, rec, betting_over, bb_option_pending)
        previous, rec.zone = rec.zone, zone
        if self.ended:
            return []
        return self._moved(previous, zone, uid, rec)

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
            return self._take(zone, rec)
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
        return out

    # --- a new card from the deck, matched against the queue ----------------------
    def _from_deck(self, zone: str, uid: str, rec: CardRecord, betting_over: bool,
                   bb_pending: bool) -> list[Outcome]:
        if self.r6_pending and betting_over:
            self._close_premature()
        if self.ended or not self.queue or (not self.dealing and len(self.active) <= 1):
            return [CardAfterEnd(zone, rec.card)]  # D21
        out: list[Outcome] = []
        head = self.queue[0]
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
        return self._hole_card(int(zone[1:]), rec)

    def _hole_card(self, seat: int, rec: CardRecord) -> list[Outcome]:
        held = self.hole[seat]
        held.append(rec.card)
        index = {r.card: r.index for r in self.cards.values()}
        held.sort(key=lambda c: index.get(c, 0))
        complete = tuple(held) if len(held) == 2 else None
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
            return self._take(zone, rec)
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
