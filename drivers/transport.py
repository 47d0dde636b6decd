"""One device's byte stream, kept alive across unplugs, reboots and dropped connections.

The transport knows bytes, not poker: it cuts what arrives into candidate lines and hands each
one to the caller, which decodes, counts and journals it. Any pyserial URL works, so the same
code reads a USB adapter, a simulator's pty and a serial-over-TCP server.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Protocol, cast

import serial
from serial.urlhandler import protocol_socket

from drivers.tsp import LineSplitter

log = logging.getLogger(__name__)

READ_TIMEOUT = 0.1
"""Longest a read blocks, hence how long the reader may take to notice stop()."""

WRITE_TIMEOUT = 0.5
"""A peer that stops reading must not block writers for ever."""

READ_MAX = 65536
STOP_JOIN = 1.0

ChunkCallback = Callable[[str, bytes], None]
PortCallback = Callable[[str, bool, str], None]


class _Port(Protocol):
    """What every pyserial port class offers, native or URL handler alike.

    ``serial_for_url`` is typed as returning the native class, but for socket:// or loop://
    it does not; this is what the transport may rely on.
    """

    is_open: bool

    @property
    def timeout(self) -> float | None: ...
    @timeout.setter
    def timeout(self, value: float | None) -> None: ...
    @property
    def in_waiting(self) -> int: ...
    def open(self) -> None: ...
    def close(self) -> None: ...
    def read(self, size: int = 1, /) -> bytes: ...
    def write(self, data: bytes, /) -> int | None: ...


class SerialTransport:
    """Reads one port on a daemon thread and reopens it with backoff whenever it fails.

    A failure is anything the port raises: a pty whose other side closed (EIO), a socket whose
    peer hung up, an adapter that was unplugged, a path that does not exist yet. ``on_port``
    hears about each change between open and closed exactly once, so a port that stays away
    does not flood the caller with "closed" while retries go on in the background.
    """

    def __init__(
        self,
        name: str,
        url: str,
        *,
        baudrate: int = 115200,
        on_chunk: ChunkCallback,
        on_port: PortCallback,
        backoff_initial: float = 0.5,
        backoff_max: float = 10.0,
    ) -> None:
        if not 0 < backoff_initial <= backoff_max:
            raise ValueError("need 0 < backoff_initial <= backoff_max")
        self.name = name
        self.url = url
        self.baudrate = baudrate
        self._on_chunk = on_chunk
        self._on_port = on_port
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self._port: _Port | None = None
        self._port_lock = threading.Lock()  # write() must never meet a port halfway closed
        self._thread: threading.Thread | None = None
        self._stop: threading.Event | None = None
        self._reported: bool | None = None  # last state given to on_port; None before the first

    @property
    def is_open(self) -> bool:
        port = self._port
        return port is not None and port.is_open

    def start(self) -> None:
        """Start the reader thread; the first open is attempted at once."""
        if self._thread is not None and self._thread.is_alive():
            raise RuntimeError(f"transport {self.name!r} is already running")
        # one event per run, so that a thread still finishing an old run cannot be revived
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(self._stop,), name=f"transport-{self.name}", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Close the port and wait briefly for the reader thread.

        The wait is bounded: a connect to an unreachable host can block longer, and then the
        thread closes what it opened on its own, without reporting the port open.
        """
        if self._stop is None or self._thread is None:
            return
        self._stop.set()
        self._thread.join(STOP_JOIN)
        if self._thread.is_alive():
            log.warning("transport %s: reader thread still busy after stop", self.name)
        self._thread = None

    def write(self, data: bytes) -> bool:
        """Best effort: the reader thread, not the writer, decides that a port has failed."""
        with self._port_lock:
            port = self._port
            if port is None or not port.is_open:
                return False
            try:
                port.write(data)
            except (serial.SerialException, OSError) as exc:
                log.debug("transport %s: write failed: %s", self.name, exc)
                return False
            return True

    # reader thread

    def _run(self, stop: threading.Event) -> None:
        delay = self._backoff_initial
        while not stop.is_set():
            try:
                port = self._open()
            except Exception as exc:  # a bad URL too: keep retrying, the config may be fixed
                self._report(False, _describe(exc))
            else:
                if stop.is_set():
                    self._close(port)
                    break
                delay = self._backoff_initial
                self._report(True, "")
                reason = self._pump(port, stop)
                self._close(port)
                self._report(False, reason)
            if stop.wait(delay):
                break
            delay = min(delay * 2, self._backoff_max)

    def _open(self) -> _Port:
        made: serial.SerialBase = serial.serial_for_url(
            self.url,
            baudrate=self.baudrate,
            timeout=READ_TIMEOUT,
            write_timeout=WRITE_TIMEOUT,
            do_not_open=True,
        )
        # Only the native class takes the lock; URL handlers (socket://, loop://, rfc2217://)
        # accept the setting and ignore it, which would promise a lock that is not there.
        if isinstance(made, serial.Serial):
            made.exclusive = True
        port = cast(_Port, made)
        port.open()
        with self._port_lock:
            self._port = port
        return port

    def _close(self, port: _Port) -> None:
        with self._port_lock:
            if self._port is port:  # a reader outliving stop() must not clear a newer port
                self._port = None
            try:
                port.close()
            except Exception as exc:  # closing a failed port may fail too; it is gone either way
                log.debug("transport %s: close failed: %s", self.name, exc)

    def _pump(self, port: _Port, stop: threading.Event) -> str:
        """Read until the port fails or stop is set; returns why it ended."""
        splitter = LineSplitter()  # a fresh one, so no half line carries over from before
        try:
            while not stop.is_set():
                data = _read_some(port)
                if data:
                    for chunk in splitter.feed(data):
                        self._deliver(chunk)
            return "stopped"
        except (serial.SerialException, OSError) as exc:
            return _describe(exc)
        except Exception as exc:
            log.exception("transport %s: unexpected error while reading", self.name)
            return _describe(exc)
        finally:
            for chunk in splitter.flush():  # a frame cut off by the failure is still counted
                self._deliver(chunk)

    def _deliver(self, chunk: bytes) -> None:
        try:
            self._on_chunk(self.name, chunk)
        except Exception:  # a consumer bug must not look like, or cause, a port failure
            log.exception("transport %s: on_chunk failed; chunk dropped", self.name)

    def _report(self, is_open: bool, detail: str) -> None:
        if self._reported is is_open:
            log.debug("transport %s: still closed: %s", self.name, detail)
            return
        self._reported = is_open
        # the caller hears of it through on_port and logs it as it sees fit (once)
        log.debug("transport %s: %s %s %s", self.name, self.url,
                  "open" if is_open else "closed:", detail)
        try:
            self._on_port(self.name, is_open, detail)
        except Exception:
            log.exception("transport %s: on_port failed", self.name)


def _read_some(port: _Port) -> bytes:
    """Wait up to READ_TIMEOUT for data, then take everything that is already there.

    ``read(n)`` waits until all n bytes arrived, so asking for a large n would add the whole
    timeout to every frame's latency. ``in_waiting`` is an exact byte count for native ports,
    loop:// and rfc2217://, but socket:// answers only 0 or 1, which would mean one read per
    byte; there a zero-timeout read takes what the socket holds (changing that handler's
    timeout is free, unlike rfc2217's, which goes over the wire).
    """
    data = port.read(1)
    if not data:
        return data
    if isinstance(port, protocol_socket.Serial):
        port.timeout = 0
        try:
            return data + port.read(READ_MAX)
        finally:
            port.timeout = READ_TIMEOUT
    waiting = port.in_waiting
    return data + port.read(min(waiting, READ_MAX)) if waiting else data


def _describe(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__
