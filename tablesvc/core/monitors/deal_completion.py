"""The deal is complete and counted (DEAL-03, MISDEAL-05), for games dealt in one go.

When the last hole card reaches its seat the floor hears that betting opens; at the first
action every live seat must hold the game's number of hole cards. One short while no one has
acted is a misdeal unless it can be redressed. One per hand.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from tablesvc.core.emitter import Emitter
from tablesvc.core.monitors.base import Monitor
from tablesvc.core.tracker import Tracker


class Dealing(Protocol):
    """A tracker of a game dealt in one go: it knows whether hole cards are still to come."""

    @property
    def dealing(self) -> bool: ...


WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


class DealCompletion(Monitor):
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "DEAL-03": ("deal_complete", "hole_card_count_error"),
        "MISDEAL-05": ("misdeal_required",),
    }

    def __init__(self, out: Emitter, hole_cards: int) -> None:
        self.out = out
        self.hole_cards = hole_cards
        self.announced = False  # deal_complete said
        self.counted = False  # the counts were checked at the first action

    def dealt(self, tracker: Dealing) -> None:
        """A hole card was dealt: once the tracker expects no more, betting opens."""
        if not self.announced and not tracker.dealing:
            self.announced = True
            self.out.alert("deal_complete", "DEAL-03", "info",
                           f"every seat has its {WORDS[self.hole_cards]} cards: pre-flop "
                           "betting opens")

    def first_action(self, tracker: Tracker, window_open: bool) -> None:
        """Betting began: every live seat must hold exactly the game's hole cards."""
        if self.counted:
            return
        self.counted = True
        n = self.hole_cards
        wrong = {s: tracker.hole_count(s) for s in tracker.active if tracker.hole_count(s) != n}
        if not wrong:
            return
        listing = ", ".join(f"seat {s} has {k}" for s, k in sorted(wrong.items()))
        self.out.alert("hole_card_count_error", "DEAL-03", "warning",
                       f"betting began with a wrong number of hole cards: {listing}",
                       seat=min(wrong) if len(wrong) == 1 else None,
                       remedy="redress now if possible; a seat left short is foul at the "
                       "showdown (DEAL-07), a card too many goes to the burn (DEAL-08)")
        if window_open and any(k < n for k in wrong.values()):
            self.out.alert("misdeal_required", "MISDEAL-05", "critical",
                           f"a player has fewer than {WORDS[n]} hole cards before anyone acted",
                           remedy="redress if possible; otherwise declare the misdeal "
                           "(MISDEAL-02)")
