"""The table: one pure state machine fed with journalled inputs, answering with events.

``TableCore.apply(input)`` is the whole contract: the same inputs in the same order give the
same events, seq and ts included. That is what makes replay, crash recovery and scenario tests
possible, and why nothing here reads a clock, a file or a socket.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any

from drivers.devices import get_kind
from drivers.tsp import Frame
from tablesvc.core import events as ev
from tablesvc.core.betting import Structure
from tablesvc.core.carddraw import CardDraw, FirstDealer, SeatDrawResult, SeatDrawTie
from tablesvc.core.cards import DeckRegistry
from tablesvc.core.commands import CommandError, parse_command
from tablesvc.core.draw import DrawComplete, DrawHand, DrawOutcome, Drew
from tablesvc.core.history import HistoryBook
from tablesvc.core.holdem import (
    BoardDealt,
    Burned,
    CardAfterEnd,
    Dealt,
    Folded,
    HoldemHand,
    Irregularity,
    Outcome,
)
from tablesvc.core.inputs import (
    Command,
    FrameIn,
    Input,
    PortChange,
    PublishRefused,
    ServiceStart,
)
from tablesvc.core.ledger import (
    Acted,
    CheckedOut,
    Ledger,
    LedgerOutcome,
    Posted,
    Problem,
    Returned,
    Settled,
)
from tablesvc.core.links import STALE_AFTER_MS, Link, expire, port_change, receive

CARD_ZONES = frozenset({"BOARD", "BURN", "MUCK"})

CATEGORY_WORDS = ("high card", "pair", "two pair", "three of a kind", "straight", "flush",
                  "full house", "four of a kind", "straight flush", "royal flush")

FOREIGN_REMEDY = ("remove the card; while no one has acted this is a misdeal (MISDEAL-09); "
                  "after that the floor cancels the hand and every bet goes back (DECK-05, "
                  "A-08); in draw the game is dealt again (DECK-06); replace the deck")

REMEDIES = {
    "raise_below_minimum": "if a raise was declared or the chips reach half the raise, the "
    "player completes the minimum raise; otherwise it is a call and the excess goes back",
    "call_short": "the player adds the missing amount from his stack",
    "action_out_of_turn": "the skipped player acts; bets made out of turn stay, later bets are "
    "adjusted to his action",
    "reraise_not_allowed": "the raise is not allowed: the player calls (excess returned) or folds",
    "reraise_after_incomplete_allin": "the player may only call the all-in or fold; chips "
    "beyond the call go back to him",
    "bet_exceeds_limit": "the excess above the limit goes back to the player",
    "illegal_check": "tell the player the amount to call: he calls, raises or folds",
    "bet_withdrawn": "the chips go back into the bet zone; floor decides",
}


@dataclass(frozen=True)
class TableSettings:
    """What the core needs from the config: plain values, no I/O."""

    venue: str
    table: str
    seats: int = 10
    variant: str = "holdem"
    limit: str = "no-limit"
    small_blind: int = 50
    big_blind: int = 100
    ante: int = 0
    ante_mode: str = "each"
    bet_settle_ms: int = 1500
    devices: dict[str, str] = field(default_factory=dict)  # device name -> kind
    reopen_rule: str = "tda_full_raise"  # RULES.md §6 betting.reopen_rule
    clock_ms: int = 30_000  # the action clock, BET-17
    deliver_ms: int = 3000  # T_deliver: a card out of the shoe must reach a zone by then
    all_check: str = "carry_over"  # draw.second_round_all_check
    qualification_table: bool = False  # he.qualification_table (SHOW-03, A-20)
    motion_ms: int = 800  # T_motion: chip arrivals further apart are separate motions (BET-10)


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to a command, for ``cmd/<name>/reply``. Not an event: it has no seq."""

    cmd: str
    request_id: Any
    ok: bool
    error: str | None = None
    data: Any = None

    def payload(self) -> dict[str, Any]:
        return {"request_id": self.request_id, "ok": self.ok, "error": self.error,
                "data": self.data}


@dataclass(frozen=True, slots=True)
class Note:
    """A diagnostic for the service log (a dropped frame, say). Never carries a hole card."""

    level: str
    message: str
    fields: dict[str, Any]


@dataclass(slots=True)
class Output:
    events: list[ev.Event] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)


@dataclass(slots=True)
class Player:
    seat: int
    name: str
    stack: int


