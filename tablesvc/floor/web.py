"""The console's web side (aiohttp): pages, a JSON API, and a WebSocket of live changes.

aiohttp serves HTTP and WebSocket from one asyncio loop with no separate ASGI server. The
database is read on one worker thread with its own connection, so a search never holds the
loop; live changes come from the intake's thread through ``call_soon_threadsafe``. Table
changes, and the tournament controller's clock and field, are coalesced (at most four a
second per page), alerts and their groups go out at once. Four times a second the pump also
looks for tables that fell silent or spoke again (``tablesvc.floor.silence``) and sends them
as table changes.

Security is ``tablesvc.web.guard``'s (the tournament controller's pages share it): every
request's ``Host`` must be one of the console's own names and its ``Origin``, if any, one of the
console's pages; every page and API call needs a session when a users file is configured
(logins throttled, ``tablesvc.web.logins``); state-changing calls need the ``X-Floor`` header (a
cross-site form cannot send it) on top of the SameSite=Strict cookie; responses forbid framing
and foreign scripts, and over TLS carry HSTS.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

import structlog
from aiohttp import WSMsgType, web

from tablesvc.floor.auth import COOKIE
from tablesvc.floor.config import FloorConfig
from tablesvc.floor.db import Database
from tablesvc.floor.intake import TABLE_RE, TOURNAMENT, AckError, Intake, initial_alerts, now_iso
from tablesvc.floor.store import SEVERITIES, Queries, today
from tablesvc.web import favicon
from tablesvc.web.guard import Guard
from tablesvc.web.logins import Clock, Logins

log = structlog.get_logger("tablesvc.floor.web")

STATIC = resources.files("tablesvc.floor") / "static"
TITLES: dict[str, str] = json.loads(
    (resources.files("tablesvc.floor") / "rule_titles.json").read_text(encoding="utf-8"))
PUSH_EVERY_S = 0.25
DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
RULE_RE = re.compile(r"^[A-Z]+-\d{2,3}$")
OPEN_PATHS = frozenset({"/login", "/static/floor.css", "/static/login.js", "/healthz"})


def refusal(status: int, message: str) -> web.Response:
    """The console's error answer."""
    return web.json_response({"error": message}, status=status)


def titled(row: dict[str, Any]) -> dict[str, Any]:
    """An alert row as the page shows it: with its rule's title."""
    return {**row, "title": TITLES.get(str(row.get("rule")), "")}


def titled_group(group: dict[str, Any]) -> dict[str, Any]:
    """An alert group (``tablesvc.floor.queue``) as the page shows it: with its rule's
    title."""
    return {**group, "title": TITLES.get(str(group.get("rule")), "")}


class Hub:
    """The open pages: table changes coalesced, alerts at once."""

    def __init__(self) -> None:
        self.sockets: weakref.WeakSet[web.WebSocketResponse] = weakref.WeakSet()
        self.dirty: dict[str, dict[str, Any]] = {}
        self.tournament: list[dict[str, Any] | None] = []  # the controller's header, if changed
        self.mqtt_connected: bool | None = None
        self.sending: set[asyncio.Future[None]] = set()

    async def send_all(self, message: dict[str, Any]) -> None:
        text = json.dumps(message, separators=(",", ":"))
        for ws in list(self.sockets):
            if ws.closed:
                continue
            with contextlib.suppress(ConnectionError, RuntimeError):
                await ws.send_str(text)

    def changed(self, kind: str, payload: Any) -> None:
        """From the intake's thread, via the loop."""
        if kind == "tables":
            for view in payload:
                self.dirty[str(view["id"])] = view
        elif kind == "tournament":
            self.tournament = [payload]
        elif kind in ("alert", "group"):
            message = ({"kind": "alert", "alert": titled(payload)} if kind == "alert" else
                       {"kind": "group", "group": titled_group(payload)})
            task = asyncio.ensure_future(self.send_all(message))
            self.sending.add(task)
            task.add_done_callback(self.sending.discard)

    async def close_all(self) -> None:
        """Close every page's socket (the pages reconnect to the next console)."""
        for ws in list(self.sockets):
            with contextlib.suppress(ConnectionError, RuntimeError):
                await ws.close(message=b"console stopping")

    async def pump(self, intake: Intake) -> None:
        while True:
            await asyncio.sleep(PUSH_EVERY_S)
            connected = intake.connected.is_set()
            if connected != self.mqtt_connected:
                self.mqtt_connected = connected
                await self.send_all({"kind": "mqtt", "connected": connected,
                                     "refused": intake.refused})
            for table in intake.silence.changes(time.monotonic()):
                view = intake.view(table)
                if view is not None:
                    self.dirty[table] = view
            if self.dirty:
                tables, self.dirty = intake.marked(list(self.dirty.values())), {}
                await self.send_all({"kind": "tables", "tables": tables})
            if self.tournament:
                (tournament,), self.tournament = self.tournament, []
                await self.send_all({"kind": "tournament", "now": now_iso(),
                                     "tournament": tournament})


