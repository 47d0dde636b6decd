"""Hold'em's exposed and boxed cards: a hole card seen face up, a face-up card found in the
deck, a burn card shown (RULES.md §2.5: D2, D4, D16; R1, R2).

One job: what an exposure does to the hand. ``Exposures`` keeps the exposed and boxed cards
of one hand and rewrites the hand's queue (``community.deal_queue``) as the rules say; the
tracker (``community.tracker``) calls it for the console's ``EXPOSED``/``BOXED`` inputs, for
a card dealt face up, and while an exposed card waits to serve as the flop burn. Rule IDs:

- MISDEAL-12 ``card_exposed`` (R1: the seat gets a replacement, the exposed card is the burn
  before the flop) and ``exposed_card_not_replaced`` (D16: a deck card burned instead);
- EXPOSE-02 ``card_exposed`` and EXPOSE-03 ``exposed_card_kept`` after the misdeal window;
- EXPOSE-04 ``boxed_card`` (R2: it stays burned, the seat gets the next card);
- BURN-06 ``burn_card_exposed``;
- MISDEAL-07 and MISDEAL-08: a second exposed or boxed card while no player has acted is a
  misdeal, which the hand declares (``Dealing.require_misdeal``, R10).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Protocol

from tablesvc.core.card_flow import CardRecord, Irregularity, irregularity, seat_of, where
from tablesvc.core.games.community.deal_queue import Burned, Expect, Outcome

# Rule ID -> the alerts raised here (docs/RULES-COVERAGE.md is generated from it).
RULES: dict[str, tuple[str, ...]] = {
    "EXPOSE-02": ("card_exposed",),
    "EXPOSE-03": ("exposed_card_kept",),
    "EXPOSE-04": ("boxed_card",),
    "MISDEAL-12": ("card_exposed", "exposed_card_not_replaced"),
    "BURN-06": ("burn_card_exposed",),
}


class Dealing(Protocol):
    """What an exposure needs of the hold'em hand: its queue, its cards, and the misdeal."""

    queue: deque[Expect]
    cards: dict[str, CardRecord]
    hole: dict[int, list[str]]

    def require_misdeal(self, rec: CardRecord, seat: int | None, rule: str,
                        message: str) -> Irregularity:
        """R10: the hand is void; every card goes to the collection."""
        ...


