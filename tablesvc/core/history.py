"""The hand as it happened, in PHH action notation, for the ``hand_history`` event.

Players are numbered as PHH numbers them: p1 is the first seat left of the button (heads-up,
the big blind), the button is last — the deal order of RULES.md §2.2, ``Ledger.order``.
Showdown actions (``sm``) are optional in PHH and left out: readers such as pokerkit show
hands in their own order, and every hole card is already in the ``dh`` lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tablesvc.core.betting import Decision
from tablesvc.core.ledger import Ledger
from tablesvc.core.phh import PhhHand, dumps


@dataclass
class HistoryBook:
    """Collects one hand's PHH actions as the table reports them. ``variant`` is the game's
    PHH code at the hand's limit (``NT``: no-limit hold'em, ``PO``: pot-limit Omaha, ...)."""

    order: tuple[int, ...]
    variant: str
    actions: list[str] = field(default_factory=list)

    def p(self, seat: int) -> str:
        return f"p{self.order.index(seat) + 1}"

    def hole(self, seat: int, cards: tuple[str, ...]) -> None:
        self.actions.append(f"d dh {self.p(seat)} {''.join(cards)}")

    def board(self, cards: tuple[str, ...]) -> None:
        self.actions.append(f"d db {''.join(cards)}")

    def act(self, d: Decision, raised: bool) -> None:
        """``raised``: the action put the round's highest bet up (PHH ``cbr``, else ``cc``)."""
        if d.action == "fold":
            self.actions.append(f"{self.p(d.seat)} f")
        elif raised:
            self.actions.append(f"{self.p(d.seat)} cbr {d.to}")
        else:
            self.actions.append(f"{self.p(d.seat)} cc")

    def phh(self, ledger: Ledger, names: Mapping[int, str], *, hand: int,
            table: str, venue: str, seats: int) -> str:
        n = len(self.order)
        antes = [0] * n
        if ledger.ante:
            if ledger.ante_mode == "each":
                antes = [ledger.ante] * n
            else:
                antes[1] = ledger.ante
        return dumps(PhhHand(
            variant=self.variant, antes=antes,
            blinds_or_straddles=[ledger.small_blind, ledger.big_blind] + [0] * (n - 2),
            min_bet=ledger.big_blind,
            starting_stacks=[ledger.start_stacks[s] for s in self.order],
            actions=list(self.actions), players=[names.get(s, f"seat {s}") for s in self.order],
            seats=list(self.order), seat_count=seats, hand=hand, table=table, venue=venue,
            finishing_stacks=[ledger.shown(s) for s in self.order]))
