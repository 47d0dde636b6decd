"""The tournament controller hears its own tables only (issue 30).

Whatever else arrives below the venue (a role user posing as a table on a broker set up by
hand, a table of another tournament) is dropped before the controller reads it, and said once
per topic level in the log, on a real mosquitto.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
import structlog
from paho.mqtt.enums import CallbackAPIVersion

from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.tournament.config import TournamentConfig
from tablesvc.tournament.link import Link, Received

pytestmark = pytest.mark.integration

VENUE = "grand"
P = f"tablesvc/v1/{VENUE}"


def test_messages_of_no_table_of_the_tournament_are_dropped_and_logged_once(
        tmp_path: Path, broker: Mosquitto) -> None:
    cfg = TournamentConfig.model_validate({
        "tournament": {"venue": VENUE, "name": "Friday", "structure": "s.toml"},
        "tables": [{"id": "t01"}, {"id": "t02"}],
        "mqtt": {"host": "127.0.0.1", "port": broker.port, "username": ""}})
    heard: list[Received] = []
    lock = threading.Lock()

    def deliver(msg: Received) -> None:
        with lock:
            heard.append(msg)
        link.ack(msg.mid, msg.qos)

    link = Link(cfg, tmp_path / "tournament.toml", deliver)
    bust = {"seq": 7, "type": "hand_ended", "stacks": {"3": 0}}
    with structlog.testing.capture_logs() as logs:
        link.start()
        try:
            wait_until(link.connected.is_set, 10, "the controller's connection")
            pub = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
            pub.connect("127.0.0.1", broker.port)
            pub.loop_start()
            for table in ("floor", "t09", "t09", "t01"):
                pub.publish(f"{P}/{table}/events", json.dumps(bust), qos=1).wait_for_publish(5)
            pub.loop_stop()
            pub.disconnect()
            wait_until(lambda: sum(link.tables.strangers.values()) == 3, 10,
                       "the three strangers' messages")
            wait_until(lambda: any(m.table == "t01" for m in heard), 10, "t01's event")
        finally:
            link.stop()
    assert {m.table for m in heard} == {"t01"}
    said = [r for r in logs if r["log_level"] == "warning" and "no table" in r["event"]]
    assert [r for r in logs if r["log_level"] == "warning" and r not in said] == []
    assert sorted(r["table"] for r in said) == ["floor", "t09"]
    assert all(r["why"] == "not a table of this venue (the tournament's tables)" for r in said)
