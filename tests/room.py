"""A table's session as the sensors saw it, and a core reading it through a room's accidents.

``Session`` deals hands on the virtual table (its devices write into memory) and remembers
where each hand's frames begin. ``Reader`` feeds them to a fresh core as the service would,
one input every ``step_ms``, with heartbeats from every device at least once a second (as
TSP/1 devices send them), and lets a test do to it what happens in a room: the service
restarting, frames lost on a line, a cable pulled and put back. Test code only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from drivers.tsp import Frame, decode, encode
from simulators.table import HandRecord
from simulators.virtual import recorded_table
from tablesvc.core import events as ev
from tablesvc.core.cards import DeckRegistry
from tablesvc.core.inputs import (
    Command,
    FrameIn,
    Input,
    PortChange,
    ServiceResumed,
    ServiceStart,
    Tick,
    format_ts,
)
from tablesvc.core.table import Player, TableCore, TableSettings
from tests.helpers import DEVICES, T0


class Session:
    """Hands dealt on the virtual table; ``frames`` in true order, ``starts[n]`` the index of
    hand n+1's first frame (its NEWHAND)."""

    def __init__(self, seats: dict[int, int], hands: int, seed: int = 3,
                 min_players: int = 2, **options: Any) -> None:
        self.seats = dict(seats)
        self.table, self.frames = recorded_table(seats, seed=seed, **options)
        self.records: list[HandRecord] = []
        self.starts: list[int] = []
        for _ in range(hands):
            if len(self.table.seated()) < min_players:
                break  # the others busted: the session is over
            self.starts.append(len(self.frames))
            self.records.append(self.table.play_hand())
        self.starts.append(len(self.frames))

    def hand(self, n: int) -> list[tuple[str, bytes]]:
        """The frames of hand ``n`` (1-based)."""
        return self.frames[self.starts[n - 1]:self.starts[n]]

    def before(self, n: int) -> list[tuple[str, bytes]]:
        """Every frame before hand ``n`` begins."""
        return self.frames[:self.starts[n - 1]]


