"""Where a virtual device's bytes go: a pseudo-terminal, a TCP server, or a recorder in memory.

A real device on a serial line never waits for its listener: bytes sent while nobody reads are
simply lost. Both endpoints keep that property. ``write`` only puts bytes on a bounded queue that
a wire thread drains; when the queue is full, or nobody is connected, the frame is dropped and
counted instead of blocking the dealer (who would otherwise stall with the service).

Both endpoints notice when a listener connects, at the latest on the next write, and report
that edge once, either through ``take_new_peer()`` (asked by a device before it sends) or by
calling ``on_connect`` from their own thread (for a device that is idle). A device uses it to
announce itself with HELLO before anything else, like a USB device that resets when the host
opens the port: a service that opens its port after the device booted still learns model and
firmware first.

Notes on ptys (Linux, checked by experiment):

* Writes to the master are accepted while no process holds the slave open; raw mode set on the
  slave once persists across opens as long as the master lives.
* Reading the master fails with EIO while no process holds the slave open, and would block
  (EAGAIN) while one does. That is the connect detector, and it is why we close our own copy of
  the slave right after configuring it: holding it would keep the pty "connected" for ever.
* pyserial flushes the input buffer when it opens a port (a pty, and a ``socket://`` URL too),
  so anything sent while the open is still in progress is lost. That is why a device waits a
  moment (its boot time) after a connect before its HELLO; see ``VirtualDevice``.
* Closing the master makes the service's reads fail at once and removes the ``/dev/pts/N``
  node. We also remove our symlink then, as udev removes a ``/dev/serial/by-id`` link on unplug:
  otherwise a reused pts number could connect the service to another device.
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import select
import selectors
import socket
import threading
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

OnConnect = Callable[[], object]

_POLL_S = 0.05
_PEER_POLL_S = 0.01


class Endpoint(Protocol):
    """What a VirtualDevice needs from the thing its bytes go to."""

    @property
    def url(self) -> str:
        """The string to put in the service config."""
        ...

    @property
    def dropped(self) -> int:
        """Frames (``write`` calls) lost because nobody listened or the link was full."""
        ...

    @property
    def connected(self) -> bool: ...

    def set_on_connect(self, callback: OnConnect | None) -> None: ...

    def take_new_peer(self) -> bool:
        """True once for each new listener (the edge is consumed), checked right now."""
        ...

    def write(self, data: bytes) -> None: ...

    def unplug(self) -> None: ...

    def replug(self) -> None: ...

    def close(self) -> None: ...


class _DropCounter:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.frames = 0
        self.bytes = 0

    def add(self, data: bytes) -> None:
        with self._lock:
            self.frames += 1
            self.bytes += len(data)


# --------------------------------------------------------------------------------------------
# pty


class _PtyLine:
    """One pty pair and the thread that feeds its master; replaced wholesale on replug."""

    def __init__(
        self, drops: _DropCounter, on_connect: Callable[[], OnConnect | None], queue_size: int
    ) -> None:
        master, slave = os.openpty()
        try:
            tty.setraw(slave)  # no echo, no CR/LF translation, no line discipline signals
            self.device = os.ttyname(slave)
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        self._master = master
        self._drops = drops
        self._on_connect = on_connect
        self._io = threading.Lock()  # guards the master fd reads and the connect edge
        self._writing = threading.Lock()  # one writer into the master at a time, in order
        self._announced = False
        self.queue: queue.Queue[bytes] = queue.Queue(queue_size)
        self.peer = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"pty {self.device}", daemon=True)
        self._thread.start()

    def _peer_present(self) -> bool:
        """Drain what the service wrote (nobody reads it) and tell whether the slave is open."""
        try:
            for _ in range(64):
                if not os.read(self._master, 65536):
                    return False
        except BlockingIOError:
            return True
        except OSError as e:
            if e.errno == errno.EIO:
                return False
            raise
        return True

    def check_peer(self) -> bool:
        with self._io:
            self.peer = self._peer_present()
            if not self.peer:
                self._announced = False
            return self.peer

    def take_new_peer(self) -> bool:
        with self._io:
            self.peer = self._peer_present()
            if not self.peer:
                self._announced = False
                return False
            if self._announced:
                return False
            self._announced = True
            return True

    def write_now(self, data: bytes) -> bool:
        """Write from the caller's thread when nothing waits before it; False: queue it.

        A frame then leaves when its device sends it, as a real device's does, rather than when
        this line's thread next runs: on a busy machine a thread can wait a few hundred ms for
        the processor, which would put the devices of one table far more out of order than
        serial adapters do. Never blocks: a full pty buffer, or the line's thread writing,
        leaves the frame to the queue.
        """
        if not self._writing.acquire(blocking=False):
            return False
        try:
            if self.queue.unfinished_tasks:
                return False  # earlier frames are queued or being written: keep the order
            try:
                n = os.write(self._master, data)
            except BlockingIOError:
                return False
            except OSError:
                self._drops.add(data)  # the line went away under us
                return True
            if n < len(data):
                self.queue.put_nowait(data[n:])  # the queue is empty: the rest goes next
            return True
        finally:
            self._writing.release()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                data: bytes | None = self.queue.get(timeout=_PEER_POLL_S)
            except queue.Empty:
                data = None
            if self.take_new_peer():
                callback = self._on_connect()
                if callback is not None:
                    callback()
            if data is not None:
                with self._writing:
                    if self.peer:
                        self._write_all(data)
                    else:
                        self._drops.add(data)
                self.queue.task_done()

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._master, view)
                view = view[n:]
                continue
            except BlockingIOError:
                pass
            # The service is not reading and the pty buffer is full: wait for room, but give
            # up on the rest of this frame if the service goes away or we are unplugged.
            select.select([], [self._master], [], _POLL_S)
            if self._stop.is_set() or not self.check_peer():
                self._drops.add(bytes(view))
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        with self._io:
            os.close(self._master)
        while True:
            try:
                self._drops.add(self.queue.get_nowait())
            except queue.Empty:
                break


class PtyEndpoint:
    """A virtual serial port: the service opens ``link_path`` as it would open /dev/ttyUSB0."""

    def __init__(self, link_path: Path, *, queue_size: int = 4096) -> None:
        self._link = Path(link_path)
        self._queue_size = queue_size
        self._drops = _DropCounter()
        self._lock = threading.Lock()
        self._on_connect: OnConnect | None = None
        self._line: _PtyLine | None = None
        self._closed = False
        self._plug()

    @property
    def url(self) -> str:
        return str(self._link)

    @property
    def device(self) -> str | None:
        """The pty slave the link points to now (None while unplugged)."""
        line = self._line
        return line.device if line else None

    @property
    def dropped(self) -> int:
        return self._drops.frames

    @property
    def dropped_bytes(self) -> int:
        return self._drops.bytes

    @property
    def connected(self) -> bool:
        line = self._line
        return line is not None and line.peer

    def set_on_connect(self, callback: OnConnect | None) -> None:
        self._on_connect = callback

    def take_new_peer(self) -> bool:
        with self._lock:
            return self._line is not None and self._line.take_new_peer()

    def write(self, data: bytes) -> None:
        with self._lock:
            line = self._line
            if line is None or not (line.peer or line.check_peer()):
                self._drops.add(data)  # nobody listening: lost now, never delivered stale later
                return
            if line.write_now(data):
                return
            try:
                line.queue.put_nowait(data)
            except queue.Full:
                self._drops.add(data)

    def _plug(self) -> None:
        line = _PtyLine(self._drops, lambda: self._on_connect, self._queue_size)
        self._link.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._link.with_name(f".{self._link.name}.{os.getpid()}.tmp")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        os.symlink(line.device, tmp)
        os.replace(tmp, self._link)  # atomic: a service opening the link sees old or new
        with self._lock:
            self._line = line

    def unplug(self) -> None:
        """Pull the cable: the service's port fails and the link disappears."""
        with self._lock:
            line, self._line = self._line, None
        if line is None:
            return
        with contextlib.suppress(FileNotFoundError, OSError):
            if os.readlink(self._link) == line.device:
                self._link.unlink()
        line.stop()

    def replug(self) -> None:
        """Plug in again (power-cycling if still plugged): a new pty behind the same link."""
        if self._closed:
            raise RuntimeError(f"{self._link} is closed")
        self.unplug()
        self._plug()

    def close(self) -> None:
        self._closed = True
        self.unplug()

    def __repr__(self) -> str:
        return f"PtyEndpoint({str(self._link)!r} -> {self.device})"


