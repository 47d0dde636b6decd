"""A console's pages on their port: the certificate of its ``[web]`` section loaded, the site
started, and the address it serves (both consoles, the floor's and the tournament
controller's)."""

from __future__ import annotations

import ssl
import sys
from pathlib import Path

from aiohttp import web

from tablesvc.config.table import resolve
from tablesvc.floor.config import FloorWeb


def tls_context(web_cfg: FloorWeb, cfg_path: Path) -> ssl.SSLContext | None:
    """The server side of TLS with the configured certificate; None without one."""
    if not web_cfg.cert_file:
        return None
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(resolve(cfg_path, web_cfg.cert_file), resolve(cfg_path, web_cfg.key_file))
    return ctx


async def start_site(app: web.Application, web_cfg: FloorWeb, cfg_path: Path
                     ) -> tuple[web.AppRunner, str] | None:
    """``app`` served where ``[web]`` says: its runner and base URL (``https://host:port/``),
    or None when it cannot be (the reason said on stderr)."""
    try:
        context = tls_context(web_cfg, cfg_path)
    except (OSError, ssl.SSLError) as exc:
        print(f"cannot load the web certificate: {exc}", file=sys.stderr)
        return None
    runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=2.0)
    await runner.setup()
    site = web.TCPSite(runner, web_cfg.host, web_cfg.port, ssl_context=context)
    try:
        await site.start()
    except OSError as exc:
        print(f"cannot listen on {web_cfg.host}:{web_cfg.port}: {exc}", file=sys.stderr)
        await runner.cleanup()
        return None
    sockets = getattr(site._server, "sockets", None) or []
    port = sockets[0].getsockname()[1] if sockets else web_cfg.port
    scheme = "https" if context else "http"
    host = web_cfg.host if ":" not in web_cfg.host else f"[{web_cfg.host}]"
    return runner, f"{scheme}://{host}:{port}/"
