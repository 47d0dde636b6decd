"""Another web page cannot drive the floor console or the tournament controller's pages, and
logins are throttled (issue 30): on real ports, the floor console as its own process (with a
broker and a real alert) or its web side in this process with a clock of the test's, the
controller's pages driven by the real engine (``tests.tournament_pages``).

- A host name that is not the console's (DNS rebinding: another site's name resolving to the
  console's address) gets 421 for a page, an API call, a POST with the console's header and a
  WebSocket, and is logged once; the console's address, ``localhost`` and the listed
  ``[web] hostnames`` are answered.
- A request from another site's page (its ``Origin``, ``null`` included) is refused: no
  WebSocket snapshot, no acknowledgement, no login; the console's own page is served.
- Five failed logins lock the name and the address out: even the right password gets 429 and a
  time to retry, one warning in the log, until the back-off has passed on the logins' clock.
- Logins beyond those being checked at once are answered 429 at once; an unknown name costs
  the same scrypt work as a known one; over TLS every answer carries HSTS.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import ssl
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from structlog.testing import capture_logs

from bench.venue import FloorProcess
from tablesvc.brokers.mosquitto import Mosquitto, free_port, wait_until
from tablesvc.floor.auth import set_user
from tablesvc.floor.config import validate_floor_config
from tablesvc.floor.db import open_sqlite
from tablesvc.floor.intake import Intake
from tablesvc.floor.web import FloorApp
from tablesvc.web.guard import HSTS
from tablesvc.web.logins import AT_ONCE, FAILURES, FIRST_LOCKOUT_S
from tests.integration.test_floor_console import CONTROLLER, controller_topics, publish
from tests.tournament_pages import served

pytestmark = pytest.mark.integration

VENUE = "hall"
REBOUND = "rebind.attacker.example"
EVIL = "http://evil.example"
ROOT = Path(__file__).resolve().parents[2]


class Clock:
    """The logins' clock: moves when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def call(method: str, url: str, *, host: str | None = None, origin: str | None = None,
               headers: dict[str, str] | None = None, form: dict[str, str] | None = None,
               body: Any = None, ssl_ctx: ssl.SSLContext | None = None
               ) -> tuple[int, dict[str, str], str]:
    """Status, headers and text of one request, redirects not followed; ``host`` and ``origin``
    as a browser would send them."""
    h = dict(headers or {})
    if host is not None:
        h["Host"] = host
    if origin is not None:
        h["Origin"] = origin
    async with aiohttp.ClientSession() as s, s.request(
            method, url, headers=h, data=form, json=body, allow_redirects=False,
            ssl=ssl_ctx if ssl_ctx is not None else True) as r:
        return r.status, dict(r.headers), await r.text()


def http(method: str, url: str, **kwargs: Any) -> tuple[int, dict[str, str], str]:
    return asyncio.run(call(method, url, **kwargs))


async def first_message(url: str, *, host: str | None = None, origin: str | None = None
                        ) -> dict[str, Any] | int:
    """The first message a WebSocket gets, or the status its handshake was refused with."""
    h = {"Host": host} if host is not None else {}
    try:
        async with aiohttp.ClientSession() as s, s.ws_connect(url, headers=h,
                                                              origin=origin) as ws:
            got: dict[str, Any] = json.loads((await ws.receive(timeout=10)).data)
            return got
    except aiohttp.WSServerHandshakeError as err:
        return err.status


def ws_first(url: str, **kwargs: Any) -> dict[str, Any] | int:
    return asyncio.run(first_message(url, **kwargs))


def log_events(path: Path, event: str) -> list[dict[str, Any]]:
    """The console's JSON log lines of one event."""
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.startswith("{")]
    return [x for x in lines if x.get("event") == event]


# ---------------------------------------------------------------------- the floor, a process
@pytest.fixture
def console(tmp_path: Path, broker: Mosquitto) -> Iterator[FloorProcess]:
    f = FloorProcess(tmp_path / "floor", VENUE, broker.port)
    f.config.write_text(f.config.read_text().replace(
        "[web]\n", '[web]\nhostnames = ["floor.venue.lan"]\n'))
    f.start()
    yield f
    assert f.stop() == 0, f.log.read_text()


