"""The venue's broker as shipped, installed by its own recipe on a real mosquitto.

A central broker is what ``deploy/install-broker.sh`` writes (the ACL of
``deploy/venue-acl.sh``, the certificates of ``deploy/make-certs.sh``, the users hashed by
``mosquitto_passwd``, ``deploy/mosquitto.conf``), an edge broker what
``deploy/install-edge.sh`` writes: the scripts docs/OPERATIONS.md tells a technician to run,
run here with only what a test must change given to them as their settings (the folder
instead of /etc/mosquitto, free ports, the test's user as mosquitto's owner).
"""

from __future__ import annotations

import getpass
import json
import os
import ssl
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tablesvc.brokers.mosquitto import Mosquitto, free_port, wait_until

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
ROLES = ("controller", "floor", "broadcast")


def make_certs(folder: Path) -> Path:
    """A CA and a broker certificate for localhost/127.0.0.1, by the shipped script."""
    subprocess.run(["sh", str(DEPLOY / "make-certs.sh"), str(folder), "localhost", "127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return folder


def run_script(name: str, args: list[str], env: dict[str, str]) -> str:
    """One of deploy/'s scripts as a technician runs it; its output (stdout and stderr)."""
    out = subprocess.run(["sh", str(DEPLOY / name), *args], env={**os.environ, **env},
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, f"{name}: {out.stdout}{out.stderr}"
    return out.stdout + out.stderr


def users_file(folder: Path, users: dict[str, str]) -> Path:
    path = folder / "users"
    path.write_text("".join(f"{u}:{p}\n" for u, p in users.items()))
    path.chmod(0o600)
    return path


def install_broker(etc: Path, ca: Path, venue: str, tables: list[str],
                   users: dict[str, str], *, port: int, tls_port: int) -> str:
    """deploy/install-broker.sh into ``etc`` (for localhost and 127.0.0.1), the CA in ``ca``."""
    etc.mkdir(parents=True, exist_ok=True)
    env = {"ETC": str(etc), "CA_DIR": str(ca), "OWNER": getpass.getuser(), "VENUE": venue,
           "TABLES": " ".join(tables), "PORT": str(port), "TLS_PORT": str(tls_port)}
    if users:
        env["USERS"] = str(users_file(etc.parent, users))
    return run_script("install-broker.sh", ["localhost", "127.0.0.1"], env)


@dataclass
class VenueBroker:
    """mosquitto as deploy/install-broker.sh sets it up: ``port`` plain on 127.0.0.1,
    ``tls_port`` TLS, the certificate signed by the CA in ``certs``."""

    folder: Path
    venue: str
    certs: Path
    passwords: dict[str, str]
    acl_text: str | None = None
    """The ACL to use instead of the shipped one (already for this venue)."""
    tables: list[str] | None = None
    """The venue's tables; by default every user that is not a role."""
    broker: Mosquitto = field(init=False)
    tls_port: int = field(init=False)

    def __post_init__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tables = self.tables if self.tables is not None else [
            u for u in self.passwords if u not in ROLES]
        port, self.tls_port = free_port(), free_port()
        install_broker(self.folder / "etc", self.certs, self.venue, tables, self.passwords,
                       port=port, tls_port=self.tls_port)
        if self.acl_text is not None:
            (self.folder / "etc" / "tablesvc.acl").write_text(self.acl_text)
        conf = (self.folder / "etc" / "conf.d" / "tablesvc.conf").read_text()
        self.broker = Mosquitto(self.folder, port=port, conf=conf)

    @property
    def port(self) -> int:
        return self.broker.port

    @property
    def ca(self) -> Path:
        return self.folder / "etc" / "certs" / "ca.crt"

    def password_file(self, user: str) -> Path:
        path = self.folder / f"{user}.pass"
        path.write_text(self.passwords[user] + "\n")
        path.chmod(0o600)
        return path

    def start(self) -> VenueBroker:
        self.broker.start()
        wait_until(self._tls_accepting, 10, "the TLS listener")
        return self

    def _tls_accepting(self) -> bool:
        import socket

        try:
            with socket.create_connection(("127.0.0.1", self.tls_port), timeout=0.2):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        self.broker.stop()

    def client(self, user: str, password: str | None = None, *, client_id: str = "",
               tls: bool = True) -> Client:
        return Client(self, user, self.passwords.get(user, "") if password is None
                      else password, client_id=client_id, tls=tls)


def shipped_acl(venue: str, tables: list[str]) -> str:
    """The ACL deploy/venue-acl.sh writes for these tables."""
    out = subprocess.run(["sh", str(DEPLOY / "venue-acl.sh"), venue, *tables],
                         capture_output=True, text=True, check=True, timeout=30)
    return out.stdout


class Reachable(Protocol):
    """Where a client finds a broker: its plain and TLS ports and the CA it checks."""

    @property
    def port(self) -> int: ...
    @property
    def tls_port(self) -> int: ...
    @property
    def ca(self) -> Path: ...


class Client:
    """A paho client (MQTT 5) of one user that records what it gets: connection results,
    subscription grants, PUBACK reason codes and messages."""

    def __init__(self, venue: Reachable, user: str, password: str, *, client_id: str = "",
                 tls: bool = True) -> None:
        self.user = user
        self.lock = threading.Lock()
        self.connects: list[int] = []
        self.disconnects: list[int] = []
        self.granted: dict[int, list[int]] = {}
        self.acks: dict[int, int] = {}
        self.messages: list[tuple[str, Any]] = []
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                        client_id=client_id)
        c.username_pw_set(user, password)
        if tls:
            c.tls_set(ca_certs=str(venue.ca), tls_version=ssl.PROTOCOL_TLS_CLIENT)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_subscribe = self._on_subscribe
        c.on_publish = self._on_publish
        c.on_message = self._on_message
        c.reconnect_delay_set(0.2, 1)
        self.client = c
        c.connect_async("127.0.0.1" if not tls else "localhost",
                        venue.tls_port if tls else venue.port)
        c.loop_start()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any) -> None:
        with self.lock:
            self.connects.append(rc.value)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, rc: Any,
                       props: Any) -> None:
        with self.lock:
            self.disconnects.append(rc.value)

    def _on_subscribe(self, client: Any, userdata: Any, mid: int, codes: Any,
                      props: Any) -> None:
        with self.lock:
            self.granted[mid] = [c.value for c in codes]

    def _on_publish(self, client: Any, userdata: Any, mid: int, rc: Any, props: Any) -> None:
        with self.lock:
            self.acks[mid] = rc.value

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            payload: Any = json.loads(msg.payload)
        except (ValueError, RecursionError):
            payload = msg.payload
        with self.lock:
            self.messages.append((msg.topic, payload))

    def connected(self, timeout: float = 10) -> bool:
        """Waits for the broker's answer; True when it accepted the connection."""
        wait_until(lambda: bool(self.connects), timeout, f"{self.user}'s CONNACK")
        return self.connects[-1] == 0

    def subscribe(self, topic: str, timeout: float = 10) -> int:
        """The broker's answer to a subscription: the QoS granted, or >= 128 if refused."""
        rc, mid = self.client.subscribe(topic, qos=1)
        assert rc == 0, rc
        wait_until(lambda: mid in self.granted, timeout, f"SUBACK of {topic}")
        return self.granted[mid][0]

    def publish(self, topic: str, body: Any, timeout: float = 10, retain: bool = False) -> int:
        """Publishes at QoS 1; the PUBACK's reason code (0, or 135 when the ACL refuses)."""
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        wait_until(lambda: info.mid in self.acks, timeout, f"PUBACK of {topic}")
        return self.acks[info.mid]

    def on(self, topic: str) -> list[Any]:
        with self.lock:
            return [p for t, p in self.messages if t == topic]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def edge_broker(folder: Path, venue: str, table: str, password: str, central_port: int,
                ca: Path) -> Mosquitto:
    """deploy/install-edge.sh for one table: a broker beside the service, bridged to the
    central broker at ``central_port`` (on localhost, as its certificate names it)."""
    etc = folder / "etc"
    etc.mkdir(parents=True, exist_ok=True)
    secret = folder / "mqtt.pass"
    secret.write_text(password + "\n")
    secret.chmod(0o600)
    port = free_port()
    run_script("install-edge.sh", [str(secret), str(ca)], {
        "ETC": str(etc), "OWNER": getpass.getuser(), "VENUE": venue, "TABLE": table,
        "CENTRAL": "localhost", "CENTRAL_PORT": str(central_port), "PORT": str(port)})
    return Mosquitto(folder, port=port, conf=(etc / "conf.d" / "tablesvc-edge.conf").read_text())
