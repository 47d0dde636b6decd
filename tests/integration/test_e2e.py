"""End to end: virtual devices on ptys -> ``tablesvc run`` -> mosquitto -> a paho subscriber.

Every part is the real one a venue runs, except the hardware: the service is its own process
opening pty device paths as it would open /dev/ttyUSB0, and the broker is mosquitto.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tests.conftest import ROOT, ServiceProcess, Subscriber
from tests.integration.conftest import PLAYERS, PREFIX, SECURE, all_devices_online, start_service

pytestmark = pytest.mark.integration

def hands_ended(sub: Subscriber) -> int:
    return sum(1 for e in sub.events() if e["type"] == "hand_ended")


def replay(cfg: Path) -> list[dict[str, Any]]:
    out = subprocess.run([sys.executable, "-m", "tablesvc.commands.cli", "replay",
                          str(cfg.parent / "store" / "journal"), "--config", str(cfg)],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def unacked(cfg: Path) -> int:
    """Messages the service's outbox has not seen acknowledged yet (read beside the service)."""
    db = sqlite3.connect(f"file:{cfg.parent / 'store' / 'outbox.sqlite'}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM messages WHERE acked IS NULL").fetchone()[0])
    finally:
        db.close()


def assert_contiguous(events: list[dict[str, Any]]) -> None:
    """In seq order, and no event of the feed missing: prev_seq chains them."""
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs)
    for prev, cur in itertools.pairwise(events):
        assert cur["prev_seq"] == prev["seq"], f"gap before seq {cur['seq']}"


