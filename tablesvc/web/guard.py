"""The guard every request to a console passes (the floor console's and the tournament
controller's pages, API and WebSocket), and the security headers of every answer.

In this order:

1. ``Host`` must be one of the console's own names (``tablesvc.web.hosts``): else 421, and a
   warning in the log once per name. A page of another site whose name was made to resolve to
   the console's address (DNS rebinding) gets nothing, in every mode, with logins or without.
2. ``Origin``, when the request has one, must be one of the console's own pages: else 403. A
   browser sends it on every WebSocket handshake, on every POST (the login form's too: the
   login page's referrer policy is ``same-origin`` so that it is not ``null``) and on every
   cross-origin fetch, so another site's page can neither read the live WebSocket nor post a
   form. A request without one comes from no browser page (a script, a test, a monitor): it
   passes on to the next checks, as a client that could send any ``Origin`` would.
3. A session, with a users file, except for the console's open paths (the login page, its
   static files, ``/healthz``) and the pages' icon (``tablesvc.web.favicon``: a browser asks
   for it without a session, on the login page too; it tells nothing).
4. A state-changing call (anything but GET, HEAD and OPTIONS; the login form aside) needs the
   console's header (``X-Floor: 1``, ``X-Tournament: 1``), which another site's page cannot
   send without a CORS preflight the console never grants.

Every answer, refusals included, forbids framing, foreign and inline scripts, sniffing and
referrers; over TLS (a certificate, or a TLS proxy in front) it also carries HSTS.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import structlog
from aiohttp import hdrs, web

from tablesvc.web import favicon
from tablesvc.web.hosts import Hosts

log = structlog.get_logger("tablesvc.web.guard")

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "style-src 'self'; script-src 'self'; connect-src 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
HSTS = "max-age=31536000"
"""A year: a browser that reached the console over HTTPS never tries it over HTTP."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOGGED_MAX = 256
"""Refused names (and origins) logged, each once; past this many, no new one is logged."""
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def local_address(request: web.Request) -> tuple[str, int] | None:
    """The address and port the request's connection came in on."""
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    if isinstance(sockname, tuple) and len(sockname) >= 2:
        return str(sockname[0]), int(sockname[1])
    return None


class Guard:
    """One console's guard: ``middleware`` for its ``web.Application``.

    ``user_of`` gives the request's user (None: not logged in); a page requested without a
    session is sent to ``login_at(request)``, an API call or the WebSocket gets 401;
    ``refusal`` is the console's error answer for a status and a message."""

    def __init__(self, *, hostnames: Iterable[str], https: bool, header: str,
                 open_paths: frozenset[str], user_of: Callable[[web.Request], str | None],
                 login_at: Callable[[web.Request], str],
                 refusal: Callable[[int, str], web.StreamResponse]) -> None:
        self.hosts = Hosts.of(hostnames)
        self.https = https
        self.header = header
        self.open_paths = open_paths | {favicon.PATH}
        self.user_of = user_of
        self.login_at = login_at
        self.refusal = refusal
        self._logged: set[tuple[str, str]] = set()

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        resp = self.refuse(request)
        if resp is None:
            try:
                resp = await handler(request)
            except web.HTTPException as exc:
                self.secure(exc, request)
                raise
        self.secure(resp, request)
        return resp

    def refuse(self, request: web.Request) -> web.StreamResponse | None:
        """The answer that refuses the request, or None when it may go on."""
        here = local_address(request)
        host = request.headers.get(hdrs.HOST, "")
        if not self.hosts.allows(host, request.scheme, here):
            self._log_once("host", host, "request for another host name refused", request,
                           hint="add it to [web] hostnames if the console is reached by it")
            return self.refusal(421, f"this console is not served as {host[:100]!r}")
        origin = request.headers.get(hdrs.ORIGIN)
        if origin is not None and not self.hosts.allows_origin(origin, here):
            self._log_once("origin", origin, "request from another site's page refused",
                           request)
            return self.refusal(403, "a request from another site's page is refused")
        if request.path not in self.open_paths and self.user_of(request) is None:
            if request.path.startswith(("/api/", "/ws")):
                return self.refusal(401, "log in first")
            return web.Response(status=302, headers={"Location": self.login_at(request)})
        if request.method not in SAFE_METHODS and request.path != "/login" and \
                request.headers.get(self.header) != "1":
            return self.refusal(403, f"missing {self.header} header")
        return None

    def secure(self, resp: web.StreamResponse, request: web.Request) -> None:
        """The security headers on an answer."""
        resp.headers.update(HEADERS)
        if self.https:
            resp.headers["Strict-Transport-Security"] = HSTS
        if request.path == "/login":
            # with no-referrer a browser sends "Origin: null" on the form's POST, which the
            # origin check cannot tell from a sandboxed page of another site
            resp.headers["Referrer-Policy"] = "same-origin"

    def _log_once(self, kind: str, value: str, event: str, request: web.Request,
                  **more: str) -> None:
        key = (kind, value[:200])
        if key in self._logged or len(self._logged) >= LOGGED_MAX:
            return
        self._logged.add(key)
        fields: dict[str, Any] = {kind: value[:200], "path": request.path,
                                  "remote": request.remote, **more}
        log.warning(event, **fields)
