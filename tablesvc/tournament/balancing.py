"""Balancing: which player moves from the fullest table to the shortest, by the seeds' rules.

Seed 000 §Balancing the tables gives two variants, and the venue picks one
(``balancing.variant``):

1. TABLE-03 (A-33): "the player in the same position" at the fuller table moves to the free
   seat at the short table. Position is counted in seats clockwise from each table's big
   blind, the only reference both tables share.
2. TABLE-04 (A-34): the player after the big blind (UTG, the next big blind) at the fuller
   table moves to the free seat "farthest from the big blind" at the short table, read as the
   seat that gets the big blind soonest: he cannot escape the blinds by moving.

Neither may put a player between the button and the small blind (TABLE-02). The result is a
suggestion the director carries out or dismisses, so its ``reason`` names the positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tablesvc.tournament.seating import TableSeats, clockwise, eligible_seats, positions

RULE_SAME_POSITION = "TABLE-03"
RULE_UTG = "TABLE-04"


@dataclass(frozen=True)
class Suggestion:
    """One balancing move, with the rule it follows and a sentence saying why this player."""

    player: str
    from_table: str
    from_seat: int
    to_table: str
    to_seat: int
    rule: str
    reason: str


@dataclass(frozen=True)
class _Ref:
    """Where a table's counting starts: its big blind, or seat 1 when that is unknown (the
    reference is then the last seat, so seat 1 is the first one counted)."""

    seat: int
    known: bool
    small_blind: int | None

    def says(self) -> str:
        if self.known:
            return f"its big blind is seat {self.seat}"
        return "its button and blinds are not known, so counted from seat 1"


def suggest(tables: Sequence[TableSeats], variant: int,
            max_difference: int = 1) -> Suggestion | None:
    """The move that balances the open tables, or None when the largest and smallest differ
    by ``max_difference`` players or fewer, or when the short table has no seat a moved player
    may take right now (it will have once the button has moved on).

    The fullest table gives (ties: the lower table id), the shortest takes (ties: lower id).
    """
    if variant not in (1, 2):
        raise ValueError(f"balancing variant {variant!r}: 1 (TABLE-03) or 2 (TABLE-04)")
    if max_difference < 0:
        raise ValueError(f"max_difference {max_difference} must not be negative")
    live = [t for t in tables if t.open]
    if len(live) < 2:
        return None
    full = min(live, key=lambda t: (-len(t.occupied), t.table))
    short = min(live, key=lambda t: (len(t.occupied), t.table))
    if len(full.occupied) - len(short.occupied) <= max_difference:
        return None
    if variant == 1:
        return _same_position(full, short)
    return _utg(full, short)


def _same_position(full: TableSeats, short: TableSeats) -> Suggestion | None:
    """TABLE-03: the target is the eligible vacancy first clockwise after the short table's
    BB; its count from that BB picks the seat at the full table (or the next occupied one)."""
    short_ref, full_ref = _reference(short), _reference(full)
    vacant = set(eligible_seats(short))
    order = clockwise(short, short_ref.seat)
    target = next((s for s in order if s in vacant), None)
    if target is None:
        return None
    count = order.index(target) + 1
    same = clockwise(full, full_ref.seat)[(count - 1) % full.seats]
    seat = next(s for s in [same, *clockwise(full, same)[:-1]] if s in full.occupied)
    player = full.occupied[seat]
    moved = f"seat {seat}" if seat == same else (
        f"seat {same} is empty there, so the next occupied seat clockwise, seat {seat}")
    reason = (f"{_sizes(full, short)}: the free seat {target} at {short.table} is {count} "
              f"seat(s) clockwise from the big blind ({short_ref.says()}); at {full.table} "
              f"the same position ({full_ref.says()}) is {moved}: {player} moves there "
              f"({RULE_SAME_POSITION}).")
    return Suggestion(player, full.table, seat, short.table, target, RULE_SAME_POSITION,
                      reason)


def _utg(full: TableSeats, short: TableSeats) -> Suggestion | None:
    """TABLE-04: the full table's UTG moves to the short table's vacancy that gets the big
    blind soonest, never the small blind's seat, never between button and small blind."""
    short_ref, full_ref = _reference(short), _reference(full)
    seat = next(s for s in clockwise(full, full_ref.seat) if s in full.occupied)
    vacant = set(eligible_seats(short)) - {short_ref.small_blind}
    target = next((s for s in clockwise(short, short_ref.seat) if s in vacant), None)
    if target is None:
        return None
    player = full.occupied[seat]
    reason = (f"{_sizes(full, short)}: {player} in seat {seat} is under the gun at "
              f"{full.table}, the first player after the big blind ({full_ref.says()}), and "
              f"moves to seat {target} at {short.table}, the free seat that gets the big blind "
              f"soonest ({short_ref.says()}) ({RULE_UTG}).")
    return Suggestion(player, full.table, seat, short.table, target, RULE_UTG, reason)


def _reference(t: TableSeats) -> _Ref:
    _, small, big = positions(t)
    if big is None:
        return _Ref(seat=t.seats, known=False, small_blind=small)
    return _Ref(seat=big, known=True, small_blind=small)


def _sizes(full: TableSeats, short: TableSeats) -> str:
    return (f"{full.table} has {len(full.occupied)} players, "
            f"{short.table} has {len(short.occupied)}")
