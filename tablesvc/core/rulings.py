"""The rulings a followed hand is asked for at the dealer's console or by the floor.

The dealer presses a button, or the floor sends a command, and the hand rules on it: a player
is away from the table (BET-18 if he leaves a live hand he has bet in, SEAT-06 when his blind
is posted from his stack; his turns are then the ledger's BET-16), a player exposed his own
card (EXPOSE-05), the dealer knocks with issues of the round still open (BOARD-04), a hand is
foul at the showdown (SHOW-09) or ruled dead or foul by the floor (POT-08). Each is a function
of the hand (``AnyHand``) that raises its one alert and tells the hand's ledger and tracker
what follows; ``RULES`` declares them. The session decides which button asks for which.
"""

from __future__ import annotations

from typing import Any

from tablesvc.core.commands import CommandError
from tablesvc.core.game import AnyHand
from tablesvc.core.ledger_outcomes import Acted, Posted

RULES: dict[str, tuple[str, ...]] = {
    "BET-18": ("player_left_with_live_hand",),
    "SEAT-06": ("absent_stack_blinded",),
    "EXPOSE-05": ("player_exposed_own_card",),
    "BOARD-04": ("round_closed_with_open_issue",),
    "SHOW-09": ("foul_hand_card_count",),
    "POT-08": ("foul_hand",),
}


def player_absent(session: AnyHand, seat: int) -> None:
    """The console says a player is away from the table."""
    _left_with_live_hand(session, seat)
    ledger, tracker = session.ledger, session.tracker
    posted = [o for o in ledger.history if isinstance(o, Posted)
              and o.seat == seat and o.action != "post_ante"]
    if posted and seat in tracker.active:
        session.out.alert("absent_stack_blinded", "SEAT-06", "info",
                          f"seat {seat} is away; his blind of {posted[0].amount} "
                          "is posted from his stack", seat=seat)
    session.money(ledger.absent(seat))  # first: the fold is then his own
    session.outcomes(tracker.player_absent(seat, session.window_open))


def _left_with_live_hand(session: AnyHand, seat: int) -> None:
    """BET-18: a player with a live hand in which he has put chips must stay seated."""
    ledger = session.ledger
    if seat not in session.tracker.active:
        return
    if ledger.contributed.get(seat, 0) > 0 and any(
            isinstance(a, Acted) and a.decision.seat == seat for a in ledger.history):
        session.out.alert("player_left_with_live_hand", "BET-18", "warning",
                          f"seat {seat} left the table with a live hand he has bet in",
                          seat=seat, remedy="floor decision, a penalty is possible; when his "
                          "turn comes he is treated as absent (BET-16)")


def self_exposed(session: AnyHand, uid: str) -> None:
    """EXPOSE-05: a card the player exposed himself is his: no replacement, no misdeal."""
    seat = session.tracker.owner(uid)
    session.out.alert("player_exposed_own_card", "EXPOSE-05", "info",
                      f"seat {seat} exposed his own card" if seat else "a player exposed a card",
                      seat=seat, remedy="the player keeps the card; no replacement and no "
                      "misdeal; if he showed it to another player, show one, show all (SHOW-10)")


def knock(session: AnyHand) -> None:
    """BOARD-04: the dealer knocks before the next street; after it, objections about the
    round just played are not recognised, so an issue still open must be settled now."""
    ledger = session.ledger
    if ledger.round is None:
        return
    session.money(ledger.finalize())
    rnd = ledger.round
    issues = [f"seat {s}'s out-of-turn bet is still held" for s in sorted(ledger.held)]
    issues += [f"seat {s} is {rnd.to_call(s)} short of the bet" for s in rnd.active
               if ledger.stacks.get(s, 0) > 0 and rnd.to_call(s) > 0]
    if issues:
        session.out.alert("round_closed_with_open_issue", "BOARD-04", "warning",
                          "the dealer knocked while the betting round has open issues: "
                          + "; ".join(issues), remedy="settle them before dealing the next "
                          "street; after the knock they are no longer recognised")


def foul(session: AnyHand, seat: int, held: int, right: str) -> bool:
    """SHOW-09: a hand with the wrong number of cards at the showdown is foul and cannot
    win. True when killing it decided the hand (one player left)."""
    session.out.alert("foul_hand_card_count", "SHOW-09", "critical",
                      f"seat {seat} holds {held} cards at the showdown ({right}): the hand is "
                      "foul and cannot win; its chips stay in the pot", seat=seat,
                      remedy="the dealer kills the hand (POT-08)")
    session.tracker.fold(seat)
    session.money(session.ledger.kill(seat))
    return session.ledger.settled is not None or session.tracker.ended


def rule_dead(session: AnyHand, seat: int | None, ruling: str,
              reason: str | None) -> dict[str, Any]:
    """POT-08: the floor ruled a live hand dead or foul (``cmd/declare``)."""
    hand = session.tracker
    if seat is None or seat not in hand.active:
        raise CommandError(f"a {ruling} ruling needs the seat of a live hand; live: "
                           f"{', '.join(map(str, hand.active))}")
    word = "dead" if ruling == "dead_hand" else "foul"
    session.out.alert("foul_hand", "POT-08", "warning",
                      f"the floor ruled seat {seat}'s hand {word}"
                      + (f" ({reason})" if reason else "")
                      + ": it cannot win, and its chips stay in the pot", seat=seat,
                      remedy="the dealer kills the hand: its cards go to the muck")
    session.outcomes(hand.fold(seat))
    return {"ruling": ruling, "seat": seat}
