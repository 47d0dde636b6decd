"""What the ledger answers with: the records of one hand's chips, in poker terms.

The ledger (``tablesvc.core.ledger``) is told what the bet zones hold and answers with these:
a forced bet posted, an action booked, an uncalled bet returned, a problem the rules name, a
five-card draw game checked out (BET-20/22, POT-10), the hand settled (who shows what, who gets
which pot). The session turns them into events and alerts; the betting plans and the monitors
read them. They are plain records: no rule is decided here, so this module declares no
``RULES`` (a ``Problem`` carries the rule ID of the ``Violation`` it was built from, declared
where that is built: ``tablesvc.core.betting`` and ``tablesvc.core.ledger``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tablesvc.core.betting import Decision, Violation
from tablesvc.core.pots import Award
from tablesvc.core.showdown import HandValue


@dataclass(frozen=True, slots=True)
class Posted:
    """A forced bet the service posted from the tracked stack."""

    seat: int
    action: str  # post_small_blind, post_big_blind, post_ante
    amount: int
    stack: int  # after posting
    pot: int  # everything put in so far, this post included


# not frozen: one is made for every action, and a frozen dataclass's __init__ (a setattr call
# per field) cost a measurable share of it; nothing changes one once it is made
@dataclass(slots=True)
class Acted:
    """A voluntary action, final and applied."""

    decision: Decision
    street: str
    raised: bool  # it put the round's highest bet up
    deemed: str | None = None  # "clock" (BET-17) or "absent" (BET-16): the dealer applies it
    stack: int = 0  # the seat's stack right after the action
    pot: int = 0  # everything put in so far, right after the action


@dataclass(frozen=True, slots=True)
class Returned:
    """An uncalled bet given back to its seat when the round is over (the zone went down)."""

    seat: int
    amount: int
    stack: int  # after the return
    pot: int  # everything put in so far, after the return


@dataclass(frozen=True, slots=True)
class Problem:
    """Something the chips show that the rules do not allow; the table raises the alert."""

    violation: Violation
    seat: int | None


@dataclass(frozen=True, slots=True)
class CheckedOut:
    """Five-card draw: everyone checked (BET-20, BET-22): the game ends with no winner and
    the pot stays in the middle for the next game (POT-10)."""

    street: str
    carried: int  # the whole pot, antes and bets


@dataclass(frozen=True, slots=True)
class Shown:
    seat: int
    cards: tuple[str, ...]
    value: HandValue
    tabled: bool  # shown at the table; False: the player may muck unseen


@dataclass(frozen=True, slots=True)
class Settled:
    """The hand is decided: who shows what, and who gets which pot."""

    showdown: tuple[Shown, ...]
    awards: tuple[Award, ...]
    uncontested: bool
    contested_pots: int = 1  # pots more than one live seat could win (side pots + main)


LedgerOutcome = Posted | Acted | Problem | Settled | Returned | CheckedOut
