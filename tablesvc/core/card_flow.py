"""What a game's card flow answers with, shared by every game: the records of one hand's cards.

A hand's tracker (``tablesvc.core.holdem``, ``tablesvc.core.draw``) is told what the sensors saw
and answers in poker terms: a card dealt to a seat, a fold, an irregularity the rules name, a
card after the hand's end. The session turns these answers into events. What only one game
has (a burn, a board card, a draw) stays with that game.
"""

from __future__ import annotations

from dataclasses import dataclass


# What the hand answers with. The session turns them into events.
# not frozen: one is made for every card dealt, and a frozen dataclass's __init__ (a setattr call
# per field) cost a measurable share of it; nothing changes one once it is made
@dataclass(slots=True)
class Dealt:
    seat: int
    n: int
    index: int
    card: str
    face_up: bool
    hole: tuple[str, ...] | None  # the seat's full hole cards once complete (secure)


@dataclass(frozen=True, slots=True)
class Folded:
    seat: int


@dataclass(frozen=True, slots=True)
class Irregularity:
    """A card movement the rules name (RULES.md §2.4); one alert for the table to raise.

    ``message`` is for floor staff and names deck indices and seats only, never a card; the
    card itself is in ``card`` for the secure evidence.
    """

    name: str  # alert name from RULES.md §5
    rule: str  # RULES.md rule ID
    severity: str  # "info" | "warning" | "critical"
    seat: int | None
    index: int  # deck index of the card concerned
    card: str  # secure evidence only
    expected: str | None  # "S2", "BURN", "BOARD"; None = no card expected
    observed: str
    message: str
    remedy: str



@dataclass(frozen=True, slots=True)
class CardAfterEnd:
    zone: str
    card: str


@dataclass(slots=True)
class CardRecord:
    index: int
    card: str
    face_up: bool
    zone: str | None = None  # None while between the shoe and a zone; "DECK" once returned
    lifted_from: str | None = None  # debounce: the zone it was last lifted from (``depart``)
    lifted_ms: int | None = None


def deal_order(seats: tuple[int, ...], button: int) -> tuple[int, ...]:
    """Seats clockwise starting with the first one left of the button (the button last).

    >>> deal_order((2, 5), 5)
    (2, 5)
    >>> deal_order((1, 3, 4, 7), 3)
    (4, 7, 1, 3)
    """
    ordered = sorted(seats)
    after = [s for s in ordered if s > button]
    before = [s for s in ordered if s <= button]
    return tuple(after + before)
