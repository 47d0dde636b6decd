"""The virtual dealer's hand-over pause: a fast dealer whose players still act like people.

Frames of two devices written within a millisecond of each other can reach the service's
per-device readers in either order, which no real table does: a player does not bet a
millisecond after the dealer's button. The memory bench deals thousands of hands at a fast
pace with this pause so that the hands stay in order.
"""

from __future__ import annotations

import pytest

from drivers.tsp import decode
from simulators.felt import Pacer
from simulators.virtual import recorded_table


def test_pause_is_longer_only_where_a_person_hands_over_to_another_device() -> None:
    pacer = Pacer(0.001, handover=0.005)
    assert pacer.pause_before("cards") == 0.001  # the first action of all
    assert pacer.pause_before("cards") == 0.001  # the dealer goes on pitching cards
    assert pacer.pause_before("console") == 0.005  # his button after the cards
    assert pacer.pause_before("chips") == 0.005  # a player's bet after the button
    assert pacer.pause_before("chips") == 0.001  # the next bet zone, same reader
    assert pacer.pause_before("cards") == 0.005  # the dealer after the bets
    assert pacer.pause_before("shoe") == 0.001  # the dealer's own hands: no person
    assert pacer.pause_before(None) == 0.001  # the shuffle: seen by no device
    assert pacer.pause_before("console", boundary=True) == 0.02  # NEWHAND after the cards


def test_without_handover_every_action_takes_the_pace() -> None:
    pacer = Pacer(0.002)
    assert {pacer.pause_before(d) for d in ("cards", "console", "chips", "shoe")} == {0.002}


def test_negative_handover_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        Pacer(0.0, handover=-0.001)


def test_handover_pause_changes_the_timing_of_a_hand_not_its_frames() -> None:
    seats = {1: 5000, 2: 5000, 3: 5000}
    plain, plain_frames = recorded_table(seats, seed=11, hello=False)
    paused, paused_frames = recorded_table(seats, seed=11, hello=False, handover=0.0005)
    plain.play_hand()
    paused.play_hand()
    dealt = [raw for _, raw in paused_frames if decode(raw.decode().rstrip()).type == "ARR"]
    assert len(dealt) >= 6  # a hand was dealt: three seats' hole cards at least
    assert paused_frames == plain_frames
