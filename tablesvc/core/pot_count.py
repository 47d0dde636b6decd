"""The pot's count after a gathering, held against what the ledger booked.

When the POT zone's inventory grows, the chips in it should be exactly those of the finished
betting rounds (or, once the round is over, all that was bet). More is chips no player bet
(BET-23, ``chips_added_mid_hand``); less after a gathering, with nothing left in the bet zones
to explain it, is chips taken from the table (TABLE-06, ``chips_removed_from_table``), unless
the missing amount is exactly a bet nobody called that the dealer handed back whole.
``RULES`` declares both; the session calls :func:`check_gathered` for each pot that grew.
"""

from __future__ import annotations

from tablesvc.core.game import AnyHand

RULES: dict[str, tuple[str, ...]] = {
    "BET-23": ("chips_added_mid_hand",),
    "TABLE-06": ("chips_removed_from_table",),
}


def check_gathered(session: AnyHand, pot: int, gathering: bool) -> None:
    """After a gathering the POT zone should hold exactly the chips of finished rounds.

    A pot that grew while no bet zone emptied is no gathering (the antes going in, even
    when the blinds already closed the round), and chips still lying in the bet zones
    are not missing."""
    ledger = session.ledger
    if ledger.settled is not None:
        return  # the hand is decided: everything goes to the middle before the push
    expected = ledger.pot_gathered if ledger.betting_open else ledger.pot_total
    if ledger.carry_unknown:
        # games went by unseen (a gap): what the pot holds beyond what was put in it is the
        # pot they carried over, which only the table could tell. Until a round is gathered
        # the antes may still be on their way in (a reading can come between two of them):
        # the carry is the most the pot held beyond them; known for good at the gathering
        found = pot > expected
        if found:
            ledger.carry_found(pot - expected)
            session.table.carry = ledger.carried
        if not gathering:
            return
        ledger.carry_unknown = False
        if found:
            return
    zones = session.table.zones
    in_zones = sum(zones.get(f"B{seat}", 0) for seat in session.tracker.order)
    short = ledger.pot_total - pot - in_zones
    if short > 0 and gathering and not ledger.betting_open \
            and (back := ledger.handed_back_whole(short)) is not None:
        session.money([back])  # a bet nobody could call went back whole, not into the pot
        expected, short = ledger.pot_total, 0
    if pot > expected:
        session.out.alert("chips_added_mid_hand", "BET-23", "warning",
                          f"the pot holds {pot}, but only {expected} was bet into it",
                          remedy="check the pot: chips were added that no player bet")
    elif short > 0 and gathering and not ledger.betting_open and ledger.settled is None:
        session.out.alert("chips_removed_from_table", "TABLE-06", "critical",
                          f"the pot holds {pot} after gathering, but {expected} was bet",
                          remedy="stop: find the missing chips before the hand goes on")