# --------------------------------------------------------------------------------------------
# TCP


class TcpEndpoint:
    """A serial-over-TCP device server (``socket://host:port``), one client at a time.

    A new client replaces the old one, as cheap device servers do, so a service that restarts
    without closing its socket is not locked out.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        queue_size: int = 4096,
        send_timeout: float = 0.5,
    ) -> None:
        self._host = host
        self._port = port
        self._send_timeout = send_timeout
        self._announced: socket.socket | None = None
        self._drops = _DropCounter()
        self._queue: queue.Queue[bytes] = queue.Queue(queue_size)
        self._client_lock = threading.Lock()
        self._client: socket.socket | None = None
        self._on_connect: OnConnect | None = None
        self._listener: socket.socket | None = None
        self._accept_stop = threading.Event()
        self._acceptor: threading.Thread | None = None
        self._closed = threading.Event()
        self._writer = threading.Thread(target=self._write_loop, name="tcp writer", daemon=True)
        self._plug()
        self._writer.start()

    @property
    def url(self) -> str:
        return f"socket://{self._host}:{self._port}"

    @property
    def port(self) -> int:
        return self._port

    @property
    def dropped(self) -> int:
        return self._drops.frames

    @property
    def dropped_bytes(self) -> int:
        return self._drops.bytes

    @property
    def connected(self) -> bool:
        return self._client is not None

    def set_on_connect(self, callback: OnConnect | None) -> None:
        self._on_connect = callback

    def take_new_peer(self) -> bool:
        with self._client_lock:
            client = self._client
            if client is None or client is self._announced:
                return False
            self._announced = client
            return True

    def write(self, data: bytes) -> None:
        if self._closed.is_set() or self._client is None:
            self._drops.add(data)
            return
        try:
            self._queue.put_nowait(data)
        except queue.Full:
            self._drops.add(data)

    def _write_loop(self) -> None:
        while not self._closed.is_set():
            try:
                data = self._queue.get(timeout=_POLL_S)
            except queue.Empty:
                continue
            with self._client_lock:
                client = self._client
                if client is None:
                    self._drops.add(data)
                    continue
                try:
                    client.sendall(data)
                except OSError:  # timeout (client not reading) or the client went away
                    self._drops.add(data)
                    self._drop_client_locked(client)

    def _drop_client_locked(self, client: socket.socket) -> None:
        if self._client is client:
            self._client = None
        with contextlib.suppress(OSError):
            client.shutdown(socket.SHUT_RDWR)
        client.close()

    def _plug(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind((self._host, self._port))
        except OSError:
            listener.close()
            raise
        listener.listen(4)
        self._port = listener.getsockname()[1]
        self._listener = listener
        self._accept_stop = threading.Event()
        self._acceptor = threading.Thread(
            target=self._accept_loop,
            args=(listener, self._accept_stop),
            name=f"tcp accept {self._port}",
            daemon=True,
        )
        self._acceptor.start()

    def _accept_loop(self, listener: socket.socket, stop: threading.Event) -> None:
        sel = selectors.DefaultSelector()
        sel.register(listener, selectors.EVENT_READ)
        watched: socket.socket | None = None
        try:
            while not stop.is_set():
                for key, _ in sel.select(_POLL_S):
                    if key.fileobj is listener:
                        conn, _addr = listener.accept()
                        conn.settimeout(self._send_timeout)
                        with self._client_lock:
                            old, self._client = self._client, conn
                            if old is not None:
                                self._drop_client_locked(old)
                        if watched is not None:
                            sel.unregister(watched)
                        sel.register(conn, selectors.EVENT_READ)
                        watched = conn
                        if self.take_new_peer():
                            callback = self._on_connect
                            if callback is not None:
                                callback()
                    else:
                        self._drain(key.fileobj)  # type: ignore[arg-type]
                if watched is not None and (watched.fileno() < 0 or self._client is not watched):
                    with contextlib.suppress(KeyError, ValueError):
                        sel.unregister(watched)
                    watched = None
        finally:
            sel.close()

    def _drain(self, conn: socket.socket) -> None:
        """Discard what the client sends; an empty read means it hung up."""
        try:
            data = conn.recv(65536)
        except (BlockingIOError, TimeoutError):
            return
        except OSError:
            data = b""
        if not data:
            with self._client_lock:
                self._drop_client_locked(conn)

    def unplug(self) -> None:
        """Drop the client and refuse new ones: the service's connection fails."""
        acceptor, self._acceptor = self._acceptor, None
        if acceptor is not None:
            self._accept_stop.set()
            acceptor.join()
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        with self._client_lock:
            if self._client is not None:
                self._drop_client_locked(self._client)

    def replug(self) -> None:
        """Listen again on the same port."""
        if self._closed.is_set():
            raise RuntimeError(f"{self.url} is closed")
        self.unplug()
        self._plug()

    def close(self) -> None:
        self.unplug()
        if not self._closed.is_set():
            self._closed.set()
            self._writer.join()

    def __repr__(self) -> str:
        return f"TcpEndpoint({self.url!r})"


