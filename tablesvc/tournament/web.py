"""The controller's pages (aiohttp): the room's clock screen, the director's page, a JSON API
and a WebSocket of the whole view.

The pages never compute anything a director relies on: the engine builds one view
(``Tournament.view``) and both pages draw it. The only thing a page works out itself is the
countdown between two views, from the view's wall-clock ``ends_at`` and the server's time sent
with every message, so that the big screen ticks smoothly and a page whose own clock is wrong
still shows the right time.

Changes are pushed, not polled: the engine calls ``watch``'s callback on every change, and the
pages get the whole view at most four times a second (a burst of counts after a hand at many
tables is one message, not one per table).

Security is the floor console's (``tablesvc.web.guard``, ``tablesvc.web.logins``), with its own
session cookie so that the two consoles on one host do not log each other out: every request's
``Host`` must be one of the controller's own names and its ``Origin``, if any, one of its pages;
with a users file every page and API call needs a session — the clock screen too; a big screen
logs in once — except the login page, its static files and ``/healthz``, and logins are
throttled; state-changing calls need the ``X-Tournament`` header (a cross-site form cannot send
it) on top of the SameSite=Strict cookie; responses forbid framing, inline scripts and styles,
and foreign scripts, and over TLS carry HSTS. Player names come from registration and reach the
pages as data only: the scripts set ``textContent``, never HTML.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import weakref
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import structlog
from aiohttp import WSMsgType, web

from tablesvc.tournament.config import TournamentConfig
from tablesvc.web import favicon
from tablesvc.web.guard import Guard
from tablesvc.web.logins import Clock, Logins

log = structlog.get_logger("tablesvc.tournament.web")

STATIC = resources.files("tablesvc.tournament") / "static"
COOKIE = "tournament_session"
"""Not the floor console's ``floor_session``: both consoles may run on one host."""
HEADER = "X-Tournament"
PUSH_EVERY_S = 0.25
"""At most four views a second to each page."""
OPEN_PATHS = frozenset({"/login", "/static/director.css", "/static/login.js", "/healthz"})
PAGES = {"/": "director.html", "/clock": "clock.html"}
"""Where a login may send the browser back to (nothing else: no open redirect)."""
KINDS = {".js": "application/javascript", ".css": "text/css"}


def refusal(status: int, message: str) -> web.Response:
    """The controller's error answer (an action's shape)."""
    return web.json_response({"ok": False, "error": message, "data": None}, status=status)


def login_at(request: web.Request) -> str:
    """The login page, to come back to the page asked for."""
    back = request.path if request.path in PAGES else "/"
    return f"/login?next={back}"


