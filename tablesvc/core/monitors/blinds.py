"""The blinds at the deal (SEAT-03, MISDEAL-11): in the right zones, or posted late.

The service posts the blinds from the tracked stacks at NEWHAND; when the first card leaves
the shoe the chips must be in the blind seats' bet zones and in no other seat's. A missing
blind is no misdeal: it is posted after the deal, and the monitor says so once it is in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from tablesvc.core.emitter import Emitter
from tablesvc.core.ledger import Ledger
from tablesvc.core.ledger_outcomes import Posted
from tablesvc.core.monitors.base import Monitor


class Blinds(Monitor):
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "SEAT-03": ("blind_missing", "blind_wrong_seat"),
        "MISDEAL-11": ("blind_posted_late",),
    }

    def __init__(self, out: Emitter) -> None:
        self.out = out
        self.flagged: set[int] = set()  # blind seats flagged blind_missing

    def first_card(self, ledger: Ledger, zones: Mapping[str, int]) -> None:
        """The deal begins: the blinds must be in, and only there."""
        self._wrong_seats(ledger, zones)
        sb, bb = ledger.blind_seats
        blinds = posted_blinds(ledger)
        for seat, posted in ((sb, blinds.get(sb, 0)), (bb, blinds.get(bb, 0))):
            if zones.get(f"B{seat}", 0) < posted:
                self.flagged.add(seat)
                self.out.alert("blind_missing", "SEAT-03", "warning",
                               f"the deal started without the "
                               f"{'small' if seat == sb else 'big'} blind of {posted} in seat "
                               f"{seat}'s bet zone", seat=seat,
                               remedy="not a misdeal (MISDEAL-11): the blind is posted after "
                               "the deal, before that seat acts")

    def _wrong_seats(self, ledger: Ledger, zones: Mapping[str, int]) -> None:
        """SEAT-03: chips before the deal in the bet zone of a seat that posts no blind.

        Heads-up (SEAT-04) both seats dealt in post a blind, so this never happens there."""
        blinds = set(ledger.blind_seats)
        for zone, value in zones.items():
            if value and zone.startswith("B") and zone[1:].isdigit():
                seat = int(zone[1:])
                if seat not in blinds and seat in ledger.order:
                    sb, bb = ledger.blind_seats
                    self.out.alert("blind_wrong_seat", "SEAT-03", "warning",
                                   f"chips ({value}) in seat {seat}'s bet zone before the deal; "
                                   f"the blinds are seats {sb} and {bb}",
                                   seat=seat, remedy="return the chips to the player")

    def zone_changed(self, seat: int, value: int, ledger: Ledger) -> None:
        """A flagged blind seat's zone now holds its blind: posted late (info)."""
        if seat not in self.flagged:
            return
        if value >= posted_blinds(ledger).get(seat, 0):
            self.flagged.discard(seat)
            self.out.alert("blind_posted_late", "MISDEAL-11", "info",
                           f"seat {seat} has now posted its blind", seat=seat)


def posted_blinds(ledger: Ledger) -> dict[int, int]:
    """Seat -> the blind the service posted for it in this hand."""
    return {o.seat: o.amount for o in ledger.history
            if isinstance(o, Posted) and o.action != "post_ante"}


def blinds_button(ledger: Ledger, zones: Mapping[str, int]) -> int | None:
    """The button the bet zones show: exactly two seats of the hand hold chips, the small
    blind and, next clockwise, the big blind (heads-up the small blind is the button); the
    button is the seat before the small blind. None when the zones show no such pair."""
    order = ledger.order  # s_1..s_N, the button last
    betting = [s for s in order if zones.get(f"B{s}", 0) > 0]
    if len(betting) != 2:
        return None
    ring = list(order)
    for sb in betting:
        bb = ring[(ring.index(sb) + 1) % len(ring)]
        if bb in betting and zones[f"B{sb}"] == ledger.small_blind \
                and zones[f"B{bb}"] == ledger.big_blind:
            return sb if len(ring) == 2 else ring[ring.index(sb) - 1]
    return None
