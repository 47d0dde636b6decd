"""The broker recipe of docs/OPERATIONS.md, run as written on a fresh folder: install, renew.

The recipe is the scripts in deploy/ that the docs tell a technician to run; this runs those
very scripts (not a copy of their commands), with only the settings a test must give them
(a folder instead of /etc/mosquitto, free ports, the test's own user as mosquitto's owner), then
starts mosquitto on what they wrote and connects over TLS as the tables would.
"""

from __future__ import annotations

import getpass
import os
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tablesvc.brokers.mosquitto import Mosquitto, free_port, wait_until
from tests.venue import DEPLOY, Client, install_broker, run_script

pytestmark = pytest.mark.integration

VENUE = "grand-casino"
P = f"tablesvc/v1/{VENUE}"
# passwords that broke the recipe's sed, and the characters a shell or a config reads as its own
PASSWORDS = {"t01": "a/b&c\\1 d#e:f$g'h\"i", "t02": "&&//\\\\", "controller": "ctl pw",
             "floor": "fl/oor&", "broadcast": "b#c"}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


class Installed:
    """What the recipe wrote into a fresh folder, and a broker started on it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.etc = root / "etc" / "mosquitto"
        self.ca_dir = root / "root" / "tablesvc-ca"
        self.port, self.tls_port = free_port(), free_port()
        self.broker: Mosquitto | None = None

    def install(self, users: dict[str, str] | None) -> str:
        return install_broker(self.etc, self.ca_dir, VENUE, ["t01", "t02"], users or {},
                              port=self.port, tls_port=self.tls_port)

    def start(self) -> None:
        conf = (self.etc / "conf.d" / "tablesvc.conf").read_text()
        self.broker = Mosquitto(self.root / "run", port=self.port, conf=conf)
        self.broker.start()

    def stop(self) -> None:
        if self.broker is not None:
            self.broker.stop()

    def client(self, user: str, ca: Path) -> Client:
        """A client over TLS checking the broker against ``ca`` (the tables' copy)."""
        return Client(Endpoint(self.port, self.tls_port, ca), user, PASSWORDS[user])


@dataclass(frozen=True)
class Endpoint:
    port: int
    tls_port: int
    ca: Path


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[Installed]:
    (tmp_path / "run").mkdir()
    i = Installed(tmp_path)
    yield i
    i.stop()


def test_the_recipe_installs_a_broker_and_renews_its_certificate_under_the_same_ca(
        installed: Installed, tmp_path: Path) -> None:
    installed.install(PASSWORDS)
    etc, ca_dir = installed.etc, installed.ca_dir
    # every secret is its owner's only; the CA's key is not on the broker's side
    assert mode(etc / "tablesvc.passwd") == 0o600
    assert mode(etc / "certs" / "server.key") == 0o600
    assert mode(ca_dir) == 0o700 and mode(ca_dir / "ca.key") == 0o600
    assert not (etc / "certs" / "ca.key").exists()
    assert all(PASSWORDS[u] not in (etc / "tablesvc.passwd").read_text() for u in PASSWORDS)
    tables_ca = tmp_path / "ca-given-to-the-tables.crt"
    tables_ca.write_bytes((etc / "certs" / "ca.crt").read_bytes())
    installed.start()
    t01 = installed.client("t01", tables_ca)
    assert t01.connected()
    assert t01.publish(f"{P}/t01/events", {"seq": 1}) < 128
    t01.close()
    server_crt = (etc / "certs" / "server.crt").read_bytes()

    # renewal: the same command again, without the users file (it was deleted)
    installed.stop()
    out = installed.install(None)
    assert "a new venue CA" not in out
    assert (etc / "certs" / "server.crt").read_bytes() != server_crt
    assert (etc / "certs" / "ca.crt").read_bytes() == tables_ca.read_bytes()
    assert mode(etc / "tablesvc.passwd") == 0o600
    installed.start()
    for user in PASSWORDS:  # every password survived, and the tables' CA still verifies
        c = installed.client(user, tables_ca)
        assert c.connected(), user
        c.close()


def test_renewing_without_the_ca_key_stops_instead_of_making_a_new_ca(
        installed: Installed) -> None:
    installed.install(PASSWORDS)
    before = (installed.etc / "certs" / "ca.crt").read_bytes()
    # the technician moved the CA's key away, as the old recipe said to
    (installed.ca_dir / "ca.key").rename(installed.root / "moved-ca.key")
    with pytest.raises(AssertionError, match="its key is not"):
        installed.install(None)
    assert (installed.etc / "certs" / "ca.crt").read_bytes() == before
    assert not (installed.ca_dir / "ca.key").exists()


def test_a_table_id_the_broker_could_not_keep_apart_is_refused_before_anything_is_written(
        tmp_path: Path) -> None:
    for tables, why in ((["t01", "floor"], "named like a role"), (["t01", "t01"], "twice"),
                        (["t/01"], "letters, digits"), (["t+"], "letters, digits")):
        out = subprocess.run(["sh", str(DEPLOY / "venue-acl.sh"), VENUE, *tables],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 2 and why in out.stderr, (tables, out.stderr)
    etc = tmp_path / "etc"
    with pytest.raises(AssertionError, match="named like a role"):
        install_broker(etc, tmp_path / "ca", VENUE, ["broadcast"], PASSWORDS,
                       port=free_port(), tls_port=free_port())
    assert not (etc / "tablesvc.acl").exists() and not (tmp_path / "ca").exists()


def test_the_edge_recipe_bridges_with_any_password_and_keeps_it_to_mosquitto(
        installed: Installed, tmp_path: Path) -> None:
    installed.install(PASSWORDS)
    installed.start()
    etc = tmp_path / "edge" / "etc" / "mosquitto"
    etc.mkdir(parents=True)
    secret = tmp_path / "mqtt.pass"
    secret.write_text(PASSWORDS["t01"] + "\n")
    secret.chmod(0o600)
    edge_port = free_port()
    env = {"ETC": str(etc), "OWNER": getpass.getuser(), "VENUE": VENUE, "TABLE": "t01",
           "CENTRAL": "localhost", "CENTRAL_PORT": str(installed.tls_port),
           "PORT": str(edge_port)}
    for _ in range(2):  # install, then again (a new password file or CA): the same result
        run_script("install-edge.sh", [str(secret), str(installed.etc / "certs" / "ca.crt")],
                   env)
    conf = etc / "conf.d" / "tablesvc-edge.conf"
    assert mode(conf) == 0o600 and mode(etc / "tablesvc.passwd") == 0o600
    assert [line for line in conf.read_text().splitlines()
            if line.startswith("remote_password")] == [f"remote_password {PASSWORDS['t01']}"]
    edge = Mosquitto(tmp_path / "edge", port=edge_port, conf=conf.read_text())
    edge.start()
    try:
        assert installed.broker is not None
        log = installed.broker.log
        wait_until(lambda: "as t01" in log.read_text(), 20, "the bridge to log in as t01")
    finally:
        edge.stop()


def test_a_password_the_edge_config_cannot_carry_is_refused_with_the_reason(
        tmp_path: Path) -> None:
    secret = tmp_path / "mqtt.pass"
    secret.write_text(" leading space\n")
    out = subprocess.run(["sh", str(DEPLOY / "install-edge.sh"), str(secret),
                          str(tmp_path / "ca.crt")],
                         env={**os.environ, "ETC": str(tmp_path / "etc"), "VENUE": VENUE,
                              "TABLE": "t01", "CENTRAL": "localhost",
                              "OWNER": getpass.getuser()},
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "begins nor ends with a space" in out.stderr
    assert not (tmp_path / "etc" / "conf.d" / "tablesvc-edge.conf").exists()
