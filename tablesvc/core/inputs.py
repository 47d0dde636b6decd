"""Typed inputs of the core and their journal form (DESIGN §7).

Everything the core reacts to is one of these, with a timestamp taken when it was received.
The journal stores them as JSON lines; because the core is a pure function of the inputs,
reading them back reproduces every event exactly, timestamps included. Timestamps are kept
to the millisecond, as the journal writes them, so the live service and a replay see the
very same values.

>>> inp = input_from_record({"ts": "2026-11-29T21:00:00.123Z", "src": "tick"})
>>> inp
Tick(ts='2026-11-29T21:00:00.123Z', ms=1795986000123)
>>> record_of(inp)
{'ts': '2026-11-29T21:00:00.123Z', 'src': 'tick'}
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

# Sources that are not devices. A device may not be configured under these names.
RESERVED_SOURCES = frozenset({"cmd", "tick", "service", "publisher"})


def format_ts(ms: int) -> str:
    """Milliseconds since the epoch as ``2026-11-29T21:00:00.123Z``."""
    secs, msec = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{msec:03d}Z"


def parse_ts(ts: str) -> int:
    """The inverse of format_ts; raises ValueError on anything else."""
    if not ts.endswith("Z"):
        raise ValueError(f"timestamp {ts!r} is not UTC (…Z)")
    dt = datetime.fromisoformat(ts[:-1]).replace(tzinfo=UTC)
    return round(dt.timestamp() * 1000)


@dataclass(frozen=True, slots=True)
class FrameIn:
    """A raw line from a device, exactly as received (bad ones too), without CRLF."""

    ts: str
    ms: int
    src: str
    frame: str


@dataclass(frozen=True, slots=True)
class Command:
    """A controller command (``cmd/<name>``) with its JSON body."""

    ts: str
    ms: int
    cmd: str
    body: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passing with nothing received: lets timers (stale devices, settling) fire."""

    ts: str
    ms: int


@dataclass(frozen=True, slots=True)
class PortChange:
    """A device's port opened or failed. Journalled so device health replays exactly."""

    ts: str
    ms: int
    src: str
    open: bool
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ServiceStart:
    """The service (re)started; journalled so ``service_started`` replays too."""

    ts: str
    ms: int
    version: str


@dataclass(frozen=True, slots=True)
class PublishRefused:
    """The broker refused an event (PUBACK reason >= 128): an alert, not a retry."""

    ts: str
    ms: int
    seq: int
    reason: str


Input = FrameIn | Command | Tick | PortChange | ServiceStart | PublishRefused


def record_of(inp: Input) -> dict[str, Any]:
    """The journal line of an input (DESIGN §7 for frames, commands and ticks)."""
    if isinstance(inp, FrameIn):
        return {"ts": inp.ts, "src": inp.src, "frame": inp.frame}
    if isinstance(inp, Command):
        return {"ts": inp.ts, "src": "cmd", "cmd": inp.cmd, "body": inp.body}
    if isinstance(inp, Tick):
        return {"ts": inp.ts, "src": "tick"}
    if isinstance(inp, PortChange):
        return {"ts": inp.ts, "src": inp.src, "port": "open" if inp.open else "closed",
                "detail": inp.detail}
    if isinstance(inp, ServiceStart):
        return {"ts": inp.ts, "src": "service", "start": {"version": inp.version}}
    return {"ts": inp.ts, "src": "publisher", "refused": {"seq": inp.seq, "reason": inp.reason}}


def input_from_record(rec: dict[str, Any]) -> Input:
    """Parse one journal line; raises ValueError with what is wrong."""
    try:
        ts = rec["ts"]
        src = rec["src"]
        ms = parse_ts(ts)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"journal record without a valid ts/src: {exc}") from exc
    if src == "tick":
        return Tick(ts, ms)
    if src == "cmd":
        body = rec.get("body") or {}
        if not isinstance(rec.get("cmd"), str) or not isinstance(body, dict):
            raise ValueError("cmd record needs a string 'cmd' and an object 'body'")
        return Command(ts, ms, rec["cmd"], body)
    if src == "service":
        start = rec.get("start", {})
        if not isinstance(start, dict):
            raise ValueError("service record needs an object 'start'")
        return ServiceStart(ts, ms, str(start.get("version", "")))
    if src == "publisher":
        ref = rec.get("refused", {})
        if not isinstance(ref, dict):
            raise ValueError("publisher record needs an object 'refused'")
        return PublishRefused(ts, ms, int(ref.get("seq", 0)), str(ref.get("reason", "")))
    if "frame" in rec:
        return FrameIn(ts, ms, src, str(rec["frame"]))
    if "port" in rec:
        return PortChange(ts, ms, src, rec["port"] == "open", str(rec.get("detail", "")))
    raise ValueError(f"journal record of {src!r} has neither frame nor port")
