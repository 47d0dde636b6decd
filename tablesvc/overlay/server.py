"""``tablesvc overlay``: the broadcast page of one table, served to an OBS browser source.

One aiohttp application (HTTP and WebSocket in one library, no separate server process). It
subscribes to the table with the broadcast role's user (``tablesvc.overlay.feed``), holds every
message back by ``[broadcast] delay_s`` (``tablesvc.overlay.delay``), applies it to the
delayed picture of the table (``tablesvc.overlay.model``) when it is due, and pushes the new
picture to the page over a WebSocket. The page gets pictures, never messages, and only after
the delay: a hole card cannot reach the browser before its time. A page opened (or reconnected)
at any moment gets the current picture at once.

Who may see it: the picture carries hole cards. By default the server listens on 127.0.0.1,
so only this machine can reach it; it then also refuses requests whose Host is not a loopback
name (a web page's DNS rebinding) and WebSocket connections opened by a page of another
origin (any web site open in a browser on this machine could otherwise connect). Served on
any other address it requires the token of ``[overlay] token_file`` in the page's URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import structlog
from aiohttp import WSMsgType, web

from tablesvc.config.table import Config, ConfigError, is_loopback, resolve
from tablesvc.overlay.delay import DelayLine
from tablesvc.overlay.feed import TableFeed
from tablesvc.overlay.model import TableView

log = structlog.get_logger("tablesvc.overlay")

STATIC = resources.files("tablesvc.overlay") / "static"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
LAYOUTS: tuple[int, ...] = (6, 9, 10)


@dataclass
class OverlaySettings:
    """The overlay's part of the config with its files read: a problem is found at start."""

    host: str
    port: int
    delay_s: float
    layout: int
    token: str | None
    password: str | None
    theme: Path | None
    photos: dict[str, Path] = field(default_factory=dict)
    flags: dict[str, Path] = field(default_factory=dict)

    @classmethod
    def load(cls, cfg: Config, cfg_path: Path, host: str | None = None,
             port: int | None = None) -> OverlaySettings:
        o = cfg.overlay
        problems: list[str] = []

        def read(key: str, value: str) -> str | None:
            if not value:
                return None
            try:
                text = resolve(cfg_path, value).read_text(encoding="utf-8").strip()
            except OSError as exc:
                problems.append(f"overlay.{key}: cannot read {value}: {exc.strerror}")
                return None
            if not text:
                problems.append(f"overlay.{key}: {value} is empty")
            return text or None

        def file(key: str, value: str) -> Path | None:
            path = resolve(cfg_path, value)
            if not path.is_file():
                problems.append(f"overlay.{key}: no such file {value}")
                return None
            return path

        token = read("token_file", o.token_file)
        password = read("password_file", o.password_file)
        theme = file("theme", o.theme) if o.theme else None
        photos = {n: p for n, v in o.photos.items() if (p := file(f"photos.{n}", v))}
        flags = {n: p for n, v in o.flags.items() if (p := file(f"flags.{n}", v))}
        host = host or o.host
        if not is_loopback(host) and token is None and not o.token_file:
            problems.append(f"overlay.host: served on {host} the page needs a token_file")
        if problems:
            raise ConfigError(cfg_path, problems)
        layout: int = o.layout or next(n for n in LAYOUTS if n >= cfg.table.seats)
        return cls(host, port if port is not None else o.port, cfg.broadcast.delay_s, layout,
                   token, password, theme, photos, flags)