def test_full_hand_reaches_subscriber_in_order_with_hole_cards_only_on_secure(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    cfg, svc = start_service(tmp_path, rig, broker, service_factory, sub)
    record = rig.table.play_hand()
    wait_until(lambda: hands_ended(sub) == 1, 20, "hand_ended")
    assert svc.stop() == 0

    public = sub.events("events")
    secure = sub.events("secure/events")
    assert_contiguous(public)
    assert_contiguous(secure)
    hand = [e for e in public if e["hand"] == 1]
    types = [e["type"] for e in hand]
    # a rule alert waits for every device to be heard after it (alerts confirmed): one raised
    # as the hand ends may follow its hand_ended; every other event of the hand comes before
    assert types[0] == "hand_started" and [t for t in types if t != "alert"][-1] == "hand_ended"
    started = hand[0]
    assert started["button"] == record.button
    assert [s["seat"] for s in started["seats"]] == [s for s in record.seats]
    dealt = [e for e in hand if e["type"] == "card_dealt"]
    assert len(dealt) == 2 * len(PLAYERS)
    assert [e["seat"] for e in dealt] == list(record.seats) * 2
    holes = {e["seat"]: e["cards"] for e in secure if e["type"] == "hole_cards"}
    assert holes == {s: list(c) for s, c in record.hole_cards.items()}
    boards = [e for e in hand if e["type"] == "board"]
    if record.board:
        assert boards[-1]["board"] == list(record.board)
    assert hand[-1]["reason"] == ("showdown" if record.showdown else "uncontested")
    # no hole card outside secure/ — not in events, alerts, state or device topics — except
    # a hand tabled at the showdown, once the betting is over
    tabled = {c for e in hand if e["type"] == "showdown" and e["tabled"] for c in e["cards"]}
    mucked = {s for e in hand if e["type"] == "showdown" and not e["tabled"]
              for s in [e["seat"]]}
    assert all(e["cards"] is None and e["rank"] is None
               for e in hand if e["type"] == "showdown" and not e["tabled"])
    hidden = {c for seat, cards in holes.items() for c in cards
              if seat in mucked or c not in tabled}
    with sub.lock:
        public_msgs = [m for m in sub.messages if "/secure/" not in m.topic]
    for m in public_msgs:
        if isinstance(m.payload, dict) and m.payload.get("type") == "showdown":
            continue
        text = json.dumps(m.payload)
        leaked = [c for c in (hidden | tabled) if f'"{c}"' in text]  # never on the board
        assert not leaked, f"hole card on public topic {m.topic}: {text[:200]}"
    # and the journal replays to exactly what was published
    replayed = replay(cfg)
    assert [e for e in replayed if e["type"] not in SECURE] == public
    assert [e for e in replayed if e["type"] in SECURE] == secure


def test_broker_down_mid_hand_then_back_every_event_arrives_once_in_order(
        tmp_path: Path, rig: VirtualTableRig,
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    store = tmp_path / "broker"
    store.mkdir()
    broker = Mosquitto(store, f"persistence true\npersistence_location {store}/\n")
    broker.start()
    sub = Subscriber(broker.port, f"{PREFIX}/#", persistent=True)
    try:
        cfg, svc = start_service(tmp_path, rig, broker, service_factory, sub)
        dealer = rig.start(hands=2)
        wait_until(lambda: any(e["type"] == "card_dealt" for e in sub.events()), 20,
                   "the deal to begin")
        broker.stop()
        dealer.join(timeout=0.2 * 30)  # the table keeps dealing while the broker is down
        broker.start()
        dealer.join(timeout=60)
        try:
            wait_until(lambda: hands_ended(sub) == 2, 30, "both hands to arrive")
        except AssertionError:
            print(svc.logs()[-4000:])
            print(len(sub.messages), hands_ended(sub), [e["seq"] for e in sub.events()][-5:])
            raise
        svc.stop()
        public = sub.events("events")
        assert_contiguous(public)
        replayed = [e for e in replay(cfg) if e["type"] not in SECURE]
        assert public == replayed
        assert not [(e["name"], e["message"]) for e in public
                    if e["type"] == "alert" and e["severity"] != "info"]
    finally:
        sub.close()
        broker.stop()


def test_sigkill_mid_hand_and_restart_loses_and_doubles_nothing_and_tracking_continues(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    cfg, svc = start_service(tmp_path, rig, broker, service_factory, sub)
    rig.table.pause()
    dealer = rig.start(hands=1)
    rig.table.resume()
    wait_until(lambda: sum(e["type"] == "card_dealt" for e in sub.events()) >= 3, 20,
               "three cards dealt")
    rig.table.pause()  # the dealer waits while the box reboots
    last = max(e["seq"] for e in sub.events())
    wait_until(lambda: max(e["seq"] for e in sub.events()) == last, 5, "quiet")
    svc.kill()
    svc2 = ServiceProcess(cfg)
    svc2.start()
    try:
        wait_until(lambda: sum(e["type"] == "service_started" for e in sub.events()) == 2, 20,
                   "the restarted service")
        wait_until(lambda: all_devices_online(sub), 20, "devices online again")
        rig.table.resume()
        dealer.join(timeout=60)
        wait_until(lambda: hands_ended(sub) == 1, 20, "the hand to end")
        svc2.stop()
    finally:
        if svc2.proc and svc2.proc.poll() is None:
            svc2.proc.kill()
    public = sub.events("events")
    assert_contiguous(public)
    with sub.lock:
        raw = [m.payload["seq"] for m in sub.messages if m.topic.endswith("/events")]
    assert len(raw) >= len(public)  # duplicates may be re-sent; by seq each is once
    hand = [e for e in public if e["hand"] == 1]
    assert [e["type"] for e in hand].count("hand_started") == 1
    assert sum(e["type"] == "card_dealt" for e in hand) == 2 * len(PLAYERS)
    warnings = [e for e in hand if e["type"] == "alert" and e["severity"] != "info"]
    assert not warnings, f"tracking lost its place: {[(e['name'], e['message']) for e in warnings]}"
    replayed = [e for e in replay(cfg) if e["type"] not in SECURE]
    assert public == replayed


def test_unplugged_device_goes_offline_then_online_after_replug_and_hand_continues(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    _cfg, svc = start_service(tmp_path, rig, broker, service_factory, sub)

    def cards_states() -> list[str]:
        return [e["state"] for e in sub.events() if e["type"] == "device_status"
                and e["device"] == "cards"]

    rig.table.pause()
    dealer = rig.start(hands=1)
    rig.table.resume()
    wait_until(lambda: sum(e["type"] == "card_dealt" for e in sub.events()) >= 2, 20,
               "two cards dealt")
    rig.table.pause()
    rig.unplug("cards")
    wait_until(lambda: cards_states()[-1] == "offline", 10, "cards offline")
    rig.replug("cards")
    wait_until(lambda: cards_states()[-1] == "online", 20, "cards online again")

    def retained_state() -> str | None:
        with sub.lock:
            retained = [m for m in sub.messages if m.topic == f"{PREFIX}/devices/cards"]
        return retained[-1].payload["state"] if retained else None

    # the device's own topic is published beside the event, not before it
    wait_until(lambda: retained_state() == "online", 10, "the device topic says online")
    rig.table.resume()
    dealer.join(timeout=60)
    wait_until(lambda: hands_ended(sub) == 1, 20, "the hand to end")
    svc.stop()
    hand = [e for e in sub.events() if e["hand"] == 1]
    assert sum(e["type"] == "card_dealt" for e in hand) == 2 * len(PLAYERS)
    # the pulled cable is one alert (it gathers for a second the devices that go with it, so
    # at this pace it may come after the hand); nothing was dealt while it was out, so the
    # hand goes on
    assert [(e["name"], e["severity"]) for e in sub.events()
            if e["type"] == "alert" and e["severity"] != "info"] == [("device_offline",
                                                                       "warning")]
    assert [e["reason"] for e in hand if e["type"] == "hand_ended"] != ["untracked"]


def test_sigkill_during_a_burst_then_restart_every_event_of_the_journal_arrives_once(
        tmp_path: Path, broker: Mosquitto,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    """Killed while frames pour in: events handed to the broker but not yet recorded by the
    outbox, acknowledgements not yet written, a journal batch half written. After the restart
    the subscriber has exactly the events the journal replays to — none missing, none with two
    different contents under one seq — whatever the frames lost while the box was down did to
    the tracking of the hand."""
    rig = VirtualTableRig(tmp_path / "sim", seats=dict.fromkeys(PLAYERS, 5000), seed=5,
                          pace=0.0005, chips=tmp_path / "chips.json")
    try:
        sub = subscriber_factory(f"{PREFIX}/#")
        cfg, svc = start_service(tmp_path, rig, broker, service_factory, sub)
        before = len(sub.events())
        dealer = rig.start(hands=150)
        wait_until(lambda: len(sub.events()) >= before + 300, 30, "the burst to be under way")
        svc.kill()
        assert dealer.is_alive(), "the burst was over before the kill"
        svc2 = service_factory(cfg)
        svc2.start()
        wait_until(lambda: sum(e["type"] == "service_started" for e in sub.events()) == 2, 20,
                   "the restarted service")
        dealer.join(timeout=120)
        wait_until(lambda: all_devices_online(sub), 20, "devices online")
        # the frames sent while it recovered were journalled too: let their events out
        wait_until(lambda: unacked(cfg) == 0, 120, "every event acknowledged by the broker")
        assert svc2.stop() == 0
    finally:
        rig.close()
    replayed = replay(cfg)
    public = sub.events("events")
    secure = sub.events("secure/events")
    assert public == [e for e in replayed if e["type"] not in SECURE]
    assert secure == [e for e in replayed if e["type"] in SECURE]
    assert_contiguous(public)
    assert_contiguous(secure)
    with sub.lock:
        copies: dict[tuple[str, int], set[str]] = {}
        for m in sub.messages:
            if m.topic.endswith("/events") and isinstance(m.payload, dict):
                copies.setdefault((m.topic, m.payload["seq"]), set()).add(
                    json.dumps(m.payload, sort_keys=True))
    assert all(len(c) == 1 for c in copies.values()), "one seq, two different events"


def test_an_install_upgraded_from_one_journal_file_continues_its_events_after_a_restart(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    cfg, svc = start_service(tmp_path, rig, broker, service_factory, sub)
    rig.table.play_hand()
    wait_until(lambda: hands_ended(sub) == 1, 20, "the first hand")
    assert svc.stop() == 0
    # the storage dir as an older version left it: the same records, in one journal.jsonl
    store = tmp_path / "store"
    segments = sorted((store / "journal").iterdir())
    legacy = b"".join(p.read_bytes().split(b"\0", 1)[0] for p in segments)
    for p in segments:
        p.unlink()
    (store / "journal").rmdir()
    (store / "journal.jsonl").write_bytes(legacy)
    last = max(e["seq"] for e in sub.events())

    svc2 = service_factory(cfg)
    svc2.start()
    wait_until(lambda: sum(e["type"] == "service_started" for e in sub.events()) == 2, 20,
               "the upgraded service")
    wait_until(lambda: all_devices_online(sub), 20, "devices online again")
    rig.table.play_hand()
    wait_until(lambda: hands_ended(sub) == 2, 20, "the second hand")
    assert svc2.stop() == 0
    assert not (store / "journal.jsonl").exists()
    assert (store / "journal" / "000000.jsonl").read_bytes() == legacy
    public = sub.events("events")
    assert min(e["seq"] for e in public if e["hand"] == 2) > last  # numbering went on
    assert_contiguous(public)
    assert public == [e for e in replay(cfg) if e["type"] not in SECURE]
