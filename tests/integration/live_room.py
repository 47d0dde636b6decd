"""A table of a live room, end to end, for the tests of the operator's accidents.

Every part is the real one: virtual devices on ptys (``VirtualTableRig``), ``tablesvc run`` as
its own process, mosquitto, and a paho subscriber on the table's topics. The dealer deals in a
thread of the test and keeps every hand's record (``HandRecord``: the truth the service's
events are compared with); the test stops him where it wants to act (``pause_after``, and the
rig's ``pause``/``resume``, which can let him take a given number of actions and stop again),
or lets him deal on through an outage as a room does.

What the service published is judged as a consumer would judge it: events de-duplicated on
``seq``, the ``alerts`` topic as a floor screen shows it. A table whose storage was emptied
(a wiped or replaced box) numbers its events from 1 again: each storage's feed is then read on
its own (``LiveTable.epochs``), as a consumer told of the new box would. Test code only.
"""

from __future__ import annotations

import bisect
import itertools
import json
import os
import signal
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
from tablesvc.pipeline.journal import list_segments, whole_end
from tests.conftest import ROOT, ServiceProcess, Subscriber

VENUE = "demo"
WAIT = 60.0
"""Seconds any one wait may take: generous, for a loaded two-core machine."""
SECURE = frozenset(cls.model_fields["type"].default for cls in EVENT_TYPES
                   if cls.FEED == "secure")
DEVICES = ("shoe", "cards", "chips", "console")


def prefix_of(table: str) -> str:
    return f"tablesvc/v1/{VENUE}/{table}"


def write_config(folder: Path, rig: VirtualTableRig, port: int, table: str,
                 seats: Mapping[int, int], extra: str = "", game: str = "") -> Path:
    """The service's config for the rig's devices and registries, its players seated with
    the stacks the virtual table starts with; ``game`` is more of the ``[game]`` section
    (``variant = "draw5"``, say), ``extra`` more TOML after it all."""
    devices = "".join(f'[devices.{n}]\nurl = "{u}"\n' for n, u in rig.device_urls().items())
    players = "".join(f'[[players]]\nseat = {s}\nname = "P{s}"\nstack = {v}\n'
                      for s, v in sorted(seats.items()))
    cfg = folder / "table.toml"
    cfg.write_text(
        f'[table]\nvenue = "{VENUE}"\nid = "{table}"\n'
        f"[game]\nsmall_blind = {rig.table.small_blind}\nbig_blind = {rig.table.big_blind}\n"
        f'{game}{devices}[registry]\ndecks = "{rig.decks_dir}"\nchips = "{rig.chips_path}"\n'
        f'{players}[mqtt]\nport = {port}\nprotocol = "5"\n'
        f'[storage]\ndir = "{folder / "store"}"\n{extra}')
    return cfg


class Dealing:
    """The dealer dealing ``hands`` hands (``None``: until told to finish) in a thread,
    keeping each hand's record.

    ``pause_after`` holds hand numbers after which he stands still before the next shuffle
    (``resume`` sends him on); the pause is placed by the dealer's own thread as the hand
    ends, so no hand can slip through before the test reacts. ``pause_at_next_end`` does the
    same for whichever hand ends next, ``finish`` ends the dealing after it; with
    ``min_players`` he stops by himself once fewer players are left (busted out), because a
    game below its number of players is an irregularity of its own, not of the accident.
    """

    def __init__(self, rig: VirtualTableRig, hands: int | None,
                 pause_after: frozenset[int] = frozenset(), min_players: int = 2) -> None:
        self.rig = rig
        self.table = rig.table
        self.records: list[HandRecord] = []
        self.pause_after = set(pause_after)
        self.min_players = min_players
        self._pause_next = False
        self._finish_next = False
        self._stop = threading.Event()
        self.failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(hands,), name="dealing",
                                        daemon=True)

    def start(self) -> Dealing:
        self._thread.start()
        return self

    def _run(self, hands: int | None) -> None:
        try:
            self.table.run(hands, self._stop, on_hand=self._done)
        except BaseException as exc:  # reported by the test, not lost in a thread
            self.failure = exc

    def _done(self, record: HandRecord) -> None:
        self.records.append(record)
        if self._finish_next or len(self.table.seated()) < self.min_players:
            self._stop.set()  # checked by the table before its next shuffle: a clean end
            return
        if record.number in self.pause_after or self._pause_next:
            self._pause_next = False
            self.table.pause()  # from the dealer's thread: the next hand waits at its shuffle

    def pause_at_next_end(self) -> None:
        """Stand still after the hand under way (or the next one, between hands)."""
        self._pause_next = True

    def finish(self) -> None:
        """Deal no hand after the one under way (or the next one, between hands)."""
        self._finish_next = True
        self.table.resume()

    @property
    def dealing(self) -> bool:
        """Still dealing: not finished, stopped or failed."""
        return self._thread.is_alive()

    def wait_still(self, what: str = "the dealer to stand still") -> None:
        wait_until(lambda: self.table.waiting or self.failure is not None, WAIT, what)
        assert self.failure is None, self.failure

    def wait_hands(self, n: int, what: str = "") -> None:
        """Wait until the dealer has finished ``n`` hands (or stopped dealing)."""
        wait_until(lambda: len(self.records) >= n or not self.dealing, WAIT,
                   what or f"the dealer to finish hand {n}")
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
class Epoch:
    """One storage's life: the subscriber's messages from ``start`` on, and the storage dir
    whose journal replays to them."""

    start: int
    store: Path


