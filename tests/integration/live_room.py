"""A table of a live room, end to end, for the tests of the operator's accidents.

Every part is the real one: virtual devices on ptys (``VirtualTableRig``), ``tablesvc run`` as
its own process, mosquitto, and a paho subscriber on the table's topics. The dealer deals in a
thread of the test and keeps every hand's record (``HandRecord``: the truth the service's
events are compared with); the test stops him where it wants to act (``pause_after``, and the
rig's ``pause``/``resume``, which can let him take a given number of actions and stop again).

What the service published is judged as a consumer would judge it: events de-duplicated on
``seq``, the ``alerts`` topic as a floor screen shows it. Test code only.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simulators.table import HandRecord
from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import wait_until
from tablesvc.core.events import EVENT_TYPES
from tests.conftest import ROOT, ServiceProcess, Subscriber

VENUE = "demo"
WAIT = 60.0
"""Seconds any one wait may take: generous, for a loaded two-core machine."""
SECURE = frozenset(cls.model_fields["type"].default for cls in EVENT_TYPES
                   if cls.FEED == "secure")


def prefix_of(table: str) -> str:
    return f"tablesvc/v1/{VENUE}/{table}"


def write_config(folder: Path, rig: VirtualTableRig, port: int, table: str,
                 seats: Mapping[int, int], extra: str = "") -> Path:
    """The service's config for the rig's devices and registries, its players seated with
    the stacks the virtual table starts with; ``extra`` is more TOML."""
    devices = "".join(f'[devices.{n}]\nurl = "{u}"\n' for n, u in rig.device_urls().items())
    players = "".join(f'[[players]]\nseat = {s}\nname = "P{s}"\nstack = {v}\n'
                      for s, v in sorted(seats.items()))
    cfg = folder / "table.toml"
    cfg.write_text(
        f'[table]\nvenue = "{VENUE}"\nid = "{table}"\n'
        f"[game]\nsmall_blind = {rig.table.small_blind}\nbig_blind = {rig.table.big_blind}\n"
        f'{devices}[registry]\ndecks = "{rig.decks_dir}"\nchips = "{rig.chips_path}"\n'
        f'{players}[mqtt]\nport = {port}\nprotocol = "5"\n'
        f'[storage]\ndir = "{folder / "store"}"\n{extra}')
    return cfg


class Dealing:
    """The dealer dealing ``hands`` hands in a thread, keeping each hand's record.

    ``pause_after`` holds hand numbers after which he stands still before the next shuffle
    (``resume`` sends him on); the pause is placed by the dealer's own thread as the hand
    ends, so no hand can slip through before the test reacts.
    """

    def __init__(self, rig: VirtualTableRig, hands: int,
                 pause_after: frozenset[int] = frozenset()) -> None:
        self.rig = rig
        self.table = rig.table
        self.records: list[HandRecord] = []
        self.pause_after = pause_after
        self._stop = threading.Event()
        self.failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(hands,), name="dealing",
                                        daemon=True)

    def start(self) -> Dealing:
        self._thread.start()
        return self

    def _run(self, hands: int) -> None:
        try:
            self.table.run(hands, self._stop, on_hand=self._done)
        except BaseException as exc:  # reported by the test, not lost in a thread
            self.failure = exc

    def _done(self, record: HandRecord) -> None:
        self.records.append(record)
        if record.number in self.pause_after:
            self.table.pause()  # from the dealer's thread: the next hand waits at its shuffle

    def wait_still(self, what: str = "the dealer to stand still") -> None:
        wait_until(lambda: self.table.waiting or self.failure is not None, WAIT, what)
        assert self.failure is None, self.failure

    def resume(self, steps: int | None = None) -> None:
        self.table.resume(steps)

    def join(self) -> list[HandRecord]:
        """Wait for the last hand to be dealt; the records of every hand."""
        self._thread.join(WAIT * 4)
        assert not self._thread.is_alive(), "the dealer did not finish"
        assert self.failure is None, self.failure
        return self.records

    def stop(self) -> None:
        self._stop.set()
        self.table.resume()
        self._thread.join(WAIT)


@dataclass
class LiveTable:
    """One table: its rig, its service (restartable) and a subscriber to all its topics."""

    folder: Path
    rig: VirtualTableRig
    cfg: Path
    sub: Subscriber
    start_service: Callable[[Path], ServiceProcess]
    table: str = "t01"
    services: list[ServiceProcess] = field(default_factory=list)

    @property
    def prefix(self) -> str:
        return prefix_of(self.table)

    @property
    def service(self) -> ServiceProcess:
        return self.services[-1]

    # ------------------------------------------------------------------ the service
    def start(self, wait_online: bool = True) -> ServiceProcess:
        """Start ``tablesvc run`` (again): wait for its ``service_started`` and, unless told
        not to, for every device to be online in it."""
        boots = self.count("service_started")
        svc = self.start_service(self.cfg)
        svc.start()
        self.services.append(svc)
        try:
            wait_until(lambda: self.count("service_started") > boots, WAIT,
                       f"{self.table}: the service to start")
            if wait_online:
                self.wait_online()
        except AssertionError:
            print(svc.logs()[-4000:])
            raise
        return svc

    def kill(self) -> None:
        """SIGKILL, as a power cut or the OOM killer does it."""
        self.service.kill()

    def stop(self) -> None:
        assert self.service.stop() == 0, self.service.logs()[-4000:]

    # ------------------------------------------------------------------ what arrived
    def events(self) -> list[dict[str, Any]]:
        """The public events, de-duplicated on seq, as every consumer does."""
        return self.sub.events("events")

    def count(self, kind: str) -> int:
        return sum(1 for e in self.events() if e["type"] == kind)

    def device_states(self) -> dict[str, str]:
        states: dict[str, str] = {}
        for e in self.events():
            if e["type"] == "device_status":
                states[e["device"]] = e["state"]
        return states

    def wait_online(self, devices: tuple[str, ...] = ("shoe", "cards", "chips", "console"),
                    since: int = 0) -> None:
        """Wait until each of ``devices`` has said it is online after the event ``since``."""
        def back() -> bool:
            last: dict[str, str] = {}
            for e in self.events():
                if e["type"] == "device_status" and e["seq"] > since:
                    last[e["device"]] = e["state"]
            return all(last.get(d) == "online" for d in devices)

        wait_until(back, WAIT, f"{self.table}: {', '.join(devices)} online")

    def wait_until(self, pred: Callable[[], bool], what: str) -> None:
        try:
            wait_until(pred, WAIT, f"{self.table}: {what}")
        except AssertionError:
            print(self.service.logs()[-4000:] if self.services else "no service")
            raise

    def last_seq(self) -> int:
        return max((e["seq"] for e in self.events()), default=0)

    def ended(self) -> list[dict[str, Any]]:
        return [e for e in self.events() if e["type"] == "hand_ended"]

    def started(self) -> list[dict[str, Any]]:
        return [e for e in self.events() if e["type"] == "hand_started"]

    def wait_hands_ended(self, n: int) -> None:
        try:
            wait_until(lambda: len(self.ended()) >= n, WAIT * 2,
                       f"{self.table}: {n} hands ended")
        except AssertionError:
            print(self.service.logs()[-4000:])
            raise

    def floor_alerts(self) -> list[dict[str, Any]]:
        """What the floor's screen received on ``alerts``, one per alert id."""
        seen: dict[str, dict[str, Any]] = {}
        for p in self.sub.on("alerts"):
            assert isinstance(p, dict), p
            seen.setdefault(p["id"], p)
        return list(seen.values())

    def floor_alert_names(self) -> Counter[str]:
        return Counter(a["name"] for a in self.floor_alerts())

    # ------------------------------------------------------------------ the floor's part
    def count_chips(self, stacks: Mapping[int, int], request_id: int) -> dict[str, Any]:
        """The floor counts the chips and sends them (``cmd/stacks``); returns the reply.

        Sent again if no reply comes (the service may still be subscribing after a start):
        a chip count sets stacks, so a second copy changes nothing.
        """
        body = {"stacks": {str(s): v for s, v in stacks.items()}, "request_id": request_id}

        def reply() -> dict[str, Any] | None:
            return next((p for p in self.sub.on("cmd/stacks/reply")
                         if isinstance(p, dict) and p.get("request_id") == request_id), None)

        for _ in range(6):
            self.sub.publish(f"{self.prefix}/cmd/stacks", body)
            try:
                wait_until(lambda: reply() is not None, WAIT / 6, "the chip count's reply")
            except AssertionError:
                continue
            break
        got = reply()
        assert got is not None, "the chip count was never answered"
        return got

    # ------------------------------------------------------------------ the record
    def replay(self) -> list[dict[str, Any]]:
        """``tablesvc replay`` of the table's journal: what the service must have published."""
        out = subprocess.run([sys.executable, "-m", "tablesvc.commands.cli", "replay",
                              str(self.folder / "store" / "journal"), "--config", str(self.cfg)],
                             capture_output=True, text=True, cwd=ROOT, check=True)
        return [json.loads(line) for line in out.stdout.splitlines()]


