"""The overlay server gives its picture (hole cards included) to its own page only.

The server runs as in the demo, on its own event loop, subscribed to a real mosquitto; the
requests come from a real HTTP client over loopback, with the headers a browser would send
from another web site, or from a page reached through a rebound DNS name. Every request
needs the overlay's token, on 127.0.0.1 too (any account on the machine can reach it); wrong
tokens are throttled per address; served beyond this machine it speaks TLS only (a real
certificate, made by deploy/make-certs.sh) and trades the token in the URL for a cookie. The
tournament controller's clock and field reach the picture, behind the broadcast delay like the
rest.
"""

from __future__ import annotations

import asyncio
import json
import os
import pty
import secrets
import select
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from structlog.testing import capture_logs

from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.config.table import validate_config
from tablesvc.overlay.access import COOKIE, CSP, Throttle
from tablesvc.overlay.server import OverlayServer, OverlaySettings, start_in_thread, stop_thread
from tablesvc.tournament.engine import published
from tablesvc.tournament.tournament import Tournament
from tests.conftest import ROOT
from tests.tournament_pages import structure

pytestmark = pytest.mark.integration
PREFIX = "tablesvc/v1/demo/t01"
TOKEN = secrets.token_urlsafe(32)


def overlay(broker: Mosquitto, delay_s: float = 0.0, *, host: str = "127.0.0.1",
            hostnames: tuple[str, ...] = (), tls: ssl.SSLContext | None = None,
            throttle: Throttle | None = None,
            photos: dict[str, Path] | None = None) -> OverlayServer:
    cfg = validate_config({"table": {"venue": "demo", "id": "t01"},
                           "mqtt": {"port": broker.port}}, Path("table.toml"))
    settings = OverlaySettings(host, 0, delay_s, 10, TOKEN, None, None, photos or {},
                               hostnames=hostnames, tls=tls)
    return OverlayServer(cfg, settings, throttle)


@pytest.fixture
def served(broker: Mosquitto) -> Iterator[OverlayServer]:
    """The overlay on 127.0.0.1, with a throttle that lets a test try many wrong tokens."""
    server = overlay(broker, throttle=Throttle(limit=1000))
    thread = start_in_thread(server)
    wait_until(lambda: server.linked, 10, "the overlay to subscribe")
    yield server
    stop_thread(*thread)


def hole_cards(broker: Mosquitto) -> None:
    """A hand with one seat's hole cards, as the service publishes them."""
    c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    base = {"v": 1, "venue": "demo", "table": "t01", "ts": "2026-12-01T20:00:00.000Z",
            "hand": 1, "prev_seq": None}
    started = {**base, "seq": 1, "type": "hand_started", "variant": "holdem",
               "limit": "no-limit", "button": 1, "small_blind_seat": 2, "big_blind_seat": 1,
               "seats": [{"seat": 1, "name": "Ann", "stack": 100},
                         {"seat": 2, "name": "Ben", "stack": 100}],
               "small_blind": 1, "big_blind": 2, "ante": 0, "ante_mode": "each"}
    c.publish(f"{PREFIX}/events", json.dumps(started), qos=1).wait_for_publish(5)
    cards = {**base, "seq": 2, "type": "hole_cards", "seat": 2, "cards": ["As", "Kd"]}
    c.publish(f"{PREFIX}/secure/events", json.dumps(cards), qos=1).wait_for_publish(5)
    c.loop_stop()
    c.disconnect()


async def fetch(url: str, headers: dict[str, str] | None = None,
                local: str | None = None) -> int:
    """The status of a GET, from the address ``local`` (another loopback address) if given."""
    connector = aiohttp.TCPConnector(local_addr=(local, 0) if local else None)
    async with (aiohttp.ClientSession(connector=connector) as s,
                s.get(url, headers=headers or {}, allow_redirects=False) as r):
        return r.status


async def answer(url: str) -> tuple[aiohttp.ClientResponse, str]:
    async with aiohttp.ClientSession() as s, s.get(url) as r:
        return r, await r.text()


async def picture(url: str, headers: dict[str, str] | None = None) -> Any:
    """The first picture the WebSocket sends, or the HTTP status that refused it."""
    async with aiohttp.ClientSession() as s:
        try:
            async with s.ws_connect(url, headers=headers or {}) as ws:
                msg = await ws.receive(timeout=5)
                return json.loads(msg.data)
        except aiohttp.WSServerHandshakeError as err:
            return err.status


