"""A dealer asked to make the hand under way his last deals it to its end at his pace.

``make demo``'s Ctrl-C relies on it: a stop request cuts the pace and deals the rest of the
hand at once (frames of different devices then race to the service, which rightly judges a
burn before the betting's end premature); ``last`` keeps every action a pace after the one
before, and no other hand begins.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from drivers.tsp import decode
from simulators.virtual import recorded_table


def until(pred: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + 30
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.005)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_last_hand_is_dealt_to_its_end_at_a_pace_and_no_other_begins() -> None:
    table, frames = recorded_table({1: 5000, 2: 5000, 3: 5000, 4: 5000}, seed=5,
                                   pace=0.001, hello=False)
    pacer = table.felt.pacer
    last = threading.Event()
    played: list[int] = []
    table.pause()
    dealer = threading.Thread(target=lambda: played.append(table.run(None, last=last)))
    dealer.start()
    try:
        until(lambda: table.waiting, "the dealer to stand still at the shuffle")
        table.resume(steps=5)  # the shuffle, NEWHAND, both blinds, the first card
        until(lambda: table.waiting, "the dealer to stand still after the first card")
        last.set()
        table.set_pace(0.01)
        steps_before = pacer.steps
        began = time.monotonic()
        table.resume()
        dealer.join(30)
        took = time.monotonic() - began
    finally:
        table.resume()
        dealer.join(30)
    assert not dealer.is_alive() and played == [1] and table.hands_played == 1
    # every action after the request waited out the pace: none followed another at once
    assert pacer.steps - steps_before > 10
    assert took >= (pacer.steps - steps_before) * 0.01
    newhands = [f for _, raw in frames if (f := decode(raw.decode().strip())).type == "BTN"
                and f.fields[:1] == ("NEWHAND",)]
    assert len(newhands) == 1
    assert table.last_hand is not None and table.last_hand.outcome in ("showdown",
                                                                       "uncontested")


def test_set_pace_refuses_a_negative_pace() -> None:
    table, _ = recorded_table({1: 5000, 2: 5000}, seed=1, hello=False)
    with pytest.raises(ValueError, match="negative"):
        table.set_pace(-0.1)
