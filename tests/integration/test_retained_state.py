"""The retained ``state`` is the table as it is, for an overlay or floor screen that joins late.

The pipeline sets it at most every ``STATE_EVERY_S`` (in a burst of frames the snapshot was
made, serialised, published and acknowledged for every batch, on the thread that carries the
next events). What a late joiner must still get: the state after the last input, without any
further input to push it out.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.core.inputs import Command
from tablesvc.pipeline import service as service_module
from tablesvc.pipeline.clock import stamp
from tablesvc.pipeline.service import Service
from tests.conftest import Subscriber
from tests.integration.conftest import served_in_process

pytestmark = pytest.mark.integration

PREFIX = "tablesvc/v1/v/t"
INTERVAL_S = 1.0
"""Long beside the burst below (a tenth of it), so that how many states it published does not
depend on this machine's pace."""


@pytest.fixture
def running(tmp_path: Path, broker: Mosquitto,
            monkeypatch: pytest.MonkeyPatch) -> Iterator[Service]:
    monkeypatch.setattr(service_module, "STATE_EVERY_S", INTERVAL_S)
    with served_in_process(tmp_path, broker.port) as service:
        yield service


def _seat(n: int) -> Command:
    ts, ms = stamp()
    return Command(ts, ms, "seat", {"request_id": f"r{n}", "seat": n, "name": f"P{n}",
                                    "stack": 1000 * n})


def _seats(state: Any) -> set[int]:
    return {p["seat"] for p in state.get("players", [])} if isinstance(state, dict) else set()


def test_a_burst_of_inputs_sets_the_state_once_and_a_late_joiner_gets_the_last_one(
        running: Service, subscriber_factory: Callable[[str], Subscriber]) -> None:
    watcher = subscriber_factory(f"{PREFIX}/state")
    wait_until(lambda: bool(watcher.on("state")), 10, "the state after the service started")
    time.sleep(INTERVAL_S)  # the first input of the burst may set it at once
    before = len(watcher.on("state"))
    for n in range(1, 10):  # nine commands, ten milliseconds apart: several batches
        running.inputs.put(_seat(n))
        time.sleep(0.01)
    # with no input after the burst, the state of its last input still goes out
    wait_until(lambda: _seats(watcher.on("state")[-1]) == set(range(1, 10)),
               3 * INTERVAL_S, "the state with all nine seats")
    burst = watcher.on("state")[before:]
    assert len(burst) <= 2, [sorted(_seats(s)) for s in burst]  # (at once, then the last)
    late = subscriber_factory(f"{PREFIX}/state")
    wait_until(lambda: bool(late.on("state")), 10, "the retained state")
    assert _seats(late.on("state")[-1]) == set(range(1, 10))
    assert late.on("state")[-1]["last_seq"] == running.core.seq
