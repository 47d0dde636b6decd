"""The stub of a five-card-draw game: the cards left in the shoe, its bottom card and the
reshuffled packs (RULES.md §2.6; DRAW-04, DRAW-05).

One job: know what is in the shoe. The shoe starts with the 52 cards of the deck; the last
card in it is the bottom card and is never dealt (DRAW-04). ``Stub`` counts the cards in the
shoe and knows the bottom card by identity once the first card exposed at the draw was put
under the stub (DRAW-06) or a reshuffled pack was scanned (``DECK``). When a player still
needs cards and only the bottom card is left, the stub is reshuffled with the finished players'
discards (DRAW-05). The draw tracker (``draw5.tracker``) tells it each card in and out and
hands it a scanned pack with the cards that may be in it. Rule IDs:

- DRAW-04 ``bottom_card_dealt``;
- DRAW-05 ``reshuffle_required``, ``reshuffle_ineligible_card``,
  ``reshuffle_composition_deviation``.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field

from tablesvc.core.card_flow import CardRecord, Irregularity, irregularity, seat_of

# Rule ID -> the alerts raised here (docs/RULES-COVERAGE.md is generated from it).
RULES: dict[str, tuple[str, ...]] = {
    "DRAW-04": ("bottom_card_dealt",),
    "DRAW-05": ("reshuffle_required", "reshuffle_ineligible_card",
                "reshuffle_composition_deviation"),
}

DECK_SIZE = 52


@dataclass(slots=True)
class Stub:
    """The shoe of one draw game."""

    in_shoe: int = DECK_SIZE  # cards still in the shoe (the stub)
    bottom: str | None = None  # the bottom card's UID when known
    pack_known: bool = True  # False after cards came back into play without a scan
    reshuffle_flagged: bool = False
    pack: set[str] = field(default_factory=set)  # the scanned reshuffled pack (DRAW-05)
    # every card a reshuffle put back into play in this game: a discard in there belongs to
    # no later pack (a second reshuffle takes only the discards made since the first)
    repacked: set[str] = field(default_factory=set)

    def is_bottom(self, uid: str) -> bool:
        """Would ``uid``, leaving the shoe now, be its bottom card?"""
        return self.bottom == uid or (self.pack_known and self.in_shoe <= 1)

    def bottom_dealt(self, uid: str, rec: CardRecord) -> Irregularity:
        """DRAW-04: the bottom card was dealt at the draw."""
        if self.bottom == uid:
            self.bottom = None
        return irregularity(
            "bottom_card_dealt", "DRAW-04", "critical", None, rec, None, "SHOE",
            f"card #{rec.index} is the bottom card of the stub, which is never dealt",
            "if the player has not seen it, it goes back and the stub is reshuffled "
            "(DRAW-05); otherwise the floor decides")

    def returned(self, uid: str, bottom: bool) -> None:
        """A card went back into the shoe: on top, or under the stub (``bottom``)."""
        self.in_shoe += 1
        if bottom:
            self.bottom = uid

    def short(self, seat: int, need: int) -> list[Irregularity]:
        """DRAW-05: only the bottom card is left and ``seat`` still needs ``need`` cards."""
        if need <= 0 or not self.pack_known or self.in_shoe > 1 or self.reshuffle_flagged:
            return []
        self.reshuffle_flagged = True
        return [Irregularity(
            "reshuffle_required", "DRAW-05", "info", seat, 0, "", None, "CONSOLE",
            f"only the bottom card is left in the stub and seat {seat} needs {need} more",
            "shuffle the bottom card with the discards of the players who have finished their "
            f"exchange (not seat {seat}'s own), cut, and deal on")]

    def unscanned(self, rec: CardRecord, unfinished: bool, discard: bool,
                  exposed: bool) -> list[Irregularity]:
        """A discard came out of the shoe: the stub was reshuffled without a scan.
        ``unfinished``: it is the discard of a player whose exchange is not finished;
        ``discard``: a player's discard at all; ``exposed``: a card exposed at the draw."""
        out: list[Irregularity] = []
        if unfinished:
            out.append(irregularity(
                "reshuffle_ineligible_card", "DRAW-05", "critical", None, rec, "PACK", "SHOE",
                f"card #{rec.index}, a discard of a player who has not finished his exchange, "
                "came out of the reshuffled pack", "rebuild the pack from the bottom card and "
                "the finished players' discards before dealing on"))
        elif not discard and rec.index and not exposed:
            out.append(irregularity(
                "reshuffle_composition_deviation", "DRAW-05", "warning", None, rec, "PACK",
                "SHOE", f"card #{rec.index}, a folded hand's card, came out of the reshuffled "
                "pack", "folded hands stay out of the pack"))
        self.pack_known = False
        return out

    def reshuffle(self, pack: list[str], eligible: Set[str], cards: dict[str, CardRecord],
                  folded_cards: Set[str], hole: dict[int, list[str]]) -> list[Irregularity]:
        """A scanned reshuffled pack (``DECK`` during the draw, DRAW-05): check it against the
        cards that belong in it (``eligible``: the finished players' discards), then deal on
        from it; its last card is the new bottom card. Its cards leave ``hole``."""
        out: list[Irregularity] = []
        eligible = set(eligible) - self.repacked
        ineligible: list[str] = []
        folded: list[str] = []
        for uid in pack:
            rec = cards.get(uid)
            if rec is None or uid in eligible or rec.zone == "DECK":
                continue  # the bottom card (never dealt, or put under the stub) or eligible
            if uid in folded_cards:
                folded.append(uid)
            else:
                ineligible.append(uid)  # a live card, or a discard of a player not finished
        missing = eligible - set(pack)
        if ineligible:
            rec = cards[ineligible[0]]
            out.append(irregularity(
                "reshuffle_ineligible_card", "DRAW-05", "critical", None, rec, "PACK", "PACK",
                f"the reshuffled pack holds {len(ineligible)} card(s) that may not be in it: "
                "live cards, or discards of the player drawing now or of players still to draw",
                "rebuild the pack from the bottom card and the discards of the players who "
                "have finished their exchange, before dealing on"))
        if folded or missing:
            rec = cards[(folded or sorted(missing))[0]]
            out.append(irregularity(
                "reshuffle_composition_deviation", "DRAW-05", "warning", None, rec, "PACK",
                "PACK", f"the reshuffled pack holds {len(folded)} folded card(s) and "
                f"misses {len(missing)} discard(s) that belong in it",
                "rebuild the pack: the bottom card and the finished players' discards only"))
        for uid in pack:
            rec = cards.get(uid)
            if rec is not None:
                seat = seat_of(rec.zone)
                if seat is not None and uid in hole.get(seat, ()):
                    hole[seat].remove(uid)
                rec.zone = "DECK"  # in the shoe again; it comes out as a card of the new pack
                self.pack.add(uid)
        self.repacked.update(pack)
        self.in_shoe = len(pack)
        self.bottom = pack[-1] if pack else None
        self.pack_known = True
        self.reshuffle_flagged = False
        return out
