"""String bets (BET-10): a raise without a declaration must come in one motion.

The monitor watches the chips that arrive in each bet zone beyond what is booked, with the
input time of each arrival; when the action is booked it counts the motions. A raise declared
aloud (the console's ``DECLARE``) may come in several. One per hand: the motions of one hand
say nothing about the next.
"""

from __future__ import annotations

from itertools import pairwise
from typing import ClassVar

from tablesvc.core.emitter import Emitter
from tablesvc.core.ledger_outcomes import Acted
from tablesvc.core.monitors.base import Monitor


class StringBets(Monitor):
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "BET-10": ("string_bet_suspected", "single_chip_treated_as_call"),
    }

    def __init__(self, out: Emitter, motion_ms: int) -> None:
        self.out = out
        self.motion_ms = motion_ms
        # chip motions into each bet zone since the seat's last action: (ms, chips added)
        self.motions: dict[int, list[tuple[int, int]]] = {}
        self.declared: set[int] = set()  # seats that declared a raise aloud

    def chips_added(self, seat: int, ms: int, pieces: int) -> None:
        self.motions.setdefault(seat, []).append((ms, pieces))

    def gathered(self) -> None:
        """The round's bets went into the pot: no motion is pending any more."""
        self.motions.clear()

    def declare(self, seat: int) -> None:
        self.declared.add(seat)

    def acted(self, o: Acted) -> None:
        """A single chip larger than the call, undeclared, counts as a call."""
        d = o.decision
        motions = self.motions.pop(d.seat, [])
        declared = d.seat in self.declared
        self.declared.discard(d.seat)
        if declared or not o.raised or d.action not in ("bet", "raise") or not motions:
            return
        separate = 1 + sum(1 for a, b in pairwise(motions) if b[0] - a[0] > self.motion_ms)
        if separate > 1:
            self.out.alert("string_bet_suspected", "BET-10", "warning",
                           f"seat {d.seat} brought the raise to {d.to} in {separate} motions "
                           "without declaring it", seat=d.seat,
                           remedy="only the first motion counts: if it does not reach a legal "
                           "raise it is a call and the rest goes back; the dealer confirms")
        elif len(motions) == 1 and motions[0][1] == 1 and d.action == "raise":
            self.out.alert("single_chip_treated_as_call", "BET-10", "info",
                           f"seat {d.seat} put in a single chip larger than the call, without "
                           "a declaration", seat=d.seat,
                           remedy="without a declaration a single chip is a call; the dealer "
                           "confirms and returns the excess")
