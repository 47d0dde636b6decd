"""SerialTransport over real ptys and real sockets: unplug, replug, and data flowing again."""

from __future__ import annotations

import logging
import os
import queue
import select
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drivers.transport import SerialTransport
from drivers.tsp import Frame, encode

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(sys.platform == "win32", reason="needs ptys"),
]

WAIT = 5.0
HB = [Frame("shoe", n, "HB", (str(n * 1000),)) for n in range(3)]
LINES = [encode(f) for f in HB]
CHUNKS = [line.removesuffix(b"\r\n") for line in LINES]


class Device:
    """Records what a transport reports, so a test can wait for it instead of sleeping."""

    def __init__(self) -> None:
        self.chunks: queue.Queue[bytes] = queue.Queue()
        self.ports: queue.Queue[tuple[bool, str]] = queue.Queue()
        self.port_log: list[bool] = []

    def on_chunk(self, name: str, chunk: bytes) -> None:
        assert name == "shoe"
        self.chunks.put(chunk)

    def on_port(self, name: str, is_open: bool, detail: str) -> None:
        assert name == "shoe"
        self.port_log.append(is_open)
        self.ports.put((is_open, detail))

    def next_port(self) -> tuple[bool, str]:
        return self.ports.get(timeout=WAIT)

    def take_chunks(self, n: int) -> list[bytes]:
        return [self.chunks.get(timeout=WAIT) for _ in range(n)]


MakeTransport = Callable[[str, Device], SerialTransport]


@pytest.fixture
def make_transport() -> Iterator[MakeTransport]:
    """Transports with a short backoff (the schedule is not under test), stopped afterwards."""
    made: list[SerialTransport] = []

    def make(url: str, device: Device) -> SerialTransport:
        transport = SerialTransport(
            "shoe",
            url,
            on_chunk=device.on_chunk,
            on_port=device.on_port,
            backoff_initial=0.02,
            backoff_max=0.2,
        )
        made.append(transport)
        transport.start()
        return transport

    yield make
    for transport in made:
        transport.stop()


def new_pty(link: Path) -> int:
    """A fresh pty behind ``link``, as a simulator or a udev symlink would present it."""
    master, slave = os.openpty()
    target = os.ttyname(slave)
    os.close(slave)  # the transport opens the slave itself, by path
    tmp = link.with_name(link.name + ".new")
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(target)
    os.replace(tmp, link)  # re-point atomically
    return master


def read_master(master: int, n: int) -> bytes:
    data = b""
    deadline = time.monotonic() + WAIT
    while len(data) < n and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            data += os.read(master, n - len(data))
    return data


def test_pty_frames_flow_and_a_closed_master_is_offline_until_a_new_pty_appears(
    tmp_path: Path, make_transport: MakeTransport
) -> None:
    link = tmp_path / "ttyTABLE-shoe"
    master = new_pty(link)
    device = Device()
    make_transport(str(link), device)
    assert device.next_port() == (True, "")

    os.write(master, b"".join(LINES))
    assert device.take_chunks(3) == CHUNKS

    os.close(master)  # the device was unplugged
    is_open, detail = device.next_port()
    assert not is_open
    assert detail

    master = new_pty(link)  # plugged in again, under a new pts number
    try:
        assert device.next_port() == (True, "")
        os.write(master, LINES[0])
        assert device.take_chunks(1) == CHUNKS[:1]
        assert device.port_log == [True, False, True]
    finally:
        os.close(master)


def test_pty_frame_cut_off_by_unplugging_is_handed_out_before_offline(
    tmp_path: Path, make_transport: MakeTransport
) -> None:
    link = tmp_path / "ttyTABLE-shoe"
    master = new_pty(link)
    device = Device()
    make_transport(str(link), device)
    assert device.next_port() == (True, "")

    os.write(master, LINES[0] + LINES[1][:10])
    assert device.take_chunks(1) == CHUNKS[:1]
    os.close(master)
    assert device.next_port()[0] is False
    assert device.take_chunks(1) == [LINES[1][:10]]


