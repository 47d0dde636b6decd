"""The wall clock, used only at the edges (transports, command intake, ticks).

The core sees time solely through input timestamps, so a replay runs the same timers.
"""

from __future__ import annotations

import time

from tablesvc.core.inputs import FrameIn, format_ts


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def stamp() -> tuple[str, int]:
    """(ts, ms) for an input received now, at the journal's millisecond resolution."""
    t = now_ms()
    return format_ts(t), t


def frame_in(src: str, raw: bytes) -> FrameIn:
    """A FrameIn from bytes off the wire. latin-1 keeps every byte, so nothing is lost."""
    ts, ms = stamp()
    return FrameIn(ts, ms, src, raw.decode("latin-1"))