class Director(Protocol):
    """What the pages need of the engine."""

    def view(self) -> dict[str, Any]:
        """The current view (cheap, already built)."""
        ...

    async def act(self, action: dict[str, Any], by: str) -> dict[str, Any]:
        """Carry out a director's action: ``{"ok", "error", "data"}``."""
        ...

    def watch(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` (on the loop) on every change; returns an unwatch."""
        ...


def message(view: dict[str, Any]) -> str:
    """One WebSocket message: the view, with the server's time for the page's countdown."""
    return json.dumps({"kind": "view", "now": time.time(), "view": view},
                      separators=(",", ":"))


class Hub:
    """The open pages, and the pump that sends them the view when it changed: at once after a
    quiet spell, then no more than every ``PUSH_EVERY_S``."""

    def __init__(self, director: Director) -> None:
        self.director = director
        self.sockets: weakref.WeakSet[web.WebSocketResponse] = weakref.WeakSet()
        self.dirty = asyncio.Event()
        self.sent = 0  # views pushed (the tests count them)

    def changed(self) -> None:
        """The engine's callback (on the loop)."""
        self.dirty.set()

    async def send_all(self, text: str) -> None:
        for ws in list(self.sockets):
            if ws.closed:
                continue
            with contextlib.suppress(ConnectionError, RuntimeError):
                await ws.send_str(text)

    async def pump(self) -> None:
        while True:
            await self.dirty.wait()
            self.dirty.clear()
            if self.sockets:
                await self.send_all(message(self.director.view()))
                self.sent += 1
            await asyncio.sleep(PUSH_EVERY_S)

    async def close_all(self) -> None:
        """Close every page's socket (the pages reconnect to the next controller)."""
        for ws in list(self.sockets):
            with contextlib.suppress(ConnectionError, RuntimeError):
                await ws.close(message=b"controller stopping")


class TournamentWeb:
    """Everything the web side needs, built once per process."""

    def __init__(self, cfg: TournamentConfig, cfg_path: Path, director: Director, *,
                 clock: Clock = time.monotonic) -> None:
        self.cfg = cfg
        self.director = director
        self.hub = Hub(director)
        self.logins = Logins.of(cfg.web, cfg_path, cookie=COOKIE, clock=clock)
        self.guard = Guard(hostnames=cfg.web.hostnames, https=cfg.web.https, header=HEADER,
                           open_paths=OPEN_PATHS, user_of=self.logins.user, login_at=login_at,
                           refusal=refusal)
        self._tasks: list[asyncio.Task[None]] = []
        self._unwatch: Callable[[], None] | None = None

    def user_of(self, request: web.Request) -> str | None:
        """The request's user: "" without logins (a screen on this machine only), None without
        a session."""
        return self.logins.user(request)

    # ------------------------------------------------------------------ pages
    async def page(self, name: str) -> web.Response:
        text = (STATIC / name).read_text(encoding="utf-8")
        return web.Response(text=text, content_type="text/html")

    async def director_page(self, request: web.Request) -> web.Response:
        return await self.page("director.html")

    async def clock_page(self, request: web.Request) -> web.Response:
        return await self.page("clock.html")

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        suffix = Path(name).suffix
        if suffix not in KINDS or "/" in name or not (STATIC / name).is_file():
            raise web.HTTPNotFound()
        return web.Response(text=(STATIC / name).read_text(encoding="utf-8"),
                            content_type=KINDS[suffix])

    # ------------------------------------------------------------------ API
    async def me(self, request: web.Request) -> web.Response:
        return web.json_response({"user": self.user_of(request),
                                  "login": self.logins.users is not None,
                                  "venue": self.cfg.tournament.venue,
                                  "name": self.cfg.tournament.name})

    async def api_view(self, request: web.Request) -> web.Response:
        resp = web.json_response(self.director.view())
        resp.headers["X-Server-Time"] = f"{time.time():.3f}"
        return resp

    async def action(self, request: web.Request) -> web.Response:
        """A director's action; the engine's answer goes back as it is (409 when refused)."""
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("action"), str):
            return web.json_response({"ok": False, "error": 'send {"action": name, ...}',
                                      "data": None}, status=400)
        by = self.user_of(request) or "director"
        answer = await self.director.act(body, by)
        log.info("action", action=body["action"], by=by, ok=answer.get("ok"),
                 error=answer.get("error"))
        return web.json_response(answer, status=200 if answer.get("ok") else 409)

    async def ws(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        await ws.send_str(message(self.director.view()))
        self.hub.sockets.add(ws)
        async for msg in ws:
            if msg.type in (WSMsgType.ERROR, WSMsgType.CLOSE):
                break
        return ws

    async def health(self, request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "pages": len(self.hub.sockets)})

    # ------------------------------------------------------------------ wiring
    async def _start(self, app: web.Application) -> None:
        self._unwatch = self.director.watch(self.hub.changed)
        self._tasks.append(asyncio.create_task(self.hub.pump()))

    async def _stop(self, app: web.Application) -> None:
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()

    async def close_all(self) -> None:
        """Close the pages' sockets (before the runner's cleanup, which waits for them)."""
        await self.hub.close_all()

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self.guard.middleware],
                              client_max_size=64 * 1024)
        app.router.add_get("/", self.director_page)
        app.router.add_get("/clock", self.clock_page)
        app.router.add_get("/static/{name}", self.static)
        favicon.add_route(app)
        self.logins.add_routes(app, STATIC / "login.html", frozenset(PAGES))
        app.router.add_get("/api/me", self.me)
        app.router.add_get("/api/view", self.api_view)
        app.router.add_post("/api/action", self.action)
        app.router.add_get("/healthz", self.health)
        app.router.add_get("/ws", self.ws)
        app.on_startup.append(self._start)
        app.on_cleanup.append(self._stop)
        return app
