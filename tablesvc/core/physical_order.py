"""Frames of different devices taken in the order things happened at the table.

Each device is its own serial port, and ports differ in delay (a USB adapter adds 1-16 ms, a
reader thread may wait for the interpreter), so frames of different devices arrive out of
their physical order now and then: a chip inventory a few milliseconds before the card that
landed first, a burn from the shoe before the check that closed the round. TSP/1 frames carry
no clock, so the order within a short tolerance is decided by what makes physical sense.

The way it works: a frame that would come too early for what the table has seen so far (the
hand says so, ``Hand.too_early``: a card landing before its draw from the shoe, a bet while a
street is still being dealt, a player acting before the one whose turn it is, a burn before
the action that closes the round) is held, and every later frame of its device waits behind
it, for at most ``tolerance_ms``. It goes on as soon as what it waits for has been taken (a
frame of another device), or when the tolerance has passed: then it was not out of order, and
whatever it means is judged as it is, so a real fault is still caught, a tolerance later. A
frame in its place goes straight through: clean play in order costs nothing. Everything here
follows from the inputs and their timestamps, so replay gives the same order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from drivers.tsp import Frame
from tablesvc.core.links import Link

Held = tuple[Link, Frame, int]  # the device, the frame, when it was received (ms)


class PhysicalOrder:
    """Frames held back, per device, in the order each device sent them."""

    def __init__(self, tolerance_ms: int) -> None:
        self.tolerance_ms = tolerance_ms
        self.held: dict[str, deque[Held]] = {}

    def busy(self, device: str) -> bool:
        """The device has frames waiting: its next one waits behind them."""
        return device in self.held

    def hold(self, link: Link, frame: Frame, ms: int) -> None:
        self.held.setdefault(link.name, deque()).append((link, frame, ms))

    def holds_draw(self, uid: str) -> bool:
        """The shoe's draw of this tag is waiting: the card cannot have landed before it."""
        return any(frame.type == "DRAW" and frame.fields[0] == uid
                   for queue in self.held.values() for _, frame, _ in queue)

    def deadline(self) -> int | None:
        """When the oldest frame waiting goes on anyway."""
        if not self.held:
            return None
        return min(q[0][2] for q in self.held.values()) + self.tolerance_ms

    def next_ready(self, now: int, early: Callable[[Link, Frame], bool]) -> Held | None:
        """The oldest frame at the head of a device's queue that may go on now: its wait is
        over, or it no longer comes too early. Taken out of the queue."""
        best: Held | None = None
        for queue in self.held.values():
            head = queue[0]
            if (best is None or head[2] < best[2]) and (
                    head[2] + self.tolerance_ms <= now or not early(head[0], head[1])):
                best = head
        if best is None:
            return None
        if best[1].type == "ARR":
            # its wait is over, but a card cannot land before it left the shoe: if its draw
            # is waiting too, the draw (and what its device sent before it) goes first
            uid = best[1].fields[1]
            best = next((q[0] for q in self.held.values()
                         if any(f.type == "DRAW" and f.fields[0] == uid for _, f, _ in q)),
                        best)
        queue = self.held[best[0].name]
        queue.popleft()
        if not queue:
            del self.held[best[0].name]
        return best
