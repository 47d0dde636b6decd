"""``tablesvc overlay``: the broadcast page of one table, served to an OBS browser source.

One aiohttp application (HTTP and WebSocket in one library, no separate server process). It
subscribes to the table with the broadcast role's user (``tablesvc.overlay.feed``), holds every
message back by ``[broadcast] delay_s`` (``tablesvc.overlay.delay``), applies it to the
delayed picture of the table (``tablesvc.overlay.model``) when it is due, and pushes the new
picture to the page over a WebSocket. The page gets pictures, never messages, and only after
the delay: a hole card cannot reach the browser before its time. A page opened (or reconnected)
at any moment gets the current picture at once.

Who may see it: the picture carries hole cards, and any account on this machine can reach
127.0.0.1. Every request (the page, its files, the WebSocket) must carry the overlay's token
(``tablesvc.overlay.access``; the icon aside, the same for every install:
``tablesvc.web.favicon``): in the URL when the page is served on a loopback address (the OBS
browser source's URL); beyond this machine the page is served over TLS only, and a URL
with the token is exchanged once for a cookie, so that the token does not stay in the address
bar or the history. Wrong tokens are throttled per client address. Requests whose Host is
not a name the page is served by (a web page's DNS rebinding) and requests from a page of
another origin (any web site open in a browser could otherwise connect) are refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import socket
import ssl
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import structlog
from aiohttp import WSMsgType, web

from tablesvc.config.table import (
    WILDCARDS,
    Config,
    ConfigError,
    is_loopback,
    overlay_names_problem,
    overlay_tls_problem,
    resolve,
)
from tablesvc.overlay.access import (
    COOKIE,
    DEFAULT_TOKEN_FILE,
    HEADERS,
    HSTS,
    Throttle,
    make_token,
    read_token,
)
from tablesvc.overlay.delay import DelayLine
from tablesvc.overlay.feed import TableFeed
from tablesvc.overlay.model import TableView
from tablesvc.web import favicon

log = structlog.get_logger("tablesvc.overlay")

STATIC = resources.files("tablesvc.overlay") / "static"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
PAGE_FILES = ("/static/overlay.css", "/theme.css", "/static/overlay.js")
"""What the page loads: given the token in their URL when the page's URL carries it."""
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class OverlaySettings:
    """The overlay's part of the config with its files read: a problem is found at start."""

    host: str
    port: int
    delay_s: float
    layout: int | None
    """``[overlay] layout``; None: the smallest that holds the players (``TableView``)."""
    token: str
    password: str | None
    theme: Path | None
    photos: dict[str, Path] = field(default_factory=dict)
    flags: dict[str, Path] = field(default_factory=dict)
    hostnames: tuple[str, ...] = ()
    tls: ssl.SSLContext | None = None
    token_file: Path | None = None

    @property
    def exposed(self) -> bool:
        """Served beyond this machine: TLS, and the token kept in a cookie."""
        return not is_loopback(self.host)

    def answers_to(self) -> frozenset[str]:
        """The names (Host) a request may be addressed to."""
        names = {n.strip("[]").lower() for n in self.hostnames}
        if self.host not in WILDCARDS:
            names.add(self.host.strip("[]").lower())
        if not self.exposed:
            names |= LOOPBACK_NAMES
        return frozenset(names)

    @classmethod
    def load(cls, cfg: Config, cfg_path: Path, host: str | None = None,
             port: int | None = None) -> OverlaySettings:
        """Every problem listed at once; the token file is made at first start (when
        ``token_file`` is not set) once nothing else is wrong."""
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

        password = read("password_file", o.password_file)
        theme = file("theme", o.theme) if o.theme else None
        photos = {n: p for n, v in o.photos.items() if (p := file(f"photos.{n}", v))}
        flags = {n: p for n, v in o.flags.items() if (p := file(f"flags.{n}", v))}
        host = host or o.host
        for key, problem in (("hostnames", overlay_names_problem(host, o.hostnames)),
                             ("key_file", overlay_tls_problem(host, o.cert_file, o.key_file))):
            if problem:
                problems.append(f"overlay.{key}: {problem}")
        tls = None
        if o.cert_file and o.key_file:
            cert, private = file("cert_file", o.cert_file), file("key_file", o.key_file)
            if cert and private:
                tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
                try:
                    tls.load_cert_chain(cert, private)
                except (OSError, ssl.SSLError) as exc:
                    problems.append(f"overlay.cert_file: {cert} with {private} is no PEM "
                                    f"certificate and its key: {exc}")
        if o.token_file:
            token_file, key = resolve(cfg_path, o.token_file), "overlay.token_file"
        else:
            token_file = resolve(cfg_path, cfg.storage.dir) / DEFAULT_TOKEN_FILE
            key = "overlay.token_file (not set: the default in storage.dir)"
        token, problem = (read_token(token_file) if o.token_file or token_file.exists()
                          else (None, None))
        if problem:
            problems.append(f"{key}: {problem}")
        if not problems and token is None:
            token, problem = make_token(token_file)
            if problem:
                problems.append(f"{key}: {problem}")
        if problems or token is None:
            raise ConfigError(cfg_path, problems)
        return cls(host, port if port is not None else o.port, cfg.broadcast.delay_s, o.layout,
                   token, password, theme, photos, flags, tuple(o.hostnames), tls, token_file)


