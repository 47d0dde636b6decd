"""A paused dealer sent on for a given number of actions stops again exactly there.

The end-to-end tests of a room's accidents use it to stop the dealer at a point they cannot
watch (right after the NEWHAND, while the service is down).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from drivers.tsp import decode
from simulators.table import HandRecord
from simulators.virtual import recorded_table


def until(pred: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + 30
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.005)
    raise AssertionError(f"timed out waiting for {what}")


def test_resume_for_two_actions_stops_the_dealer_right_after_his_newhand() -> None:
    table, frames = recorded_table({1: 5000, 2: 5000, 3: 5000}, seed=4, pace=0.001,
                                   hello=False)
    table.pause()
    records: list[HandRecord] = []
    dealer = threading.Thread(target=lambda: records.append(table.play_hand()))
    dealer.start()
    try:
        until(lambda: table.waiting, "the dealer to stand still at the shuffle")
        assert frames == []
        table.resume(steps=2)  # the shuffle and cut, then NEWHAND
        assert not table.waiting  # on his way until the two actions are done
        until(lambda: table.waiting, "the dealer to stand still after NEWHAND")
        time.sleep(0.05)
        assert [(dev, decode(raw.decode().strip()).fields) for dev, raw in frames] == [
            ("console", ("NEWHAND",))]
        table.resume(steps=3)  # both blinds, then the first card
        until(lambda: table.waiting, "the dealer to stand still after the first card")
        time.sleep(0.05)
        kinds = [decode(raw.decode().strip()).type for _, raw in frames]
        assert kinds == ["BTN", "CHIPS", "CHIPS", "DRAW", "ARR"]
    finally:
        table.resume()
        dealer.join(30)
    assert not dealer.is_alive() and len(records) == 1
