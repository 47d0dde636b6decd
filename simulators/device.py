"""A virtual TSP/1 device: numbers and frames what the table tells it, sends heartbeats."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager

from drivers.tsp import SEQ_MOD, Frame, encode
from simulators.endpoints import Endpoint

_NAME_RE = re.compile(r"[a-z0-9-]{1,16}\Z")

BootReport = Callable[[], Iterable[tuple[str, ...]]]
"""What a device reads as soon as it has booted: frames as (type, field, ...)."""


class VirtualDevice:
    """One sensor (shoe, card antennas, chip reader, console) as the wire sees it.

    Sequence numbers belong to the device, not to the table: the heartbeat thread and the
    dealer both send, so numbering and writing happen under one lock, which keeps the frames on
    the wire in seq order.

    With ``hello_on_connect`` the device reboots when a listener opens its port, as many USB
    devices do when the host raises DTR: after ``connect_settle`` seconds (its boot time, long
    enough for the listener's open to finish flushing its input) it sends HELLO, and only then
    the frames that were waiting. The listener therefore always sees HELLO first, and no frame
    is lost or numbered out of order; the dealer is held up for at most the boot time.

    A ``boot_report`` (``set_boot_report``) is what the sensor reads as soon as it has booted,
    sent right after every HELLO: the tags already lying in its zones (the button puck, the
    stacks), which a reader tells again after a reset because it cannot know who heard them.
    ``lose_next`` makes the line lose frames: they are numbered, never delivered.
    """

    def __init__(
        self,
        name: str,
        endpoint: Endpoint,
        model: str,
        firmware: str = "1.0",
        *,
        hello_on_connect: bool = True,
        connect_settle: float = 0.2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not _NAME_RE.match(name):
            raise ValueError(f"device name {name!r} is not [a-z0-9-]{{1,16}}")
        self.name = name
        self.endpoint = endpoint
        self.model = model
        self.firmware = firmware
        self._clock = clock
        self._lock = threading.RLock()
        self._next_seq = 0
        self._last_seq: int | None = None
        self._boot = clock()
        self._hb_stop = threading.Event()
        self._hb_thread: threading.Thread | None = None
        self._hello_on_connect = hello_on_connect
        self._settle = connect_settle
        self._hello_due: float | None = None
        self._boot_report: BootReport | None = None
        self._lose = 0
        self._lost = 0
        if hello_on_connect:
            endpoint.set_on_connect(self._connected)

    @property
    def last_seq(self) -> int | None:
        """Seq of the last frame sent; lets a reader know when it has caught up (a frame the
        line lost, ``lose_next``, was sent too: wait for one sent after it)."""
        return self._last_seq

    @property
    def lost(self) -> int:
        """Frames numbered and sent that the line lost on the way (``lose_next``)."""
        return self._lost

    def atomic(self) -> AbstractContextManager[bool]:
        """Hold the device while several frames go out together: no heartbeat, no HELLO and
        no frame of another thread comes between them (the two frames of one motion)."""
        return self._lock

    def set_boot_report(self, report: BootReport | None) -> None:
        """Frames to send right after every HELLO: what the sensor reads when it starts. The
        callable runs with the device held, so it must not wait for anything that sends."""
        with self._lock:
            self._boot_report = report

    def lose_next(self, count: int) -> None:
        """The line loses this device's next ``count`` frames: each still takes its seq, none
        is delivered, so the receiver sees a gap in the numbers (DESIGN §4: lost frames)."""
        if count < 0:
            raise ValueError("cannot lose a negative number of frames")
        with self._lock:
            self._lose += count

    def send(self, ftype: str, *fields: str) -> Frame:
        """Frame, number and send. A frame no receiver would accept is refused before it uses
        up a seq, so a caller's mistake never shows up as lost frames."""
        with self._lock:
            frame = Frame(self.name, self._next_seq, ftype, tuple(fields))
            encode(frame)  # refuse before anything else happens
            if self._hello_on_connect and self.endpoint.take_new_peer():
                self._schedule_hello()
            if self._hello_due is not None:
                time.sleep(max(0.0, self._hello_due - time.monotonic()))
                self._hello_locked()
            return self._send_locked(ftype, fields)

    def _send_locked(self, ftype: str, fields: tuple[str, ...]) -> Frame:
        frame = Frame(self.name, self._next_seq, ftype, fields)
        data = encode(frame)
        if self._lose:
            self._lose -= 1
            self._lost += 1
        else:
            self.endpoint.write(data)
        self._last_seq = frame.seq
        self._next_seq = (frame.seq + 1) % SEQ_MOD
        return frame

    def hello(self) -> Frame:
        """Announce a (re)boot: seq and uptime start again."""
        with self._lock:
            return self._hello_locked()

    def _hello_locked(self) -> Frame:
        self._hello_due = None
        self._next_seq = 0
        self._boot = self._clock()
        hello = self._send_locked("HELLO", (self.model, self.firmware, "TSP1"))
        if self._boot_report is not None:
            for ftype, *fields in self._boot_report():
                self._send_locked(ftype, tuple(fields))
        return hello

    def _connected(self) -> None:
        """The endpoint saw a listener arrive while this device was idle."""
        with self._lock:
            self._schedule_hello()

    def _schedule_hello(self) -> None:
        self._hello_due = time.monotonic() + self._settle
        timer = threading.Timer(self._settle, self._hello_if_due)
        timer.daemon = True
        timer.start()

    def _hello_if_due(self) -> None:
        with self._lock:
            due = self._hello_due
            if due is not None and time.monotonic() >= due - 0.001:  # not a later connect's
                self._hello_locked()

    def uptime_ms(self) -> int:
        return int((self._clock() - self._boot) * 1000)

    def heartbeat(self) -> Frame:
        return self.send("HB", str(self.uptime_ms()))

    def send_raw(self, data: bytes) -> None:
        """Put arbitrary bytes on the wire (corrupt frames, noise) without using a seq."""
        with self._lock:
            self.endpoint.write(data)

    def start_heartbeat(self, interval: float = 1.0) -> None:
        if interval <= 0:
            raise ValueError("heartbeat interval must be positive")
        self.stop()
        self._hb_stop = threading.Event()
        stop = self._hb_stop

        def beat() -> None:
            while not stop.wait(interval):
                self.heartbeat()

        self._hb_thread = threading.Thread(target=beat, name=f"{self.name} heartbeat", daemon=True)
        self._hb_thread.start()

    def stop(self) -> None:
        """Stop the heartbeat (the endpoint stays as it is)."""
        self._hb_stop.set()
        if self._hb_thread is not None:
            self._hb_thread.join()
            self._hb_thread = None

    def __repr__(self) -> str:
        return f"VirtualDevice({self.name!r}, {self.endpoint!r})"
