"""The shipped broker setup (deploy/mosquitto.conf, deploy/tablesvc.acl) on a real mosquitto:
TLS with the venue's own CA, users made with mosquitto_passwd, and every role tried as an
operator and an attacker would.

mosquitto's ACL file does not refuse a subscription (the SUBACK grants it); it refuses the
delivery of each message the user may not read. So "cannot read" is tested as "receives
nothing", next to a user who may and does receive the same message.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import wait_until
from tests.conftest import ROOT, ServiceProcess
from tests.integration.conftest import PLAYERS, write_config
from tests.venue import ROLES, Client, VenueBroker

pytestmark = pytest.mark.integration

VENUE = "grand"
P = f"tablesvc/v1/{VENUE}"
NOT_AUTHORIZED = 135
USERS = {"t01": "pw-t01", "t02": "pw-t02", "controller": "pw-ctl", "floor": "pw-floor",
         "broadcast": "pw-bc"}


@pytest.fixture(scope="module")
def venue(tmp_path_factory: pytest.TempPathFactory, venue_certs: Path) -> Iterator[VenueBroker]:
    v = VenueBroker(tmp_path_factory.mktemp("venue"), VENUE, venue_certs, USERS).start()
    yield v
    v.stop()


@pytest.fixture
def connect(venue: VenueBroker) -> Iterator[Callable[..., Client]]:
    clients: list[Client] = []

    def make(user: str, password: str | None = None, **kw: object) -> Client:
        c = venue.client(user, password, **kw)  # type: ignore[arg-type]
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


def settle() -> None:
    """Long enough for a message the broker would deliver to arrive."""
    time.sleep(0.5)


def test_only_broadcast_reads_hole_cards_and_every_role_reads_status_and_device_health(
        connect: Callable[..., Client]) -> None:
    table = connect("t01")
    assert table.connected()
    readers = {role: connect(role) for role in ROLES}
    for role, c in readers.items():
        assert c.connected(), role
        for sub in ("+/secure/events", "+/events", "+/status", "+/devices/+"):
            c.subscribe(f"{P}/{sub}")
    assert table.publish(f"{P}/t01/status", {"state": "online"}, retain=True) < 128
    assert table.publish(f"{P}/t01/devices/shoe", {"state": "online"}, retain=True) < 128
    assert table.publish(f"{P}/t01/secure/events", {"seq": 1, "type": "hole_cards"}) < 128
    assert table.publish(f"{P}/t01/events", {"seq": 2, "type": "card_dealt"}) < 128
    for role, c in readers.items():
        wait_until(lambda c=c: c.on(f"{P}/t01/events"), 10, f"{role} to get the public event")
        assert c.on(f"{P}/t01/status") == [{"state": "online"}], role
        assert c.on(f"{P}/t01/devices/shoe") == [{"state": "online"}], role
    wait_until(lambda: readers["broadcast"].on(f"{P}/t01/secure/events"), 10, "hole cards")
    settle()
    assert readers["floor"].on(f"{P}/t01/secure/events") == []
    assert readers["controller"].on(f"{P}/t01/secure/events") == []


def test_only_the_controller_commands_a_table_and_the_floor_only_acknowledges_alerts(
        connect: Callable[..., Client]) -> None:
    table = connect("t01")
    assert table.connected()
    table.subscribe(f"{P}/t01/cmd/+")
    controller, floor, broadcast = connect("controller"), connect("floor"), connect("broadcast")
    for c in (controller, floor, broadcast):
        assert c.connected()
        c.subscribe(f"{P}/t01/cmd/+/reply")
    assert controller.publish(f"{P}/t01/cmd/seat", {"request_id": "c1"}) < 128
    assert controller.publish(f"{P}/t01/cmd/ack_alert", {"request_id": "c2"}) < 128
    assert floor.publish(f"{P}/t01/cmd/ack_alert", {"request_id": "f1"}) < 128
    for name in ("seat", "unseat", "button", "stacks", "configure", "declare", "replay"):
        assert floor.publish(f"{P}/t01/cmd/{name}", {"request_id": "f2"}) == NOT_AUTHORIZED
    for name in ("seat", "ack_alert", "replay"):
        assert broadcast.publish(f"{P}/t01/cmd/{name}", {}) == NOT_AUTHORIZED
    wait_until(lambda: len(table.messages) == 3, 10, "the three permitted commands")
    assert sorted(p["request_id"] for _, p in table.messages) == ["c1", "c2", "f1"]
    # the table answers; the floor reads the answer to its acknowledgement only
    assert table.publish(f"{P}/t01/cmd/ack_alert/reply", {"request_id": "f1", "ok": True}) < 128
    assert table.publish(f"{P}/t01/cmd/seat/reply", {"request_id": "c1", "ok": True}) < 128
    wait_until(lambda: len(controller.messages) == 2, 10, "the controller's two replies")
    wait_until(lambda: floor.messages, 10, "the floor's reply")
    settle()
    assert [t for t, _ in floor.messages] == [f"{P}/t01/cmd/ack_alert/reply"]
    assert broadcast.messages == []


def test_one_tables_credentials_cannot_publish_as_or_command_another_table(
        connect: Callable[..., Client]) -> None:
    t01, t02, floor = connect("t01"), connect("t02"), connect("floor")
    assert t01.connected() and t02.connected() and floor.connected()
    t01.subscribe(f"{P}/t01/cmd/+")
    t02.subscribe(f"{P}/t01/cmd/+")  # granted, but nothing is delivered
    floor.subscribe(f"{P}/+/events")
    assert t02.publish(f"{P}/t01/events", {"seq": 99, "type": "fake"}) == NOT_AUTHORIZED
    assert t02.publish(f"{P}/t01/status", {"state": "offline"}) == NOT_AUTHORIZED
    assert t02.publish(f"{P}/t01/cmd/seat", {"seat": 1}) == NOT_AUTHORIZED
    assert t02.publish(f"{P}/t02/cmd/seat", {"seat": 1}) == NOT_AUTHORIZED  # nor itself
    assert t02.publish(f"{P}/t02/events", {"seq": 1, "type": "own"}) < 128
    controller = connect("controller")
    assert controller.connected()
    assert controller.publish(f"{P}/t01/cmd/button", {"request_id": "only-t01"}) < 128
    wait_until(lambda: t01.messages, 10, "t01's command")
    wait_until(lambda: floor.on(f"{P}/t02/events"), 10, "t02's own event")
    settle()
    assert t02.messages == []
    assert floor.on(f"{P}/t01/events") == []


def test_no_user_disconnects_a_table_by_taking_its_client_id(
        connect: Callable[..., Client]) -> None:
    table = connect("t01", client_id="tablesvc-grand-t01")
    assert table.connected()
    for user in ("t02", "floor", "controller", "broadcast"):
        for cid in ("t01", "tablesvc-grand-t01"):
            intruder = connect(user, client_id=cid)
            assert intruder.connected(), user
    wrong = connect("t01", "not-the-password", client_id="t01")
    wait_until(lambda: bool(wrong.connects), 10, "the refusal")
    assert wrong.connects[0] == NOT_AUTHORIZED
    anonymous = connect("", "", client_id="t01")
    wait_until(lambda: bool(anonymous.connects), 10, "the refusal")
    assert anonymous.connects[0] >= 128
    settle()
    assert table.disconnects == []
    assert table.publish(f"{P}/t01/events", {"seq": 1}) < 128  # still connected, still sending


def test_the_service_publishes_over_tls_as_its_table_user_and_only_broadcast_sees_hole_cards(
        tmp_path: Path, venue: VenueBroker, rig: VirtualTableRig,
        connect: Callable[..., Client],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    floor, broadcast = connect("floor"), connect("broadcast")
    for c in (floor, broadcast):
        assert c.connected()
        c.subscribe(f"{P}/t01/#")
    cfg = write_config(tmp_path, rig, venue.tls_port)
    text = cfg.read_text().replace('venue = "demo"', f'venue = "{VENUE}"').replace(
        "[mqtt]\n", f'[mqtt]\nhost = "localhost"\nusername = "t01"\n'
                    f'password_file = "{venue.password_file("t01")}"\nca_file = "{venue.ca}"\n')
    cfg.write_text(text)
    svc = service_factory(cfg)
    svc.start()
    wait_until(lambda: any(p.get("state") == "online" for p in broadcast.on(f"{P}/t01/status")),
               20, "the table online over TLS")

    def devices_online() -> bool:
        state = {t: p.get("state") for t, p in broadcast.messages if "/devices/" in t}
        return len(state) == 4 and set(state.values()) == {"online"}

    wait_until(devices_online, 20, "the four devices online")
    rig.table.play_hand()
    wait_until(lambda: any(p["type"] == "board" for p in floor.on(f"{P}/t01/events")), 30,
               "the flop at the floor")
    wait_until(lambda: sum(p["type"] == "hole_cards" for p in broadcast.on(
        f"{P}/t01/secure/events")) >= len(PLAYERS), 10, "hole cards at broadcast")
    assert svc.stop() == 0
    assert {p["type"] for p in broadcast.on(f"{P}/t01/secure/events")} >= {"hole_cards"}
    assert floor.on(f"{P}/t01/secure/events") == []
    assert any(t.startswith(f"{P}/t01/devices/") for t, _ in floor.messages)
    assert "refuses" not in svc.logs()  # nothing the table publishes was refused


def watch(cfg: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablesvc.commands.cli", "watch", "--config",
                           str(cfg), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout)


def table_toml(folder: Path, venue: VenueBroker) -> Path:
    """The table's own config, as installed: its user, password file and CA."""
    cfg = folder / "t01.toml"
    cfg.write_text(f'[table]\nvenue = "{VENUE}"\nid = "t01"\n[mqtt]\nhost = "localhost"\n'
                   f'port = {venue.tls_port}\nusername = "t01"\n'
                   f'password_file = "{venue.password_file("t01")}"\nca_file = "{venue.ca}"\n')
    return cfg


