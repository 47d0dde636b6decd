"""Hold'em's burn and premature-card repairs: what a wrong burn or an early card does to the
expected-movement queue (RULES.md §2.5: R3, R4, R5, R6; D10-D15, D18).

One job: the burn before a street went wrong, or a card left the deck while a betting round
was open. ``BurnRepairs`` keeps what such a repair has in progress and rewrites the hand's
queue (``community.deal_queue``) as the rules say; the tracker (``community.tracker``)
calls it only when a card does not fit the queue, never for a clean card. Rule IDs:

- BURN-03 ``burn_premature`` (R5), with BET-04 ``bb_option_skipped`` when the big blind had
  not used the option;
- BOARD-05 ``premature_card`` and BOARD-01 ``board_card_count_error`` (R6);
- BURN-04 ``burn_missing`` (R3) and BURN-05 ``burn_extra``/``burn_skip_expected`` (R4);
- BURN-07 ``burn_card_disturbed``: a burn card that left the burn stack (``disturbed``).

A burn card put in the wrong zone (BURN-02) and a burn during the deal (BURN-01) are the
tracker's own; a burn card exposed (BURN-06) is in ``tablesvc.core.games.community.exposures``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace

from tablesvc.core.card_flow import CardRecord, Irregularity, irregularity, seat_of
from tablesvc.core.games.community.deal_queue import (
    STREET_SIZE,
    Burned,
    Expect,
    Outcome,
    StreetName,
    tag_head,
)

# Rule ID -> the alerts raised here (docs/RULES-COVERAGE.md is generated from it).
RULES: dict[str, tuple[str, ...]] = {
    "BURN-03": ("burn_premature",),
    "BURN-04": ("burn_missing",),
    "BURN-05": ("burn_extra", "burn_skip_expected"),
    "BURN-07": ("burn_card_disturbed",),
    "BOARD-01": ("board_card_count_error",),
    "BOARD-05": ("premature_card",),
    "BET-04": ("bb_option_skipped",),
}


def disturbed(rec: CardRecord, zone: str) -> Irregularity:
    """D18: burn card ``rec`` left the burn stack and was read at ``zone`` (BURN-07)."""
    return irregularity("burn_card_disturbed", "BURN-07", "warning", seat_of(zone), rec, None,
                        zone, f"burn card #{rec.index} left the burn stack",
                        "floor: nobody may look at burn cards; warning or penalty (CONDUCT-02)")


@dataclass(slots=True)
class BurnRepairs:
    """The burn and premature-card repairs in progress in one hand."""

    early_burn: str | None = None  # R5: burned while the round was open
    premature: list[str] = field(default_factory=list)  # R6: Rset (uids), in order
    premature_street: StreetName | None = None
    retracted_burned: set[str] = field(default_factory=set)
    r6_pending: bool = False
    missing_burn: list[str] = field(default_factory=list)  # R3: the street's cards so far
    missing_street: StreetName | None = None
    extra_burn: str | None = None  # R4: the second burn card
    skipped_burn: Expect | None = None  # R4(b): the next street's burn, removed

    # --- D10, D11, D15: a card while a betting round is open ------------------------
    def round_open(self, queue: deque[Expect], zone: str, uid: str, rec: CardRecord,
                   street: str, board_dealt: bool, bb_pending: bool) -> list[Outcome]:
        """A card reached BURN or BOARD (or elsewhere) before the round on ``street`` was
        complete; ``board_dealt``: a board card is already out (a fourth flop card, D15)."""
        head = queue[0]
        if zone == "BURN" and not self.premature:  # D10 -> R5
            self.early_burn = uid
            if head.dest == "BURN":
                tag_head(queue, uid)
            out: list[Outcome] = [irregularity(
                "burn_premature", "BURN-03", "warning", None, rec, None, zone,
                f"card #{rec.index} was burned before the betting round was complete",
                f"Burn Card zurück: put card #{rec.index} back on top of the deck; it is burned "
                "again when the round is complete")]
            if bb_pending:
                out.append(irregularity(
                    "bb_option_skipped", "BET-04", "critical", None, rec, None, zone,
                    "the big blind has not used the option yet",
                    "stop dealing; the big blind checks or raises before any card is dealt"))
            return out
        if zone == "BOARD":  # D11 / D15 -> R6
            first = not self.premature
            self.premature.append(uid)
            self.premature_street = head.street
            self.r6_pending = True
            if not first:
                return []
            count_error = self.early_burn is None and board_dealt
            if self.early_burn is not None and head.tag == self.early_burn:
                # the burn before the premature cards stays burned and does not count
                queue[0] = replace(head, tag=None)
            return [irregularity(
                "board_card_count_error" if count_error else "premature_card",
                "BOARD-01" if count_error else "BOARD-05", "critical", None, rec, None, zone,
                (f"card #{rec.index} was placed on the board after the {street}"
                 if count_error else
                 f"card #{rec.index} was dealt to the board before the betting round was "
                 "complete"),
                "take the premature card(s) back; finish the betting round; then burn as many "
                "cards as players are left, counting the cards taken back, burn one more card "
                f"and deal the {head.street} (BOARD-05)")]
        return [irregularity("burn_premature", "BURN-03", "warning", None, rec, None, zone,
                             f"card #{rec.index} left the deck before the betting round was "
                             "complete", "put the card back on top of the deck")]

    def close_premature(self, queue: deque[Expect], players: int) -> None:
        """R6: the round is over; P players left: Rset -> BURN, E more burns, the burn, street."""
        self.r6_pending = False
        if players <= 1:
            queue.clear()
            return
        extra = max(0, players - len(self.premature))
        head = queue[0]
        street = head.street
        queue[0] = replace(head, gate=False, tag=None)
        for _ in range(extra):
            queue.appendleft(Expect("BURN", street))
        queue[0] = replace(queue[0], gate=True)

    def burned_back(self, uid: str, rec: CardRecord, street: StreetName) -> Burned | None:
        """R6: a premature card taken back is burned (once); None if ``uid`` is none of them."""
        if uid not in self.premature or uid in self.retracted_burned:
            return None
        self.retracted_burned.add(uid)
        return Burned(self.premature_street or street, rec.index)

    # --- D12-D14: burn errors ------------------------------------------------------
    def missing(self, queue: deque[Expect], zone: str, rec: CardRecord) -> Irregularity:
        """D12 -> R3(b): finish the street, then the late burn (either timing, A-10). The
        card itself then serves the street's first board entry."""
        street = queue.popleft().street
        n = 0
        while n < len(queue) and queue[n].dest == "BOARD" and queue[n].street == street:
            n += 1
        queue.insert(n, Expect("BURN", street))
        self.missing_street, self.missing_burn = street, []
        return irregularity(
            "burn_missing", "BURN-04", "critical", None, rec, "BURN", zone,
            f"card #{rec.index} went to the board without a burn before the {street}",
            "redress if possible: put the board cards back on the deck in their original "
            "order, then burn and deal; otherwise finish the street and burn the next card "
            "right after it (BURN-04)")

    def redress_missing(self, queue: deque[Expect], cards: dict[str, CardRecord],
                        board: list[str], street_cards: list[str], street: str) -> None:
        """R3(a): once every card of the street is back, the first goes to BURN, the rest to
        BOARD in order, and the deck fills the street. ``board`` and ``street_cards`` are the
        hand's, given back the cards; ``street`` is the last street announced."""
        missing = self.missing_street
        if missing is None:
            return
        back = [u for u in self.missing_burn if cards[u].zone == "DECK"]
        if len(back) < len(self.missing_burn) or street == missing:
            return  # not all back yet (or the street was already announced)
        for u in self.missing_burn:
            board.remove(cards[u].card)
            street_cards.remove(cards[u].card)
        while queue and queue[0].street == missing and \
                not (queue[0].dest == "BURN" and queue[0].gate):
            queue.popleft()
        tags = list(self.missing_burn)
        front = [Expect("BURN", missing, tag=tags[0])]
        front += [Expect("BOARD", missing, tag=t) for t in tags[1:]]
        front += [Expect("BOARD", missing) for _ in range(STREET_SIZE[missing] - len(tags) + 1)]
        queue.extendleft(reversed(front))
        self.missing_street, self.missing_burn = None, []

    def extra(self, queue: deque[Expect], zone: str, uid: str, rec: CardRecord) -> Irregularity:
        """D13 -> R4(b): deal the street from the following cards; skip the next burn."""
        self.extra_burn = uid
        street = queue[0].street
        nxt = next((i for i, e in enumerate(queue)
                    if e.street != street and e.dest == "BURN" and e.gate), None)
        if nxt is not None:
            self.skipped_burn = queue[nxt]
            del queue[nxt]
            queue[nxt] = replace(queue[nxt], gate=True)
            remedy = ("redress if possible: put the second burn card back on top of the deck; "
                      "otherwise deal the street from the following cards and burn no card "
                      "before the next street (BURN-05)")
        else:
            remedy = ("redress if possible: put the second burn card back on top of the deck; "
                      "otherwise deal the river from the following card; the river stays "
                      "shifted by one (A-10)")
        return irregularity("burn_extra", "BURN-05", "warning", None, rec, "BOARD", zone,
                            f"card #{rec.index} was a second burn before the {street}", remedy)

    def extra_returned(self, queue: deque[Expect], uid: str) -> None:
        """R4(a): the second burn card is back on the deck: it goes to the board, and the next
        street's burn is due again."""
        self.extra_burn = None
        burn, self.skipped_burn = self.skipped_burn, None
        if burn is not None:
            for i, e in enumerate(queue):
                if e.street == burn.street and e.gate:
                    queue[i] = replace(e, gate=False)
                    queue.insert(i, burn)
                    break
        tag_head(queue, uid)

    def skip_expected(self, queue: deque[Expect], zone: str, uid: str,
                      rec: CardRecord) -> Irregularity:
        """D14: a burn although the skip is pending: the card goes back and then to BOARD."""
        self.skipped_burn = None
        tag_head(queue, uid)
        return irregularity(
            "burn_skip_expected", "BURN-05", "warning", None, rec, "BOARD", zone,
            f"card #{rec.index} was burned, but no burn is due before the {queue[0].street} "
            "(a second burn was taken before)",
            f"Burn Card zurück: put card #{rec.index} back on top of the deck and deal it as "
            f"the {queue[0].street}")
