"""Commands over MQTT and bad bytes on the wire, against the running service."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tests.conftest import ServiceProcess, Subscriber
from tests.integration.conftest import PREFIX, SECURE, start_service

pytestmark = pytest.mark.integration


def test_seat_command_is_answered_on_its_reply_topic_and_bad_ones_say_why(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    _, svc = start_service(tmp_path, rig, broker, service_factory, sub)

    sub.publish(f"{PREFIX}/cmd/seat", {"request_id": "r1", "seat": 9, "name": "Zed",
                                       "stack": 2500})
    sub.publish(f"{PREFIX}/cmd/seat", {"request_id": "r2", "seat": 11, "name": "", "stack": -1})
    sub.publish(f"{PREFIX}/cmd/unseat", {"request_id": "r3", "seat": 8})
    sub.client.publish(f"{PREFIX}/cmd/button", b"{not json", qos=1)
    sub.publish(f"{PREFIX}/cmd/teleport", {"request_id": "r5"})

    def replies() -> dict[object, dict[str, object]]:
        out = {}
        for topic in ("seat", "unseat", "button", "teleport"):
            for p in sub.on(f"cmd/{topic}/reply"):
                out[p["request_id"]] = p
        return out

    wait_until(lambda: len(replies()) == 5, 10, "five replies")
    r = replies()
    assert r["r1"]["ok"] is True
    assert r["r2"]["ok"] is False
    assert "seat" in str(r["r2"]["error"]) and "stack" in str(r["r2"]["error"])
    assert "name" in str(r["r2"]["error"])
    assert r["r3"]["ok"] is False and "seat 8 is empty" in str(r["r3"]["error"])
    assert r[None]["ok"] is False and "JSON" in str(r[None]["error"])
    assert r["r5"]["ok"] is False and "unknown command" in str(r["r5"]["error"])
    # the seated player is in the retained public state for late joiners
    wait_until(lambda: any(any(p["seat"] == 9 for p in s.get("players", []))
                           for s in sub.on("state")), 5, "state with seat 9")
    assert svc.stop() == 0
    journal = b"".join(p.read_bytes() for p in (tmp_path / "store" / "journal").iterdir())
    assert b'"cmd": "seat"' in journal  # commands are inputs: journalled and replayable


def test_garbage_bad_crc_and_overlong_frames_are_counted_and_the_hand_still_tracks(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    _, svc = start_service(tmp_path, rig, broker, service_factory, sub)
    cards = rig.devices["cards"]
    cards.send_raw(b"\x00\xffnoise noise")
    cards.send_raw(b"$cards,77,ARR,S1,E004010000000000*0000\r\n")  # bad CRC
    cards.send_raw(b"$cards," + b"9" * 2000 + b"\r\n")  # over-long
    cards.send("ARR", "S1", "not-a-uid")  # well framed, malformed field
    rig.table.play_hand()
    wait_until(lambda: any(e["type"] == "hand_ended" for e in sub.events()), 20, "hand_ended")

    def counters() -> dict[str, int]:
        st = [e for e in sub.events() if e["type"] == "device_status" and e["device"] == "cards"]
        return st[-1]["counters"] if st else {}

    wait_until(lambda: counters().get("bad", 0) >= 4, 10, "the bad frames to be reported")
    c = counters()
    assert c["garbage"] >= 1 and c["bad_crc"] == 1 and c["too_long"] == 1
    assert c["malformed"] == 1
    hand = [e for e in sub.events() if e["hand"] == 1]
    assert not [e for e in hand if e["type"] == "alert" and e["severity"] != "info"]
    assert svc.stop() == 0
    log = svc.logs()
    assert "frame dropped" in log


def test_replay_command_fills_a_consumers_gap_with_public_events_only(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    _, svc = start_service(tmp_path, rig, broker, service_factory, sub)
    rig.table.play_hand()
    wait_until(lambda: any(e["type"] == "hand_ended" for e in sub.events()), 20, "hand_ended")
    last = max(e["seq"] for e in sub.events())
    sub.publish(f"{PREFIX}/cmd/replay", {"request_id": "gap", "from_seq": 1, "to_seq": last})
    sub.publish(f"{PREFIX}/cmd/replay", {"request_id": "bad", "from_seq": 9, "to_seq": 2})
    wait_until(lambda: len(sub.on("cmd/replay/reply")) == 2, 10, "two replies")
    replies = {r["request_id"]: r for r in sub.on("cmd/replay/reply")}
    assert replies["bad"]["ok"] is False
    data = replies["gap"]["data"]
    assert replies["gap"]["ok"] is True and data["truncated"] is False
    assert data["events"] == sub.events("events")
    assert not [e for e in data["events"] if e["type"] in SECURE]
    assert svc.stop() == 0
