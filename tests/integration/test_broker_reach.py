"""A broker that cannot be reached is named for what is wrong, once (issue 30).

The table's publisher, the tournament controller's link and ``tablesvc watch`` against a real
mosquitto set up as shipped (a plain listener and a TLS one): no broker at the port, TLS
expected and not spoken, TLS spoken to a plain port, a certificate the CA file does not vouch
for, a refused user. A program that keeps reconnecting says it in one warning however many
attempts fail, and its "connected" line says when it is over.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any, Protocol

import paho.mqtt.client as mqtt
import pytest
import structlog

from tablesvc.brokers.mosquitto import Mosquitto, free_port, wait_until
from tablesvc.config.table import MqttSection, load_config
from tablesvc.overlay.feed import TableFeed
from tablesvc.pipeline import netloop
from tablesvc.pipeline.outbox import Outbox
from tablesvc.pipeline.publisher import Publisher
from tablesvc.pipeline.reach import Reach
from tablesvc.tournament.config import TournamentConfig
from tablesvc.tournament.link import Link
from tests.conftest import ROOT
from tests.venue import VenueBroker

pytestmark = pytest.mark.integration

VENUE = "grand"
USERS = {"t01": "pw-t01", "floor": "pw-floor", "controller": "pw-ctl"}
ATTEMPTS = 4
"""Failed attempts a test waits for before it counts the warnings."""


@pytest.fixture(scope="module")
def venue(tmp_path_factory: pytest.TempPathFactory, venue_certs: Path) -> Iterator[VenueBroker]:
    v = VenueBroker(tmp_path_factory.mktemp("venue"), VENUE, venue_certs, USERS).start()
    yield v
    v.stop()


@pytest.fixture
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The publisher tries again within 0.2 s, not 1 to 10 s: the attempts come quickly."""
    monkeypatch.setattr(netloop, "MIN_DELAY_S", 0.05, raising=False)
    monkeypatch.setattr(netloop, "MAX_DELAY_S", 0.2, raising=False)


def publisher(tmp: Path, mqtt: MqttSection, password: str | None = None) -> Publisher:
    return Publisher(mqtt, f"tablesvc/v1/{VENUE}/t01", Outbox(tmp / "outbox.sqlite"),
                     on_command=lambda name, body: None, on_refused=lambda seq, reason: None,
                     client_id="t01", version="t", password=password)


def warnings(logs: list[MutableMapping[str, Any]]) -> list[MutableMapping[str, Any]]:
    return [r for r in logs if r["log_level"] in ("warning", "error", "critical")]


def test_the_publisher_says_once_that_no_broker_listens_and_once_that_it_is_back(
        tmp_path: Path, quick_retries: None) -> None:
    port = free_port()
    pub = publisher(tmp_path, MqttSection(port=port))  # protocol "auto", as by default
    with structlog.testing.capture_logs() as logs:
        pub.start()
        try:
            wait_until(lambda: pub.reach.failures >= 3 * ATTEMPTS, 20, "attempts to fail")
            said = warnings(logs)
            assert len(said) == 1, said
            assert said[0]["event"] == "cannot connect to the broker"
            assert said[0]["reason"] == f"no broker at 127.0.0.1:{port} (connection refused)"
            broker = Mosquitto(tmp_path, port=port)
            broker.start()
            try:
                wait_until(lambda: pub.connected, 20, "the connection once the broker is up")
                pub.stop()
            finally:
                broker.stop()
        finally:
            pub.stop()
    assert len(warnings(logs)) == 1, warnings(logs)
    back = [r for r in logs if r["event"] == "connected to broker"]
    assert len(back) == 1 and back[0]["log_level"] == "info"
    assert back[0]["after"] == said[0]["reason"] and back[0]["failed_attempts"] >= 3 * ATTEMPTS
    assert back[0]["protocol"] == "5"  # no broker at all is no answer about the protocol
    assert not any("falling back" in r["event"] for r in logs)