class FloorApp:
    """Everything the web side needs, built once per process."""

    def __init__(self, cfg: FloorConfig, cfg_path: Path, intake: Intake,
                 reader: Database, *, clock: Clock = time.monotonic) -> None:
        self.cfg = cfg
        self.intake = intake
        self.queries = Queries(reader)
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="floor-reader")
        self.hub = Hub()
        self.logins = Logins.of(cfg.web, cfg_path, cookie=COOKIE, clock=clock)
        self.guard = Guard(hostnames=cfg.web.hostnames, https=cfg.web.https, header="X-Floor",
                           open_paths=OPEN_PATHS, user_of=self.logins.user,
                           login_at=lambda request: "/login", refusal=refusal)

    async def read(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, lambda: fn(*args, **kwargs))

    def user_of(self, request: web.Request) -> str | None:
        """The request's user: "" on a console without logins (a screen on this machine
        only), None without a session."""
        return self.logins.user(request)

    # ------------------------------------------------------------------ pages
    async def page(self, name: str) -> web.Response:
        text = (STATIC / name).read_text(encoding="utf-8")
        return web.Response(text=text, content_type="text/html")

    async def index(self, request: web.Request) -> web.Response:
        return await self.page("index.html")

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        kinds = {".js": "application/javascript", ".css": "text/css"}
        suffix = Path(name).suffix
        if suffix not in kinds or "/" in name or not (STATIC / name).is_file():
            raise web.HTTPNotFound()
        return web.Response(text=(STATIC / name).read_text(encoding="utf-8"),
                            content_type=kinds[suffix])

    # ------------------------------------------------------------------ API
    async def me(self, request: web.Request) -> web.Response:
        return web.json_response({"user": self.user_of(request),
                                  "login": self.logins.users is not None,
                                  "venue": self.cfg.floor.venue,
                                  "name": self.cfg.floor.name or self.cfg.floor.venue,
                                  "sound": self.cfg.web.sound})

    async def snapshot(self) -> dict[str, Any]:
        groups = await self.read(initial_alerts, self.queries)
        snap = await self.read(self.intake.snapshot)
        return {"kind": "snapshot", "now": now_iso(), "tables": snap["tables"],
                "tournament": snap["tournament"],
                "groups": [titled_group(g) for g in groups],
                "silent_after_s": self.cfg.floor.silent_after_s,
                "mqtt": {"connected": self.intake.connected.is_set(),
                         "refused": self.intake.refused}}

    async def api_snapshot(self, request: web.Request) -> web.Response:
        return web.json_response(await self.snapshot())

    async def ws(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        await ws.send_str(json.dumps(await self.snapshot(), separators=(",", ":")))
        self.hub.sockets.add(ws)
        async for msg in ws:
            if msg.type in (WSMsgType.ERROR, WSMsgType.CLOSE):
                break
        return ws

    async def ack(self, request: web.Request) -> web.Response:
        """One alert (``{table, seq}``), or a group (``{table, name, upto}``: each open alert
        of that name at that table up to the newest the page showed)."""
        try:
            body = await request.json()
            table = str(body["table"])
            seq = int(body["seq"]) if "seq" in body else None
            name = str(body["name"]) if seq is None else None
            upto = int(body["upto"]) if seq is None else None
        except (ValueError, KeyError, TypeError, AttributeError):
            return web.json_response({"error": "need table and seq, or table, name and upto"},
                                     status=400)
        user = self.user_of(request)
        by = user or str(body.get("by") or "").strip()[:64]
        if not by:
            return web.json_response({"error": "say who acknowledges"}, status=400)
        future = (self.intake.acknowledge(table, seq, by) if seq is not None else
                  self.intake.acknowledge_group(table, str(name), int(upto or 0), by))
        try:
            answer = await asyncio.wrap_future(future)
        except AckError as err:
            return web.json_response({"error": str(err)}, status=409)
        if seq is not None:
            log.info("alert acknowledged", table=table, alert=answer["alert_id"], by=by)
            return web.json_response({"alert": titled(answer)})
        log.info("alert group acknowledged", table=table, alert=name, upto=upto, by=by,
                 alerts=answer["acknowledged"])
        return web.json_response({"acknowledged": answer["acknowledged"],
                                  "group": titled_group(answer["group"])})

    def _day(self, request: web.Request) -> str:
        day = request.query.get("day") or today()
        if not DAY_RE.fullmatch(day):
            raise web.HTTPBadRequest(text="day: YYYY-MM-DD")
        return day

    def _table(self, request: web.Request, required: bool = True) -> str | None:
        table = request.query.get("table")
        if table is None and not required:
            return None
        if table is None or not (TABLE_RE.fullmatch(table) or table == TOURNAMENT):
            raise web.HTTPBadRequest(text="table: a table id (or .tournament, the "
                                          "controller's alerts)")
        return table

    async def hands(self, request: web.Request) -> web.Response:
        table = self._table(request)
        assert table is not None
        rows = await self.read(self.queries.hands, table, self._day(request))
        return web.json_response({"table": table, "hands": rows})

    async def hand(self, request: web.Request) -> web.Response:
        table = self._table(request)
        try:
            start = int(request.query["start"])
        except (KeyError, ValueError):
            raise web.HTTPBadRequest(text="start: the hand's first seq") from None
        got = await self.read(self.queries.hand, table, start)
        if got is None:
            raise web.HTTPNotFound(text="no such hand")
        got["alerts"] = [titled(a) for a in got["alerts"]]
        return web.json_response(got)

    async def search(self, request: web.Request) -> web.Response:
        q = request.query
        seat = q.get("seat") or None
        rule = (q.get("rule") or "").upper() or None
        severity = q.get("severity") or None
        if seat is not None and not seat.isdigit():
            raise web.HTTPBadRequest(text="seat: a number")
        if rule is not None and not RULE_RE.fullmatch(rule):
            raise web.HTTPBadRequest(text="rule: a rule ID such as BET-09")
        if severity is not None and severity not in SEVERITIES:
            raise web.HTTPBadRequest(text=f"severity: one of {', '.join(SEVERITIES)}")
        got = await self.read(self.queries.search, self._day(request),
                              table=self._table(request, required=False),
                              seat=int(seat) if seat else None, rule=rule, severity=severity)
        got["alerts"] = [titled(a) for a in got["alerts"]]
        return web.json_response(got)

    async def health(self, request: web.Request) -> web.Response:
        return web.json_response({"mqtt": self.intake.connected.is_set(),
                                  **self.intake.stats, "backlog": len(self.intake.inbox)})

    # ------------------------------------------------------------------ wiring
    def app(self) -> web.Application:
        app = web.Application(middlewares=[self.guard.middleware],
                              client_max_size=64 * 1024)
        app.router.add_get("/", self.index)
        app.router.add_get("/static/{name}", self.static)
        favicon.add_route(app)
        self.logins.add_routes(app, STATIC / "login.html")
        app.router.add_get("/api/me", self.me)
        app.router.add_get("/api/snapshot", self.api_snapshot)
        app.router.add_post("/api/ack", self.ack)
        app.router.add_get("/api/hands", self.hands)
        app.router.add_get("/api/hand", self.hand)
        app.router.add_get("/api/search", self.search)
        app.router.add_get("/healthz", self.health)
        app.router.add_get("/ws", self.ws)
        return app
