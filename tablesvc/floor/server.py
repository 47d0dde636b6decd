"""``tablesvc floor --config floor.toml``: the intake and the web side in one process."""

from __future__ import annotations

import asyncio
import signal
import ssl
import sys
from pathlib import Path

import structlog
from aiohttp import web

from tablesvc.config.table import resolve
from tablesvc.floor.auth import UsersFileError
from tablesvc.floor.config import FloorConfig
from tablesvc.floor.db import Database, DatabaseError, open_postgresql, open_sqlite
from tablesvc.floor.intake import Intake
from tablesvc.floor.web import FloorApp

log = structlog.get_logger("tablesvc.floor")


def open_database(cfg: FloorConfig, cfg_path: Path) -> Database:
    """The configured database: PostgreSQL when ``[storage] url`` is set, else the file."""
    s = cfg.storage
    if s.url:
        password = (resolve(cfg_path, s.password_file).read_text(encoding="utf-8").strip()
                    if s.password_file else None)
        return open_postgresql(s.url, password)
    return open_sqlite(resolve(cfg_path, s.path))


def ssl_context(cfg: FloorConfig, cfg_path: Path) -> ssl.SSLContext | None:
    if not cfg.web.cert_file:
        return None
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(resolve(cfg_path, cfg.web.cert_file),
                        resolve(cfg_path, cfg.web.key_file))
    return ctx


async def serve(cfg: FloorConfig, cfg_path: Path) -> int:
    loop = asyncio.get_running_loop()
    writer_db = open_database(cfg, cfg_path)
    reader_db = open_database(cfg, cfg_path)
    hub_ref: list[FloorApp] = []

    def notify(kind: str, payload: object) -> None:
        if hub_ref:
            loop.call_soon_threadsafe(hub_ref[0].hub.changed, kind, payload)

    intake = Intake(cfg, cfg_path, writer_db, notify)
    floor = FloorApp(cfg, cfg_path, intake, reader_db)
    hub_ref.append(floor)
    try:
        context = ssl_context(cfg, cfg_path)
    except (OSError, ssl.SSLError) as exc:
        print(f"cannot load the web certificate: {exc}", file=sys.stderr)
        return 2
    runner = web.AppRunner(floor.app(), access_log=None, handle_signals=False,
                           shutdown_timeout=2.0)
    await runner.setup()
    site = web.TCPSite(runner, cfg.web.host, cfg.web.port, ssl_context=context)
    try:
        await site.start()
    except OSError as exc:
        print(f"cannot listen on {cfg.web.host}:{cfg.web.port}: {exc}", file=sys.stderr)
        await runner.cleanup()
        return 2
    server = site._server
    sockets = getattr(server, "sockets", None) or []
    port = sockets[0].getsockname()[1] if sockets else cfg.web.port
    scheme = "https" if context else "http"
    host = cfg.web.host if ":" not in cfg.web.host else f"[{cfg.web.host}]"
    print(f"floor console for venue {cfg.floor.venue}: {scheme}://{host}:{port}/", flush=True)
    intake.start()
    pump = asyncio.ensure_future(floor.hub.pump(intake))
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("stopping")
    pump.cancel()
    await floor.hub.close_all()
    await runner.cleanup()
    intake.stop()
    floor.pool.shutdown()
    floor.logins.close()
    writer_db.close()
    reader_db.close()
    return 0


def run_floor(cfg: FloorConfig, cfg_path: Path) -> int:
    try:
        return asyncio.run(serve(cfg, cfg_path))
    except (DatabaseError, UsersFileError) as err:
        print(err, file=sys.stderr)
        return 2
