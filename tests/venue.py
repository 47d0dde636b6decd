"""The venue's broker as shipped: deploy/mosquitto.conf and deploy/tablesvc.acl on a real mosquitto.

The shipped files are used as they are, with only what an installer changes changed: the
ACL's venue (it is a template), the folders of the password file, the ACL and the
certificates (``/etc/mosquitto/...`` becomes a test folder), and the listeners' ports (free
ones). Each of those substitutions must find its text exactly once, so a change to the shipped
files that the tests would no longer exercise fails here instead of passing unnoticed. Users
are made with ``mosquitto_passwd`` and the certificates with ``deploy/make-certs.sh``, the
recipe of docs/OPERATIONS.md.
"""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


def substitute(text: str, changes: dict[str, str], name: str) -> str:
    for old, new in changes.items():
        count = text.count(old)
        assert count == 1, f"{name}: expected {old!r} once, found it {count} times"
        text = text.replace(old, new)
    return text


def make_passwords(path: Path, users: dict[str, str]) -> None:
    first = True
    for user, password in users.items():
        subprocess.run(["mosquitto_passwd", *(["-c"] if first else []), "-b", str(path), user,
                        password], check=True, capture_output=True, timeout=30)
        first = False


@dataclass
class VenueBroker:
    """mosquitto with the shipped config: ``port`` plain on 127.0.0.1, ``tls_port`` TLS."""

    folder: Path
    venue: str
    certs: Path
    passwords: dict[str, str]
    acl_text: str | None = None
    """The ACL to use instead of the shipped one (already for this venue)."""
    broker: Mosquitto = field(init=False)
    tls_port: int = field(init=False)

    def __post_init__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        certs = self.folder / "certs"
        if not certs.exists():
            shutil.copytree(self.certs, certs)
        passwd = self.folder / "tablesvc.passwd"
        make_passwords(passwd, self.passwords)
        acl = self.folder / "tablesvc.acl"
        acl.write_text(self.acl_text if self.acl_text is not None else shipped_acl(self.venue))
        port, self.tls_port = free_port(), free_port()
        conf = substitute((DEPLOY / "mosquitto.conf").read_text(), {
            "password_file /etc/mosquitto/tablesvc.passwd": f"password_file {passwd}",
            "acl_file /etc/mosquitto/tablesvc.acl": f"acl_file {acl}",
            "/etc/mosquitto/certs/server.crt": str(certs / "server.crt"),
            "/etc/mosquitto/certs/server.key": str(certs / "server.key"),
            "/etc/mosquitto/certs/ca.crt": str(certs / "ca.crt"),
            "listener 1883 127.0.0.1": f"listener {port} 127.0.0.1",
            "listener 8883\n": f"listener {self.tls_port}\n",
        }, "deploy/mosquitto.conf")
        self.broker = Mosquitto(self.folder, port=port, conf=conf)

    @property
    def port(self) -> int:
        return self.broker.port

    @property
    def ca(self) -> Path:
        return self.folder / "certs" / "ca.crt"

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


def shipped_acl(venue: str) -> str:
    return (DEPLOY / "tablesvc.acl").read_text().replace("@VENUE@", venue)


class Client:
    """A paho client (MQTT 5) of one user that records what it gets: connection results,
    subscription grants, PUBACK reason codes and messages."""

    def __init__(self, venue: VenueBroker, user: str, password: str, *, client_id: str = "",
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
    """deploy/mosquitto-edge.conf for one table: a broker beside the service, bridged to the
    central broker at ``central_port`` (on localhost, as its certificate names it)."""
    folder.mkdir(parents=True, exist_ok=True)
    passwd = folder / "tablesvc.passwd"
    make_passwords(passwd, {table: password})
    acl = folder / "tablesvc.acl"
    acl.write_text(shipped_acl(venue))
    port = free_port()
    text = (DEPLOY / "mosquitto-edge.conf").read_text()
    text = substitute(text, {
        "password_file /etc/mosquitto/tablesvc.passwd": f"password_file {passwd}",
        "acl_file /etc/mosquitto/tablesvc.acl": f"acl_file {acl}",
        "listener 1883 127.0.0.1": f"listener {port} 127.0.0.1",
        "address @CENTRAL@:8883": f"address localhost:{central_port}",
        "bridge_cafile /etc/mosquitto/certs/ca.crt": f"bridge_cafile {ca}",
        "remote_password @PASSWORD@": f"remote_password {password}",
    }, "deploy/mosquitto-edge.conf")
    text = text.replace("@VENUE@", venue).replace("@TABLE@", table)
    assert "@" not in "".join(line for line in text.splitlines() if not line.startswith("#"))
    return Mosquitto(folder, port=port, conf=text)
