"""The table: one pure state machine fed with journalled inputs, answering with events.

``TableCore.apply(input)`` is the whole contract: the same inputs in the same order give the
same events, seq and ts included. That is what makes replay, crash recovery and scenario tests
possible, and why nothing here reads a clock, a file or a socket.

The table keeps only what outlives a hand: the seats and stacks, the button, the devices, the
registries, the deck in play since the last shuffle, a pot carried over, the event sequence.
A hand (``tablesvc.core.hand.Hand``) is created at NEWHAND: a ``HandSession`` followed against
the rules, an ``UntrackedHand`` when the service cannot follow it, or a ``Placement`` while
the table shows where the hand is (``tablesvc.core.placement``); the table hands every input
to it and never asks which it is. The controller's commands are
``tablesvc.core.controller``'s; whether the table is still seen whole (devices away, frames
lost, a restart) is ``tablesvc.core.continuity``'s; the stacks its stack zones show are
``tablesvc.core.stacks``'s.
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping
from typing import Any, ClassVar

from drivers.devices import get_kind
from drivers.tsp import Frame
from tablesvc.core import events as ev
from tablesvc.core.carddraw import CardDraw, FirstDealer, SeatDrawResult, SeatDrawTie
from tablesvc.core.cards import DeckRegistry
from tablesvc.core.commands import COMMAND_CHECKS, UNSEATED_MAY_BE_DEALT
from tablesvc.core.continuity import STOPPED, Continuity
from tablesvc.core.controller import run_command
from tablesvc.core.defects import DefectRuling
from tablesvc.core.device_health import DeviceHealth
from tablesvc.core.emitter import Emitter, Note, Output, Reply
from tablesvc.core.equity import EquityFeed
from tablesvc.core.games import variant_for
from tablesvc.core.hand import Hand
from tablesvc.core.inputs import (
    Command,
    EquityResult,
    FrameIn,
    Input,
    PortChange,
    PublishRefused,
    ServiceResumed,
    ServiceStart,
)
from tablesvc.core.links import (
    Link,
    receive,
)
from tablesvc.core.monitors.deck_integrity import DeckIntegrity
from tablesvc.core.monitors.showdown_console import ShowdownConsole
from tablesvc.core.physical_order import PhysicalOrder
from tablesvc.core.placement import Placement, Reason
from tablesvc.core.session import AnySession, HandSession, is_card_zone
from tablesvc.core.settings import Level, Player, TableSettings, seat_zone
from tablesvc.core.stacks import StackZones, stack_zone
from tablesvc.core.untracked import DeferredAlert, UntrackedHand

__all__ = ["Note", "Output", "Player", "Reply", "TableCore", "TableSettings"]

# console buttons the table knows that mean nothing while no hand is under way (and the
# game's own, ``Variant.BUTTONS``)
HAND_BUTTONS = frozenset({
    "FOLD", "CHECK", "DECLARE", "TIME",
    "PLAYER_ABSENT", "REDRESS_IMPOSSIBLE", "EXPOSED", "BURN_FACE_UP", "KNOCK", "BOXED",
    "BOXED_CARD", "FLOOR"})
SIGNIFICANT = frozenset({"DRAW", "ARR", "DEP", "RET", "BTN", "DECK"})
"""Frame types that move the hand on (chip inventories count when they change)."""


class TableCore:
    """State of one table that outlives its hands, and the dispatch of inputs to them."""

    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "DEAL-01": ("deal_without_shuffle",),
        "BOARD-06": ("card_after_hand_end",),
        "TABLE-00": ("publish_refused", "device_fault", "player_count_out_of_range",
                     "button_found", "stacks_unverified", "seat_sat_out", "player_back",
                     "internal_error"),
        "SEAT-02": ("button_position_error", "button_followed"),
        "TABLE-01": ("player_seated",),
        "TABLE-02": ("seated_between_button_and_sb",),
        "TABLE-05": ("foreign_chips_on_table",),
        "TABLE-07": ("player_eliminated",),
        "SEAT-08": ("seat_draw_tie", "seat_draw_result"),
        "SEAT-09": ("first_dealer_determined",),
    }

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
        # the last chip inventory read: its string, (value, unknown chips, pieces)
        self._inventory_of: tuple[str | None, tuple[int, int, int]] = (None, (0, 0, 0))
        self.out = Emitter(settings.venue, settings.table, self._current_hand)
        self.continuity = Continuity(self.out, self.links)
        self.health = DeviceHealth(self.out, self.links, self.continuity)
        self.order = PhysicalOrder(settings.order_tolerance_ms)
        self.boot = 0
        self.hand_no = 0
        # the hand under way, or the last one until the next NEWHAND collects its cards
        self.session: Hand | None = None
        self.deck = DeckIntegrity(decks, self.out)  # the deck in play since the shuffle
        self.carry = 0  # the pot a game without a winner left for the next (POT-10)
        self.carry_known = True  # False once a game went by unfollowed: the pot will say
        self.next_button: int | None = None
        self.button: int | None = None
        self.button_known = True  # False after a hand whose NEWHAND the service did not see
        # the last hand's button was not where the service had it: the next one is placed
        # from the table, and followed there if the table keeps its own rotation
        self.disputed = False
        self.disputed_by = 0  # the input whose alert disputed the button
        self.newcomers: set[int] = set()  # seated since the last deal: maybe not at the table
        # players the service had out of chips: should the table deal to their seat again,
        # the service was wrong (a stack it could not vouch for), and the table is the truth
        self.gone: dict[int, Player] = {}
        # players the controller unseated since the last deal: the dealer may deal the next
        # hand before they stood up (a move decided as it was pressed); dealt in, they are back
        self.left: dict[int, Player] = {}
        self.sat_out: set[int] = set()  # seated, but the last deal gave them no card
        self.button_tag: int | None = None  # the seat the tagged dealer button lies at
        # the players' stacks as the table shows them, where it has stack zones
        self.stacks = StackZones(self.out) if settings.stack_zones else None
        self.unverified: set[int] = set()  # seats whose stacks an untracked hand may have changed
        self.zones: dict[str, int] = {}  # chip zone -> value
        self.zone_chips: dict[str, int] = {}  # chips (pieces) last seen in each zone
        self.card_draw: CardDraw | None = None  # a seating or first-dealer draw (SEAT-08/09)
        self.after_misdeal = False  # a misdeal was declared; the next card needs a NEWHAND
        self.keep_button = False  # a misdeal: the next hand keeps the button
        self.passed_over: int | None = None  # TABLE-02: a newcomer the button moves past
        # levels (cmd/configure): one sent during a hand waits for the next NEWHAND; the level
        # before a change is the other level the first hand after it may be dealt at (the
        # dealer reads the room's clock, the table gets the command: either may come first)
        self.pending_level: Level | None = None
        self.level_before: Level | None = None  # changed since the last NEWHAND, from this
        self.other_level: Level | None = None  # the hand of the last NEWHAND may be dealt at
        # how commands are checked: strictly, unless the journal's last start record is of a
        # version that checked them laxly (its journal must replay as it was published)
        self.command_checks = COMMAND_CHECKS
        self.equity = EquityFeed(self.out, settings.variant, settings.equity_dead_cards)
        if settings.alert_confirm:
            self.out.confirm_from = self._online

    def _online(self) -> set[str]:
        """The devices a rule alert must hear from again before it is raised."""
        return {n for n, link in self.links.items() if link.state == "online"}

    # ------------------------------------------------------------------ entry points
    def apply(self, inp: Input) -> Output:
        """One input. Should the core fail on it, nothing it began is published: its events
        are dropped with their seqs (the feed stays gapless), the hand under way becomes
        untracked, and one ``internal_error`` alert says so (the note carries the trace)."""
        out = self.out.begin(inp.ts, inp.ms)
        try:
            self._apply(inp)
        except Exception as exc:
            self._failed(inp, exc)
        return out

    def _apply(self, inp: Input) -> None:
        ms = inp.ms
        out = self.out
        if isinstance(inp, ServiceStart):
            # before the devices' timers: the service was not listening, which is no device's
            # fault, so a restart after more than the stale time raises no device_offline
            self.continuity.service_started(
                ms, "the service restarted" if self.boot else "the service started")
            self._zones_unknown()
        elif isinstance(inp, ServiceResumed):
            self._resumed(inp)
        hand = self.session
        out.doubt = self.continuity.in_doubt or (hand is not None and hand.doubt is not None)
        if self.order.held:
            self._release(ms)  # what waited long enough came first: it goes first
        if ms >= self.health.due:
            self.health.expire(ms)
        if self.continuity.pending:
            self.continuity.expire(ms)
        if self.stacks is not None and self.stacks.excess:
            self.stacks.expire(ms, self._held_in_hand())
        if self.session is not None:
            self.session.expire(ms)
        if isinstance(inp, FrameIn):
            self._frame(inp)
        elif isinstance(inp, Command):
            self._command(inp)
        elif isinstance(inp, PortChange):
            if inp.detail == STOPPED and self.out.held:
                self.out.release()  # the service stops: its last word on what it saw whole
            self.health.port(inp)
        elif isinstance(inp, ServiceStart):
            self.command_checks = inp.command_checks
            self.boot += 1
            self.out.emit(ev.ServiceStarted, version=inp.version, boot=self.boot)
        elif isinstance(inp, ServiceResumed):
            self.out.note("warning", "the service's process was stopped; what the devices "
                          "sent meanwhile was read late or lost", paused_ms=inp.paused_ms)
        elif isinstance(inp, PublishRefused):
            self.out.alert("publish_refused", "TABLE-00", "warning",
                           f"the broker refused event {inp.seq} ({inp.reason}); it was not "
                           "delivered and will not be retried", remedy="check the broker ACL "
                           "for this table's user")
        elif isinstance(inp, EquityResult):
            self.equity.result(inp)
        if self.order.held:
            self._release(ms)
        if self.session is not None:  # NEWHAND may have begun a new one
            self.session.tick(ms)
        if out.held and self.continuity.away and self._unconfirmed():
            out.doubted = True  # alerts waited for a device that went away: not raised
        if out.doubted:
            self._in_doubt()
        if out.out.events:  # every card, fold or street that changes the figures has an event
            self.equity.update(self.session, self.in_hand, out.out.events)

    def _resumed(self, inp: ServiceResumed) -> None:
        """The process ran again after a pause: what the devices sent meanwhile is read now,
        in a burst whose order across devices is the threads' and not the table's, or was
        lost. The hand under way cannot be followed, nor whatever the burst holds: it is one
        hand not followed, and the first NEWHAND after the burst is placed from the table."""
        why = f"the service's process was stopped for {inp.paused_ms // 1000} s"
        self.continuity.service_started(inp.ms, why)
        self.continuity.resumed(inp.ms)
        self._zones_unknown()
        hand = self.session
        if hand is not None and hand.live and hand.tracked:
            self.untrack(hand, why)

    def _in_doubt(self) -> None:
        """A rule alert came while the service may not have seen everything (a device away,
        a restart not every device has answered since, frames lost in this hand): what it
        missed may be all there is to it, so the hand is no longer followed, and the alert is
        not raised."""
        self.out.doubted = False
        hand = self.session
        if self.continuity.stopping:
            return  # on its way out: the next start tells what it missed of this hand
        if hand is not None and hand.live and hand.tracked:
            why, quiet = self.continuity.doubt()
            if why is None:
                why, quiet = hand.doubt or "what the service missed", hand.doubt_told
            self.untrack(hand, why, quiet=quiet)

    def _failed(self, inp: Input, exc: Exception) -> None:
        self.out.rollback()
        hand = self.session
        if hand is not None and hand.live and hand.tracked:
            self.untrack(hand, "the service failed on one of its inputs", quiet=True)
        self.out.alert("internal_error", "TABLE-00", "critical",
                       f"the service failed on an input ({type(exc).__name__}); the hand under "
                       "way is no longer checked", remedy="the hand goes on; report the "
                       "service log of this moment to the maintainers; tracking starts again "
                       "with the next NEWHAND")
        self.out.note("error", "the core failed on an input", input=type(inp).__name__,
                      ts=inp.ts, trace=_trace(exc))

    def next_deadline(self) -> int | None:
        """The input timestamp at which a Tick would change something, if any."""
        times = [t for link in self.links.values()
                 for t in (link.stale_deadline(), link.dirty_deadline()) if t is not None]
        if self.session is not None and (t := self.session.deadline()) is not None:
            times.append(t)
        if (t := self.order.deadline()) is not None:
            times.append(t)
        if (t := self.continuity.deadline()) is not None:
            times.append(t)
        if self.stacks is not None and (t := self.stacks.deadline()) is not None:
            times.append(t)
        return min(times) if times else None

    @property
    def seq(self) -> int:
        """The seq of the last event published."""
        return self.out.seq

    @property
    def open_alerts(self) -> dict[str, str]:
        return self.out.open_alerts

    @property
    def in_hand(self) -> bool:
        return self.session is not None and self.session.live

    def _current_hand(self) -> int | None:
        hand = self.session  # ``in_hand``, spelled out: asked for nearly every event
        return hand.number if hand is not None and hand.live and hand.announced else None

    def snapshot(self) -> dict[str, Any]:
        """The public state for late joiners (retained ``state`` topic): no hidden card."""
        hand = self.session if self.session is not None and self.session.announced else None
        view = hand.view() if hand is not None else {}
        # a hand being placed (its first round not complete, no hand_started yet) is a hand
        # under way too: the controller does not move a player out of it
        in_hand = self.session is not None and self.session.live
        players = []
        for p in sorted(self.players.values(), key=lambda p: p.seat):
            entry: dict[str, Any] = {"seat": p.seat, "name": p.name, "stack": p.stack}
            if p.seat in self.unverified:
                entry["unverified"] = True
            players.append(entry)
        pending = self.pending_level
        return {
            "hand": hand.number if hand is not None else None,
            "variant": self.s.variant,
            "in_hand": in_hand,
            "button": self.button,
            "level": Level.of(self.s).view(),
            "pending_level": pending.view() if pending is not None else None,
            "street": view.get("street"),
            "board": view.get("board", []),
            "active": view.get("active", []),
            "pot": view.get("pot", 0) if in_hand else self.carry,
            "players": players,
            "devices": {n: link.state for n, link in self.links.items()},
            "open_alerts": [{"id": k, "name": v} for k, v in self.out.open_alerts.items()],
            "last_seq": self.out.seq,
        }

    def _frame(self, inp: FrameIn) -> None:
        link = self.links.get(inp.src)
        if link is None:
            self.out.note("warning", "frame from an unconfigured device", device=inp.src)
            return
        lost = link.counters.lost
        seen = link.last_type is not None
        came_back = link.state != "online"  # a frame says it is online again
        got = receive(link, inp.frame, inp.ms)
        self.health.received(link)
        if isinstance(got, str):
            self.out.note("warning", "frame dropped", device=inp.src, reason=got,
                          length=len(inp.frame))
            if came_back or inp.ms >= link.last_status_ms + 1000:
                self.health.status(link, inp.ms)
            return
        frame = got
        if came_back or frame.type == "HELLO" or (
                link.dirty and inp.ms >= link.last_status_ms + 1000):
            self.health.status(link, inp.ms)
        awaited = link.name in self.continuity.awaiting
        if awaited:
            self.continuity.heard(link.name)
        if link.counters.lost != lost or (frame.type == "HELLO" and seen):
            self._frames_lost(link, link.counters.lost - lost, awaited)
        else:
            if self.out.held:
                self.out.heard(link.name)  # nothing lost before it: what it confirms goes out
            if self.continuity.away and (frame.type in SIGNIFICANT or (
                    frame.type == "CHIPS" and self._chips_change(frame))):
                self._while_away(link)
        order = self.order
        if (order.held and order.busy(link.name)) or self._too_early(link, frame):
            order.hold(link, frame, inp.ms)
        else:
            self._dispatch(link, frame)

    # ------------------------------------------------------------------ physical order
    def _too_early(self, link: Link, frame: Frame) -> bool:
        """Would this frame, taken now, come before something that happened first at the table
        but whose frame (of another device) is still on its way? (``physical_order``)"""
        if not self.order.tolerance_ms:
            return False
        t, f = frame.type, frame.fields
        hand = self.session
        live = hand is not None and hand.live
        if t in ("ARR", "DEP") and f[1] == self.s.button_uid:
            return False  # the dealer button: no card, nothing to wait for
        if t == "DRAW":
            if not live:  # the NEWHAND may be on its way
                return self.card_draw is None and not self.after_misdeal
        elif t == "BTN":
            if f[0] == "NEWHAND":  # the last hand's cards may still be on their way to the muck
                return hand is not None and hand.uncollected()
        elif t not in ("ARR", "CHIPS"):
            return False
        if t == "ARR" and self.order.held and self.order.holds_draw(f[1]):
            return True  # a card cannot land before it left the shoe
        if hand is None or not live:
            # a card landing in play while no hand runs left the shoe first: its draw, and
            # the NEWHAND before it (or the news that it was missed), may still be on the way
            return (t == "ARR" and self.has_shoe and f[0] != "MUCK"
                    and self.card_draw is None)
        value = self._inventory(f[1])[0] if t == "CHIPS" else 0
        return hand.too_early(t, f, value)

    def _release(self, now: int) -> None:
        """Frames held back that may go on now, oldest first, until none may."""
        while (ready := self.order.next_ready(now, self._too_early)) is not None:
            self._dispatch(ready[0], ready[1])

    def _frames_lost(self, link: Link, count: int, awaited: bool = False) -> None:
        """Frames of ``link`` went missing, or it restarted (its seq starts again, so what it
        sent before may be lost). They may have been heartbeats: the hand goes on in doubt,
        and if anything in it then does not fit, it is untracked instead of raising an alert
        about it."""
        self.continuity.frames_lost(link, awaited)
        if link.kind == "chips":
            self._zones_unknown()  # what a lost inventory said is what the next ones will say
        hand = self.session
        if hand is not None and not hand.live and hand.tracked and hand.doubt is None:
            # the hand is over, its cards still on their way in: what the lost frames said
            # of them may be all there is to what does not fit now
            hand.doubt, hand.doubt_told = "frames were lost at its end", True
        if hand is None or not hand.live or not hand.tracked:
            self._unconfirmed()
            return
        if self._unconfirmed():  # alerts waited for this device, which had lost frames
            self.untrack(hand, f"frames of {link.name} were lost, and the hand no longer "
                         "fits what the service saw", quiet=self.continuity.quiet(link.name))
            return
        what = (f"{count} frame(s) of {link.name} were lost" if count
                else f"{link.name} restarted (what it sent before may be lost)")
        if hand.doubt is None:
            hand.doubt = what
            # a device back from an outage the floor was alerted to: should the hand then
            # not fit, its untracking is a consequence of that alert, not a second one
            hand.doubt_told = self.continuity.quiet(link.name)
        self.out.doubt = True
        if count:
            self.out.note("warning", "frames lost", device=link.name, count=count,
                          hand=hand.number)
        else:  # a restart: nothing counted lost, the hand only goes on in doubt
            self.out.note("info", "device restarted", device=link.name, hand=hand.number)

    def _while_away(self, link: Link) -> None:
        """Something happened at the table while another device's cable is out: it could not
        see it, and its frames of that time are lost for good. (A device that only fell
        silent tells, when it is back, whether it missed anything: its seq.)"""
        away = self.continuity.away_while(link.name, "offline")
        hand = self.session
        if away is not None and hand is not None and hand.live and hand.tracked:
            self.untrack(hand, f"{away} is {self.continuity.away[away]} while the hand goes on",
                         quiet=self.continuity.quiet(away))

    def _chips_change(self, frame: Frame) -> bool:
        return self._inventory(frame.fields[1])[2] != self.zone_chips.get(frame.fields[0], 0)

    def _dispatch(self, link: Link, frame: Frame) -> None:
        t, f = frame.type, frame.fields
        hand = self.session
        if t == "DRAW":
            self._card_out(f[0], f[1] == "U")
        elif t == "ARR":
            if f[1] == self.s.button_uid:
                self._button_tag(f[0])
            else:
                self._arrive(f[0], f[1])
        elif t == "CHIPS":
            self._chips(f[0], f[1], self.out.ms)
        elif t == "BTN":
            self._button(f[0], list(f[1:]))
        elif t == "DEP":
            if f[1] == self.s.button_uid:
                if self.button_tag is not None and f[0] == f"S{self.button_tag}":
                    self.button_tag = None  # lifted: where it lands next is the button
            elif hand is not None and hand.live:
                hand.depart(f[0], f[1], self.out.ms)
        elif t == "RET":
            if hand is not None:
                hand.returned(f[0], bottom=f[1] == "B")
        elif t == "DECK":
            live = hand is not None and hand.live
            uids = f[0].split(" ") if f[0] else []
            if hand is None or not live or not hand.pack_scanned(uids):
                self.deck.scan(uids, live)
        elif t == "ERR":
            self.out.alert("device_fault", "TABLE-00", "warning",
                           f"device {link.name} reports fault {f[0]}: {f[1]}",
                           remedy="check the device; replace it if the fault persists")

    # ------------------------------------------------------------------ cards
    def _card_out(self, uid: str, face_up: bool) -> None:
        if self.card_draw is not None and not self.in_hand:
            return  # a seating or dealer draw: the seat zone says who got the card
        hand = self.session
        if (hand is None or not hand.live) and self.continuity.unsure_of_start \
                and not self.after_misdeal:
            hand = self._missed_hand("a card was dealt, but the service did not see this "
                                     "hand's NEWHAND")
        if hand is not None and hand.live and not hand.tracked:
            return  # not followed: nothing to identify
        card = self.deck.identify(uid, hand)
        if card is None:
            return
        if hand is None or not hand.live:
            if self.after_misdeal:
                self.out.alert("deal_without_shuffle", "DEAL-01", "critical",
                               "a card left the shoe after the misdeal, before the reshuffle",
                               remedy="collect all cards, shuffle and cut, then press NEWHAND "
                               "(MISDEAL-03)", cards=[card])
                return
            self.out.alert("card_after_hand_end", "BOARD-06", "warning",
                           "a card left the shoe while no hand is being dealt",
                           remedy="put the card back; press NEWHAND after the shuffle to start "
                           "a hand", cards=[card])
            return
        hand.card_out(uid, card, face_up, self.out.ms)

    def _arrive(self, zone: str, uid: str) -> None:
        if self.card_draw is not None and not self.in_hand:
            self._card_drawn(zone, uid)
            return
        hand = self.session
        if (hand is None or not hand.live) and self.continuity.unsure_of_start \
                and not self.has_shoe and zone != "MUCK":
            hand = self._missed_hand("a card was dealt, but the service did not see this "
                                     "hand's NEWHAND")
        if hand is None:
            return
        if not hand.tracked:
            hand.arrive(zone, uid, "", self.out.ms)
            return
        card = hand.card_of(uid)
        if card is None:
            if self.has_shoe and zone == "MUCK":
                return  # collection of a card that never left the shoe in this hand
            card = self.deck.identify(uid, hand)
            if card is None:
                if self.session is not hand and self.session is not None:
                    self.session.arrive(zone, uid, "", self.out.ms)  # the hand it voided
                return
        if not is_card_zone(zone, self.s.seats):
            self.out.note("warning", "card read in an unknown zone", zone=zone)
            return
        hand.arrive(zone, uid, card, self.out.ms)

    def _button_tag(self, zone: str) -> None:
        """The dealer button's tag was read in ``zone`` (``[registry.button] uid``): in a
        seat zone, that seat has the button; anywhere else, where the button is is unknown."""
        self.button_tag = int(zone[1:]) if seat_zone(zone, self.s.seats) else None

    # ------------------------------------------------------------------ chips
    def _zones_unknown(self) -> None:
        """After a gap the chip zones are what their next inventory says: a value kept from
        before is no baseline (bets gathered or handed back unseen are no withdrawal)."""
        self.zones.clear()
        self.zone_chips.clear()
        if self.stacks is not None:
            self.stacks.unknown()

    def _inventory(self, uids: str) -> tuple[int, int, int]:
        """A chip zone's inventory: (its value, chips not in the registry, pieces).

        A chip frame is read twice, once to see whether it comes too early and once when it
        is taken; the second time it is the very same string (``is``), and the answer of the
        first is used (the chip registry does not change while the core runs)."""
        last, counted = self._inventory_of
        if uids is last:
            return counted
        value = unknown = pieces = 0
        if uids:
            values = self.chip_values
            for uid in uids.split(" "):
                pieces += 1
                v = values.get(uid)
                if v is None:
                    unknown += 1
                else:
                    value += v
        counted = (value, unknown, pieces)
        self._inventory_of = (uids, counted)
        return counted

    def _chips(self, zone: str, uids: str, ms: int) -> None:
        value, unknown, pieces = self._inventory(uids)
        if unknown:
            self.out.alert("foreign_chips_on_table", "TABLE-05", "warning",
                           f"{unknown} chip(s) in {zone} are not in the chip registry; they "
                           "are not counted", remedy="remove the chips, or enroll them with "
                           "`tablesvc chips enroll`", evidence={"zone": zone, "unknown": unknown})
        before = self.zones.get(zone, 0)
        self.zones[zone] = value
        pieces_before = self.zone_chips.get(zone, 0)
        self.zone_chips[zone] = pieces
        seat = stack_zone(zone)
        if seat is not None:  # a player's stack: the table's, not the hand's
            self._stack_zone(seat, value, ms)
            return
        if self.session is not None:
            self.session.chips(zone, value, before, pieces - pieces_before, ms)
        if self.stacks is not None and zone.startswith("B") and zone[1:].isdigit():
            self._stack_zone(int(zone[1:]), None, ms)  # a bet is the stack's too

    # ------------------------------------------------------------------ stacks
    def _stack_zone(self, seat: int, value: int | None, ms: int) -> None:
        """A stack zone's inventory (``value``), or a bet zone's change (None): while a hand
        is followed, a seat's chips may only go down until the pots are pushed (BET-23)."""
        stacks = self.stacks
        if stacks is None:
            return
        if value is not None:
            stacks.reported(seat, value)
        held = self._held_in_hand().get(seat)
        if held is not None:
            stacks.in_hand(seat, held[0], held[1], ms)

    def _held_in_hand(self) -> dict[int, tuple[int, int]]:
        """For each seat of the hand followed now whose stack is known: (its chips in the hand
        now, its stack at the start): empty once the pots are decided, when pushes come."""
        stacks = self.stacks
        if stacks is None or self.session is None:
            return {}
        held = self.session.chips_held(stacks.fresh, self.zones)
        return {s: (stacks.value.get(s, 0) + now, start) for s, (now, start) in held.items()}

    def _read_stacks(self, seats: list[int], antes: dict[int, int] | None = None) -> list[int]:
        """The stacks the table shows for ``seats`` (``stacks``): learned or checked. At a
        NEWHAND nothing is in yet but a blind put out early; a hand placed after its first
        round has its antes in the pot too (``antes``)."""
        if self.stacks is None:
            return []
        bets = {s: self.zones.get(f"B{s}", 0) for s in seats}
        game = variant_for(self.s)
        # after a gap the service may have missed what changed a stack: the table's figure
        # is learned, not held against the service's
        doubtful = set(seats) if self.continuity.gap is not None else set()
        return self.stacks.read(self.players, self.unverified, seats,
                                self.stacks.shown(seats, bets, antes), game.removal_severity,
                                game.buys_between_games, doubtful)

    # ------------------------------------------------------------------ console
    def _button(self, name: str, args: list[str]) -> None:
        hand = self.session
        if name == "NEWHAND":
            self._new_hand()
        elif name in ("MISDEAL", "REDEAL"):
            self._misdeal("the dealer declared a misdeal" if name == "MISDEAL"
                          else "the game is dealt again")
        elif name in ("SEAT_DRAW", "DEALER_DRAW"):
            self._card_draw_button("seats" if name == "SEAT_DRAW" else "dealer")
        elif hand is not None:
            if not hand.button(name, args):
                self.out.note("warning", "unknown console button", button=name)
        elif name in ("SHOWN", "ANNOUNCED", "AWARD", "OBJECTION"):
            # no hand yet: only an objection has something to say
            ShowdownConsole(self.out, self.s.qualification_table, False).console(
                name, args, None, None, False)
        elif name not in HAND_BUTTONS and name not in variant_for(self.s).BUTTONS:
            self.out.note("warning", "unknown console button", button=name)

    def _card_draw_button(self, kind: str) -> None:
        """SEAT-08/09: the first press starts a draw between games; for the seating draw the
        next press closes a round of cards (ties draw again)."""
        if self.in_hand:
            self.out.note("warning", "a seating or dealer draw cannot start during a hand")
            return
        if self.card_draw is None or self.card_draw.kind != kind or self.card_draw.done:
            self.card_draw = CardDraw(kind)
            return
        got = self.card_draw.finish()
        if isinstance(got, SeatDrawTie):
            self.out.alert("seat_draw_tie", "SEAT-08", "info",
                           "seats " + ", ".join(map(str, got.seats)) + f" drew the same rank "
                           f"({got.rank}): only they get new cards", remedy="deal one more "
                           "card to each tied player, then press SEAT_DRAW again")
        elif isinstance(got, SeatDrawResult):
            self.card_draw = None
            self.out.alert("seat_draw_result", "SEAT-08", "info",
                           "players choose their seats in this order: "
                           + ", ".join(f"the player at seat {s}" for s in got.order))

    def _card_drawn(self, zone: str, uid: str) -> None:
        draw = self.card_draw
        found = self.decks.lookup(uid)
        if draw is None or found is None or not seat_zone(zone, self.s.seats):
            return
        got = draw.card(int(zone[1:]), found[1])
        if isinstance(got, FirstDealer):
            self.card_draw = None
            self.next_button = got.seat
            self.out.alert("first_dealer_determined", "SEAT-09", "info",
                           f"seat {got.seat} received the first Jack and deals the first game",
                           seat=got.seat)

    # ------------------------------------------------------------------ levels
    def level_now(self, level: Level) -> None:
        """The table is at ``level`` from now on (between hands, or at a NEWHAND). The level
        the last hand was dealt at is kept for the next one: its forced bets may still be
        posted at it (``HandSession._level_shown``)."""
        current = Level.of(self.s)
        if level == current:
            return
        if self.level_before is None:
            self.level_before = current
        elif self.level_before == level:
            self.level_before = None  # back to the level the last hand had: no change
        self.s = level.on(self.s)

    def level_taken(self) -> None:
        """The hand under way shows the level that was waiting for the next hand: the table
        is at it now, and the next hand has no other level (this one was dealt at it)."""
        if self.pending_level is not None:
            self.s = self.pending_level.on(self.s)
            self.pending_level = None

    def _level_at_newhand(self) -> None:
        """A NEWHAND: a level waiting for it applies, and a change since the last NEWHAND
        gives this hand the level before it as its other level (a hand dealt again after a
        misdeal keeps the one it had: it is the same hand)."""
        if self.pending_level is not None:
            self.level_now(self.pending_level)
            self.pending_level = None
        before, self.level_before = self.level_before, None
        if before is not None or not self.keep_button:
            self.other_level = before

    # ------------------------------------------------------------------ hands
    def _new_hand(self) -> None:
        self.card_draw = None
        self._level_at_newhand()
        previous = self.session
        gap = self.continuity.gap
        if previous is not None and previous.live and previous.tracked \
                and (self.continuity.in_doubt or gap is not None):
            why, quiet = self.continuity.doubt()
            if why is None:  # the gap is behind: the hand went on unseen, and ended unseen
                why, quiet = (f"{gap}, and the end of the hand was not seen",
                              self.continuity.telling)
            self.untrack(previous, why, quiet=quiet)
            previous = self.session
        if self.continuity.blind(self.out.ms):
            self._unseen_hand(previous)
            return
        if previous is not None and previous.live:
            previous.end()
        if previous is not None and gap is None:
            previous.collected()  # BURN-08: only a collection the service saw is counted
        self.continuity.new_hand()
        if self.stacks is not None:
            self.stacks.hand_over()
            present = self._seated()
            self._read_stacks(present)  # the table tells every stack (stack zones)
            self.eliminate(tuple(present))  # a stack zone that is empty: that player is out
        seated = self._seated()
        if len(seated) < 2 and len(seated) + len(self.gone) >= 2:
            # the dealer deals on though the service has fewer than two players with chips:
            # the players it had out may not be (``back``); the first round will tell
            self.session = Placement(self, seated, None, "unknown")
            return
        if len(seated) < 2:
            self.out.alert("player_count_out_of_range", "TABLE-00", "warning",
                           f"NEWHAND pressed with {len(seated)} player(s) seated; a hand "
                           "needs 2", remedy="seat players with cmd/seat before dealing")
            self.session = None
            return
        expected = self._next_button(seated) if self.button_known else None
        tag = self.button_tag if self.button_tag in seated else None
        reason: Reason | None = (
            "gap" if gap is not None else "unknown" if expected is None
            else "disputed" if self.disputed
            else "newcomer" if (self.newcomers | self.unverified) & set(seated)
            or self.maybe_dealt()
            else "tag" if tag is not None and tag != expected else None)
        if reason is None and expected is not None:
            self._deal_in(seated, expected)
            return
        # the table shows the hand's place with the first round of the deal
        self.session = Placement(self, seated, expected, reason or "unknown")

    def _unseen_hand(self, previous: Hand | None) -> None:
        """A NEWHAND while a device is away: the hand cannot be followed. One outage is one
        hand not followed, however many the dealer deals meanwhile: the untracked hand under
        way goes on (it ends at the first NEWHAND once every device is back), or one begins."""
        name, state = next(iter(self.continuity.away.items()), ("the service", "catching up"))
        if isinstance(previous, UntrackedHand) and previous.live and previous.kind == "untracked":
            self.out.note("info", "NEWHAND while a device is away: the hand not followed goes on",
                          device=name, hand=previous.number)
            return
        if previous is not None and previous.live:
            previous.end()
        self.continuity.new_hand()
        self.hand_no += 1
        quiet = self.continuity.quiet(name)
        self.session = UntrackedHand(self, self.hand_no, "untracked",
                                     f"{name} is {state} at the deal", order=tuple(self._seated()),
                                     quiet=quiet)
        if not quiet:
            self.continuity.told()

    def _seated(self) -> list[int]:
        """The players a NEWHAND deals in, as far as the service knows: seated with chips,
        and not sitting out since a deal gave them no card."""
        return sorted(s for s, p in self.players.items()
                      if (p.stack > 0 or s in self.unverified) and s not in self.sat_out)

    def _deal_in(self, seated: list[int], button: int) -> AnySession:
        self.button = button
        self.hand_no += 1
        self.deck = DeckIntegrity(self.decks, self.out)
        self.after_misdeal = False
        self.newcomers -= set(seated)
        self.left.clear()  # the hand is dealt without them: they are gone
        game = variant_for(self.s)
        unknown_carry = game.carries_pot and not self.carry_known
        if unknown_carry:
            self.carry = 0  # what a game seen last carried may be won since: the pot will say
        self.carry_known = True
        tracker, ledger, book = game.deal_in(
            seated, button, self.players, unit=min(self.chip_values.values(), default=1),
            carried=self.carry, unverified=self.unverified)
        ledger.carry_unknown = unknown_carry
        session = HandSession(self, game, self.hand_no, tracker, ledger, book,
                              other_level=self.other_level)
        self.session = session
        self.out.doubted = False  # a doubt was about the hand before
        session.start()
        away = next(iter(self.continuity.away), None)
        if away is not None:
            self.untrack(session, f"{away} was {self.continuity.away[away]} at the deal",
                         quiet=self.continuity.quiet(away))
        return session

    def placed(self, placement: Placement, button: int, dealt_in: list[int]) -> None:
        """The first round of the deal showed the hand's button and players: the hand is
        dealt in there, and gets what the sensors reported since its NEWHAND."""
        c = self.continuity
        expected = placement.expected
        sat_out = [s for s in placement.seated if s not in dealt_in]
        if self.stacks is not None and (c.gap is not None or self.unverified & set(dealt_in)):
            self._read_stacks(dealt_in, self._antes_paid(dealt_in))
        if placement.reason in ("gap", "unknown"):
            self._found(placement, button, dealt_in)
        elif placement.reason == "tag" and button == expected:
            self.out.alert(
                "button_position_error", "SEAT-02", "warning",
                f"the button lies at seat {self.button_tag}, but the hand was dealt from seat "
                f"{expected}, where the rotation has it", seat=self.button_tag,
                remedy=f"move the button to seat {expected}; the hand goes on as dealt")
        elif button != expected and not self._explained(placement, button, sat_out):
            if placement.reason == "disputed":
                self.out.alert(
                    "button_followed", "SEAT-02", "warning",
                    f"for the second hand running the button is at seat {button}, where the "
                    f"service's rotation has seat {expected}: the service now follows the "
                    "table's button", seat=button,
                    remedy="check with the dealer where the button belongs; if the table is "
                    "wrong, move the button before the next hand (cmd/button sets the service's)")
            else:
                self.out.alert(
                    "button_position_error", "SEAT-02", "warning",
                    f"the hand was dealt from a button at seat {button}; by the rotation it "
                    f"belongs at seat {expected}: the service follows the table",
                    seat=button, remedy="move the button to where it belongs before the next "
                    "hand; the hand goes on as dealt")
        if c.gap is not None:
            self.carry_known = False  # a game may have been won, or carried, unseen
        doubt = self._doubt_of(placement)
        self.disputed = False
        c.placed()
        self.button_known = True
        for seat in [s for s in sat_out if self.players[s].stack == 0 or s in self.unverified]:
            self._eliminated(seat)  # not dealt in, and no chips the service can vouch for
        sat_out = [s for s in sat_out if s in self.players]
        if sat_out:
            self.sat_out.update(sat_out)
            names = ", ".join(f"seat {s} ({self.players[s].name})" for s in sat_out)
            self.out.alert("seat_sat_out", "TABLE-00", "info",
                           f"{names} got no card in the deal: sitting out until seated again",
                           seat=sat_out[0], remedy="if nobody sits there, unseat the player "
                           "(cmd/unseat); a player who is there is seated again with cmd/seat",
                           evidence={"seats": sat_out})
        self._hand_over(placement, self._deal_in(dealt_in, button), doubt)

    def _doubt_of(self, placement: Placement) -> tuple[str, bool] | None:
        """A gap while the round was read (a device lost frames), and whether the floor was
        told: the hand is dealt in, but what the service missed may yet make it not fit."""
        c = self.continuity
        if c.gaps == placement.gaps or c.gap is None:
            return None
        return c.gap, c.telling

    def _hand_over(self, placement: Placement, hand: AnySession,
                   doubt: tuple[str, bool] | None) -> None:
        if doubt is not None and hand.tracked and hand.doubt is None:
            hand.doubt, hand.doubt_told = doubt
        placement.hand_over(hand)

    def _explained(self, placement: Placement, button: int, sat_out: list[int]) -> bool:
        """The evidence differs from the expectation only by players who may well not be at
        the table (newcomers, or players whose stacks nobody counted, who may have busted): the
        button moves past the seats nobody sits at, which is the rotation's own rule (and what
        the expectation would have been had the service known)."""
        if placement.expected is None or not set(sat_out) <= self.newcomers | self.unverified:
            return False
        present = sorted(s for s in placement.seated if s not in sat_out)
        start = self.button if self.button is not None else placement.expected
        later = [s for s in present if s > start]
        return button == (later[0] if later else present[0])

    def _antes_paid(self, dealt_in: list[int]) -> dict[int, int]:
        """What each seat dealt in has put in the pot as its ante by the end of the first
        round (``dealt_in`` in deal order: the big blind second, first heads-up)."""
        s = self.s
        if not s.ante:
            return {}
        if s.ante_mode == "each":
            return dict.fromkeys(dealt_in, s.ante)
        bb = dealt_in[0] if len(dealt_in) == 2 else dealt_in[1]
        return {bb: s.ante}

    def _found(self, placement: Placement, button: int, dealt_in: list[int]) -> None:
        """After a gap the table's evidence wins: one ``button_found`` (info), and the stacks
        a hand dealt unseen may have changed are no longer taken as known."""
        c = self.continuity
        expected = placement.expected
        gap = c.gap or "after a hand it did not follow"
        if expected is None:
            how = f"where the service did not know it ({gap})"
        elif expected == button:
            how = f"where the service's rotation has it ({gap})"
        else:
            how = (f"where the service's rotation had seat {expected} ({gap}): hands were "
                   "dealt that it did not see")
        missed = expected is None or expected != button
        # a first start where the config's players are not all dealt in: maybe a late
        # player, maybe a box started mid-session after players busted; the stacks are
        # not vouched for, but nobody is alerted on a guess
        absent = self.hand_no == 0 and bool(set(placement.seated) - set(dealt_in))
        stacks = ""
        # (a NEWHAND the console lost: the hands seen as one moved the button past the rotation)
        if (c.hands_unseen and (missed or absent or self.hand_no > 0)) \
                or (c.newhands_unseen and missed):
            # a count after the gap stands, and so does what the stack zones showed
            shown = self.stacks.fresh if self.stacks is not None else set()
            doubtful = [s for s in dealt_in if s not in c.counted and s not in shown]
            newly = [s for s in doubtful if s not in self.unverified]
            self.unverified.update(doubtful)
            if newly:
                stacks = ("; the stacks are unverified until the floor counts them "
                          "(cmd/stacks)")
                if missed and not c.telling and self.stacks is None:  # zones will tell
                    c.told()
                    self.out.alert(
                        "stacks_unverified", "TABLE-00", "warning",
                        f"hands were dealt while the service was away ({c.gap}); the stacks "
                        "of seats " + ", ".join(map(str, newly)) + " may have changed",
                        remedy="count the stacks at the next break in play and send them "
                        "(cmd/stacks); the hands are followed meanwhile", evidence={
                            "seats": newly})
        self.out.alert("button_found", "TABLE-00", "info",
                       f"the first round of the deal shows the button at seat {button}, {how}"
                       f"{stacks}", seat=button)

    def maybe_dealt(self) -> set[int]:
        """Seats the next deal may give a card though the service does not count on them:
        players unseated since the last deal (not stood up yet), and players sitting out
        (back at the table). A hand with such seats is placed from its first round."""
        if self.command_checks < UNSEATED_MAY_BE_DEALT:
            return set()  # an older journal: replayed as it was published
        return set(self.left) | (self.sat_out & set(self.players))

    def back(self, seats: list[int]) -> bool:
        """The first round dealt to ``seats``, where the service knows no player with chips:
        if each of them is a player it had out of chips (still seated with none, or gone),
        it was wrong (it could not vouch for their stacks, or a count was wrong); they are
        back, their stacks unverified until counted, and the hand is placed with them. One
        notice. Players the service did not count on for this deal (``maybe_dealt``: sitting
        out, or unseated a moment ago) are back with the stacks it had for them."""
        out = {seat for seat, p in self.players.items() if p.stack == 0}
        maybe = self.maybe_dealt()
        if not seats or any(seat not in self.gone and seat not in out and seat not in maybe
                            for seat in seats):
            return False
        returned = [s for s in seats if s in maybe and s in self.players]
        for seat in returned:
            self.sat_out.discard(seat)
        if returned:
            names = ", ".join(f"seat {s} ({self.players[s].name})" for s in returned)
            self.out.alert("player_back", "TABLE-00", "info",
                           f"{names} dealt in again after sitting out", seat=returned[0],
                           evidence={"seats": returned})
        unseated = [s for s in seats if s in self.left]
        for seat in unseated:
            self.players[seat] = self.left.pop(seat)
        seats = [s for s in seats if s not in unseated and s not in returned]
        if unseated:
            names = ", ".join(f"seat {s} ({self.players[s].name})" for s in unseated)
            self.out.alert("player_back", "TABLE-00", "info",
                           f"{names} dealt in after the controller unseated them: still at "
                           "the table for this hand", seat=unseated[0],
                           remedy="the controller unseats them again after the hand",
                           evidence={"seats": unseated})
        if not seats:
            return True
        for seat in seats:
            if seat in self.gone:
                self.players[seat] = self.gone.pop(seat)
            self.unverified.add(seat)
            self.sat_out.discard(seat)
        names = ", ".join(f"seat {s} ({self.players[s].name})" for s in seats)
        self.out.alert("player_back", "TABLE-00", "info",
                       f"{names} dealt in, though the service had no chips for them: their "
                       "stacks are unverified until the floor counts them",
                       seat=seats[0], remedy="count their stacks and send them (cmd/stacks)",
                       evidence={"seats": seats})
        return True

    def not_placed(self, placement: Placement, why: str) -> None:
        """The first round showed no place to start from. Without a gap the hand is dealt in
        where the service expected it, and the deal's own rules say what is wrong; after a
        gap (before the hand, or while its round was read) it is not followed."""
        if placement.reason not in ("gap", "unknown") and placement.expected is not None \
                and self.continuity.gap is None:
            self.disputed = False
            self.continuity.placed()
            placement.hand_over(self._deal_in(placement.seated, placement.expected))
            return
        self.hand_no += 1
        self.session = UntrackedHand(self, self.hand_no, "untracked",
                                     f"its first round could not be read: {why}",
                                     order=tuple(placement.seated),
                                     quiet=self.continuity.telling)
        if not self.continuity.telling:
            self.continuity.told()

    def _missed_hand(self, reason: str) -> UntrackedHand:
        """A hand is being dealt whose NEWHAND the service did not see."""
        self.continuity.new_hand()
        self.button_known = False
        self.hand_no += 1
        previous = self.session
        if previous is not None and self.continuity.gap is None:
            previous.collected()
        seated = tuple(self._seated())
        quiet = self.continuity.telling
        hand = UntrackedHand(self, self.hand_no, "untracked", reason, order=seated,
                             quiet=quiet)
        if not quiet:
            self.continuity.told()
        self.session = hand
        return hand

    def untrack(self, hand: Hand, reason: str, quiet: bool = False) -> None:
        """The hand under way can no longer be followed: it goes on untracked. A warning
        that the floor must count its stacks is the one warning a gap is worth."""
        if not quiet:
            self.continuity.told()
        self.hand_no = max(self.hand_no, hand.number)  # a hand being placed had no number yet
        self.session = UntrackedHand(self, hand.number, "untracked", reason, order=hand.order,
                                     start_stacks=hand.start_stacks, quiet=quiet)

    def void_hand(self, number: int, order: tuple[int, ...], start_stacks: Mapping[int, int],
                  ruling: DefectRuling, uid: str | None, evidence: dict[str, Any]) -> None:
        """A defective deck voids the hand: its one alert waits for the card to land."""
        deferred = DeferredAlert(uid or "", ruling.raise_alert, evidence,
                                 self.out.ms + self.s.deliver_ms)
        void = UntrackedHand(self, number, "void", "the deck is defective", order=order,
                             start_stacks=start_stacks, deferred=deferred if uid else None)
        self.session = void
        self.keep_button = True  # the same hand is dealt again (R10) or replayed
        if not uid:
            ruling.raise_alert(self.out, None, "where it went is not known", evidence)
        if ruling.cancel_now:
            void.cancel_now()

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

    def seated(self, seat: int, name: str, newcomer: bool = True) -> None:
        """The controller seated a player. Once the table has dealt, he may not be there
        (yet): the next hand is placed from its deal (``tablesvc.core.placement``), which
        shows whether he is dealt in. TABLE-01/02: a newcomer takes his seat's position,
        except between button and SB."""
        if seat in self.sat_out or (newcomer and self.hand_no > 0):
            self.newcomers.add(seat)
        self.sat_out.discard(seat)
        self.gone.pop(seat, None)
        self.left.pop(seat, None)  # someone else sits where the unseated player sat
        if not newcomer:
            return
        self.out.alert("player_seated", "TABLE-01", "info",
                       f"{name} takes seat {seat}, with the rights and duties of its position",
                       seat=seat)
        button = self.button
        sb = self.session.small_blind_seat() if self.session is not None else None
        if button is None or sb is None:
            return
        between = (button < seat < sb) if button < sb else (seat > button or seat < sb)
        if between and seat not in (button, sb):
            self.passed_over = seat
            self.out.alert("seated_between_button_and_sb", "TABLE-02", "info",
                           f"seat {seat} is between the button and the small blind: no entry "
                           "there, so the button moves past it next hand", seat=seat)

    def unseated(self, seat: int, player: Player) -> None:
        """The controller unseated a player (never one with a live hand). Until the next
        hand's first round shows he is gone, he may still be dealt in (``left``)."""
        if self.command_checks >= UNSEATED_MAY_BE_DEALT:
            self.left[seat] = player
        self.newcomers.discard(seat)
        self.sat_out.discard(seat)
        self.unverified.discard(seat)
        if isinstance(self.session, Placement) and self.session.live:
            self.session.unseated(seat)

    def button_disputed(self) -> None:
        """The hand under way was dealt from a button that is not the service's: the next
        hand is placed from the table, and followed there if the table keeps its rotation.
        The dispute stands with its alert: should that alert wait for confirmation and be
        dropped (a device had lost frames: the first card seen was not the first dealt), it
        is withdrawn with it (``_unconfirmed``)."""
        self.disputed = True
        self.disputed_by = self.out.inputs

    def _unconfirmed(self) -> bool:
        """Drop the alerts waiting for confirmation (a device lost frames or went away), and
        what was done on their account; True if there were any."""
        dropped = self.out.unconfirmed()
        if self.disputed and any(h.after == self.disputed_by for h in dropped):
            self.disputed = False
        return bool(dropped)

    def misdeal(self, why: str) -> bool:
        return self._misdeal(why)

    def _misdeal(self, why: str) -> bool:
        """R10: the hand is void, every chip goes back, the next deal keeps the button."""
        session = self.session
        if session is None or not session.live:
            return False
        session.misdeal()
        self.after_misdeal = True
        self.keep_button = True
        self.out.open_alerts = {k: v for k, v in self.out.open_alerts.items()
                                if v not in ("misdeal_required",)}
        self.out.note("info", "misdeal", reason=why, hand=session.number)
        return True

    def eliminate(self, order: tuple[int, ...]) -> None:
        """TABLE-07: a player left without chips after a hand leaves the table. A stack that
        is not known exactly (``unverified``) may hold more than the service saw: whether the
        player is still in shows in the next deal (``placement``)."""
        for seat in order:
            p = self.players.get(seat)
            if p is None or p.stack != 0:
                continue
            if seat in self.unverified:
                self.newcomers.add(seat)
                continue
            self._eliminated(seat)

    def _eliminated(self, seat: int) -> None:
        p = self.players.pop(seat)
        self.gone[seat] = p
        self.unverified.discard(seat)
        self.newcomers.discard(seat)
        self.sat_out.discard(seat)
        self.out.alert("player_eliminated", "TABLE-07", "info",
                       f"seat {seat} ({p.name}) has no chips left and leaves the table",
                       seat=seat, hand=self.hand_no)

    # ------------------------------------------------------------------ commands
    def _command(self, inp: Command) -> None:
        run_command(self, inp)


def _trace(exc: Exception) -> str:
    """Where the core failed, for the log: the frames, and the exception's type. Its message
    is left out: it might hold a card (a KeyError of a hole card, say)."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = " <- ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno} {f.name}"
                        for f in reversed(frames))
    return f"{type(exc).__name__} at {where}"