class TableCore:
    """State of one table and the rules that turn sensor inputs into events."""

    def __init__(
        self,
        settings: TableSettings,
        decks: DeckRegistry,
        chips: dict[str, int] | None = None,
        players: list[Player] | None = None,
    ) -> None:
        self.s = settings
        self.decks = decks
        self.chip_values = dict(chips or {})
        self.players: dict[int, Player] = {p.seat: p for p in players or []}
        self.links: dict[str, Link] = {
            name: Link(name, kind, get_kind(kind).frame_types)
            for name, kind in settings.devices.items()
        }
        self.has_shoe = any(k == "shoe" for k in settings.devices.values())
        self.seq = 0
        self._last_on_feed: dict[str, int | None] = {"public": None, "secure": None}
        self.boot = 0
        self.hand_no = 0
        self.hand: HoldemHand | DrawHand | None = None
        self.carry = 0  # draw5: the pot carried over from a checked-out game (POT-10)
        self.ledger: Ledger | None = None
        self.book: HistoryBook | None = None
        self.hand_deck: str | None = None
        self.flagged: set[str] = set()  # tags already alerted on in this hand
        self.next_button: int | None = None
        self.button: int | None = None
        self.zones: dict[str, int] = {}  # chip zone -> value
        self.alert_count = 0
        self.open_alerts: dict[str, str] = {}  # critical alerts not yet acknowledged: id -> name
        self.window_open = False  # the misdeal window (MISDEAL-01)
        self.after_misdeal = False  # a misdeal was declared; the next card needs a NEWHAND
        self.deal_done = False  # DEAL-03 announced for this hand
        self.counted = False  # DEAL-03: hole cards counted at the first pre-flop action
        self.round_done: str | None = None  # BET-06: the street whose completion was announced
        # BET-10: chip motions into each bet zone since the seat's last action: (ms, chips added)
        self.motions: dict[int, list[tuple[int, int]]] = {}
        self.zone_chips: dict[str, int] = {}  # chips (pieces) last seen in each zone
        self.declared: set[int] = set()  # seats that declared a raise aloud (CON:declare)
        self.shown: dict[int, int] = {}  # seat -> hole cards tabled at the showdown (SHOW-05)
        self.announced: set[int] = set()  # seats whose hand the dealer announced (SHOW-08)
        self.awarded = False  # the dealer awarded the pot (CON:pot_awarded, POT-05/06)
        self.suspended: dict[str, str] = {}  # rule ID -> reason (DRAW-10)
        self.card_draw: CardDraw | None = None  # a seating or first-dealer draw (SEAT-08/09)
        self.shuffle_error = False  # MISDEAL-15: the floor flagged a shuffle or cut error
        self.blind_flags: set[int] = set()  # blind seats flagged blind_missing this hand
        self.keep_button = False  # a misdeal: the next hand keeps the button
        self.out_since: tuple[str, int] | None = None  # (uid, ms) of a card between shoe and zone
        self.passed_over: int | None = None  # TABLE-02: a newcomer the button moves past
        self._out = Output()
        self._ts = ""
        self._ms = 0

    # ------------------------------------------------------------------ entry points
    def apply(self, inp: Input) -> Output:
        self._out = Output()
        self._ts = inp.ts
        self._ms = ms = inp.ms
        self._expire(ms)
        self._lost(ms)
        if isinstance(inp, FrameIn):
            self._frame(inp)
        elif isinstance(inp, Command):
            self._command(inp)
        elif isinstance(inp, PortChange):
            self._port(inp)
        elif isinstance(inp, ServiceStart):
            self.boot += 1
            self._emit(ev.ServiceStarted, version=inp.version, boot=self.boot)
        elif isinstance(inp, PublishRefused):
            self._alert("publish_refused", "TABLE-00", "warning",
                        f"the broker refused event {inp.seq} ({inp.reason}); it was not "
                        "delivered and will not be retried", remedy="check the broker ACL for "
                        "this table's user")
        if self.ledger is not None and self.in_hand:
            self._money(self.ledger.tick(ms))
        return self._out

    def next_deadline(self) -> int | None:
        """The input timestamp at which a Tick would change something, if any."""
        times = [t for link in self.links.values()
                 for t in (link.stale_deadline(), link.dirty_deadline()) if t is not None]
        if self.ledger is not None and (t := self.ledger.deadline()) is not None:
            times.append(t)
        if self.out_since is not None:
            times.append(self.out_since[1] + self.s.deliver_ms)
        return min(times) if times else None

    @property
    def in_hand(self) -> bool:
        return self.hand is not None and not self.hand.ended

    def snapshot(self) -> dict[str, Any]:
        """The public state for late joiners (retained ``state`` topic): no hidden card."""
        hand = self.hand
        return {
            "hand": self.hand_no if hand else None,
            "variant": self.s.variant,
            "in_hand": bool(hand and not hand.ended),
            "button": self.button,
            "street": hand.street if hand else None,
            "board": list(hand.board) if hand else [],
            "active": hand.active if hand else [],
            "pot": self.ledger.pot_total if self.ledger and self.in_hand else self.carry,
            "players": [{"seat": p.seat, "name": p.name, "stack": p.stack}
                        for p in sorted(self.players.values(), key=lambda p: p.seat)],
            "devices": {n: link.state for n, link in self.links.items()},
            "open_alerts": [{"id": k, "name": v} for k, v in self.open_alerts.items()],
            "last_seq": self.seq,
        }

    # ------------------------------------------------------------------ emission
    def _emit(self, cls: type[ev.Event], **payload: Any) -> ev.Event:
        self.seq += 1
        feed = cls.FEED
        hand = payload.pop("hand", self.hand_no if self.hand and not self.hand.ended else None)
        event = cls(venue=self.s.venue, table=self.s.table, seq=self.seq,
                    prev_seq=self._last_on_feed[feed], ts=self._ts, hand=hand, **payload)
        self._last_on_feed[feed] = self.seq
        self._out.events.append(event)
        return event

    def _alert(self, name: str, rule: str, severity: str, message: str, *, seat: int | None = None,
               remedy: str = "", cards: list[str] | None = None,
               evidence: dict[str, Any] | None = None, **extra: Any) -> None:
        if rule in self.suspended and severity != "info":
            severity = "info"  # DRAW-10: the players agreed to suspend this rule
            message = f"(rule {rule} suspended) {message}"
        self.alert_count += 1
        alert_id = f"{self.s.table}-a{self.alert_count}"
        self._emit(ev.Alert, id=alert_id, name=name, rule=rule, severity=severity, seat=seat,
                   message=message, remedy=remedy, **extra)
        if severity == "critical":
            self.open_alerts[alert_id] = name
        if cards or evidence:
            self._emit(ev.AlertDetail, id=alert_id, cards=cards or [], evidence=evidence or {})

    def _note(self, level: str, message: str, **fields: Any) -> None:
        self._out.notes.append(Note(level, message, fields))

    # ------------------------------------------------------------------ devices
    def _status(self, link: Link, ms: int) -> None:
        c = link.counters
        counters = ev.Counters(ok=c.ok, bad=c.bad, lost=c.lost, bad_crc=c.bad_crc,
                               malformed=c.malformed, too_long=c.too_long, garbage=c.garbage,
                               unknown_type=c.unknown_type, duplicate=c.duplicate)
        self._emit(ev.DeviceStatus, device=link.name, kind=link.kind, state=link.state,
                   model=link.model, firmware=link.firmware, counters=counters,
                   detail=link.detail)
        link.last_status_ms = ms
        link.dirty = False

    def _expire(self, ms: int) -> None:
        for link in self.links.values():
            # inlined cheap tests first: this runs for every input
            if link.state == "online" and ms - link.last_frame_ms >= STALE_AFTER_MS:
                if expire(link, ms):
                    link.detail = "no frame for 3 s"
                    self._status(link, ms)
            elif link.dirty and ms >= link.last_status_ms + 1000:
                self._status(link, ms)

    def _lost(self, ms: int) -> None:
        """D8: a card left the shoe and no antenna read it within T_deliver (EXPOSE-02)."""
        out = self.out_since
        hand = self.hand
        if out is None or ms < out[1] + self.s.deliver_ms:
            return
        self.out_since = None
        if hand is None or hand.ended or hand.pending != out[0]:
            return
        rec = hand.cards.get(out[0])
        index = rec.index if rec else 0
        self._alert("card_location_lost", "EXPOSE-02", "warning",
                    f"card #{index} left the shoe but no antenna has read it for "
                    f"{self.s.deliver_ms / 1000:g} s", remedy="find the card: on the floor or "
                    "seen by a player it counts as exposed; a board card dealt during betting is "
                    "premature; otherwise the floor decides (R12)",
                    cards=[rec.card] if rec else [], evidence={"index": index})

    def _port(self, inp: PortChange) -> None:
        link = self.links.get(inp.src)
        if link is None:
            self._note("warning", "port change of an unconfigured device", device=inp.src)
            return
        if port_change(link, inp.open, inp.detail, inp.ms):
            self._status(link, inp.ms)

    def _frame(self, inp: FrameIn) -> None:
        link = self.links.get(inp.src)
        if link is None:
            self._note("warning", "frame from an unconfigured device", device=inp.src)
            return
        got = receive(link, inp.frame, inp.ms)
        if got.frame is None:
            self._note("warning", "frame dropped", device=inp.src, reason=got.dropped,
                       length=len(inp.frame))
            if got.status_changed or inp.ms >= link.last_status_ms + 1000:
                self._status(link, inp.ms)
            return
        if got.status_changed or (link.dirty and inp.ms >= link.last_status_ms + 1000):
            self._status(link, inp.ms)
        self._dispatch(link, got.frame)

    def _dispatch(self, link: Link, frame: Frame) -> None:
        t, f = frame.type, frame.fields
        if t == "DRAW":
            self._draw(f[0], f[1] == "U")
        elif t == "ARR":
            self._arrive(f[0], f[1])
        elif t == "DEP":
            if self.in_hand and self.hand is not None:
                self.hand.depart(f[0], f[1], self._ms)
        elif t == "RET":
            if self.hand is not None and self.hand.ended:
                rec = self.hand.cards.get(f[0])
                if rec is not None:
                    rec.zone = "DECK"  # back in the stub after the hand: not missing
            elif self.in_hand and isinstance(self.hand, DrawHand):
                self._outcomes(self.hand.shoe_in(f[0], bottom=f[1] == "B"))
            elif self.in_hand and self.hand is not None:
                self._outcomes(self.hand.shoe_in(f[0]))
        elif t == "CHIPS":
            self._chips(f[0], f[1], self._ms)
        elif t == "BTN":
            self._button(f[0], list(f[1:]))
        elif t == "DECK":
            uids = f[0].split(" ") if f[0] else []
            if self.in_hand and isinstance(self.hand, DrawHand) and self.hand.phase == "draw":
                self._outcomes(self.hand.reshuffle(uids))  # DRAW-05: the new pack
            else:
                self._deck_scan(uids)
        elif t == "ERR":
            self._alert("device_fault", "TABLE-00", "warning",
                        f"device {link.name} reports fault {f[0]}: {f[1]}",
                        remedy="check the device; replace it if the fault persists")

    # ------------------------------------------------------------------ cards
    def _identify(self, uid: str) -> str | None:
        """The card of a UID from the deck in play, or None after raising the right alert."""
        if uid in self.flagged:
            return None  # already alerted in this hand; one alert per tag is enough
        found = self.decks.lookup(uid)
        if found is None:
            self.flagged.add(uid)
            in_window = self.window_open or (self.hand is not None and self.hand.next_index == 1)
            self._alert("deck_defective_foreign_card",
                        "MISDEAL-09" if in_window or not self.in_hand else "DECK-05", "critical",
                        "a tag that belongs to no enrolled deck was read (a joker, a marker or "
                        "a stray tag)", remedy=FOREIGN_REMEDY, evidence={"uid": uid})
            self._misdeal_if_window("a card that does not belong to the deck", "MISDEAL-09")
            self._draw_redeal("a card that does not belong to the deck")
            return None
        deck_id, card = found
        if self.hand_deck is None:
            self.hand_deck = deck_id
        elif deck_id != self.hand_deck:
            self.flagged.add(uid)
            self._misdeal_if_window(f"a card of deck {deck_id}", "MISDEAL-09")
            self._draw_redeal(f"a card of deck {deck_id}")
            self._alert("deck_defective_foreign_card",
                        "MISDEAL-09" if self.window_open else "DECK-05", "critical",
                        f"a card of deck {deck_id} was read; the deck in play is "
                        f"{self.hand_deck}", remedy=FOREIGN_REMEDY, cards=[card],
                        evidence={"uid": uid, "deck": deck_id})
            return None
        return card

    def _draw(self, uid: str, face_up: bool) -> None:
        if self.card_draw is not None and not self.in_hand:
            return  # a seating or dealer draw: the seat zone says who got the card
        hand = self.hand
        card = self._identify(uid)
        if card is None:
            return
        if hand is None or hand.ended:
            if self.after_misdeal:
                self._alert("deal_without_shuffle", "DEAL-01", "critical",
                            "a card left the shoe after the misdeal, before the reshuffle",
                            remedy="collect all cards, shuffle and cut, then press NEWHAND "
                            "(MISDEAL-03)", cards=[card])
                return
            self._alert("card_after_hand_end", "BOARD-06", "warning",
                        "a card left the shoe while no hand is being dealt",
                        remedy="put the card back; press NEWHAND after the shuffle to start "
                        "a hand", cards=[card])
            return
        if self.ledger is not None:
            self._money(self.ledger.finalize())  # a card from the deck ends any bet in motion
        if hand.next_index == 1:
            self._first_card()
        self._outcomes(hand.card_out(uid, card, face_up))
        if hand.pending == uid:
            self.out_since = (uid, self._ms)

    def _first_card(self) -> None:
        """The deal begins: the misdeal window opens, and the blinds must be in (SEAT-03)."""
        self.window_open = True
        ledger = self.ledger
        if ledger is None:
            return
        if ledger.draw:
            pot = self.zones.get("POT", 0)
            if pot < ledger.antes:
                self._alert("ante_missing", "SEAT-07", "warning",
                            f"the deal started with {pot} in the pot; the antes and any "
                            f"carried-over pot make {ledger.antes}",
                            remedy="the missing antes go in before the players look at their "
                            "cards")
            return
        self._wrong_blind_seats()
        sb, bb = ledger.blind_seats
        blinds = self._posted_blinds()
        for seat, posted in ((sb, blinds.get(sb, 0)), (bb, blinds.get(bb, 0))):
            if self.zones.get(f"B{seat}", 0) < posted:
                self.blind_flags.add(seat)
                self._alert("blind_missing", "SEAT-03", "warning",
                            f"the deal started without the {'small' if seat == sb else 'big'}"
                            f" blind of {posted} in seat {seat}'s bet zone", seat=seat,
                            remedy="not a misdeal (MISDEAL-11): the blind is posted after the "
                            "deal, before that seat acts")

    def _draw_redeal(self, what: str) -> None:
        """DECK-06: in draw any defective deck found before the pot is collected means the
        game is dealt again (A-08)."""
        if self.in_hand and isinstance(self.hand, DrawHand):
            self._alert("redeal_required", "DECK-06", "critical",
                        f"{what} turned up before the pot was collected: the game must be "
                        "dealt again", remedy="void the game: every bet goes back, replace the "
                        "deck, the same dealer deals again (REDEAL)")

    def _misdeal_if_window(self, what: str, rule: str) -> None:
        """While no one has acted (the misdeal window is open), a defect calls for a misdeal."""
        if isinstance(self.hand, DrawHand):
            return  # draw has its own rule: DECK-06 (``_draw_redeal``)
        if self.in_hand and (self.window_open or (self.hand is not None
                                                  and self.hand.next_index == 1)):
            self._alert("misdeal_required", rule, "critical",
                        f"{what} turned up while no player has acted: this is a misdeal",
                        remedy="declare the misdeal: collect every card, replace the deck, "
                        "shuffle and cut, deal again with the same button (MISDEAL-02)")

    def _deck_scan(self, uids: list[str]) -> None:
        """DECK-01/02: a loaded deck's inventory must be 52 distinct cards of one deck."""
        found = [self.decks.lookup(u) for u in uids]
        unknown = sum(1 for f in found if f is None)
        decks = {f[0] for f in found if f is not None}
        cards = [f[1] for f in found if f is not None]
        in_hand = self.in_hand
        problems = 0
        if unknown or len(decks) > 1:
            problems += 1
            self._alert("deck_defective_foreign_card", "DECK-02", "critical",
                        f"the deck scan shows {unknown} unknown tag(s) and cards of "
                        f"{len(decks)} deck(s)", remedy="replace the deck before dealing",
                        evidence={"unknown": unknown, "decks": sorted(decks)})
        dup = len(cards) - len(set(cards))
        if dup:
            problems += 1
            self._alert("deck_defective_duplicate", "DECK-04", "critical",
                        f"the deck scan shows {dup} card(s) twice",
                        remedy="replace the deck; a hand running with it is cancelled (DECK-04)")
        distinct = len(set(cards))
        if distinct > 52 or len(uids) > 52:
            problems += 1
            self._alert("deck_defective_extra", "DECK-04", "critical",
                        f"the deck scan shows {len(uids)} tags: more than 52",
                        remedy="replace the deck; a hand running with it is cancelled (DECK-04)")
        elif distinct < 52 and not unknown:
            problems += 1
            self._alert("deck_defective_missing", "DECK-03",
                        "warning" if in_hand else "critical",
                        f"the deck scan shows {distinct} cards: {52 - distinct} missing",
                        remedy="finish the hand (DECK-03), then replace the deck" if in_hand
                        else "find the missing cards or replace the deck before dealing")
        if not problems:
            self._note("info", "deck scan complete", deck=next(iter(decks), None), cards=52)

    def _wrong_blind_seats(self) -> None:
        """SEAT-03/04: chips before the deal in the bet zone of a seat that posts no blind."""
        ledger = self.ledger
        if ledger is None:
            return
        blinds = set(ledger.blind_seats)
        for zone, value in self.zones.items():
            if value and zone.startswith("B") and zone[1:].isdigit():
                seat = int(zone[1:])
                if seat not in blinds and seat in ledger.order:
                    sb, bb = ledger.blind_seats
                    self._alert("blind_wrong_seat",
                                "SEAT-04" if ledger.heads_up else "SEAT-03", "warning",
                                f"chips ({value}) in seat {seat}'s bet zone before the deal; "
                                f"the blinds are seats {sb} and {bb}",
                                seat=seat, remedy="return the chips to the player")

    def _posted_blinds(self) -> dict[int, int]:
        ledger = self.ledger
        if ledger is None:
            return {}
        return {o.seat: o.amount for o in ledger.history
                if isinstance(o, Posted) and o.action != "post_ante"}

    def _blind_late(self, seat: int, value: int) -> None:
        ledger = self.ledger
        if ledger is None or seat not in self.blind_flags:
            return
        if value >= self._posted_blinds().get(seat, 0):
            self.blind_flags.discard(seat)
            self._alert("blind_posted_late", "MISDEAL-11", "info",
                        f"seat {seat} has now posted its blind", seat=seat)

    def _string_bet(self, o: Acted) -> None:
        """BET-10: a raise without a declaration must come in one motion; a single chip
        larger than the call, undeclared, counts as a call."""
        d = o.decision
        motions = self.motions.pop(d.seat, [])
        declared = d.seat in self.declared
        self.declared.discard(d.seat)
        if declared or not o.raised or d.action not in ("bet", "raise") or not motions:
            return
        separate = 1 + sum(1 for a, b in pairwise(motions) if b[0] - a[0] > self.s.motion_ms)
        if separate > 1:
            self._alert("string_bet_suspected", "BET-10", "warning",
                        f"seat {d.seat} brought the raise to {d.to} in {separate} motions "
                        "without declaring it", seat=d.seat,
                        remedy="only the first motion counts: if it does not reach a legal "
                        "raise it is a call and the rest goes back; the dealer confirms")
        elif len(motions) == 1 and motions[0][1] == 1 and d.action == "raise":
            self._alert("single_chip_treated_as_call", "BET-10", "info",
                        f"seat {d.seat} put in a single chip larger than the call, without a "
                        "declaration", seat=d.seat,
                        remedy="without a declaration a single chip is a call; the dealer "
                        "confirms and returns the excess")

    def _count_hole_cards(self) -> None:
        """DEAL-03: when pre-flop betting begins every live seat holds exactly two cards;
        one short inside the misdeal window is a misdeal if it cannot be redressed
        (MISDEAL-05)."""
        hand = self.hand
        if self.counted or not isinstance(hand, HoldemHand):
            return
        self.counted = True
        wrong = {s: len(hand.hole.get(s, ())) for s in hand.active
                 if len(hand.hole.get(s, ())) != 2}
        if not wrong:
            return
        listing = ", ".join(f"seat {s} has {n}" for s, n in sorted(wrong.items()))
        self._alert("hole_card_count_error", "DEAL-03", "warning",
                    f"betting began with a wrong number of hole cards: {listing}",
                    seat=min(wrong) if len(wrong) == 1 else None,
                    remedy="redress now if possible; a seat left short is foul at the showdown "
                    "(DEAL-07), a card too many goes to the burn (DEAL-08)")
        if self.window_open and any(n < 2 for n in wrong.values()):
            self._alert("misdeal_required", "MISDEAL-05", "critical",
                        "a player has fewer than two hole cards before anyone acted",
                        remedy="redress if possible; otherwise declare the misdeal "
                        "(MISDEAL-02)")

    def _close_window(self, d: Any) -> None:
        if self.window_open and d.action in ("call", "bet", "raise", "all_in", "fold"):
            self.window_open = False
            self._alert("misdeal_window_closed", "MISDEAL-01", "info",
                        f"seat {d.seat} acted: from now on a misdeal is no longer possible",
                        seat=d.seat)

    def _arrive(self, zone: str, uid: str) -> None:
        if self.card_draw is not None and not self.in_hand:
            self._card_drawn(zone, uid)
            return
        hand = self.hand
        if hand is None:
            return
        if uid not in hand.cards:
            if self.has_shoe and zone in ("MUCK",):
                return  # collection of a card that never left the shoe in this hand
            card = self._identify(uid)
            if card is None:
                return
        else:
            card = hand.cards[uid].card
        if not (zone in CARD_ZONES or _seat_zone(zone, self.s.seats)):
            self._note("warning", "card read in an unknown zone", zone=zone)
            return
        self._arrived(uid)
        if zone == "MUCK" and not self.awarded:
            owner = hand.owner(uid)
            if owner is not None and owner in self.announced:
                self.announced.discard(owner)  # one note per hand is enough
                self._alert("tabled_hand_mucked", "SHOW-08", "info",
                            f"seat {owner}'s hand was tabled and announced, then thrown away: "
                            "it stays in contention", seat=owner,
                            remedy="take the cards back out; the hand is valid")
        ledger = self.ledger
        if ledger is not None:
            self._money(ledger.finalize())
        self._outcomes(hand.arrive(
            zone, uid, card, betting_over=ledger.betting_over() if ledger else True,
            bb_option_pending=ledger.bb_option_pending() if ledger else False, ms=self._ms,
            fold_possible=self._fold_possible(zone, uid)))

    def _arrived(self, uid: str) -> None:
        if self.out_since is not None and self.out_since[0] == uid:
            self.out_since = None

    def _fold_possible(self, zone: str, uid: str) -> bool:
        """Can these cards in the muck be their owner's fold (SHOW-13)?

        Only the ledger knows whose turn it is: a seat may fold when it is its turn, when it
        faces a bet (a fold out of turn, BET-15), or when it is away; otherwise its cards in
        the muck are a live hand swept by mistake.
        """
        hand, ledger = self.hand, self.ledger
        if zone != "MUCK" or hand is None or ledger is None or ledger.round is None:
            return True
        seat = hand.owner(uid)
        rnd = ledger.round
        if seat is None or seat not in rnd.active or rnd.complete:
            return True
        return seat == rnd.next_actor or rnd.to_call(seat) > 0 or seat in ledger.away

    def _outcomes(self, outcomes: Sequence[Outcome | DrawOutcome]) -> None:
        for o in outcomes:
            if isinstance(o, Dealt):
                self._emit(ev.CardDealt, seat=o.seat, n=o.n, index=o.index, face_up=o.face_up,
                           card=o.card if o.face_up else None)
                if o.hole is not None:
                    self._emit(ev.HoleCards, seat=o.seat, cards=list(o.hole))
                    if self.book is not None:
                        self.book.hole(o.seat, o.hole)
                if not self.deal_done and isinstance(self.hand, HoldemHand) \
                        and not self.hand.dealing:
                    self.deal_done = True
                    self._alert("deal_complete", "DEAL-03", "info",
                                "every seat has its two cards: pre-flop betting opens")
            elif isinstance(o, Burned):
                self._emit(ev.Burn, before=o.before, index=o.index)
            elif isinstance(o, BoardDealt):
                self._emit(ev.Board, street=o.street, cards=list(o.cards), board=list(o.board))
                if self.book is not None:
                    self.book.board(o.cards)
                if self.ledger is not None:
                    self.ledger.next_street(o.street)
                    self._maybe_showdown()
            elif isinstance(o, Folded):
                if self.ledger is not None:
                    self._money(self.ledger.fold(o.seat))
            elif isinstance(o, Irregularity):
                self._irregular(o)
            elif isinstance(o, Drew):
                if not o.again:  # a reopened exchange was announced already
                    self._emit(ev.Draw, seat=o.seat, discarded=o.discarded,
                               received=o.received)
                self._emit(ev.HoleCards, seat=o.seat, cards=list(o.hole))
            elif isinstance(o, DrawComplete):
                if self.ledger is not None:
                    self.ledger.next_street("postdraw")
                    self._maybe_showdown()
            elif isinstance(o, CardAfterEnd):
                self._alert("card_after_hand_end", "BOARD-06", "warning",
                            f"a card reached {o.zone} after the hand was over",
                            remedy="ignore the card and collect it", cards=[o.card])

    def _irregular(self, o: Irregularity) -> None:
        evidence = {"index": o.index, "expected": o.expected, "observed": o.observed}
        self._alert(o.name, o.rule, o.severity, o.message, seat=o.seat, remedy=o.remedy,
                    cards=[o.card] if o.card else [], evidence=evidence if o.index else None)
        if o.name == "deck_defective_duplicate":
            self._misdeal_if_window("a card that appears twice in the deck", "MISDEAL-10")
            self._draw_redeal("a card that appears twice in the deck")
            if isinstance(self.hand, HoldemHand) and not self.window_open and self.in_hand \
                    and self.hand.next_index > 2:
                self._end_hand()  # R11, DECK-04: cancelled, every contribution goes back
        if o.name == "deal_order_error" and o.index == 1 and o.seat is not None \
                and isinstance(self.hand, DrawHand):
            self._alert("dealer_rotation_error", "SEAT-09", "warning",
                        f"the first card went to seat {o.seat}, but the dealer is seat "
                        f"{self.button}: the deal starts with the seat on his left",
                        seat=o.seat, remedy="redress if no card has been looked at; otherwise "
                        "the draw redeal rules apply (MISDEAL-16)")
        elif o.name == "deal_order_error" and o.index == 1 and o.seat is not None:
            # SEAT-02: the first card tells where the dealer thinks the button is
            self._alert("button_position_error", "SEAT-02", "warning",
                        f"the first card went to seat {o.seat}, but the button is at seat "
                        f"{self.button}: the deal should start at seat "
                        f"{str(o.expected).removeprefix('S')}",
                        seat=o.seat, remedy="move the button before dealing on; cards dealt "
                        "from the wrong button are redressed, or, while no one has acted, "
                        "a misdeal (MISDEAL-04)")

    # ------------------------------------------------------------------ chips
    def _chips(self, zone: str, uids: str, ms: int) -> None:
        value, unknown = 0, 0
        chips = uids.split(" ") if uids else []
        for uid in chips:
            v = self.chip_values.get(uid)
            if v is None:
                unknown += 1
            else:
                value += v
        if unknown:
            self._alert("foreign_chips_on_table", "TABLE-05", "warning",
                        f"{unknown} chip(s) in {zone} are not in the chip registry; they are "
                        "not counted", remedy="remove the chips, or enroll them with "
                        "`tablesvc chips enroll`", evidence={"zone": zone, "unknown": unknown})
        before = self.zones.get(zone, 0)
        self.zones[zone] = value
        pieces = len(chips)
        pieces_before = self.zone_chips.get(zone, 0)
        self.zone_chips[zone] = pieces
        if value > before and zone.startswith("B") and zone[1:].isdigit() and self.ledger \
                and self.ledger.round is not None:
            seat = int(zone[1:])
            if value > self.ledger.round.contributed.get(seat, 0):  # beyond what is booked
                self.motions.setdefault(seat, []).append((ms, pieces - pieces_before))
        elif zone == "POT" and value > before:
            self.motions.clear()  # the round's bets were gathered
        ledger = self.ledger
        if ledger is None or not self.in_hand:
            return
        if zone.startswith("B") and zone[1:].isdigit():
            seat = int(zone[1:])
            if seat not in ledger.order:
                if value:
                    self._alert("action_out_of_turn", "BET-15", "warning",
                                f"chips ({value}) in the bet zone of seat {seat}, which is not "
                                "in this hand", seat=seat,
                                remedy="return the chips to the player")
                return
            self._blind_late(seat, value)
            if value and value != before:  # not the reader repeating an inventory
                self._draw_gate()
            self._money(ledger.bet_zone(seat, value, ms))
        elif zone == "POT":
            if value > before:
                self._money(ledger.finalize())
                self._check_gathered(value)
            elif value < before and ledger.draw and ledger.settled is None:
                self._alert("pot_chips_removed", "POT-09", "warning",
                            f"chips were taken out of the pot during the game: it held "
                            f"{before}, now {value}", remedy="stop: the chips go back into "
                            "the pot; no chips may be taken out before it is awarded")
            if before > 0 and value == 0 and ledger.settled is not None:
                self._end_hand()

    def _check_gathered(self, pot: int) -> None:
        """After a gathering the POT zone should hold exactly the chips of finished rounds."""
        ledger = self.ledger
        assert ledger is not None
        expected = ledger.pot_gathered if ledger.betting_open else ledger.pot_total
        if pot > expected:
            self._alert("chips_added_mid_hand", "BET-23", "warning",
                        f"the pot holds {pot}, but only {expected} was bet into it",
                        remedy="check the pot: chips were added that no player bet")
        elif pot < expected and not ledger.betting_open and ledger.settled is None:
            self._alert("chips_removed_from_table", "TABLE-06", "critical",
                        f"the pot holds {pot} after gathering, but {expected} was bet",
                        remedy="stop: find the missing chips before the hand goes on")

    def _money(self, outcomes: list[LedgerOutcome]) -> None:
        ledger = self.ledger
        assert ledger is not None or not outcomes
        for o in outcomes:
            if isinstance(o, Posted):
                assert ledger is not None
                self._emit(ev.Action, seat=o.seat, action=o.action, amount=o.amount,
                           to=o.amount if o.action != "post_ante" else 0,
                           stack=o.stack, pot=o.pot)
            elif isinstance(o, Acted):
                assert ledger is not None
                d = o.decision
                if o.deemed and d.action == "fold" and self.hand is not None:
                    self.hand.fold(d.seat)  # the ledger folded him: the card flow follows
                if self.book is not None:
                    self.book.act(d, o.raised)
                self._string_bet(o)
                if o.street == "preflop":
                    self._count_hole_cards()
                if o.street in ("preflop", "predraw"):
                    self._close_window(d)
                if isinstance(self.hand, DrawHand) and o.street == "predraw":
                    self._outcomes(self.hand.betting_started())
                self._emit(ev.Action, seat=d.seat, action=d.action, amount=d.amount, to=d.to,
                           stack=ledger.stacks[d.seat], pot=ledger.pot_total)
                if d.action == "fold" and not o.deemed:
                    self._alert("fold_recorded", "BET-26" if ledger.draw else "BET-08", "info",
                                f"seat {d.seat} folded; the cards may not be picked up again",
                                seat=d.seat)
            elif isinstance(o, Problem):
                v = o.violation
                if ledger is not None and ledger.draw:
                    self._draw_problem(o, outcomes)
                    continue
                self._alert(v.name, v.rule, v.severity, v.message, seat=o.seat,
                            remedy=REMEDIES.get(v.name, ""))
            elif isinstance(o, Returned):
                self._note("info", "uncalled bet returned", seat=o.seat, amount=o.amount)
            elif isinstance(o, Settled):
                self._settled(o)
                self.carry = 0  # a carried-over pot is won with this one
            elif isinstance(o, CheckedOut):
                self._checked_out(o)
        if outcomes:
            self._round_complete()
            self._draw_opens()
            self._maybe_showdown()

    def _round_complete(self) -> None:
        """BET-06: the round is complete; from now on the next card may come (info)."""
        ledger = self.ledger
        if ledger is None or ledger.round is None or ledger.settled is not None \
                or ledger.checked_out is not None or self.round_done == ledger.street:
            return
        if not ledger.round.complete or ledger.pending is not None or len(ledger.live) < 2:
            return
        self.round_done = ledger.street
        name = {"predraw": "first", "postdraw": "second"}.get(ledger.street, ledger.street)
        nxt = {"preflop": "the flop", "flop": "the turn", "turn": "the river",
               "river": "the showdown", "predraw": "the draw",
               "postdraw": "the showdown"}.get(ledger.street, "the next step")
        self._alert("round_complete", "BET-06", "info",
                    f"the {name} betting round is complete: {nxt} may follow")

    def _draw_problem(self, o: Problem, outcomes: list[LedgerOutcome]) -> None:
        """Draw has its own out-of-turn rules (BET-24, BET-25) and round rule (BET-21)."""
        v, seat = o.violation, o.seat
        ledger = self.ledger
        assert ledger is not None
        if v.name != "action_out_of_turn":
            self._alert(v.name, "BET-21", v.severity, v.message, seat=seat,
                        remedy=REMEDIES.get(v.name, ""))
            return
        folded = any(isinstance(a, Acted) and a.decision.seat == seat
                     and a.decision.action == "fold" for a in outcomes)
        if folded and isinstance(self.hand, DrawHand) and seat in self.hand.dead:
            return  # a dead hand (SHOW-15) is no fold of the player's own
        rnd = ledger.round
        if folded:
            if len(ledger.live) < 2:
                return  # BET-25: with one other player left a fold out of turn is allowed
            owed = (rnd.high - rnd.contributed.get(seat, 0)) if rnd is not None and seat else 0
            if seat is not None and owed > 0:
                ledger.owes[seat] = owed  # he pays it when his turn comes
            self._alert("fold_out_of_turn", "BET-25", "warning",
                        f"seat {seat} folded out of turn while several players are in; he "
                        f"still owes the call of {owed} and cannot win the pot", seat=seat,
                        remedy="when his turn comes the player puts in the call; his hand is "
                        "dead (A-27)")
            return
        self._alert("out_of_turn_bet_provisional", "BET-24", "warning",
                    f"seat {seat} bet out of turn: the bet is provisionally void, the chips stay "
                    "in the pot", seat=seat, remedy="when his turn comes he may use these chips "
                    "to call, but may not raise in this round; chips above the call go back to "
                    "him (A-27)")

    def _draw_opens(self) -> None:
        """Draw: the first round is complete with a bet, so the exchange begins (DRAW-02)."""
        hand, ledger = self.hand, self.ledger
        if not isinstance(hand, DrawHand) or ledger is None or hand.ended:
            return
        if hand.phase in ("deal", "predraw") and ledger.street == "predraw" \
                and ledger.settled is None and ledger.checked_out is None \
                and ledger.round is not None and ledger.round.complete \
                and ledger.pending is None:
            self._outcomes(hand.start_draw(ledger.live))

    def _draw_gate(self) -> None:
        """Draw: betting resumes while exchanges stand open; close them with what they have."""
        if isinstance(self.hand, DrawHand) and self.hand.phase == "draw":
            self._outcomes(self.hand.close_draw())

    def _checked_out(self, o: CheckedOut) -> None:
        """BET-20/22, POT-10: everyone checked; the pot stays for the next game."""
        hand, ledger = self.hand, self.ledger
        assert hand is not None and ledger is not None
        self.carry = o.carried
        first = "first" if o.street == "predraw" else "second"
        self._alert("game_checked_out", "BET-20" if o.street == "predraw" else "BET-22",
                    "info", f"everyone checked in the {first} betting round: the game ends "
                    "with no winner")
        self._alert("pot_carryover", "POT-10", "info",
                    f"the pot of {o.carried} stays in the middle for the next game",
                    remedy="the next game starts with this pot plus the new antes; the "
                    "Vorhand deals next")
        self._hand_ended("checked_out", ledger.stacks, carried_pot=o.carried)
        self._eliminate(hand.order)

    def _maybe_showdown(self) -> None:
        hand, ledger = self.hand, self.ledger
        if hand is None or ledger is None or hand.ended:
            return
        if isinstance(hand, DrawHand):
            if ledger.street == "postdraw" and ledger.checked_out is None \
                    and ledger.showdown_due(hand.phase == "postdraw"):
                self._draw_showdown(hand, ledger)
            return
        if ledger.showdown_due(hand.river_dealt):
            for seat in list(ledger.live):
                held = sum(1 for r in hand.cards.values() if r.zone == f"S{seat}")
                if held != 2 and self._foul(seat, held, "two"):
                    return
            holes = {s: hand.hole[s] for s in ledger.live}
            self._settled(ledger.showdown(holes, hand.board))

    def _draw_showdown(self, hand: DrawHand, ledger: Ledger) -> None:
        """SHOW-14: every active hand is shown; more than five cards is dead (A-21, A-38)."""
        for seat in list(ledger.live):
            n = len(hand.hole.get(seat, ()))
            if (n > 5 or n == 0) and self._foul(seat, n, "five, or fewer after a short draw"):
                return
        holes = {s: hand.cards_of(s) for s in ledger.live}
        self._settled(ledger.showdown(holes, ()))
        self.carry = 0

    def _foul(self, seat: int, held: int, right: str) -> bool:
        """SHOW-09: a hand with the wrong number of cards at the showdown is foul and cannot
        win. True when killing it decided the hand (one player left)."""
        hand, ledger = self.hand, self.ledger
        assert hand is not None and ledger is not None
        self._alert("foul_hand_card_count", "SHOW-09", "critical",
                    f"seat {seat} holds {held} cards at the showdown ({right}): the hand is "
                    "foul and cannot win; its chips stay in the pot", seat=seat,
                    remedy="the dealer kills the hand (POT-08)")
        hand.fold(seat)
        self._money(ledger.kill(seat))
        return ledger.settled is not None or hand.ended

    def _knock(self) -> None:
        """BOARD-04: the dealer knocks before the next street; after it, objections about the
        round just played are not recognised, so an issue still open must be settled now."""
        ledger = self.ledger
        if ledger is None or not self.in_hand or ledger.round is None:
            return
        self._money(ledger.finalize())
        rnd = ledger.round
        issues = [f"seat {s}'s out-of-turn bet is still held" for s in sorted(ledger.held)]
        issues += [f"seat {s} is {rnd.to_call(s)} short of the bet" for s in rnd.active
                   if ledger.stacks.get(s, 0) > 0 and rnd.to_call(s) > 0]
        if issues:
            self._alert("round_closed_with_open_issue", "BOARD-04", "warning",
                        "the dealer knocked while the betting round has open issues: "
                        + "; ".join(issues), remedy="settle them before dealing the next "
                        "street; after the knock they are no longer recognised")

    def _self_exposed(self, uid: str) -> None:
        """EXPOSE-05: a card the player exposed himself is his: no replacement, no misdeal."""
        hand = self.hand
        if not self.in_hand or hand is None:
            return
        seat = hand.owner(uid)
        self._alert("player_exposed_own_card", "EXPOSE-05", "info",
                    f"seat {seat} exposed his own card" if seat else "a player exposed a card",
                    seat=seat, remedy="the player keeps the card; no replacement and no "
                    "misdeal; if he showed it to another player, show one, show all (SHOW-10)")

    def _left_with_live_hand(self, seat: int) -> None:
        """BET-18: a player with a live hand in which he has put chips must stay seated."""
        hand, ledger = self.hand, self.ledger
        if hand is None or ledger is None or seat not in hand.active:
            return
        if ledger.contributed.get(seat, 0) > 0 and any(
                isinstance(a, Acted) and a.decision.seat == seat for a in ledger.history):
            self._alert("player_left_with_live_hand", "BET-18", "warning",
                        f"seat {seat} left the table with a live hand he has bet in",
                        seat=seat, remedy="floor decision, a penalty is possible; when his turn "
                        "comes he is treated as absent (BET-16)")

    def _showdown_console(self, name: str, args: list[str]) -> None:
        """The dealer's showdown inputs: a hand tabled (SHOW-05), its announced value
        (SHOW-06/07), the pot awarded (POT-05), a player's objection (POT-06)."""
        ledger = self.ledger
        seat = int(args[0]) if args and args[0].isdigit() else None
        if name == "OBJECTION":
            if self.awarded or not self.in_hand:
                self._alert("late_objection", "POT-06", "info",
                            f"seat {seat} objected after the pot was awarded: the award stands",
                            seat=seat, remedy="nothing changes; objections come before the "
                            "award")
            return
        if ledger is None or seat is None or not self.in_hand:
            return
        settled = ledger.settled
        if name == "SHOWN":
            count = int(args[1]) if len(args) > 1 and args[1].isdigit() else 2
            self.shown[seat] = count
        elif name == "ANNOUNCED" and len(args) > 1:
            self._announced(seat, args[1], settled)
        elif name == "AWARD":
            self._award_checked(seat, settled)

    def _announced(self, seat: int, words: str, settled: Settled | None) -> None:
        shown = next((s for s in settled.showdown if s.seat == seat), None) if settled else None
        self.announced.add(seat)
        self.shown.setdefault(seat, 2)
        category = words.lower().replace("_", " ").replace("-", " ")
        if category == "royal flush":
            said = len(CATEGORY_WORDS)
        elif category in CATEGORY_WORDS:
            said = CATEGORY_WORDS.index(category) + 1
        else:
            self._note("warning", "unknown hand category announced", announced=words)
            return
        if shown is None:
            return
        actual = shown.value.key[0] + (1 if shown.value.name == "royal flush" else 0)
        if said == actual:
            return
        if said > actual:
            self._alert("misannounced_hand", "SHOW-07", "warning",
                        f"seat {seat}'s hand was announced as {category}, but it is "
                        f"{shown.value.category}", seat=seat,
                        remedy="the cards speak: correct the announcement; hands folded "
                        "because of it may come back if they never touched the muck")
            hand = self.hand
            if isinstance(hand, HoldemHand):
                back = [s for s in hand.order if s in hand.folded and hand.hole.get(s)
                        and all(r.zone != "MUCK" for r in hand.cards.values()
                                if r.card in hand.hole[s])]
                if back:
                    self._alert("folded_hand_recoverable", "SHOW-07", "info",
                                "folded hands never read at the muck: "
                                + ", ".join(f"seat {s}" for s in back))
        else:
            self._alert("hand_announcement_mismatch", "SHOW-06", "warning",
                        f"seat {seat}'s hand was announced as {category}, but it is "
                        f"{shown.value.category}", seat=seat,
                        remedy="the dealer corrects the announcement; the cards speak")

    def _award_checked(self, seat: int, settled: Settled | None) -> None:
        """POT-05, SHOW-05, SHOW-03/04: the dealer's award against the computed result."""
        self.awarded = True
        if settled is None:
            self._alert("pot_award_mismatch", "POT-05", "critical",
                        f"the pot is being awarded to seat {seat} before the hand is decided",
                        seat=seat, remedy="stop the push; finish the hand first")
            return
        winners = {s for a in settled.awards for s in a.winners}
        if seat not in winners:
            self._alert("pot_award_mismatch", "POT-05", "critical",
                        f"the pot is being awarded to seat {seat}; the hands say "
                        + ", ".join(f"seat {w}" for w in sorted(winners)), seat=seat,
                        remedy="stop the push: the dealer or floor checks the hands and "
                        "awards the pot correctly (before the push is finished, POT-06)")
        if settled.uncontested:
            return
        hand = self.hand
        for w in sorted(winners):
            shown = self.shown.get(w)
            if shown is None:
                self._alert("winner_not_shown", "SHOW-05", "warning",
                            f"the pot is awarded, but seat {w}'s winning hand was not shown",
                            seat=w, remedy="the winner shows his hand before the award")
                continue
            value = next((s.value for s in settled.showdown if s.seat == w), None)
            board = set(hand.board) if isinstance(hand, HoldemHand) else set()
            plays_board = value is not None and bool(board) and set(value.best) <= board
            if shown < 2 and (self.s.qualification_table or plays_board):
                self._alert("both_cards_required", "SHOW-04" if plays_board else "SHOW-03",
                            "warning", f"seat {w} showed {shown} card(s); both hole cards "
                            "must be shown" + (" to play the board" if plays_board else ""),
                            seat=w, remedy="no share of the pot until both cards are shown")

    def _settled(self, st: Settled) -> None:
        self._settle_info(st)
        for n, shown in enumerate(st.showdown, 1):
            self._emit(ev.Showdown, seat=shown.seat, order=n, tabled=shown.tabled,
                       cards=list(shown.cards) if shown.tabled else None,
                       rank=shown.value.name if shown.tabled else None)
        for a in st.awards:
            self._emit(ev.PotAwarded, pot="main" if a.pot == 0 else f"side {a.pot}",
                       amount=a.amount, seats=list(a.winners),
                       shares={str(k): v for k, v in a.shares.items()},
                       odd_chip_seat=a.odd_chip_seat, uncontested=st.uncontested)

    # ------------------------------------------------------------------ console
    def _button(self, name: str, args: list[str]) -> None:
        if name in ("EXPOSED", "BURN_FACE_UP", "BOXED", "BOXED_CARD") and self.in_hand \
                and self.ledger is not None:
            # the dealer stops to rule on a card: chips still in motion are placed (DESIGN §3)
            self._money(self.ledger.finalize())
        if name == "NEWHAND":
            self._new_hand()
        elif name == "FOLD" and args and args[0].isdigit() and self.hand:
            self._outcomes(self.hand.fold(int(args[0])))
        elif name == "CHECK" and args and args[0].isdigit():
            if self.ledger is not None and self.in_hand:
                self._draw_gate()
                self._money(self.ledger.check(int(args[0])))
        elif name in ("MISDEAL", "REDEAL"):
            self._misdeal("the dealer declared a misdeal" if name == "MISDEAL"
                          else "the game is dealt again")
        elif name == "DRAW" and len(args) == 2 and args[0].isdigit() and args[1].isdigit():
            if self.in_hand and isinstance(self.hand, DrawHand):
                if self.ledger is not None:
                    self._money(self.ledger.finalize())
                self._outcomes(self.hand.announce(int(args[0]), int(args[1])))
        elif name == "DECLARE" and args and args[0].isdigit():
            self.declared.add(int(args[0]))  # BET-10: a raise declared aloud
        elif name == "CARDS_VIEWED" and args and args[0].isdigit():
            if self.in_hand and isinstance(self.hand, DrawHand):
                self._outcomes(self.hand.viewed(int(args[0])))
        elif name == "TIME" and args and args[0].isdigit():
            if self.ledger is not None and self.in_hand:
                self._money(self.ledger.clock(int(args[0]), self._ms))
        elif name == "PLAYER_ABSENT" and args and args[0].isdigit():
            if self.ledger is not None and self.hand is not None and self.in_hand:
                seat = int(args[0])
                self._left_with_live_hand(seat)
                posted = [o for o in self.ledger.history if isinstance(o, Posted)
                          and o.seat == seat and o.action != "post_ante"]
                if posted and seat in self.hand.active:
                    self._alert("absent_stack_blinded", "SEAT-06", "info",
                                f"seat {seat} is away; his blind of {posted[0].amount} "
                                "is posted from his stack", seat=seat)
                self._money(self.ledger.absent(seat))  # first: the fold is then his own
                self._outcomes(self.hand.player_absent(seat, self.window_open))
        elif name == "REDRESS_IMPOSSIBLE" or (name == "FLOOR" and args
                                               and args[0] == "redress_impossible"):
            if self.hand is not None and self.in_hand:
                self._outcomes(self.hand.redress_impossible(self.window_open))
        elif name == "EXPOSED" and len(args) >= 2 and args[1] == "player":
            self._self_exposed(args[0])
        elif name in ("EXPOSED", "BURN_FACE_UP") and args:
            if self.in_hand and self.hand is not None:
                self._outcomes(self.hand.exposed(args[0], self.window_open))
        elif name in ("SEAT_DRAW", "DEALER_DRAW"):
            self._card_draw_button("seats" if name == "SEAT_DRAW" else "dealer")
        elif name == "SHUFFLE_ERROR":
            self._shuffle_error()
        elif name == "KNOCK":
            self._knock()
        elif name in ("SHOWN", "ANNOUNCED", "AWARD", "OBJECTION"):
            self._showdown_console(name, args)
        elif name in ("BOXED", "BOXED_CARD"):
            if self.in_hand and self.hand is not None:
                self._outcomes(self.hand.boxed(args[0] if args else None, self.window_open))
        elif name == "FLOOR":
            pass  # betting and irregularities are tracked by later rule sets
        else:
            self._note("warning", "unknown console button", button=name)

    def _card_draw_button(self, kind: str) -> None:
        """SEAT-08/09: the first press starts a draw between games; for the seating draw the
        next press closes a round of cards (ties draw again)."""
        if self.in_hand:
            self._note("warning", "a seating or dealer draw cannot start during a hand")
            return
        if self.card_draw is None or self.card_draw.kind != kind or self.card_draw.done:
            self.card_draw = CardDraw(kind)
            return
        got = self.card_draw.finish()
        if isinstance(got, SeatDrawTie):
            self._alert("seat_draw_tie", "SEAT-08", "info",
                        "seats " + ", ".join(map(str, got.seats)) + f" drew the same rank "
                        f"({got.rank}): only they get new cards", remedy="deal one more card "
                        "to each tied player, then press SEAT_DRAW again")
        elif isinstance(got, SeatDrawResult):
            self.card_draw = None
            self._alert("seat_draw_result", "SEAT-08", "info",
                        "players choose their seats in this order: "
                        + ", ".join(f"the player at seat {s}" for s in got.order))

    def _card_drawn(self, zone: str, uid: str) -> None:
        draw = self.card_draw
        found = self.decks.lookup(uid)
        if draw is None or found is None or not _seat_zone(zone, self.s.seats):
            return
        got = draw.card(int(zone[1:]), found[1])
        if isinstance(got, FirstDealer):
            self.card_draw = None
            self.next_button = got.seat
            self._alert("first_dealer_determined", "SEAT-09", "info",
                        f"seat {got.seat} received the first Jack and deals the first game",
                        seat=got.seat)

    def _shuffle_error(self) -> None:
        """MISDEAL-15: after a shuffle or cut error a player who has received only one card,
        and not looked at it, may demand a redeal (A-37)."""
        hand = self.hand
        if not self.in_hand or not isinstance(hand, DrawHand):
            return
        eligible = [s for s in hand.order if len(hand.hole.get(s, ())) <= 1]
        if hand.phase == "deal" and eligible:
            self._alert("redeal_may_be_demanded", "MISDEAL-15", "warning",
                        "a shuffle or cut error: players with no more than one card may "
                        "demand a redeal (seats " + ", ".join(map(str, eligible)) + ")",
                        remedy="on demand of a player who has not looked at his card: "
                        "collect, shuffle, cut, the same dealer deals again (REDEAL)")
        else:
            self._alert("redeal_may_be_demanded", "MISDEAL-15", "info",
                        "a shuffle or cut error, but every player has more than one card: "
                        "no redeal can be demanded any more", remedy="play on")

    def _new_hand(self) -> None:
        self.card_draw = None
        if self.in_hand:
            self._end_hand()
        if self.hand is not None:
            self._outcomes(self.hand.collected())  # BURN-08: every card of the hand in the muck
        seated = sorted(s for s, p in self.players.items() if p.stack > 0)
        if len(seated) < 2:
            self._alert("player_count_out_of_range", "TABLE-00", "warning",
                        f"NEWHAND pressed with {len(seated)} player(s) seated; a hand needs 2",
                        remedy="seat players with cmd/seat before dealing")
            self.hand = None
            self.ledger = None
            return
        button = self._next_button(seated)
        self.button = button
        self.hand_no += 1
        self.hand_deck = None
        self.flagged = set()
        self.blind_flags = set()
        self.window_open = False
        self.after_misdeal = False
        self.deal_done = self.counted = False
        self.round_done = None
        self.motions.clear()
        self.declared.clear()
        self.shown = {}
        self.announced = set()
        self.awarded = False
        if self.s.variant == "draw5":
            self._new_draw_game(seated, button)
            return
        self.hand = HoldemHand(tuple(seated), button)
        order = self.hand.order
        self.ledger = Ledger(
            order=order, button=button, stacks={s: self.players[s].stack for s in order},
            small_blind=self.s.small_blind, big_blind=self.s.big_blind, ante=self.s.ante,
            ante_mode=self.s.ante_mode, structure=Structure(self.s.limit),
            unit=min(self.chip_values.values(), default=1), settle_ms=self.s.bet_settle_ms)
        self.book = HistoryBook(order)
        sb, bb = self.ledger.blind_seats
        self._emit(ev.HandStarted, hand=self.hand_no, variant="holdem", limit=self.s.limit,
                   button=button, small_blind_seat=sb, big_blind_seat=bb,
                   seats=[ev.SeatInfo(seat=s, name=self.players[s].name,
                                      stack=self.players[s].stack) for s in order],
                   small_blind=self.s.small_blind, big_blind=self.s.big_blind,
                   ante=self.s.ante, ante_mode=self.s.ante_mode)
        self._money(self.ledger.post_forced())

    def _new_draw_game(self, seated: list[int], button: int) -> None:
        """Five-card draw: antes, no blinds; the dealer is the button seat (SEAT-09)."""
        if not 3 <= len(seated) <= 8:
            self._alert("player_count_out_of_range", "SEAT-10", "warning",
                        f"a draw game needs 3 to 8 players; {len(seated)} are dealt in",
                        remedy="add or remove players, or the floor confirms the exception "
                        "(all players agree, DRAW-10); the game is tracked either way",
                        hand=self.hand_no)
        self.hand = DrawHand(tuple(seated), button)
        order = self.hand.order
        self.ledger = Ledger(
            order=order, button=button, stacks={s: self.players[s].stack for s in order},
            small_blind=0, big_blind=self.s.big_blind, ante=self.s.ante, ante_mode="each",
            structure=Structure(self.s.limit), unit=min(self.chip_values.values(), default=1),
            settle_ms=self.s.bet_settle_ms, variant="draw5", carried=self.carry,
            all_check=self.s.all_check)
        self.book = None  # PHH has no five-card-draw-high variant
        self._emit(ev.HandStarted, hand=self.hand_no, variant="draw5", limit=self.s.limit,
                   button=button, small_blind_seat=None, big_blind_seat=None,
                   seats=[ev.SeatInfo(seat=s, name=self.players[s].name,
                                      stack=self.players[s].stack) for s in order],
                   small_blind=0, big_blind=0, ante=self.s.ante, ante_mode="each",
                   carried_pot=self.carry)
        if self.carry:
            self._alert("pot_carryover", "POT-10", "info",
                        f"this game starts with {self.carry} carried over from the last one")
        self._money(self.ledger.post_forced())

    def _next_button(self, seated: list[int]) -> int:
        if self.keep_button and self.button in seated:
            self.keep_button = False
            return self.button  # a misdeal: the same hand is dealt again (R10)
        self.keep_button = False
        if self.next_button is not None:
            wanted, self.next_button = self.next_button, None
            if wanted in seated:
                return wanted
        if self.button is None:
            return seated[0]
        start = self.button
        if self.passed_over is not None and self.passed_over in seated:
            start = self.passed_over  # TABLE-02: the button passes the newcomer's seat
        self.passed_over = None
        later = [s for s in seated if s > start]
        return later[0] if later else seated[0]

    def _seated(self, seat: int, name: str) -> None:
        """TABLE-01/02: a newcomer takes his seat's position, except between button and SB."""
        self._alert("player_seated", "TABLE-01", "info",
                    f"{name} takes seat {seat}, with the rights and duties of its position",
                    seat=seat)
        button = self.button
        if button is None or self.ledger is None:
            return
        sb = self.ledger.blind_seats[0]
        between = (button < seat < sb) if button < sb else (seat > button or seat < sb)
        if between and seat not in (button, sb):
            self.passed_over = seat
            self._alert("seated_between_button_and_sb", "TABLE-02", "info",
                        f"seat {seat} is between the button and the small blind: no entry "
                        "there, so the button moves past it next hand", seat=seat)

    def _settle_info(self, st: Settled) -> None:
        """The floor's record of how the pot went: the info alerts of POT-01/03/04/07, SHOW-01."""
        if st.uncontested:
            winner = st.awards[0].winners[0] if st.awards else None
            self._alert("pot_uncontested", "POT-07", "info",
                        f"everyone else folded: seat {winner} wins without showing", seat=winner)
            return
        order = [s.seat for s in st.showdown]
        self._alert("showdown_order", "SHOW-01", "info",
                    "showing order: " + ", ".join(f"seat {s}" for s in order),
                    seat=order[0] if order else None)
        if st.contested_pots > 1:
            self._alert("side_pot_required", "POT-01", "info",
                        "pots: " + "; ".join(
                            f"{'main' if a.pot == 0 else f'side {a.pot}'} {a.amount}"
                            for a in st.awards))
        for a in st.awards:
            if len(a.winners) > 1:
                self._alert("split_pot", "POT-03", "info",
                            f"{'main' if a.pot == 0 else f'side {a.pot}'} pot of {a.amount} "
                            "split: " + ", ".join(f"seat {s} {v}" for s, v in a.shares.items()))
            if a.odd_chip_seat is not None:
                self._alert("odd_chip_assignment", "POT-04", "info",
                            f"the odd chip of the {'main' if a.pot == 0 else f'side {a.pot}'} "
                            f"pot goes to seat {a.odd_chip_seat}, the first winner left of the "
                            "button", seat=a.odd_chip_seat)

    def _declare(self, cmd: Any) -> Any:
        if cmd.ruling in ("suspend_rule", "restore_rule"):
            return self._suspend(cmd)
        if not self.in_hand:
            raise CommandError("no hand is running")
        if cmd.ruling == "misdeal":
            self._misdeal(f"floor ruling: {cmd.reason or 'misdeal'}")
            return {"ruling": "misdeal", "hand": self.hand_no}
        hand, ledger = self.hand, self.ledger
        assert hand is not None and ledger is not None
        if cmd.seat is None or cmd.seat not in hand.active:
            raise CommandError(f"a {cmd.ruling} ruling needs the seat of a live hand; live: "
                               f"{', '.join(map(str, hand.active))}")
        word = "dead" if cmd.ruling == "dead_hand" else "foul"
        self._alert("foul_hand", "POT-08", "warning",
                    f"the floor ruled seat {cmd.seat}'s hand {word}"
                    + (f" ({cmd.reason})" if cmd.reason else "")
                    + ": it cannot win, and its chips stay in the pot", seat=cmd.seat,
                    remedy="the dealer kills the hand: its cards go to the muck")
        self._outcomes(hand.fold(cmd.seat))
        return {"ruling": cmd.ruling, "seat": cmd.seat}

    def _suspend(self, cmd: Any) -> Any:
        """DRAW-10: all players agree to set a rule aside; its alerts become info."""
        if cmd.rule is None:
            raise CommandError(f"{cmd.ruling} needs the rule ID, e.g. \"rule\": \"SEAT-10\"")
        if cmd.ruling == "restore_rule":
            if self.suspended.pop(cmd.rule, None) is None:
                raise CommandError(f"rule {cmd.rule} is not suspended; suspended: "
                                   f"{', '.join(sorted(self.suspended)) or 'none'}")
            self._alert("rule_restored", "DRAW-10", "info", f"rule {cmd.rule} applies again")
            return {"restored": cmd.rule}
        self.suspended[cmd.rule] = cmd.reason
        self._alert("rule_suspended", "DRAW-10", "info",
                    f"the players agreed to suspend rule {cmd.rule}"
                    + (f" ({cmd.reason})" if cmd.reason else "")
                    + ": its alerts are reported as info until it is restored")
        return {"suspended": sorted(self.suspended)}

    def _misdeal(self, why: str) -> bool:
        """R10: the hand is void, every chip goes back, the next deal keeps the button."""
        if not self.in_hand:
            return False
        hand, ledger = self.hand, self.ledger
        assert hand is not None and ledger is not None
        ledger.pending = None
        self._hand_ended("misdeal", ledger.start_stacks)
        self.after_misdeal = True
        self.keep_button = True
        self.window_open = False
        self.open_alerts = {k: v for k, v in self.open_alerts.items()
                            if v not in ("misdeal_required",)}
        self._note("info", "misdeal", reason=why, hand=self.hand_no)
        return True

    def _hand_ended(self, reason: str, stacks: Mapping[int, int], done: bool = True,
                    **extra: Any) -> None:
        """The players' stacks become the hand's result, and everyone hears how it ended."""
        hand = self.hand
        assert hand is not None
        for seat, stack in stacks.items():
            if seat in self.players:
                self.players[seat].stack = stack
        self._emit(ev.HandEnded, reason=reason,
                   stacks=[ev.SeatInfo(seat=s, name=self.players[s].name,
                                       stack=self.players[s].stack)
                           for s in hand.order if s in self.players],
                   board=list(hand.board), cards_used=hand.next_index - 1, **extra)
        if done:
            hand.ended = True

    def _end_hand(self) -> None:
        hand, ledger = self.hand, self.ledger
        assert hand is not None and ledger is not None
        self._money(ledger.finalize())
        settled = ledger.settled
        if settled is None:
            reason = "cancelled"
            stacks = dict(ledger.start_stacks)  # an unfinished hand gives every chip back
        else:
            reason = "uncontested" if settled.uncontested else "showdown"
            stacks = dict(ledger.stacks)
        self._hand_ended(reason, stacks, done=False)
        if settled is not None and self.book is not None:
            names = {s: p.name for s, p in self.players.items()}
            self._emit(ev.HandHistory, phh=self.book.phh(
                ledger, self.s.limit, names, hand=self.hand_no, table=self.s.table,
                venue=self.s.venue, seats=self.s.seats))
        hand.ended = True
        self._eliminate(hand.order)

    def _eliminate(self, order: tuple[int, ...]) -> None:
        for seat in order:
            p = self.players.get(seat)
            if p is not None and p.stack == 0:
                del self.players[seat]
                self._alert("player_eliminated", "TABLE-07", "info",
                            f"seat {seat} ({p.name}) has no chips left and leaves the table",
                            seat=seat, hand=self.hand_no)

    # ------------------------------------------------------------------ commands
    def _command(self, inp: Command) -> None:
        request_id = inp.body.get("request_id")
        try:
            parsed = parse_command(inp.cmd, inp.body)
            data = self._run_command(parsed)
        except CommandError as err:
            self._out.replies.append(Reply(inp.cmd, request_id, False, str(err)))
            self._note("info", "command refused", cmd=inp.cmd, error=str(err))
            return
        self._out.replies.append(Reply(inp.cmd, request_id, True, None, data))

    def _run_command(self, cmd: Any) -> Any:
        from tablesvc.core import commands as c

        in_hand = self.hand is not None and not self.hand.ended
        if isinstance(cmd, c.SeatCmd):
            if cmd.seat > self.s.seats:
                raise CommandError(f"seat {cmd.seat} does not exist (table has "
                                   f"{self.s.seats} seats)")
            if in_hand and self.hand is not None and cmd.seat in self.hand.seats:
                raise CommandError(f"seat {cmd.seat} is in the current hand; seat after it ends")
            newcomer = cmd.seat not in self.players
            self.players[cmd.seat] = Player(cmd.seat, cmd.name, cmd.stack)
            if newcomer:
                self._seated(cmd.seat, cmd.name)
            return {"seat": cmd.seat}
        if isinstance(cmd, c.UnseatCmd):
            if cmd.seat not in self.players:
                raise CommandError(f"seat {cmd.seat} is empty")
            if in_hand and self.hand is not None and cmd.seat in self.hand.active:
                raise CommandError(f"seat {cmd.seat} has a live hand; unseat after it ends")
            del self.players[cmd.seat]
            return {"seat": cmd.seat}
        if isinstance(cmd, c.ConfigureCmd):
            if in_hand:
                raise CommandError("a level change takes effect between hands; send it after "
                                   "this hand ends")
            changes = cmd.model_dump(exclude_none=True, exclude={"request_id"})
            new = replace(self.s, **changes)
            if new.small_blind > new.big_blind:
                raise CommandError(f"small_blind {new.small_blind} exceeds big_blind "
                                   f"{new.big_blind}")
            self.s = new
            return {k: getattr(new, k) for k in ("small_blind", "big_blind", "ante",
                                                 "ante_mode", "limit")}
        if isinstance(cmd, c.DeclareCmd):
            return self._declare(cmd)
        if isinstance(cmd, c.AckAlertCmd):
            name = self.open_alerts.pop(cmd.alert_id, None)
            if name is None:
                raise CommandError(f"no open critical alert {cmd.alert_id!r}; open: "
                                   f"{', '.join(self.open_alerts) or 'none'}")
            self._note("info", "alert acknowledged", alert=cmd.alert_id, name=name, by=cmd.by)
            return {"alert_id": cmd.alert_id, "name": name}
        if isinstance(cmd, c.ButtonCmd):
            if cmd.seat not in self.players:
                raise CommandError(f"seat {cmd.seat} is empty; the button goes to a seated "
                                   "player")
            self.next_button = cmd.seat
            return {"next_button": cmd.seat}
        raise CommandError(f"command {type(cmd).__name__} is not supported yet")


def _seat_zone(zone: str, seats: int) -> bool:
    return zone.startswith("S") and zone[1:].isdigit() and 1 <= int(zone[1:]) <= seats
