"""One virtual table of the room bench, in its own process, keeping its frames' true order.

Each table runs in a process of its own, as each real table's devices are hardware of their
own: the tables' simulator threads do not queue for one interpreter, so what reaches a service
out of order comes from the ports and the machine, not from the bench. Every frame the devices
write is also noted, in the order the writes happened (the dealer's physical order, heartbeats
and chip inventories where they fell), so that the order the service journalled can be
compared with it.
"""

from __future__ import annotations

import threading
import time
import traceback
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from simulators import endpoints
from simulators.endpoints import Endpoint, OnConnect
from simulators.records import HandRecord
from simulators.virtual import VirtualTableRig

SEATS = {s: 20_000 for s in (1, 2, 4, 5, 7, 9)}
"""Six players, deep enough for a few dozen hands of bets, raises and all-ins."""
AGGRESSION, ALL_IN_SHARE, FOLD_PROBABILITY = 0.2, 0.05, 0.5
"""Players who bet and raise often, go all-in now and then, and fold half the bets they face:
forty seeds of twenty hands each kept a table going to the end, with an all-in in a quarter of
the hands, uncalled bets handed back in 40 % and uncontested pots in half."""


class TrueOrder:
    """Every frame written by any device of the table, in the order of the writes, with the
    wall-clock time of the write (the service stamps what it reads with the same clock) and,
    apart, when each line actually went into its pty: the simulator's own share of a delay."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.frames: list[tuple[str, str, float]] = []  # device, line without CRLF, time
        self.sent: dict[str, list[float]] = {}  # line -> when it went into the pty
        self.on = False
        """Noting from the first hand on: frames sent before the service listened are lost,
        and the device's HELLO then starts its seq again, so the same line can come twice."""

    def note(self, device: str, data: bytes) -> None:
        with self._lock:
            if self.on:
                self.frames.append((device, _line(data), time.time()))

    def into_pty(self, data: bytes) -> None:
        now = time.time()
        with self._lock:
            if self.on:
                self.sent.setdefault(_line(data), []).append(now)


def _line(data: bytes) -> str:
    return data.decode("ascii", "replace").rstrip("\r\n")


def time_pty_writes(order: TrueOrder) -> None:
    """Note when each frame is written into its pty, at once or by the line's thread: the
    simulator's private writers, wrapped for this measurement only."""
    queued = endpoints._PtyLine._write_all
    direct = endpoints._PtyLine.write_now

    def timed_queued(line: endpoints._PtyLine, data: bytes) -> None:
        queued(line, data)
        order.into_pty(data)

    def timed_direct(line: endpoints._PtyLine, data: bytes) -> bool:
        done = direct(line, data)
        if done:
            order.into_pty(data)
        return done

    setattr(endpoints._PtyLine, "_write_all", timed_queued)  # noqa: B010 - methods, replaced
    setattr(endpoints._PtyLine, "write_now", timed_direct)  # noqa: B010


class NotedEndpoint:
    """A device's endpoint that notes each frame in the table's true order, then sends it."""

    def __init__(self, inner: Endpoint, device: str, order: TrueOrder) -> None:
        self.inner = inner
        self.device = device
        self.order = order

    @property
    def url(self) -> str:
        return self.inner.url

    @property
    def dropped(self) -> int:
        return self.inner.dropped

    @property
    def connected(self) -> bool:
        return self.inner.connected

    def set_on_connect(self, callback: OnConnect | None) -> None:
        self.inner.set_on_connect(callback)

    def take_new_peer(self) -> bool:
        return self.inner.take_new_peer()

    def write(self, data: bytes) -> None:
        self.order.note(self.device, data)  # under the device's lock: in its own seq order
        self.inner.write(data)

    def unplug(self) -> None:
        self.inner.unplug()

    def replug(self) -> None:
        self.inner.replug()

    def close(self) -> None:
        self.inner.close()


def table_worker(conn: Connection, folder: str, seed: int, hands: int, pace: float) -> None:
    """The process of one table: says where its devices are, deals ``hands`` hands when told
    to go, sends back the hands' records and the true order, and closes when told to."""
    try:
        rig = VirtualTableRig(Path(folder) / "sim", seats=SEATS, seed=seed, pace=pace,
                              chips=Path(folder) / "chips.json", aggression=AGGRESSION,
                              all_in_share=ALL_IN_SHARE, fold_probability=FOLD_PROBABILITY)
    except BaseException:
        conn.send({"error": traceback.format_exc()})
        return
    try:
        order = TrueOrder()
        time_pty_writes(order)
        for name, device in rig.devices.items():
            device.endpoint = NotedEndpoint(device.endpoint, name, order)
        conn.send({"urls": rig.device_urls(), "decks": str(rig.decks_dir),
                   "chips": str(rig.chips_path), "small_blind": rig.table.small_blind,
                   "big_blind": rig.table.big_blind})
        conn.recv()  # go
        order.on = True
        records: list[HandRecord] = []
        started = time.monotonic()
        rig.table.run(hands, threading.Event(), on_hand=records.append)
        result: dict[str, Any] = {"records": records, "true": order.frames,
                                  "sent": order.sent, "dealt_s": time.monotonic() - started}
        conn.send(result)
        conn.recv()  # close: the service has read everything
    except BaseException:
        conn.send({"error": traceback.format_exc()})
    finally:
        rig.close()
