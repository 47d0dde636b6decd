"""MQTT publishing (DESIGN §9): the outbox drained to the broker, in seq order, at QoS 1.

A message leaves the outbox's send queue only when its PUBACK arrives (tracked through
``on_publish``). paho keeps unacknowledged QoS 1 messages across reconnects and sends them
again itself, so after a reconnect we simply continue; after a restart we start again from the
oldest unacknowledged message. The in-flight window is capped and every ``publish()`` result is
checked, so a refused publish stays in the outbox for the next attempt instead of vanishing.
"""

from __future__ import annotations

import contextlib
import json
import ssl
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import structlog
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

from tablesvc.config.table import MqttSection
from tablesvc.pipeline.clock import now_ms
from tablesvc.pipeline.outbox import Outbox

log = structlog.get_logger("tablesvc.publisher")

ROUTES = ("events", "alerts", "secure/events")
V5_ANSWER_TIMEOUT_MS = 3000
"""With protocol "auto", a broker that does not answer a v5 CONNECT by then gets 3.1.1."""
CommandHandler = Callable[[str, dict[str, Any]], None]
RefusedHandler = Callable[[int, str], None]


class Publisher:
    """Drains the outbox to one broker and takes commands in."""

    def __init__(
        self,
        cfg: MqttSection,
        prefix: str,
        outbox: Outbox,
        *,
        on_command: CommandHandler,
        on_refused: RefusedHandler,
        client_id: str,
        version: str,
        boot: int = 0,
        password: str | None = None,
    ) -> None:
        self.cfg = cfg
        self.prefix = prefix.rstrip("/")
        self.outbox = outbox
        self.on_command = on_command
        self.on_refused = on_refused
        self.client_id = client_id
        self.version = version
        self.boot = boot
        self.password = password
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._inflight: dict[int, tuple[int, str]] = {}
        self._early: dict[int, tuple[int, bool, str]] = {}  # mid acked before we stored it
        self._acks: list[tuple[int, str]] = []
        self._cursor = dict.fromkeys(ROUTES, 0)
        self._retained: dict[str, str] = {}
        self._connected = threading.Event()
        self._protocol = mqtt.MQTTv5 if cfg.protocol in ("5", "auto") else mqtt.MQTTv311
        self._v5_failures = 0
        self._ever_connected = False
        self._started_ms = 0
        self._thread: threading.Thread | None = None
        self.published = 0
        self.refused = 0
        self._client = self._make_client()

    # ------------------------------------------------------------------ setup
    def topic(self, sub: str) -> str:
        return f"{self.prefix}/{sub}"

    def _make_client(self) -> mqtt.Client:
        c = mqtt.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=self._protocol,
            clean_session=None if self._protocol == mqtt.MQTTv5 else True,
        )
        c.max_inflight_messages_set(self.cfg.inflight)
        c.max_queued_messages_set(self.cfg.inflight)
        c.reconnect_delay_set(1, 10)
        if self.cfg.username:
            c.username_pw_set(self.cfg.username, self.password)
        if self.cfg.ca_file:
            c.tls_set(ca_certs=self.cfg.ca_file, tls_version=ssl.PROTOCOL_TLS_CLIENT)
        c.will_set(self.topic("status"), json.dumps({"state": "offline"}), qos=1, retain=True)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_publish = self._on_publish
        c.on_message = self._on_message
        return c

    def start(self) -> None:
        self._started_ms = now_ms()
        self._client.connect_async(self.cfg.host, self.cfg.port, keepalive=self.cfg.keepalive)
        self._client.loop_start()
        self._thread = threading.Thread(target=self._run, name="publisher", daemon=True)
        self._thread.start()

    def stop(self, drain_s: float = 2.0) -> None:
        """Stop after trying for ``drain_s`` to get what is queued acknowledged."""
        deadline = now_ms() + int(drain_s * 1000)
        while self._connected.is_set() and now_ms() < deadline:
            self._wake.set()
            with self._lock:
                idle = not self._inflight
            if idle and self.outbox.unacked_count() == 0:
                break
            self._stop.wait(0.05)
        self._stop.set()
        self._wake.set()
        if self._thread:
            self._thread.join(timeout=5)
        self._flush_acks()
        if self._connected.is_set():
            info = self._client.publish(self.topic("status"),
                                        json.dumps({"state": "offline", "version": self.version,
                                                    "boot": self.boot}), qos=1, retain=True)
            if info.rc == MQTTErrorCode.MQTT_ERR_SUCCESS:
                with contextlib.suppress(RuntimeError, ValueError):
                    info.wait_for_publish(timeout=1.0)
        self._client.disconnect()
        self._client.loop_stop()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def wake(self) -> None:
        """New messages are in the outbox."""
        self._wake.set()

    def set_retained(self, sub: str, payload: dict[str, Any]) -> None:
        """Publish a retained snapshot now (if connected) and again on every reconnect."""
        text = json.dumps(payload, separators=(",", ":"))
        with self._lock:
            if self._retained.get(sub) == text:
                return
            self._retained[sub] = text
        if self._connected.is_set():
            self._client.publish(self.topic(sub), text, qos=1, retain=True)

    def reply(self, cmd: str, payload: dict[str, Any]) -> None:
        """Answer a command on ``cmd/<name>/reply`` (best effort: replies are not events)."""
        self._client.publish(self.topic(f"cmd/{cmd}/reply"),
                             json.dumps(payload, separators=(",", ":")), qos=1)

    # ------------------------------------------------------------------ paho callbacks
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                    props: Any = None) -> None:
        if rc.is_failure:
            log.warning("broker refused the connection", reason=str(rc),
                        host=self.cfg.host, port=self.cfg.port)
            if self.cfg.protocol == "auto" and self._protocol == mqtt.MQTTv5 and (
                    rc.value in (1, 132)):
                self._v5_failures = 99
            return
        self._connected.set()
        self._ever_connected = True
        log.info("connected to broker", host=self.cfg.host, port=self.cfg.port,
                 protocol="5" if self._protocol == mqtt.MQTTv5 else "3.1.1")
        client.subscribe(self.topic("cmd/+"), qos=1)
        client.publish(self.topic("status"), json.dumps(
            {"state": "online", "version": self.version, "boot": self.boot}), qos=1, retain=True)
        with self._lock:
            retained = list(self._retained.items())
        for sub, text in retained:
            client.publish(self.topic(sub), text, qos=1, retain=True)
        self._wake.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                       props: Any = None) -> None:
        was = self._connected.is_set()
        self._connected.clear()
        if self.cfg.protocol == "auto" and self._protocol == mqtt.MQTTv5 and not was:
            self._v5_failures += 1  # closed before CONNACK: maybe a 3.1.1-only broker
        if was and not self._stop.is_set():
            log.warning("disconnected from broker", reason=str(rc))

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, rc: Any,
                    props: Any = None) -> None:
        failed = bool(getattr(rc, "is_failure", False))
        reason = str(rc)
        with self._lock:
            key = self._inflight.pop(mid, None)
            if key is None:
                self._early[mid] = (mid, failed, reason)
                return
            self._acks.append(key)
        if failed:
            self._refused(key, reason)

    def _refused(self, key: tuple[int, str], reason: str) -> None:
        self.refused += 1
        log.error("broker refused a message", seq=key[0], route=key[1], reason=reason)
        if key[1] != "alerts":
            self.on_refused(key[0], reason)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        name = msg.topic.rsplit("/", 1)[-1]
        try:
            body = json.loads(msg.payload.decode("utf-8")) if msg.payload else {}
            if not isinstance(body, dict):
                raise ValueError("the body must be a JSON object")
        except (UnicodeDecodeError, ValueError) as exc:
            self.reply(name, {"request_id": None, "ok": False,
                              "error": f"invalid JSON body: {exc}", "data": None})
            log.info("command refused", cmd=name, error="invalid JSON")
            return
        self.on_command(name, body)

    # ------------------------------------------------------------------ sending
    def _run(self) -> None:
        last_purge = 0
        while not self._stop.is_set():
            self._wake.wait(0.05)
            self._wake.clear()
            try:
                self._maybe_fallback()
                self._flush_acks()
                if self._connected.is_set():
                    self._send_due()
                now = now_ms()
                if now - last_purge > 60_000:
                    last_purge = now
                    self.outbox.purge(now - self.cfg.retention_s * 1000)
            except Exception:  # never let the sender die; the outbox keeps everything
                log.exception("publisher loop error")
                self._stop.wait(0.5)

    def _maybe_fallback(self) -> None:
        if self.cfg.protocol != "auto" or self._protocol != mqtt.MQTTv5:
            return
        if self._ever_connected or self._connected.is_set():
            return
        # some 3.1.1-only brokers answer a v5 CONNECT with a refusal, others never answer it
        silent = now_ms() - self._started_ms > V5_ANSWER_TIMEOUT_MS
        if self._v5_failures < 2 and not silent:
            return
        log.info("broker does not answer MQTT 5; falling back to 3.1.1")
        self._client.loop_stop()
        self._protocol = mqtt.MQTTv311
        self._client = self._make_client()
        self._client.connect_async(self.cfg.host, self.cfg.port, keepalive=self.cfg.keepalive)
        self._client.loop_start()

    def _flush_acks(self) -> None:
        with self._lock:
            acks, self._acks = self._acks, []
        if acks:
            self.outbox.ack(acks, now_ms())

    def _send_due(self) -> None:
        now = now_ms()
        for route in ROUTES:
            with self._lock:
                room = self.cfg.inflight - len(self._inflight)
            if room <= 0:
                return
            batch = self.outbox.pending(route, self._cursor[route], min(room, 500))
            for msg in batch:
                if msg.not_before > now:
                    break  # later ones are delayed at least as long
                info = self._client.publish(self.topic(route), msg.payload, qos=1)
                if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
                    # window full or connection lost: it stays in the outbox for next time
                    log.debug("publish deferred", seq=msg.seq, rc=int(info.rc))
                    if info.rc == MQTTErrorCode.MQTT_ERR_NO_CONN:
                        self._track(info.mid, msg.seq, route)  # paho queued it; it resends
                        self._cursor[route] = msg.seq
                    break
                self._track(info.mid, msg.seq, route)
                self._cursor[route] = msg.seq
                self.published += 1

    def _track(self, mid: int, seq: int, route: str) -> None:
        with self._lock:
            early = self._early.pop(mid, None)
            if early is None:
                self._inflight[mid] = (seq, route)
                return
            self._acks.append((seq, route))
        if early[1]:
            self._refused((seq, route), early[2])


def read_password(path: str) -> str | None:
    """The broker password from its file (never from the config itself)."""
    if not path:
        return None
    return Path(path).read_text(encoding="utf-8").strip()
