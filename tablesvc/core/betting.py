"""One betting round of hold'em: whose turn it is, what a new round total means, when it ends.

The sensors see chips, not intentions: a bet zone holding 600 chips only says "this seat's
round total is now 600". :meth:`BettingRound.classify` turns that total into a poker action
(check, call, bet, raise, all-in) and names every rule it breaks (RULES.md BET-02..BET-19);
:meth:`BettingRound.apply` then books it. Classifying and applying are separate so the table
can raise alerts before it commits, and booking never refuses chips that are really there: the
floor sorts out an irregular bet, the ledger must follow the chips.

The round values are those of RULES.md §2.3: H (``high``), L (``last_full``), c(s)
(``contributed``) and acted(s).

>>> r = BettingRound(street="flop", order=[1, 2, 3], stacks={1: 1000, 2: 1000, 3: 1000},
...                  big_blind=100)
>>> r.next_actor, r.min_raise_to()
(1, 100)
>>> r.apply(r.check(1))
>>> d = r.classify(2, 300)
>>> d.action, d.amount, d.full_raise
('bet', 300, True)
>>> r.apply(d)
>>> r.high, r.last_full, r.next_actor, r.min_raise_to()
(300, 300, 3, 600)
>>> [v.name for v in r.classify(3, 500).violations]
['raise_below_minimum']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

# Rule ID -> the violations a betting round names for it (each becomes an alert of that name);
# docs/RULES-COVERAGE.md is generated from such declarations.
RULES: dict[str, tuple[str, ...]] = {
    "BET-02": ("illegal_check",),
    "BET-07": ("illegal_check",),
    "BET-09": ("call_short",),
    "BET-11": ("raise_below_minimum",),
    "BET-12": ("reraise_not_allowed",),
    "BET-13": ("incomplete_allin_raise",),
    "BET-14": ("reraise_after_incomplete_allin",),
    "BET-15": ("action_out_of_turn",),
    "BET-19": ("bet_exceeds_limit",),
}

Action = Literal["check", "call", "bet", "raise", "all_in", "fold"]
REOPEN_RULES = ("tda_full_raise", "seed_literal")


_UNKNOWN = object()
"""Not worked out yet (``None`` is a valid answer: nobody is to act)."""


class Structure(StrEnum):
    """Betting structure of the table (BET-19, setting ``betting.structure``)."""

    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"
    FIXED_LIMIT = "fixed-limit"

    @classmethod
    def parse(cls, value: str) -> Structure:
        """Accept the setting's spelling too (``no_limit``), so config and code need no map.

        >>> Structure.parse("pot_limit")
        <Structure.POT_LIMIT: 'pot-limit'>
        """
        try:
            return cls(value.strip().lower().replace("_", "-"))
        except ValueError:
            known = ", ".join(s.value for s in cls)
            raise ValueError(f"unknown betting structure {value!r}; known: {known}") from None


@dataclass(frozen=True, slots=True)
class Violation:
    """A betting rule broken by an action; ``name`` is the alert name of RULES.md §5."""

    name: str
    rule: str
    message: str

    @property
    def severity(self) -> str:
        """The alert's default severity (RULES.md §5): only the short all-in is informative."""
        return "info" if self.name in INFO_ALERTS else "warning"


INFO_ALERTS = frozenset({"incomplete_allin_raise", "clock_running", "absent_player_auto_action"})


# not frozen: one is made for every action, and a frozen dataclass's __init__ (a setattr call
# per field) cost a measurable share of it; nothing changes one once it is made
@dataclass(slots=True)
class Decision:
    """What a seat's action means. ``amount`` is what it adds, ``to`` the round total after."""

    seat: int
    action: Action
    amount: int
    to: int
    full_raise: bool
    violations: tuple[Violation, ...] = ()


