"""Cards dealt before a draw game to decide seats or the first dealer (SEAT-08, SEAT-09).

Between games the dealer may deal single cards face up to decide who sits where (the seating
draw) or who deals first (the Jack draw). The table routes the cards read at seat zones here
while such a draw runs; nothing here is a game. Pure: told the seat and card, answers with
what the floor should hear.

>>> d = CardDraw("seats")
>>> d.card(1, "Kh"), d.card(2, "Ks"), d.card(3, "Ad")
(None, None, None)
>>> d.finish()
SeatDrawTie(seats=(1, 2), rank='K')
>>> d.card(1, "2c"), d.card(2, "9d")
(None, None)
>>> d.finish()
SeatDrawResult(order=(3, 2, 1))
>>> j = CardDraw("dealer")
>>> j.card(4, "9c"), j.card(5, "Jd")
(None, FirstDealer(seat=5))
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

RANK_ORDER = "23456789TJQKA"  # RANK-01: suits never rank


@dataclass(frozen=True, slots=True)
class SeatDrawTie:
    """Equal ranks: only these players get new cards (SEAT-08)."""

    seats: tuple[int, ...]
    rank: str


@dataclass(frozen=True, slots=True)
class SeatDrawResult:
    """The order in which players choose their seats, highest card first (SEAT-08)."""

    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class FirstDealer:
    """The first player to receive a Jack deals the first game (SEAT-09)."""

    seat: int


@dataclass
class CardDraw:
    """One seating draw (``"seats"``) or one Jack draw for the first dealer (``"dealer"``)."""

    kind: str
    ranks: dict[int, list[int]] = field(default_factory=dict)  # seat -> ranks drawn, in order
    drawing: set[int] | None = None  # after a tie: only these seats draw again
    done: bool = False

    def card(self, seat: int, card: str) -> FirstDealer | None:
        """A card reached ``seat``'s zone during the draw."""
        if self.done or (self.drawing is not None and seat not in self.drawing):
            return None
        self.ranks.setdefault(seat, []).append(RANK_ORDER.index(card[0]))
        if self.kind == "dealer" and card[0] == "J":
            self.done = True
            return FirstDealer(seat)
        return None

    def finish(self) -> SeatDrawTie | SeatDrawResult | None:
        """The dealer closes the round of cards: ties draw again, or the order is final."""
        if self.kind != "seats" or self.done or not self.ranks:
            return None
        key = {s: tuple(r) for s, r in self.ranks.items()}
        ordered = sorted(key, key=lambda s: key[s], reverse=True)
        for a, b in itertools.pairwise(ordered):
            if key[a] == key[b]:
                tied = tuple(sorted(s for s in ordered if key[s] == key[a]))
                self.drawing = set(tied)
                return SeatDrawTie(tied, RANK_ORDER[key[a][-1]])
        self.done = True
        return SeatDrawResult(tuple(ordered))
