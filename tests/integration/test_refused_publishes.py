"""A broker that refuses the table's messages: reported once per topic and reason, never a flood.

With an ACL that does not match the table's user, every publish is refused. Reporting each
refusal as an event made the broker refuse that event in turn: 5,337 events in 20 s, about
0.3 MB/s of journal and outbox and 16,000 log lines. Now a refusal is logged once per topic
and reason (then again only after a back-off), with the ACL line that would let it through,
and shown in the retained ``status`` where the broker lets the table write that.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import wait_until
from tests.conftest import ServiceProcess
from tests.integration.conftest import write_config
from tests.venue import Client, VenueBroker, shipped_acl

pytestmark = pytest.mark.integration

VENUE = "grand"
P = f"tablesvc/v1/{VENUE}/t01"


def table_config(tmp_path: Path, rig: VirtualTableRig, venue: VenueBroker, user: str) -> Path:
    cfg = write_config(tmp_path, rig, venue.port)
    cfg.write_text(cfg.read_text().replace('venue = "demo"', f'venue = "{VENUE}"').replace(
        "[mqtt]\n", f'[mqtt]\nusername = "{user}"\n'
                    f'password_file = "{venue.password_file(user)}"\n'))
    return cfg


def log_lines(svc: ServiceProcess) -> list[dict[str, Any]]:
    out = []
    for line in svc.logs().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def journal_records(store: Path) -> list[dict[str, Any]]:
    data = b"".join(p.read_bytes().rstrip(b"\0") for p in sorted((store / "journal").iterdir()))
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def heard_from(store: Path) -> set[str]:
    return {r["src"] for r in journal_records(store) if "frame" in r}


def newhands(store: Path) -> int:
    return sum(1 for r in journal_records(store) if ",BTN,NEWHAND" in r.get("frame", ""))


@pytest.fixture
def floor_of(tmp_path: Path) -> Iterator[Callable[[VenueBroker], Client]]:
    made: list[Client] = []

    def make(venue: VenueBroker) -> Client:
        c = venue.client("floor", tls=False)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


def test_a_table_user_the_acl_does_not_know_is_logged_once_per_topic_with_the_fix(
        tmp_path: Path, venue_certs: Path, rig: VirtualTableRig,
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    # the user is named table-t01, but the ACL's patterns expect the table's id, t01
    venue = VenueBroker(tmp_path / "broker", VENUE, venue_certs,
                        {"table-t01": "pw", "floor": "pwf"}, tables=["t01"]).start()
    try:
        cfg = table_config(tmp_path, rig, venue, "table-t01")
        svc = service_factory(cfg)
        svc.start()
        store = tmp_path / "store"
        wait_until(lambda: "connected to broker" in svc.logs(), 20, "the connection")
        wait_until(lambda: heard_from(store) >= {"shoe", "cards", "chips", "console"}, 20,
                   "every device heard")
        for _ in range(2):
            rig.table.play_hand()
        wait_until(lambda: newhands(store) == 2, 20, "both hands journalled")
        assert svc.stop() == 0
    finally:
        venue.stop()
    lines = log_lines(svc)
    refused = [r for r in lines if "refuses this table's messages" in r.get("event", "")]
    topics = [r["topic"] for r in refused]
    assert len(topics) == len(set(topics))  # once per topic (and reason)
    assert {f"{P}/status", f"{P}/events", f"{P}/secure/events", f"{P}/state"} <= set(topics)
    for r in refused:
        assert r["reason"] == "Not authorized"
        sub = r["topic"].removeprefix(f"{P}/")
        sub = "devices/+" if sub.startswith("devices/") else sub
        assert r["acl_line_needed"].startswith(
            f"user table-t01 / topic write tablesvc/v1/{VENUE}/t01/{sub}"), r
    assert len(lines) < 150  # not 16,000
    records = journal_records(tmp_path / "store")
    assert [r["refused"]["seq"] > 0 for r in records if r["src"] == "publisher"] == [True, True]


def test_a_topic_the_acl_refuses_shows_in_the_retained_status_with_the_acl_line(
        tmp_path: Path, venue_certs: Path, rig: VirtualTableRig,
        floor_of: Callable[[VenueBroker], Client],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    acl = shipped_acl(VENUE, ["t01"]).replace(
        f"topic write tablesvc/v1/{VENUE}/t01/secure/events\n", "")
    venue = VenueBroker(tmp_path / "broker", VENUE, venue_certs, {"t01": "pw", "floor": "pwf"},
                        acl_text=acl).start()
    try:
        floor = floor_of(venue)
        assert floor.connected()
        floor.subscribe(f"{P}/#")
        svc = service_factory(table_config(tmp_path, rig, venue, "t01"))
        svc.start()
        wait_until(lambda: any(t.startswith(f"{P}/devices/") for t, _ in floor.messages), 20,
                   "device health")
        rig.table.play_hand()

        def refused_in_status() -> list[dict[str, Any]]:
            status = [p for p in floor.on(f"{P}/status") if isinstance(p, dict)]
            return status[-1].get("refused", []) if status else []

        wait_until(lambda: refused_in_status(), 20, "the refusal in the status")
        assert refused_in_status()[0]["topic"] == f"{P}/secure/events"
        assert refused_in_status()[0]["acl"].startswith(
            f"user t01 / topic write tablesvc/v1/{VENUE}/t01/secure/events (")
        # one warning alert for the floor, about the first refused event only
        wait_until(lambda: any(p.get("name") == "publish_refused"
                               for p in floor.on(f"{P}/alerts")), 10, "the alert")
        assert svc.stop() == 0
    finally:
        venue.stop()
    alerts = [p for p in floor.on(f"{P}/alerts") if p.get("name") == "publish_refused"]
    assert len(alerts) == 1
    assert floor.on(f"{P}/status")[-1]["state"] == "offline"
