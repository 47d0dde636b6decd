"""Five-card draw's betting: antes, the Vorhand opening (BET-20), the opener starting the second
round (BET-22, A-24), the game checked out when everyone checked (BET-20/22, A-23, POT-10) and
everyone showing (SHOW-14). None raises an alert, so no ``RULES``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tablesvc.core.betting import BettingRound, Structure
from tablesvc.core.betting_plan import BettingPlan, LedgerState
from tablesvc.core.ledger_outcomes import Acted, CheckedOut, LedgerOutcome, Posted
from tablesvc.core.showdown import HandValue, evaluate_draw


class DrawBetting(BettingPlan):
    """Five-card draw: antes, no blinds; the Vorhand opens, the opener starts the second
    round; everyone checked is a game without a winner (BET-20/22, A-23); every active hand
    is shown (SHOW-14); five-card hands rank as they are."""

    first_street: ClassVar[str] = "predraw"
    big_bet_streets: ClassVar[frozenset[str]] = frozenset({"postdraw"})
    everyone_shows: ClassVar[bool] = True

    def __init__(self, all_check: str = "carry_over") -> None:
        super().__init__()
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

    def rank(self, hole: Sequence[str], board: Sequence[str]) -> HandValue:
        """Five-card hands rank as they are (there is no board)."""
        return evaluate_draw([*hole, *board])