def action_order(seats_clockwise_from_button_left: Sequence[int], preflop: bool,
                 heads_up: bool) -> list[int]:
    """The acting order of a round, from the seats clockwise starting left of the button.

    With three or more players the list is SB, BB, ..., button: pre-flop the player left of
    the big blind acts first and the blinds last (BET-02); from the flop on the first seat left
    of the button acts first (BET-05). Heads-up the list is [BB, button] (RULES.md §2.2): the
    button posts the small blind and acts first pre-flop, last after the flop (SEAT-04).
    A post-flop list may hold just two seats of a bigger hand (the others folded): it is then
    used as it is.

    >>> action_order([1, 2, 3, 4], preflop=True, heads_up=False)
    [3, 4, 1, 2]
    >>> action_order([1, 2, 3, 4], preflop=False, heads_up=False)
    [1, 2, 3, 4]
    >>> action_order([2, 5], preflop=True, heads_up=True)
    [5, 2]
    >>> action_order([2, 5], preflop=False, heads_up=True)
    [2, 5]
    """
    seats = list(seats_clockwise_from_button_left)
    if len(set(seats)) != len(seats):
        raise ValueError(f"a seat appears twice in the acting order {seats}")
    if heads_up and len(seats) != 2:
        raise ValueError(f"heads-up needs exactly two seats [BB, button], got {seats}")
    if preflop and len(seats) < 2:
        raise ValueError(f"pre-flop betting needs at least two seats, got {seats}")
    if heads_up:
        return [seats[1], seats[0]] if preflop else seats
    return seats[2:] + seats[:2] if preflop else seats