def test_watch_as_the_tables_own_user_is_refused_saying_the_broker_denies_it_reading(
        tmp_path: Path, venue: VenueBroker, connect: Callable[..., Client]) -> None:
    table = connect("t01")
    assert table.connected()
    done = watch(table_toml(tmp_path, venue), "--alerts", "--timeout", "5")
    assert done.returncode == 2
    assert f"the broker denies user t01 reading {P}/t01/alerts" in " ".join(done.stderr.split())
    assert "Traceback" not in done.stderr
    assert table.disconnects == []  # it never connected as the table


def test_watch_with_a_missing_password_file_or_a_wrong_password_says_which(
        tmp_path: Path, venue: VenueBroker) -> None:
    cfg = table_toml(tmp_path, venue)
    missing = watch(cfg, "--username", "floor", "--password-file", str(tmp_path / "nope"),
                    "--timeout", "5")
    assert missing.returncode == 2
    assert f"cannot read the password file {tmp_path / 'nope'}" in " ".join(
        missing.stderr.split())
    wrong = tmp_path / "wrong.pass"
    wrong.write_text("not-the-password\n")
    refused = watch(cfg, "--username", "floor", "--password-file", str(wrong), "--timeout", "5")
    assert refused.returncode == 2
    assert "the broker refused the connection" in refused.stderr
    assert "Traceback" not in missing.stderr + refused.stderr


