"""``tablesvc overlay --config table.toml``: serve the broadcast page until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path

from tablesvc.commands.logs import configure
from tablesvc.config.table import Config, ConfigError
from tablesvc.overlay.server import OverlayServer, OverlaySettings


def run_overlay(cfg: Config, cfg_path: Path, args: argparse.Namespace) -> int:
    configure(args.log, args.log_level)
    try:
        settings = OverlaySettings.load(cfg, cfg_path, args.host, args.port)
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 2
    server = OverlayServer(cfg, settings)
    return asyncio.run(_serve(server))


def announce(server: OverlayServer, terminal: bool) -> str:
    """The line that gives the URL to put in OBS. The token is a secret: it is shown on a
    terminal only; a service's journal or a file gets the name of the token's file instead."""
    url = (server.url(with_token=True) if terminal
           else f"{server.url()}?token=<the token in {server.s.token_file}>")
    return (f"overlay of table {server.cfg.table.venue}/{server.cfg.table.id}: {url}  "
            f"(1920x1080, delay {server.s.delay_s:g} s; Ctrl-C stops)")


async def _serve(server: OverlayServer) -> int:
    try:
        await server.start()
    except OSError as err:
        print(f"cannot serve the overlay on {server.s.host}:{server.s.port}: {err.strerror}",
              file=sys.stderr)
        return 1
    print(announce(server, sys.stdout.isatty()), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop()
    return 0
