"""How the pot went, for the floor's record (POT-01/03/04/07): info alerts only.

The showing order is the game's own rule (SHOW-01 in hold'em, SHOW-14 in draw): the hand
session says it, under the rule its game names, just before this report."""

from __future__ import annotations

from typing import ClassVar

from tablesvc.core.emitter import Emitter
from tablesvc.core.ledger_outcomes import Settled
from tablesvc.core.monitors.base import Monitor


class SettlementReport(Monitor):
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "POT-07": ("pot_uncontested",),
        "POT-01": ("side_pot_required",),
        "POT-03": ("split_pot",),
        "POT-04": ("odd_chip_assignment",),
    }

    def __init__(self, out: Emitter) -> None:
        self.out = out

    def settled(self, st: Settled) -> None:
        alert = self.out.alert
        if st.uncontested:
            winner = st.awards[0].winners[0] if st.awards else None
            alert("pot_uncontested", "POT-07", "info",
                  f"everyone else folded: seat {winner} wins without showing", seat=winner)
            return
        if st.contested_pots > 1:
            alert("side_pot_required", "POT-01", "info",
                  "pots: " + "; ".join(f"{_pot(a.pot)} {a.amount}" for a in st.awards))
        for a in st.awards:
            if len(a.winners) > 1:
                alert("split_pot", "POT-03", "info",
                      f"{_pot(a.pot)} pot of {a.amount} split: "
                      + ", ".join(f"seat {s} {v}" for s, v in a.shares.items()))
            if a.odd_chip_seat is not None:
                alert("odd_chip_assignment", "POT-04", "info",
                      f"the odd chip of the {_pot(a.pot)} pot goes to seat {a.odd_chip_seat}, "
                      "the first winner left of the button", seat=a.odd_chip_seat)


def _pot(index: int) -> str:
    return "main" if index == 0 else f"side {index}"
