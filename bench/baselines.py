"""Bare baselines, measured in the same run as the figure they frame.

A latency through the service means little on its own on a shared machine: the disk's sync
tail and the broker's round trip move from minute to minute. Each latency figure is therefore
printed beside these two, taken right before and after it on the same disk and broker:

- ``fdatasync_ms``: a small append (one journal line) into a preallocated file in the storage
  directory, then ``os.fdatasync`` — the one disk sync an event waits for;
- ``group_commit_ms``: the same appends and syncs at the arrivals of a rate's frames, each
  line waiting for the sync that covers it while the next lines queue up for the next sync
  (the journal's natural batching, without the service): at a fast rate a slow sync holds
  every line that arrives during it, which one sync every 10 ms cannot show;
- ``broker_rtt_ms``: a QoS 1 publish by one paho client until a second paho client subscribed
  at QoS 1 receives it — the last leg of an event's way, without the service.

Throughput moves too: the same code ran 2.5 times faster on this VM one day than the next. So
the throughput figures are printed beside two more, taken in the same run on the same frames:

- ``bare_tracker_cpu_s``: the least any Python tracker does per frame, with no poker (check its
  CRC, split its fields, serialise one small event of them): what the machine's processor
  gives an interpreter right now;
- ``bare_journal_s``: the journal's disk work alone (the lines appended, one fdatasync per
  batch), without the service's code.
"""

from __future__ import annotations

import json
import os
import statistics
import threading
import time
from binascii import crc_hqx
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

LINE = (b'{"ts": "2026-11-29T21:00:00.123Z", "src": "shoe", '
        b'"frame": "$shoe,17,DRAW,E0040150A1B2C301,D*C128"}\n')
PREALLOCATED = 4 << 20


@dataclass(frozen=True)
class Spread:
    """p50 / p99 / max of a sample, in ms."""

    n: int
    p50: float
    p99: float
    max: float

    def __str__(self) -> str:
        if not self.n:
            return "no samples"
        return f"p50 {self.p50:.2f} ms, p99 {self.p99:.2f} ms, max {self.max:.2f} ms (n={self.n})"


