"""A console's logins: a password checked at the same cost for every name, failures throttled
per user and per address, and the session cookie.

- Every login checks a password with scrypt, a known name against its hash and an unknown one
  against a dummy hash made once with the same parameters, so the answer takes as long for
  both: the time tells nobody which names exist.
- ``FAILURES`` failed logins in a row for a name, or from an address, lock it out for
  ``FIRST_LOCKOUT_S``; each further lockout of it doubles that, up to ``LONGEST_LOCKOUT_S``. A
  locked name or address is refused at once with 429 (the right password too), ``Retry-After``
  and a text saying when to try again; the lockout is logged as a warning once (the name and
  the address, never the password). A success ends the name's record and the address's run of
  failures; a record quiet for ``FORGET_S`` is forgotten.
- At most ``AT_ONCE`` passwords are checked at once (scrypt takes 16 MiB and tens of
  milliseconds of a core each): a login beyond that is answered 429 at once.
- The address is the connection's; behind a TLS proxy on the same machine (``[web]
  behind_tls_proxy`` and a loopback peer), the last hop of ``X-Forwarded-For``, the address
  the proxy saw.
"""

from __future__ import annotations

import asyncio
import ipaddress
import math
import secrets
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Literal

import structlog
from aiohttp import web

from tablesvc.config.table import resolve
from tablesvc.floor.auth import Sessions, hash_password, load_users, verify_password
from tablesvc.floor.config import FloorWeb

log = structlog.get_logger("tablesvc.web.logins")

FAILURES = 5
FIRST_LOCKOUT_S = 30.0
LONGEST_LOCKOUT_S = 15 * 60.0
FORGET_S = 24 * 3600.0
AT_ONCE = 4
KEPT_MAX = 10_000
"""Records kept at most (names and addresses with failures); past it the quiet ones go."""
Key = tuple[str, str]
"""("user", name) or ("address", address)."""
Clock = Callable[[], float]


@cache
def dummy_hash() -> str:
    """The hash an unknown name's password is checked against: of a random password nobody
    knows, with the parameters of every other hash."""
    return hash_password(secrets.token_urlsafe(24))


@dataclass
class Record:
    failures: int = 0
    """Failures in a row."""
    lockouts: int = 0
    until: float = 0.0
    """Locked out until then (the clock's time)."""
    last: float = 0.0
    """The last failure."""


class Throttle:
    """Failures per key and the lockouts they earn."""

    def __init__(self, clock: Clock = time.monotonic, *, failures: int = FAILURES,
                 first_s: float = FIRST_LOCKOUT_S, longest_s: float = LONGEST_LOCKOUT_S,
                 forget_s: float = FORGET_S) -> None:
        self.clock = clock
        self.failures = failures
        self.first_s = first_s
        self.longest_s = longest_s
        self.forget_s = forget_s
        self.records: dict[Key, Record] = {}

    def _record(self, key: Key, now: float) -> Record | None:
        rec = self.records.get(key)
        if rec is not None and rec.until <= now and now - rec.last >= self.forget_s:
            del self.records[key]
            return None
        return rec

    def retry_after(self, keys: Iterable[Key]) -> float:
        """Seconds until none of ``keys`` is locked out (0: none is)."""
        now = self.clock()
        waits = [rec.until - now for key in keys
                 if (rec := self._record(key, now)) is not None]
        return max([0.0, *waits])

    def failed(self, keys: Iterable[Key]) -> list[tuple[Key, float]]:
        """A failure of each of ``keys``; the ones it locks out, with the lockout's length."""
        now = self.clock()
        locked = []
        for key in keys:
            rec = self._record(key, now)
            if rec is None:
                if len(self.records) >= KEPT_MAX:
                    self._prune(now)
                rec = self.records[key] = Record()
            rec.last = now
            if rec.until > now:
                continue  # a check that began before the lockout: the lockout counts
            rec.failures += 1
            if rec.failures >= self.failures:
                seconds = min(self.first_s * 2 ** min(rec.lockouts, 30), self.longest_s)
                rec.lockouts += 1
                rec.failures = 0
                rec.until = now + seconds
                locked.append((key, seconds))
        return locked

    def succeeded(self, user: Key, address: Key) -> None:
        """A login: the name starts afresh, the address's run of failures ends (its lockouts
        so far still count)."""
        self.records.pop(user, None)
        rec = self.records.get(address)
        if rec is not None:
            rec.failures = 0

    def _prune(self, now: float) -> None:
        for key in [k for k, r in self.records.items() if r.until <= now]:
            del self.records[key]
        while len(self.records) >= KEPT_MAX:  # every one locked out: the oldest goes
            del self.records[min(self.records, key=lambda k: self.records[k].last)]


def home() -> web.Response:
    return web.Response(status=302, headers={"Location": "/"})


@dataclass(frozen=True)
class Verdict:
    kind: Literal["ok", "wrong", "locked", "busy"]
    retry_after: float = 0.0


def client_address(request: web.Request, behind_proxy: bool) -> str:
    """Where a login comes from: the peer, or behind a TLS proxy on this machine the address
    the proxy appended to ``X-Forwarded-For``."""
    peer = request.remote or ""
    if behind_proxy:
        try:
            loopback = ipaddress.ip_address(peer).is_loopback
        except ValueError:
            loopback = False
        forwarded = request.headers.get("X-Forwarded-For", "")
        hop = forwarded.rsplit(",", 1)[-1].strip()
        if loopback and hop:
            return hop[:64]
    return peer


