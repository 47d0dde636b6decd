"""Shared fixtures: a real mosquitto on a loopback port, a paho subscriber, a service process."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tablesvc.brokers.mosquitto import Mosquitto, wait_until

ROOT = Path(__file__).resolve().parents[1]

pytest_plugins = ["tests.browser"]  # the `browser` fixture: headless Chromium for page tests


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    b = Mosquitto(tmp_path)
    b.start()
    yield b
    b.stop()


@dataclass
class Received:
    topic: str
    payload: Any
    retain: bool


@dataclass
class Subscriber:
    """A paho client that records everything under a topic filter."""

    port: int
    topic: str
    persistent: bool = False
    messages: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.connected = threading.Event()
        # a persistent session keeps our subscription and queues messages across a broker
        # restart, like a real consumer that must not miss events
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                        protocol=mqtt.MQTTv5,
                        client_id=f"test-sub-{id(self)}" if self.persistent else "")
        c.on_connect = self._on_connect
        c.on_message = self._on_message
        c.reconnect_delay_set(0.2, 1)
        self.client = c
        if self.persistent:
            from paho.mqtt.packettypes import PacketTypes
            from paho.mqtt.properties import Properties

            props = Properties(PacketTypes.CONNECT)
            props.SessionExpiryInterval = 3600
            c.connect_async("127.0.0.1", self.port, clean_start=False, properties=props)
        else:
            c.connect_async("127.0.0.1", self.port)
        c.loop_start()
        wait_until(self.connected.is_set, 10, "subscriber to connect")

    def _on_connect(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any) -> None:
        client.subscribe(self.topic, qos=1)
        self.connected.set()

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            payload = json.loads(msg.payload)
        except (ValueError, RecursionError):  # what a hostile test sends, seen on cmd/
            payload = msg.payload
        with self.lock:
            self.messages.append(Received(msg.topic, payload, bool(msg.retain)))

    def on(self, sub: str) -> list[Any]:
        """Payloads of one topic below the table prefix, e.g. "events" or "secure/events"."""
        with self.lock:
            return [m.payload for m in self.messages if m.topic.split("/", 4)[-1] == sub]

    def events(self, sub: str = "events") -> list[dict[str, Any]]:
        """Events of one topic, de-duplicated by seq (what every consumer does)."""
        seen: dict[int, dict[str, Any]] = {}
        order: list[int] = []
        for p in self.on(sub):
            if isinstance(p, dict) and p.get("seq") not in seen:
                seen[p["seq"]] = p
                order.append(p["seq"])
        return [seen[s] for s in order]

    def publish(self, topic: str, body: Any) -> None:
        self.client.publish(topic, json.dumps(body), qos=1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def subscriber_factory(broker: Mosquitto) -> Iterator[Callable[[str], Subscriber]]:
    subs: list[Subscriber] = []

    def make(topic: str = "tablesvc/#") -> Subscriber:
        s = Subscriber(broker.port, topic)
        subs.append(s)
        return s

    yield make
    for s in subs:
        s.close()


class ServiceProcess:
    """``tablesvc run`` as a child process, as an installer would start it."""

    def __init__(self, config: Path) -> None:
        self.config = config
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = config.parent / "service.log"

    def start(self) -> None:
        out = open(self.log, "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablesvc.commands.cli", "run", "--config", str(self.config),
             "--log", "json"], stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(20)

    def logs(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@pytest.fixture
def service_factory() -> Iterator[Callable[[Path], ServiceProcess]]:
    procs: list[ServiceProcess] = []

    def make(config: Path) -> ServiceProcess:
        p = ServiceProcess(config)
        procs.append(p)
        return p

    yield make
    for p in procs:
        if p.proc and p.proc.poll() is None:
            p.proc.kill()
            p.proc.wait(10)


# ---------------------------------------------------------------------- running in parallel

RUN_ALONE = {
    "tests/integration/test_floor_console.py::test_the_floor_sees_each_kind_of_alert_of_a_table_"
    "in_one_row_with_rule_and_remedy_acknowledges_a_group_and_an_unplugged_table_goes_offline":
        "its scenarios' bet timers run against the dealers' pace: with the other workers' "
        "load they ran out in 1 of 3 parallel runs, never alone",
}
"""Tests that need the machine to themselves (node id -> why): under ``pytest -n`` each waits
until no other test runs, and no other starts until it is done."""


@pytest.fixture(autouse=True)
def _alone_or_beside_others(request: pytest.FixtureRequest,
                            tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Under pytest-xdist every test holds a shared lock on a file all workers see, and a test
    of ``RUN_ALONE`` an exclusive one (it waits for the tests under way to end; the others wait
    for it). A run in one process takes no lock.

    Every test first passes a turnstile (a second file, held exclusively for a moment); a test
    that must run alone holds the turnstile while it waits. Without it, flock lets new shared
    locks in while an exclusive one waits, so the test waiting to run alone waited for a
    moment when no other test ran at all: two minutes of a worker, idle, in a full run."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    alone = request.node.nodeid in RUN_ALONE
    base = tmp_path_factory.getbasetemp().parent
    with open(base / "alone.turnstile", "a") as gate, open(base / "alone.lock", "a") as f:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(f, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