def spread(ms: Sequence[float]) -> Spread:
    """The nearest-rank p99: with fewer than 100 samples it is the maximum."""
    if not ms:
        return Spread(0, 0.0, 0.0, 0.0)
    s = sorted(ms)
    rank = max(1, -(-len(s) * 99 // 100))  # ceil(0.99 n)
    return Spread(len(s), statistics.median(s), s[rank - 1], s[-1])


@contextmanager
def _preallocated(folder: Path, name: str) -> Iterator[int]:
    """A file of ``PREALLOCATED`` bytes in ``folder``, allocated and synced as the journal's
    segments are, open for writing; removed afterwards."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        try:
            os.posix_fallocate(fd, 0, PREALLOCATED)
        except OSError:
            os.ftruncate(fd, PREALLOCATED)
        os.fsync(fd)
        yield fd
    finally:
        os.close(fd)
        path.unlink(missing_ok=True)


def _append(fd: int, data: bytes, offset: int) -> int:
    """Write ``data`` at ``offset`` (from the start again once the file is full); the next
    offset."""
    if offset + len(data) > PREALLOCATED:
        offset = 0
    os.pwrite(fd, data, offset)
    return offset + len(data)


def fdatasync_ms(folder: Path, samples: int, pause_s: float = 0.01) -> list[float]:
    """Time ``samples`` bare appends + fdatasync in ``folder``, ``pause_s`` apart."""
    out: list[float] = []
    with _preallocated(folder, "baseline-fdatasync.bin") as fd:
        offset = 0
        for _ in range(samples):
            offset = _append(fd, LINE, offset)
            t = time.perf_counter()
            os.fdatasync(fd)
            out.append((time.perf_counter() - t) * 1000)
            time.sleep(pause_s)
    return out


def sleep_until(target: float) -> None:
    """Until ``time.perf_counter()`` reaches ``target``: a coarse sleep while far off, then
    fine steps (no busy loop holding the GIL from the other threads of the process)."""
    while (delay := target - time.perf_counter()) > 0:
        time.sleep(delay - 0.002 if delay > 0.003 else min(delay, 0.0005))


def group_commit_ms(folder: Path, arrivals: Sequence[float]) -> list[float]:
    """For lines arriving at ``arrivals`` (seconds from the start), the time from each line's
    arrival until the fdatasync that made it durable returned: one thread appends whatever
    queued up and syncs, as the service's pipeline does."""
    pending: list[float] = []
    cond = threading.Condition()
    finished = False
    out: list[float] = []

    def commit(fd: int) -> None:
        offset = 0
        while True:
            with cond:
                while not pending and not finished:
                    cond.wait()
                if not pending:
                    return
                batch = pending[:]
                pending.clear()
            offset = _append(fd, LINE * len(batch), offset)
            os.fdatasync(fd)
            done = time.perf_counter()
            out.extend((done - t) * 1000 for t in batch)

    with _preallocated(folder, "baseline-group-commit.bin") as fd:
        committer = threading.Thread(target=commit, args=(fd,), name="group-commit",
                                     daemon=True)
        committer.start()
        try:
            start = time.perf_counter()
            for at in arrivals:
                sleep_until(start + at)
                with cond:
                    pending.append(time.perf_counter())
                    cond.notify()
        finally:
            with cond:
                finished = True
                cond.notify()
            committer.join()
    return out


def bare_tracker_cpu_s(lines: Sequence[str]) -> float:
    """This process's CPU seconds for the bare per-frame work on ``lines`` (frames without
    CRLF): the CRC checked, the fields split, one small event serialised. Raises ValueError on
    a frame whose CRC is wrong (the stream must be the one the core is timed on)."""
    dumps = json.dumps
    t = time.process_time()
    for line in lines:
        body = line[1:-5]
        if "%04X" % crc_hqx(body.encode(), 0xFFFF) != line[-4:]:  # noqa: UP031
            raise ValueError(f"bad CRC in the bench's stream: {line!r}")
        dev, seq, ftype, *fields = body.split(",")
        dumps({"src": dev, "seq": int(seq), "type": ftype, "fields": fields})
    return time.process_time() - t


def bare_journal_s(folder: Path, lines: Sequence[bytes], batch: int) -> float:
    """Wall seconds to append ``lines`` in batches of ``batch`` into a preallocated file in
    ``folder``, with one fdatasync per batch: the journal's disk work without the journal."""
    with _preallocated(folder, "baseline-journal.bin") as fd:
        offset = 0
        t = time.perf_counter()
        for i in range(0, len(lines), batch):
            offset = _append(fd, b"".join(lines[i:i + batch]), offset)
            os.fdatasync(fd)
        return time.perf_counter() - t


def broker_rtt_ms(port: int, samples: int, pause_s: float = 0.01,
                  timeout_s: float = 5.0) -> list[float]:
    """Time ``samples`` QoS 1 publishes to their arrival at a QoS 1 subscriber, one at a time.

    A message that does not arrive within ``timeout_s`` is left out (and counted by the
    caller as ``samples - len(result)``): a baseline must not hang the benchmark.
    """
    topic = f"bench/rtt/{os.getpid()}"
    got = threading.Event()
    arrived: list[float] = []
    subscribed = threading.Event()

    def on_message(client: Any, userdata: Any, msg: Any) -> None:
        arrived.append(time.perf_counter())
        got.set()

    sub = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    sub.on_message = on_message
    sub.on_subscribe = lambda *a: subscribed.set()
    sub.on_connect = lambda c, *a: c.subscribe(topic, qos=1)
    pub = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    out: list[float] = []
    try:
        sub.connect("127.0.0.1", port)
        sub.loop_start()
        pub.connect("127.0.0.1", port)
        pub.loop_start()
        if not subscribed.wait(10):
            return out
        for i in range(samples):
            got.clear()
            arrived.clear()
            t = time.perf_counter()
            pub.publish(topic, f'{{"i": {i}}}', qos=1)
            if got.wait(timeout_s) and arrived:
                out.append((arrived[0] - t) * 1000)
            time.sleep(pause_s)
    finally:
        for c in (pub, sub):
            c.disconnect()
            c.loop_stop()
    return out