class Logins:
    """The users (None: no logins, a console on loopback), their sessions, the throttle, and
    the login page, form and logout of a console (``add_routes``)."""

    def __init__(self, users: dict[str, str] | None, *, cookie: str, https: bool,
                 session_hours: float, behind_proxy: bool = False,
                 clock: Clock = time.monotonic, at_once: int = AT_ONCE) -> None:
        self.users = users
        self.cookie = cookie
        self.https = https
        self.session_hours = session_hours
        self.behind_proxy = behind_proxy
        self.sessions = Sessions(session_hours)
        self.throttle = Throttle(clock)
        self.at_once = at_once
        self.checking = 0
        self.pool: ThreadPoolExecutor | None = None
        if users is not None:
            dummy_hash()  # made now: the first unknown name costs what a known one does
            self.pool = ThreadPoolExecutor(at_once, thread_name_prefix="login")

    @classmethod
    def of(cls, web_cfg: FloorWeb, cfg_path: Path, *, cookie: str,
           clock: Clock = time.monotonic) -> Logins:
        """A console's logins as its ``[web]`` section has them."""
        users = (load_users(resolve(cfg_path, web_cfg.users_file)) if web_cfg.users_file
                 else None)
        return cls(users, cookie=cookie, https=web_cfg.https,
                   session_hours=web_cfg.session_hours, behind_proxy=web_cfg.behind_tls_proxy,
                   clock=clock)

    def user(self, request: web.Request) -> str | None:
        """The request's user: "" without logins, None without a session."""
        if self.users is None:
            return ""
        return self.sessions.user(request.cookies.get(self.cookie))

    async def check(self, name: str, password: str, address: str) -> Verdict:
        """Whether ``name`` logs in with ``password`` from ``address``."""
        assert self.users is not None and self.pool is not None
        keys = (("user", name[:64]), ("address", address))
        wait = self.throttle.retry_after(keys)
        if wait > 0:
            return Verdict("locked", wait)
        if self.checking >= self.at_once:
            return Verdict("busy", 1.0)
        stored = self.users.get(name)
        self.checking += 1
        try:
            ok = await asyncio.get_running_loop().run_in_executor(
                self.pool, verify_password, password, stored or dummy_hash())
        finally:
            self.checking -= 1
        if ok and stored is not None:
            self.throttle.succeeded(*keys)
            return Verdict("ok")
        locked = self.throttle.failed(keys)
        if locked:
            log.warning("logins locked out", user=name[:64], remote=address,
                        locked=[kind for (kind, _), _ in locked],
                        seconds=round(max(seconds for _, seconds in locked)))
        return Verdict("wrong")

    async def log_in(self, request: web.Request, name: str, password: str, *, to: str,
                     failed: str) -> web.Response:
        """The answer to a login form: to ``to`` with a session, back to ``failed``, or 429."""
        address = client_address(request, self.behind_proxy)
        verdict = await self.check(name, password, address)
        name = name[:64]  # as logged
        if verdict.kind in ("locked", "busy"):
            seconds = max(1, math.ceil(verdict.retry_after))
            text = (f"Too many failed logins for this name or from this address: try again "
                    f"in {seconds} s." if verdict.kind == "locked" else
                    f"Too many logins at once: try again in {seconds} s.")
            return web.Response(status=429, text=text, headers={"Retry-After": str(seconds)})
        if verdict.kind == "wrong":
            log.warning("login refused", user=name, remote=address)
            return web.Response(status=302, headers={"Location": failed})
        log.info("login", user=name, remote=address)
        resp = web.Response(status=302, headers={"Location": to})
        resp.set_cookie(self.cookie, self.sessions.create(name), httponly=True,
                        samesite="Strict", secure=self.https, path="/",
                        max_age=int(self.session_hours * 3600))
        return resp

    def add_routes(self, app: web.Application, login_html: Traversable,
                   pages: frozenset[str] = frozenset({"/"})) -> None:
        """``GET /login`` (the page ``login_html``), ``POST /login`` (the form: ``user``,
        ``password`` and, with more than one page, ``next``, the page to go back to, one of
        ``pages``: no open redirect) and ``POST /logout``. Without users both go home."""

        async def page(request: web.Request) -> web.Response:
            if self.users is None:
                return home()
            return web.Response(text=login_html.read_text(encoding="utf-8"),
                                content_type="text/html")

        async def form(request: web.Request) -> web.Response:
            if self.users is None:
                return home()
            got = await request.post()
            back = str(got.get("next", "/"))
            back = back if back in pages else "/"
            failed = "/login?failed=1" + (f"&next={back}" if len(pages) > 1 else "")
            return await self.log_in(request, str(got.get("user", "")),
                                     str(got.get("password", "")), to=back, failed=failed)

        async def logout(request: web.Request) -> web.Response:
            self.sessions.end(request.cookies.get(self.cookie))
            resp = web.json_response({"ok": True})
            resp.del_cookie(self.cookie, path="/")
            return resp

        app.router.add_get("/login", page)
        app.router.add_post("/login", form)
        app.router.add_post("/logout", logout)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False)
