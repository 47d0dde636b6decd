"""What a dealt hand leaves behind: the records both dealers return and every reader shares.

They live apart from the dealers so that the hold'em and Omaha dealers (``simulators.holdem``,
``simulators.omaha``), the draw dealer (``simulators.draw``), the PHH writer and the tests read
one definition, and none of them has to import a dealer to learn what a hand looked like.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulators.betting import Limit

__all__ = ["ActionRecord", "Exchange", "HandRecord", "PotAward", "StackChange"]


@dataclass(frozen=True)
class ActionRecord:
    street: str
    seat: int
    action: str
    """post_ante, post_small_blind, post_big_blind, check, call, bet, raise, fold."""
    amount: int
    """Chips this action moved from the seat's stack (into its bet zone; antes into the pot)."""
    all_in: bool = False
    """The action took the seat's last chip."""
    to: int = 0
    """The seat's bet-zone total for the round after the action (0 for an ante)."""


@dataclass(frozen=True)
class PotAward:
    """One pot (main first, then the side pots) and who got what of it."""

    amount: int
    eligible: tuple[int, ...]
    """Seats that could win it, clockwise from the button's left."""
    shares: dict[int, int]
    """Seat -> chips of this pot pushed to it; the odd chip goes to the first of them."""


@dataclass(frozen=True)
class Exchange:
    """One player's turn at the draw (five-card draw), as the dealer carried it out."""

    seat: int
    announced: int
    discarded: tuple[str, ...]
    received: tuple[str, ...]
    """In the order they left the shoe; some may come from a reshuffled pack."""


@dataclass(frozen=True)
class StackChange:
    """Chips that came to or left a stack outside the rules, as it really happened.

    ``kind``: ``take`` (chips off the table, TABLE-06), ``add`` (chips brought from outside
    the table, a purchase: TABLE-08, and mid-hand BET-23) or ``transfer`` (from ``seat``'s
    stack to ``to_seat``'s, TABLE-08). ``hand`` is the hand under way when ``mid_hand``,
    otherwise the last hand dealt before it (0: before the first).
    """

    kind: str
    seat: int
    amount: int
    hand: int
    mid_hand: bool
    to_seat: int | None = None

    @property
    def deltas(self) -> dict[int, int]:
        """Seat -> what its stack gained (negative: lost)."""
        if self.kind == "take":
            return {self.seat: -self.amount}
        if self.kind == "add":
            return {self.seat: self.amount}
        assert self.to_seat is not None
        return {self.seat: -self.amount, self.to_seat: self.amount}


@dataclass(frozen=True)
class HandRecord:
    """What was dealt and what happened, for tests and for a person reading a run."""

    number: int
    button: int
    seats: tuple[int, ...]
    """Seats dealt in, clockwise from the button's left (s_1..s_N of RULES.md §2.2)."""
    small_blind_seat: int
    big_blind_seat: int
    stacks_before: dict[int, int]
    hole_cards: dict[int, tuple[str, ...]]
    """Seat -> its hole cards in the order it received them: two in hold'em, four in Omaha."""
    board: tuple[str, ...]
    burns: tuple[str, ...]
    deal: tuple[tuple[str, str], ...]
    """(card, zone) in the order the cards left the shoe: the true deal sequence."""
    actions: tuple[ActionRecord, ...]
    folds: tuple[int, ...]
    gathered: tuple[int, ...]
    """Value moved from the bet zones into the pot at the end of each betting round."""
    pot: int
    showdown: bool
    winners: dict[int, int]
    """Seat -> chips pushed to it (uncalled chips coming back included)."""
    stacks_after: dict[int, int]
    left: tuple[int, ...]
    """Seats that lost their last chip and left the table."""
    antes: dict[int, int] = field(default_factory=dict)
    """Seat -> ante it put into the pot (dead money: every seat still in can win it)."""
    returned: dict[int, int] = field(default_factory=dict)
    """Seat -> uncalled chips the dealer handed back out of its bet zone (``Habits``)."""
    pots: tuple[PotAward, ...] = ()
    limit: str = Limit.NO_LIMIT.value
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    ante_mode: str = "each"
    unit: int = 1
    """The smallest chip: pots are split in whole units of it."""
    variant: str = "holdem"
    """``holdem``, ``omaha`` or ``draw5``."""
    outcome: str = ""
    """``showdown``, ``uncontested`` or (five-card draw) ``checked_out``."""
    # five-card draw only; ``button`` is the dealer, ``seats`` start with the Vorhand and
    # the blind seats are 0
    dealt: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """Seat -> the five cards of the deal, in the order it received them."""
    final_cards: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """Seat -> the cards it held last: at the showdown, when it folded, or when the game was
    checked out."""
    exchanges: tuple[Exchange, ...] = ()
    """The draw, in the order the players exchanged."""
    opener: int | None = None
    """The first seat that bet in the first round (it acts first in the second)."""
    reshuffles: tuple[tuple[str, ...], ...] = ()
    """Each pack made of the bottom card and the finished players' discards, top first."""
    bottom_cards: tuple[str, ...] = ()
    """The card never dealt: the stub's bottom card, then the last card of each new pack."""
    carried_in: int = 0
    """Pot a checked-out game left in the pot zone before this game's antes."""
    carried_over: int = 0
    """Pot this game leaves in the pot zone for the next one (it was checked out)."""
    showdown_order: tuple[int, ...] = ()
    """Draw showdown order: left of the last bettor or raiser first (SHOW-14)."""
    stack_changes: tuple[StackChange, ...] = ()
    """Chips that came to or left the stacks outside the rules during this hand: with them,
    ``stacks_after`` is ``stacks_before`` less what each seat paid, plus what was pushed to
    it, plus their ``deltas``."""

    @property
    def reshuffled(self) -> bool:
        return bool(self.reshuffles)

    @property
    def draws(self) -> dict[int, int]:
        """Seat -> how many cards it exchanged."""
        return {e.seat: len(e.received) for e in self.exchanges}

    @property
    def players(self) -> tuple[int, ...]:
        """Seats in PHH player order: p1 is ``players[0]`` (the seat left of the button)."""
        return self.seats

    def street_actions(self, street: str) -> list[ActionRecord]:
        return [a for a in self.actions if a.street == street]

