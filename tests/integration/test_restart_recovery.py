"""Restarts: the service recovers from its checkpoint, and no frame is lost while it does.

The real parts: ``tablesvc run`` as its own process on the virtual devices' ptys, mosquitto, a
paho subscriber. Which path recovery took is read from the service's log (never how long it
took); what the devices sent is checked against what the subscriber got and against a replay
of the journal.

A recovery long enough to deal a hand during it is made by appending ticks to the journal
while the service is stopped (a journal is JSON lines anyone may write, DESIGN §7): the
restarted service must replay them, and the devices deal meanwhile.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from simulators.table import HandRecord
from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.core.inputs import input_from_record
from tablesvc.pipeline.journal import list_segments, read_journal, whole_end
from tests.conftest import ServiceProcess, Subscriber
from tests.integration.conftest import PLAYERS, PREFIX, SECURE, all_devices_online, start_service
from tests.integration.test_e2e import assert_contiguous, replay

pytestmark = pytest.mark.integration

PADDING = 250_000
"""Ticks appended to the journal: several seconds of replay, long enough to deal a hand in."""


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[VirtualTableRig]:
    """The table at a human dealer's pace: frames of different devices far enough apart that
    the order the ports are read in is the order things happened (issue of its own)."""
    r = VirtualTableRig(tmp_path / "sim", seats=dict.fromkeys(PLAYERS, 5000), seed=11,
                        pace=0.04, chips=tmp_path / "chips.json")
    yield r
    r.close()


def log_lines(svc: ServiceProcess, since: int = 0) -> list[dict[str, Any]]:
    out = []
    for line in svc.logs()[since:].splitlines():
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def logged(svc: ServiceProcess, event: str, since: int = 0) -> list[dict[str, Any]]:
    return [e for e in log_lines(svc, since) if e.get("event") == event]


def hands_ended(sub: Subscriber) -> int:
    return sum(1 for e in sub.events() if e["type"] == "hand_ended")


def pad_journal(store: Path, ticks: int) -> int:
    """Append ``ticks`` ticks stamped like the journal's last record; returns where they end."""
    _, path = list_segments(store / "journal")[-1]
    end = whole_end(path)
    last = list(read_journal(path))[-1]
    line = json.dumps({"ts": last.ts, "src": "tick"}).encode() + b"\n"
    assert input_from_record(json.loads(line)).ts == last.ts
    with open(path, "r+b") as f:
        f.seek(end)
        f.write(line * ticks)
    return end + len(line) * ticks


def recovering_on_a_long_journal(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig, sub: Subscriber,
        service_factory: Callable[[Path], ServiceProcess],
) -> tuple[Path, ServiceProcess, int, int]:
    """One hand dealt and a clean stop; the journal padded so that replaying it takes several
    seconds; the service started again and seen to begin recovering. Returns the config, the
    recovering service, where its log lines begin and where the padding ends."""
    cfg, svc = start_service(tmp_path, rig, broker, service_factory, sub)
    rig.table.play_hand()
    wait_until(lambda: hands_ended(sub) == 1, 20, "the first hand")
    assert svc.stop() == 0
    padded_to = pad_journal(tmp_path / "store", PADDING)
    mark = len(svc.logs())  # the services of one table share a log file
    svc2 = service_factory(cfg)
    svc2.start()
    wait_until(lambda: logged(svc2, "recovering", mark), 30, "recovery to begin")
    return cfg, svc2, mark, padded_to


def dealt_cleanly(sub: Subscriber, hand: int, record: HandRecord) -> None:
    """The hand reached the subscriber whole, in step with what the dealer did."""
    events = [e for e in sub.events("events") if e["hand"] == hand]
    types = [e["type"] for e in events]
    assert types[0] == "hand_started" and types[-1] == "hand_ended", types
    assert [e["seat"] for e in events if e["type"] == "card_dealt"] == list(record.seats) * 2
    holes = {e["seat"]: e["cards"] for e in sub.events("secure/events")
             if e["type"] == "hole_cards" and e["hand"] == hand}
    assert holes == {s: list(c) for s, c in record.hole_cards.items()}
    warnings = [(e["name"], e["message"]) for e in events
                if e["type"] == "alert" and e["severity"] != "info"]
    assert not warnings, f"hand {hand} out of step: {warnings}"


def same_as_replay(sub: Subscriber, cfg: Path) -> None:
    replayed = replay(cfg)
    public = sub.events("events")
    assert public == [e for e in replayed if e["type"] not in SECURE]
    assert sub.events("secure/events") == [e for e in replayed if e["type"] in SECURE]
    assert_contiguous(public)


