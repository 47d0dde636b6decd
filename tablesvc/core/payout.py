"""The end of a hand's money: the uncalled bet back, the pots built and awarded, and who must
table his cards.

When one live seat is left or the showdown comes, the ledger (``tablesvc.core.ledger``) hands
its state to :func:`settle`. What only one seat put in beyond every other seat's total goes
back to him; the side pots are built (POT-01/02) with the antes as dead money every live seat
can win; the game's plan ranks the hands; the pots are split among equal hands with the odd
chip by position (POT-03/04); an uncontested pot is won unseen (POT-07). Who must table his
cards: every winner of a contested pot, everyone when a player is all-in (A-19), every hand
in a game where everyone shows (SHOW-14), and anyone at least as good as the best hand shown
before him in the plan's showing order (SHOW-01/02). Nothing here raises an alert (the
settlement's alerts are ``tablesvc.core.monitors.settlement``'s), so no ``RULES``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tablesvc.core.betting_plan import LedgerState
from tablesvc.core.ledger_outcomes import Settled, Shown
from tablesvc.core.pots import Pot, award_pots, build_pots
from tablesvc.core.showdown import HandValue


def return_uncalled(led: LedgerState) -> None:
    """What only one live seat put in, above everything any other seat matched, was never
    won by anyone: it goes back to him, not into a pot (whether the dealer hands it back
    before or pushes it with the pot, the stacks come out the same)."""
    if not led.contributed:
        return
    top = max(led.contributed, key=lambda s: led.contributed[s])
    others = max((c for s, c in led.contributed.items() if s != top), default=0)
    uncalled = led.contributed[top] - others
    if uncalled > 0 and top not in led.folded:  # a folded seat's chips are dead money
        led.contributed[top] -= uncalled
        led.stacks[top] += uncalled


def settle(led: LedgerState, uncontested: bool,
           holes: Mapping[int, Sequence[str]] | None = None, board: Sequence[str] = ()) -> Settled:
    """The hand is decided (one live seat left, or the showdown of ``holes`` with ``board``):
    the uncalled bet goes back, the pots are built with the antes, ranked with the game's plan
    and awarded into the stacks; says who must table his cards."""
    return_uncalled(led)
    live = led.live
    try:
        pots = build_pots(led.contributed, live)
    except ValueError:
        # the players left put nothing in (cards collected before anyone acted): the
        # chips in the middle are dead money for them
        pots = [Pot(sum(led.contributed.values()), tuple(sorted(live)))]
    if led.antes:
        # dead money every live seat can win, also one all-in for his ante alone
        all_live = tuple(sorted(live))
        if pots[0].eligible == all_live:
            pots[0] = Pot(pots[0].amount + led.antes, all_live)
        else:
            pots.insert(0, Pot(led.antes, all_live))
    values: dict[int, HandValue] = {}
    if uncontested:
        strength: dict[int, tuple[int, ...]] = {s: () for s in live}
    else:
        assert holes is not None
        rank = led.plan.rank
        values = {s: rank(holes[s], board) for s in live}
        strength = {s: v.key for s, v in values.items()}
    all_in = any(led.shown(s) == 0 for s in live)  # before the awards refill stacks
    awards = award_pots(pots, strength, led.button, list(led.order), led.unit)
    for a in awards:
        for seat, amount in a.shares.items():
            led.stacks[seat] += amount
    shown: list[Shown] = []
    if not uncontested and holes is not None:
        # who must table his cards: every winner of a contested pot, everyone when a
        # player is all-in, and anyone at least as good as the best hand shown
        # before him; the others may muck unseen, and the public feed never shows them
        contested = {s for a in awards if len(pots[a.pot].eligible) > 1 for s in a.winners}
        best: tuple[int, ...] | None = None
        everyone = led.plan.everyone_shows
        for s in led.plan.show_order(led, live):
            v = values[s]
            tabled = everyone or all_in or s in contested or best is None or v.key >= best
            if best is None or v.key > best:
                best = v.key
            shown.append(Shown(s, tuple(holes[s]), v, tabled))
    contested_pots = sum(1 for p in pots if len(p.eligible) > 1)
    return Settled(tuple(shown), tuple(awards), uncontested, contested_pots)
