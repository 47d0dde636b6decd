"""One paho client's network I/O, driven by the thread that publishes.

Why not paho's own network thread (``loop_start``): with it, an event took two hand-overs
after the pipeline submitted it, each waiting until the interpreter let the next thread run:
the publisher thread called ``publish()``, which only queued the packet and woke paho's
thread, and that thread wrote the socket. Timed inside the service, the first hop alone was
0.2 ms at p50 and 2.5 ms at p99, at a table's real rate, where the whole budget beside the
disk and the broker is 2 ms. Driven from here, ``publish()`` on the publisher thread writes
the socket itself (paho writes at once when no thread of its own runs the loop), and the
PUBACKs are read on the same thread that matches them.

This is paho's documented external-loop interface (``socket``, ``want_write``,
``loop_read``, ``loop_write``, ``loop_misc``) with what ``loop_forever`` adds to it: the
first connection and every reconnection, with a doubling delay (1 s to 10 s, as before). The
wait is ``select`` on the socket and on a ``Waker``, which other threads set when they hand
something in.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import paho.mqtt.client as mqtt
import structlog

log = structlog.get_logger("tablesvc.pipeline.netloop")

MIN_DELAY_S = 1.0
MAX_DELAY_S = 10.0
"""The wait before the next connection attempt: the first, doubled after each failure up to
the last."""


class Waker:
    """``threading.Event``'s ``set`` for a thread that waits in ``select``: a byte on a
    socket pair. Set twice before the waiter looks, it writes one byte."""

    def __init__(self) -> None:
        self._r, self._w = socket.socketpair()
        self._r.setblocking(False)
        self._w.setblocking(False)
        self._pending = False

    def fileno(self) -> int:
        return self._r.fileno()

    def set(self) -> None:
        if self._pending:
            return
        self._pending = True
        with contextlib.suppress(BlockingIOError, OSError):
            self._w.send(b"\0")

    def clear(self) -> None:
        # the bytes first, then the flag. The other order lost wake-ups: a set() between the
        # two wrote a byte that the drain then swallowed, leaving the flag up with no byte
        # behind it, so every later set() returned early and the waiter slept out its
        # timeout. In this order a set() that sees the flag still up came before the waiter
        # looks at what was handed in (it does so after clear), so nothing is missed.
        with contextlib.suppress(BlockingIOError, OSError):
            while self._r.recv(4096):
                pass
        self._pending = False

    def close(self) -> None:
        self._r.close()
        self._w.close()


class NetLoop:
    """Connects one client, keeps it connected and does its reads, writes and keepalive, on
    the caller's thread. Exceptions out of paho (a callback that raised with
    ``suppress_exceptions`` off, a bug) reach the caller: the loop is then not to be trusted,
    and the caller replaces the client."""

    def __init__(self, client: mqtt.Client, waker: Waker,
                 min_delay_s: float | None = None, max_delay_s: float | None = None,
                 on_error: Callable[[BaseException], None] | None = None) -> None:
        self.client = client
        self.waker = waker
        self._min = MIN_DELAY_S if min_delay_s is None else min_delay_s
        self._max = MAX_DELAY_S if max_delay_s is None else max_delay_s
        self.on_error = on_error
        """Told why a connection attempt raised (``tablesvc.pipeline.reach``)."""
        self._delay = 0.0  # the wait before the next attempt, once one has failed
        self._next_try = 0.0  # monotonic seconds; 0: at once (the first connection)

    def wait(self, timeout: float,
             lock: AbstractContextManager[Any] | None = None) -> None:
        """Wait up to ``timeout`` seconds for the waker or the network, then do what the
        network needs (read, write, ping, connect). ``lock`` is held around everything but
        the wait itself: another thread that takes it may publish meanwhile (see
        ``Publisher.send_now``)."""
        guard = lock if lock is not None else nullcontext()
        with guard:
            c = self.client
            sock: Any = c.socket()
            if sock is None:
                sock = self._connect()
                if sock is None:
                    timeout = max(0.0, min(timeout, self._next_try - time.monotonic()))
            elif c.is_connected():
                self._delay = 0.0
            rlist: list[Any] = [self.waker]
            wlist: list[Any] = []
            pending = 0
            if sock is not None:
                rlist.append(sock)
                if c.want_write():
                    wlist.append(sock)
                pending = sock.pending() if hasattr(sock, "pending") else 0  # TLS: read, unseen
        try:
            readable, writable, _ = select.select(rlist, wlist, [], 0.0 if pending else timeout)
        except (OSError, ValueError, TypeError):
            readable, writable = [], []  # the socket went away under us: handled below
        if self.waker in readable:
            self.waker.clear()
        with guard:
            if sock is None or c.socket() is not sock:
                return
            if sock in readable or pending:
                c.loop_read()
                if c.socket() is not sock:
                    self._lost()
                    return
            if sock in writable or c.want_write():
                c.loop_write()
                if c.socket() is not sock:
                    self._lost()
                    return
            c.loop_misc()
            if c.socket() is not sock:
                self._lost()

    def _connect(self) -> Any:
        """Connect (or reconnect) when it is time: a blocking TCP connect, bounded by paho's
        connect timeout; the CONNECT packet goes out at once, the CONNACK comes in a later
        wait and calls ``on_connect``."""
        if time.monotonic() < self._next_try:
            return None
        try:
            self.client.reconnect()
        except (OSError, ValueError) as exc:
            log.debug("broker connection attempt failed", error=str(exc))
            self._lost()
            if self.on_error is not None:
                self.on_error(exc)
            return None
        sock = self.client.socket()
        if sock is None:
            self._lost()
        return sock

    def _lost(self) -> None:
        """The connection failed or dropped: the next attempt waits, longer each time."""
        self._delay = min(self._max, self._delay * 2) if self._delay else self._min
        self._next_try = time.monotonic() + self._delay

    def drive(self, until_s: float, done: Callable[[], bool],
              lock: AbstractContextManager[Any] | None = None) -> None:
        """Run the loop until ``done()`` is true or ``until_s`` (monotonic) has passed: to see
        a last message acknowledged before disconnecting."""
        while not done() and time.monotonic() < until_s and self.client.socket() is not None:
            self.wait(min(0.05, max(0.0, until_s - time.monotonic())), lock)
