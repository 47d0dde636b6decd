"""A NEWHAND the service cannot place by itself: the table shows where the hand is.

The table is the truth about where the hand is. Normally the service knows it: the button
moved one seat since the last hand it followed, and the players are the ones it saw. After a
gap in what it saw (a fresh start, a restart, a frozen process, a device away, frames lost),
after a hand whose button did not match its own, or with a player seated since the last hand
(who may not be at the table at all), it does not guess: it holds what the sensors report
after the NEWHAND until the table has shown the hand's place, then starts the hand there and
hands it everything it held, in order.

The evidence is the first round of the deal: one card to each player dealt in, clockwise from
the first seat left of the button (of the dealer, in draw), the button's seat last. It ends
when a card goes to the round's first seat again, or when every seated player has a card. It
says at once who is dealt in (a seat given no card sits the hand out) and where the button is
(the round's last seat), whatever happened while the service was away: players gone or busted,
the button moved by any number of hands. The blinds, the antes and the first card's seat are
part of the same picture and are checked by the hand once it is dealt in, as in every hand.

A round that is not one clockwise pass (a card misdirected in the first round) is no place to
start from: without a gap the hand is dealt in where the service expected it, and the deal's
own rules say what went wrong; after a gap the hand is not followed.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any, Literal, Protocol

from tablesvc.core.card_flow import deal_order
from tablesvc.core.continuity import Continuity
from tablesvc.core.emitter import Emitter
from tablesvc.core.hand import Hand
from tablesvc.core.settings import Player, TableSettings

Held = tuple[str, tuple[Any, ...]]
"""An input held for the hand: the name of the ``Hand`` method that takes it, and its
arguments (data, not closures: a placement is pickled with the table at a checkpoint)."""
Reason = Literal["gap", "disputed", "unknown", "newcomer", "tag"]
"""Why the hand is placed from the table: a gap in what the service saw; the last hand's
button did not match the service's; the button is not known at all; a player was seated since
the last hand, or has a stack nobody counted (he may have busted); the tagged dealer button
lies at another seat than the service's."""


class PlacingTable(Protocol):
    """What a placement sees of its table, and whom it tells when the hand's place shows."""

    s: TableSettings
    out: Emitter
    players: dict[int, Player]
    has_shoe: bool
    hand_no: int
    session: Hand | None
    continuity: Continuity

    def placed(self, placement: Placement, button: int, dealt_in: list[int]) -> None: ...
    def not_placed(self, placement: Placement, why: str) -> None: ...
    def back(self, seats: list[int]) -> bool: ...
    def maybe_dealt(self) -> set[int]: ...