def test_watch_as_a_user_the_acl_gives_nothing_says_so_and_a_floor_user_sees_the_alerts(
        tmp_path: Path, venue: VenueBroker, connect: Callable[..., Client]) -> None:
    table = connect("t01")
    assert table.connected()
    assert table.publish(f"{P}/t01/status", {"state": "online"}, retain=True) < 128
    cfg = table_toml(tmp_path, venue)
    # another table's user may read nothing of t01: mosquitto grants the subscription but
    # delivers nothing, not even the retained status
    other = watch(cfg, "--username", "t02", "--password-file", str(venue.password_file("t02")),
                  "--alerts", "--timeout", "7")
    assert "the broker denies user t02 reading it" in " ".join(other.stderr.split())
    floor = subprocess.Popen(
        [sys.executable, "-m", "tablesvc.commands.cli", "watch", "--config", str(cfg),
         "--username", "floor", "--password-file", str(venue.password_file("floor")),
         "--alerts", "--json", "--count", "1", "--timeout", "20"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    seq = 0
    while floor.poll() is None and seq < 40:  # until the watcher has subscribed and got one
        seq += 1
        assert table.publish(f"{P}/t01/alerts", {"seq": seq, "type": "alert"}) < 128
        time.sleep(0.5)
    out, err = floor.communicate(timeout=30)
    assert floor.returncode == 0, err
    assert json.loads(out.splitlines()[0])["type"] == "alert"
    assert "denies" not in err


def test_a_backlog_goes_out_over_tls_through_a_full_in_flight_window_and_nothing_is_lost(
        tmp_path: Path, venue: VenueBroker, connect: Callable[..., Client]) -> None:
    """A restart after an outage sends the outbox's backlog: paho's window (mqtt.inflight)
    fills up, publish() is refused past it, and every message still goes, once."""
    from tablesvc.config.table import MqttSection
    from tablesvc.pipeline.outbox import Message, Outbox
    from tablesvc.pipeline.publisher import Publisher

    reader = connect("broadcast")
    assert reader.connected()
    reader.subscribe(f"{P}/t01/events")
    total = 3000
    outbox = Outbox(tmp_path / "o.sqlite")
    outbox.add([Message(s, "events", json.dumps({"seq": s}), 0, 0) for s in range(1, total + 1)])
    outbox.start()
    pub = Publisher(MqttSection(host="localhost", port=venue.tls_port, username="t01",
                                ca_file=str(venue.ca), protocol="5", inflight=200),
                    f"{P}/t01", outbox, on_command=lambda n, b: None,
                    on_refused=lambda s, r: None, client_id="ignored", version="t",
                    password=USERS["t01"])
    pub.start()
    try:
        wait_until(lambda: len(reader.on(f"{P}/t01/events")) >= total, 60, "the backlog")
        wait_until(lambda: outbox.flush() and outbox.unacked_count() == 0, 30, "every ack")
    finally:
        pub.stop()
        outbox.close()
    assert [p["seq"] for p in reader.on(f"{P}/t01/events")] == list(range(1, total + 1))
    assert pub.peak_inflight == 200  # the window was used to the full, and never beyond
    assert pub.refused == 0


def test_no_role_user_can_publish_under_a_table_prefix_named_as_itself(
        connect: Callable[..., Client]) -> None:
    # with per-user pattern lines (%u), "floor" could write tablesvc/v1/<venue>/floor/alerts
    # and the floor console would show a table "floor" with its alerts: the ACL now names
    # each table's topics for that table's user only
    floor = connect("floor")
    assert floor.connected()
    for role in ROLES:
        floor.subscribe(f"{P}/{role}/#")
    for role in ROLES:
        c = connect(role)
        assert c.connected(), role
        for sub in ("status", "state", "events", "alerts", "devices/shoe", "secure/events"):
            assert c.publish(f"{P}/{role}/{sub}", {"seq": 1, "severity": "critical"},
                             retain=sub == "status") == NOT_AUTHORIZED, (role, sub)
        assert c.publish(f"{P}/t01/alerts", {"seq": 1}) == NOT_AUTHORIZED, role
    settle()
    assert floor.messages == []
