"""The controller's MQTT side: the tables' word in, commands and its own state out.

It connects as the ``controller`` user of the shipped ACL with a persistent session (a fixed
client id, clean start off): while the controller is down the broker keeps the tables' hand
events and their answers to its commands, and a message is acknowledged to the broker only
after the engine has journalled it (paho's manual ack), so a controller killed at any moment
loses none of them. Its own state is published retained under ``<prefix>/.tournament/``: a
dot cannot be part of a table id, so no table's topics can be taken for the controller's,
nor the controller's for a table's.
"""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import structlog
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablesvc.config.table import resolve
from tablesvc.config.venue_tables import VenueTables
from tablesvc.pipeline.publisher import read_password
from tablesvc.pipeline.reach import Reach
from tablesvc.tournament.config import TournamentConfig

log = structlog.get_logger("tablesvc.tournament.link")

OWN = ".tournament"
"""The controller's own topic level below the venue: not a table id (ids have no dot)."""


@dataclass(frozen=True)
class Received:
    """One message from a table: ``sub`` is the topic below the table (``events``,
    ``state``, ``status``, ``cmd/seat/reply``)."""

    table: str
    sub: str
    payload: bytes
    mid: int
    qos: int


class Link:
    """Subscribe to every table of the venue; publish commands and the controller's state."""

    def __init__(self, cfg: TournamentConfig, cfg_path: Path,
                 deliver: Callable[[Received], None]) -> None:
        self.cfg = cfg
        self.prefix = cfg.prefix()
        self.deliver = deliver
        self.tables = VenueTables((t.id for t in cfg.tables), log, "the tournament's tables")
        """Only the tournament's tables are heard; anything else below the venue is logged
        once and dropped (paho's thread only)."""
        self.connected = threading.Event()
        self._stopping = False  # a disconnection is then ours, not news for the log
        self.refused: str | None = None
        self._retained: dict[str, bytes] = {}
        self._lock = threading.Lock()
        m = cfg.mqtt
        v5 = m.protocol == "5"
        client_id = m.client_id or f"controller-{cfg.tournament.venue}"
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id=client_id,
                        protocol=mqtt.MQTTv5 if v5 else mqtt.MQTTv311,
                        clean_session=None if v5 else False, manual_ack=True)
        if m.username:
            password = read_password(str(resolve(cfg_path, m.password_file))
                                     if m.password_file else "")
            c.username_pw_set(m.username, password)
        if m.ca_file:
            c.tls_set(ca_certs=str(resolve(cfg_path, m.ca_file)),
                      tls_version=ssl.PROTOCOL_TLS_CLIENT)
        c.will_set(self.own("status"), json.dumps({"state": "offline"}), qos=1, retain=True)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.reconnect_delay_set(1, 10)
        c.max_inflight_messages_set(1000)
        # why the broker cannot be reached, said once (not at every attempt)
        self.reach = Reach(log, m.host, m.port, tls=bool(m.ca_file), username=m.username)
        c.on_connect_fail = self.reach.connect_failed
        self.client = c

    def own(self, name: str) -> str:
        return f"{self.prefix}/{OWN}/{name}"

    def topics(self) -> list[str]:
        p = self.prefix
        return [f"{p}/+/status", f"{p}/+/state", f"{p}/+/events", f"{p}/+/cmd/+/reply"]

    def start(self) -> None:
        m = self.cfg.mqtt
        if m.protocol == "5":
            props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
            props.SessionExpiryInterval = m.session_expiry_s
            self.client.connect_async(m.host, m.port, keepalive=m.keepalive,
                                      clean_start=False, properties=props)
        else:
            self.client.connect_async(m.host, m.port, keepalive=m.keepalive)
        self.client.loop_start()

    def stop(self) -> None:
        """Say offline (the will covers a crash) and disconnect."""
        if self.connected.is_set():
            info = self.client.publish(self.own("status"), json.dumps({"state": "offline"}),
                                       qos=1, retain=True)
            info.wait_for_publish(2)
        self._stopping = True
        self.client.disconnect()
        self.client.loop_stop()

    # ------------------------------------------------------------------ out
    def command(self, table: str, cmd: str, body: dict[str, Any]) -> None:
        self.client.publish(f"{self.prefix}/{table}/cmd/{cmd}", json.dumps(body), qos=1)

    def retain(self, name: str, doc: Any) -> None:
        """Publish one of the controller's retained topics if it changed (and again on every
        reconnect)."""
        payload = json.dumps(doc, separators=(",", ":")).encode()
        with self._lock:
            if self._retained.get(name) == payload:
                return
            self._retained[name] = payload
        self.client.publish(self.own(name), payload, qos=1, retain=True)

    def alert(self, doc: dict[str, Any]) -> None:
        self.client.publish(self.own("alerts"), json.dumps(doc), qos=1)

    def ack(self, mid: int, qos: int) -> None:
        """Tell the broker a message is kept (journalled, or needs no keeping)."""
        if qos > 0:
            self.client.ack(mid, qos)

    # ------------------------------------------------------------------ paho callbacks
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                    props: Any = None) -> None:
        if getattr(rc, "is_failure", False) or (isinstance(rc, int) and rc != 0):
            self.refused = str(rc)
            self.reach.refused(rc)
            return
        self.refused = None
        client.subscribe([(t, 1) for t in self.topics()])
        client.publish(self.own("status"), json.dumps({"state": "online"}), qos=1,
                       retain=True)
        with self._lock:
            retained = dict(self._retained)
        for name, payload in retained.items():
            client.publish(self.own(name), payload, qos=1, retain=True)
        self.connected.set()
        log.info("connected", host=self.cfg.mqtt.host, port=self.cfg.mqtt.port,
                 **self.reach.connected())

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                       props: Any = None) -> None:
        was = self.connected.is_set()
        self.connected.clear()
        if was and self._stopping:
            log.info("disconnected from the broker", reason=str(rc))
        elif was:
            log.warning("disconnected from the broker", reason=str(rc))
        else:
            self.reach.closed(rc)  # before the broker answered: a TLS port without TLS?

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        table, _, sub = msg.topic.removeprefix(self.prefix + "/").partition("/")
        if table == OWN or not sub or not self.tables.admits(table, msg.topic):
            self.ack(msg.mid, msg.qos)
            return
        self.deliver(Received(table, sub, bytes(msg.payload), msg.mid, msg.qos))
