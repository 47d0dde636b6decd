"""Main and side pots, and who gets how much of each (RULES.md POT-01 to POT-04, POT-07/08).

The pots are computed from the whole hand's contributions, not round by round, so one
function serves an all-in on any street and an uncontested hand alike. Folded and foul seats'
chips stay in the pots they reached (POT-08) but those seats can win nothing (POT-02).

T18 of RULES.md §4: S1 all-in for 300, S2 for 800, S3 covers.

>>> build_pots({1: 300, 2: 800, 3: 800}, live=[1, 2, 3])
[Pot(amount=900, eligible=(1, 2, 3)), Pot(amount=1000, eligible=(2, 3))]

T19: 1 025 split between S2 and S6 in chips of 25, button at S4: the odd chip goes to S6.

>>> award_pots([Pot(1025, (2, 6))], {2: 5, 6: 5}, button=4,
...            seats_clockwise=[1, 2, 3, 4, 5, 6], unit=25)[0].shares
{6: 525, 2: 500}
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class Comparable(Protocol):
    """A hand strength: only ``<`` is used, so equal strengths tie whatever else they hold."""

    def __lt__(self, other: Any, /) -> bool: ...


@dataclass(frozen=True, slots=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]  # live seats that can win it (sorted by seat)


@dataclass(frozen=True, slots=True)
class Award:
    """One pot's outcome. ``pot`` 0 is the main pot (the one everyone can win, POT-01)."""

    pot: int
    amount: int
    winners: tuple[int, ...]  # sorted by seat
    shares: dict[int, int]  # seat -> chips, clockwise from the button
    odd_chip_seat: int | None  # who got the indivisible remainder, if any


def build_pots(contributions: Mapping[int, int], live: Collection[int]) -> list[Pot]:
    """The main pot and the side pots, smallest level first (POT-01).

    Every distinct total of a live seat is a level; pot k takes from every seat, folded ones
    included, what it put in between level k-1 and level k, and only live seats that reached
    level k can win it. A top layer only one live seat reached (a bet nobody called) is its
    own pot with him alone eligible: it goes back to him. Chips of folded seats above the
    highest live level (a foul hand's bets, POT-08) stay in the top pot.

    >>> build_pots({1: 200, 2: 1000, 3: 600}, live=[2, 3])  # seat 1 folded; 400 uncalled
    [Pot(amount=1400, eligible=(2, 3)), Pot(amount=400, eligible=(2,))]
    """
    bad = {s: c for s, c in contributions.items() if c < 0}
    if bad:
        raise ValueError(f"negative contributions for seat(s) {sorted(bad)}")
    live_seats = set(live)
    if not live_seats:
        raise ValueError("no live seat: nobody can win the pot")
    levels = sorted({contributions.get(s, 0) for s in live_seats} - {0})
    if not levels:
        raise ValueError(f"the live seats {sorted(live_seats)} put no chips in: nobody can win")
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in contributions.values())
        eligible = tuple(sorted(s for s in live_seats if contributions.get(s, 0) >= level))
        pots.append(Pot(amount, eligible))
        previous = level
    above = sum(max(0, c - previous) for c in contributions.values())
    if above:
        top = pots[-1]
        pots[-1] = Pot(top.amount + above, top.eligible)
    return pots


def award_pots(pots: Sequence[Pot], strength: Mapping[int, Comparable], button: int,
               seats_clockwise: Sequence[int], unit: int) -> list[Award]:
    """Who wins each pot and how much (POT-02, POT-03, POT-04, A-42).

    The best strength among a pot's eligible seats wins it; equal strengths split it in
    multiples of ``unit`` (the smallest chip in play), and whatever cannot be split goes whole
    to the winner first clockwise from the button. Each pot is split on its own. A pot with one
    eligible seat goes to him without comparing hands (an uncalled bet, or POT-07).

    ``seats_clockwise`` is the table's seats in clockwise order. If the button's seat is among
    them, clockwise starts after it; otherwise (a dead button on an empty seat) the list must
    already start at the first seat left of the button, as the deal order s_1..s_N does.
    """
    if unit <= 0:
        raise ValueError(f"the chip unit must be positive, got {unit}")
    ring = list(seats_clockwise)
    if button in ring:
        i = ring.index(button)
        ring = ring[i + 1:] + ring[:i + 1]
    position = {seat: n for n, seat in enumerate(ring)}
    awards: list[Award] = []
    for k, pot in enumerate(pots):
        if not pot.eligible:
            raise ValueError(f"pot {k} of {pot.amount} has no eligible seat")
        winners = _winners(k, pot, strength)
        lost = [s for s in winners if s not in position]
        if lost:
            raise ValueError(f"winner seat(s) {lost} of pot {k} are not in the seats {ring}")
        winners.sort(key=position.__getitem__)
        share = pot.amount // unit // len(winners) * unit
        remainder = pot.amount - share * len(winners)
        shares = {s: share for s in winners}
        odd = winners[0] if remainder else None
        if odd is not None:
            shares[odd] += remainder
        awards.append(Award(k, pot.amount, tuple(sorted(winners)), shares, odd))
    return awards


def _winners(k: int, pot: Pot, strength: Mapping[int, Comparable]) -> list[int]:
    if len(pot.eligible) == 1:
        return list(pot.eligible)
    missing = [s for s in pot.eligible if s not in strength]
    if missing:
        raise ValueError(f"no hand strength for seat(s) {missing}, eligible for pot {k}")
    best = pot.eligible[0]
    for s in pot.eligible[1:]:
        if strength[best] < strength[s]:
            best = s
    return [s for s in pot.eligible if not strength[s] < strength[best]]