def test_missing_port_is_retried_reported_closed_once_and_opens_when_it_appears(
    tmp_path: Path, make_transport: MakeTransport, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="drivers.transport")
    link = tmp_path / "ttyTABLE-shoe"
    device = Device()
    transport = make_transport(str(link), device)
    is_open, detail = device.next_port()
    assert not is_open
    assert detail
    assert not transport.is_open

    # let a few retries fail before the port appears
    deadline = time.monotonic() + WAIT
    while sum("still closed" in r.getMessage() for r in caplog.records) < 3:
        assert time.monotonic() < deadline, "no retries seen"
        time.sleep(0.01)

    master = new_pty(link)
    try:
        assert device.next_port() == (True, "")
        assert transport.is_open
        os.write(master, LINES[2])
        assert device.take_chunks(1) == CHUNKS[2:]
        assert device.port_log == [False, True]
    finally:
        os.close(master)


def test_write_reaches_the_device_and_is_refused_while_the_port_is_closed(
    tmp_path: Path, make_transport: MakeTransport
) -> None:
    link = tmp_path / "ttyTABLE-shoe"
    device = Device()
    transport = make_transport(str(link), device)
    assert device.next_port()[0] is False
    assert transport.write(b"PING\r\n") is False

    master = new_pty(link)
    try:
        assert device.next_port() == (True, "")
        assert transport.write(b"PING\r\n") is True
        assert read_master(master, 6) == b"PING\r\n"
    finally:
        os.close(master)


def test_consumer_exception_does_not_stop_the_reader(
    tmp_path: Path, make_transport: MakeTransport
) -> None:
    link = tmp_path / "ttyTABLE-shoe"
    master = new_pty(link)
    device = Device()
    seen: list[bytes] = []

    def on_chunk(name: str, chunk: bytes) -> None:
        seen.append(chunk)
        if len(seen) == 1:
            raise RuntimeError("consumer bug")
        device.on_chunk(name, chunk)

    transport = SerialTransport("shoe", str(link), on_chunk=on_chunk, on_port=device.on_port)
    transport.start()
    try:
        assert device.next_port() == (True, "")
        os.write(master, LINES[0])
        os.write(master, LINES[1])
        assert device.take_chunks(1) == CHUNKS[1:2]
        assert seen[0] == CHUNKS[0]
        assert device.port_log == [True]
    finally:
        transport.stop()
        os.close(master)


def test_stop_closes_the_port_reports_it_and_ends_the_reader(
    tmp_path: Path, make_transport: MakeTransport
) -> None:
    link = tmp_path / "ttyTABLE-shoe"
    master = new_pty(link)
    device = Device()
    transport = make_transport(str(link), device)
    try:
        assert device.next_port() == (True, "")
        transport.stop()
        assert device.next_port() == (False, "stopped")
        assert not transport.is_open
        assert not [t for t in threading.enumerate() if t.name == "transport-shoe"]
        assert transport.write(b"x") is False
    finally:
        os.close(master)


def test_second_reader_of_the_same_pty_is_refused_by_the_exclusive_lock(
    tmp_path: Path, make_transport: MakeTransport
) -> None:
    link = tmp_path / "ttyTABLE-shoe"
    master = new_pty(link)
    first, second = Device(), Device()
    try:
        make_transport(str(link), first)
        assert first.next_port() == (True, "")
        make_transport(str(link), second)
        is_open, detail = second.next_port()
        assert not is_open
        assert "lock" in detail
    finally:
        os.close(master)


def test_socket_frames_flow_and_a_peer_hanging_up_is_offline_until_it_accepts_again(
    make_transport: MakeTransport,
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(WAIT)
        host, port = server.getsockname()[:2]
        device = Device()
        make_transport(f"socket://{host}:{port}", device)

        conn, _ = server.accept()
        with conn:
            assert device.next_port() == (True, "")
            conn.sendall(b"".join(LINES))
            assert device.take_chunks(3) == CHUNKS
        # the peer hung up
        is_open, detail = device.next_port()
        assert not is_open
        assert detail

        conn, _ = server.accept()  # the transport reconnects on its own
        with conn:
            assert device.next_port() == (True, "")
            conn.sendall(LINES[1])
            assert device.take_chunks(1) == CHUNKS[1:2]
        assert device.port_log[:3] == [True, False, True]


def test_loop_url_echoes_what_is_written() -> None:
    device = Device()
    transport = SerialTransport("shoe", "loop://", on_chunk=device.on_chunk, on_port=device.on_port)
    transport.start()
    try:
        assert device.next_port() == (True, "")
        assert transport.write(LINES[0])
        assert device.take_chunks(1) == CHUNKS[:1]
    finally:
        transport.stop()
