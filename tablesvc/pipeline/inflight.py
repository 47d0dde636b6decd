"""The messages paho holds unacknowledged, and how a PUBACK finds the one it belongs to.

1. only the holder of the publisher's ``_round`` calls ``publish()`` — events, retained state
   and device health, status and command replies alike, and the last (offline) status before
   it disconnects — and it ``record``s the returned message id right away, before it lets the
   lock go;
2. ``on_publish`` (called inside the loop's read, under ``_round``) only ``acked``s (mid,
   reason); it looks nothing up;
3. the holder of ``_round`` ``settle``s between two publishes, so a PUBACK it matches belongs
   to a message already recorded. The ids in flight are unique (paho reuses an id only once
   its message was acknowledged); should an id come round again before its earlier PUBACK was
   matched, the PUBACKs of that id still arrive in publish order, and the messages of an id
   are kept oldest first.

Both maps are bounded by paho's window (``mqtt.inflight``). The lock is held for a few dict
and list operations, never across I/O: ``sizes`` is read from any thread.
"""

from __future__ import annotations

import collections
import threading
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Sent:
    """What a message id in flight stands for: an event (seq, route) or a retained snapshot
    (topic below the prefix), or neither (status, a command reply); and its topic."""

    seq: int = 0
    route: str = ""
    retained: str = ""
    topic: str = ""


class InFlight:
    """Messages published and not yet acknowledged, by paho's message id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_mid: dict[int, collections.deque[Sent]] = {}
        self._count = 0  # messages in _by_mid
        self._acked: list[tuple[int, bool, str]] = []
        self.peak = 0
        """The most messages ever in flight at once."""

    def record(self, mid: int, what: Sent) -> None:
        with self._lock:
            # a list per id: should paho reuse an id before we matched its earlier message's
            # PUBACK, the PUBACKs of that id still arrive in publish order, oldest first
            self._by_mid.setdefault(mid, collections.deque()).append(what)
            self._count += 1
            self.peak = max(self.peak, self._count)

    def acked(self, mid: int, failed: bool, reason: str) -> None:
        """A PUBACK arrived (paho's ``on_publish``): noted, matched by ``settle``."""
        with self._lock:
            self._acked.append((mid, failed, reason))

    def settle(self) -> list[tuple[Sent, bool, str]]:
        """The messages acknowledged since the last call, with whether the broker refused
        each and why. A PUBACK of no recorded message (the last, offline status, which its
        sender waits for itself) is dropped."""
        with self._lock:
            acked, self._acked = self._acked, []
            sent = []
            for mid, failed, reason in acked:
                waiting = self._by_mid.get(mid)
                if not waiting:
                    continue
                sent.append((waiting.popleft(), failed, reason))
                if not waiting:
                    del self._by_mid[mid]
            self._count -= len(sent)
        return sent

    def clear(self) -> None:
        """The client was replaced: what it had in flight is gone with it."""
        with self._lock:
            self._by_mid.clear()
            self._count = 0
            self._acked.clear()

    def count(self) -> int:
        with self._lock:
            return self._count

    def busy(self) -> bool:
        """Anything in flight, or acknowledged and not settled yet."""
        with self._lock:
            return bool(self._count or self._acked)

    def sizes(self) -> tuple[int, int, int]:
        """Messages in flight, ids in flight, PUBACKs not settled yet."""
        with self._lock:
            return self._count, len(self._by_mid), len(self._acked)