def test_the_picture_with_hole_cards_goes_to_the_overlays_own_page_only(
        broker: Mosquitto, served: OverlayServer) -> None:
    hole_cards(broker)
    base = f"http://127.0.0.1:{served.port}"
    ws = f"ws://127.0.0.1:{served.port}/ws?token={TOKEN}"
    wait_until(lambda: '"As"' in served.picture, 10, "the hole cards in the picture")
    own = asyncio.run(picture(ws, {"Origin": base}))
    assert {s["seat"]: s["cards"] for s in own["seats"]}[2] == ["As", "Kd"]
    # a web site open in a browser on this machine tries to read it, token and all: refused
    assert asyncio.run(picture(ws, {"Origin": "https://evil.example"})) == 403
    assert asyncio.run(picture(ws, {"Origin": "null"})) == 403
    # a site whose name was rebound to 127.0.0.1: its Host gives it away
    assert asyncio.run(fetch(f"{base}/?token={TOKEN}",
                             {"Host": f"evil.example:{served.port}"})) == 421
    assert asyncio.run(picture(ws, {"Host": f"evil.example:{served.port}",
                                    "Origin": f"http://evil.example:{served.port}"})) == 421
    assert asyncio.run(fetch(f"{base}/?token={TOKEN}")) == 200
    assert asyncio.run(fetch(f"http://localhost:{served.port}/static/overlay.js?token={TOKEN}",
                             {"Origin": f"http://localhost:{served.port}"})) == 200


def test_on_loopback_too_nothing_is_served_without_the_token(served: OverlayServer) -> None:
    """Any account on the machine (user nobody) reaches 127.0.0.1: the page, its files, the
    picture and any other path need the token; every answer carries the strict headers."""
    base = f"http://127.0.0.1:{served.port}"
    paths = ["/", "/static/overlay.js", "/static/overlay.css", "/theme.css", "/media/photo/0",
             "/nothing-here"]
    for path in paths:
        for query in ("", "?token=", "?token=wrong", f"?token={TOKEN[:-1]}"):
            assert asyncio.run(fetch(base + path + query)) == 403, (path, query)
    ws = f"ws://127.0.0.1:{served.port}/ws"
    assert asyncio.run(picture(ws)) == 403
    assert asyncio.run(picture(ws + "?token=" + TOKEN[::-1])) == 403
    assert isinstance(asyncio.run(picture(f"{ws}?token={TOKEN}")), dict)
    for path in paths[:4]:
        assert asyncio.run(fetch(f"{base}{path}?token={TOKEN}")) == 200, path
    # the page asks its files with the token it was opened with (its URL is OBS's)
    page, html = asyncio.run(answer(f"{base}/?token={TOKEN}"))
    assert f'src="/static/overlay.js?token={TOKEN}"' in html
    assert f'href="/theme.css?token={TOKEN}"' in html
    assert served.url(with_token=True) == f"{base}/?token={TOKEN}"
    for r in (page, asyncio.run(answer(base + "/"))[0]):
        assert r.headers["Content-Security-Policy"] == CSP
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["Referrer-Policy"] == "no-referrer"
        assert "Strict-Transport-Security" not in r.headers  # plain HTTP on loopback
        assert COOKIE not in r.cookies  # on loopback the token stays in the URL


def test_wrong_tokens_are_throttled_per_address_and_logged_once(broker: Mosquitto) -> None:
    now = [1000.0]
    server = overlay(broker, throttle=Throttle(clock=lambda: now[0]))
    thread = start_in_thread(server)
    try:
        base = f"http://127.0.0.1:{server.port}"
        guesses = [secrets.token_urlsafe(32) for _ in range(12)]
        with capture_logs() as logs:
            for guess in guesses[:5]:
                assert asyncio.run(fetch(f"{base}/?token={guess}")) == 403
            # locked out: the right token too, the page's files and its picture alike
            for guess in guesses[5:]:
                assert asyncio.run(fetch(f"{base}/?token={guess}")) == 429
            assert asyncio.run(fetch(f"{base}/?token={TOKEN}")) == 429
            assert asyncio.run(fetch(f"{base}/static/overlay.js?token={TOKEN}")) == 429
            assert asyncio.run(picture(f"ws://127.0.0.1:{server.port}/ws?token={TOKEN}")) == 429
            # another address (OBS on its own) is not refused for it
            assert asyncio.run(fetch(f"{base}/?token={TOKEN}", local="127.0.0.2")) == 200
            # requests without a token are no guesses: a file asked for without it locks
            # nothing out (the icon needs none: tests/integration/test_web_commands.py)
            now[0] += 31
            for _ in range(10):
                assert asyncio.run(fetch(f"{base}/static/overlay.css")) == 403
            assert asyncio.run(fetch(f"{base}/?token={TOKEN}")) == 200
            # guessing again: refused for twice as long
            for guess in guesses[:5]:
                assert asyncio.run(fetch(f"{base}/?token={guess}")) == 403
            assert asyncio.run(fetch(f"{base}/?token={TOKEN}")) == 429
            now[0] += 31
            assert asyncio.run(fetch(f"{base}/?token={TOKEN}")) == 429
            now[0] += 30
            assert asyncio.run(fetch(f"{base}/?token={TOKEN}")) == 200
        warnings = [e for e in logs if e["log_level"] == "warning"]
        assert [(e["remote"], e["seconds"]) for e in warnings] == [("127.0.0.1", 30.0),
                                                                 ("127.0.0.1", 60.0)]
        said = repr(logs)
        assert TOKEN not in said and not any(g in said for g in guesses)
    finally:
        stop_thread(*thread)


