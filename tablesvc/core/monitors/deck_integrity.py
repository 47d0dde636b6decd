"""Deck integrity (DECK-02..05, MISDEAL-09): every card read belongs to the deck in play.

The deck in play is the deck of the first card read after the shuffle (DESIGN §5), so this
monitor lives from one NEWHAND to the next, hand or no hand: a card read between hands is
checked against the same deck. A tag that is flagged once is not reported again in that time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from tablesvc.core.cards import DeckRegistry
from tablesvc.core.emitter import Emitter
from tablesvc.core.monitors.base import Monitor

if TYPE_CHECKING:
    from tablesvc.core.session import HandSession

FOREIGN_REMEDY = ("remove the card; while no one has acted this is a misdeal (MISDEAL-09); "
                  "after that the floor cancels the hand and every bet goes back (DECK-05, "
                  "A-08); in draw the game is dealt again (DECK-06); replace the deck")


class DeckIntegrity(Monitor):
    """Identifies card tags against the deck in play and checks scanned decks."""

    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "MISDEAL-09": ("deck_defective_foreign_card",),
        "DECK-02": ("deck_defective_foreign_card",),
        "DECK-03": ("deck_defective_missing",),
        "DECK-04": ("deck_defective_duplicate", "deck_defective_extra"),
        "DECK-05": ("deck_defective_foreign_card",),
    }

    def __init__(self, decks: DeckRegistry, out: Emitter) -> None:
        self.decks = decks
        self.out = out
        self.deck_id: str | None = None  # the deck of the first card read
        self.flagged: set[str] = set()  # tags already alerted on

    def identify(self, uid: str, session: HandSession | None) -> str | None:
        """The card of a UID from the deck in play, or None after raising the right alert."""
        if uid in self.flagged:
            return None  # already alerted; one alert per tag is enough
        live = session is not None and session.live
        found = self.decks.lookup(uid)
        if found is None:
            self.flagged.add(uid)
            in_window = session is not None and (session.window_open
                                                 or session.tracker.next_index == 1)
            self.out.alert("deck_defective_foreign_card",
                           "MISDEAL-09" if in_window or not live else "DECK-05", "critical",
                           "a tag that belongs to no enrolled deck was read (a joker, a marker "
                           "or a stray tag)", remedy=FOREIGN_REMEDY, evidence={"uid": uid})
            if session is not None and live:
                session.defect("a card that does not belong to the deck", "MISDEAL-09")
            return None
        deck_id, card = found
        if self.deck_id is None:
            self.deck_id = deck_id
        elif deck_id != self.deck_id:
            self.flagged.add(uid)
            if session is not None and live:
                session.defect(f"a card of deck {deck_id}", "MISDEAL-09")
            window = session is not None and session.window_open
            self.out.alert("deck_defective_foreign_card",
                           "MISDEAL-09" if window else "DECK-05", "critical",
                           f"a card of deck {deck_id} was read; the deck in play is "
                           f"{self.deck_id}", remedy=FOREIGN_REMEDY, cards=[card],
                           evidence={"uid": uid, "deck": deck_id})
            return None
        return card

    def scan(self, uids: list[str], in_hand: bool) -> None:
        """DECK-01/02: a loaded deck's inventory must be 52 distinct cards of one deck."""
        found = [self.decks.lookup(u) for u in uids]
        unknown = sum(1 for f in found if f is None)
        decks = {f[0] for f in found if f is not None}
        cards = [f[1] for f in found if f is not None]
        alert = self.out.alert
        problems = 0
        if unknown or len(decks) > 1:
            problems += 1
            alert("deck_defective_foreign_card", "DECK-02", "critical",
                  f"the deck scan shows {unknown} unknown tag(s) and cards of "
                  f"{len(decks)} deck(s)", remedy="replace the deck before dealing",
                  evidence={"unknown": unknown, "decks": sorted(decks)})
        dup = len(cards) - len(set(cards))
        if dup:
            problems += 1
            alert("deck_defective_duplicate", "DECK-04", "critical",
                  f"the deck scan shows {dup} card(s) twice",
                  remedy="replace the deck; a hand running with it is cancelled (DECK-04)")
        distinct = len(set(cards))
        if distinct > 52 or len(uids) > 52:
            problems += 1
            alert("deck_defective_extra", "DECK-04", "critical",
                  f"the deck scan shows {len(uids)} tags: more than 52",
                  remedy="replace the deck; a hand running with it is cancelled (DECK-04)")
        elif distinct < 52 and not unknown:
            problems += 1
            alert("deck_defective_missing", "DECK-03", "warning" if in_hand else "critical",
                  f"the deck scan shows {distinct} cards: {52 - distinct} missing",
                  remedy="finish the hand (DECK-03), then replace the deck" if in_hand
                  else "find the missing cards or replace the deck before dealing")
        if not problems:
            self.out.note("info", "deck scan complete", deck=next(iter(decks), None), cards=52)
