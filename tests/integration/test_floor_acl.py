"""The shipped ACL (deploy/venue-acl.sh) on a real mosquitto: the floor role reads every public
topic of a table, sends exactly ``cmd/ack_alert`` and reads its replies, and nothing else:
no other command reaches the table and no secure event reaches the floor."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tests.venue import shipped_acl

ROOT = Path(__file__).resolve().parents[2]
VENUE = "venue1"
P = f"tablesvc/v1/{VENUE}/t01"
USERS = {"t01": "table-pw-1", "floor": "floor-pw-1", "controller": "ctl-pw-1",
         "broadcast": "bc-pw-1"}

pytestmark = pytest.mark.integration


@pytest.fixture
def acl_broker(tmp_path: Path) -> Iterator[Mosquitto]:
    passwd = tmp_path / "passwd"
    passwd.touch()
    for user, pw in USERS.items():
        subprocess.run(["mosquitto_passwd", "-b", str(passwd), user, pw], check=True,
                       capture_output=True)
    acl = tmp_path / "tablesvc.acl"
    acl.write_text(shipped_acl(VENUE, ["t01"]))
    b = Mosquitto(tmp_path, extra_conf=f"password_file {passwd}\nacl_file {acl}\n")
    b.conf.write_text(b.conf.read_text().replace("allow_anonymous true",
                                                 "allow_anonymous false"))
    b.start()
    yield b
    b.stop()


class Client:
    def __init__(self, port: int, user: str, subscribe: list[str]) -> None:
        self.got: list[tuple[str, Any]] = []
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.refused: list[int] = []
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                        client_id=f"acl-{user}")
        c.username_pw_set(user, USERS[user])
        c.on_connect = lambda cl, u, f, rc, p=None: (
            cl.subscribe([(t, 1) for t in subscribe]) if subscribe else self.ready.set())
        c.on_subscribe = lambda *a: self.ready.set()
        c.on_message = self._msg
        c.on_publish = self._pub
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.c = c
        wait_until(self.ready.is_set, 10, f"{user} to connect")

    def _msg(self, client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.got.append((msg.topic, json.loads(msg.payload)))

    def _pub(self, client: Any, userdata: Any, mid: int, rc: Any, props: Any) -> None:
        if rc.is_failure:
            self.refused.append(mid)

    def publish(self, topic: str, body: dict[str, Any], retain: bool = False) -> int:
        info = self.c.publish(topic, json.dumps(body), qos=1, retain=retain)
        info.wait_for_publish(5)
        return info.mid

    def topics(self) -> list[str]:
        with self.lock:
            return [t for t, _ in self.got]

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def test_floor_sends_only_ack_alert_and_reads_every_public_topic_but_no_secure_one(
        acl_broker: Mosquitto) -> None:
    table = Client(acl_broker.port, "t01", [f"{P}/cmd/+"])
    floor = Client(acl_broker.port, "floor", [
        f"tablesvc/v1/{VENUE}/+/{t}" for t in
        ("status", "state", "devices/+", "alerts", "events", "secure/events",
         "cmd/ack_alert/reply", "cmd/seat/reply")])
    try:
        # the floor's commands: ack_alert reaches the table, nothing else does
        floor.publish(f"{P}/cmd/ack_alert", {"request_id": "r1", "alert_id": "t01-a1"})
        refused = [floor.publish(f"{P}/cmd/{name}", {"request_id": name})
                   for name in ("seat", "declare", "replay", "configure")]
        # the table's public topics, its secure feed and its replies
        for sub in ("status", "state", "devices/shoe", "alerts", "events", "secure/events",
                    "cmd/ack_alert/reply", "cmd/seat/reply"):
            table.publish(f"{P}/{sub}", {"sub": sub})
        wanted = {f"{P}/{s}" for s in ("status", "state", "devices/shoe", "alerts", "events",
                                       "cmd/ack_alert/reply")}
        wait_until(lambda: wanted <= set(floor.topics()), 10, "the floor to read its topics")
        wait_until(lambda: f"{P}/cmd/ack_alert" in table.topics(), 10, "the ack to arrive")
        # the table answers ack_alert last: everything the floor sent before has arrived
        table.publish(f"{P}/cmd/ack_alert/reply", {"request_id": "last"})
        wait_until(lambda: floor.topics().count(f"{P}/cmd/ack_alert/reply") == 2, 10,
                   "the last reply")
        assert table.topics() == [f"{P}/cmd/ack_alert"]
        assert set(floor.topics()) == wanted  # neither secure/events nor cmd/seat/reply
        assert set(refused) <= set(floor.refused)  # the broker says no (PUBACK >= 128)
    finally:
        table.close()
        floor.close()


def test_only_the_controller_writes_the_tournament_state_that_floor_and_broadcast_read(
        acl_broker: Mosquitto) -> None:
    own = f"tablesvc/v1/{VENUE}/.tournament"
    floor = Client(acl_broker.port, "floor", [f"{own}/#"])
    broadcast = Client(acl_broker.port, "broadcast", [f"{own}/#"])
    controller = Client(acl_broker.port, "controller", [])
    table = Client(acl_broker.port, "t01", [])
    try:
        forged = [table.publish(f"{own}/clock", {"by": "t01"}),
                  floor.publish(f"{own}/clock", {"by": "floor"}),
                  broadcast.publish(f"{own}/alerts", {"by": "broadcast"})]
        controller.publish(f"{own}/clock", {"by": "controller"})
        wait_until(lambda: floor.topics() and broadcast.topics(), 10,
                   "the controller's clock to arrive")
        assert floor.got == [(f"{own}/clock", {"by": "controller"})]
        assert broadcast.got == [(f"{own}/clock", {"by": "controller"})]
        assert forged[0] in table.refused and forged[1] in floor.refused \
            and forged[2] in broadcast.refused
    finally:
        for c in (floor, broadcast, controller, table):
            c.close()
