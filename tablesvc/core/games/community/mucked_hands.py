"""Hold'em's live hands in the muck: a hole card of a live hand read at MUCK without a fold,
and the hand taken back out (RULES.md §2.5 D19; SHOW-13).

One job: keep which live hands reached the muck and say when one is whole again. The tracker
(``community.tracker``) calls ``MuckedHands`` only when the table says the seat cannot be
folding (it is not the next to act and has nothing to call); the floor may then rule the hand
foul (``CommunityHand.foul``, POT-08). Rule IDs: SHOW-13 ``live_hand_in_muck`` and
``hand_reconstructed``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tablesvc.core.card_flow import CardRecord, Irregularity, irregularity

# Rule ID -> the alerts raised here (docs/RULES-COVERAGE.md is generated from it).
RULES: dict[str, tuple[str, ...]] = {"SHOW-13": ("live_hand_in_muck", "hand_reconstructed")}


@dataclass(slots=True)
class MuckedHands:
    """seat -> the tags of its live hand now in the muck, in the order they arrived."""

    seats: dict[int, list[str]] = field(default_factory=dict)

    def holds(self, seat: int, uid: str) -> bool:
        return uid in self.seats.get(seat, ())

    def mucked(self, seat: int, uid: str, rec: CardRecord,
               indices: list[int]) -> list[Irregularity]:
        """D19: ``uid`` of seat's live hand (its cards' deck ``indices``) reached the muck."""
        mucked = self.seats.setdefault(seat, [])
        first = not mucked
        mucked.append(uid)
        if not first:
            return []
        tags = ", ".join(f"#{i}" for i in sorted(indices))
        return [irregularity(
            "live_hand_in_muck", "SHOW-13", "critical", seat, rec, f"S{seat}", "MUCK",
            f"the live hand of seat {seat} ({tags}) reached the muck without a fold",
            f"stop; if the hand was protected, take {tags} back out of the muck to seat {seat} "
            "(SHOW-13); otherwise the hand is foul and its bets stay in the pot (POT-08)")]

    def rebuilt(self, seat: int, uid: str, rec: CardRecord,
                cards: dict[str, CardRecord]) -> list[Irregularity]:
        """``uid`` is back at the seat; once none of its cards is in the muck, it plays on."""
        mucked = self.seats[seat]
        mucked.remove(uid)
        if any(cards[u].zone == "MUCK" for u in mucked):
            return []
        del self.seats[seat]
        return [irregularity("hand_reconstructed", "SHOW-13", "info", seat, rec, None,
                             f"S{seat}", f"the hand of seat {seat} is back at the seat",
                             "the hand plays on")]

    def ruled(self, seat: int) -> None:
        """The floor ruled on the hand (foul): nothing is pending for the seat any more."""
        self.seats.pop(seat, None)