def test_beyond_this_machine_the_page_is_tls_only_and_trades_the_token_for_a_cookie(
        broker: Mosquitto, venue_certs: Path) -> None:
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(venue_certs / "server.crt", venue_certs / "server.key")
    server = overlay(broker, host="0.0.0.0", hostnames=("localhost",), tls=tls)
    thread = start_in_thread(server)
    trust = ssl.create_default_context(cafile=str(venue_certs / "ca.crt"))
    base = f"https://localhost:{server.port}"
    assert server.url(with_token=True) == f"{base}/?token={TOKEN}"

    async def browse() -> None:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=trust)) as s:
            async with s.get(f"{base}/?token={TOKEN}&background=felt") as r:
                # one exchange: a cookie, and the page at a URL without the token
                assert [h.status for h in r.history] == [303]
                assert str(r.url) == f"{base}/?background=felt"
                assert TOKEN not in str(r.url)
                assert r.status == 200 and 'src="/static/overlay.js"' in await r.text()
                assert r.headers["Strict-Transport-Security"].startswith("max-age=")
                assert r.headers["Content-Security-Policy"] == CSP
                cookie = r.history[0].cookies[COOKIE]
                assert cookie.value == TOKEN
                assert cookie["httponly"] and cookie["secure"] and cookie["path"] == "/"
                assert cookie["samesite"] == "Strict"
            # afterwards the cookie is the key: the page's files and its picture
            async with s.get(f"{base}/static/overlay.css") as r:
                assert r.status == 200
            async with s.ws_connect(f"wss://localhost:{server.port}/ws",
                                    headers={"Origin": base}) as ws:
                assert "seats" in json.loads((await ws.receive(timeout=5)).data)
            # another origin, with the cookie a browser would send along: refused
            with pytest.raises(aiohttp.WSServerHandshakeError) as err:
                await s.ws_connect(f"wss://localhost:{server.port}/ws",
                                   headers={"Origin": "https://evil.example"})
            assert err.value.status == 403
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=trust)) as s:
            for path in ("/", "/static/overlay.js", "/theme.css"):
                async with s.get(base + path) as r:  # no cookie, no token
                    assert r.status == 403
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await s.ws_connect(f"wss://localhost:{server.port}/ws")
            async with s.get(f"https://127.0.0.1:{server.port}/?token={TOKEN}") as r:
                assert r.status == 421  # not a name it is served by
        async with aiohttp.ClientSession() as s:  # plain HTTP gets no page
            with pytest.raises(aiohttp.ClientError):
                async with s.get(f"http://localhost:{server.port}/?token={TOKEN}") as r:
                    await r.read()

    try:
        asyncio.run(browse())
    finally:
        stop_thread(*thread)


def overlay_command(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablesvc.commands.cli", "overlay", "--config",
                           str(config)], capture_output=True, text=True, cwd=ROOT, timeout=60)


def table_config(tmp_path: Path, overlay: str = "") -> Path:
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nvenue = "demo"\nid = "t01"\n[storage]\n'
                      f'dir = "{tmp_path / "store"}"\n[overlay]\n{overlay}')
    return config


def test_a_bad_overlay_config_is_refused_with_every_problem_and_no_traceback(
        tmp_path: Path) -> None:
    config = table_config(tmp_path, 'host = "0.0.0.0"\ntheme = "missing.css"\nlayout = 7\n')
    done = overlay_command(config)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"{config}: overlay.layout:" in done.stderr
    # served beyond this machine: TLS, and the names it is reached by
    assert f"{config}: overlay.key_file: " in done.stderr and "cert_file" in done.stderr
    assert f"{config}: overlay.hostnames: " in done.stderr
    assert not (tmp_path / "store").exists()  # a refused config makes no token


