"""Whether the service's process was stopped: frozen, suspended, or not scheduled for seconds.

A stopped process (SIGSTOP, a debugger, a box suspended, a starved VM) loses no connection
and no port: when it runs again, its reader threads read in a burst what the ports held, and
what did not fit is lost. Nothing in the frames says so: their timestamps are taken when they
are read. The core must know, so that it does not take the burst for the table (a hand dealt
in a second, cards of several devices in no order) and finds its place again
(``tablesvc.core.inputs.ServiceResumed``).

A small thread ticks a few times a second and notes any tick that came much later than it
should have, for a time in which the process did not run either (its CPU time did not go
on): every thread of the process stopped with it. A pipeline that was only slow (a long disk
sync) is no pause: the ticking thread went on; nor is a thread that kept the others from
running while it computed: the process ran. The pipeline asks before each batch and journals
the pause first, ahead of everything read after it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

TICK_S = 0.25
PAUSE_S = 1.0
"""Time in which the process did not run, beyond this, is a pause: far beyond a scheduling
delay, and shorter than the 3 s after which a silent device is stale. What the ports hold
after it is a few frames at a table's pace, which the core's physical order sorts out; a
longer pause may hold whole actions of several devices."""


class PauseWatch:
    """Notes when the whole process did not run for longer than ``PAUSE_S``.

    ``clock``: wall time that goes on while the process is stopped; ``cpu``: the process's
    own CPU time, which does not."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 cpu: Callable[[], float] = time.process_time) -> None:
        self._clock = clock
        self._cpu = cpu
        self._lock = threading.Lock()
        self._last = clock()
        self._last_cpu = cpu()
        self._paused = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="pause watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.wait(TICK_S):
            self.tick()

    def tick(self) -> None:
        """One tick of the watching thread: a late one means the process was stopped."""
        with self._lock:
            self._since_last(always=True)

    def take(self) -> int:
        """The pause since the last call, in milliseconds (0: none). The pipeline may run
        before the watching thread after a pause: a tick overdue now is a pause too."""
        with self._lock:
            self._since_last(always=False)
            paused, self._paused = self._paused, 0.0
        return round(paused * 1000)

    def _since_last(self, always: bool) -> None:
        """Count the time since the last tick in which the process did not run; ``always``:
        a tick moves the mark on even when that was no pause."""
        now, cpu = self._clock(), self._cpu()
        if now - self._last <= PAUSE_S and not always:
            return
        stopped = (now - self._last) - (cpu - self._last_cpu)
        if stopped > PAUSE_S:
            self._paused += stopped
        self._last, self._last_cpu = now, cpu
