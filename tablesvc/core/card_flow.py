"""What a game's card flow answers with, shared by every game: the records of one hand's cards.

A hand's tracker (``community.tracker``, ``draw5.tracker``) is told what the sensors saw
and answers in poker terms: a card dealt to a seat, a fold, an irregularity the rules name, a
card after the hand's end. The session turns these answers into events. What only one game
has (a burn, a board card, a draw) is a ``GameOutcome`` of that game, which the session hands
back to the game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

# Rule ID -> the alerts raised here for every game (docs/RULES-COVERAGE.md is generated from it).
RULES: dict[str, tuple[str, ...]] = {"BURN-08": ("card_unaccounted",)}


class GameOutcome:
    """An answer of one game's own card flow (a burn, a board card, a draw): the session hands
    it to its game (``Variant.outcome``), the one that knows what it means."""

    __slots__ = ()


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
    also: tuple[str, ...] = ()  # more cards of the same one fault (secure evidence only)


def irregularity(name: str, rule: str, severity: str, seat: int | None, rec: CardRecord,
                 expected: str | None, observed: str, message: str,
                 remedy: str) -> Irregularity:
    """The irregularity ``rec`` proves: its deck index and card go into the evidence."""
    return Irregularity(name, rule, severity, seat, rec.index, rec.card, expected, observed,
                        message, remedy)


def alert(name: str, rule: str, severity: str, seat: int | None, message: str,
          remedy: str) -> Irregularity:
    """An irregularity that no single card proves (an announcement, a count)."""
    return Irregularity(name, rule, severity, seat, 0, "", None, "CONSOLE", message, remedy)


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


def unaccounted(cards: Iterable[CardRecord], place: Callable[[str], str],
                remedy: str) -> list[Irregularity]:
    """BURN-08 (D23): the hand is over and its cards are collected; every card that left the
    shoe must have reached MUCK or be back in the shoe. The cards that are not are one fault
    (a deck not collected, a card taken): one ``card_unaccounted`` (critical) naming every
    one of them by deck index and where it was last read, in deck order."""
    missing = [rec for rec in sorted(cards, key=lambda r: r.index)
               if rec.zone not in ("MUCK", "DECK")]
    if not missing:
        return []
    first = missing[0]

    def last(rec: CardRecord) -> str:
        return "the shoe" if rec.zone is None else place(rec.zone)

    if len(missing) == 1:
        message = f"card #{first.index} was not collected; it was last read at {last(first)}"
    else:
        where_last: dict[str, list[int]] = {}
        for rec in missing:
            where_last.setdefault(last(rec), []).append(rec.index)
        message = (f"{len(missing)} cards were not collected: " + "; ".join(
            ", ".join(f"#{i}" for i in indexes) + f" last read at {zone}"
            for zone, indexes in where_last.items()))
    seats = {seat_of(rec.zone) for rec in missing}
    seat = seats.pop() if len(seats) == 1 else None
    return [Irregularity("card_unaccounted", "BURN-08", "critical", seat, first.index,
                         first.card, "MUCK", first.zone or "SHOE", message, remedy,
                         also=tuple(rec.card for rec in missing[1:]))]


def seat_of(zone: str | None) -> int | None:
    """The seat of a seat zone (``"S3"`` -> 3); None for any other zone or none.

    >>> seat_of("S3"), seat_of("BURN"), seat_of(None)
    (3, None, None)
    """
    if zone and zone.startswith("S") and zone[1:].isdigit():
        return int(zone[1:])
    return None


def where(zone: str | None) -> str:
    """A zone as floor staff read it in a message: ``seat 3``, ``burn``, ``board``."""
    if zone is None:
        return "no card"
    seat = seat_of(zone)
    return f"seat {seat}" if seat is not None else zone.lower()


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


CardOutcome = Dealt | Folded | Irregularity | CardAfterEnd | GameOutcome
"""Everything a tracker answers with (``tablesvc.core.tracker.Tracker``)."""
