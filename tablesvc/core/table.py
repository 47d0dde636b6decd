"""The table: one pure state machine fed with journalled inputs, answering with events.

``TableCore.apply(input)`` is the whole contract: the same inputs in the same order give the
same events, seq and ts included. That is what makes replay, crash recovery and scenario tests
possible, and why nothing here reads a clock, a file or a socket.

The table keeps only what outlives a hand: the seats and stacks, the button, the devices, the
registries, the deck in play since the last shuffle, a pot carried over, the event sequence.
A hand is a ``HandSession`` (``tablesvc.core.session``) created at NEWHAND; the game it plays
is a ``Variant`` (``tablesvc.core.variants``), which the table never asks about.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from drivers.devices import get_kind
from drivers.tsp import Frame
from tablesvc.core import commands as c
from tablesvc.core import events as ev
from tablesvc.core.carddraw import CardDraw, FirstDealer, SeatDrawResult, SeatDrawTie
from tablesvc.core.cards import DeckRegistry
from tablesvc.core.commands import CommandError, parse_command
from tablesvc.core.emitter import Emitter, Note, Output, Reply
from tablesvc.core.inputs import (
    Command,
    FrameIn,
    Input,
    PortChange,
    PublishRefused,
    ServiceStart,
)
from tablesvc.core.links import STALE_AFTER_MS, Link, expire, port_change, receive
from tablesvc.core.monitors.deck_integrity import DeckIntegrity
from tablesvc.core.monitors.showdown_console import ShowdownConsole
from tablesvc.core.session import HandSession, is_card_zone
from tablesvc.core.settings import Player, TableSettings, seat_zone
from tablesvc.core.variants import variant_for

__all__ = ["Note", "Output", "Player", "Reply", "TableCore", "TableSettings"]

CARD_RULINGS = frozenset({"EXPOSED", "BURN_FACE_UP", "BOXED", "BOXED_CARD"})


class TableCore:
    """State of one table that outlives its hands, and the dispatch of inputs to them."""

    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "DEAL-01": ("deal_without_shuffle",),
        "BOARD-06": ("card_after_hand_end",),
        "TABLE-00": ("publish_refused", "device_fault", "player_count_out_of_range"),
        "TABLE-01": ("player_seated",),
        "TABLE-02": ("seated_between_button_and_sb",),
        "TABLE-05": ("foreign_chips_on_table",),
        "TABLE-07": ("player_eliminated",),
        "SEAT-08": ("seat_draw_tie", "seat_draw_result"),
        "SEAT-09": ("first_dealer_determined",),
        "DRAW-10": ("rule_suspended", "rule_restored"),
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
        self.out = Emitter(settings.venue, settings.table, self._current_hand)
        self.boot = 0
        self.hand_no = 0
        # the hand under way, or the last one until the next NEWHAND collects its cards
        self.session: HandSession | None = None
        self.deck = DeckIntegrity(decks, self.out)  # the deck in play since the shuffle
        self.carry = 0  # draw5: the pot carried over from a checked-out game (POT-10)
        self.next_button: int | None = None
        self.button: int | None = None
        self.zones: dict[str, int] = {}  # chip zone -> value
        self.zone_chips: dict[str, int] = {}  # chips (pieces) last seen in each zone
        self.card_draw: CardDraw | None = None  # a seating or first-dealer draw (SEAT-08/09)
        self.after_misdeal = False  # a misdeal was declared; the next card needs a NEWHAND
        self.keep_button = False  # a misdeal: the next hand keeps the button
        self.passed_over: int | None = None  # TABLE-02: a newcomer the button moves past

    # ------------------------------------------------------------------ entry points
    def apply(self, inp: Input) -> Output:
        out = self.out.begin(inp.ts, inp.ms)
        ms = inp.ms
        self._expire(ms)
        session = self.session
        if session is not None and session.out_since is not None:
            session.lost(ms)
        if isinstance(inp, FrameIn):
            self._frame(inp)
        elif isinstance(inp, Command):
            self._command(inp)
        elif isinstance(inp, PortChange):
            self._port(inp)
        elif isinstance(inp, ServiceStart):
            self.boot += 1
            self.out.emit(ev.ServiceStarted, version=inp.version, boot=self.boot)
        elif isinstance(inp, PublishRefused):
            self.out.alert("publish_refused", "TABLE-00", "warning",
                           f"the broker refused event {inp.seq} ({inp.reason}); it was not "
                           "delivered and will not be retried", remedy="check the broker ACL "
                           "for this table's user")
        session = self.session  # NEWHAND may have begun a new one
        if session is not None and session.live and (due := session.ledger.tick(ms)):
            session.money(due)
        return out

    def next_deadline(self) -> int | None:
        """The input timestamp at which a Tick would change something, if any."""
        times = [t for link in self.links.values()
                 for t in (link.stale_deadline(), link.dirty_deadline()) if t is not None]
        if self.session is not None and (t := self.session.deadline()) is not None:
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
        return self.hand_no if self.in_hand else None

    def snapshot(self) -> dict[str, Any]:
        """The public state for late joiners (retained ``state`` topic): no hidden card."""
        session = self.session
        hand = session.tracker if session else None
        in_hand = self.in_hand
        return {
            "hand": self.hand_no if hand else None,
            "variant": self.s.variant,
            "in_hand": in_hand,
            "button": self.button,
            "street": hand.street if hand else None,
            "board": list(hand.board) if hand else [],
            "active": hand.active if hand else [],
            "pot": session.ledger.pot_total if session and in_hand else self.carry,
            "players": [{"seat": p.seat, "name": p.name, "stack": p.stack}
                        for p in sorted(self.players.values(), key=lambda p: p.seat)],
            "devices": {n: link.state for n, link in self.links.items()},
            "open_alerts": [{"id": k, "name": v} for k, v in self.out.open_alerts.items()],
            "last_seq": self.out.seq,
        }

    # ------------------------------------------------------------------ devices
    def _status(self, link: Link, ms: int) -> None:
        cn = link.counters
        counters = ev.Counters(ok=cn.ok, bad=cn.bad, lost=cn.lost, bad_crc=cn.bad_crc,
                               malformed=cn.malformed, too_long=cn.too_long,
                               garbage=cn.garbage, unknown_type=cn.unknown_type,
                               duplicate=cn.duplicate)
        self.out.emit(ev.DeviceStatus, device=link.name, kind=link.kind, state=link.state,
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

    def _port(self, inp: PortChange) -> None:
        link = self.links.get(inp.src)
        if link is None:
            self.out.note("warning", "port change of an unconfigured device", device=inp.src)
            return
        if port_change(link, inp.open, inp.detail, inp.ms):
            self._status(link, inp.ms)

    def _frame(self, inp: FrameIn) -> None:
        link = self.links.get(inp.src)
        if link is None:
            self.out.note("warning", "frame from an unconfigured device", device=inp.src)
            return
        got = receive(link, inp.frame, inp.ms)
        if got.frame is None:
            self.out.note("warning", "frame dropped", device=inp.src, reason=got.dropped,
                          length=len(inp.frame))
            if got.status_changed or inp.ms >= link.last_status_ms + 1000:
                self._status(link, inp.ms)
            return
        if got.status_changed or (link.dirty and inp.ms >= link.last_status_ms + 1000):
            self._status(link, inp.ms)
        self._dispatch(link, got.frame)

    def _dispatch(self, link: Link, frame: Frame) -> None:
        t, f = frame.type, frame.fields
        session = self.session
        live = session is not None and session.live
        if t == "DRAW":
            self._card_out(f[0], f[1] == "U")
        elif t == "ARR":
            self._arrive(f[0], f[1])
        elif t == "DEP":
            if session is not None and live:
                session.tracker.depart(f[0], f[1], self.out.ms)
        elif t == "RET":
            if session is not None:
                session.returned(f[0], bottom=f[1] == "B")
        elif t == "CHIPS":
            self._chips(f[0], f[1], self.out.ms)
        elif t == "BTN":
            self._button(f[0], list(f[1:]))
        elif t == "DECK":
            uids = f[0].split(" ") if f[0] else []
            if session is None or not live or not session.game.pack_scanned(session, uids):
                self.deck.scan(uids, live)
        elif t == "ERR":
            self.out.alert("device_fault", "TABLE-00", "warning",
                           f"device {link.name} reports fault {f[0]}: {f[1]}",
                           remedy="check the device; replace it if the fault persists")

    # ------------------------------------------------------------------ cards
    def _card_out(self, uid: str, face_up: bool) -> None:
        if self.card_draw is not None and not self.in_hand:
            return  # a seating or dealer draw: the seat zone says who got the card
        session = self.session
        card = self.deck.identify(uid, session)
        if card is None:
            return
        if session is None or not session.live:
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
        session.card_out(uid, card, face_up, self.out.ms)

    def _arrive(self, zone: str, uid: str) -> None:
        if self.card_draw is not None and not self.in_hand:
            self._card_drawn(zone, uid)
            return
        session = self.session
        if session is None:
            return
        rec = session.tracker.cards.get(uid)
        if rec is None:
            if self.has_shoe and zone in ("MUCK",):
                return  # collection of a card that never left the shoe in this hand
            card = self.deck.identify(uid, session)
            if card is None:
                return
        else:
            card = rec.card
        if not is_card_zone(zone, self.s.seats):
            self.out.note("warning", "card read in an unknown zone", zone=zone)
            return
        session.arrive(zone, uid, card, self.out.ms)

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
            self.out.alert("foreign_chips_on_table", "TABLE-05", "warning",
                           f"{unknown} chip(s) in {zone} are not in the chip registry; they "
                           "are not counted", remedy="remove the chips, or enroll them with "
                           "`tablesvc chips enroll`", evidence={"zone": zone, "unknown": unknown})
        before = self.zones.get(zone, 0)
        self.zones[zone] = value
        pieces = len(chips)
        pieces_before = self.zone_chips.get(zone, 0)
        self.zone_chips[zone] = pieces
        if self.session is not None:
            self.session.chips(zone, value, before, pieces - pieces_before, ms)

    # ------------------------------------------------------------------ console
    def _button(self, name: str, args: list[str]) -> None:
        session = self.session
        live = session is not None and session.live
        if name in CARD_RULINGS and session is not None and live:
            session.place_chips_in_motion()
        if name == "NEWHAND":
            self._new_hand()
        elif name == "FOLD" and args and args[0].isdigit() and session is not None:
            session.outcomes(session.tracker.fold(int(args[0])))
        elif name == "CHECK" and args and args[0].isdigit():
            if session is not None and live:
                session.check(int(args[0]))
        elif name in ("MISDEAL", "REDEAL"):
            self._misdeal("the dealer declared a misdeal" if name == "MISDEAL"
                          else "the game is dealt again")
        elif (name == "DRAW" and len(args) == 2 and args[0].isdigit() and args[1].isdigit()) \
                or (name == "CARDS_VIEWED" and args and args[0].isdigit()) \
                or name == "SHUFFLE_ERROR":
            if session is not None and live and name in session.game.BUTTONS:
                session.game.button(session, name, args)
        elif name == "DECLARE" and args and args[0].isdigit():
            if session is not None:
                session.bets.declare(int(args[0]))  # BET-10: a raise declared aloud
        elif name == "TIME" and args and args[0].isdigit():
            if session is not None and live:
                session.clock(int(args[0]), self.out.ms)
        elif name == "PLAYER_ABSENT" and args and args[0].isdigit():
            if session is not None and live:
                session.absent(int(args[0]))
        elif name == "REDRESS_IMPOSSIBLE" or (name == "FLOOR" and args
                                               and args[0] == "redress_impossible"):
            if session is not None and live:
                session.outcomes(session.tracker.redress_impossible(session.window_open))
        elif name == "EXPOSED" and len(args) >= 2 and args[1] == "player":
            if session is not None and live:
                session.self_exposed(args[0])
        elif name in ("EXPOSED", "BURN_FACE_UP") and args:
            if session is not None and live:
                session.outcomes(session.tracker.exposed(args[0], session.window_open))
        elif name in ("SEAT_DRAW", "DEALER_DRAW"):
            self._card_draw_button("seats" if name == "SEAT_DRAW" else "dealer")
        elif name == "KNOCK":
            if session is not None and live:
                session.knock()
        elif name in ("SHOWN", "ANNOUNCED", "AWARD", "OBJECTION"):
            if session is not None:
                session.showdown.console(name, args, session.ledger, session.tracker, live)
            else:  # no hand yet: only an objection has something to say
                ShowdownConsole(self.out, self.s.qualification_table, False).console(
                    name, args, None, None, False)
        elif name in ("BOXED", "BOXED_CARD"):
            if session is not None and live:
                session.outcomes(session.tracker.boxed(args[0] if args else None,
                                                       session.window_open))
        elif name == "FLOOR":
            pass  # betting and irregularities are tracked by later rule sets
        else:
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

    # ------------------------------------------------------------------ hands
    def _new_hand(self) -> None:
        self.card_draw = None
        previous = self.session
        if previous is not None and previous.live:
            previous.end()
        if previous is not None:
            previous.outcomes(previous.tracker.collected())  # BURN-08: every card collected
        seated = sorted(s for s, p in self.players.items() if p.stack > 0)
        if len(seated) < 2:
            self.out.alert("player_count_out_of_range", "TABLE-00", "warning",
                           f"NEWHAND pressed with {len(seated)} player(s) seated; a hand "
                           "needs 2", remedy="seat players with cmd/seat before dealing")
            self.session = None
            return
        button = self._next_button(seated)
        self.button = button
        self.hand_no += 1
        self.deck = DeckIntegrity(self.decks, self.out)
        self.after_misdeal = False
        game = variant_for(self.s)
        tracker, ledger, book = game.deal_in(
            seated, button, self.players, unit=min(self.chip_values.values(), default=1),
            carried=self.carry)
        self.session = HandSession(self, game, self.hand_no, tracker, ledger, book)
        self.session.start()

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
        self.out.alert("player_seated", "TABLE-01", "info",
                       f"{name} takes seat {seat}, with the rights and duties of its position",
                       seat=seat)
        button = self.button
        if button is None or self.session is None:
            return
        sb = self.session.ledger.blind_seats[0]
        between = (button < seat < sb) if button < sb else (seat > button or seat < sb)
        if between and seat not in (button, sb):
            self.passed_over = seat
            self.out.alert("seated_between_button_and_sb", "TABLE-02", "info",
                           f"seat {seat} is between the button and the small blind: no entry "
                           "there, so the button moves past it next hand", seat=seat)

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
        self.out.note("info", "misdeal", reason=why, hand=self.hand_no)
        return True

    def eliminate(self, order: tuple[int, ...]) -> None:
        """TABLE-07: a player left without chips after a hand leaves the table."""
        for seat in order:
            p = self.players.get(seat)
            if p is not None and p.stack == 0:
                del self.players[seat]
                self.out.alert("player_eliminated", "TABLE-07", "info",
                               f"seat {seat} ({p.name}) has no chips left and leaves the table",
                               seat=seat, hand=self.hand_no)

    # ------------------------------------------------------------------ commands
    def _command(self, inp: Command) -> None:
        request_id = inp.body.get("request_id")
        try:
            parsed = parse_command(inp.cmd, inp.body)
            data = self._run_command(parsed)
        except CommandError as err:
            self.out.reply(Reply(inp.cmd, request_id, False, str(err)))
            self.out.note("info", "command refused", cmd=inp.cmd, error=str(err))
            return
        self.out.reply(Reply(inp.cmd, request_id, True, None, data))

    def _declare(self, cmd: Any) -> Any:
        if cmd.ruling in ("suspend_rule", "restore_rule"):
            return self._suspend(cmd)
        session = self.session
        if session is None or not session.live:
            raise CommandError("no hand is running")
        if cmd.ruling == "misdeal":
            self._misdeal(f"floor ruling: {cmd.reason or 'misdeal'}")
            return {"ruling": "misdeal", "hand": self.hand_no}
        return session.rule_dead(cmd.seat, cmd.ruling, cmd.reason)

    def _suspend(self, cmd: Any) -> Any:
        """DRAW-10: all players agree to set a rule aside; its alerts become info."""
        suspended = self.out.suspended
        if cmd.rule is None:
            raise CommandError(f"{cmd.ruling} needs the rule ID, e.g. \"rule\": \"SEAT-10\"")
        if cmd.ruling == "restore_rule":
            if suspended.pop(cmd.rule, None) is None:
                raise CommandError(f"rule {cmd.rule} is not suspended; suspended: "
                                   f"{', '.join(sorted(suspended)) or 'none'}")
            self.out.alert("rule_restored", "DRAW-10", "info", f"rule {cmd.rule} applies again")
            return {"restored": cmd.rule}
        suspended[cmd.rule] = cmd.reason
        self.out.alert("rule_suspended", "DRAW-10", "info",
                       f"the players agreed to suspend rule {cmd.rule}"
                       + (f" ({cmd.reason})" if cmd.reason else "")
                       + ": its alerts are reported as info until it is restored")
        return {"suspended": sorted(suspended)}

    def _run_command(self, cmd: Any) -> Any:
        session = self.session
        hand = session.tracker if session is not None and session.live else None
        if isinstance(cmd, c.SeatCmd):
            if cmd.seat > self.s.seats:
                raise CommandError(f"seat {cmd.seat} does not exist (table has "
                                   f"{self.s.seats} seats)")
            if hand is not None and cmd.seat in hand.seats:
                raise CommandError(f"seat {cmd.seat} is in the current hand; seat after it ends")
            newcomer = cmd.seat not in self.players
            self.players[cmd.seat] = Player(cmd.seat, cmd.name, cmd.stack)
            if newcomer:
                self._seated(cmd.seat, cmd.name)
            return {"seat": cmd.seat}
        if isinstance(cmd, c.UnseatCmd):
            if cmd.seat not in self.players:
                raise CommandError(f"seat {cmd.seat} is empty")
            if hand is not None and cmd.seat in hand.active:
                raise CommandError(f"seat {cmd.seat} has a live hand; unseat after it ends")
            del self.players[cmd.seat]
            return {"seat": cmd.seat}
        if isinstance(cmd, c.ConfigureCmd):
            if hand is not None:
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
            open_alerts = self.out.open_alerts
            name = open_alerts.pop(cmd.alert_id, None)
            if name is None:
                raise CommandError(f"no open critical alert {cmd.alert_id!r}; open: "
                                   f"{', '.join(open_alerts) or 'none'}")
            self.out.note("info", "alert acknowledged", alert=cmd.alert_id, name=name,
                          by=cmd.by)
            return {"alert_id": cmd.alert_id, "name": name}
        if isinstance(cmd, c.ButtonCmd):
            if cmd.seat not in self.players:
                raise CommandError(f"seat {cmd.seat} is empty; the button goes to a seated "
                                   "player")
            self.next_button = cmd.seat
            return {"next_button": cmd.seat}
        raise CommandError(f"command {type(cmd).__name__} is not supported yet")