def test_a_restart_after_a_session_recovers_from_the_checkpoint_not_the_whole_journal(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    cfg, svc = start_service(tmp_path, rig, broker, service_factory, sub)
    for n in range(1, 3):
        rig.table.play_hand()
        wait_until(lambda n=n: hands_ended(sub) == n, 20, f"hand {n} to end")
    svc.kill()  # no clean stop: the checkpoint of the last hand's end is what there is
    journalled = sum(1 for _ in read_journal(tmp_path / "store" / "journal"))
    mark = len(svc.logs())  # the services of one table share a log file
    svc2 = service_factory(cfg)
    svc2.start()
    wait_until(lambda: logged(svc2, "live", mark), 30, "the restarted service to go live")
    wait_until(lambda: all_devices_online(sub), 20, "devices online again")
    record = rig.table.play_hand()
    wait_until(lambda: hands_ended(sub) == 3, 20, "the hand after the restart to end")
    wait_until(lambda: sub.events("events")[-1]["type"] != "hand_history", 5, "quiet")
    assert svc2.stop() == 0
    (recovering,) = logged(svc2, "recovering", mark)
    (recovered,) = logged(svc2, "state recovered", mark)
    assert recovering["path"] == "checkpoint"
    assert 0 < recovered["inputs"] < journalled / 2  # the tail after the checkpoint only
    dealt_cleanly(sub, 3, record)
    same_as_replay(sub, cfg)


def test_frames_sent_while_the_service_recovers_are_journalled_and_processed(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    cfg, svc2, mark, _ = recovering_on_a_long_journal(tmp_path, broker, rig, sub,
                                                      service_factory)
    assert len(logged(svc2, "port open", mark)) == 4  # opened before recovery began
    dropped = {n: ep.dropped for n, ep in rig.endpoints.items()}  # while no service ran
    record = rig.table.play_hand()  # the dealer does not wait for the box
    assert not logged(svc2, "state recovered", mark), "recovery ended before the hand was " \
        "dealt: make PADDING longer"
    wait_until(lambda: logged(svc2, "live", mark), 120, "the service to go live")
    wait_until(lambda: hands_ended(sub) == 2, 30, "the hand dealt during recovery to arrive")
    unheard = {n: ep.dropped - dropped[n] for n, ep in rig.endpoints.items()}
    assert svc2.stop() == 0

    (live,) = logged(svc2, "live", mark)
    assert live["backlog"] >= 2 * len(PLAYERS) * 2  # every card's DRAW and ARR, at least
    assert unheard == dict.fromkeys(rig.endpoints, 0)
    dealt_cleanly(sub, 2, record)
    same_as_replay(sub, cfg)


def test_sigkill_during_recovery_loses_none_of_the_frames_that_arrived_meanwhile(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    cfg, svc2, mark, padded_to = recovering_on_a_long_journal(tmp_path, broker, rig, sub,
                                                              service_factory)
    segment = list_segments(tmp_path / "store" / "journal")[-1][1]

    def journalled_since_padding() -> bytes:
        with open(segment, "rb") as f:
            f.seek(padded_to)
            return f.read(whole_end(segment) - padded_to)

    record = rig.table.play_hand()
    # every frame of the hand journalled: the last one each device sent is in the journal
    # (bytes still on their way when a process dies are lost with it, for any service)
    last = {n: f'"frame": "${n},{d.last_seq},'.encode() for n, d in rig.devices.items()}
    wait_until(lambda: all(tag in journalled_since_padding() for tag in last.values()), 30,
               "the hand's frames in the journal")
    assert not logged(svc2, "state recovered", mark), "recovery ended before the kill: " \
        "make PADDING longer"
    svc2.kill()

    mark = len(svc2.logs())
    svc3 = service_factory(cfg)
    svc3.start()
    wait_until(lambda: logged(svc3, "live", mark), 120, "the second restart to go live")
    wait_until(lambda: hands_ended(sub) == 2, 30, "the hand dealt before the kill to arrive")
    assert svc3.stop() == 0
    dealt_cleanly(sub, 2, record)
    same_as_replay(sub, cfg)


def test_a_stop_asked_for_while_the_service_recovers_is_a_clean_stop_once_it_has(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    """systemd stops the unit (SIGTERM) while a restart is still replaying the journal: the
    service finishes recovering, goes live and stops as on any other stop, exit status 0
    and nothing of the journal lost, instead of dying by the signal half-way."""
    sub = subscriber_factory(f"{PREFIX}/#")
    _, svc2, mark, end = recovering_on_a_long_journal(tmp_path, broker, rig, sub,
                                                      service_factory)
    assert not logged(svc2, "live", mark)
    assert svc2.stop() == 0
    assert logged(svc2, "live", mark)  # it finished what it had begun
    _, path = list_segments(tmp_path / "store" / "journal")[-1]
    assert whole_end(path) >= end  # the padding replayed is still all there
