"""A dead network loop does not leave the table deaf and mute.

paho runs the MQTT connection on a thread of its own; once it had ended (an exception in a
callback did it), the process lived on, answered no command and published nothing, and
systemd saw no reason to restart it. The publisher's watchdog notices the thread gone and
starts a new connection; if the loop keeps dying, the service stops with an error so that
systemd starts it afresh.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.config.table import MqttSection, load_config
from tablesvc.pipeline.outbox import Message, Outbox
from tablesvc.pipeline.publisher import RESTARTS_PER_MINUTE, Publisher
from tablesvc.pipeline.service import Service
from tests.conftest import Subscriber

pytestmark = pytest.mark.integration


def event(seq: int) -> str:
    return json.dumps({"v": 1, "venue": "v", "table": "t", "seq": seq, "type": "card_dealt"})


def test_a_network_loop_that_ends_is_replaced_and_events_flow_again(
        tmp_path: Path, broker: Mosquitto,
        subscriber_factory: Callable[[str], Subscriber]) -> None:
    sub = subscriber_factory("tablesvc/v1/v/t/#")
    outbox = Outbox(tmp_path / "o.sqlite")
    outbox.start()
    pub = Publisher(MqttSection(port=broker.port, protocol="5"), "tablesvc/v1/v/t", outbox,
                    on_command=lambda n, b: None, on_refused=lambda s, r: None,
                    client_id="pub-watchdog", version="t")
    pub.start()
    try:
        wait_until(lambda: pub.connected, 10, "the connection")
        first = [Message(1, "events", event(1), 0, 0)]
        outbox.post(first)
        pub.submit(first)
        wait_until(lambda: len(sub.events()) == 1, 5, "the first event")
        pub._client.loop_stop()  # the network thread ends under the publisher
        assert not pub.network_alive()
        later = [Message(2, "events", event(2), 0, 0)]
        outbox.post(later)
        pub.submit(later)
        wait_until(lambda: [e["seq"] for e in sub.events()] == [1, 2], 5, "the next event")
        assert pub.network_alive() and pub.failed is None
        statuses = [p["state"] for p in sub.on("status")]
        assert statuses.count("online") == 2  # said again by the new connection
    finally:
        pub.stop()
        outbox.close()


def test_a_network_loop_that_keeps_ending_stops_the_service_with_an_error(
        tmp_path: Path, broker: Mosquitto) -> None:
    cfg = tmp_path / "table.toml"
    (tmp_path / "decks").mkdir()
    cfg.write_text(f'[table]\nvenue = "v"\nid = "t"\n[mqtt]\nport = {broker.port}\n'
                   f'[storage]\ndir = "{tmp_path / "store"}"\n')
    service = Service(load_config(cfg), cfg)
    service.start()
    worker = threading.Thread(target=service.serve, daemon=True)
    worker.start()
    try:
        assert service.publisher is not None
        pub = service.publisher
        for _ in range(RESTARTS_PER_MINUTE + 1):
            wait_until(lambda: pub.network_alive() or service.stopped.is_set(), 10,
                       "a network loop")
            if service.stopped.is_set():
                break
            pub._client.loop_stop()
        wait_until(service.stopped.is_set, 10, "the service to stop")
        worker.join(10)
        assert service.failed is not None and "network loop" in service.failed
    finally:
        service.stop()
        worker.join(10)
