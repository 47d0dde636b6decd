"""``tablesvc floor --config floor.toml``: the intake and the web side in one process."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import structlog

from tablesvc.floor.auth import UsersFileError
from tablesvc.floor.config import FloorConfig
from tablesvc.floor.db import DatabaseError, open_configured
from tablesvc.floor.intake import Intake
from tablesvc.floor.web import FloorApp
from tablesvc.web.serving import start_site

log = structlog.get_logger("tablesvc.floor")


async def serve(cfg: FloorConfig, cfg_path: Path) -> int:
    loop = asyncio.get_running_loop()
    writer_db = open_configured(cfg.storage, cfg_path)
    reader_db = open_configured(cfg.storage, cfg_path)
    hub_ref: list[FloorApp] = []

    def notify(kind: str, payload: object) -> None:
        if hub_ref:
            loop.call_soon_threadsafe(hub_ref[0].hub.changed, kind, payload)

    intake = Intake(cfg, cfg_path, writer_db, notify)
    floor = FloorApp(cfg, cfg_path, intake, reader_db)
    hub_ref.append(floor)
    started = await start_site(floor.app(), cfg.web, cfg_path)
    if started is None:
        return 2
    runner, url = started
    print(f"floor console for venue {cfg.floor.venue}: {url}", flush=True)
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