def open_alert(url: str) -> dict[str, Any]:
    status, _, text = http("GET", url + "api/search?table=.tournament")
    assert status == 200
    alerts = json.loads(text)["alerts"]
    assert len(alerts) == 1
    got: dict[str, Any] = alerts[0]
    return got


def test_a_rebound_host_name_gets_no_page_no_api_no_websocket_and_acknowledges_no_alert(
        broker: Mosquitto, console: FloorProcess) -> None:
    url = console.url
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    wait_until(lambda: bool(json.loads(http("GET", url + "healthz")[2])["mqtt"]), 10,
               "the console subscribed")
    publish(broker.port, [(f"{CONTROLLER}/alerts", controller_topics(time.time())["alerts"],
                           False)])
    wait_until(lambda: bool(json.loads(http("GET", url + "api/snapshot")[2])["groups"]), 10,
               "the alert")
    alert = open_alert(url)
    rebound = f"{REBOUND}:{port}"
    ack = {"table": ".tournament", "seq": alert["seq"], "by": "attacker"}

    assert http("GET", url, host=rebound)[0] == 421
    assert http("GET", url + "api/snapshot", host=rebound)[0] == 421
    status, headers, _ = http("POST", url + "api/ack", host=rebound, body=ack,
                              headers={"X-Floor": "1"})
    assert status == 421 and headers["X-Frame-Options"] == "DENY"
    assert ws_first(url.replace("http", "ws", 1) + "ws", host=rebound) == 421
    assert open_alert(url)["acked_by"] in ("", None)
    # the console's own names: its address, localhost (it is served on loopback), the
    # listed name with the port or none (a TLS proxy on 443)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"floor.venue.lan:{port}",
                 "floor.venue.lan"):
        assert http("GET", url + "api/snapshot", host=host)[0] == 200, host
    for host in (f"127.0.0.1:{port + 1}", f"floor.venue.lan:{port + 1}", "127.0.0.1",
                 f"[::1]x:{port}"):
        assert http("GET", url + "api/snapshot", host=host)[0] == 421, host
    status, _, text = http("POST", url + "api/ack", host=f"localhost:{port}",
                           body=ack | {"by": "Sam"}, headers={"X-Floor": "1"})
    assert status == 200 and json.loads(text)["alert"]["acked_by"] == "Sam"
    # each refused name is logged once
    refused = log_events(console.log, "request for another host name refused")
    assert [x["host"] for x in refused].count(rebound) == 1


def test_a_websocket_from_another_sites_page_is_refused_and_the_consoles_own_page_gets_the_snapshot(
        console: FloorProcess) -> None:
    url = console.url.rstrip("/")
    ws = url.replace("http", "ws", 1) + "/ws"
    assert ws_first(ws, origin=EVIL) == 403
    assert ws_first(ws, origin="null") == 403
    assert ws_first(ws, origin=url.replace("127.0.0.1", "127.0.0.1.nip.io")) == 403
    port = int(url.rsplit(":", 1)[1])
    assert ws_first(ws, origin=f"http://127.0.0.1:{port + 1}") == 403  # another local server
    own = ws_first(ws, origin=url)
    assert isinstance(own, dict) and own["kind"] == "snapshot"
    listed = ws_first(ws, host="floor.venue.lan", origin="https://floor.venue.lan")
    assert isinstance(listed, dict) and listed["kind"] == "snapshot"
    script = ws_first(ws)  # no Origin: no browser page (a script, a test)
    assert isinstance(script, dict) and script["kind"] == "snapshot"
    assert len(log_events(console.log, "request from another site's page refused")) == 4


def test_a_post_from_another_sites_page_is_refused_even_with_the_consoles_header(
        tmp_path: Path, broker: Mosquitto) -> None:
    floor = FloorProcess(tmp_path / "floor", VENUE, broker.port)
    set_user(floor.folder / "users", "sam", "pit boss 7")
    floor.config.write_text(floor.config.read_text().replace(
        "[web]\n", '[web]\nusers_file = "users"\n'))
    try:
        floor.start()
        url = floor.url.rstrip("/")
        login = {"user": "sam", "password": "pit boss 7"}
        for origin in (EVIL, "null"):
            status, headers, _ = http("POST", url + "/login", form=login, origin=origin)
            assert status == 403 and "Set-Cookie" not in headers, origin
        status, headers, _ = http("POST", url + "/login", form=login, origin=url)
        assert status == 302 and headers["Location"] == "/"
        cookie = headers["Set-Cookie"].split(";", 1)[0]
        status, _, _ = http("POST", url + "/api/ack", origin=EVIL,
                            body={"table": "t01", "seq": 1, "by": "x"},
                            headers={"X-Floor": "1", "Cookie": cookie})
        assert status == 403
        status, _, _ = http("POST", url + "/logout", origin=EVIL,
                            headers={"X-Floor": "1", "Cookie": cookie})
        assert status == 403
        assert http("GET", url + "/api/me", headers={"Cookie": cookie})[0] == 200
    finally:
        floor.stop()


