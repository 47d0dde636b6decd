"""``tablesvc tournament --config tournament.toml``: the engine, the MQTT link and the pages in
one process (one asyncio loop; paho's thread hands messages to the loop)."""

from __future__ import annotations

import asyncio
import os
import signal
import ssl
import sys
from pathlib import Path

import structlog
from aiohttp import web

from tablesvc.config.table import resolve
from tablesvc.floor.auth import UsersFileError
from tablesvc.floor.db import Database, DatabaseError, open_postgresql, open_sqlite
from tablesvc.tournament.config import TournamentConfig
from tablesvc.tournament.engine import Engine
from tablesvc.tournament.link import Link, Received
from tablesvc.tournament.store import Journal
from tablesvc.tournament.structure import Structure
from tablesvc.tournament.tournament import Tournament
from tablesvc.tournament.web import TournamentWeb

log = structlog.get_logger("tablesvc.tournament")


def open_database(cfg: TournamentConfig, cfg_path: Path) -> Database:
    """PostgreSQL when ``[storage] url`` is set, else the SQLite file."""
    s = cfg.storage
    if s.url:
        password = (resolve(cfg_path, s.password_file).read_text(encoding="utf-8").strip()
                    if s.password_file else None)
        return open_postgresql(s.url, password)
    return open_sqlite(resolve(cfg_path, s.path))


def build(cfg: TournamentConfig, structure: Structure, db: Database) -> Engine:
    """The tournament as its journal has it."""
    tournament = Tournament(cfg.tournament.name, cfg.tournament.venue, structure,
                            {t.id: t.seats for t in cfg.tables},
                            cfg.tournament.balancing_variant, cfg.tournament.max_difference,
                            run=os.urandom(3).hex())
    engine = Engine(tournament, Journal(db))
    engine.load()
    return engine


def ssl_context(cfg: TournamentConfig, cfg_path: Path) -> ssl.SSLContext | None:
    if not cfg.web.cert_file:
        return None
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(resolve(cfg_path, cfg.web.cert_file),
                        resolve(cfg_path, cfg.web.key_file))
    return ctx


async def serve(cfg: TournamentConfig, cfg_path: Path, structure: Structure) -> int:
    loop = asyncio.get_running_loop()
    db = open_database(cfg, cfg_path)
    engine = build(cfg, structure, db)

    def deliver(msg: Received) -> None:
        loop.call_soon_threadsafe(engine.received, msg)

    link = Link(cfg, cfg_path, deliver)
    engine.out = link
    pages = TournamentWeb(cfg, cfg_path, engine)
    try:
        context = ssl_context(cfg, cfg_path)
    except (OSError, ssl.SSLError) as exc:
        print(f"cannot load the web certificate: {exc}", file=sys.stderr)
        return 2
    runner = web.AppRunner(pages.app(), access_log=None, handle_signals=False,
                           shutdown_timeout=2.0)
    await runner.setup()
    site = web.TCPSite(runner, cfg.web.host, cfg.web.port, ssl_context=context)
    try:
        await site.start()
    except OSError as exc:
        print(f"cannot listen on {cfg.web.host}:{cfg.web.port}: {exc}", file=sys.stderr)
        await runner.cleanup()
        return 2
    sockets = getattr(site._server, "sockets", None) or []
    port = sockets[0].getsockname()[1] if sockets else cfg.web.port
    scheme = "https" if context else "http"
    host = cfg.web.host if ":" not in cfg.web.host else f"[{cfg.web.host}]"
    print(f"tournament {cfg.tournament.name!r} of venue {cfg.tournament.venue}: director "
          f"{scheme}://{host}:{port}/ clock {scheme}://{host}:{port}/clock", flush=True)
    link.start()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await engine.run(stop)
    log.info("stopping")
    await pages.close_all()
    await runner.cleanup()
    pages.logins.close()
    link.stop()
    db.close()
    return 0


def run_tournament(cfg: TournamentConfig, cfg_path: Path, structure: Structure) -> int:
    try:
        return asyncio.run(serve(cfg, cfg_path, structure))
    except (DatabaseError, UsersFileError) as err:
        print(err, file=sys.stderr)
        return 2