class Reader:
    """A core reading a session the way the service does, a test doing the room's part."""

    def __init__(self, session: Session, step_ms: int = 40, refresh_ms: int = 0,
                 **settings: Any) -> None:
        """``refresh_ms``: the chip reader sends every zone's inventory again this often (a
        real one does at least every 2 s: after a gap that is how zones become known again);
        0: only changes, as the recorded session has them."""
        self.session = session
        self.refresh_ms = refresh_ms
        self.inventories: dict[str, str] = {}  # chip zone -> its last inventory
        self.refreshed = T0
        s = TableSettings(venue="room", table="t", devices=dict(DEVICES),
                          small_blind=session.table.small_blind,
                          big_blind=session.table.big_blind, ante=session.table.ante,
                          variant=session.table.variant, **settings)
        self.core = TableCore(s, DeckRegistry({"SIM": dict(session.table.deck)}),
                              dict(session.table.chip_values),
                              [Player(seat, f"P{seat}", stack)
                               for seat, stack in session.seats.items()])
        self.settings = s
        self.ms = T0
        self.step_ms = step_ms
        self.buffered: list[tuple[str, str]] | None = None  # frozen: what the ports hold
        self.buffer = 0  # frames a port holds while the service is frozen; the rest are lost
        self.events: list[ev.Event] = []
        self.replies: list[Any] = []
        self.last_seen: dict[str, int] = {}  # the devices sending, and their last frame
        self.seqs: dict[str, int] = {}  # each device's own frame counter
        self.silent: set[str] = set()  # devices whose heartbeats do not arrive either
        self.dead = False  # the service is not running: nothing reaches the core, no tick
        self.apply(Command(format_ts(self.ms), self.ms, "button",
                           {"seat": session.records[0].button}))

    # ------------------------------------------------------------------ inputs
    def apply(self, inp: Input) -> list[ev.Event]:
        if self.dead:
            return []
        out = self.core.apply(inp)
        self.events += out.events
        self.replies += out.replies
        return list(out.events)

    def _advance(self, ms: int) -> None:
        """Time passes to ``ms``: heartbeats of the devices that send them, ticks when due."""
        while True:
            deadline = None if self.dead else self.core.next_deadline()
            beat = min((t + 1000 for t in self.last_seen.values()), default=None)
            refresh = self.refreshed + self.refresh_ms if self.refresh_ms else None
            due = min((t for t in (deadline, beat, refresh) if t is not None), default=None)
            if due is None or due > ms:
                break
            if refresh is not None and due == refresh:
                self.refreshed = refresh
                for zone, uids in sorted(self.inventories.items()):
                    self._send("chips", "CHIPS", (zone, uids), refresh,
                               lost="chips" in self.silent)
            elif beat is not None and due == beat:
                dev = min(self.last_seen, key=lambda d: self.last_seen[d])
                self._send(dev, "HB", ("1",), beat, lost=dev in self.silent)
            else:
                self.apply(Tick(format_ts(due), due))
        self.ms = ms

    def _send(self, dev: str, ftype: str, fields: tuple[str, ...], ms: int,
              lost: bool = False) -> None:
        """The device sends a frame with its next seq; a lost one never arrives."""
        if ftype == "CHIPS":
            self.inventories[fields[0]] = fields[1] if len(fields) > 1 else ""
        seq = self.seqs[dev] = (self.seqs.get(dev, -1) + 1) % 65536
        if ftype == "HELLO":
            seq = self.seqs[dev] = 0
        self.last_seen[dev] = ms
        if lost:
            return
        raw = encode(Frame(dev, seq, ftype, fields)).decode().rstrip("\r\n")
        if self.buffered is not None:  # frozen: the port holds it, if it has room
            if sum(1 for d, _ in self.buffered if d == dev) < self.buffer:
                self.buffered.append((dev, raw))
            return
        self.apply(FrameIn(format_ts(ms), ms, dev, raw))

    def frames(self, frames: Iterable[tuple[str, bytes]], lost: frozenset[str] = frozenset(),
               ) -> list[ev.Event]:
        """Feed device frames, one every ``step_ms``; the frames of ``lost`` devices are sent
        but never arrive (a cable out, a line dropping them)."""
        start = len(self.events)
        for dev, raw in frames:
            ms = self.ms + self.step_ms
            self._advance(ms)
            frame = decode(raw.decode().rstrip("\r\n"))
            self._send(dev, frame.type, tuple(frame.fields), ms,
                       lost=dev in lost or dev in self.silent)
        return self.events[start:]

    def wait(self, ms: int) -> list[ev.Event]:
        start = len(self.events)
        self._advance(self.ms + ms)
        return self.events[start:]

    def down(self, frames: Iterable[tuple[str, bytes]]) -> list[ev.Event]:
        """The service is down while the dealer goes on with ``frames``: everything the
        devices send meanwhile, heartbeats too, is lost; then it starts again."""
        was, self.silent = self.silent, set(DEVICES)
        self.dead = True
        self.frames(frames)
        self.dead = False
        self.silent = was
        return self.restart(down_ms=0)

    def restart(self, down_ms: int = 2000) -> list[ev.Event]:
        """The service was down for ``down_ms`` and starts again: its ports open."""
        start = len(self.events)
        self.ms += down_ms
        self.apply(ServiceStart(format_ts(self.ms), self.ms, "test"))
        for dev in DEVICES:
            self.apply(PortChange(format_ts(self.ms), self.ms, dev, True, ""))
        return self.events[start:]

    def stop(self, frames: Iterable[tuple[str, bytes]]) -> list[ev.Event]:
        """A clean stop: the service closes its own ports, is down while the dealer goes on
        with ``frames``, then starts again."""
        for dev in DEVICES:
            self.apply(PortChange(format_ts(self.ms), self.ms, dev, False, "stopped"))
        return self.down(frames)

    def freeze(self, frames: Iterable[tuple[str, bytes]], buffer: int = 40) -> list[ev.Event]:
        """The service's process is stopped while the dealer goes on with ``frames``: each
        port holds up to ``buffer`` frames (the rest are lost, as a full serial buffer loses
        them); then it runs again and reads what was held all at once."""
        frozen_at = self.ms
        self.buffered, self.buffer = [], buffer
        self.dead = True
        self.frames(frames)
        self.dead = False
        held, self.buffered = self.buffered, None
        start = len(self.events)
        self.apply(ServiceResumed(format_ts(self.ms), self.ms, self.ms - frozen_at))
        for dev, raw in held:
            self.apply(FrameIn(format_ts(self.ms), self.ms, dev, raw))
        return self.events[start:]

    def wipe(self, frames: Iterable[tuple[str, bytes]],
             players: dict[int, int] | None = None) -> list[ev.Event]:
        """The box is replaced (or its storage wiped) while the dealer goes on with
        ``frames``: a fresh core with only its config (the players and stacks of the
        session's start) starts reading the table."""
        was, self.silent = self.silent, set(DEVICES)
        self.dead = True
        self.frames(frames)
        self.dead = False
        self.silent = was
        seats = players if players is not None else self.session.seats
        table = self.session.table
        self.core = TableCore(self.settings, DeckRegistry({"SIM": dict(table.deck)}),
                              dict(table.chip_values),
                              [Player(seat, f"P{seat}", stack) for seat, stack in seats.items()])
        return self.restart(down_ms=0)

    def lose(self, dev: str, frames: Iterable[tuple[str, bytes]]) -> list[ev.Event]:
        """A line drops every frame of ``dev`` while the dealer goes on with ``frames``; its
        heartbeats go on, and the next one that gets through shows the gap."""
        return self.frames(frames, lost=frozenset({dev}))

    def restarting(self, dev: str, frames: Iterable[tuple[str, bytes]]) -> list[ev.Event]:
        """``dev`` reboots (its port stays open) while the dealer goes on with ``frames``: it
        sends nothing, heartbeats neither, then says HELLO with its seq from 0."""
        self.silent.add(dev)
        start = len(self.events)
        self.frames(frames)
        self.silent.discard(dev)
        self.reboot(dev)
        return self.events[start:]

    def unplug(self, dev: str) -> list[ev.Event]:
        """The cable is out: the port fails; the device goes on counting its frames, which
        never arrive."""
        self.silent.add(dev)
        return self.apply(PortChange(format_ts(self.ms), self.ms, dev, False, "unplugged"))

    def replug(self, dev: str) -> list[ev.Event]:
        self.silent.discard(dev)
        return self.apply(PortChange(format_ts(self.ms), self.ms, dev, True, ""))

    def reboot(self, dev: str) -> list[ev.Event]:
        """The device starts afresh: its HELLO, with its seq from 0 again."""
        start = len(self.events)
        self.ms += self.step_ms
        self._send(dev, "HELLO", (f"{dev.upper()}-1", "1.0", "TSP1"), self.ms)
        return self.events[start:]

    def command(self, command: str, /, **body: Any) -> Any:
        self.ms += self.step_ms
        self.apply(Command(format_ts(self.ms), self.ms, command, body))
        return self.replies[-1]

    # ------------------------------------------------------------------ what came out
    def alerts(self, events: list[ev.Event] | None = None) -> list[tuple[str, str]]:
        """Warning and critical alerts: (name, severity)."""
        return [(e.name, e.severity) for e in (self.events if events is None else events)
                if isinstance(e, ev.Alert) and e.severity != "info"]

    def ended(self) -> list[ev.HandEnded]:
        return [e for e in self.events if isinstance(e, ev.HandEnded)]

    def of(self, kind: type[ev.Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]
