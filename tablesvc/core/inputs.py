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
from datetime import UTC, date, datetime
from typing import Any

# Sources that are not devices. A device may not be configured under these names.
RESERVED_SOURCES = frozenset({"cmd", "tick", "service", "publisher", "equity"})


def format_ts(ms: int) -> str:
    """Milliseconds since the epoch as ``2026-11-29T21:00:00.123Z``.

    Every input is stamped, and most fall in the same second as the one before: that
    second's text is kept (one tuple, swapped whole, so threads may share it).
    """
    secs, msec = divmod(ms, 1000)
    known, text = _last_second
    if known != secs:
        text = _second_text(secs)
    return f"{text}.{msec:03d}Z"


def _second_text(secs: int) -> str:
    global _last_second
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs))
    _last_second = (secs, text)
    return text


_last_second: tuple[int | None, str] = (None, "")


def parse_ts(ts: str) -> int:
    """The inverse of format_ts; raises ValueError on anything else.

    A journal holds one timestamp per line, all in the DESIGN §7 form
    ``YYYY-MM-DDTHH:MM:SS.mmmZ``: such a one is read by slicing, with the epoch milliseconds
    of its day kept from the lines before. Any other form, or a value the short way doubts,
    goes to ``datetime.fromisoformat`` as it always did; both give the same number.
    """
    if (len(ts) == 24 and ts[10] == "T" and ts[13] == ":" and ts[16] == ":"
            and ts[19] == "." and ts[23] == "Z" and ts.isascii()):
        day = _DAYS.get(ts[:10])
        if day is None:
            day = _day_ms(ts[:10])
        hh, mm, ss, mmm = ts[11:13], ts[14:16], ts[17:19], ts[20:23]
        if day is not None and hh.isdigit() and mm.isdigit() and ss.isdigit() and mmm.isdigit():
            h, m, s = int(hh), int(mm), int(ss)
            if h < 24 and m < 60 and s < 60:
                return day + ((h * 60 + m) * 60 + s) * 1000 + int(mmm)
    return _parse_ts_iso(ts)


def _parse_ts_iso(ts: str) -> int:
    if not ts.endswith("Z"):
        raise ValueError(f"timestamp {ts!r} is not UTC (…Z)")
    dt = datetime.fromisoformat(ts[:-1]).replace(tzinfo=UTC)
    return round(dt.timestamp() * 1000)


def _day_ms(day: str) -> int | None:
    """Epoch milliseconds at 00:00 UTC of ``YYYY-MM-DD``, or None for any other text."""
    if not (day[4] == "-" and day[7] == "-" and day[:4].isdigit() and day[5:7].isdigit()
            and day[8:].isdigit()):
        return None
    try:
        ordinal = date(int(day[:4]), int(day[5:7]), int(day[8:])).toordinal()
    except ValueError:
        return None  # no such day: the general parser says so
    if len(_DAYS) >= 1024:
        _DAYS.clear()
    ms = (ordinal - _EPOCH_DAY) * 86_400_000
    _DAYS[day] = ms
    return ms


_DAYS: dict[str, int] = {}
_EPOCH_DAY = date(1970, 1, 1).toordinal()


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
    """The service (re)started; journalled so ``service_started`` replays too.

    ``command_checks`` says how the commands journalled after it were checked (see
    ``tablesvc.core.commands.COMMAND_CHECKS``); records of older versions have no such mark
    and mean 1, the lax checks they ran with, so that their journals replay as published.
    """

    ts: str
    ms: int
    version: str
    command_checks: int = 1


@dataclass(frozen=True, slots=True)
class ServiceResumed:
    """The service's process was not running for ``paused_ms`` (stopped, frozen, the box
    suspended) and runs again with its ports open: what the devices sent meanwhile was read
    late, in a burst, or lost. Journalled, so that replay knows the gap as the live service
    did; it goes before everything read after the pause."""

    ts: str
    ms: int
    paused_ms: int


@dataclass(frozen=True, slots=True)
class PublishRefused:
    """The broker refused an event (PUBACK reason >= 128): an alert, not a retry."""

    ts: str
    ms: int
    seq: int
    reason: str


@dataclass(frozen=True, slots=True)
class EquityResult:
    """Win probabilities computed off the pipeline for the hand state ``(hand, version)``.

    Journalled, so that a replay re-emits the ``equity`` event without computing anything;
    the core uses it only while that state is still the current one. ``figures`` is the
    event's payload (street, method, samples, error, dead, seats); it holds no hole card.
    """

    ts: str
    ms: int
    hand: int
    version: int
    figures: dict[str, Any]


Input = (FrameIn | Command | Tick | PortChange | ServiceStart | ServiceResumed | PublishRefused
         | EquityResult)


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
        start: dict[str, Any] = {"version": inp.version}
        if inp.command_checks != 1:
            start["command_checks"] = inp.command_checks
        return {"ts": inp.ts, "src": "service", "start": start}
    if isinstance(inp, ServiceResumed):
        return {"ts": inp.ts, "src": "service", "resumed": {"paused_ms": inp.paused_ms}}
    if isinstance(inp, EquityResult):
        return {"ts": inp.ts, "src": "equity",
                "equity": {"hand": inp.hand, "version": inp.version, **inp.figures}}
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
    if src == "service" and "resumed" in rec:
        resumed = rec["resumed"]
        paused = resumed.get("paused_ms") if isinstance(resumed, dict) else None
        if isinstance(paused, bool) or not isinstance(paused, int) or paused < 0:
            raise ValueError("service record's 'resumed' needs a non-negative integer "
                             "'paused_ms'")
        return ServiceResumed(ts, ms, paused)
    if src == "service":
        start = rec.get("start", {})
        if not isinstance(start, dict):
            raise ValueError("service record needs an object 'start'")
        checks = start.get("command_checks", 1)
        if isinstance(checks, bool) or not isinstance(checks, int):
            raise ValueError("service record's 'command_checks' must be an integer")
        return ServiceStart(ts, ms, str(start.get("version", "")), checks)
    if src == "publisher":
        ref = rec.get("refused", {})
        if not isinstance(ref, dict):
            raise ValueError("publisher record needs an object 'refused'")
        return PublishRefused(ts, ms, int(ref.get("seq", 0)), str(ref.get("reason", "")))
    if src == "equity":
        figures = rec.get("equity")
        if not isinstance(figures, dict):
            raise ValueError("equity record needs an object 'equity'")
        figures = dict(figures)
        try:
            hand, version = int(figures.pop("hand")), int(figures.pop("version"))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"equity record needs an integer hand and version: {exc}") from exc
        return EquityResult(ts, ms, hand, version, figures)
    if "frame" in rec:
        return FrameIn(ts, ms, src, str(rec["frame"]))
    if "port" in rec:
        return PortChange(ts, ms, src, rec["port"] == "open", str(rec.get("detail", "")))
    raise ValueError(f"journal record of {src!r} has neither frame nor port")
