"""Restarts: the service recovers from its checkpoint, and no frame is lost while it does.

The real parts: ``tablesvc run`` as its own process on the virtual devices' ptys, mosquitto, a
paho subscriber. Which path recovery took is read from the service's log (never how long it
took); what the devices sent is checked against what the subscriber got and against a replay
of the journal.

A recovery that lasts as long as a test needs is held from outside, without a hook in the
service: the newest checkpoint file is a named pipe (``HeldRecovery``). Recovery reads the newest
checkpoint first, with the ports already open, so it waits on the pipe, journalling whatever
the devices send, until the test lets it go on: no test counts on the machine being slow
enough for a hand to be dealt during a replay.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from simulators.table import HandRecord
from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.pipeline.checkpoint import listing
from tablesvc.pipeline.journal import list_segments, read_journal, whole_end
from tests.conftest import ServiceProcess, Subscriber
from tests.integration.conftest import PLAYERS, PREFIX, SECURE, all_devices_online, start_service
from tests.integration.test_e2e import assert_contiguous, replay

pytestmark = pytest.mark.integration

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


class HeldRecovery:
    """The newest checkpoint file made a named pipe that gives its bytes only when the test
    says so: a starting service reads the newest checkpoint first, its ports open, and waits
    on the pipe until ``release`` hands it the real checkpoint; it then recovers as usual.
    What the devices send meanwhile is journalled and applied after the recovery, which is
    what the tests below look at."""

    def __init__(self, store: Path) -> None:
        (_, self.path), *_ = reversed(listing(store / "checkpoints"))
        self.content = self.path.read_bytes()
        self.path.unlink()
        os.mkfifo(self.path, 0o600)
        self.writer: int | None = None

    def reached(self) -> bool:
        """The service is reading the pipe: its recovery is held."""
        if self.writer is None:
            try:
                self.writer = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno != errno.ENXIO:  # ENXIO: nobody reads it yet
                    raise
        return self.writer is not None

    def release(self) -> None:
        """Let the recovery go on with the real checkpoint (a service killed meanwhile reads
        nothing), and put the checkpoint file back as it was."""
        if self.writer is not None:
            os.set_blocking(self.writer, True)
            with contextlib.suppress(BrokenPipeError):
                view = memoryview(self.content)
                while view:
                    view = view[os.write(self.writer, view):]
            os.close(self.writer)
            self.writer = None
        if not self.path.is_file():
            back = self.path.with_suffix(".back")
            back.write_bytes(self.content)
            back.chmod(0o600)
            os.replace(back, self.path)


@contextlib.contextmanager
def recovering_held(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig, sub: Subscriber,
        service_factory: Callable[[Path], ServiceProcess],
) -> Iterator[tuple[Path, ServiceProcess, int, HeldRecovery]]:
    """One hand dealt and a clean stop; the service started again, its ports open and its
    recovery held (``HeldRecovery``). Yields the config, the recovering service, where its log
    lines begin and the hold (released on the way out at the latest)."""
    cfg, svc = start_service(tmp_path, rig, broker, service_factory, sub)
    rig.table.play_hand()
    wait_until(lambda: hands_ended(sub) == 1, 20, "the first hand")
    assert svc.stop() == 0
    held = HeldRecovery(tmp_path / "store")
    mark = len(svc.logs())  # the services of one table share a log file
    svc2 = service_factory(cfg)
    svc2.start()
    try:
        wait_until(held.reached, 30, "the restarted service to begin recovering")
        yield cfg, svc2, mark, held
    finally:
        held.release()


def dealt_cleanly(sub: Subscriber, hand: int, record: HandRecord) -> None:
    """The hand reached the subscriber whole, in step with what the dealer did."""
    events = [e for e in sub.events("events") if e["hand"] == hand]
    types = [e["type"] for e in events]
    # a rule alert confirmed after the hand's last frame may follow its hand_ended
    assert types[0] == "hand_started" and [t for t in types if t != "alert"][-1] == \
        "hand_ended", types
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
    wait_until(lambda: bool(logged(svc2, "live", mark)), 30, "the restarted service to go live")
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
    with recovering_held(tmp_path, broker, rig, sub, service_factory) as (cfg, svc2, mark,
                                                                          held):
        assert len(logged(svc2, "port open", mark)) == 4  # opened before recovery began
        dropped = {n: ep.dropped for n, ep in rig.endpoints.items()}  # while no service ran
        since = whole_end(list_segments(tmp_path / "store" / "journal")[-1][1])
        record = rig.table.play_hand()  # the dealer does not wait for the box
        wait_until(lambda: all_journalled(tmp_path, rig, since), 30,
                   "the hand's frames journalled")
        assert not logged(svc2, "live", mark), "the held recovery went on: is the newest " \
            "checkpoint file still read first?"
        held.release()
        wait_until(lambda: bool(logged(svc2, "live", mark)), 120, "the service to go live")
    wait_until(lambda: hands_ended(sub) == 2, 30, "the hand dealt during recovery to arrive")
    unheard = {n: ep.dropped - dropped[n] for n, ep in rig.endpoints.items()}
    assert svc2.stop() == 0

    (live,) = logged(svc2, "live", mark)
    assert live["backlog"] >= 2 * len(PLAYERS) * 2  # every card's DRAW and ARR, at least
    assert unheard == dict.fromkeys(rig.endpoints, 0)
    dealt_cleanly(sub, 2, record)
    same_as_replay(sub, cfg)


def all_journalled(tmp_path: Path, rig: VirtualTableRig, since: int) -> bool:
    """The last frame each device sent is in the journal after byte ``since`` of its last
    segment (where the restart began: the devices number their frames from 0 again after
    it): everything the devices sent before it is too."""
    segment = list_segments(tmp_path / "store" / "journal")[-1][1]
    with open(segment, "rb") as f:
        f.seek(since)
        journalled = f.read(max(0, whole_end(segment) - since))
    return all(f'"frame": "${n},{d.last_seq},'.encode() in journalled
               for n, d in rig.devices.items())


def test_sigkill_during_recovery_loses_none_of_the_frames_that_arrived_meanwhile(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    with recovering_held(tmp_path, broker, rig, sub, service_factory) as (cfg, svc2, mark, _):
        segment = list_segments(tmp_path / "store" / "journal")[-1][1]
        since = whole_end(segment)
        record = rig.table.play_hand()
        # every frame of the hand journalled: the last one each device sent is in the journal
        # (bytes still on their way when a process dies are lost with it, for any service)
        wait_until(lambda: all_journalled(tmp_path, rig, since), 30,
                   "the hand's frames in the journal")
        assert not logged(svc2, "state recovered", mark), "the held recovery went on: is " \
            "the newest checkpoint file still read first?"
        svc2.kill()

    mark = len(svc2.logs())
    svc3 = service_factory(cfg)
    svc3.start()
    wait_until(lambda: bool(logged(svc3, "live", mark)), 120, "the second restart to go live")
    wait_until(lambda: hands_ended(sub) == 2, 30, "the hand dealt before the kill to arrive")
    assert svc3.stop() == 0
    dealt_cleanly(sub, 2, record)
    same_as_replay(sub, cfg)


def test_a_stop_asked_for_while_the_service_recovers_is_a_clean_stop_once_it_has(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    """systemd stops the unit (SIGTERM) while a restart is still recovering: the service
    finishes recovering, goes live and stops as on any other stop, exit status 0 and nothing
    of the journal lost, instead of dying by the signal half-way."""
    sub = subscriber_factory(f"{PREFIX}/#")
    with recovering_held(tmp_path, broker, rig, sub, service_factory) as (_, svc2, mark,
                                                                          held):
        _, path = list_segments(tmp_path / "store" / "journal")[-1]
        end = whole_end(path)
        assert svc2.proc is not None
        svc2.proc.terminate()  # SIGTERM, as systemctl stop, while the recovery is held
        held.release()
        assert svc2.proc.wait(30) == 0
    assert logged(svc2, "live", mark)  # it finished what it had begun
    assert whole_end(path) >= end  # what was journalled before the stop is still all there
