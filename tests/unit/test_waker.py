"""The publisher thread sleeps in ``select`` until the pipeline hands something in; a lost
wake-up makes an event wait out the whole idle timeout (50 ms) before it reaches the
overlay."""

from __future__ import annotations

import select
from typing import Any

from tablesvc.pipeline.netloop import Waker


def _wakes(w: Waker) -> bool:
    readable, _, _ = select.select([w], [], [], 0.0)
    return w in readable


class _SetDuringDrain:
    """The waker's read end, where another thread calls ``set()`` just as the waiter drains
    it: the one interleaving that once left the waker deaf."""

    def __init__(self, w: Waker, inner: Any) -> None:
        self.w, self.inner, self.fired = w, inner, False

    def recv(self, n: int) -> bytes:
        if not self.fired:
            self.fired = True
            self.w.set()
        data: bytes = self.inner.recv(n)
        return data

    def fileno(self) -> int:
        return int(self.inner.fileno())


def test_set_wakes_the_waiter_and_clear_quiets_it() -> None:
    w = Waker()
    try:
        assert not _wakes(w)
        w.set()
        w.set()
        assert _wakes(w)
        w.clear()
        assert not _wakes(w)
    finally:
        w.close()


def test_a_set_racing_the_drain_does_not_silence_later_wakeups() -> None:
    w = Waker()
    inner = w._r
    try:
        w.set()
        w._r = _SetDuringDrain(w, inner)  # type: ignore[assignment]
        w.clear()
        w._r = inner
        # whatever the race left behind, the next hand-in must wake the waiter
        w.set()
        assert _wakes(w)
    finally:
        w._r = inner
        w.close()
