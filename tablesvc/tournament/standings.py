"""Standings: finishing places of busted players, prizes, and the field at a glance.

Places follow the TDA: of two players busted in the same hand, the one who started the hand
with more chips finishes higher; with equal starting stacks they tie, share the better place
number, and split the prizes of the places they cover. Prizes are whole units and always add
up to the pool, so rounding never creates or loses money.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from tablesvc.tournament.structure import Payouts


@dataclass(frozen=True)
class Entry:
    """A registered player; ``place`` is set once he is out, ``stack`` None when unknown."""

    player: str
    name: str
    table: str | None
    seat: int | None
    stack: int | None
    place: int | None


@dataclass(frozen=True)
class Summary:
    """The field for the clock screen; averages over the players still in with a known stack."""

    players_left: int
    average_stack: float
    average_bb: float | None
    chip_leader: Entry | None
    total_chips: int


def bust_places(busted: Mapping[str, int], players_left_before: int) -> dict[str, int]:
    """Finishing places of the players busted in one hand.

    ``busted`` maps each to the stack he started the hand with; ``players_left_before`` is how
    many were in before the hand. The busted take the places players_left_before down to
    players_left_before - len(busted) + 1, the larger starting stack the better place; equal
    stacks share the best place of the ones they cover (10 left, two tie: both 9th).
    """
    if players_left_before < len(busted):
        raise ValueError(f"{len(busted)} busted but only {players_left_before} were left")
    by_stack: dict[int, list[str]] = defaultdict(list)
    for player, stack in busted.items():
        by_stack[stack].append(player)
    places: dict[str, int] = {}
    place = players_left_before - len(busted) + 1
    for stack in sorted(by_stack, reverse=True):
        for player in by_stack[stack]:
            places[player] = place
        place += len(by_stack[stack])
    return places


def prize_pool(payouts: Payouts, entries: int) -> int:
    """The money paid out: the sum of the amounts, or entries x buy-in for percentages."""
    if payouts.amounts is not None:
        return sum(payouts.amounts)
    return payouts.buy_in * entries


def place_prizes(payouts: Payouts, entries: int) -> list[int]:
    """The prize of each paid place, place 1 first. Percentages are rounded down and the
    units left over go to place 1, so the prizes add up to the pool exactly."""
    if payouts.amounts is not None:
        return list(payouts.amounts)
    pool = prize_pool(payouts, entries)
    shares = [Fraction(str(p)) for p in payouts.percent or ()]
    total = sum(shares, Fraction(0))
    if not shares or total == 0:
        return []
    # divided by the shares' own total, not 100: a file within the tolerance still pays all
    amounts = [int(pool * share / total) for share in shares]
    amounts[0] += pool - sum(amounts)
    return amounts


def prizes(payouts: Payouts, entries: int, places: Mapping[str, int]) -> dict[str, int]:
    """Each placed player's prize (0 when unpaid). Players tied on one place split the prizes
    of the places they cover evenly; the odd units go one each to the first of the tie by
    player id."""
    table = place_prizes(payouts, entries)
    tied: dict[int, list[str]] = defaultdict(list)
    for player, place in places.items():
        tied[place].append(player)
    result: dict[str, int] = {}
    for place, group in tied.items():
        covered = sum(table[p - 1] for p in range(place, place + len(group))
                      if 1 <= p <= len(table))
        share, odd = divmod(covered, len(group))
        for i, player in enumerate(sorted(group)):
            result[player] = share + (1 if i < odd else 0)
    return result


def summary(entries: Sequence[Entry], big_blind: int | None) -> Summary:
    """Players left, average stack (chips and big blinds) and the chip leader (ties: the
    lower player id). Players out (with a place) do not count."""
    left = [e for e in entries if e.place is None]
    counted = [e for e in left if e.stack is not None]
    total = sum(e.stack or 0 for e in counted)
    average = total / len(counted) if counted else 0.0
    leader = min(counted, key=lambda e: (-(e.stack or 0), e.player), default=None)
    return Summary(players_left=len(left), average_stack=average,
                   average_bb=average / big_blind if big_blind and counted else None,
                   chip_leader=leader, total_chips=total)