CASES = {
    "plain on the TLS port": ("127.0.0.1", "tls", False, "pw-t01", "expects_tls",
                              "the broker at 127.0.0.1:{port} expects TLS (set mqtt.ca_file"),
    "TLS on the plain port": ("localhost", "plain", True, "pw-t01", "no_tls",
                              "the broker at localhost:{port} does not speak TLS"),
    "a CA file that does not vouch for the broker": (
        "localhost", "tls", "leaf", "pw-t01", "certificate",
        "the broker at localhost:{port} has a certificate that mqtt.ca_file does not vouch "
        "for: "),
    "a wrong password": ("localhost", "tls", True, "not-it", "refused_user",
                         "the broker at localhost:{port} refused user t01"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_publisher_names_what_is_wrong_with_the_venue_broker_once(
        tmp_path: Path, venue: VenueBroker, quick_retries: None, case: str) -> None:
    host, listener, tls, password, kind, text = CASES[case]
    port = venue.tls_port if listener == "tls" else venue.port
    # the broker's own certificate is no CA: a chain to it cannot be built
    ca_file = {True: str(venue.ca), False: "", "leaf": str(venue.ca.parent / "server.crt")}[tls]
    pub = publisher(tmp_path, MqttSection(host=host, port=port, username="t01",
                                          ca_file=ca_file), password)
    with structlog.testing.capture_logs() as logs:
        pub.start()
        try:
            wait_until(lambda: pub.reach.failures >= ATTEMPTS and pub.reach.trouble is not None,
                       20, "attempts to fail")
        finally:
            pub.stop()
    said = warnings(logs)
    assert len(said) == 1, said
    assert said[0]["kind"] == kind
    assert said[0]["reason"].startswith(text.format(port=port)), said[0]["reason"]
    assert not any("falling back" in r["event"] for r in logs)


class Connecting(Protocol):
    """A program's client that keeps trying (the controller's link, the overlay's feed)."""

    client: mqtt.Client
    reach: Reach

    def start(self) -> None: ...
    def stop(self) -> None: ...


def says_once_that_the_broker_expects_tls(program: Connecting, port: int) -> None:
    """Several attempts against the TLS port in plain text: one warning, naming it."""
    program.client.reconnect_delay_set(1, 1)  # paho's own back-off: 1 s at most
    with structlog.testing.capture_logs() as logs:
        program.start()
        try:
            wait_until(lambda: program.reach.failures >= ATTEMPTS, 20, "attempts to fail")
        finally:
            program.stop()
    said = warnings(logs)
    assert len(said) == 1, said
    assert said[0]["reason"] == (f"the broker at localhost:{port} expects TLS (set "
                                 "mqtt.ca_file to the venue CA's certificate)")


def test_the_tournament_link_says_once_that_the_broker_expects_tls(
        tmp_path: Path, venue: VenueBroker) -> None:
    (tmp_path / "ctl.pass").write_text("pw-ctl\n")
    cfg = TournamentConfig.model_validate({
        "tournament": {"venue": VENUE, "name": "Friday", "structure": "s.toml"},
        "tables": [{"id": "t01"}],
        "mqtt": {"host": "localhost", "port": venue.tls_port, "password_file": "ctl.pass"}})
    says_once_that_the_broker_expects_tls(
        Link(cfg, tmp_path / "tournament.toml", lambda received: None), venue.tls_port)


def test_the_overlay_feed_says_once_that_the_broker_expects_tls(
        tmp_path: Path, venue: VenueBroker) -> None:
    cfg = tmp_path / "t01.toml"
    cfg.write_text(f'[table]\nvenue = "{VENUE}"\nid = "t01"\n'
                   f'[mqtt]\nhost = "localhost"\nport = {venue.tls_port}\n'
                   '[overlay]\nusername = "broadcast"\n')
    says_once_that_the_broker_expects_tls(
        TableFeed(load_config(cfg), "pw", lambda *a: None, lambda up: None), venue.tls_port)


def watch(cfg: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablesvc.commands.cli", "watch", "--config",
                           str(cfg), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)


@pytest.mark.parametrize("tls", [False, True])
def test_watch_names_a_tls_mismatch_and_not_another_program_taking_its_place(
        tmp_path: Path, venue: VenueBroker, tls: bool) -> None:
    port = venue.port if tls else venue.tls_port
    cfg = tmp_path / "t01.toml"
    cfg.write_text(f'[table]\nvenue = "{VENUE}"\nid = "t01"\n[mqtt]\nhost = "localhost"\n'
                   f'port = {port}\n' + (f'ca_file = "{venue.ca}"\n' if tls else ""))
    done = watch(cfg, "--alerts", "--username", "floor", "--password-file",
                 str(venue.password_file("floor")), "--timeout", "30")
    err = " ".join(done.stderr.split())
    assert done.returncode == 2, err
    assert "takes its place" not in err
    if tls:
        assert f"the broker at localhost:{port} does not speak TLS" in err
    else:
        assert (f"cannot reach the broker: the broker at localhost:{port} expects TLS (set "
                "mqtt.ca_file to the venue CA's certificate)") in err
    assert "Traceback" not in err
