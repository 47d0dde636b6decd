"""The broadcast delay: every message is held back by the same time as the video.

A message is due ``delay_s`` after it *arrived* here, never after the time stamped in it: the
arrival is always later than what happened at the table, so a message can only be late, never
ahead of the delayed video, whatever the two machines' clocks say. Arrivals come in order and
the delay is one constant, so the line is a plain queue.
"""

from __future__ import annotations

from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class DelayLine(Generic[T]):
    """Items in arrival order, each due ``delay_s`` after it arrived (monotonic seconds)."""

    def __init__(self, delay_s: float) -> None:
        if delay_s < 0:
            raise ValueError("a delay cannot be negative")
        self.delay_s = delay_s
        self._items: deque[tuple[float, T]] = deque()

    def push(self, item: T, arrived: float) -> None:
        due = arrived + self.delay_s
        if self._items and due < self._items[-1][0]:
            due = self._items[-1][0]  # a clock that stepped back never reorders the feed
        self._items.append((due, item))

    def due(self, now: float) -> list[T]:
        """The items whose time has come, in order; they leave the line."""
        out = []
        while self._items and self._items[0][0] <= now:
            out.append(self._items.popleft()[1])
        return out

    def next_due(self) -> float | None:
        return self._items[0][0] if self._items else None

    def __len__(self) -> int:
        return len(self._items)
