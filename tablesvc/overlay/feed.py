"""The overlay's subscription: one table's topics, read with the broadcast role's user.

paho runs its own network thread; each message is handed on with the moment it arrived, which
is what the delay counts from (``tablesvc.overlay.delay``). The client reconnects by itself
(paho's backoff) and subscribes again on every connect; the broker's retained ``state``
and ``status`` then bring the overlay up to date.

When a tournament controller runs the venue, its retained ``clock`` and ``field``
(``<prefix>/<venue>/.tournament/``, which the broadcast role may read) come too, as the
topics ``tournament/clock`` and ``tournament/field``: held back by the same delay as the rest.
"""

from __future__ import annotations

import json
import os
import ssl
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
import structlog
from paho.mqtt.enums import CallbackAPIVersion

from tablesvc.config.table import Config
from tablesvc.pipeline.reach import Reach

log = structlog.get_logger("tablesvc.overlay.feed")

TOPICS = ("state", "status", "events", "secure/events")
TOURNAMENT_TOPICS = ("clock", "field")
"""The controller's retained topics the overlay shows (handed on as ``tournament/<name>``)."""

OnMessage = Callable[[str, Any, float], None]
"""(topic below the table's prefix, the decoded JSON, monotonic arrival time)"""


def table_prefix(cfg: Config) -> str:
    return f"{cfg.mqtt.topic_prefix.rstrip('/')}/{cfg.table.venue}/{cfg.table.id}"


def tournament_prefix(cfg: Config) -> str:
    """The venue's tournament controller (a dot is never part of a table id)."""
    return f"{cfg.mqtt.topic_prefix.rstrip('/')}/{cfg.table.venue}/.tournament"


class TableFeed:
    """Subscribes to one table; ``on_message`` and ``on_link`` are called on paho's thread."""

    def __init__(self, cfg: Config, password: str | None, on_message: OnMessage,
                 on_link: Callable[[bool], None]) -> None:
        self.cfg = cfg
        self.prefix = table_prefix(cfg)
        self.tournament = tournament_prefix(cfg)
        self.on_message = on_message
        self.on_link = on_link
        self.refused: str | None = None
        client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                             client_id=f"overlay-{cfg.table.venue}-{cfg.table.id}-{os.getpid()}",
                             protocol=mqtt.MQTTv311)
        o = cfg.overlay
        if o.username:
            client.username_pw_set(o.username, password)
        if cfg.mqtt.ca_file:
            client.tls_set(ca_certs=cfg.mqtt.ca_file, tls_version=ssl.PROTOCOL_TLS_CLIENT)
        client.reconnect_delay_set(1, 10)
        m = cfg.mqtt
        # why the broker cannot be reached, said once (not at every attempt)
        self.reach = Reach(log, m.host, m.port, tls=bool(m.ca_file),
                           username=o.username or "(anonymous)")
        self._linked = False
        self._stopping = False
        client.on_connect_fail = self.reach.connect_failed
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        self.client = client

    def start(self) -> None:
        self.client.connect_async(self.cfg.mqtt.host, self.cfg.mqtt.port,
                                  keepalive=self.cfg.mqtt.keepalive)
        self.client.loop_start()

    def stop(self) -> None:
        self._stopping = True
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                    props: Any = None) -> None:
        if rc != 0:
            self.refused = str(rc)
            self.reach.refused(rc)  # said once, not at every attempt
            return
        self.refused = None
        client.subscribe([(f"{self.prefix}/{t}", 1) for t in TOPICS] +
                         [(f"{self.tournament}/{t}", 1) for t in TOURNAMENT_TOPICS])
        log.info("subscribed", prefix=self.prefix, **self.reach.connected())
        self._linked = True
        self.on_link(True)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                       props: Any = None) -> None:
        was, self._linked = self._linked, False
        if not was:
            self.reach.closed(rc)  # before the broker answered: a TLS port without TLS?
            return
        if self._stopping:
            log.info("disconnected from the broker", reason=str(rc))
        else:
            log.warning("broker connection lost; reconnecting", reason=str(rc))
        self.on_link(False)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        arrived = time.monotonic()
        if msg.topic.startswith(self.tournament + "/"):
            name = msg.topic[len(self.tournament) + 1:]
            topic = f"tournament/{name}" if name in TOURNAMENT_TOPICS else ""
        else:
            topic = msg.topic[len(self.prefix) + 1:] if msg.topic.startswith(
                self.prefix + "/") else ""
            if topic not in TOPICS:
                return
        if not topic:
            return
        try:
            payload = json.loads(msg.payload)
        except ValueError:
            log.warning("message that is not JSON ignored", topic=topic)
            return
        self.on_message(topic, payload, arrived)
