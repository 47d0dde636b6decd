"""The dealer's showdown inputs checked against the hands (SHOW-03..08, POT-05/06).

The console reports a hand tabled (``SHOWN``), its announced value (``ANNOUNCED``), the pot
being awarded (``AWARD``) and a player's objection (``OBJECTION``). The core already knows every
hand, so it can tell the dealer when an announcement overstates or misnames a hand, when the
pot is pushed to the wrong seat, or when a winner has not shown. One per hand.
"""

from __future__ import annotations

from typing import ClassVar

from tablesvc.core.emitter import Emitter
from tablesvc.core.ledger import Ledger
from tablesvc.core.ledger_outcomes import Settled
from tablesvc.core.monitors.base import Monitor
from tablesvc.core.tracker import Tracker

CATEGORY_WORDS = ("high card", "pair", "two pair", "three of a kind", "straight", "flush",
                  "full house", "four of a kind", "straight flush", "royal flush")


class ShowdownConsole(Monitor):
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "POT-05": ("pot_award_mismatch",),
        "POT-06": ("late_objection",),
        "SHOW-03": ("both_cards_required",),
        "SHOW-04": ("both_cards_required",),
        "SHOW-05": ("winner_not_shown",),
        "SHOW-06": ("hand_announcement_mismatch",),
        "SHOW-07": ("misannounced_hand", "folded_hand_recoverable"),
        "SHOW-08": ("tabled_hand_mucked",),
    }

    def __init__(self, out: Emitter, qualification_table: bool, folds_recoverable: bool,
                 hole_cards: int = 2) -> None:
        self.out = out
        self.hole_cards = hole_cards  # what a hand shown whole is (two in hold'em, four in Omaha)
        self.qualification_table = qualification_table
        self.folds_recoverable = folds_recoverable  # the game's folded hands can come back
        self.shown: dict[int, int] = {}  # seat -> hole cards tabled at the showdown (SHOW-05)
        self.announced: set[int] = set()  # seats whose hand the dealer announced (SHOW-08)
        self.awarded = False  # the dealer awarded the pot (POT-05/06)

    def console(self, name: str, args: list[str], ledger: Ledger | None,
                tracker: Tracker | None, in_hand: bool) -> None:
        seat = int(args[0]) if args and args[0].isdigit() else None
        if name == "OBJECTION":
            if self.awarded or not in_hand:
                self.out.alert("late_objection", "POT-06", "info",
                               f"seat {seat} objected after the pot was awarded: the award "
                               "stands", seat=seat, remedy="nothing changes; objections come "
                               "before the award")
            return
        if ledger is None or tracker is None or seat is None or not in_hand:
            return
        settled = ledger.settled
        if name == "SHOWN":
            count = int(args[1]) if len(args) > 1 and args[1].isdigit() else self.hole_cards
            self.shown[seat] = count
        elif name == "ANNOUNCED" and len(args) > 1:
            self._announced(seat, args[1], settled, tracker)
        elif name == "AWARD":
            self._award_checked(seat, settled, tracker)

    def mucked(self, owner: int | None) -> None:
        """A hand's cards reached the muck before the award."""
        if self.awarded or owner is None or owner not in self.announced:
            return
        self.announced.discard(owner)  # one note per hand is enough
        self.out.alert("tabled_hand_mucked", "SHOW-08", "info",
                       f"seat {owner}'s hand was tabled and announced, then thrown away: "
                       "it stays in contention", seat=owner,
                       remedy="take the cards back out; the hand is valid")

    def _announced(self, seat: int, words: str, settled: Settled | None,
                   tracker: Tracker) -> None:
        shown = next((s for s in settled.showdown if s.seat == seat), None) if settled else None
        self.announced.add(seat)
        self.shown.setdefault(seat, self.hole_cards)
        category = words.lower().replace("_", " ").replace("-", " ")
        if category == "royal flush":
            said = len(CATEGORY_WORDS)
        elif category in CATEGORY_WORDS:
            said = CATEGORY_WORDS.index(category) + 1
        else:
            self.out.note("warning", "unknown hand category announced", announced=words)
            return
        if shown is None:
            return
        actual = shown.value.key[0] + (1 if shown.value.name == "royal flush" else 0)
        if said == actual:
            return
        if said > actual:
            self.out.alert("misannounced_hand", "SHOW-07", "warning",
                           f"seat {seat}'s hand was announced as {category}, but it is "
                           f"{shown.value.category}", seat=seat,
                           remedy="the cards speak: correct the announcement; hands folded "
                           "because of it may come back if they never touched the muck")
            if self.folds_recoverable:
                back = [s for s in tracker.order if s in tracker.folded and tracker.cards_of(s)
                        and all(r.zone != "MUCK" for r in tracker.cards.values()
                                if r.card in tracker.cards_of(s))]
                if back:
                    self.out.alert("folded_hand_recoverable", "SHOW-07", "info",
                                   "folded hands never read at the muck: "
                                   + ", ".join(f"seat {s}" for s in back))
        else:
            self.out.alert("hand_announcement_mismatch", "SHOW-06", "warning",
                           f"seat {seat}'s hand was announced as {category}, but it is "
                           f"{shown.value.category}", seat=seat,
                           remedy="the dealer corrects the announcement; the cards speak")

    def _award_checked(self, seat: int, settled: Settled | None, tracker: Tracker) -> None:
        """POT-05, SHOW-05, SHOW-03/04: the dealer's award against the computed result."""
        self.awarded = True
        if settled is None:
            self.out.alert("pot_award_mismatch", "POT-05", "critical",
                           f"the pot is being awarded to seat {seat} before the hand is "
                           "decided", seat=seat, remedy="stop the push; finish the hand first")
            return
        winners = {s for a in settled.awards for s in a.winners}
        if seat not in winners:
            self.out.alert("pot_award_mismatch", "POT-05", "critical",
                           f"the pot is being awarded to seat {seat}; the hands say "
                           + ", ".join(f"seat {w}" for w in sorted(winners)), seat=seat,
                           remedy="stop the push: the dealer or floor checks the hands and "
                           "awards the pot correctly (before the push is finished, POT-06)")
        if settled.uncontested:
            return
        board = set(tracker.board)
        for w in sorted(winners):
            shown = self.shown.get(w)
            if shown is None:
                self.out.alert("winner_not_shown", "SHOW-05", "warning",
                               f"the pot is awarded, but seat {w}'s winning hand was not shown",
                               seat=w, remedy="the winner shows his hand before the award")
                continue
            value = next((s.value for s in settled.showdown if s.seat == w), None)
            plays_board = value is not None and bool(board) and set(value.best) <= board
            if shown < self.hole_cards and (self.qualification_table or plays_board):
                every = "both" if self.hole_cards == 2 else f"all {self.hole_cards}"
                self.out.alert("both_cards_required", "SHOW-04" if plays_board else "SHOW-03",
                               "warning", f"seat {w} showed {shown} card(s); {every} hole "
                               "cards must be shown" + (" to play the board" if plays_board
                                                        else ""),
                               seat=w, remedy=f"no share of the pot until {every} cards are "
                               "shown")