def make_certs(folder: Path) -> Path:
    subprocess.run(["sh", str(ROOT / "deploy" / "make-certs.sh"), str(folder), "localhost",
                    "127.0.0.1"], check=True, capture_output=True, timeout=60)
    return folder


def test_over_tls_every_answer_carries_hsts_and_over_plain_http_none(
        tmp_path: Path, broker: Mosquitto) -> None:
    certs = make_certs(tmp_path / "certs")
    floor = FloorProcess(tmp_path / "floor", VENUE, broker.port)
    floor.config.write_text(floor.config.read_text().replace(
        "[web]\n", f'[web]\ncert_file = "{certs / "server.crt"}"\n'
                   f'key_file = "{certs / "server.key"}"\n'))
    trust = ssl.create_default_context(cafile=str(certs / "ca.crt"))
    try:
        url = floor.start()
        assert url.startswith("https://127.0.0.1:")
        for path, status in (("", 200), ("api/snapshot", 200), ("healthz", 200),
                             ("api/ack", 403)):
            got, headers, _ = http("POST" if path == "api/ack" else "GET", url + path,
                                   ssl_ctx=trust)
            assert got == status, path
            assert headers["Strict-Transport-Security"] == HSTS, path
            assert headers["X-Content-Type-Options"] == "nosniff", path
        got, headers, _ = http("GET", url, host=REBOUND, ssl_ctx=trust)
        assert got == 421 and headers["Strict-Transport-Security"] == HSTS
    finally:
        floor.stop()
    # the controller's pages over TLS too; over plain HTTP none
    with served(tmp_path / "plain", tables={"t01": 6}) as s:
        assert "Strict-Transport-Security" not in http("GET", s.url + "/")[1]
    with served(tmp_path / "tls", tables={"t01": 6},
                tls=(certs / "server.crt", certs / "server.key")) as s:
        assert s.url.startswith("https://")
        for path, want in (("/", 200), ("/clock", 200), ("/api/view", 200), ("/login", 302)):
            status, headers, _ = http("GET", s.url + path, ssl_ctx=trust)
            assert status == want and headers["Strict-Transport-Security"] == HSTS, path


