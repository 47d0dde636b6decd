"""The commands that serve web pages do what they say: the floor console serves where its
``--host``/``--port`` say, over its config's ``[web]``, under the same rules; the floor
console, the tournament controller's pages and the overlay each answer a browser's
``/favicon.ico`` with an icon, before a login or without the overlay's token (it is public:
the same picture everywhere), and their Host check still applies to it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import aiohttp
import pytest

from bench.venue import FloorProcess
from tablesvc.brokers.mosquitto import Mosquitto, free_port
from tablesvc.overlay.server import start_in_thread, stop_thread
from tablesvc.web.favicon import icon
from tests.conftest import ROOT
from tests.integration.test_console_guard import Clock, call, floor_pages
from tests.integration.test_overlay_server import overlay
from tests.tournament_pages import served

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "tablesvc.commands.cli"]


def test_floor_serves_on_the_host_and_port_given_instead_of_its_configs(
        tmp_path: Path, broker: Mosquitto) -> None:
    floor = FloorProcess(tmp_path / "floor", "hall", broker.port)
    configured, given = free_port(), free_port()
    floor.config.write_text(floor.config.read_text().replace(
        "[web]\nport = 0\n", f"[web]\nport = {configured}\n"))
    proc = subprocess.Popen([*CLI, "floor", "--config", str(floor.config), "--host",
                             "127.0.0.1", "--port", str(given), "--log", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # the console says where it serves once it listens
        assert line.strip().endswith(f"http://127.0.0.1:{given}/"), line
        with urllib.request.urlopen(f"http://127.0.0.1:{given}/healthz", timeout=10) as r:
            assert r.status == 200 and "mqtt" in json.loads(r.read())
    finally:
        proc.terminate()
        proc.wait(20)


def test_a_floor_host_given_beyond_this_machine_is_held_to_the_configs_rules(
        tmp_path: Path) -> None:
    floor = FloorProcess(tmp_path / "floor", "hall", free_port())
    done = subprocess.run([*CLI, "floor", "--config", str(floor.config), "--host", "0.0.0.0"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2
    assert "web: host '0.0.0.0' is reachable from other machines: set users_file" in done.stderr


def an_icon(status: int, headers: dict[str, str], body: bytes) -> bool:
    """An answer that is the icon: 200, an image, an ICO holding a PNG."""
    return (status == 200 and headers["Content-Type"].startswith("image/")
            and body[:4] == b"\x00\x00\x01\x00" and b"\x89PNG" in body and body == icon())


async def get(url: str, host: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """A browser's GET without a session, a token or a cookie: status, headers and body."""
    headers = {"Host": host} if host is not None else {}
    async with aiohttp.ClientSession() as s, s.get(url, headers=headers,
                                                   allow_redirects=False) as r:
        return r.status, dict(r.headers), await r.read()


def test_the_floor_console_serves_its_icon_before_a_login(tmp_path: Path) -> None:
    async def run() -> None:
        async with floor_pages(tmp_path, users={"sam": "pit boss 7"}, clock=Clock()) as url:
            assert an_icon(*await get(url + "/favicon.ico"))
            status, headers, _ = await call("GET", url + "/")
            assert status == 302 and headers["Location"] == "/login"  # the rest still asks
            assert (await get(url + "/favicon.ico", host="rebind.example"))[0] == 421

    asyncio.run(run())


def test_the_tournament_pages_serve_their_icon_before_a_login(tmp_path: Path) -> None:
    with served(tmp_path, tables={"t01": 6}, users={"sam": "pit boss 7"}) as s:
        assert an_icon(*asyncio.run(get(s.url + "/favicon.ico")))
        assert asyncio.run(get(s.url + "/"))[0] == 302  # the rest still asks for a login


def test_the_overlay_serves_its_icon_without_its_token(broker: Mosquitto) -> None:
    server = overlay(broker)
    thread = start_in_thread(server)
    try:
        base = f"http://127.0.0.1:{server.port}"
        assert an_icon(*asyncio.run(get(base + "/favicon.ico")))
        assert asyncio.run(get(base + "/"))[0] == 403  # the page still needs the token
        assert asyncio.run(get(base + "/favicon.ico", host="rebind.example"))[0] == 421
    finally:
        stop_thread(*thread)
