"""How each game bets: its forced bets, who opens each round, whether everyone shows, how its
hands rank. A game whose betting differs from the blind games' writes one of these.

The ledger (``tablesvc.core.ledger``) keeps the money rules every game shares (round totals,
bets in motion, out-of-turn bets, the clock); what differs between games is the plan's, chosen
by the game's variant, so the ledger never asks which game it serves. ``LedgerState`` is what a
plan may read and change of the ledger.

The rules carried here (by name in the docstrings; none raises an alert, so no ``RULES``):
the blinds and antes of the blind games and their showing order (SHOW-01/02). Five-card
draw's plan is its own (``tablesvc.core.games.draw5.plan``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Protocol

from tablesvc.core.betting import BettingRound, Structure
from tablesvc.core.ledger_outcomes import Acted, CheckedOut, LedgerOutcome, Posted
from tablesvc.core.showdown import HandValue, evaluate, show_order


class LedgerState(Protocol):
    """What a betting plan, and the payout at the end, may read and change of one hand's
    ledger (``tablesvc.core.ledger.Ledger`` is the one there is)."""

    order: tuple[int, ...]  # s_1..s_N, the deal order: button last
    button: int
    stacks: dict[int, int]
    small_blind: int
    big_blind: int
    ante: int
    ante_mode: str
    structure: Structure
    unit: int
    contributed: dict[int, int]
    antes: int
    folded: set[int]
    round: BettingRound | None
    street: str
    history: list[Acted | Posted]
    aggressor: int | None
    checked_out: CheckedOut | None
    plan: BettingPlan

    @property
    def blind_seats(self) -> tuple[int, int]: ...
    @property
    def pot_total(self) -> int: ...
    @property
    def live(self) -> list[int]: ...
    def shown(self, seat: int) -> int: ...
    def take(self, seat: int, amount: int) -> int: ...
    def bet_unit(self, street: str) -> int: ...
    def action_order(self, preflop: bool) -> list[int]: ...


Ranking = Callable[[Sequence[str], Sequence[str]], HandValue]
"""How a game ranks a hand: its hole cards and the board -> what they are worth."""


def best_five(hole: Sequence[str], board: Sequence[str]) -> HandValue:
    """The best five of the hole cards and the board, any of them (hold'em's way)."""
    return evaluate([*hole, *board])


class BettingPlan:
    """How a game bets: its forced bets, who acts first in each round, whether everyone
    shows, and how its hands rank. This plan is the blind games' (blinds, then a round per
    street; fixed-limit bets double on the turn and the river); a game whose betting differs
    subclasses it in its own package. Each game's plan is chosen by its variant, so the
    ledger's money rules never ask which game they serve. A plan instance belongs to one
    hand's ledger and may keep state of it.
    """

    first_street: ClassVar[str] = "preflop"
    big_bet_streets: ClassVar[frozenset[str]] = frozenset({"turn", "river"})
    """Streets whose fixed-limit bet is twice the small one."""
    everyone_shows: ClassVar[bool] = False  # SHOW-14: every active hand is shown

    def __init__(self, rank: Ranking = best_five) -> None:
        self._rank = rank

    def post_forced(self, led: LedgerState) -> list[LedgerOutcome]:
        """Antes (each seat, or the big blind for all) and the blinds; pre-flop opens."""
        out: list[LedgerOutcome] = []
        sb, bb = led.blind_seats
        if led.ante:
            payers = [bb] if led.ante_mode == "big_blind" else list(led.order)
            for s in payers:
                amount = min(led.ante, led.stacks[s])
                led.stacks[s] -= amount
                led.antes += amount
                out.append(Posted(s, "post_ante", amount, led.shown(s), led.pot_total))
        posted: dict[int, int] = {}
        for seat, name, amount in ((sb, "post_small_blind", led.small_blind),
                                   (bb, "post_big_blind", led.big_blind)):
            got = led.take(seat, amount)
            posted[seat] = got
            out.append(Posted(seat, name, got, led.shown(seat), led.pot_total))
        led.history.extend(o for o in out if isinstance(o, Posted))
        led.round = BettingRound(
            street="preflop", order=led.action_order(preflop=True), stacks=dict(led.stacks),
            posted=posted, big_blind=led.big_blind, structure=led.structure,
            pot=led.antes, bet_unit=led.bet_unit("preflop"))
        return out

    def open_round(self, led: LedgerState, street: str) -> BettingRound:
        """The betting round of a street after the first: the first live seat left of the
        button acts first."""
        return BettingRound(
            street=street, order=led.action_order(preflop=False), stacks=dict(led.stacks),
            posted={}, big_blind=led.big_blind, structure=led.structure,
            pot=led.pot_total, bet_unit=led.bet_unit(street))

    def booked(self, led: LedgerState, acted: Acted) -> None:
        """An action was booked."""

    def checked_out(self, led: LedgerState) -> CheckedOut | None:
        """The game ends with no winner when everyone checked (never, in hold'em)."""
        del led
        return None

    def show_order(self, led: LedgerState, live: list[int]) -> list[int]:
        """SHOW-01/02: the last aggressor first, else the first seat left of the button."""
        return show_order(live, led.aggressor)

    def rank(self, hole: Sequence[str], board: Sequence[str]) -> HandValue:
        """What a hand is worth: the game's ranking of its hole cards and the board."""
        return self._rank(hole, board)
