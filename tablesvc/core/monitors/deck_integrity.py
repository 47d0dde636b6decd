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
    from tablesvc.core.hand import Hand

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
    }

    def __init__(self, decks: DeckRegistry, out: Emitter) -> None:
        self.decks = decks
        self.out = out
        self.deck_id: str | None = None  # the deck of the first card read
        self.flagged: set[str] = set()  # tags already alerted on

    def identify(self, uid: str, hand: Hand | None) -> str | None:
        """The card of a UID from the deck in play, or None for a tag that is not one.

        In a hand that is followed, a tag of no deck or of another deck voids the hand, and
        the hand raises the fault's one alert once the card lands (it names the seat then);
        between hands the alert is raised here, at once. One alert per tag is enough."""
        if uid in self.flagged:
            return None
        found = self.decks.lookup(uid)
        if found is not None and self.deck_id is None:
            self.deck_id = found[0]
        if found is not None and found[0] == self.deck_id:
            return found[1]
        self.flagged.add(uid)
        if found is None:
            what = "a tag of no enrolled deck (a joker, a marker or a stray tag)"
            cards: list[str] = []
            evidence: dict[str, object] = {"uid": uid}
        else:
            what = f"a card of deck {found[0]} (the deck in play is {self.deck_id})"
            cards = [found[1]]
            evidence = {"uid": uid, "deck": found[0]}
        if hand is not None and hand.live:
            hand.defective_card(uid, what, cards, evidence)
            return None
        self.out.alert("deck_defective_foreign_card", "MISDEAL-09", "critical",
                       f"{what} was read between hands", remedy=FOREIGN_REMEDY, cards=cards,
                       evidence=evidence)
        return None

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
