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
    BET = "bet"
    RAISE = "raise"


class Limit(StrEnum):
    """Betting structure (RULES.md BET-19)."""

    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"
    FIXED_LIMIT = "fixed-limit"


FIXED_LIMIT_CAP = 4
"""Fixed-limit: at most a bet and three raises per round; pre-flop the big blind is the bet."""


@dataclass
class BettingRound:
    """One betting round.

    ``order`` is the seats still in the hand, clockwise, starting with the first to act.
    ``bets`` holds what each seat has in front of it already (the blinds pre-flop), ``high`` the
    amount to match (pre-flop the big blind, even when the big blind is all-in for less).
    Blind posts are not actions, so the big blind keeps its option.

    Bets and raises (BET-11..14, BET-19): ``min_raise`` is L, the size of the last full bet or
    raise (it starts at the big blind, or at the fixed bet of the round in fixed-limit); a raise
    must go to at least ``high`` + L unless it is the player's whole stack. An all-in below that
    does not change L and does not reopen the betting: a seat that has acted may raise again
    only when ``high`` has grown by at least L since its own last action. ``pot`` is what lies
    in the pot already (the antes, earlier rounds), for the pot-limit maximum; ``cap`` limits
    the number of bets and raises (``raises`` counts them, pre-flop the big blind included).
    """

    order: Sequence[int]
    stacks: dict[int, int]
    bets: dict[int, int] = field(default_factory=dict)
    high: int = 0
    live: set[int] = field(default_factory=set)
    acted: set[int] = field(default_factory=set)
    _pos: int = 0
    limit: Limit = Limit.NO_LIMIT
    min_raise: int = 0
    pot: int = 0
    cap: int | None = None
    raises: int = 0

    def __post_init__(self) -> None:
        if not self.live:
            self.live = set(self.order)
        for seat in self.order:
            self.bets.setdefault(seat, 0)
        self.high = max([self.high, *self.bets.values()])
        self.limit = Limit(self.limit)
        if self.min_raise <= 0:
            self.min_raise = max(self.high, 1)
        if self.cap is None and self.limit is Limit.FIXED_LIMIT:
            self.cap = FIXED_LIMIT_CAP

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

    def can_raise(self, seat: int) -> bool:
        """May ``seat`` bet or raise now (whatever the amount)?"""
        if self.stacks[seat] <= self.high - self.bets[seat]:
            return False  # a call takes every chip it has
        if self.cap is not None and self.raises >= self.cap:
            return False
        if seat in self.acted and self.high - self.bets[seat] < self.min_raise:
            return False  # only calls or all-ins short of a raise since it acted (BET-12/14)
        return any(
            s != seat and self.can_act(s) and self.bets[s] + self.stacks[s] > self.high
            for s in self.order
        )  # somebody must be able to call more than the current bet

    def raise_range(self, seat: int) -> tuple[int, int] | None:
        """Smallest and largest total a bet or raise of ``seat`` may go to, or None.

        The whole stack is always allowed too (an all-in short of the minimum); the range
        itself is then just that amount.
        """
        if not self.can_raise(seat):
            return None
        all_in = self.bets[seat] + self.stacks[seat]
        lowest = min(self.high + self.min_raise, all_in)
        if self.limit is Limit.FIXED_LIMIT:
            highest = lowest
        elif self.limit is Limit.POT_LIMIT:
            call = self.high - self.bets[seat]
            pot_after_call = self.pot + sum(self.bets.values()) + call
            highest = min(all_in, max(lowest, self.high + pot_after_call))
        else:
            highest = all_in
        return lowest, highest

    def legal(self, seat: int) -> tuple[Action, ...]:
        wager = (Action.BET if self.high == 0 else Action.RAISE,) if self.can_raise(seat) else ()
        if self.to_call(seat) == 0:
            return (Action.CHECK, *wager, Action.FOLD)
        return (Action.CALL, *wager, Action.FOLD)

    def act(self, seat: int, action: Action, to: int | None = None) -> int:
        """Apply the turn's action; returns the chips it moves into the seat's bet zone.

        ``to`` is the seat's new total for the round, for a bet or a raise.
        """
        if seat != self.next_actor():
            raise ValueError(f"seat {seat} is not the seat to act")
        if action not in self.legal(seat):
            raise ValueError(f"seat {seat} cannot {action} now")
        moved = 0
        if action is Action.FOLD:
            self.live.discard(seat)
        elif action is Action.CALL:
            moved = self.to_call(seat)
        elif action in (Action.BET, Action.RAISE):
            bounds = self.raise_range(seat)
            assert bounds is not None
            if to is None or not bounds[0] <= to <= bounds[1]:
                raise ValueError(
                    f"seat {seat} cannot {action} to {to}: the range is {bounds[0]}..{bounds[1]}"
                )
            increment = to - self.high
            if increment >= self.min_raise and self.limit is not Limit.FIXED_LIMIT:
                self.min_raise = increment  # a full raise sets the next minimum (BET-11)
            self.high = to
            self.raises += 1
            moved = to - self.bets[seat]
        self.bets[seat] += moved
        self.stacks[seat] -= moved
        self.acted.add(seat)
        self._pos = (self._pos + 1) % len(self.order)
        return moved


@dataclass(frozen=True)
class Pot:
    amount: int
    eligible: frozenset[int]


def build_pots(
    contributions: Mapping[int, int], live: Set[int], dead: int = 0
) -> list[Pot]:
    """Main pot and side pots (POT-01): cut the contributions at each live seat's total.

    A level that no live seat reached (possible only when live players are all-in below a
    folded player's bet) goes back to those who paid it, as an uncalled bet would.

    ``dead`` is money no seat contributed to a level: the antes. It lies at the bottom of the
    main pot, which every live seat can win, however much of its own ante it could pay (as the
    PHH format reads antes unless told otherwise).
    """
    levels = sorted({c for s, c in contributions.items() if s in live and c > 0})
    top = max(contributions.values(), default=0)
    if not levels or levels[-1] < top:
        levels.append(top)
    pots: list[Pot] = [Pot(dead, frozenset(live))] if dead > 0 else []
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
