"""Betting rounds and pots, as the rules define them (RULES.md §2.3, POT-01..04).

Pure bookkeeping, no wire and no chips: the table asks whose turn it is, decides, and tells the
round what happened. This is the simulator's own reading of the rules, written apart from the
tracker's on purpose, so the two can disagree and a test can notice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from enum import StrEnum


class Action(StrEnum):
    CHECK = "check"
    CALL = "call"
    FOLD = "fold"


@dataclass
class BettingRound:
    """One betting round.

    ``order`` is the seats still in the hand, clockwise, starting with the first to act.
    ``bets`` holds what each seat has in front of it already (the blinds pre-flop), ``high`` the
    amount to match (pre-flop the big blind, even when the big blind is all-in for less).
    Blind posts are not actions, so the big blind keeps its option.
    """

    order: Sequence[int]
    stacks: dict[int, int]
    bets: dict[int, int] = field(default_factory=dict)
    high: int = 0
    live: set[int] = field(default_factory=set)
    acted: set[int] = field(default_factory=set)
    _pos: int = 0

    def __post_init__(self) -> None:
        if not self.live:
            self.live = set(self.order)
        for seat in self.order:
            self.bets.setdefault(seat, 0)
        self.high = max([self.high, *self.bets.values()])

    def can_act(self, seat: int) -> bool:
        return seat in self.live and self.stacks[seat] > 0

    def to_call(self, seat: int) -> int:
        return min(self.high - self.bets[seat], self.stacks[seat])

    def _pending(self, seat: int) -> bool:
        return self.can_act(seat) and (seat not in self.acted or self.bets[seat] < self.high)

    @property
    def complete(self) -> bool:
        return self.next_actor() is None

    def next_actor(self) -> int | None:
        """Whose turn it is, or None when the round is over (§2.3)."""
        if len(self.live) <= 1:
            return None
        actors = [s for s in self.order if self.can_act(s)]
        if len(actors) <= 1 and all(self.bets[s] >= self.high for s in actors):
            return None  # nobody left to bet against: all-in run-out (BOARD-06)
        n = len(self.order)
        for i in range(n):
            seat = self.order[(self._pos + i) % n]
            if self._pending(seat):
                self._pos = (self._pos + i) % n
                return seat
        return None

    def legal(self, seat: int) -> tuple[Action, ...]:
        if self.to_call(seat) == 0:
            return (Action.CHECK, Action.FOLD)
        return (Action.CALL, Action.FOLD)

    def act(self, seat: int, action: Action) -> int:
        """Apply the turn's action; returns the chips it moves into the seat's bet zone."""
        if seat != self.next_actor():
            raise ValueError(f"seat {seat} is not the seat to act")
        if action not in self.legal(seat):
            raise ValueError(f"seat {seat} cannot {action} now")
        moved = 0
        if action is Action.FOLD:
            self.live.discard(seat)
        elif action is Action.CALL:
            moved = self.to_call(seat)
            self.bets[seat] += moved
            self.stacks[seat] -= moved
        self.acted.add(seat)
        self._pos = (self._pos + 1) % len(self.order)
        return moved


@dataclass(frozen=True)
class Pot:
    amount: int
    eligible: frozenset[int]


def build_pots(contributions: Mapping[int, int], live: Set[int]) -> list[Pot]:
    """Main pot and side pots (POT-01): cut the contributions at each live seat's total.

    A level that no live seat reached (possible only when live players are all-in below a
    folded player's bet) goes back to those who paid it, as an uncalled bet would.
    """
    levels = sorted({c for s, c in contributions.items() if s in live and c > 0})
    top = max(contributions.values(), default=0)
    if not levels or levels[-1] < top:
        levels.append(top)
    pots: list[Pot] = []
    prev = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, prev) for c in contributions.values())
        eligible = frozenset(s for s in live if contributions.get(s, 0) >= level)
        if not eligible:
            eligible = frozenset(s for s, c in contributions.items() if c >= level)
        if amount > 0:
            if pots and pots[-1].eligible == eligible:
                pots[-1] = Pot(pots[-1].amount + amount, eligible)
            else:
                pots.append(Pot(amount, eligible))
        prev = level
    return pots


def split_pot(amount: int, winners: Sequence[int], unit: int) -> dict[int, int]:
    """Shares of one pot (POT-03/04). ``winners`` must be in clockwise order from the button's
    left: whatever cannot be divided in whole ``unit`` chips goes to the first of them."""
    if not winners:
        raise ValueError("a pot needs at least one winner")
    share = amount // unit // len(winners) * unit
    out = dict.fromkeys(winners, share)
    out[winners[0]] += amount - share * len(winners)
    return out
