"""How each game bets: its forced bets, who opens each round, whether everyone shows, how its
hands rank. A game whose betting differs from hold'em's writes one of these.

The ledger (``tablesvc.core.ledger``) keeps the money rules every game shares (round totals,
bets in motion, out-of-turn bets, the clock); what differs between games is the plan's, chosen
by the game's variant, so the ledger never asks which game it serves. ``LedgerState`` is what a
plan may read and change of the ledger.

The rules carried here (by name in the docstrings; none raises an alert, so no ``RULES``):
hold'em's blinds and antes and its showing order (SHOW-01/02); five-card draw's antes
(SEAT-07), the Vorhand opening (BET-20), the opener starting the second round (BET-22, A-24),
the game checked out when everyone checked (BET-20/22, A-23, POT-10) and everyone showing
(SHOW-14).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol

from tablesvc.core.betting import BettingRound, Structure
from tablesvc.core.ledger_outcomes import Acted, CheckedOut, LedgerOutcome, Posted
from tablesvc.core.showdown import HandValue, evaluate, evaluate_draw, show_order


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


class BettingPlan:
    """How a game bets: its forced bets, who acts first in each round, whether everyone
    shows, and how its hands rank. This plan is hold'em's (blinds, then the board's streets);
    each game's plan is chosen by its variant, so the ledger's money rules never ask which
    game they serve. A plan instance belongs to one hand's ledger and may keep state of it.
    """

    first_street: ClassVar[str] = "preflop"
    everyone_shows: ClassVar[bool] = False  # SHOW-14: every active hand is shown

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

    def rank(self, cards: Sequence[str]) -> HandValue:
        """The best five of the hole cards and the board."""
        return evaluate(cards)


class DrawBetting(BettingPlan):
    """Five-card draw: antes, no blinds; the Vorhand opens, the opener starts the second
    round; everyone checked is a game without a winner (BET-20/22, A-23); every active hand
    is shown (SHOW-14); five-card hands rank as they are."""

    first_street: ClassVar[str] = "predraw"
    everyone_shows: ClassVar[bool] = True

    def __init__(self, all_check: str = "carry_over") -> None:
        self.all_check = all_check  # draw.second_round_all_check
        self.opener: int | None = None  # the first to bet in the first round (BET-22)

    def post_forced(self, led: LedgerState) -> list[LedgerOutcome]:
        """Every player antes (SEAT-07); no blinds; the Vorhand opens (BET-20)."""
        out: list[LedgerOutcome] = []
        for s in led.order:
            amount = min(led.ante, led.stacks[s])
            if amount:
                led.stacks[s] -= amount
                led.antes += amount
                out.append(Posted(s, "post_ante", amount, led.shown(s), led.pot_total))
        led.history.extend(o for o in out if isinstance(o, Posted))
        led.street = "predraw"
        led.round = self._round(led, "predraw", list(led.order))
        return out

    def _round(self, led: LedgerState, street: str, order: list[int]) -> BettingRound:
        fixed = led.structure is Structure.FIXED_LIMIT
        return BettingRound(
            street=street, order=order, stacks={s: led.stacks[s] for s in order},
            posted={}, big_blind=led.big_blind if fixed else led.unit,
            structure=led.structure, pot=led.pot_total, bet_unit=led.bet_unit(street),
            cap=4 if fixed else None)

    def open_round(self, led: LedgerState, street: str) -> BettingRound:
        """BET-22, A-24: the opener acts first; if he is out, the next active player left."""
        ring = list(led.order)
        start = ring.index(self.opener) if self.opener in ring else 0
        ring = ring[start:] + ring[:start]
        return self._round(led, street, [s for s in ring if s not in led.folded])

    def booked(self, led: LedgerState, acted: Acted) -> None:
        if led.street == "predraw" and self.opener is None and acted.raised:
            self.opener = acted.decision.seat

    def checked_out(self, led: LedgerState) -> CheckedOut | None:
        """The round is complete and nobody bet (BET-20; BET-22 per A-23)."""
        rnd = led.round
        if rnd is None or not rnd.complete or rnd.high > 0 or led.checked_out is not None:
            return None
        if led.street == "predraw" or self.all_check == "carry_over":
            return CheckedOut(led.street, led.pot_total)
        return None

    def show_order(self, led: LedgerState, live: list[int]) -> list[int]:
        """SHOW-14: clockwise, starting with the next active player after the last bettor or
        raiser of the second round; with no bet there, the Vorhand's side starts."""
        ring = list(led.order)
        last = led.round.last_aggressor if led.round is not None else None
        start = (ring.index(last) + 1) % len(ring) if last in ring else 0
        ring = ring[start:] + ring[:start]
        return [s for s in ring if s in live]

    def rank(self, cards: Sequence[str]) -> HandValue:
        return evaluate_draw(cards)