# ---------------------------------------------------------------------- the checks

def assert_feed_whole(t: LiveTable) -> None:
    """Nothing lost, nothing doubled on ``events``: one content per seq, each event's
    ``prev_seq`` the one before it (also across restarts), and exactly what the journal
    replays to."""
    copies: dict[int, set[str]] = {}
    with t.sub.lock:
        for m in t.sub.messages:
            if m.topic == f"{t.prefix}/events" and isinstance(m.payload, dict):
                copies.setdefault(m.payload["seq"], set()).add(
                    json.dumps(m.payload, sort_keys=True))
    doubled = {s: c for s, c in copies.items() if len(c) > 1}
    assert not doubled, f"one seq, two different events: {sorted(doubled)[:5]}"
    public = t.events()
    seqs = [e["seq"] for e in public]
    assert seqs == sorted(seqs), "events out of seq order"
    for prev, cur in itertools.pairwise(public):
        assert cur["prev_seq"] == prev["seq"], f"{t.table}: events lost before seq {cur['seq']}"
    assert public == [e for e in t.replay() if e["type"] not in SECURE]


def assert_floor_feed(t: LiveTable, expected: Mapping[str, int]) -> None:
    """The ``alerts`` topic holds exactly ``expected`` (alert name -> how many), all warning
    or critical, and the same alerts as the warning and critical ones on ``events``."""
    floor = t.floor_alerts()
    info = [(a["name"], a["message"]) for a in floor if a["severity"] not in ("warning",
                                                                               "critical")]
    assert not info, f"info alerts on the floor's feed: {info}"
    got = Counter(a["name"] for a in floor)
    assert got == Counter(expected), (
        f"{t.table}: alerts {dict(got)}, expected {dict(expected)}: "
        + "; ".join(f"{a['name']} (hand {a['hand']}): {a['message']}" for a in floor))
    on_events = {e["id"] for e in t.events()
                 if e["type"] == "alert" and e["severity"] in ("warning", "critical")}
    assert on_events == {a["id"] for a in floor}


