"""The service's sign of life: its retained ``status`` again every ``ALIVE_EVERY_S``.

A frozen box keeps its connection open, and the broker publishes its will only once it gives
up on it (a minute or more on some brokers): the floor would go on showing the table online.
So the pipeline's thread has the status said again every few seconds, and a consumer that
hears nothing knows the table is stuck (tests/integration/test_floor_frozen_table.py). The period
is shortened here so that the tests see many periods quickly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tablesvc import __version__
from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.pipeline import publisher as publisher_module
from tablesvc.pipeline.outbox import Message, Outbox
from tests.conftest import Subscriber
from tests.integration.conftest import served_in_process
from tests.integration.test_publisher import event, make_publisher

pytestmark = pytest.mark.integration

PREFIX = "tablesvc/v1/v/t"


def test_an_idle_service_says_its_status_again_every_period_and_only_its_status(
        tmp_path: Path, broker: Mosquitto, monkeypatch: pytest.MonkeyPatch,
        subscriber_factory: Callable[[str], Subscriber]) -> None:
    monkeypatch.setattr(publisher_module, "ALIVE_EVERY_S", 0.2)
    sub = subscriber_factory(f"{PREFIX}/#")
    with served_in_process(tmp_path, broker.port) as service:
        wait_until(lambda: len(sub.on("status")) >= 2 and bool(sub.on("state")) and any(
            e["type"] == "service_started" for e in sub.events()), 10,
            "the greeting, the start and a first sign of life")
        others = len(sub.messages) - len(sub.on("status"))
        said = len(sub.on("status"))
        wait_until(lambda: len(sub.on("status")) >= said + 4, 10, "four more signs of life")
        statuses = sub.on("status")
        assert service.publisher is not None
        boot = service.publisher.boot
    # the same payload every time, and nothing else said with it: no state, no devices
    assert all(s == {"state": "online", "version": __version__, "boot": boot}
               for s in statuses), statuses
    with sub.lock:
        said_else = [m.topic for m in sub.messages if not m.topic.endswith("/status")]
    assert len(said_else) == others, said_else


def test_the_sign_of_life_leaves_the_events_to_the_pipeline_thread_that_hands_them_over(
        tmp_path: Path, broker: Mosquitto, monkeypatch: pytest.MonkeyPatch,
        subscriber_factory: Callable[[str], Subscriber]) -> None:
    """The pipeline writes its events to the broker's socket itself when the publisher is
    free (``send_now``); a status due must not send them the long way round, through the
    publisher thread, which costs a thread's wake-up and the pipeline's wait for it. Here a
    sign of life is due at every step, the worst case."""
    monkeypatch.setattr(publisher_module, "ALIVE_EVERY_S", 0.0)
    sub = subscriber_factory(f"{PREFIX}/#")
    outbox = Outbox(tmp_path / "o.sqlite")
    pub = make_publisher(broker.port, outbox, "5")
    pub.start()
    try:
        wait_until(lambda: pub.connected, 10, "connection")
        wait_until(pub.send_now, 10, "the routes live (nothing left in the outbox)")
        here = 0
        for seq in range(1, 101):  # what Service.step does, then a batch's hand-over
            pub.alive()
            before = pub.published
            pub.submit([Message(seq, "events", event(seq), 0, 0)], wake=False)
            if pub.send_now():
                here += 1
                assert pub.published == before + 1, f"send_now returned before event {seq}"
            else:  # the publisher thread was in a round (a PUBACK): woken, it sends it
                pub.let_send(5.0)
        # (a round of the publisher thread can overlap now and then on a busy box)
        assert here >= 50, f"only {here} of 100 events sent by the submitting thread"
        wait_until(lambda: len(sub.events("events")) == 100, 10, "all 100 events")
        wait_until(lambda: len(sub.on("status")) >= 100, 10, "a status at every step")
        assert [e["seq"] for e in sub.events("events")] == list(range(1, 101))
        assert {json.dumps(s, sort_keys=True) for s in sub.on("status")} == {
            json.dumps({"boot": 0, "state": "online", "version": "t"}, sort_keys=True)}
    finally:
        pub.stop()
        outbox.close()
