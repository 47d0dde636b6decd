"""Frames read out of their physical order right after a restart that lost the NEWHAND.

Found end to end (a SIGKILL at a hand boundary, the dealer's NEWHAND in the outage): the first
card's arrival was read a moment before its draw from the shoe. With no hand under way, it
went to the hand before (the deck is the same), which then reported that card as never
collected (a critical ``card_unaccounted``) when the missed hand began. A card landing in play
while no hand runs must wait for its draw like any other card.
"""

from __future__ import annotations

import pytest

from tests.room import Reader, Session
from tests.unit.test_room_accidents import SEATS, core_result, count_stacks, table_result


def first_card(frames: list[tuple[str, bytes]]) -> int:
    """Index of the first shoe DRAW (its ARR follows it)."""
    return next(i for i, (dev, raw) in enumerate(frames) if dev == "shoe" and b"DRAW" in raw)


@pytest.mark.parametrize("step_ms", [10, 40])
def test_a_card_read_before_its_draw_after_a_lost_newhand_is_no_card_of_the_hand_before(
        step_ms: int) -> None:
    """The draw read ``step_ms`` after the card's arrival, within the tolerance (50 ms)."""
    session = Session(SEATS, hands=4, seed=5, aggression=0.2)
    r = Reader(session, step_ms=step_ms, order_tolerance_ms=50)
    r.frames(session.before(2))
    hand2 = list(session.hand(2))
    assert hand2[0][0] == "console"  # the NEWHAND, lost in the outage
    i = first_card(hand2)
    assert hand2[i + 1][0] == "cards"
    hand2[i], hand2[i + 1] = hand2[i + 1], hand2[i]  # its arrival read first
    r.restart(down_ms=2000)
    r.frames(hand2[:1], lost=frozenset({"console"}))
    r.frames(hand2[1:])
    assert r.alerts() == [("hand_untracked", "warning")]
    count_stacks(r, session, 2)
    r.frames(session.frames[session.starts[2]:])
    assert r.alerts() == [("hand_untracked", "warning")]
    for n in (3, 4):
        assert core_result(r, n) == table_result(session, n)
