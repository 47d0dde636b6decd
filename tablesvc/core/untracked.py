"""A hand the service cannot follow card by card: it waits for its end and raises no rule alert.

A hand becomes untracked when the service did not see what the rules are checked against: its
start (the service started or restarted mid-hand, the NEWHAND was lost with other frames), its
frames (a device lost frames or was away while the hand went on), or when the core failed on
one of its inputs. It is also what a *void* hand is: once a defective deck has doomed it (a
misdeal in the misdeal window, a cancelled hand after it, a redeal in draw), the rest of the
physical hand is no irregularity anyone must act on.

An untracked hand says so once (``hand_untracked``, or, for a void hand, the one deck alert
that voided it, raised when the card lands so that it names the seat), then swallows every
card and chip until the dealer declares the misdeal or presses the next NEWHAND. Its stacks:
a void hand gives every chip back (R10, A-08), so they are exact; an untracked hand may have
changed any stack of its seats, so those are marked unverified until the floor counts them
(``cmd/stacks``).
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from tablesvc.core import events as ev
from tablesvc.core.context import TableContext
from tablesvc.core.defects import RaiseDefect

Kind = Literal["untracked", "void"]


@dataclass(frozen=True, slots=True)
class DeferredAlert:
    """A card alert held until the card lands, so that it can name the seat."""

    uid: str
    raise_alert: RaiseDefect  # the game's one alert for the fault (Variant.defect)
    evidence: dict[str, Any]
    due_ms: int  # raised without a seat when no antenna read the card by then


class UntrackedHand:
    """A hand that is not followed: see the module docstring."""

    announced = True  # its hand number is public from its start
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "TABLE-00": ("hand_untracked",),
    }

    def __init__(self, table: TableContext, number: int, kind: Kind, reason: str, *,
                 order: tuple[int, ...] = (), start_stacks: Mapping[int, int] | None = None,
                 deferred: DeferredAlert | None = None, ends: str = "misdeal",
                 quiet: bool = False) -> None:
        """``order``: the seats dealt in, when known. ``start_stacks``: the stacks at the
        hand's start, when known (a void hand gives them back). ``ends``: how a void hand
        ends when the dealer declares it (``misdeal``) or the next hand starts first.
        ``quiet``: another alert already told the floor (a device that went away), so the
        hand's own notice is information, not a second alert."""
        self.table = table
        self.out = table.out
        self.number = number
        self.kind = kind
        self.reason = reason
        self.order = order
        self.start_stacks = dict(start_stacks or {})
        self.deferred = deferred
        self.ends = ends
        self.over = False  # the next hand (or the misdeal) has come: nothing more to swallow
        self.doubt: str | None = None  # (only a followed hand can be in doubt)
        self.doubt_told = False
        self.ended: str | None = None  # the hand_ended reason, once announced
        self.counted: set[int] = set()  # seats the floor counted before the hand ended
        if kind == "untracked":
            self.out.alert("hand_untracked", "TABLE-00", "info" if quiet else "warning",
                           f"hand {number} is not tracked: {reason}; it raises no rule "
                           "alerts, and tracking starts again with the next NEWHAND",
                           remedy="nothing to do for this hand; after it, count the stacks "
                           "of its players and send them (cmd/stacks)", hand=number)

    # ------------------------------------------------------------------ the contract
    @property
    def live(self) -> bool:
        return not self.over

    @property
    def tracked(self) -> bool:
        return False

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
        del uid, card, face_up, ms

    def arrive(self, zone: str, uid: str, card: str, ms: int) -> None:
        del card, ms
        self.landed(zone, uid)

    def depart(self, zone: str, uid: str, ms: int) -> None:
        del zone, uid, ms

    def returned(self, uid: str, bottom: bool) -> None:
        del uid, bottom

    def pack_scanned(self, uids: list[str]) -> bool:
        del uids
        return True  # no deck check while nothing is followed

    def defective_card(self, uid: str, what: str, cards: list[str],
                       evidence: dict[str, Any]) -> None:
        del uid, what, cards, evidence  # the hand is not followed: one notice was enough

    def uncollected(self) -> bool:
        return False

    def too_early(self, t: str, f: tuple[str, ...], value: int) -> bool:
        del t, f, value
        return False

    def chips(self, zone: str, value: int, before: int, added: int, ms: int) -> None:
        """The pot pushed: an untracked hand is over (a void hand waits for the dealer's
        MISDEAL or the next NEWHAND). While a device is away it goes on: what the dealer deals
        until it is back is this one hand not followed (``TableCore._unseen_hand``)."""
        del added
        if self.kind == "untracked" and zone == "POT" and value == 0 < before \
                and not self.table.continuity.blind(ms):
            self._finish("untracked")

    def stacks_counted(self, seats: set[int]) -> None:
        self.counted |= seats

    def button(self, name: str, args: list[str]) -> bool:
        del name, args
        return True

    def expire(self, ms: int) -> None:
        d = self.deferred
        if d is not None and ms >= d.due_ms:
            self.deferred = None
            self._raise(d, None, "no antenna read where it went")

    def tick(self, ms: int) -> None:
        del ms

    def deadline(self) -> int | None:
        return self.deferred.due_ms if self.deferred is not None else None

    def misdeal(self) -> None:
        self._finish("misdeal" if self.kind == "void" else "untracked")

    def end(self) -> None:
        self._finish(self.ends if self.kind == "void" else "untracked")

    def collected(self) -> None:
        """Nothing to check: the hand's cards were not followed."""

    def view(self) -> dict[str, Any]:
        return {"street": None, "board": [], "active": list(self.order), "pot": 0,
                "tracked": False}

    def in_hand(self, seat: int) -> bool:
        return seat in self.order

    def live_hand(self, seat: int) -> bool:
        return seat in self.order

    def small_blind_seat(self) -> int | None:
        return None

    def rule_dead(self, seat: int | None, ruling: str, reason: str | None) -> dict[str, Any]:
        from tablesvc.core.commands import CommandError

        del seat, reason
        raise CommandError(f"hand {self.number} is not tracked; a {ruling} ruling has nothing "
                           "to act on")

    # ------------------------------------------------------------------ its own
    def cancel_now(self) -> None:
        """A void hand after the misdeal window: cancelled at once, every chip back
        (DECK-04/05, A-08); the rest of the physical hand is swallowed until NEWHAND."""
        if self.ended is None:
            self._emit_end("cancelled")

    def landed(self, zone: str, uid: str) -> None:
        d = self.deferred
        if d is None or d.uid != uid:
            return
        self.deferred = None
        seat = int(zone[1:]) if zone.startswith("S") and zone[1:].isdigit() else None
        self._raise(d, seat, f"it landed at seat {seat}" if seat is not None
                    else f"it reached {zone}")

    def _raise(self, d: DeferredAlert, seat: int | None, where: str) -> None:
        d.raise_alert(self.out, seat, where, {**d.evidence, "seat": seat})

    def _finish(self, reason: str) -> None:
        if self.ended is None:
            self._emit_end(reason)
        self.over = True

    def _emit_end(self, reason: str) -> None:
        """``hand_ended``: a void hand's stacks go back to the start; an untracked hand's
        are whatever the table last knew, marked unverified for the seats dealt in."""
        table = self.table
        players = table.players
        if self.kind == "void" or reason == "misdeal":
            for seat, stack in self.start_stacks.items():
                if seat in players:
                    players[seat].stack = stack
        else:
            table.unverified.update(s for s in (self.order or tuple(players))
                                    if s in players and s not in self.counted)
            table.carry_known = False  # it may have been won, or checked out and carried
        seats = self.order or tuple(sorted(players))
        self.out.emit(ev.HandEnded, hand=self.number, reason=reason,
                      stacks=[ev.SeatInfo.trusted(seat=s, name=players[s].name,
                                                  stack=players[s].stack,
                                                  unverified=s in table.unverified)
                              for s in seats if s in players],
                      board=[], cards_used=0)
        self.ended = reason