# --------------------------------------------------------------------------------------------
# memory


class Recorder:
    """Every frame written by any of its devices, in the one true order they were written.

    For tests that run whole hands at full speed without ptys: ``frames`` is a list of
    (device name, bytes) that grows as the devices write, ready to be fed in that order to
    whatever reads the wire.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.frames: list[tuple[str, bytes]] = []

    def endpoint(self, name: str) -> RecordingEndpoint:
        return RecordingEndpoint(self, name)

    def append(self, name: str, data: bytes) -> None:
        with self._lock:
            self.frames.append((name, data))

    def snapshot(self) -> list[tuple[str, bytes]]:
        with self._lock:
            return list(self.frames)

    def clear(self) -> None:
        with self._lock:
            self.frames.clear()


class RecordingEndpoint:
    """An endpoint that hands every write to a ``Recorder``; always connected, never blocks.

    Unplugged, it drops (and counts) what is written, as a cable pulled out would.
    """

    def __init__(self, recorder: Recorder, name: str) -> None:
        self._recorder = recorder
        self._name = name
        self._drops = _DropCounter()
        self._plugged = True
        self._closed = False

    @property
    def url(self) -> str:
        return f"memory://{self._name}"

    @property
    def dropped(self) -> int:
        return self._drops.frames

    @property
    def connected(self) -> bool:
        return self._plugged

    def set_on_connect(self, callback: OnConnect | None) -> None:
        pass  # nobody ever connects: the recorder is always there

    def take_new_peer(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        if self._plugged:
            self._recorder.append(self._name, data)
        else:
            self._drops.add(data)

    def unplug(self) -> None:
        self._plugged = False

    def replug(self) -> None:
        if self._closed:
            raise RuntimeError(f"{self.url} is closed")
        self._plugged = True

    def close(self) -> None:
        self._closed = True
        self._plugged = False

    def __repr__(self) -> str:
        return f"RecordingEndpoint({self.url!r})"
