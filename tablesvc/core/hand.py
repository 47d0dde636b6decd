"""What the table asks of a hand, whatever kind of hand it is.

A hand is created at NEWHAND and dropped at the next one. Two kinds implement this contract:
``tablesvc.core.session.HandSession``, a hand tracked card by card and chip by chip against
the rules, and ``tablesvc.core.untracked.UntrackedHand``, a hand the service cannot follow (its
start was not seen, frames were lost, a device was away at the deal, the deck turned out
defective, or the core itself failed) which raises no rule alerts and only waits for its end.
The table never asks which kind it has: it hands every input to the hand under way.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any, Protocol

from tablesvc.core.equity import EquityState


class Hand(Protocol):
    """One hand at the table, from its NEWHAND to the next."""

    number: int
    order: tuple[int, ...]  # the seats dealt in, in deal order; empty when unknown
    doubt: str | None  # frames were lost in this (followed) hand: why it may not fit
    doubt_told: bool  # the device that lost them was reported offline to the floor
    announced: bool  # its number is public: events under way belong to it

    @property
    def live(self) -> bool:
        """Under way: its end (the push, a misdeal, a cancellation) has not come yet."""
        ...

    @property
    def tracked(self) -> bool:
        """Followed card by card against the rules."""
        ...

    @property
    def start_stacks(self) -> Mapping[int, int] | None:
        """The stacks at the hand's start, when the hand knows them."""
        ...

    def equity_state(self) -> EquityState | None:
        """The state win probabilities are due for now; None for a hand not followed."""
        ...

    def chips_held(self, seats: Set[int], zones: Mapping[str, int]) -> dict[int, tuple[int, int]]:
        """For each of ``seats`` in the hand whose stack is known: (its chips in the hand now,
        its stack at the start); empty once the pots are decided, or for a hand not followed."""
        ...

    # --- cards ----------------------------------------------------------------------------
    def card_of(self, uid: str) -> str | None:
        """The card a tag stands for in this hand, when the hand has seen it."""
        ...

    def card_out(self, uid: str, card: str, face_up: bool, ms: int) -> None: ...
    def arrive(self, zone: str, uid: str, card: str, ms: int) -> None: ...
    def depart(self, zone: str, uid: str, ms: int) -> None: ...
    def returned(self, uid: str, bottom: bool) -> None: ...
    def pack_scanned(self, uids: list[str]) -> bool:
        """The shoe scanned a pack mid-hand; True when the hand took it as its own."""
        ...

    def defective_card(self, uid: str, what: str, cards: list[str],
                       evidence: dict[str, Any]) -> None:
        """A tag that does not belong to the deck in play left the shoe or reached a zone."""
        ...

    def stacks_counted(self, seats: set[int]) -> None:
        """The floor counted these seats' chips (cmd/stacks) while the hand is open: their
        stacks are confirmed, whatever the hand did."""
        ...

    def uncollected(self) -> bool:
        """Cards of the hand are not back in the muck or the shoe yet."""
        ...

    def too_early(self, t: str, f: tuple[str, ...], value: int) -> bool:
        """Would this frame (type, fields; ``value`` of a chip inventory) come before
        something another device saw first? (``tablesvc.core.physical_order``)"""
        ...

    # --- chips and the console --------------------------------------------------------------
    def chips(self, zone: str, value: int, before: int, added: int, ms: int) -> None: ...
    def button(self, name: str, args: list[str]) -> bool:
        """A console button of the hand; False when the hand does not know the name."""
        ...

    # --- time -------------------------------------------------------------------------------
    def expire(self, ms: int) -> None:
        """Before an input at ``ms``: what ran out before it (a card lost on its way)."""
        ...

    def tick(self, ms: int) -> None:
        """After an input at ``ms``: timers that are due fire (a bet settling, the clock)."""
        ...

    def deadline(self) -> int | None:
        """The input time at which a tick would change something in this hand, if any."""
        ...

    # --- the end ----------------------------------------------------------------------------
    def misdeal(self) -> None:
        """R10: the dealer declared a misdeal; the hand is void and every chip goes back."""
        ...

    def end(self) -> None:
        """The next NEWHAND came while the hand was still under way."""
        ...

    def collected(self) -> None:
        """The next NEWHAND: the hand's cards are back (BURN-08)."""
        ...

    # --- what the table and its commands read ----------------------------------------------
    def view(self) -> dict[str, Any]:
        """The public part of the ``state`` snapshot: street, board, active seats, pot."""
        ...

    def in_hand(self, seat: int) -> bool:
        """The seat was dealt in (it may not be unseated or reseated during the hand)."""
        ...

    def live_hand(self, seat: int) -> bool:
        """The seat still holds a live hand."""
        ...

    def small_blind_seat(self) -> int | None: ...

    def rule_dead(self, seat: int | None, ruling: str, reason: str | None) -> dict[str, Any]:
        """POT-08: the floor ruled a live hand dead or foul (``cmd/declare``)."""
        ...
