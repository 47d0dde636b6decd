"""Where players may sit: the seat draw, late seating and breaking a table.

Seats are numbered 1..seats clockwise. A player coming to a table may take any free seat,
including the big blind, the small blind or the button (TABLE-01), except a seat between the
button and the small blind (TABLE-02, A-35): such a seat exists only with a dead button or with
empty seats after the button, and a player there would be skipped by the button he just
missed. Every choice among equal seats is random through the ``rng`` the caller passes, so a
draw can be replayed from its seed; nothing here reads the clock or changes its arguments.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class TableSeats:
    """One table as seating sees it; ``button``/``small_blind``/``big_blind`` are the seats
    of its last (or current) hand, None when unknown."""

    table: str
    seats: int
    occupied: Mapping[int, str]
    button: int | None = None
    small_blind: int | None = None
    big_blind: int | None = None
    open: bool = True


class SeatingError(Exception):
    """A seating the tables cannot take (not enough seats, a player already seated, ...)."""


def clockwise(t: TableSeats, after: int) -> list[int]:
    """Every seat of ``t`` in clockwise order starting after seat ``after`` (it comes last)."""
    return [(after + k - 1) % t.seats + 1 for k in range(1, t.seats + 1)]


def positions(t: TableSeats) -> tuple[int | None, int | None, int | None]:
    """Button, small blind and big blind as far as they are known: the blinds as given, else
    derived from a known button (SB = first occupied seat after it, BB = the next one)."""
    button, small, big = t.button, t.small_blind, t.big_blind
    if button is not None and small is None:
        small = _next_occupied(t, button)
    if small is not None and big is None:
        big = _next_occupied(t, small)
    return button, small, big


def free_seats(t: TableSeats) -> list[int]:
    """The empty seats of ``t``, lowest first."""
    return [s for s in range(1, t.seats + 1) if s not in t.occupied]


def between_button_and_sb(t: TableSeats, seat: int) -> bool:
    """Whether ``seat`` lies strictly between the button and the small blind, clockwise
    (TABLE-02, A-35). False when the button is unknown or is itself the small blind."""
    button, small, _ = positions(t)
    if button is None or small is None or button == small:
        return False
    for s in clockwise(t, button):
        if s == small:
            return False
        if s == seat:
            return True
    return False


def eligible_seats(t: TableSeats) -> list[int]:
    """Free seats a new player may take (TABLE-01 any, TABLE-02 not between button and SB)."""
    return [s for s in free_seats(t) if not between_button_and_sb(t, s)]


def draw(players: Sequence[str], tables: Sequence[TableSeats],
         rng: random.Random) -> dict[str, tuple[str, int]]:
    """The random seat draw over the open tables: table sizes end up differing by at most
    one (as far as the tables' seats allow), the seats at a table are random."""
    _unique(players)
    _not_seated(players, tables)
    order = list(players)
    rng.shuffle(order)
    return _place(order, [t for t in tables if t.open], rng,
                  f"{len(order)} players to draw")


def late_seat(player: str, tables: Sequence[TableSeats],
              rng: random.Random) -> tuple[str, int]:
    """A free eligible seat, at random, at one of the open tables with the fewest players."""
    _not_seated([player], tables)
    return _place([player], [t for t in tables if t.open], rng, f"{player} to seat")[player]


def break_table(table: str, tables: Sequence[TableSeats],
                rng: random.Random) -> dict[str, tuple[str, int]]:
    """Every player of ``table`` to a seat at another open table, the shortest tables first,
    at random among the seats TABLE-01/TABLE-02 allow."""
    broken = [t for t in tables if t.table == table]
    if not broken:
        raise SeatingError(f"there is no table {table}")
    players = [broken[0].occupied[s] for s in sorted(broken[0].occupied)]
    rng.shuffle(players)
    others = [t for t in tables if t.open and t.table != table]
    return _place(players, others, rng, f"table {table} has {len(players)} players")


def _place(players: list[str], tables: list[TableSeats], rng: random.Random,
           what: str) -> dict[str, tuple[str, int]]:
    """Seat ``players`` in this order, each at a table with the fewest players (ties at
    random) on a random eligible seat. The eligible seats do not change as players sit down:
    nobody is put between button and SB, so the derived small blind stays where it was."""
    open_seats = {t.table: eligible_seats(t) for t in sorted(tables, key=lambda t: t.table)}
    room = sum(len(v) for v in open_seats.values())
    if len(players) > room:
        raise SeatingError(f"{what} but the open tables have only {room} free seats a player "
                           "may take (none between button and small blind, TABLE-02)")
    count = {t.table: len(t.occupied) for t in tables}
    result: dict[str, tuple[str, int]] = {}
    for player in players:
        candidates = [name for name, seats in open_seats.items() if seats]
        fewest = min(count[name] for name in candidates)
        name = rng.choice([n for n in candidates if count[n] == fewest])
        seat = rng.choice(open_seats[name])
        open_seats[name].remove(seat)
        count[name] += 1
        result[player] = (name, seat)
    return result


def _next_occupied(t: TableSeats, after: int) -> int | None:
    return next((s for s in clockwise(t, after) if s in t.occupied and s != after), None)


def _unique(players: Sequence[str]) -> None:
    twice = sorted(p for p, n in Counter(players).items() if n > 1)
    if twice:
        raise SeatingError("listed twice: " + ", ".join(twice))


def _not_seated(players: Sequence[str], tables: Sequence[TableSeats]) -> None:
    where = {p: (t.table, s) for t in tables for s, p in t.occupied.items()}
    seated = [f"{p} (already at {where[p][0]} seat {where[p][1]})" for p in players
              if p in where]
    if seated:
        raise SeatingError("already seated: " + ", ".join(seated))