def test_an_overlay_port_in_use_is_said_plainly(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = overlay_command(table_config(tmp_path, f"port = {port}\n"))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"cannot serve the overlay on 127.0.0.1:{port}" in done.stderr


def read_until(fd: int, want: str, timeout: float = 20.0) -> str:
    """What the child wrote to ``fd`` up to and including ``want``."""
    got, deadline = b"", time.monotonic() + timeout
    while want.encode() not in got:
        left = deadline - time.monotonic()
        assert left > 0, f"no {want!r} in {got!r}"
        if select.select([fd], [], [], left)[0]:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # a pty whose child is gone
                chunk = b""
            assert chunk, f"no {want!r} in {got!r}"
            got += chunk
    return got.decode()


def test_the_command_makes_its_token_once_and_shows_it_on_a_terminal_only(
        tmp_path: Path) -> None:
    config = table_config(tmp_path)
    command = [sys.executable, "-m", "tablesvc.commands.cli", "overlay", "--config",
               str(config), "--port", "0", "--log", "json"]
    token_file = tmp_path / "store" / "overlay.token"
    # first start, on a terminal: a new token, 0600, and the URL to give OBS with it
    main, side = pty.openpty()
    child = subprocess.Popen(command, stdout=side, stderr=subprocess.PIPE, cwd=ROOT)
    os.close(side)
    try:
        line = read_until(main, "Ctrl-C stops")
    finally:
        child.terminate()
        _, log = child.communicate(timeout=20)
        os.close(main)
    token = token_file.read_text().strip()
    assert (token_file.stat().st_mode & 0o777) == 0o600
    assert len(token) >= 43  # 32 random bytes, URL-safe: 256 bits
    assert "overlay of table demo/t01: http://127.0.0.1:" in line and f"/?token={token} " in line
    assert token not in log.decode() and str(token_file) in log.decode()
    # second start, output to a file (a service's journal): the same token, not shown
    made = token_file.stat().st_mtime_ns
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        assert child.stdout is not None
        line = read_until(child.stdout.fileno(), "Ctrl-C stops")
    finally:
        child.terminate()
        _, log = child.communicate(timeout=20)
    assert f"/?token=<the token in {token_file}>" in line and token not in line
    assert token not in log.decode()
    assert token_file.read_text().strip() == token and token_file.stat().st_mtime_ns == made


def controller(broker: Mosquitto, now: float) -> dict[str, Any]:
    """The controller's retained clock and field, as the real aggregate publishes them: four
    players, the clock in level 3 (300/600, big blind ante 75); Ann leads with 20,000."""
    t = Tournament("Sunday Deepstack", "demo", structure(), {"t01": 9, "t02": 9})
    for name in ("Ann", "Ben", "Cid", "Dee"):
        t.act({"action": "register", "name": name}, now)
    t.act({"action": "draw"}, now)
    t.act({"action": "start"}, now)
    t.act({"action": "advance", "levels": 2}, now)
    topics = published(t.view(now))
    c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    for name in ("clock", "field", "seating"):
        c.publish(f"tablesvc/v1/demo/.tournament/{name}", json.dumps(topics[name]), qos=1,
                  retain=True).wait_for_publish(5)
    c.loop_stop()
    c.disconnect()
    return topics


def test_the_tournaments_level_blinds_and_chip_leader_reach_the_picture_after_the_delay(
        broker: Mosquitto) -> None:
    delay = 1.5
    server = overlay(broker, delay_s=delay)
    thread = start_in_thread(server)
    try:
        wait_until(lambda: server.linked, 10, "the overlay to subscribe")
        assert json.loads(server.picture)["tournament"] is None
        sent = time.monotonic()
        controller(broker, time.time())
        shown: list[float] = []
        wait_until(lambda: json.loads(server.picture)["tournament"] is not None
                   and not shown.append(time.monotonic()), delay + 10, "the tournament strip")
        assert shown[0] - sent >= delay - 0.05  # held back like everything the overlay shows
        own = asyncio.run(picture(f"ws://127.0.0.1:{server.port}/ws?token={TOKEN}"))
        assert own["tournament"] == {
            "name": "Sunday Deepstack", "on_break": None, "players_left": 4,
            "level": {"number": 3, "small_blind": 300, "big_blind": 600, "ante": 75,
                      "ante_mode": "big_blind"},
            "next_level": {"number": 4, "small_blind": 400, "big_blind": 800, "ante": 100,
                           "ante_mode": "each"},
            "leader": {"name": "Ann", "stack": 20000}}
    finally:
        stop_thread(*thread)
