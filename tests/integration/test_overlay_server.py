"""The overlay server gives its picture (hole cards included) to its own page only.

The server runs as in the demo, on its own event loop, subscribed to a real mosquitto; the
requests come from a real HTTP client over loopback, with the headers a browser would send
from another web site, or from a page reached through a rebound DNS name. The tournament
controller's clock and field reach the picture, behind the broadcast delay like the rest.
"""

from __future__ import annotations

import asyncio
import json
import socket
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

from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.config.table import validate_config
from tablesvc.overlay.server import OverlayServer, OverlaySettings, start_in_thread, stop_thread
from tablesvc.tournament.engine import published
from tablesvc.tournament.tournament import Tournament
from tests.conftest import ROOT
from tests.tournament_pages import structure

pytestmark = pytest.mark.integration
PREFIX = "tablesvc/v1/demo/t01"


def overlay(broker: Mosquitto, token: str | None = None, delay_s: float = 0.0) -> OverlayServer:
    cfg = validate_config({"table": {"venue": "demo", "id": "t01"},
                           "mqtt": {"port": broker.port}}, Path("table.toml"))
    settings = OverlaySettings("127.0.0.1", 0, delay_s, 10, token, None, None)
    return OverlayServer(cfg, settings)


@pytest.fixture
def served(broker: Mosquitto, request: pytest.FixtureRequest) -> Iterator[OverlayServer]:
    server = overlay(broker, getattr(request, "param", None))
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


async def fetch(url: str, headers: dict[str, str] | None = None) -> int:
    async with aiohttp.ClientSession() as s, s.get(url, headers=headers or {}) as r:
        return r.status


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
    ws = f"ws://127.0.0.1:{served.port}/ws"
    wait_until(lambda: '"As"' in served.picture, 10, "the hole cards in the picture")
    own = asyncio.run(picture(ws, {"Origin": base}))
    assert {s["seat"]: s["cards"] for s in own["seats"]}[2] == ["As", "Kd"]
    # a web site open in a browser on this machine tries to read it: refused
    assert asyncio.run(picture(ws, {"Origin": "https://evil.example"})) == 403
    # a site whose name was rebound to 127.0.0.1: its Host gives it away
    assert asyncio.run(fetch(base + "/", {"Host": f"evil.example:{served.port}"})) == 421
    assert asyncio.run(picture(ws, {"Host": f"evil.example:{served.port}",
                                    "Origin": f"http://evil.example:{served.port}"})) == 421
    assert asyncio.run(fetch(base + "/")) == 200
    assert asyncio.run(fetch(f"http://localhost:{served.port}/static/overlay.js")) == 200


@pytest.mark.parametrize("served", ["t0ken-9f2"], indirect=True)
def test_with_a_token_the_page_and_its_picture_need_it(served: OverlayServer) -> None:
    base = f"http://127.0.0.1:{served.port}"
    assert asyncio.run(fetch(base + "/")) == 403
    assert asyncio.run(fetch(base + "/?token=wrong")) == 403
    assert asyncio.run(fetch(base + "/?token=t0ken-9f2")) == 200
    ws = f"ws://127.0.0.1:{served.port}/ws"
    assert asyncio.run(picture(ws)) == 403
    assert isinstance(asyncio.run(picture(ws + "?token=t0ken-9f2")), dict)
    assert served.url(with_token=True).endswith("/?token=t0ken-9f2")


def overlay_command(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablesvc.commands.cli", "overlay", "--config",
                           str(config)], capture_output=True, text=True, cwd=ROOT, timeout=60)


def test_a_bad_overlay_config_is_refused_with_every_problem_and_no_traceback(
        tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nvenue = "demo"\nid = "t01"\n[overlay]\nhost = "0.0.0.0"\n'
                      'theme = "missing.css"\nlayout = 7\n')
    done = overlay_command(config)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"{config}: overlay.layout:" in done.stderr
    assert f"{config}: overlay.token_file:" in done.stderr


def test_an_overlay_port_in_use_is_said_plainly(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        config = tmp_path / "table.toml"
        config.write_text(f'[table]\nvenue = "demo"\nid = "t01"\n[overlay]\nport = {port}\n')
        done = overlay_command(config)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"cannot serve the overlay on 127.0.0.1:{port}" in done.stderr


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
        own = asyncio.run(picture(f"ws://127.0.0.1:{server.port}/ws"))
        assert own["tournament"] == {
            "name": "Sunday Deepstack", "on_break": None, "players_left": 4,
            "level": {"number": 3, "small_blind": 300, "big_blind": 600, "ante": 75,
                      "ante_mode": "big_blind"},
            "next_level": {"number": 4, "small_blind": 400, "big_blind": 800, "ante": 100,
                           "ante_mode": "each"},
            "leader": {"name": "Ann", "stack": 20000}}
    finally:
        stop_thread(*thread)