@dataclass(slots=True)
class Exposures:
    """The exposed hole cards and boxed cards of one hand, in order."""

    exposed: list[str] = field(default_factory=list)  # D4: exposed hole cards, in order
    boxes: list[str] = field(default_factory=list)  # D2: boxed cards, in order
    boxed_pending: tuple[str | None, bool] | None = None  # D2 input before the card: (uid, window)
    wrong_burn: str | None = None  # D16: a deck card burned instead of the exposed card

    # --- the console --------------------------------------------------------------
    def reported(self, hand: Dealing, uid: str, rec: CardRecord,
                 window_open: bool) -> list[Outcome]:
        """``EXPOSED``: card ``rec`` (in a zone) was seen face up. A burn card is shown and
        stays burned (BURN-06); a hole card is D4 (``expose``)."""
        if rec.zone == "BURN":
            return [irregularity("burn_card_exposed", "BURN-06", "info", None, rec, None,
                                 "BURN", f"burn card #{rec.index} was exposed",
                                 "show it to all players, then burn it face down; nothing "
                                 "else changes")]
        seat = seat_of(rec.zone)
        if seat is None or seat not in hand.hole:
            return []
        return self.expose(hand, uid, rec, seat, window_open)

    def boxed_reported(self, hand: Dealing, uid: str | None,
                       window_open: bool) -> list[Outcome]:
        """``BOXED``: a face-up card in the deck (D2); ``uid`` None: the card burned during the
        deal that waits for its confirmation (D3), or else the next card out that is burned."""
        queue = hand.queue
        if uid is None:
            head = queue[0] if queue else None
            if head is not None and head.tag is not None and head.dest.startswith("S") \
                    and hand.cards[head.tag].zone == "BURN":
                uid = head.tag
        rec = hand.cards.get(uid) if uid is not None else None
        if uid is not None and uid in self.boxes:
            return []  # confirmed twice
        if rec is None or rec.zone in (None, "DECK"):
            self.boxed_pending = (uid, window_open)  # the card is still to come
            return []
        if rec.zone == "BURN" and uid is not None:
            return self.box(hand, uid, rec, window_open)
        seat = seat_of(rec.zone)
        if uid is not None and seat is not None and seat in hand.hole:
            return self.expose(hand, uid, rec, seat, window_open)  # dealt face up: exposed
        return []

    # --- D4: a hole card exposed --------------------------------------------------
    def expose(self, hand: Dealing, uid: str, rec: CardRecord, seat: int,
               window_open: bool) -> list[Outcome]:
        """D4: hole card ``uid`` at ``seat`` was exposed."""
        if uid in self.exposed:
            return []  # reported twice (sensor and console): one exposure
        self.exposed.append(uid)
        if not window_open:  # EXPOSE-03 / MISDEAL-14: kept, nothing rewritten
            return [
                irregularity("card_exposed", "EXPOSE-02", "warning", seat, rec, None,
                             rec.zone or "", f"hole card #{rec.index} at seat {seat} was "
                             "exposed after the misdeal window closed",
                             "the player keeps the card (MISDEAL-14)"),
                irregularity("exposed_card_kept", "EXPOSE-03", "info", seat, rec, None,
                             rec.zone or "", f"hole card #{rec.index} at seat {seat} is kept",
                             "it counts as a face-down card for every game purpose")]
        if len(self.exposed) >= 2:
            return [hand.require_misdeal(rec, seat, "MISDEAL-07",
                                         f"a second hole card (#{rec.index}, seat {seat}) was "
                                         "exposed before any player acted")]
        # R1: a replacement after #2N (DEAL_FIX); x becomes the flop burn
        if rec.card in hand.hole[seat]:
            hand.hole[seat].remove(rec.card)
        queue = hand.queue
        last = max((i for i, e in enumerate(queue) if e.dest.startswith("S")), default=-1)
        queue.insert(last + 1, Expect(f"S{seat}", replaces=uid))
        for i, e in enumerate(queue):
            if e.dest == "BURN" and e.gate and e.street == "flop":
                queue[i] = replace(e, tag=uid)
                break
        return [irregularity(
            "card_exposed", "MISDEAL-12", "warning", seat, rec, None, rec.zone or "",
            f"hole card #{rec.index} at seat {seat} was exposed during the deal",
            f"leave it at seat {seat} until every other player has his cards; then deal seat "
            f"{seat} the next card and use card #{rec.index} as the burn before the flop")]

    # --- D2: a boxed card ---------------------------------------------------------
    def box(self, hand: Dealing, uid: str, rec: CardRecord,
            window_open: bool) -> list[Outcome]:
        """D2: ``uid`` was a face-up card in the deck and went to BURN."""
        self.boxed_pending = None
        self.boxes.append(uid)
        if len(self.boxes) >= 2 and window_open:
            return [hand.require_misdeal(rec, None, "MISDEAL-08",
                                         f"a second face-up card in the deck (#{rec.index}) "
                                         "before any player acted")]
        queue = hand.queue
        head = queue[0] if queue else None
        if head is not None and head.tag == uid and head.dest.startswith("S"):
            queue[0] = replace(head, tag=None)  # R2: the seat gets the next card
        return [irregularity(
            "boxed_card", "EXPOSE-04", "warning", None, rec, None, "BURN",
            f"card #{rec.index} was face up in the deck and was burned",
            "show it to all players; it stays burned; the seat gets the next card")]

    def burned_in_deal(self, hand: Dealing, uid: str, rec: CardRecord, head: Expect,
                       window_open: bool) -> list[Outcome] | None:
        """A card reached BURN while a seat's card was due: an exposed card burned before its
        replacement (R1), a boxed card (D2), or the replacement itself burned (D16). None:
        none of these, the tracker's deal-order rules decide."""
        if uid in self.exposed:
            return []  # R1: x burned from the deck before its replacement
        pending = self.boxed_pending
        if rec.face_up or (pending is not None and pending[0] in (None, uid)):
            return self.box(hand, uid, rec, pending[1] if pending else window_open)
        if head.replaces is None:
            return None
        hand.queue[0] = replace(head, tag=uid)  # D16: the replacement card was burned
        x = hand.cards[head.replaces]
        return [irregularity(
            "exposed_card_not_replaced", "MISDEAL-12", "warning", None, rec, head.dest, "BURN",
            f"card #{rec.index} was burned; it is the replacement for the exposed card "
            f"#{x.index} at {where(head.dest)}",
            f"give card #{rec.index} to {where(head.dest)}; card #{x.index} is the burn before "
            "the flop")]

    # --- R1: the exposed card as the flop burn ------------------------------------
    def wrong_burn_check(self, hand: Dealing, zone: str, uid: str, rec: CardRecord,
                         head: Expect) -> list[Outcome] | None:
        """D16: the flop burn is due and must be the exposed card, but a deck card was
        burned; None when that is not what happened."""
        tag = head.tag
        if tag is None or tag == uid or tag not in self.exposed or head.dest != "BURN" \
                or zone != "BURN" or hand.cards[tag].zone == "BURN":
            return None
        self.wrong_burn = uid
        x = hand.cards[tag]
        return [irregularity(
            "exposed_card_not_replaced", "MISDEAL-12", "warning", None, rec, "BURN", zone,
            f"card #{rec.index} was burned; the burn before the flop must be the exposed card "
            f"#{x.index}",
            f"put card #{rec.index} back on top of the deck and burn the exposed card "
            f"#{x.index}")]

    def wrong_burn_returned(self, queue: deque[Expect], uid: str) -> bool:
        """D16 remedy: the wrongly burned card is back on the deck; it is the first card of
        the street again. False when ``uid`` is not that card."""
        if uid != self.wrong_burn:
            return False
        self.wrong_burn = None
        i = next((i for i, e in enumerate(queue) if e.dest == "BOARD"), None)
        if i is not None:
            queue[i] = replace(queue[i], tag=uid)
        return True


def take_burn(queue: deque[Expect], rec: CardRecord) -> list[Outcome]:
    """R1: the exposed card serves the flop burn, possibly before pre-flop betting; the
    betting gate passes to the first flop card."""
    head = queue.popleft()
    if head.gate and queue:
        queue[0] = replace(queue[0], gate=True)
    return [Burned(head.street, rec.index)]
