"""Device links: decoding, counting and health of each configured device (DESIGN §4).

Decoding happens here, after the journal, rather than in the transport: the journal keeps the
raw lines, so the counters and the health a technician sees replay exactly too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from drivers.tsp import Frame, FrameError, LinkCounters, SeqTracker, decode

Health = Literal["online", "stale", "offline"]

STALE_AFTER_MS = 3000
STATUS_MIN_INTERVAL_MS = 1000
"""Counter-only updates are published at most once a second, so a noisy line cannot flood."""
NEVER = 1 << 62
"""An input time no link's deadline reaches (no link online, none with changed counters)."""


@dataclass(slots=True)
class Link:
    name: str
    kind: str
    frame_types: frozenset[str]
    state: Health = "offline"
    model: str | None = None
    firmware: str | None = None
    detail: str = ""
    counters: LinkCounters = field(default_factory=LinkCounters)
    seq: SeqTracker = field(default_factory=SeqTracker)
    last_frame_ms: int = 0
    last_type: str | None = None  # the last good frame: what the floor is told when it went
    last_seq: int = 0
    last_status_ms: int = -(10**12)
    dirty: bool = False
    """Counters changed since the last device_status."""

    def stale_deadline(self) -> int | None:
        return self.last_frame_ms + STALE_AFTER_MS if self.state == "online" else None

    def dirty_deadline(self) -> int | None:
        return self.last_status_ms + STATUS_MIN_INTERVAL_MS if self.dirty else None


def receive(link: Link, line: str, ms: int) -> Frame | str:
    """Decode one raw line for ``link`` and update its counters and health: the frame to
    process, or why the line was dropped.

    A device that sends is online, whatever the port said before; whether that, or a HELLO,
    changed what the link shows is the caller's to see (it knows the state before).
    """
    link.state = "online"
    link.last_frame_ms = ms
    try:
        frame = decode(line)
    except FrameError as err:
        link.counters.count_error(err.kind)
        link.dirty = True
        return str(err)
    if frame.type not in link.frame_types:
        link.counters.unknown_type += 1
        link.dirty = True
        return f"unknown_type: a {link.kind} does not send {frame.type}"
    counters = link.counters
    lost_before = counters.lost
    if not link.seq.check(frame, counters):
        link.dirty = True
        return f"duplicate: seq {frame.seq} repeated"
    if counters.lost != lost_before:
        link.dirty = True
    counters.ok += 1
    link.last_type = frame.type
    link.last_seq = frame.seq
    if frame.type == "HELLO":
        link.model, link.firmware = frame.fields[0], frame.fields[1]
    return frame


def link_deadline(link: Link) -> int | None:
    """The input time at which ``link`` goes stale or owes a device_status, if ever."""
    stale, dirty = link.stale_deadline(), link.dirty_deadline()
    if stale is None or (dirty is not None and dirty < stale):
        return dirty
    return stale


def port_change(link: Link, is_open: bool, detail: str, ms: int) -> bool:
    """Apply a port open/close; True when the health changed."""
    new: Health = "online" if is_open else "offline"
    link.detail = detail
    if is_open:
        # the seq goes on: frames the device sent while its port was down count as lost
        # (a device that rebooted says HELLO and starts again at 0)
        link.last_frame_ms = ms
    if new == link.state:
        return False
    link.state = new
    return True


def expire(link: Link, ms: int) -> bool:
    """Turn an online link stale once no frame came for STALE_AFTER_MS."""
    deadline = link.stale_deadline()
    if deadline is not None and ms >= deadline:
        link.state = "stale"
        return True
    return False