class BettingRound:
    """The chips and turns of one betting round; see the module docstring."""

    def __init__(self, *, street: str, order: Sequence[int], stacks: Mapping[int, int],
                 posted: Mapping[int, int] | None = None, big_blind: int,
                 structure: Structure = Structure.NO_LIMIT, pot: int = 0,
                 bet_unit: int | None = None, cap: int | None = 4,
                 reopen_rule: str = "tda_full_raise") -> None:
        """Open a round.

        order: seats still in the hand, in this round's acting order (first to act first).
        stacks: chips behind of every seat in ``order``, AFTER forced bets were taken.
        posted: forced bets already in this round (blinds). They count towards c(s) and H but
            are not actions, so the big blind keeps his option (BET-04). A posted seat outside
            ``order`` is dead money: it counts towards H and the pot, but cannot act.
        pot: chips already in the middle before this round (for pot-limit).
        bet_unit: fixed-limit bet size of this street; default ``big_blind``.
        cap: fixed-limit maximum number of bets and raises per round (None = no cap). A blind
            posted before the round counts as its first bet, as is usual in limit games.
        reopen_rule: ``tda_full_raise`` or ``seed_literal`` (A-16, BET-14).
        """
        seats = list(order)
        if not seats:
            raise ValueError("a betting round needs at least one seat in the hand")
        if len(set(seats)) != len(seats):
            raise ValueError(f"a seat appears twice in the acting order {seats}")
        missing = [s for s in seats if s not in stacks]
        if missing:
            raise ValueError(f"no stack given for seat(s) {missing}")
        posted = dict(posted or {})
        behind = {s: stacks[s] for s in seats}
        for name, values in (("stack", behind), ("posted bet", posted)):
            negative = {s: v for s, v in values.items() if v < 0}
            if negative:
                raise ValueError(f"negative {name} for seat(s) {sorted(negative)}")
        if big_blind <= 0:
            raise ValueError(f"the big blind must be positive, got {big_blind}")
        if bet_unit is not None and bet_unit <= 0:
            raise ValueError(f"the fixed-limit bet unit must be positive, got {bet_unit}")
        if cap is not None and cap < 1:
            raise ValueError(f"the fixed-limit cap must be at least 1 bet, got {cap}")
        if pot < 0:
            raise ValueError(f"the pot cannot be negative, got {pot}")
        if reopen_rule not in REOPEN_RULES:
            raise ValueError(
                f"unknown reopen rule {reopen_rule!r}; known: {', '.join(REOPEN_RULES)}")

        self.street = street
        self.order: tuple[int, ...] = tuple(seats)
        self.structure = Structure(structure)
        self.big_blind = big_blind
        self.pot = pot
        self.bet_unit = bet_unit if bet_unit is not None else big_blind
        self.cap = cap
        self.reopen_rule = reopen_rule

        self.stacks: dict[int, int] = behind
        self.contributed: dict[int, int] = {s: posted.get(s, 0) for s in seats}
        self.contributed.update({s: v for s, v in posted.items() if s not in self.stacks})
        self.folded: set[int] = set()
        self.high: int = max(self.contributed.values(), default=0)
        if posted and self.high > 0:
            # RULES.md §2.3: pre-flop H starts at the big blind, even when the big blind was
            # all-in for less — the others still call the full blind
            self.high = max(self.high, big_blind)
        # Fixed limit raises by the street's unit; otherwise L starts at one big blind, which
        # is also the minimum opening bet after the flop.
        self.last_full: int = (
            self.bet_unit if self.structure is Structure.FIXED_LIMIT else big_blind)
        self.last_aggressor: int | None = None
        self.bets: int = 1 if self.high > 0 else 0  # bets and raises so far, for the cap

        self._acted: set[int] = set()  # acted since H last changed (RULES.md §2.3)
        self._level: dict[int, int] = {}  # H just after the seat's last voluntary action
        self._raised: dict[int, bool] = {}  # that action was a full bet or raise
        self._full_seen: dict[int, int] = {}  # full bets/raises of the round at that time
        self._fulls = 0
        self._pointer = -1  # index in order of the last seat that acted in turn
        self._owing: set[int] = set()  # checked or called short: he still owes the call
        self._complete: bool | None = None
        self._next: object = _UNKNOWN
        self._active: tuple[int, ...] | None = None  # ``active``, until a seat folds

    def repost(self, seat: int, posted: int) -> None:
        """A forced bet turned out smaller (its poster had no more): ``posted`` is in, nothing
        is left behind. H does not fall below the big blind pre-flop (RULES.md §2.3)."""
        self.contributed[seat] = posted
        self.stacks[seat] = 0
        self.high = max(max(self.contributed.values(), default=0), self.big_blind)
        self._complete = None
        self._next = _UNKNOWN

    def out_of_chips(self, seat: int, behind: int = 0) -> None:
        """The seat has ``behind`` chips left, whatever the round was told at its start (a
        stack nobody had counted turned out to be all-in)."""
        self.stacks[seat] = behind
        self._complete = None
        self._next = _UNKNOWN

    # ------------------------------------------------------------------ state
    @property
    def active(self) -> list[int]:
        """Seats still in the hand (not folded), in acting order; all-in seats included."""
        if self._active is None:
            self._active = tuple(s for s in self.order if s not in self.folded)
        return list(self._active)

    def is_active(self, seat: int) -> bool:
        """``seat in active``, without copying the list."""
        return seat in self.stacks and seat not in self.folded

    @property
    def complete(self) -> bool:
        """RULES.md §2.3: one player left, or every player who can act has acted and matched H.

        Asked after nearly every input, so the answer is kept until ``apply`` changes the
        round (the only method that does).
        """
        if self._complete is None:
            self._work_out_turn()
        return self._complete  # type: ignore[return-value]

    @property
    def next_actor(self) -> int | None:
        """The next seat clockwise after the last in-turn action that still owes an action.

        An action out of turn does not move the turn on, so the skipped player is asked next
        (BET-15), and the players behind him act again only if his action changed H. Kept,
        like ``complete``, until the round changes.
        """
        if self._next is _UNKNOWN:
            self._work_out_turn()
        return self._next  # type: ignore[return-value]

    def _work_out_turn(self) -> None:
        """``complete`` and ``next_actor`` in one walk round the table.

        A seat owes an action when it can act (not folded, chips behind) and has chips to
        call, or has not acted since H last changed. A seat that has matched H need not act
        when nobody else can still bet against him: the others are all-in, and a bet could
        not be called (§2.2 shortcut). The round is complete when no seat owes an action; the
        next actor is the first seat that owes one, clockwise after the last in-turn action.
        """
        order, folded, stacks = self.order, self.folded, self.stacks
        if len(order) - len(folded) <= 1:
            self._complete, self._next = True, None
            return
        contributed, high, acted = self.contributed, self.high, self._acted
        several = False  # more than one seat can still bet (counted up to two)
        can_bet = 0
        for s in order:
            if s not in folded and stacks[s] > 0:
                can_bet += 1
                if can_bet > 1:
                    several = True
                    break
        n = len(order)
        start = self._pointer + 1
        for step in range(n):
            seat = order[(start + step) % n]
            if seat not in folded and stacks[seat] > 0 and (
                    contributed[seat] < high or (several and seat not in acted)):
                self._complete, self._next = False, seat
                return
        self._complete, self._next = True, None

    def seat_after(self, seat: int) -> int | None:
        """The next seat clockwise after ``seat`` that is still in and can still bet: who
        acts after him, as far as the seats alone tell."""
        order, n = self.order, len(self.order)
        start = order.index(seat) + 1 if seat in order else 0
        for step in range(n):
            s = order[(start + step) % n]
            if s != seat and s not in self.folded and self.stacks[s] > 0:
                return s
        return None

    def to_call(self, seat: int) -> int:
        """What it takes to match H (H - c(s)); a shorter stack can only call all-in."""
        self._seat(seat, folded_ok=True)
        return max(0, self.high - self.contributed[seat])

    def min_raise_to(self) -> int:
        """The smallest legal round total for a full bet or raise: H + L (BET-11)."""
        return self.high + self.last_full

    def max_to(self, seat: int) -> int:
        """The highest round total the structure and the seat's stack allow (BET-19).

        No-limit: everything the seat has. Pot-limit: H plus the pot after calling, i.e.
        H + (pot + all bets this round + to_call). Fixed-limit: H + one bet unit while the cap
        is not reached, then H (call only).
        """
        self._seat(seat)
        all_chips = self.contributed[seat] + self.stacks[seat]
        if self.structure is Structure.POT_LIMIT:
            limit = self.high + self.pot + sum(self.contributed.values()) + self.to_call(seat)
        elif self.structure is Structure.FIXED_LIMIT:
            capped = self.cap is not None and self.bets >= self.cap
            limit = self.high if capped else self.high + self.bet_unit
        else:
            limit = all_chips
        return max(self.contributed[seat], min(limit, all_chips))

    # ------------------------------------------------------------------ classification
    def classify(self, seat: int, to: int) -> Decision:
        """What it means if ``seat``'s round total becomes ``to``. Changes nothing.

        >>> r = BettingRound(street="preflop", order=[3, 1, 2],
        ...                  stacks={1: 900, 2: 800, 3: 1000}, posted={1: 100, 2: 200},
        ...                  big_blind=200)
        >>> r.classify(3, 200).action, r.classify(3, 500).action
        ('call', 'raise')
        >>> [v.name for v in r.classify(1, 200).violations]
        ['action_out_of_turn']
        """
        c = self._seat(seat)
        stack = self.stacks[seat]
        if to < c:
            raise ValueError(
                f"seat {seat} already has {c} in this round: a round total of {to} would take "
                "chips back, which is not an action")
        amount = to - c
        if amount > stack:
            raise ValueError(
                f"seat {seat} has {stack} behind: a round total of {to} needs {amount} more")
        if amount == 0:
            return self.check(seat)

        # a seat that checked or called short completing the call is putting his own action
        # right (BET-07, BET-09), not acting out of turn
        correcting = seat in self._owing and to == self.high
        violations = [] if correcting else self._turn(seat)
        high = self.high
        all_in = amount == stack
        full = False
        action: Action
        if to <= high:
            action = "all_in" if all_in else "call"
            if not all_in and to < high:
                violations.append(Violation(
                    "call_short", "BET-09",
                    f"Seat {seat} put in {to} but the bet to call is {high}; "
                    f"he must add {high - to} to stay in the hand."))
        else:
            full = to >= self.min_raise_to()
            action = "all_in" if all_in else ("bet" if high == 0 else "raise")
            violations.extend(self._raise_right(seat, to))
            if not full:
                violations.append(self._short_raise(seat, to, all_in))
            limit = self.max_to(seat)
            if to > limit:
                violations.append(self._over_limit(seat, to, limit))
        return Decision(seat, action, amount, to, full, tuple(violations))

    def check(self, seat: int, deemed: bool = False) -> Decision:
        """A check (a knock or a declaration). Facing a bet it is ``illegal_check``.

        ``deemed``: the dealer applies it for the player (BET-16 absent, BET-17 time out), so
        its timing is no violation of his.
        """
        c = self._seat(seat)
        if self.stacks[seat] == 0:
            return Decision(seat, "check", 0, c, False)  # all-in: nothing left to decide
        violations = [] if deemed else self._turn(seat)
        if c < self.high:
            rule = "BET-02" if self.street == "preflop" else "BET-07"
            violations.append(Violation(
                "illegal_check", rule,
                f"Seat {seat} checked facing a bet of {self.high}; he must call "
                f"{self.high - c}, raise or fold."))
        return Decision(seat, "check", 0, c, False, tuple(violations))

    def fold(self, seat: int, deemed: bool = False) -> Decision:
        """A fold. Folding is always allowed; only its timing can be wrong (BET-15).

        ``deemed``: a fold the player did not make himself (BET-16, BET-17, a dead hand killed
        under SEAT-05): never out of turn.
        """
        c = self._seat(seat)
        violations = self._turn(seat) if self.stacks[seat] > 0 and not deemed else []
        return Decision(seat, "fold", 0, c, False, tuple(violations))

    def _seat(self, seat: int, folded_ok: bool = False) -> int:
        """c(seat), after making sure the seat can take part at all."""
        if seat not in self.stacks:
            raise ValueError(f"seat {seat} is not in this hand (in the hand: {list(self.order)})")
        if seat in self.folded and not folded_ok:
            raise ValueError(f"seat {seat} has folded and cannot act again")
        return self.contributed[seat]

    def _turn(self, seat: int) -> list[Violation]:
        expected = self.next_actor
        if expected == seat:
            return []
        why = "the betting round is complete" if expected is None else f"seat {expected} is to act"
        return [Violation("action_out_of_turn", "BET-15",
                          f"Seat {seat} acted out of turn: {why}.")]

    def _raise_right(self, seat: int, to: int) -> list[Violation]:
        """BET-12 and BET-14: may this seat, who has acted already, raise again?"""
        if seat not in self._level:
            return []  # has not acted yet this round: may raise (BET-13, BET-04)
        risen = self.high - self._level[seat]
        if risen <= 0:
            if not self._raised[seat]:
                return []  # acting again with nothing new: action_out_of_turn says it all
            return [Violation(
                "reraise_not_allowed", "BET-12",
                f"Seat {seat} may not raise his own bet of {self._level[seat]}: nobody else has "
                "raised since. He may call or fold; the chips beyond the call go back.")]
        if self.reopen_rule == "tda_full_raise":
            allowed = risen >= self.last_full
        else:  # seed_literal: only players who acted without raising are limited
            allowed = self._fulls > self._full_seen[seat] or self._raised[seat]
        if allowed:
            return []
        return [Violation(
            "reraise_after_incomplete_allin", "BET-14",
            f"Seat {seat} may not raise to {to}: since his last action the bet rose by only "
            f"{risen}, less than a full raise of {self.last_full}. He may call {self.high} or "
            "fold; the chips beyond the call go back.")]

    def _short_raise(self, seat: int, to: int, all_in: bool) -> Violation:
        minimum = self.min_raise_to()
        if all_in:
            who = " without raising" if self.reopen_rule == "seed_literal" else ""
            short = (f"less than a full bet of {minimum}" if self.high == 0 else
                     f"{to - self.high} above the bet of {self.high}, less than a full raise "
                     f"to {minimum}")
            return Violation(
                "incomplete_allin_raise", "BET-13",
                f"Seat {seat} is all-in for {to}, {short}. It does not reopen the betting: "
                f"players who have already acted{who} may only call {to} or fold.")
        what = "bet" if self.high == 0 else "raised to"
        least = "bet is" if self.high == 0 else "raise is to"
        return Violation(
            "raise_below_minimum", "BET-11",
            f"Seat {seat} {what} {to}; the minimum {least} {minimum}.")

    def _over_limit(self, seat: int, to: int, limit: int) -> Violation:
        if self.structure is Structure.FIXED_LIMIT and limit == self.high:
            why = (f"the cap of {self.cap} bets is reached, so he may only call {self.high}"
                   if self.cap is not None and self.bets >= self.cap
                   else f"he may only call {self.high}")
        else:
            why = f"the {self.structure.value} maximum is {limit}"
        return Violation(
            "bet_exceeds_limit", "BET-19",
            f"Seat {seat} went to {to}; {why}. The excess of {to - limit} goes back.")

    # ------------------------------------------------------------------ booking
    def give_back(self, seat: int, amount: int) -> None:
        """An uncalled part of a bet goes back to the seat when the round is over."""
        self._complete, self._next = None, _UNKNOWN
        self.contributed[seat] -= amount
        self.stacks[seat] += amount
        self.high = max(self.contributed.values(), default=0)

    def apply(self, d: Decision) -> None:
        """Book a classified action, violations and all: the chips are where they are.

        Only a full bet or raise changes L; any action that raises H makes everybody else owe
        an action again and makes the seat the last aggressor.
        """
        c = self._seat(d.seat)
        if d.to != c + d.amount or d.amount < 0 or d.amount > self.stacks[d.seat]:
            raise ValueError(
                f"stale decision for seat {d.seat}: it adds {d.amount} to reach {d.to}, but the "
                f"seat has {c} in and {self.stacks[d.seat]} behind; classify it again")
        in_turn = self.next_actor == d.seat  # asked before the round changes
        self._complete, self._next = None, _UNKNOWN
        if in_turn:
            self._pointer = self.order.index(d.seat)
        if d.action == "fold":
            self.folded.add(d.seat)
            self._active = None
            return
        self.contributed[d.seat] = d.to
        self.stacks[d.seat] -= d.amount
        raised = d.to > self.high
        if raised:
            if d.full_raise:
                self.last_full = d.to - self.high
                self._fulls += 1
                self.bets += 1
            self.high = d.to
            self.last_aggressor = d.seat
            self._acted = set()
        self._acted.add(d.seat)
        if d.to < self.high and self.stacks[d.seat] > 0:
            self._owing.add(d.seat)  # an illegal check or a short call (BET-07, BET-09)
        else:
            self._owing.discard(d.seat)
        self._level[d.seat] = self.high
        self._raised[d.seat] = raised and d.full_raise
        self._full_seen[d.seat] = self._fulls

    def __repr__(self) -> str:
        return (f"BettingRound({self.street}, H={self.high}, L={self.last_full}, "
                f"c={self.contributed}, stacks={self.stacks}, folded={sorted(self.folded)}, "
                f"next={self.next_actor})")
