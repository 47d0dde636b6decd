"""A network loop that fails does not leave the table deaf and mute.

The publisher thread runs the MQTT connection's I/O itself. Should paho raise out of it (a
callback that let an exception through, a bug in the library), the client's state can no
longer be trusted: the publisher drops it, starts a new connection and sends again what was
not acknowledged. If the loop keeps failing, the service stops with an error so that systemd
starts it afresh; a process that lived on without a working connection would answer no
command and publish nothing, and nobody would restart it.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
import structlog

from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.commands.logs import configure
from tablesvc.config.table import MqttSection
from tablesvc.pipeline.outbox import Message, Outbox
from tablesvc.pipeline.publisher import RESTARTS_PER_MINUTE, Publisher
from tests.conftest import Subscriber
from tests.integration.conftest import served_in_process

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("service_logging")]


@pytest.fixture
def service_logging() -> Iterator[None]:
    """Log as ``tablesvc run`` does (JSON lines, tracebacks without the frames' locals).

    Each failure here logs a traceback through paho's frames; structlog's own default renders
    it with every frame's locals, which took 3-4 s a failure on a loaded machine and made the
    six failures of the second test outlast its 20 s (it measured the renderer, not the
    service)."""
    root = logging.getLogger()
    handlers, level, saved = root.handlers[:], root.level, structlog.get_config()
    configure("json", "info", sys.stderr)
    yield
    structlog.configure(**saved)
    root.handlers[:] = handlers
    root.setLevel(level)


def event(seq: int) -> str:
    return json.dumps({"v": 1, "venue": "v", "table": "t", "seq": seq, "type": "card_dealt"})


def break_loop(client: mqtt.Client) -> None:
    """The next PUBACK this client reads raises out of its network loop."""
    def boom(*_: Any) -> None:
        raise RuntimeError("a callback let an exception through")
    client.suppress_exceptions = False
    client.on_publish = boom


def test_a_network_loop_that_fails_is_replaced_and_events_flow_again(
        tmp_path: Path, broker: Mosquitto,
        subscriber_factory: Callable[[str], Subscriber]) -> None:
    sub = subscriber_factory("tablesvc/v1/v/t/#")
    outbox = Outbox(tmp_path / "o.sqlite")
    outbox.start()
    pub = Publisher(MqttSection(port=broker.port, protocol="5"), "tablesvc/v1/v/t", outbox,
                    on_command=lambda n, b: None, on_refused=lambda s, r: None,
                    client_id="pub-loop-failure", version="t")
    pub.start()
    try:
        wait_until(lambda: pub.connected, 10, "the connection")
        first = [Message(1, "events", event(1), 0, 0)]
        outbox.post(first)
        pub.submit(first)
        wait_until(lambda: len(sub.events()) == 1, 5, "the first event")
        old = pub._client
        break_loop(old)
        later = [Message(2, "events", event(2), 0, 0)]
        outbox.post(later)
        pub.submit(later)
        wait_until(lambda: pub._client is not old and pub.connected, 10, "a new connection")
        wait_until(lambda: [e["seq"] for e in sub.events()] == [1, 2], 5, "the next event")
        wait_until(lambda: outbox.pending("events", 0, 10) == [], 5, "event 2 acknowledged")
        assert pub.failed is None
        statuses = [p["state"] for p in sub.on("status")]
        assert statuses.count("online") == 2  # said again by the new connection
    finally:
        pub.stop()
        outbox.close()


def test_a_network_loop_that_keeps_failing_stops_the_service_with_an_error(
        tmp_path: Path, broker: Mosquitto, monkeypatch: pytest.MonkeyPatch) -> None:
    made = Publisher._make_client

    def failing_client(self: Publisher) -> mqtt.Client:
        client = made(self)
        break_loop(client)  # the retained status's PUBACK breaks every connection
        return client

    monkeypatch.setattr(Publisher, "_make_client", failing_client)
    with served_in_process(tmp_path, broker.port) as service:
        wait_until(service.stopped.is_set, 20, "the service to stop")
        assert service.failed is not None and "network loop failed" in service.failed
        assert f"{RESTARTS_PER_MINUTE + 1} times" in service.failed