class Placement:
    """The hand between a NEWHAND and the end of the first round of its deal."""

    announced = False  # no hand_started yet: what happens meanwhile belongs to no hand

    def __init__(self, table: PlacingTable, seated: list[int], expected: int | None,
                 reason: Reason) -> None:
        """``seated``: the players the service knows, with chips; ``expected``: the button
        the service's own rotation gives (None when it has none)."""
        self.table = table
        self.seated = seated
        self.expected = expected
        self.reason = reason
        self.number = table.hand_no + 1  # the hand it will be
        self.order: tuple[int, ...] = tuple(seated)
        self.held: list[Held] = []
        self.drawn: set[str] = set()  # tags out of the shoe since the NEWHAND
        self.round: list[int] = []  # seats in the order the first round's cards reached them
        self.first_seat: dict[str, int] = {}  # card tag -> the seat it was dealt to
        self.gaps = table.continuity.gaps  # a gap while the round is read spoils it
        self.stops = table.continuity.stops
        self.reader_gaps = table.continuity.reader_gaps
        # seats unseated since the last deal: the dealer may still deal to them, so the round
        # is not complete before they had their chance (the dealer back at the first seat)
        self.maybe = table.maybe_dealt()
        self.undrawn = False  # a card reached a seat whose draw from the shoe never came
        self.over = False
        self.doubt: str | None = None  # (only a followed hand can be in doubt)
        self.doubt_told = False

    @property
    def live(self) -> bool:
        return not self.over

    @property
    def tracked(self) -> bool:
        return True  # the hand will be followed; the cards must be identified

    # ------------------------------------------------------------------ evidence
    def _dealt(self, seat: int, uid: str) -> None:
        """A card of the deal reached ``seat``: the first round goes on, or it is over."""
        self.first_seat[uid] = seat
        if seat not in self.round:
            self.round.append(seat)
            if set(self.round) == set(self.seated) | self.maybe:
                self._round_over()
            return
        if seat == self.round[0]:
            self._round_over()
        else:
            self._misdealt(f"seat {seat} got a second card before seat {self.round[0]}")

    def _round_over(self) -> None:
        seats = self.round
        button = seats[-1]
        c = self.table.continuity
        if self.undrawn:
            # a card whose draw the shoe lost does not count: its seat seems to come later
            self._misdealt("a card reached a seat without its draw from the shoe (the "
                           "shoe's frame was lost)")
            return
        if c.stops != self.stops \
                or (c.reader_gaps != self.reader_gaps and set(self.seated) - set(seats)):
            # while the service itself was not running the dealer may have dealt on (what it
            # reads now may be a later hand's round); after a card reader's gap a seat without
            # a card may only be a card the service did not see go there (the chips' or the
            # console's frames say nothing of where the cards went)
            self._misdealt("something at the table went unseen while it was dealt")
            return
        strangers = [s for s in seats if s not in self.seated]
        if strangers and self.table.back(strangers):
            self.seated = self.seated + strangers
            strangers = []
        if strangers:
            self.over = True
            self.table.not_placed(
                self, "cards were dealt to seat(s) " + ", ".join(map(str, strangers))
                + ", where the service knows no player with chips")
            return
        if len(seats) < 2 or deal_order(tuple(seats), button) != tuple(seats):
            self._misdealt("the first round's cards did not go round the table once")
            return
        self.over = True
        self.table.placed(self, button, list(seats))

    def _misdealt(self, why: str) -> None:
        """The first round is no clean pass: no evidence of the hand's place."""
        self.over = True
        self.table.not_placed(self, why)

    # ------------------------------------------------------------------ the contract
    @property
    def start_stacks(self) -> None:
        """Not known before the hand is placed."""
        return None

    def equity_state(self) -> None:
        """A hand not followed has no figures."""
        return None

    def chips_held(self, seats: Set[int], zones: Mapping[str, int]) -> dict[int, tuple[int, int]]:
        """A hand not followed holds nothing the service can vouch for."""
        del seats, zones
        return {}

    def card_of(self, uid: str) -> str | None:
        del uid
        return None

    def card_out(self, uid: str, card: str, face_up: bool, ms: int) -> None:
        self.drawn.add(uid)
        self.held.append(("card_out", (uid, card, face_up, ms)))

    def arrive(self, zone: str, uid: str, card: str, ms: int) -> None:
        self.held.append(("arrive", (zone, uid, card, ms)))
        seat = int(zone[1:]) if zone.startswith("S") and zone[1:].isdigit() else None
        if seat is None or uid in self.first_seat:
            return
        if uid in self.drawn or not self.table.has_shoe:
            self._dealt(seat, uid)
        else:
            self.undrawn = True  # its draw never came: the shoe's frame was lost

    def depart(self, zone: str, uid: str, ms: int) -> None:
        self.held.append(("depart", (zone, uid, ms)))

    def returned(self, uid: str, bottom: bool) -> None:
        self.held.append(("returned", (uid, bottom)))

    def pack_scanned(self, uids: list[str]) -> bool:
        del uids
        return False

    def defective_card(self, uid: str, what: str, cards: list[str],
                       evidence: dict[str, Any]) -> None:
        self.held.append(("defective_card", (uid, what, cards, evidence)))

    def stacks_counted(self, seats: set[int]) -> None:
        """The floor counted these seats' chips (cmd/stacks): nothing to keep for them."""
        del seats

    def uncollected(self) -> bool:
        return False

    def too_early(self, t: str, f: tuple[str, ...], value: int) -> bool:
        """A card read in a zone before its draw from the shoe has arrived: the draw may be
        on its way from the slower port (``physical_order``), and the round is read in the
        deal's own order."""
        del value
        return t == "ARR" and self.table.has_shoe and f[0] != "MUCK" and f[1] not in self.drawn

    def chips(self, zone: str, value: int, before: int, added: int, ms: int) -> None:
        self.held.append(("chips", (zone, value, before, added, ms)))

    def button(self, name: str, args: list[str]) -> bool:
        self.held.append(("button", (name, args)))
        return True

    def hand_over(self, hand: Hand) -> None:
        """Give the hand dealt in everything held for it, in order. Should an input end it
        (the table replaces it by an untracked or a void hand), the rest goes to that one."""
        for name, args in self.held:
            current = self.table.session if self.table.session is not None else hand
            if name == "button":
                if not current.button(*args):
                    self.table.out.note("warning", "unknown console button", button=args[0])
            else:
                getattr(current, name)(*args)

    def expire(self, ms: int) -> None:
        del ms

    def tick(self, ms: int) -> None:
        del ms

    def deadline(self) -> int | None:
        return None

    def misdeal(self) -> None:
        self.over = True  # nothing was dealt that the service followed: the hand never began

    def end(self) -> None:
        self.over = True

    def collected(self) -> None:
        """Nothing was followed, nothing to check."""

    def view(self) -> dict[str, Any]:
        return {"street": None, "board": [], "active": list(self.seated), "pot": 0}

    def in_hand(self, seat: int) -> bool:
        return seat in self.round

    def live_hand(self, seat: int) -> bool:
        return seat in self.round

    def small_blind_seat(self) -> int | None:
        return None

    def unseated(self, seat: int) -> None:
        """The controller unseated a player before the hand was placed: not a candidate."""
        if seat in self.seated:
            self.seated = [s for s in self.seated if s != seat]
            self.order = tuple(self.seated)
        self.maybe.add(seat)  # he may not have stood up before the dealer reached him

    def rule_dead(self, seat: int | None, ruling: str, reason: str | None) -> dict[str, Any]:
        from tablesvc.core.commands import CommandError

        del seat, reason
        raise CommandError(f"the hand has not been placed yet (the first round of its deal "
                           f"shows its button and players); a {ruling} ruling has nothing to "
                           "act on")
