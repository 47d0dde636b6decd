"""``tablesvc tournament --config tournament.toml``: the engine, the MQTT link and the pages in
one process (one asyncio loop; paho's thread hands messages to the loop)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import structlog

from tablesvc.floor.auth import UsersFileError
from tablesvc.floor.db import Database, DatabaseError, open_configured
from tablesvc.tournament.config import TournamentConfig
from tablesvc.tournament.engine import Engine
from tablesvc.tournament.link import Link, Received
from tablesvc.tournament.store import Journal
from tablesvc.tournament.structure import Structure
from tablesvc.tournament.tournament import Tournament
from tablesvc.tournament.web import TournamentWeb
from tablesvc.web.serving import start_site

log = structlog.get_logger("tablesvc.tournament")


def build(cfg: TournamentConfig, structure: Structure, db: Database) -> Engine:
    """The tournament as its journal has it."""
    tournament = Tournament(cfg.tournament.name, cfg.tournament.venue, structure,
                            {t.id: t.seats for t in cfg.tables},
                            cfg.tournament.balancing_variant, cfg.tournament.max_difference,
                            run=os.urandom(3).hex())
    engine = Engine(tournament, Journal(db))
    engine.load()
    return engine


async def serve(cfg: TournamentConfig, cfg_path: Path, structure: Structure) -> int:
    loop = asyncio.get_running_loop()
    db = open_configured(cfg.storage, cfg_path)
    engine = build(cfg, structure, db)

    def deliver(msg: Received) -> None:
        loop.call_soon_threadsafe(engine.received, msg)

    link = Link(cfg, cfg_path, deliver)
    engine.out = link
    pages = TournamentWeb(cfg, cfg_path, engine)
    started = await start_site(pages.app(), cfg.web, cfg_path)
    if started is None:
        return 2
    runner, url = started
    print(f"tournament {cfg.tournament.name!r} of venue {cfg.tournament.venue}: director "
          f"{url} clock {url}clock", flush=True)
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