class OverlayServer:
    """The delayed picture of one table and the pages that show it."""

    def __init__(self, cfg: Config, settings: OverlaySettings,
                 throttle: Throttle | None = None) -> None:
        self.cfg = cfg
        self.s = settings
        self.throttle = throttle or Throttle()
        self._names = settings.answers_to()
        self.model = TableView(table=f"{cfg.table.venue}/{cfg.table.id}",
                               layout=settings.layout, table_seats=cfg.table.seats)
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
        app.on_response_prepare.append(self._headers)
        app.router.add_get("/", self._page)
        app.router.add_get("/ws", self._socket)
        app.router.add_get("/theme.css", self._theme)
        app.router.add_get("/media/{kind}/{n}", self._file)
        app.router.add_get("/static/{name}", self._static)
        favicon.add_route(app)
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
        await web.SockSite(self._runner, sock, ssl_context=self.s.tls).start()
        self._pump_task = asyncio.create_task(self._pump())
        self.feed.start()
        # the token is a secret: the log names its file only
        log.info("overlay serving", url=self.url(), token_file=str(self.s.token_file),
                 delay_s=self.s.delay_s)

    async def stop(self) -> None:
        self.feed.stop()
        if self._pump_task is not None:
            self._pump_task.cancel()
        for ws in list(self.sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def url(self, with_token: bool = False) -> str:
        """The page's URL; with the token, the one to give OBS (a secret)."""
        name = self.s.hostnames[0] if self.s.host in WILDCARDS else self.s.host
        host = f"[{name}]" if ":" in name else name
        query = f"?token={self.s.token}" if with_token else ""
        return f"{'https' if self.s.tls else 'http'}://{host}:{self.port}/{query}"

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
    def _token(self, request: web.Request) -> tuple[bool, bool]:
        """(a token was presented, one of them is right), from the URL or the cookie."""
        given = [t for t in (request.query.get("token"), request.cookies.get(COOKIE)) if t]
        want = self.s.token.encode()
        return bool(given), any(hmac.compare_digest(t.encode(), want) for t in given)

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if (request.url.host or "").strip("[]").lower() not in self._names:
            return web.Response(status=421, text="this overlay answers to its own address only")
        address = request.remote or "?"
        wait = self.throttle.locked(address)
        if wait:
            return web.Response(status=429, text="too many wrong tokens from this address",
                                headers={"Retry-After": str(int(wait) + 1)})
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{request.host}":
            return web.Response(status=403, text="the overlay's picture is for its own page")
        if request.path == favicon.PATH:  # public: the same icon everywhere, no token
            return await handler(request)
        presented, right = self._token(request)
        if not right:
            if presented:
                locked = self.throttle.failed(address)
                if locked:  # one line a lockout; never the token tried
                    log.warning("wrong overlay tokens: address refused for a while",
                                remote=address, seconds=locked)
            return web.Response(status=403, text="this page needs the overlay's token: open "
                                "the URL tablesvc overlay printed at start")
        self.throttle.succeeded(address)
        if self.s.exposed and request.path == "/" and "token" in request.query:
            # the token for a cookie, once: it does not stay in the address bar or history
            rest = request.url.query.copy()
            rest.popall("token")
            response = web.Response(status=303, headers={
                "Location": str(request.url.relative().with_query(rest))})
            response.set_cookie(COOKIE, self.s.token, path="/", secure=True, httponly=True,
                                samesite="Strict")
            return response
        return await handler(request)

    async def _headers(self, request: web.Request, response: web.StreamResponse) -> None:
        response.headers.update(HEADERS)
        if self.s.tls is not None:
            response.headers["Strict-Transport-Security"] = HSTS

    # ------------------------------------------------------------------ routes
    async def _page(self, request: web.Request) -> web.StreamResponse:
        html = (STATIC / "overlay.html").read_text(encoding="utf-8")
        if request.query.get("token"):  # on loopback the page's files need it too
            for path in PAGE_FILES:
                html = html.replace(f'"{path}"', f'"{path}?token={self.s.token}"')
        return web.Response(text=html, content_type="text/html")

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        types = {"overlay.js": "application/javascript", "overlay.css": "text/css"}
        if name not in types:
            raise web.HTTPNotFound()
        return web.Response(text=(STATIC / name).read_text(encoding="utf-8"),
                            content_type=types[name])

    async def _theme(self, request: web.Request) -> web.StreamResponse:
        text = self.s.theme.read_text(encoding="utf-8") if self.s.theme else ""
        return web.Response(text=text, content_type="text/css")

    async def _file(self, request: web.Request) -> web.StreamResponse:
        path = self._media.get((request.match_info["kind"], request.match_info["n"]))
        if path is None:
            raise web.HTTPNotFound()
        return web.FileResponse(path)

    async def _socket(self, request: web.Request) -> web.StreamResponse:
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
