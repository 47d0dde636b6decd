"""A listening tap: opens a device URL the way the service does and keeps what arrives.

For tests of the simulators and for a technician who wants to watch a virtual device. It
reads through pyserial and the TSP/1 codec only, so it sees exactly the bytes the service would.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import serial

from drivers.tsp import Frame, FrameError, LineSplitter, decode


class FrameTap:
    def __init__(self, url: str, *, read_timeout: float = 0.05) -> None:
        self.url = url
        self._port = serial.serial_for_url(url, timeout=read_timeout)
        self._cond = threading.Condition()
        self._frames: list[Frame] = []
        self._lines: list[bytes] = []
        self.errors: list[FrameError] = []
        self.failure: Exception | None = None
        """Set when the port failed (unplugged): the read loop has ended."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"tap {url}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        splitter = LineSplitter()
        try:
            while not self._stop.is_set():
                data = self._port.read(max(1, self._port.in_waiting))
                if not data:
                    continue
                for line in splitter.feed(data):
                    try:
                        frame = decode(line.decode("ascii", errors="replace"))
                    except FrameError as e:
                        with self._cond:
                            self._lines.append(line)
                            self.errors.append(e)
                            self._cond.notify_all()
                        continue
                    with self._cond:
                        self._lines.append(line)
                        self._frames.append(frame)
                        self._cond.notify_all()
        except (serial.SerialException, OSError) as e:
            with self._cond:
                self.failure = e
                self._cond.notify_all()

    @property
    def frames(self) -> list[Frame]:
        with self._cond:
            return list(self._frames)

    @property
    def lines(self) -> list[bytes]:
        """Every received line, bad ones included, as a journal would hold them."""
        with self._cond:
            return list(self._lines)

    def __len__(self) -> int:
        with self._cond:
            return len(self._frames)

    def wait_for(
        self, predicate: Callable[[Frame], bool], *, since: int = 0, timeout: float = 10.0
    ) -> Frame:
        """The first frame at index ``since`` or later that matches; TimeoutError otherwise."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for frame in self._frames[since:]:
                    if predicate(frame):
                        return frame
                since = max(since, len(self._frames))
                left = deadline - time.monotonic()
                if left <= 0 or self.failure is not None:
                    raise TimeoutError(f"{self.url}: no matching frame (failure: {self.failure})")
                self._cond.wait(left)

    def wait_failure(self, timeout: float = 10.0) -> Exception:
        """Wait until the port fails, as a service's port does when the device is unplugged."""
        with self._cond:
            if not self._cond.wait_for(lambda: self.failure is not None, timeout):
                raise TimeoutError(f"{self.url}: the port did not fail")
            assert self.failure is not None
            return self.failure

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._port.close()

    def __enter__(self) -> FrameTap:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