class OverlayServer:
    """The delayed picture of one table and the pages that show it."""

    def __init__(self, cfg: Config, settings: OverlaySettings) -> None:
        self.cfg = cfg
        self.s = settings
        self.model = TableView(table=f"{cfg.table.venue}/{cfg.table.id}")
        self.delay: DelayLine[tuple[str, Any]] = DelayLine(settings.delay_s)
        self.sockets: set[web.WebSocketResponse] = set()
        self.linked = False
        self.picture = ""
        self.port = settings.port
        self._media = {("photo", str(i)): p for i, p in enumerate(settings.photos.values())}
        self._media.update({("flag", str(i)): p for i, p in enumerate(settings.flags.values())})
        self._photo_of = {n: f"/media/photo/{i}" for i, n in enumerate(settings.photos)}
        self._flag_of = {n: f"/media/flag/{i}" for i, n in enumerate(settings.flags)}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._runner: web.AppRunner | None = None
        self._pump_task: asyncio.Task[None] | None = None
        self.feed = TableFeed(cfg, settings.password, self._from_feed, self._link)
        self.picture = self._render()

    # ------------------------------------------------------------------ life
    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard])
        app.router.add_get("/", self._page)
        app.router.add_get("/ws", self._socket)
        app.router.add_get("/theme.css", self._theme)
        app.router.add_get("/media/{kind}/{n}", self._file)
        app.router.add_get("/static/{name}", self._static)
        return app

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._runner = web.AppRunner(self.app(), access_log=None)
        await self._runner.setup()
        family = socket.AF_INET6 if ":" in self.s.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.s.host, self.s.port))
        except OSError:
            sock.close()
            await self._runner.cleanup()
            raise
        self.port = int(sock.getsockname()[1])  # port 0 (tests): the one the system gave
        await web.SockSite(self._runner, sock).start()
        self._pump_task = asyncio.create_task(self._pump())
        self.feed.start()
        log.info("overlay serving", url=self.url(), delay_s=self.s.delay_s)

    async def stop(self) -> None:
        self.feed.stop()
        if self._pump_task is not None:
            self._pump_task.cancel()
        for ws in list(self.sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def url(self, with_token: bool = False) -> str:
        host = f"[{self.s.host}]" if ":" in self.s.host else self.s.host
        query = f"?token={self.s.token}" if with_token and self.s.token else ""
        return f"http://{host}:{self.port}/{query}"

    # ------------------------------------------------------------------ the feed (paho's thread)
    def _from_feed(self, topic: str, payload: Any, arrived: float) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._arrived, topic, payload, arrived)

    def _link(self, up: bool) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._linked, up)

    def _arrived(self, topic: str, payload: Any, arrived: float) -> None:
        self.delay.push((topic, payload), arrived)
        if self._wake is not None:
            self._wake.set()

    def _linked(self, up: bool) -> None:
        self.linked = up
        if self._wake is not None:
            self._wake.set()

    async def _pump(self) -> None:
        """Apply each message when its delay is over, and show the new picture."""
        assert self._wake is not None
        while True:
            due = self.delay.next_due()
            timeout = None if due is None else max(0.0, due - time.monotonic())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)
            self._wake.clear()
            for topic, payload in self.delay.due(time.monotonic()):
                try:
                    self.model.apply(topic, payload)
                except (KeyError, TypeError, ValueError) as exc:  # a message of another shape
                    log.warning("message not understood", topic=topic, error=str(exc))
            picture = self._render()
            if picture != self.picture:
                self.picture = picture
                await self._send_all(picture)

    def _render(self) -> str:
        view = self.model.view()
        view["layout"] = self.s.layout
        view["linked"] = self.linked
        view["delay_s"] = self.s.delay_s
        for seat in view["seats"]:
            seat["photo"] = self._photo_of.get(seat["name"])
            seat["flag"] = self._flag_of.get(seat["name"])
        return json.dumps(view, separators=(",", ":"))

    async def _send_all(self, picture: str) -> None:
        for ws in list(self.sockets):
            try:
                await ws.send_str(picture)
            except (ConnectionError, RuntimeError):
                self.sockets.discard(ws)

    # ------------------------------------------------------------------ who may ask
    def _token_ok(self, request: web.Request) -> bool:
        if self.s.token is None:
            return True
        given = request.query.get("token", "")
        return hmac.compare_digest(given.encode(), self.s.token.encode())

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if self.s.token is None and (request.url.host or "").strip("[]") not in (
                LOOPBACK_NAMES | {self.s.host}):
            return web.Response(status=421, text="this overlay answers to its own address only")
        response: web.StreamResponse = await handler(request)
        return response

    # ------------------------------------------------------------------ routes
    async def _page(self, request: web.Request) -> web.StreamResponse:
        if not self._token_ok(request):
            return web.Response(status=403, text="this page needs the overlay's token")
        return web.Response(text=(STATIC / "overlay.html").read_text(encoding="utf-8"),
                            content_type="text/html", headers={"Cache-Control": "no-store"})

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        types = {"overlay.js": "application/javascript", "overlay.css": "text/css"}
        if name not in types:
            raise web.HTTPNotFound()
        return web.Response(text=(STATIC / name).read_text(encoding="utf-8"),
                            content_type=types[name], headers={"Cache-Control": "no-store"})

    async def _theme(self, request: web.Request) -> web.StreamResponse:
        text = self.s.theme.read_text(encoding="utf-8") if self.s.theme else ""
        return web.Response(text=text, content_type="text/css",
                            headers={"Cache-Control": "no-store"})

    async def _file(self, request: web.Request) -> web.StreamResponse:
        path = self._media.get((request.match_info["kind"], request.match_info["n"]))
        if path is None:
            raise web.HTTPNotFound()
        return web.FileResponse(path)

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        if not self._token_ok(request):
            return web.Response(status=403, text="this page needs the overlay's token")
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{request.host}":
            return web.Response(status=403, text="the overlay's picture is for its own page")
        ws = web.WebSocketResponse(heartbeat=15)
        await ws.prepare(request)
        self.sockets.add(ws)
        try:
            await ws.send_str(self.picture)  # the current picture at once
            async for msg in ws:
                if msg.type == WSMsgType.ERROR:
                    break
        finally:
            self.sockets.discard(ws)
        return ws


def start_in_thread(server: OverlayServer) -> tuple[threading.Thread, asyncio.AbstractEventLoop]:
    """Run the server on its own event loop in a thread (the demo). Returns once it serves."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    failed: list[BaseException] = []

    def main() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(server.start())
        except BaseException as exc:  # reported to the caller
            failed.append(exc)
            ready.set()
            return
        ready.set()
        loop.run_forever()
        loop.run_until_complete(server.stop())
        loop.close()

    thread = threading.Thread(target=main, name="overlay", daemon=True)
    thread.start()
    ready.wait(20)
    if failed:
        raise failed[0]
    return thread, loop


def stop_thread(thread: threading.Thread, loop: asyncio.AbstractEventLoop) -> None:
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