def table_result(r: HandRecord) -> tuple[str, list[str], dict[int, int]]:
    """How the virtual table ended a hand: outcome, board, every dealt-in seat's stack."""
    return r.outcome, list(r.board), {s: r.stacks_after.get(s, 0) for s in r.seats}


def service_result(e: dict[str, Any]) -> tuple[str, list[str], dict[int, int]]:
    return e["reason"], e["board"], {i["seat"]: i["stack"] for i in e["stacks"]}


def assert_hands_right(t: LiveTable, records: list[HandRecord], first: int,
                       untracked: int | None) -> None:
    """Every hand from the table's hand ``first`` on (the first the service saw) is one hand
    of the service, in order; hand ``untracked`` (if any) ended untracked, every other with
    the table's outcome, board and stacks."""
    ended = t.ended()
    seen = [r for r in records if r.number >= first]
    assert len(ended) == len(seen), (
        f"{t.table}: {len(ended)} hands ended, the table dealt {len(seen)} "
        f"({[e['reason'] for e in ended]})")
    for e, r in zip(ended, seen, strict=True):
        if r.number == untracked:
            assert e["reason"] == "untracked", (r.number, e["reason"])
            continue
        assert service_result(e) == table_result(r), f"{t.table}: hand {r.number}"
    if untracked is None:
        assert not [e for e in ended if e["reason"] == "untracked"]
