"""Shared fixtures: a real mosquitto on a loopback port, a paho subscriber, a service process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(pred: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def _mosquitto() -> str:
    for cand in (shutil.which("mosquitto"), "/usr/sbin/mosquitto"):
        if cand and os.path.exists(cand):
            return cand
    raise RuntimeError("mosquitto is not installed; `make test` installs it")


class Mosquitto:
    """A mosquitto broker on a loopback port that tests can stop and start again."""

    def __init__(self, workdir: Path, extra_conf: str = "") -> None:
        self.port = free_port()
        self.workdir = workdir
        self.conf = workdir / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
            f"max_inflight_messages 0\nmax_queued_messages 100000\n{extra_conf}"
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = open(self.workdir / "mosquitto.log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen([_mosquitto(), "-c", str(self.conf)], stdout=log,
                                     stderr=subprocess.STDOUT)
        wait_until(self._accepting, 10, "mosquitto to accept connections")

    def _accepting(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None


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
    messages: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.connected = threading.Event()
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                        protocol=mqtt.MQTTv5)
        c.on_connect = self._on_connect
        c.on_message = self._on_message
        c.reconnect_delay_set(0.2, 1)
        self.client = c
        c.connect_async("127.0.0.1", self.port)
        c.loop_start()
        wait_until(self.connected.is_set, 10, "subscriber to connect")

    def _on_connect(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any) -> None:
        client.subscribe(self.topic, qos=1)
        self.connected.set()

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            payload = json.loads(msg.payload)
        except ValueError:
            payload = msg.payload
        with self.lock:
            self.messages.append(Received(msg.topic, payload, bool(msg.retain)))

    def on(self, suffix: str) -> list[Any]:
        with self.lock:
            return [m.payload for m in self.messages if m.topic.endswith(suffix)]

    def events(self, suffix: str = "/events") -> list[dict[str, Any]]:
        """Events of one topic, de-duplicated by seq (what every consumer does)."""
        seen: dict[int, dict[str, Any]] = {}
        order: list[int] = []
        for p in self.on(suffix):
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
            [sys.executable, "-m", "tablesvc.cli", "run", "--config", str(self.config),
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
