"""``tablesvc sim --config``: virtual devices for a configured table, for a separately run service.

The simulator package never imports the service's core; this module only translates the
config into the simulator's plain parameters and prints what to put in the service's config.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from simulators.virtual import VirtualTableRig
from tablesvc.config import Config, resolve

DEFAULT_SEATS = {s: 10_000 for s in range(1, 7)}


def run_sim(cfg: Config, cfg_path: Path, args: argparse.Namespace) -> int:
    folder = (Path(args.dir) if args.dir else resolve(cfg_path, cfg.storage.dir) / "sim").resolve()
    seats = {p.seat: p.stack for p in cfg.players} or DEFAULT_SEATS
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    rig = VirtualTableRig(
        folder, tcp=args.tcp, decks=resolve(cfg_path, cfg.registry.decks),
        chips=resolve(cfg_path, cfg.registry.chips), seats=seats,
        small_blind=cfg.game.small_blind, big_blind=cfg.game.big_blind, seed=args.seed,
        pace=args.pace,
    )
    try:
        print("# virtual devices are up; put these into the service's config:")
        for name, url in rig.device_urls().items():
            print(f'[devices.{name}]\nurl = "{url}"')
        if not cfg.players:
            seated = ", ".join(f"{s}: {st}" for s, st in seats.items())
            print(f"# no [[players]] in the config: the virtual table seats {seated}; seat "
                  "them in the service too (cmd/seat)")
        sys.stdout.flush()
        if stop.wait(args.wait):
            return 0
        dealer = rig.start(args.hands)
        while dealer.is_alive() and not stop.is_set():
            dealer.join(0.2)
        if args.hands is None or stop.is_set():
            return 0
        stop.wait(1.0)  # let the last frames drain before the ports close
        return 0
    finally:
        rig.close()
