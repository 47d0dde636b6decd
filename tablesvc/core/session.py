"""One hand, from NEWHAND to its end: the per-hand session.

Everything that belongs to one hand lives here and nowhere else: the game's card tracker, the
ledger of its chips, its PHH book, the misdeal window, the card between shoe and zone, and the
hand's rule monitors. The table creates a session at NEWHAND; when the hand ends the session
only answers for the collection of its cards, and the next NEWHAND drops it. Nothing here is
reset by hand: a new hand is a new object.

The session never asks which game it plays: what differs between games is the ``Variant``'s
(``tablesvc.core.games``), and the card flow is the game's ``Tracker``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from typing import Any, ClassVar, Generic

from tablesvc.core import events as ev
from tablesvc.core import rulings
from tablesvc.core.card_flow import (
    CardAfterEnd,
    CardOutcome,
    Dealt,
    Folded,
    GameOutcome,
    Irregularity,
)
from tablesvc.core.context import TableContext
from tablesvc.core.defects import DefectKind
from tablesvc.core.equity import EquityState
from tablesvc.core.game import M, T, Variant
from tablesvc.core.history import HistoryBook
from tablesvc.core.ledger import Ledger
from tablesvc.core.ledger_outcomes import (
    Acted,
    CheckedOut,
    LedgerOutcome,
    Posted,
    Problem,
    Returned,
    Settled,
)
from tablesvc.core.monitors.settlement import SettlementReport
from tablesvc.core.monitors.showdown_console import ShowdownConsole
from tablesvc.core.monitors.string_bets import StringBets
from tablesvc.core.pot_count import check_gathered
from tablesvc.core.remedies import REMEDIES
from tablesvc.core.settings import Level, seat_zone
from tablesvc.core.tracker import Tracker

CARD_ZONES = frozenset({"BOARD", "BURN", "MUCK"})
# the dealer stops to rule on a card: chips still in motion are placed first (DESIGN §3)
CARD_RULINGS = frozenset({"EXPOSED", "BURN_FACE_UP", "BOXED", "BOXED_CARD"})


class HandSession(Generic[T, M]):
    """The state and the flow of one hand. ``tracker`` follows its cards, ``ledger`` its chips.

    The rules that are the hand's own flow (the misdeal window, the card lost between shoe and
    zone, round completion, the showdown) are methods here, each naming its rule; the rulings
    asked for at the console or by the floor (a player away, his own card exposed, the knock,
    foul and dead hands) are ``tablesvc.core.rulings``'s, the pot's count after a gathering
    ``tablesvc.core.pot_count``'s; the cross-cutting checks are the monitors in
    ``tablesvc.core.monitors``; what only one game has is its variant's.
    """

    announced = True  # its hand number is public from its start
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "MISDEAL-01": ("misdeal_window_closed",),
        "EXPOSE-02": ("card_location_lost",),
        "BET-06": ("round_complete",),
        "BET-15": ("action_out_of_turn",),
        "BOARD-06": ("card_after_hand_end",),
    }

    def __init__(self, table: TableContext, game: Variant[T, M], number: int, tracker: T,
                 ledger: Ledger, book: HistoryBook | None,
                 other_level: Level | None = None) -> None:
        """``other_level``: the level before a change that took effect for this hand, at which
        its forced bets may still be posted (``_level_shown``)."""
        self.table = table
        self.out = table.out
        self.game = game
        self.number = number
        self.tracker = tracker
        self.ledger = ledger
        self.book = book
        self.window_open = False  # the misdeal window (MISDEAL-01)
        self.round_done: str | None = None  # BET-06: the street whose completion was said
        self.swept = 0  # chips that left emptied bet zones since the last POT inventory
        self.out_since: tuple[str, int] | None = None  # (uid, ms): a card between shoe and zone
        self.bets = StringBets(self.out, table.s.motion_ms)
        self.showdown = ShowdownConsole(self.out, table.s.qualification_table,
                                        game.folds_recoverable, game.hole_cards)
        self.report = SettlementReport(self.out)
        self.monitors = game.monitors(self)
        self.order = tracker.order
        self.void = False  # a defective deck voided the hand: a void hand takes over
        self.doubt: str | None = None  # frames were lost in this hand: why it may be wrong
        self.doubt_told = False  # ... by a device the floor was told went away
        self.button_moved = False  # the blinds showed the hand dealt from another button
        self.other_level = other_level

    # ------------------------------------------------------------------ life
    @property
    def live(self) -> bool:
        """The hand is under way (not ended)."""
        return not self.tracker.ended

    @property
    def tracked(self) -> bool:
        return True

    @property
    def start_stacks(self) -> Mapping[int, int]:
        return self.ledger.start_stacks

    def equity_state(self) -> EquityState | None:
        """The state win probabilities are due for now (the game's to say)."""
        return self.game.equity_state(self.tracker) if self.live else None

    def chips_held(self, seats: Set[int], zones: Mapping[str, int]) -> dict[int, tuple[int, int]]:
        """For each of ``seats`` in the hand whose stack is known: (its chips in the hand now,
        beside what its stack zone shows, and its stack at the start); empty once the pots are
        decided, when pushes come."""
        ledger = self.ledger
        if not self.live or ledger.settled is not None or ledger.checked_out is not None:
            return {}
        return {s: (zones.get(f"B{s}", 0) + ledger.paid_before(s), ledger.start_stacks[s])
                for s in ledger.order if s in seats and s not in ledger.unverified}

    def start(self) -> None:
        """Announce the hand and post its forced bets (a blind seat whose stack is not known
        and that shows less than its blind has posted all it had)."""
        ledger = self.ledger
        ledger.dealt = False  # nobody acts before the first card (``_deal_begins``)
        if ledger.unverified:
            zones = self.table.zones
            ledger.short_blinds({s: zones.get(f"B{s}", 0) for s in ledger.unverified})
        self.game.started(self)
        self.money(ledger.post_forced())

    def deadline(self) -> int | None:
        """The input time at which a tick changes something in this hand, if any."""
        times = []
        if (t := self.ledger.deadline()) is not None:
            times.append(t)
        if self.out_since is not None:
            times.append(self.out_since[1] + self.table.s.deliver_ms)
        return min(times) if times else None

    # ------------------------------------------------------------------ the game's hooks
    def defective_card(self, uid: str, what: str, cards: list[str],
                       evidence: dict[str, Any]) -> None:
        """A tag of no enrolled deck, or of another deck, turned up in this hand: the hand is
        void from here on (the game's ruling says how it ends), and its one alert waits for
        the card to land so that it names the seat."""
        self._void(uid, "foreign", what, cards, evidence)

    def _void(self, uid: str | None, kind: DefectKind, what: str, cards: list[str],
              evidence: dict[str, Any]) -> None:
        ruling = self.game.defect(self, kind, what, cards)
        self.void = True
        self.table.void_hand(self.number, self.order, self.ledger.start_stacks, ruling, uid,
                             evidence)

    # ------------------------------------------------------------------ the table's contract
    def card_of(self, uid: str) -> str | None:
        rec = self.tracker.cards.get(uid)
        return rec.card if rec is not None else None

    def depart(self, zone: str, uid: str, ms: int) -> None:
        if self.live:
            self.tracker.depart(zone, uid, ms)

    def pack_scanned(self, uids: list[str]) -> bool:
        return self.live and self.game.pack_scanned(self, uids)

    def expire(self, ms: int) -> None:
        """Before an input at ``ms``: a card out of the shoe too long is lost (EXPOSE-02)."""
        if self.out_since is not None:
            self.lost(ms)

    def tick(self, ms: int) -> None:
        """After an input at ``ms``: a bet that has settled, the action clock run out."""
        if self.live and (due := self.ledger.tick(ms)):
            self.money(due)

    def view(self) -> dict[str, Any]:
        hand = self.tracker
        return {"street": hand.street, "board": list(hand.board), "active": hand.active,
                "pot": self.ledger.pot_total if self.live else self.table.carry}

    def in_hand(self, seat: int) -> bool:
        return seat in self.tracker.seats

    def live_hand(self, seat: int) -> bool:
        return seat in self.tracker.active

    def small_blind_seat(self) -> int | None:
        return self.ledger.blind_seats[0]

    def collected(self) -> None:
        self.outcomes(self.tracker.collected())  # BURN-08: every card collected

    def stacks_counted(self, seats: set[int]) -> None:
        """The floor counted these seats' chips (cmd/stacks): nothing to keep for them."""
        del seats

    def uncollected(self) -> bool:
        return any(r.zone not in ("MUCK", "DECK") for r in self.tracker.cards.values())

    # ------------------------------------------------------------------ physical order
    def too_early(self, t: str, f: tuple[str, ...], value: int) -> bool:
        """Would this frame come before something that happened first at the table, whose
        frame (of another device) may still be on its way? See ``physical_order``."""
        if self.void:  # (the table asks only while the hand is live)
            return False
        if (game := self.game.too_early(self, t, f, value)) is not None:
            return game
        hand, ledger = self.tracker, self.ledger
        if t == "DRAW":
            if hand.pending is not None and hand.pending != f[0]:
                return True  # the card before it has not landed yet
            if not hand.card_expected(ledger.betting_over()):
                return True  # the action that closes the round may be on its way
            return hand.next_index == 1 and self.game.forced_bets_out(self)
        if t == "ARR":
            zone, uid = f[0], f[1]
            rec = hand.cards.get(uid)
            if rec is None or rec.zone == "DECK":  # its draw from the shoe may be on its way
                return self.table.has_shoe and zone != "MUCK"
            seat = hand.owner(uid) if zone == "MUCK" else None
            return seat is not None and self._acts_too_early(seat, folds=True)
        if t == "CHIPS":
            zone = f[0]
            rnd = ledger.round
            now = self.table.zones.get(zone, 0)
            if zone == "POT":  # the push before the showdown that decides it
                return value < now and ledger.settled is None and ledger.checked_out is None
            if rnd is None or not zone.startswith("B") or not zone[1:].isdigit():
                return False
            seat = int(zone[1:])
            booked = rnd.contributed.get(seat, 0)
            if value < now:
                # below what is booked (or in motion) while the round is open: the gathering,
                # or an uncalled bet handed back, before the action that completes the round
                # (or a real withdrawal, judged a tolerance later)
                moving = ledger.pending
                if moving is not None and moving.seat == seat:
                    booked = max(booked, moving.to)
                return value < booked and not rnd.complete and not ledger.completes_round()
            if value == now:
                return False  # the reader repeating itself
            if hand.pending is not None or hand.cards_coming:
                return True  # a bet while cards are still coming
            return value > booked and self._acts_too_early(seat)
        if t == "BTN" and f[0] in ("CHECK", "FOLD") and len(f) > 1 and f[1].isdigit():
            return self._acts_too_early(int(f[1]), folds=f[0] == "FOLD")
        return False

    def _acts_too_early(self, seat: int, folds: bool = False) -> bool:
        """A player acts: too early while cards are still coming, once the round is complete
        and the next street's cards are still to come (its first card may be on its way), or
        before the player whose turn it is (after a bet in motion, the next seat's; a player
        folding right after his own bet waits for whoever acted in between)."""
        hand, ledger = self.tracker, self.ledger
        if hand.pending is not None or hand.cards_coming:
            return True
        rnd = ledger.round
        if rnd is not None and rnd.complete and hand.card_expected(True):
            return True
        if rnd is None or rnd.complete or not rnd.is_active(seat):
            return False
        pending = ledger.pending
        if pending is None:
            nxt = rnd.next_actor
        elif pending.seat == seat:
            return folds  # more of his own bet in motion; a fold needs a raise in between
        else:  # the bet in motion becomes final with this action: the next seat acts then
            nxt = rnd.seat_after(pending.seat)
        return nxt is not None and nxt != seat

    def button(self, name: str, args: list[str]) -> bool:
        """A console button pressed during this hand; False for a name the hand does not
        know (NEWHAND, MISDEAL and the draws between games are the table's)."""
        live = self.live
        seat = int(args[0]) if args and args[0].isdigit() else None
        if name in CARD_RULINGS and live:
            self.place_chips_in_motion()
        if name == "FOLD":
            if seat is not None:
                self.outcomes(self.tracker.fold(seat))
        elif name == "CHECK":
            if seat is not None and live:
                self.check(seat)
        elif name in self.game.BUTTONS:
            if live:
                self.game.button(self, name, args)
        elif name == "DECLARE":
            if seat is not None:
                self.bets.declare(seat)  # BET-10: a raise declared aloud
        elif name == "TIME":
            if seat is not None and live:
                self.clock(seat, self.out.ms)
        elif name == "PLAYER_ABSENT":
            if seat is not None and live:
                rulings.player_absent(self, seat)
        elif name == "REDRESS_IMPOSSIBLE" or (name == "FLOOR" and args
                                               and args[0] == "redress_impossible"):
            if live:
                self.outcomes(self.tracker.redress_impossible(self.window_open))
        elif name == "EXPOSED" and len(args) >= 2 and args[1] == "player":
            if live:
                rulings.self_exposed(self, args[0])
        elif name in ("EXPOSED", "BURN_FACE_UP"):
            if args and live:
                self.outcomes(self.tracker.exposed(args[0], self.window_open))
        elif name == "KNOCK":
            if live:
                rulings.knock(self)
        elif name in ("SHOWN", "ANNOUNCED", "AWARD", "OBJECTION"):
            self.showdown.console(name, args, self.ledger, self.tracker, live)
        elif name in ("BOXED", "BOXED_CARD"):
            if live:
                self.outcomes(self.tracker.boxed(args[0] if args else None, self.window_open))
        elif name != "FLOOR":  # the floor is called: betting and irregularities go on
            return False
        return True

    # ------------------------------------------------------------------ cards
    def lost(self, ms: int) -> None:
        """D8: a card left the shoe and no antenna read it within T_deliver (EXPOSE-02)."""
        out = self.out_since
        deliver_ms = self.table.s.deliver_ms
        if out is None or ms < out[1] + deliver_ms:
            return
        self.out_since = None
        hand = self.tracker
        if hand.ended or hand.pending != out[0]:
            return
        rec = hand.cards.get(out[0])
        index = rec.index if rec else 0
        self.out.alert("card_location_lost", "EXPOSE-02", "warning",
                       f"card #{index} left the shoe but no antenna has read it for "
                       f"{deliver_ms / 1000:g} s", remedy="find the card: on the floor or "
                       "seen by a player it counts as exposed; a board card dealt during "
                       "betting is premature; otherwise the floor decides (R12)",
                       cards=[rec.card] if rec else [], evidence={"index": index})

    def card_out(self, uid: str, card: str, face_up: bool, ms: int) -> None:
        """A card of the deck in play left the shoe."""
        hand = self.tracker
        self.money(self.ledger.finalize())  # a card from the deck ends any bet in motion
        self._run_out()
        if hand.next_index == 1:
            self._deal_begins()
        self.outcomes(hand.card_out(uid, card, face_up))
        if hand.pending == uid:
            self.out_since = (uid, ms)

    def arrive(self, zone: str, uid: str, card: str, ms: int) -> None:
        """A card of this hand (``card``) was read in ``zone``."""
        hand = self.tracker
        if self.out_since is not None and self.out_since[0] == uid:
            self.out_since = None
        if zone == "MUCK" and not self.showdown.awarded:
            self.showdown.mucked(hand.owner(uid))
        ledger = self.ledger
        self.money(ledger.finalize())
        if hand.cards.get(uid) is None:
            if hand.next_index == 1 and zone != "MUCK":
                self._deal_begins()  # no shoe: the first card's read is the deal's start
            self._run_out()  # no shoe: the card's first read is its deal
        elif zone == "MUCK":
            self.unverified_all_in(hand.owner(uid))
        self.outcomes(hand.arrive(
            zone, uid, card, betting_over=ledger.betting_over(),
            bb_option_pending=ledger.bb_option_pending(), ms=ms,
            fold_possible=self._fold_possible(zone, uid)))

    def _deal_begins(self) -> None:
        """The first card leaves the shoe: the misdeal window opens, the game checks the
        forced bets (which may show the hand dealt from another button: one alert, and the
        chips put out for that button are not actions), and betting may begin."""
        if self.ledger.dealt:
            return
        self.window_open = True
        self._level_shown()
        other = self.game.first_card(self)
        if other is not None:
            self.button_moved = True
            if self.doubt is None and not self.table.continuity.in_doubt:
                self.table.button_disputed()  # (in doubt, the chips may be what was missed)
            if self.doubt is None:
                self.doubt, self.doubt_told = "the hand is dealt from another button", True
        self.money(self.ledger.deal_begins(book=other is None))

    def _level_shown(self) -> None:
        """Around a level change the dealer (who reads the room's clock) and the table (which
        gets the controller's command) may each be at the other level. At the first card the
        forced bets are out: if they are exactly those of the level before the change (the
        first hand after it) or of a level sent since this hand's NEWHAND, and this hand's
        own are not shown as well, the hand is played at the level they show. Its forced bets
        are posted again at that level (the same actions, whose amounts, stacks and pot
        replace the first ones), and no blind is reported missing or out of place; a level
        that was waiting for the next hand is the table's from this hand on."""
        table = self.table
        here = Level.of(self.game.s)
        levels = [lv for lv in (self.other_level, table.pending_level)
                  if lv is not None and not lv.plays_as(here)]
        if not levels or self.void:
            return
        old = self.ledger
        best = self.game.forced_bets_shown(self, old)
        chosen = None
        for level in levels:
            game = type(self.game)(level.on(table.s))
            _, ledger, _ = game.deal_in(sorted(old.order), old.button, table.players,
                                        unit=old.unit, carried=old.carried,
                                        unverified=old.start_unverified)
            ledger.carry_unknown = old.carry_unknown
            ledger.dealt = False
            posts = ledger.post_forced()
            shown = game.forced_bets_shown(self, ledger)
            if shown > best:
                best, chosen = shown, (level, game, ledger, posts)
        if chosen is None:
            return
        level, game, ledger, posts = chosen
        # what the bet zones showed before the deal is read by the new ledger as it was
        ledger.zone, ledger.predeal, ledger.now = dict(old.zone), dict(old.predeal), old.now
        self.game, self.ledger = game, ledger
        if level is table.pending_level:
            table.level_taken()
        self.out.note("info", "the forced bets show another level: the hand is played at it",
                      hand=self.number, played_at=level.view(), dealt_at=here.view())
        self.money(posts)

    def _run_out(self) -> None:
        """The deck is dealt on while a round is open: seats whose stacks are not known and
        who have not acted are all-in (``Ledger.run_out_unverified``)."""
        ledger = self.ledger
        if ledger.unverified and not ledger.betting_over() \
                and not self.tracker.card_expected(False) \
                and (seats := ledger.run_out_unverified()):
            self.out.note("info", "the board is run out: seats whose stacks are unverified are "
                          "all-in", seats=seats)
            self.money(ledger.announce())

    def unverified_all_in(self, seat: int | None) -> None:
        """``seat`` owes nothing, yet goes on as if the round were over (its cards to the
        muck, a draw announced) while only seats whose stacks nobody counted are still to
        act: the table shows them all-in (they do not act), so the round was complete. What
        follows is the draw's discards, or a hand conceded at the showdown, not a fold out
        of turn, a draw out of order or a hand swept by mistake."""
        ledger, rnd = self.ledger, self.ledger.round
        if not ledger.unverified or ledger.settled is not None or rnd is None \
                or rnd.complete or seat is None or not rnd.is_active(seat) \
                or seat == rnd.next_actor or rnd.to_call(seat) > 0:
            return
        if ledger.run_out_unverified():  # the round is complete: the draw or showdown is due
            self._after_round()

    def _fold_possible(self, zone: str, uid: str) -> bool:
        """Can these cards in the muck be their owner's fold (SHOW-13)?

        Only the ledger knows whose turn it is: a seat may fold when it is its turn, when it
        faces a bet (a fold out of turn, BET-15), or when it is away; otherwise its cards in
        the muck are a live hand swept by mistake.
        """
        ledger = self.ledger
        rnd = ledger.round
        if zone != "MUCK" or rnd is None or rnd.complete:
            return True
        seat = self.tracker.owner(uid)
        if seat is None or not rnd.is_active(seat):
            return True
        return seat == rnd.next_actor or rnd.to_call(seat) > 0 or seat in ledger.away

    def returned(self, uid: str, bottom: bool) -> None:
        """A card went back into the shoe (``RET``)."""
        hand = self.tracker
        if hand.ended:
            rec = hand.cards.get(uid)
            if rec is not None:
                rec.zone = "DECK"  # back in the stub after the hand: not missing
        else:
            self.outcomes(hand.shoe_in(uid, bottom=bottom))

    def outcomes(self, outcomes: Sequence[CardOutcome]) -> None:
        """Turn what the tracker saw into events, alerts and betting state; what only the game
        knows (a burn, a board card, a draw) goes back to the game."""
        emit = self.out.emit
        for o in outcomes:
            if self.void:
                return  # the rest belongs to a hand nobody follows any more
            if isinstance(o, Dealt):
                emit(ev.CardDealt, seat=o.seat, n=o.n, index=o.index, face_up=o.face_up,
                     card=o.card if o.face_up else None)
                if o.hole is not None:
                    emit(ev.HoleCards, seat=o.seat, cards=list(o.hole))
                    if self.book is not None:
                        self.book.hole(o.seat, o.hole)
                self.game.dealt(self)
            elif isinstance(o, Folded):
                self.money(self.ledger.fold(o.seat))
            elif isinstance(o, Irregularity):
                self._irregular(o)
            elif isinstance(o, CardAfterEnd):
                self.out.alert("card_after_hand_end", "BOARD-06", "warning",
                               f"a card reached {o.zone} after the hand was over",
                               remedy="ignore the card and collect it", cards=[o.card])
            elif isinstance(o, GameOutcome):
                self.game.outcome(self, o)

    def _irregular(self, o: Irregularity) -> None:
        evidence = {"index": o.index, "expected": o.expected, "observed": o.observed}
        if o.name == "deck_defective_duplicate":  # one alert, once the card has landed
            self._void(self.tracker.pending, "duplicate", o.message,
                       [o.card] if o.card else [], evidence)
            return
        if o.name == "deal_order_error" and o.index == 1 and o.seat is not None \
                and self.button_moved:
            return  # the blinds already told where the dealer's button is: the same fault
        if o.name == "deal_order_error" and o.index == 1 and o.seat is not None:
            # the first card at the wrong seat: one fault, named by its cause (the game's
            # button or dealer); should the dealer deal on from there, what follows from it
            # is not each an alert, and the next hand is placed from the table (``placement``)
            self.game.first_card_misdirected(self, o.seat, str(o.expected),
                                             [o.card] if o.card else [], evidence)
            if self.doubt is not None or self.table.continuity.in_doubt:
                return  # a device lost frames: the first card seen may not be the first dealt
            self.table.button_disputed()
            if self.doubt is None:
                self.doubt, self.doubt_told = "the deal began at another seat", True
            return
        self.out.alert(o.name, o.rule, o.severity, o.message, seat=o.seat, remedy=o.remedy,
                       cards=[o.card, *o.also] if o.card else [],
                       evidence=evidence if o.index else None)

    # ------------------------------------------------------------------ chips
    def chips(self, zone: str, value: int, before: int, added: int, ms: int) -> None:
        """A chip zone's inventory is now worth ``value`` (``before``); ``added`` pieces."""
        ledger = self.ledger
        bet_zone = zone.startswith("B") and zone[1:].isdigit()
        if value > before and bet_zone and ledger.round is not None:
            seat = int(zone[1:])
            if value > ledger.round.contributed.get(seat, 0):  # beyond what is booked
                self.bets.chips_added(seat, ms, added)
        elif zone == "POT" and value > before:
            self.bets.gathered()
        if not self.live:
            return
        if bet_zone:
            seat = int(zone[1:])
            if value == 0 < before:
                self.swept += before  # a bet zone emptied: a gathering, or a push
            if seat not in ledger.order:
                if value:
                    self.out.alert("action_out_of_turn", "BET-15", "warning",
                                   f"chips ({value}) in the bet zone of seat {seat}, which is "
                                   "not in this hand", seat=seat,
                                   remedy="return the chips to the player")
                return
            self.game.bet_zone_changed(self, seat, value, before)
            ran_out = len(ledger.deemed)
            self.money(ledger.bet_zone(seat, value, ms))
            if len(ledger.deemed) > ran_out:
                self._after_round()  # gathered while only players nobody counted were to act
            if value < before and self.live and ledger.settled is not None \
                    and self._no_chips_in_play():
                self.end()  # pushed to the winner straight from the bet zones (a walk, say)
        elif zone == "POT":
            if value > before:
                self.money(ledger.finalize())
                check_gathered(self, value, gathering=self.swept > 0)
            elif value == before and ledger.carry_unknown:
                # the chip reader says again what the pot holds (it does every few seconds):
                # a pot carried from a game the service did not see may lie there already
                check_gathered(self, value, gathering=False)
            elif value < before:
                if ledger.settled is None and ledger.unverified \
                        and ledger.run_out_unverified():
                    # pushed while players whose stacks nobody counted were still to act:
                    # the table shows them all-in, and the hand's showdown was due
                    self._after_round()
                self.game.pot_shrank(self, before, value)
            if value != before:
                self.swept = 0
            if before > 0 and value == 0 and ledger.settled is not None:
                self.end()

    def _no_chips_in_play(self) -> bool:
        """The pot and every bet zone of the hand are empty."""
        zones = self.table.zones
        return not zones.get("POT") and not any(
            zones.get(f"B{seat}") for seat in self.tracker.order)

    def money(self, outcomes: list[LedgerOutcome]) -> None:
        """Turn what the ledger booked into events and alerts."""
        if not outcomes or self.void:
            return
        for o in outcomes:
            if isinstance(o, Posted):
                self.out.emit(ev.Action, seat=o.seat, action=o.action, amount=o.amount,
                              to=o.amount if o.action != "post_ante" else 0,
                              stack=o.stack, pot=o.pot)
            elif isinstance(o, Acted):
                d = o.decision
                if o.deemed and d.action == "fold":
                    self.tracker.fold(d.seat)  # the ledger folded him: the card flow follows
                if self.book is not None:
                    self.book.act(d, o.raised)
                self.bets.acted(o)
                if o.street == self.game.first_street:
                    self.game.first_round_action(self, d.seat, d.action)
                self.out.emit(ev.Action, seat=d.seat, action=d.action, amount=d.amount,
                              to=d.to, stack=o.stack, pot=o.pot)
                if d.action == "fold" and not o.deemed:
                    self.game.fold_recorded(self, d.seat)
            elif isinstance(o, Problem):
                if self.game.problem(self, o, outcomes):
                    continue
                v = o.violation
                self.out.alert(v.name, v.rule, v.severity, v.message, seat=o.seat,
                               remedy=REMEDIES.get(v.name, ""))
            elif isinstance(o, Returned):
                self.out.note("info", "uncalled bet returned", seat=o.seat, amount=o.amount)
            elif isinstance(o, Settled):
                self.settled(o)
                self.table.carry = 0  # a carried-over pot is won with this one
            elif isinstance(o, CheckedOut):
                self.game.checked_out(self, o)
        self._after_round()

    def _after_round(self) -> None:
        """What a round's end makes due: its notice, the draw, the showdown (each only once,
        and only when due)."""
        if self.ledger.unannounced:
            self.money(self.ledger.announce())  # (which comes back here)
            return
        self._round_complete()
        self.game.after_betting(self)
        self.game.showdown(self)

    def close_window(self, seat: int, action: str) -> None:
        """MISDEAL-01: the first voluntary action of the first round closes the window."""
        if self.window_open and action in ("call", "bet", "raise", "all_in", "fold"):
            self.window_open = False
            if not self.game.misdeal_window:
                return  # draw has no misdeal window: a defective deck is a redeal (DECK-06)
            self.out.alert("misdeal_window_closed", "MISDEAL-01", "info",
                           f"seat {seat} acted: from now on a misdeal is no longer possible",
                           seat=seat)

    def _round_complete(self) -> None:
        """BET-06: the round is complete; from now on the next card may come (info)."""
        ledger = self.ledger
        if ledger.round is None or ledger.settled is not None \
                or ledger.checked_out is not None or self.round_done == ledger.street:
            return
        if not ledger.round.complete or ledger.pending is not None or len(ledger.live) < 2:
            return
        self.round_done = ledger.street
        name, nxt = self.game.rounds.get(ledger.street, (ledger.street, "the next step"))
        self.out.alert("round_complete", "BET-06", "info",
                       f"the {name} betting round is complete: {nxt} may follow")

    def foul(self, seat: int, held: int, right: str) -> bool:
        """SHOW-09, for the game: see ``rulings.foul``."""
        return rulings.foul(self, seat, held, right)

    def settled(self, st: Settled) -> None:
        """The pots are decided: the floor's record, the hands shown, the awards."""
        if not st.uncontested:
            self.game.showing_order(self, [s.seat for s in st.showdown])
        self.report.settled(st)
        for n, shown in enumerate(st.showdown, 1):
            self.out.emit(ev.Showdown, seat=shown.seat, order=n, tabled=shown.tabled,
                          cards=list(shown.cards) if shown.tabled else None,
                          rank=shown.value.name if shown.tabled else None)
        for a in st.awards:
            self.out.emit(ev.PotAwarded, pot="main" if a.pot == 0 else f"side {a.pot}",
                          amount=a.amount, seats=list(a.winners),
                          shares={str(k): v for k, v in a.shares.items()},
                          odd_chip_seat=a.odd_chip_seat, uncontested=st.uncontested)

    # ------------------------------------------------------------------ console
    def place_chips_in_motion(self) -> None:
        """The dealer stops to rule on a card: chips still in motion are placed (DESIGN §3)."""
        self.money(self.ledger.finalize())

    def check(self, seat: int) -> None:
        self.game.betting_resumes(self)
        self.money(self.ledger.check(seat))

    def clock(self, seat: int, ms: int) -> None:
        self.money(self.ledger.clock(seat, ms))

    def rule_dead(self, seat: int | None, ruling: str, reason: str | None) -> dict[str, Any]:
        """POT-08: the floor ruled a live hand dead or foul (``cmd/declare``)."""
        return rulings.rule_dead(self, seat, ruling, reason)

    # ------------------------------------------------------------------ the end
    def misdeal(self) -> None:
        """R10: the hand is void and every chip goes back."""
        self.ledger.pending = None
        self.hand_ended("misdeal", self.ledger.start_stacks)
        self.window_open = False

    def hand_ended(self, reason: str, stacks: Mapping[int, int], done: bool = True,
                   **extra: Any) -> None:
        """The players' stacks become the hand's result, and everyone hears how it ended."""
        hand = self.tracker
        players = self.table.players
        for seat, stack in stacks.items():
            if seat in players:
                players[seat].stack = stack
        unverified = self.table.unverified
        self.out.emit(ev.HandEnded, reason=reason,
                      stacks=[ev.SeatInfo.trusted(seat=s, name=players[s].name,
                                                  stack=players[s].stack,
                                                  unverified=s in unverified)
                              for s in hand.order if s in players],
                      board=list(hand.board), cards_used=hand.next_index - 1, **extra)
        if done:
            hand.ended = True

    def end(self) -> None:
        """The hand is over: settled when the pots are decided, cancelled otherwise. While a
        device is away its result cannot be vouched for: the hand ends untracked instead."""
        if self.table.continuity.in_doubt and self.live:
            self.out.doubted = True  # its result cannot be vouched for: it ends untracked
            return
        hand, ledger = self.tracker, self.ledger
        self.money(ledger.finalize())
        settled = ledger.settled
        if settled is None:
            reason = "cancelled"
            stacks = dict(ledger.start_stacks)  # an unfinished hand gives every chip back
        else:
            reason = "uncontested" if settled.uncontested else "showdown"
            stacks = ledger.shown_stacks()
            # a stack nobody counted that went all-in is known from then on: what it won
            self.table.unverified -= ledger.learned()
        self.hand_ended(reason, stacks, done=False)
        if settled is not None and self.book is not None:
            s = self.table.s
            names = {seat: p.name for seat, p in self.table.players.items()}
            self.out.emit(ev.HandHistory, phh=self.book.phh(
                ledger, names, hand=self.number, table=s.table,
                venue=s.venue, seats=s.seats))
        hand.ended = True
        self.table.eliminate(hand.order)


def is_card_zone(zone: str, seats: int) -> bool:
    """A zone of the card antennas: a seat's, the board, the burn or the muck."""
    return zone in CARD_ZONES or seat_zone(zone, seats)


AnySession = HandSession[Tracker, object]
"""A hand of any game, as the table holds it (it asks only the contracts)."""
