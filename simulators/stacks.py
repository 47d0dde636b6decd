"""The players' stacks: the chips in front of each seat, and what happens to them.

Without stack zones (the default) a stack lies under no antenna: only its value is ever seen,
in what reaches a bet zone or the pot. With stack zones (DESIGN §3, ``P1``..``P10``) the table
itself tells every stack: each change of a stack is a ``CHIPS,P<seat>`` inventory, sent inside
the motion that made it (``Dealer`` reports the zone the chips left before the zone they
reach, so chips leave a stack before they are in a bet zone or the pot, and come back to it
only after they left the pot or a bet zone). Change made at the tray (colour-ups, a big chip
broken for a small bet) keeps a stack's value and may change its inventory.

This is also where things happen to the stacks outside the rules, for the tests of a service
that must notice them: chips taken off the table (TABLE-06), bought from outside it (TABLE-08;
mid-hand BET-23) or passed from one player to another (TABLE-08), each kept as a
``StackChange`` so that the hand records say what really happened. Chips that came to a stack
during a hand do not play in it (BET-23): the players bet what ``playable`` says.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from simulators.chips import ChipPile, ChipShortage, deal_stacks, smallest_unit, take_exact
from simulators.felt import MAX_ZONE_CHIPS, SEATS, Felt
from simulators.records import StackChange

__all__ = ["Stacks"]


class Stacks:
    """Seat -> its stack (``piles``), the dealer's tray they make change with, and what the
    chip reader says about them when the table has stack zones (``zoned``)."""

    def __init__(
        self,
        values: Mapping[str, int],
        tray: ChipPile,
        felt: Felt,
        seats: Mapping[int, int],
        *,
        zoned: bool,
    ) -> None:
        self.values = values
        self.unit = smallest_unit(values)
        self.tray = tray
        self.felt = felt
        self.zoned = zoned
        self.piles: dict[int, ChipPile] = deal_stacks(tray, seats)
        self.off_table = ChipPile(values)
        """Chips taken off the table: gone for good, never dealt again."""
        self.changes: list[StackChange] = []
        """Everything that happened to the stacks outside the rules, in order."""
        self.hand: int | None = None
        """The hand under way, from its NEWHAND until it is settled."""
        self.last_hand = 0
        self._added: dict[int, int] = {}
        """Seat -> chips that came to its stack during this hand (they do not play)."""
        self._committing: dict[int, int] = {}
        """Seat -> chips the dealer is about to move out of its stack (a decided bet)."""
        if zoned:
            for seat in SEATS:  # they lay there before the reader started
                felt.place_chips(f"P{seat}", self._uids(seat))

    # what the game asks ---------------------------------------------------------------------

    def playable(self, seat: int) -> int:
        """What the seat may still bet in this hand: its stack, less chips that came to it
        during the hand (BET-23)."""
        return max(0, self.piles[seat].value - self._added.get(seat, 0))

    def take_from(self, pile: ChipPile, amount: int) -> list[str]:
        """Chips worth ``amount`` from ``pile`` (a stack, a bet zone, the pot).

        Should the tray run out of the small chips change needs, every stack is changed back
        into big chips at the tray and the dealer tries again (value for value: with stack
        zones the stacks' inventories change, their values do not).
        """
        try:
            return pile.take(amount, self.tray)
        except ChipShortage:
            values = {seat: p.value for seat, p in self.piles.items()}
            for p in self.piles.values():
                self.tray.add(p.take_all())
            for seat, fresh in deal_stacks(self.tray, values).items():
                self.piles[seat].add(fresh.take_all())
            return pile.take(amount, self.tray)

    def report(self, last: int | None = None) -> None:
        """With stack zones, every stack whose chips changed reports its inventory (``last``'s
        last, right before the zone its chips go to). Call inside a motion of the felt."""
        if not self.zoned:
            return
        for seat in sorted(SEATS, key=lambda s: s == last):
            pile = self.piles.get(seat)
            if pile is not None and not pile.colour_up(self.tray, MAX_ZONE_CHIPS):
                raise ChipShortage(f"cannot keep P{seat} within {MAX_ZONE_CHIPS} chips")
            uids = self._uids(seat)
            zone = f"P{seat}"
            if sorted(uids) != sorted(self.felt.chips(zone)):
                self.felt.set_chips(zone, uids, paced=False)

    @contextmanager
    def committing(self, seat: int, amount: int) -> Iterator[None]:
        """The dealer is moving ``amount`` out of the seat's stack: nobody may take it away
        from under his hand while he stands still in the middle of it."""
        self._committing[seat] = amount
        try:
            yield
        finally:
            self._committing.pop(seat, None)

    def reseat(self, stacks: Mapping[int, int]) -> None:
        """Every stack back into the tray, then these stacks dealt out of it (a script's
        players sitting down); with stack zones, reported (inside a motion)."""
        for pile in self.piles.values():
            self.tray.add(pile.take_all())
        self.piles = deal_stacks(self.tray, stacks)
        self.report()

    def begin(self, number: int) -> None:
        """Hand ``number`` has begun (its NEWHAND)."""
        self.hand = number
        self._added = {}

    def end(self, number: int) -> None:
        """Hand ``number`` is settled: what happens now happens between hands."""
        self.hand = None
        self.last_hand = number
        self._added = {}

    def during(self, number: int) -> tuple[StackChange, ...]:
        """What happened to the stacks outside the rules during hand ``number``."""
        return tuple(c for c in self.changes if c.mid_hand and c.hand == number)

    def deltas(self, number: int) -> dict[int, int]:
        """Seat -> what its stack gained (or lost) outside the rules during hand ``number``."""
        out: dict[int, int] = {}
        for change in self.during(number):
            for seat, delta in change.deltas.items():
                out[seat] = out.get(seat, 0) + delta
        return out

    def sit(self, seat: int, amount: int) -> None:
        """A player sits down at an empty seat with a stack worth ``amount`` (a seat draw, a
        move from another table: his chips come with him; here out of the chip set's spare
        chips). Between hands; with stack zones, reported."""
        if seat in self.piles:
            raise ValueError(f"seat {seat} is taken")
        self._check_amount(amount)
        chips = take_exact(self.tray.uids, self.values, amount)
        if chips is None:
            raise ChipShortage(f"the chip set has no chips left to make {amount}")
        with self.felt.motion(paced=False):
            self.tray.remove(chips)
            self.piles[seat] = ChipPile(self.values, chips)
            self.report()

    def stand(self, seat: int) -> int:
        """A player leaves his seat with all his chips (moved to another table); the value he
        took. Between hands; with stack zones, reported."""
        pile = self.piles.pop(seat)
        value = pile.value
        with self.felt.motion(paced=False):
            self.tray.add(pile.take_all())
            self.report()
        return value

    def leave(self, seat: int) -> None:
        """The seat lost its last chip: it leaves, its stack zone stays empty."""
        del self.piles[seat]
        self._added.pop(seat, None)

    # outside the rules ----------------------------------------------------------------------

    def take(self, seat: int, amount: int) -> StackChange:
        """Chips worth ``amount`` leave the seat's stack and the table (TABLE-06)."""
        pile = self._giver(seat, amount)
        with self.felt.motion(paced=False):
            self.off_table.add(self.take_from(pile, amount))
            self._keep_added_within(seat)
            self.report()
        return self._note("take", seat, amount)

    def add(self, seat: int, amount: int) -> StackChange:
        """Chips worth ``amount`` come to the seat's stack from outside the table: a purchase
        (TABLE-08), which mid-hand does not play in the hand (BET-23)."""
        pile = self._pile(seat)
        self._check_amount(amount)
        chips = take_exact(self.tray.uids, self.values, amount)
        if chips is None:
            raise ChipShortage(f"the chip set has no chips left to make {amount}")
        with self.felt.motion(paced=False):
            self.tray.remove(chips)
            pile.add(chips)
            if self.hand is not None:
                self._added[seat] = self._added.get(seat, 0) + amount
            self.report()
        return self._note("add", seat, amount)

    def transfer(self, giver: int, taker: int, amount: int) -> StackChange:
        """Chips worth ``amount`` pass from ``giver``'s stack to ``taker``'s (TABLE-08): they
        leave the one before they reach the other."""
        if giver == taker:
            raise ValueError("a transfer needs two different seats")
        recipient = self._pile(taker)
        pile = self._giver(giver, amount)
        with self.felt.motion(paced=False):
            recipient.add(self.take_from(pile, amount))
            self._keep_added_within(giver)
            if self.hand is not None:
                self._added[taker] = self._added.get(taker, 0) + amount
            self.report(last=taker)
        return self._note("transfer", giver, amount, taker)

    # helpers --------------------------------------------------------------------------------

    def _uids(self, seat: int) -> list[str]:
        pile = self.piles.get(seat)
        return list(pile.uids) if pile is not None else []

    def _pile(self, seat: int) -> ChipPile:
        pile = self.piles.get(seat)
        if pile is None:
            raise ValueError(f"seat {seat} has no stack")
        return pile

    def _check_amount(self, amount: int) -> None:
        if amount <= 0 or amount % self.unit:
            raise ValueError(
                f"{amount} is not a positive multiple of the smallest chip ({self.unit})")

    def _giver(self, seat: int, amount: int) -> ChipPile:
        """The stack chips are taken from, if it can give ``amount``."""
        pile = self._pile(seat)
        self._check_amount(amount)
        if self.hand is None and amount >= pile.value:
            raise ValueError(
                f"seat {seat} has {pile.value}: between hands a stack keeps at least one chip "
                "(a player whose chips all go leaves the table)")
        free = pile.value - self._committing.get(seat, 0)
        if amount > free:
            raise ValueError(f"seat {seat} has {free} in its stack that is not on its way to "
                             f"a bet zone or the pot; cannot take {amount}")
        return pile

    def _keep_added_within(self, seat: int) -> None:
        if seat in self._added:
            self._added[seat] = min(self._added[seat], self.piles[seat].value)

    def _note(self, kind: str, seat: int, amount: int, to_seat: int | None = None) -> StackChange:
        hand = self.hand if self.hand is not None else self.last_hand
        change = StackChange(kind, seat, amount, hand=hand, mid_hand=self.hand is not None,
                             to_seat=to_seat)
        self.changes.append(change)
        return change
