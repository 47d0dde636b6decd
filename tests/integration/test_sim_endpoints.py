"""Virtual devices on real ptys and real TCP sockets, read the way the service reads them."""

from __future__ import annotations

import os
import socket
import stat
import termios
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import serial

from drivers.tsp import Frame
from simulators.device import VirtualDevice
from simulators.endpoints import PtyEndpoint, TcpEndpoint
from simulators.tap import FrameTap

pytestmark = pytest.mark.integration

WAIT = 10.0  # only ever a guard against hanging; nothing here measures time


def until(condition: Callable[[], bool], what: str) -> None:
    """Wait for a state another thread brings about (guarded, never a timing assertion)."""
    done = threading.Event()
    for _ in range(int(WAIT / 0.01)):
        if condition():
            return
        done.wait(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def is_hello(frame: Frame) -> bool:
    return frame.type == "HELLO"


@pytest.fixture
def pty(tmp_path: Path) -> Iterator[PtyEndpoint]:
    ep = PtyEndpoint(tmp_path / "dev" / "shoe")
    yield ep
    ep.close()


@pytest.fixture
def tcp() -> Iterator[TcpEndpoint]:
    ep = TcpEndpoint()
    yield ep
    ep.close()


# pty -----------------------------------------------------------------------------------------


def test_pty_link_is_a_symlink_to_a_live_tty(pty: PtyEndpoint, tmp_path: Path) -> None:
    link = tmp_path / "dev" / "shoe"
    assert pty.url == str(link)
    assert link.is_symlink()
    assert stat.S_ISCHR(os.stat(link).st_mode)
    assert os.readlink(link) == pty.device


def test_pty_slave_is_raw_without_echo_or_crlf_translation(pty: PtyEndpoint) -> None:
    fd = os.open(pty.url, os.O_RDWR | os.O_NOCTTY)
    try:
        iflag, oflag, _cflag, lflag, *_ = termios.tcgetattr(fd)
        assert not lflag & (termios.ECHO | termios.ICANON | termios.ISIG)
        assert not iflag & (termios.ICRNL | termios.INLCR | termios.IGNCR)
        assert not oflag & termios.OPOST
        until(lambda: pty.connected, "the endpoint to see the port opened")
        pty.write(b"a\rb\nc\r\n")
        got = b""
        while len(got) < 7:
            got += os.read(fd, 100)
        assert got == b"a\rb\nc\r\n"
    finally:
        os.close(fd)


def test_device_on_pty_says_hello_when_the_port_is_opened(pty: PtyEndpoint) -> None:
    device = VirtualDevice("shoe", pty, "VS-SHOE", "2.1")
    with FrameTap(pty.url) as tap:
        hello = tap.wait_for(is_hello, timeout=WAIT)
        assert hello == Frame("shoe", 0, "HELLO", ("VS-SHOE", "2.1", "TSP1"))
        device.send("DRAW", "E0040150A1B2C301", "D")
        frame = tap.wait_for(lambda f: f.type == "DRAW", timeout=WAIT)
        assert frame == Frame("shoe", 1, "DRAW", ("E0040150A1B2C301", "D"))
        assert not tap.errors


def test_frame_sent_right_after_the_port_opens_arrives_after_hello(pty: PtyEndpoint) -> None:
    device = VirtualDevice("console", pty, "VS-CONSOLE")
    with FrameTap(pty.url) as tap:
        device.send("BTN", "NEWHAND")  # no waiting: the device is still "booting"
        tap.wait_for(lambda f: f.type == "BTN", timeout=WAIT)
        assert [(f.seq, f.type) for f in tap.frames] == [(0, "HELLO"), (1, "BTN")]


def test_pty_drops_and_counts_frames_while_nobody_has_the_port_open(pty: PtyEndpoint) -> None:
    device = VirtualDevice("shoe", pty, "VS-SHOE")
    for _ in range(5):
        device.send("HB", "1")
    until(lambda: pty.dropped >= 5, "five dropped frames")
    assert pty.dropped_bytes >= 5 * len(b"$shoe,0,HB,1*XXXX\r\n")


def test_pty_write_never_blocks_when_the_reader_stalls(tmp_path: Path) -> None:
    ep = PtyEndpoint(tmp_path / "dev" / "cards", queue_size=16)
    port = serial.serial_for_url(ep.url, timeout=0.05)  # opened, never read
    try:
        until(lambda: ep.connected, "the endpoint to see the port opened")
        line = b"$" + b"x" * 200 + b"\r\n"
        for _ in range(2000):  # far more than the kernel buffer and the queue hold
            ep.write(line)
        assert ep.dropped > 0
    finally:
        port.close()
        ep.close()


def test_pty_unplug_fails_the_open_port_and_replug_gives_a_new_live_pty(
    pty: PtyEndpoint,
) -> None:
    device = VirtualDevice("shoe", pty, "VS-SHOE")
    tap = FrameTap(pty.url)
    try:
        tap.wait_for(is_hello, timeout=WAIT)
        pty.unplug()
        tap.wait_failure(WAIT)  # the open port fails, as on a real unplug
        assert not os.path.lexists(pty.url)
        assert pty.device is None
        device.send("HB", "5")  # unplugged: lost, not an error
        assert pty.dropped >= 1
    finally:
        tap.close()
    pty.replug()
    device.hello()  # a replugged device boots again
    assert stat.S_ISCHR(os.stat(pty.url).st_mode)
    assert os.readlink(pty.url) == pty.device
    with FrameTap(pty.url) as tap2:
        hello = tap2.wait_for(is_hello, timeout=WAIT)
        assert hello.seq == 0
        device.send("DRAW", "E0040150A1B2C301", "U")
        assert tap2.wait_for(lambda f: f.type == "DRAW", timeout=WAIT).seq == 1


def test_seq_wraps_to_zero_after_65535(pty: PtyEndpoint) -> None:
    device = VirtualDevice("console", pty, "VS-CONSOLE", hello_on_connect=False)
    for _ in range(65535):  # seq 0..65534, nobody listening
        device.send("HB", "0")
    with FrameTap(pty.url) as tap:
        until(lambda: pty.connected, "the endpoint to see the port opened")
        device.send("BTN", "NEWHAND")
        device.send("BTN", "FLOOR")
        tap.wait_for(lambda f: f.fields == ("FLOOR",), timeout=WAIT)
        assert [f.seq for f in tap.frames] == [65535, 0]


def test_heartbeat_reports_uptime_in_milliseconds(pty: PtyEndpoint) -> None:
    device = VirtualDevice("chips", pty, "VS-CHIPS")
    with FrameTap(pty.url) as tap:
        tap.wait_for(is_hello, timeout=WAIT)
        device.start_heartbeat(0.02)
        try:
            first = tap.wait_for(lambda f: f.type == "HB", timeout=WAIT)
            second = tap.wait_for(lambda f: f.type == "HB" and f.seq > first.seq, timeout=WAIT)
        finally:
            device.stop()
    assert second.seq == first.seq + 1
    assert 0 <= int(first.fields[0]) <= int(second.fields[0])


def test_corrupt_bytes_are_dropped_by_the_receiver_and_framing_recovers(
    pty: PtyEndpoint,
) -> None:
    device = VirtualDevice("cards", pty, "VS-CARDS")
    with FrameTap(pty.url) as tap:
        tap.wait_for(is_hello, timeout=WAIT)
        device.send_raw(b"noise$cards,9,ARR,S1,E0040150A1B2C301*0000\r\n")
        device.send("ARR", "S2", "E0040150A1B2C301")
        frame = tap.wait_for(lambda f: f.type == "ARR", timeout=WAIT)
    assert frame.fields == ("S2", "E0040150A1B2C301") and frame.seq == 1
    assert {e.kind.value for e in tap.errors} == {"garbage", "bad_crc"}


def test_device_refuses_a_frame_no_receiver_would_accept(pty: PtyEndpoint) -> None:
    device = VirtualDevice("cards", pty, "VS-CARDS")
    with pytest.raises(ValueError):
        device.send("ARR", "S1,S2", "E0040150A1B2C301")
    assert device.last_seq is None  # the refused frame used no seq


# TCP -----------------------------------------------------------------------------------------


def test_tcp_endpoint_delivers_frames_to_a_socket_client(tcp: TcpEndpoint) -> None:
    assert tcp.url == f"socket://127.0.0.1:{tcp.port}"
    device = VirtualDevice("shoe", tcp, "VS-SHOE")
    with FrameTap(tcp.url) as tap:
        assert tap.wait_for(is_hello, timeout=WAIT).seq == 0
        device.send("DRAW", "E0040150A1B2C301", "D")
        assert tap.wait_for(lambda f: f.type == "DRAW", timeout=WAIT).seq == 1
        assert not tap.errors


def test_tcp_frame_sent_right_after_connect_arrives_after_hello(tcp: TcpEndpoint) -> None:
    device = VirtualDevice("shoe", tcp, "VS-SHOE")
    with FrameTap(tcp.url) as tap:
        until(lambda: tcp.connected, "the client to be accepted")
        device.send("DRAW", "E0040150A1B2C301", "D")
        tap.wait_for(lambda f: f.type == "DRAW", timeout=WAIT)
        assert [(f.seq, f.type) for f in tap.frames] == [(0, "HELLO"), (1, "DRAW")]


def test_tcp_drops_and_counts_while_no_client_is_connected(tcp: TcpEndpoint) -> None:
    device = VirtualDevice("shoe", tcp, "VS-SHOE")
    device.send("HB", "1")
    until(lambda: tcp.dropped >= 1, "a dropped frame")


def test_tcp_new_client_replaces_the_old_one(tcp: TcpEndpoint) -> None:
    device = VirtualDevice("chips", tcp, "VS-CHIPS")
    with FrameTap(tcp.url) as first:
        first.wait_for(is_hello, timeout=WAIT)
        with FrameTap(tcp.url) as second:
            first.wait_failure(WAIT)  # the open port fails, as on a real unplug
            second.wait_for(is_hello, timeout=WAIT)
            device.send("CHIPS", "POT", "")
            assert second.wait_for(lambda f: f.type == "CHIPS", timeout=WAIT).fields == (
                "POT",
                "",
            )


def test_tcp_unplug_refuses_clients_and_replug_accepts_on_the_same_port(
    tcp: TcpEndpoint,
) -> None:
    device = VirtualDevice("console", tcp, "VS-CONSOLE")
    port = tcp.port
    with FrameTap(tcp.url) as tap:
        tap.wait_for(is_hello, timeout=WAIT)
        tcp.unplug()
        tap.wait_failure(WAIT)  # the open port fails, as on a real unplug
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=WAIT).close()
    tcp.replug()
    assert tcp.port == port
    with FrameTap(tcp.url) as tap:
        tap.wait_for(is_hello, timeout=WAIT)
        device.send("BTN", "NEWHAND")
        assert tap.wait_for(lambda f: f.type == "BTN", timeout=WAIT).fields == ("NEWHAND",)