class Feeds:
    """The table's topics as consumers read them, kept up to date from the subscriber's
    messages as they come (a soak reads hundreds of thousands: each is looked at once).

    ``public`` and ``secure`` are the events of ``events`` and ``secure/events``, de-duplicated
    on seq within each epoch and concatenated in epoch order; ``epoch_of_public`` and
    ``epoch_of_secure`` tell each one's epoch. ``floor`` is the ``alerts`` topic, one per alert
    id and epoch.
    """

    def __init__(self, sub: Subscriber, prefix: str) -> None:
        self.sub = sub
        self.prefix = prefix
        self.starts: list[int] = [0]
        self._read = 0
        self._lock = threading.Lock()
        self.public: list[dict[str, Any]] = []
        self.epoch_of_public: list[int] = []
        self.secure: list[dict[str, Any]] = []
        self.epoch_of_secure: list[int] = []
        self.floor: list[dict[str, Any]] = []
        self.epoch_of_floor: list[int] = []
        self.copies: dict[tuple[int, int], set[str]] = {}
        """(epoch, seq) -> every distinct content received for it on ``events``."""
        self.kinds: Counter[str] = Counter()
        self.device_state: dict[str, str] = {}
        """Each device's last state on ``events`` (the newest storage's last word)."""
        self._seen: set[tuple[str, int, Any]] = set()

    def new_epoch(self) -> int:
        """Messages from now on belong to a new storage; returns its number."""
        with self._lock:
            self.update_locked()
            with self.sub.lock:
                self.starts.append(len(self.sub.messages))
            return len(self.starts) - 1

    def update(self) -> None:
        with self._lock:
            self.update_locked()

    def update_locked(self) -> None:
        with self.sub.lock:
            fresh = self.sub.messages[self._read:]
        first = self._read
        self._read += len(fresh)
        for i, m in enumerate(fresh, start=first):
            if not isinstance(m.payload, dict) or not m.topic.startswith(self.prefix + "/"):
                continue
            topic = m.topic[len(self.prefix) + 1:]
            epoch = bisect.bisect_right(self.starts, i) - 1
            p = m.payload
            if topic == "events":
                self.copies.setdefault((epoch, p["seq"]), set()).add(
                    json.dumps(p, sort_keys=True))
                if (topic, epoch, p["seq"]) in self._seen:
                    continue
                self._seen.add((topic, epoch, p["seq"]))
                self.public.append(p)
                self.epoch_of_public.append(epoch)
                self.kinds[p["type"]] += 1
                if p["type"] == "device_status":
                    self.device_state[p["device"]] = p["state"]
            elif topic == "secure/events":
                if (topic, epoch, p["seq"]) in self._seen:
                    continue
                self._seen.add((topic, epoch, p["seq"]))
                self.secure.append(p)
                self.epoch_of_secure.append(epoch)
            elif topic == "alerts":
                if (topic, epoch, p["id"]) in self._seen:
                    continue
                self._seen.add((topic, epoch, p["id"]))
                self.floor.append(p)
                self.epoch_of_floor.append(epoch)


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
    frozen: bool = False
    epochs: list[Epoch] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.feeds = Feeds(self.sub, self.prefix)
        self.epochs.append(Epoch(0, self.folder / "store"))

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
                started = max(i for i, e in enumerate(self.events())
                              if e["type"] == "service_started")
                self.wait_online(after=started)
        except AssertionError:
            print(svc.logs()[-4000:])
            raise
        return svc

    def kill(self) -> None:
        """SIGKILL, as a power cut or the OOM killer does it."""
        self.service.kill()
        self.frozen = False

    def stop(self) -> None:
        """SIGTERM, as systemd stops the unit: a clean stop, exit status 0."""
        self.thaw()
        assert self.service.stop() == 0, self.service.logs()[-4000:]

    def freeze(self) -> None:
        """SIGSTOP: the process stands still (a debugger, a box swapping to death, a VM
        paused) with its ports and its broker connection open; ``thaw`` sends SIGCONT."""
        proc = self.service.proc
        assert proc is not None and proc.poll() is None, "no running service to freeze"
        proc.send_signal(signal.SIGSTOP)
        self.frozen = True

    def thaw(self) -> None:
        """SIGCONT if frozen (every teardown calls it: a stopped process ignores SIGTERM)."""
        if not self.frozen:
            return
        proc = self.service.proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGCONT)
        self.frozen = False

    def empty_storage(self) -> Path:
        """The service stopped (cleanly), its storage dir taken away, as when a box is wiped
        or replaced: the next start finds an empty folder. The old storage is kept aside, for
        the record (its journal still replays to what it published); returns where.

        Everything the old service published has reached the subscriber before its storage
        goes (its last message, the offline status, comes after every event of its run), so
        that the subscriber's messages split cleanly into the two storages' feeds.
        """
        offline = self.offline_count()
        self.stop()
        self.wait_until(lambda: self.offline_count() > offline, "the stopped service's "
                        "offline status")
        aside = self.folder / f"store.{len(self.epochs)}"
        os.rename(self.folder / "store", aside)
        self.epochs[-1].store = aside
        n = self.feeds.new_epoch()
        self.epochs.append(Epoch(self.feeds.starts[n], self.folder / "store"))
        return aside

    def offline_count(self) -> int:
        return sum(1 for p in self.sub.on("status")
                   if isinstance(p, dict) and p.get("state") == "offline")

    # ------------------------------------------------------------------ what arrived
    def events(self) -> list[dict[str, Any]]:
        """The public events, de-duplicated on seq (within each storage's feed), as every
        consumer does."""
        self.feeds.update()
        return list(self.feeds.public)

    def secure_events(self) -> list[dict[str, Any]]:
        self.feeds.update()
        return list(self.feeds.secure)

    def count(self, kind: str) -> int:
        self.feeds.update()
        return self.feeds.kinds[kind]

    def mark(self) -> int:
        """Where the public feed stands now: the number of events received so far."""
        self.feeds.update()
        return len(self.feeds.public)

    def device_states(self) -> dict[str, str]:
        """Each device's state as the service last published it."""
        self.feeds.update()
        return dict(self.feeds.device_state)

    def wait_online(self, devices: tuple[str, ...] = DEVICES, since: int = 0,
                    after: int | None = None) -> None:
        """Wait until each of ``devices`` has said it is online after the event of seq
        ``since`` (within the current storage's feed) or, with ``after``, after the event at
        that position of ``events()``."""
        def back() -> bool:
            last: dict[str, str] = {}
            self.feeds.update()
            for e in self.feeds.public[after + 1 if after is not None else 0:]:
                if e["type"] == "device_status" and (after is not None or e["seq"] > since):
                    last[e["device"]] = e["state"]
            return all(last.get(d) == "online" for d in devices)

        self.wait_until(back, f"{', '.join(devices)} online")

    def wait_until(self, pred: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
        try:
            wait_until(pred, timeout, f"{self.table}: {what}")
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
            wait_until(lambda: self.count("hand_ended") >= n, WAIT * 2,
                       f"{self.table}: {n} hands ended")
        except AssertionError:
            print(self.service.logs()[-4000:])
            raise

    def floor_alerts(self) -> list[dict[str, Any]]:
        """What the floor's screen received on ``alerts``, one per alert id (and storage)."""
        self.feeds.update()
        return list(self.feeds.floor)

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
    def replay(self, store: Path | None = None) -> list[dict[str, Any]]:
        """``tablesvc replay`` of a storage's journal (the current one unless told):
        what the service must have published from it."""
        journal = (store or self.folder / "store") / "journal"
        out = subprocess.run([sys.executable, "-m", "tablesvc.commands.cli", "replay",
                              str(journal), "--config", str(self.cfg)],
                             capture_output=True, text=True, cwd=ROOT, check=True)
        return [json.loads(line) for line in out.stdout.splitlines()]


class JournalTail:
    """The device frames a service journals, read from its journal file as it grows.

    Tells when the service has read what a device sent after a given moment (a thawed
    service working through what its ports held meanwhile, say): each frame names its device's
    seq, and the journal holds frames in the order the service read them.
    """

    def __init__(self, store: Path) -> None:
        self.folder = store / "journal"
        self.last: dict[str, int] = {}
        """Device -> the seq of its last frame journalled since this tail began."""
        self.segment: Path | None = None
        self.offset = 0
        self.rest = b""
        segments = list_segments(self.folder)
        if segments:  # from the journal's end on
            self.segment = segments[-1][1]
            self.offset = whole_end(self.segment)

    def read(self) -> None:
        """Read what the service journalled since the last read."""
        segments = list_segments(self.folder)
        for _, path in segments:
            if self.segment is not None and path < self.segment:
                continue
            if path != self.segment:
                self.segment, self.offset, self.rest = path, 0, b""
            with open(path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
            end = data.find(b"\0")
            data = data if end < 0 else data[:end]
            self.offset += len(data)
            lines = (self.rest + data).split(b"\n")
            self.rest = lines.pop()
            for line in lines:
                self._line(line)

    def _line(self, line: bytes) -> None:
        try:
            rec = json.loads(line)
        except ValueError:
            return
        frame = rec.get("frame") if isinstance(rec, dict) else None
        if not isinstance(frame, str) or not frame.startswith("$"):
            return
        parts = frame[1:].split(",", 2)
        if len(parts) >= 2 and parts[1].isdigit():
            self.last[parts[0]] = int(parts[1])


def seq_after(seq: int, mark: int) -> bool:
    """TSP/1 seqs wrap at 65536: ``seq`` came after ``mark`` (within half the circle)."""
    return 0 < (seq - mark) % 65536 < 32768


def wait_read_since(t: LiveTable, tail: JournalTail, sent: Mapping[str, int]) -> None:
    """Wait until the service has journalled (since ``tail`` began), from each device, a
    frame sent after the one of seq ``sent[device]``: everything the device sent before is
    behind it."""
    def behind() -> bool:
        tail.read()
        return all(d in tail.last and seq_after(tail.last[d], s) for d, s in sent.items())

    t.wait_until(behind, "the service to read what its ports held")


def device_seqs(rig: VirtualTableRig) -> dict[str, int]:
    """Each device's last seq sent (a device that sent nothing yet counts as -1)."""
    return {n: (d.last_seq if d.last_seq is not None else -1) % 65536
            for n, d in rig.devices.items()}


# ---------------------------------------------------------------------- the checks

def assert_feed_whole(t: LiveTable) -> None:
    """Nothing lost, nothing doubled on ``events``: one content per seq, each event's
    ``prev_seq`` the one before it (also across restarts), and exactly what the journal
    replays to; the same for ``secure/events``. A storage emptied starts a feed of its own
    (from seq 1), each checked against its own journal."""
    t.feeds.update()
    doubled = {k: c for k, c in t.feeds.copies.items() if len(c) > 1}
    assert not doubled, f"one seq, two different events: {sorted(doubled)[:5]}"
    for n, epoch in enumerate(t.epochs):
        for name, events, of in (("events", t.feeds.public, t.feeds.epoch_of_public),
                                 ("secure/events", t.feeds.secure, t.feeds.epoch_of_secure)):
            mine = [e for e, k in zip(events, of, strict=True) if k == n]
            seqs = [e["seq"] for e in mine]
            assert seqs == sorted(seqs), f"{t.table}: {name} out of seq order"
            for prev, cur in itertools.pairwise(mine):
                assert cur["prev_seq"] == prev["seq"], (
                    f"{t.table}: {name} lost before seq {cur['seq']}")
        replayed = t.replay(epoch.store)
        public = [e for e, k in zip(t.feeds.public, t.feeds.epoch_of_public, strict=True)
                  if k == n]
        secure = [e for e, k in zip(t.feeds.secure, t.feeds.epoch_of_secure, strict=True)
                  if k == n]
        assert public == [e for e in replayed if e["type"] not in SECURE], (
            f"{t.table}: the events published differ from the journal's replay "
            f"(storage {n + 1})")
        assert secure == [e for e in replayed if e["type"] in SECURE], (
            f"{t.table}: the secure events published differ from the journal's replay "
            f"(storage {n + 1})")


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
    assert_floor_is_events(t)


def assert_floor_is_events(t: LiveTable) -> None:
    """The floor's ``alerts`` topic carries exactly the warning and critical alerts of
    ``events``, and nothing else."""
    t.feeds.update()
    on_events = {(k, e["id"]) for e, k in zip(t.feeds.public, t.feeds.epoch_of_public,
                                                strict=True)
                 if e["type"] == "alert" and e["severity"] in ("warning", "critical")}
    floor = {(k, a["id"]) for a, k in zip(t.feeds.floor, t.feeds.epoch_of_floor, strict=True)}
    assert on_events == floor, (
        f"{t.table}: the floor's feed and the events' alerts differ: "
        f"only on events {sorted(on_events - floor)[:5]}, only on the floor's "
        f"{sorted(floor - on_events)[:5]}")


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