# ---------------------------------------------------------------------- the floor, in here
@asynccontextmanager
async def floor_pages(tmp: Path, *, users: dict[str, str], clock: Callable[[], float],
                      web_cfg: dict[str, Any] | None = None) -> AsyncIterator[str]:
    """The floor console's web side on a free loopback port of this loop (its intake not
    started: no broker needed); its URL."""
    for name, password in users.items():
        set_user(tmp / "users", name, password)
    cfg_path = tmp / "floor.toml"
    cfg = validate_floor_config({"floor": {"venue": VENUE},
                                 "web": {"users_file": "users", **(web_cfg or {})}}, cfg_path)
    writer, reader = open_sqlite(tmp / "floor.sqlite"), open_sqlite(tmp / "floor.sqlite")
    floor = FloorApp(cfg, cfg_path, Intake(cfg, cfg_path, writer, lambda *a: None), reader,
                     clock=clock)
    runner = web.AppRunner(floor.app(), access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()
        floor.pool.shutdown()
        floor.logins.close()
        writer.close()
        reader.close()


def locked_out(logs: list[MutableMapping[str, Any]]) -> list[MutableMapping[str, Any]]:
    return [x for x in logs if x["event"] == "logins locked out"]


def test_five_failed_logins_lock_out_even_the_right_password_once_in_the_log_until_the_back_off_passed(  # noqa: E501
        tmp_path: Path) -> None:
    clock = Clock()

    async def run() -> None:
        async with floor_pages(tmp_path, users={"sam": "pit boss 7", "kim": "dealer 3"},
                               clock=clock) as url:
            with capture_logs() as logs:
                for _ in range(FAILURES):
                    status, headers, _ = await call("POST", url + "/login",
                                                    form={"user": "sam", "password": "guess"})
                    assert status == 302 and headers["Location"] == "/login?failed=1"
                for user, password in (("sam", "pit boss 7"), ("sam", "guess"),
                                       ("kim", "dealer 3")):  # the address is locked too
                    status, headers, text = await call(
                        "POST", url + "/login", form={"user": user, "password": password})
                    assert status == 429 and "Set-Cookie" not in headers, user
                    assert headers["Retry-After"] == str(int(FIRST_LOCKOUT_S))
                    assert f"try again in {int(FIRST_LOCKOUT_S)} s" in text
                clock.now += FIRST_LOCKOUT_S - 1
                status, headers, _ = await call("POST", url + "/login",
                                                form={"user": "sam", "password": "pit boss 7"})
                assert status == 429 and headers["Retry-After"] == "1"
            lines = locked_out(logs)
            assert len(lines) == 1, logs
            assert lines[0]["user"] == "sam" and lines[0]["remote"] == "127.0.0.1"
            assert sorted(lines[0]["locked"]) == ["address", "user"]
            assert lines[0]["log_level"] == "warning"
            assert "pit boss 7" not in repr(logs) and "guess" not in repr(logs)

            clock.now += 1
            status, headers, _ = await call("POST", url + "/login",
                                            form={"user": "sam", "password": "pit boss 7"})
            assert status == 302 and headers["Location"] == "/"
            assert headers["Set-Cookie"].startswith("floor_session=")

    asyncio.run(run())


def test_a_lockout_holds_the_name_from_every_address_and_the_address_for_every_name(
        tmp_path: Path) -> None:
    """Behind a TLS proxy on this machine the address is the one the proxy forwarded."""
    clock = Clock()

    async def login(url: str, user: str, password: str, address: str) -> str:
        """Where the login sends the browser (the console, or back to the form), or 429."""
        status, headers, _ = await call("POST", url + "/login",
                                        form={"user": user, "password": password},
                                        headers={"X-Forwarded-For": f"10.9.9.9, {address}"})
        return "429" if status == 429 else headers["Location"]

    async def run() -> None:
        async with floor_pages(tmp_path, users={"sam": "pit boss 7", "kim": "dealer 3"},
                               clock=clock, web_cfg={"behind_tls_proxy": True}) as url:
            failed, console = "/login?failed=1", "/"
            for n in range(FAILURES):  # one name from five addresses
                assert await login(url, "sam", "guess", f"10.0.0.{n + 1}") == failed
            assert await login(url, "sam", "pit boss 7", "10.0.0.99") == "429"
            assert await login(url, "kim", "dealer 3", "10.0.0.99") == console
            for n in range(FAILURES):  # five names from one address
                assert await login(url, f"user{n}", "guess", "10.0.1.1") == failed
            assert await login(url, "kim", "dealer 3", "10.0.1.1") == "429"
            assert await login(url, "kim", "dealer 3", "10.0.1.2") == console
            # the name's second lockout lasts twice as long
            clock.now += FIRST_LOCKOUT_S
            for n in range(FAILURES):
                assert await login(url, "sam", "guess", f"10.0.2.{n + 1}") == failed
            _, headers, _ = await call("POST", url + "/login",
                                       form={"user": "sam", "password": "pit boss 7"},
                                       headers={"X-Forwarded-For": "10.0.3.1"})
            assert headers["Retry-After"] == str(int(2 * FIRST_LOCKOUT_S))

    asyncio.run(run())


class Scrypt:
    """hashlib.scrypt counted, and held until released when ``hold`` is set."""

    def __init__(self, real: Callable[..., bytes], hold: bool = False) -> None:
        self.real = real
        self.calls = 0
        self.release = threading.Event()
        if not hold:
            self.release.set()
        self.lock = threading.Lock()

    def __call__(self, *args: Any, **kwargs: Any) -> bytes:
        with self.lock:
            self.calls += 1
        assert self.release.wait(60), "never released"
        return self.real(*args, **kwargs)


def test_an_unknown_name_costs_the_same_scrypt_work_as_a_known_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def run() -> None:
        async with floor_pages(tmp_path, users={"sam": "pit boss 7"}, clock=Clock()) as url:
            answers = {}
            calls = {}
            for user in ("sam", "nobody"):
                counted = Scrypt(hashlib.scrypt)
                monkeypatch.setattr(hashlib, "scrypt", counted)
                status, headers, _ = await call("POST", url + "/login",
                                                form={"user": user, "password": "guess"})
                monkeypatch.undo()
                answers[user] = (status, headers["Location"])
                calls[user] = counted.calls
            assert answers["sam"] == answers["nobody"] == (302, "/login?failed=1")
            assert calls["sam"] == calls["nobody"] == 1

    asyncio.run(run())


def test_logins_beyond_those_being_checked_at_once_are_answered_429_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def run() -> None:
        async with floor_pages(tmp_path, users={"sam": "pit boss 7"}, clock=Clock()) as url:
            held = Scrypt(hashlib.scrypt, hold=True)
            monkeypatch.setattr(hashlib, "scrypt", held)
            try:
                checking = [asyncio.ensure_future(call(
                    "POST", url + "/login", form={"user": "sam", "password": f"guess {n}"}))
                    for n in range(AT_ONCE)]
                deadline = time.monotonic() + 20
                while held.calls < AT_ONCE:
                    assert time.monotonic() < deadline, f"{held.calls} checks began"
                    await asyncio.sleep(0.01)
                answers = await asyncio.gather(*(call(
                    "POST", url + "/login", form={"user": "sam", "password": "pit boss 7"})
                    for _ in range(3)))
                assert [a[0] for a in answers] == [429] * 3
                assert all(a[1]["Retry-After"] == "1" and "at once" in a[2] for a in answers)
                assert held.calls == AT_ONCE
            finally:
                held.release.set()
            assert [r[0] for r in await asyncio.gather(*checking)] == [302] * AT_ONCE
            monkeypatch.undo()
            status, _, _ = await call("POST", url + "/login",
                                      form={"user": "sam", "password": "pit boss 7"})
            assert status == 302

    asyncio.run(run())


# ---------------------------------------------------------------------- the controller's pages
def test_the_tournament_pages_refuse_a_rebound_host_and_another_sites_page(
        tmp_path: Path) -> None:
    with served(tmp_path, tables={"t01": 6}) as s:
        port = s.cfg.web.port
        rebound = f"{REBOUND}:{port}"
        ws = f"ws://127.0.0.1:{port}/ws"
        start = {"action": "start"}
        for path in ("/", "/clock", "/api/view"):
            assert http("GET", s.url + path, host=rebound)[0] == 421, path
        assert http("POST", s.url + "/api/action", host=rebound, body=start,
                    headers={"X-Tournament": "1"})[0] == 421
        assert ws_first(ws, host=rebound) == 421
        assert ws_first(ws, origin=EVIL) == 403
        assert http("POST", s.url + "/api/action", origin=EVIL, body=start,
                    headers={"X-Tournament": "1"})[0] == 403
        assert s.call(s.engine.view)["clock"]["started"] is False
        own = ws_first(ws, origin=s.url)
        assert isinstance(own, dict) and own["kind"] == "view"
        status, _, text = http("POST", s.url + "/api/action", origin=s.url, body=start,
                               headers={"X-Tournament": "1"})
        assert status == 200 and json.loads(text)["ok"]


def test_the_tournament_logins_are_throttled_too(tmp_path: Path) -> None:
    clock = Clock()
    with served(tmp_path, tables={"t01": 6}, users={"td": "right horse"}, clock=clock) as s:
        with capture_logs() as logs:
            for _ in range(FAILURES):
                status, headers, _ = http("POST", s.url + "/login", form={
                    "user": "td", "password": "wrong", "next": "/clock"})
                assert status == 302 and headers["Location"] == "/login?failed=1&next=/clock"
            status, headers, _ = http("POST", s.url + "/login", form={
                "user": "td", "password": "right horse", "next": "/clock"})
            assert status == 429 and "Set-Cookie" not in headers
        assert len(locked_out(logs)) == 1
        clock.now += FIRST_LOCKOUT_S
        status, headers, _ = http("POST", s.url + "/login", form={
            "user": "td", "password": "right horse", "next": "/clock"})
        assert status == 302 and headers["Location"] == "/clock"
