"""``make demo``: a simulated table, the real service and a live event stream, in one command.

Everything is real except the hardware and the broker: virtual devices speak TSP/1 on pty
pairs, the service opens those device paths exactly as it would open /dev/ttyUSB0, publishes
through an embedded MQTT broker (amqtt, MQTT 3.1.1, demo only), a subscriber prints every
event as one line, and the broadcast overlay serves its page (the URL is printed).

``--variant`` picks the game: hold'em (no-limit), pot-limit Omaha, or five-card draw. The
service's config says the same game and betting structure as the virtual table.

Ctrl-C (or SIGTERM) ends the demo as a dealer ends his shift: the hand under way is dealt to
its end at a quick pace (``FINISH_PACE`` between actions at most, never all at once) and no
other hand begins; once the service has published that hand's ``hand_ended``, the service
stops, then the devices. A second Ctrl-C abandons the hand instead: the service stops first,
so that nothing the dealer does after is judged, and the demo says which hand it abandoned.
Either way the demo exits 0 and raises no alert the dealer did not earn.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from rich.console import Console

from simulators.virtual import VirtualTableRig
from tablesvc.brokers.embedded import EmbeddedBroker
from tablesvc.brokers.mosquitto import free_port, port_free
from tablesvc.commands.logs import configure
from tablesvc.commands.render import render
from tablesvc.config.table import ConfigError, load_config
from tablesvc.overlay.server import OverlayServer, OverlaySettings, start_in_thread, stop_thread
from tablesvc.pipeline.service import Service

PLAYERS = {1: "Alice", 2: "Bob", 3: "Carol", 4: "Dave", 5: "Erin", 6: "Frank"}
FINISH_PACE = 0.05
"""The most time between the dealer's actions once Ctrl-C asked him to finish his hand: a quick
hand, each action still seen apart from the one before (the pace ``make demo``'s test deals
its whole hand at, without a warning)."""
HAND_END_WAIT = 20.0
"""How long the demo waits for the service to publish the end of the hand it finished."""


def write_config(work: Path, rig: VirtualTableRig, port: int, stack: int,
                 overlay_port: int = 8765) -> Path:
    """The service's config for the rig's table: the same game, stakes, devices and tags."""
    table = rig.table
    devices = "".join(f'[devices.{n}]\nurl = "{u}"\n' for n, u in rig.device_urls().items())
    players = "".join(f'[[players]]\nseat = {s}\nname = "{n}"\nstack = {stack}\n'
                      for s, n in PLAYERS.items())
    path = work / "table.toml"
    path.write_text(
        f'[table]\nvenue = "demo"\nid = "t01"\nseats = 10\n\n'
        f'[game]\nvariant = "{table.variant}"\nlimit = "{table.limit.value}"\n'
        f"small_blind = {table.small_blind}\nbig_blind = {table.big_blind}\n"
        f"ante = {table.ante}\n\n"
        f"{devices}\n"
        f'[registry]\ndecks = "{rig.decks_dir}"\nchips = "{rig.chips_path}"\n\n{players}\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\nprotocol = "auto"\n\n'
        f'[storage]\ndir = "{work / "store"}"\n\n'
        f"[overlay]\nport = {overlay_port}\n"
    )
    return path


def _overlay_port() -> int:
    """8765 (the overlay's default) when it is free, so the URL stays the same run to run."""
    return 8765 if port_free(8765) else free_port()


class Watcher:
    """The demo's subscriber: prints public and secure events, one line each."""

    def __init__(self, port: int, console: Console) -> None:
        self.console = console
        self.online = threading.Event()
        self.hands_ended = 0
        self.hand_under_way: int | None = None
        """The number of the hand begun (``hand_started``) and not yet ended, if any."""
        self.last_ended: int | None = None
        """The number of the last hand ended (``hand_ended``)."""
        self.last_seq = 0
        self.client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                                  protocol=mqtt.MQTTv311, client_id="demo-watcher")
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, *args: Any) -> None:
        client.subscribe([("tablesvc/v1/demo/t01/events", 1),
                          ("tablesvc/v1/demo/t01/secure/events", 1),
                          ("tablesvc/v1/demo/t01/status", 1)])

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        payload = json.loads(msg.payload)
        if msg.topic.endswith("/status"):
            if payload.get("state") == "online":
                self.online.set()
            return
        self.console.print(render(payload, secure="/secure/" in msg.topic))
        if payload.get("type") == "hand_started":
            self.hand_under_way = payload.get("hand")
        if payload.get("type") == "hand_ended":
            self.hands_ended += 1
            self.hand_under_way = None
            self.last_ended = payload.get("hand")
        self.last_seq = max(self.last_seq, int(payload.get("seq", 0)))

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _finish_hand(console: Console, rig: VirtualTableRig, dealer: threading.Thread,
                 watcher: Watcher, service: Service, worker: threading.Thread,
                 abandon: threading.Event, pace: float) -> None:
    """Ctrl-C: the dealer deals the hand under way to its end at ``pace`` and no other; the
    service publishes its end. A second Ctrl-C (``abandon``) stops the service first, so that
    nothing dealt after is judged (a hand dealt at once, its frames racing each other, would
    be judged premature), and says which hand was abandoned."""
    under_way = watcher.hand_under_way
    if under_way is not None:
        console.print(f"[bold]Ctrl-C[/bold]: the dealer finishes hand {under_way} and deals no "
                      "other (Ctrl-C again abandons it)")
    else:
        console.print("[bold]Ctrl-C[/bold]: the dealer deals no other hand")
    rig.finish(pace)
    while dealer.is_alive() and not abandon.is_set():
        dealer.join(0.1)
    # the service publishes the end of every hand the dealer dealt, a moment after its frames
    deadline = time.monotonic() + HAND_END_WAIT
    while (watcher.hands_ended < rig.table.hands_played and not abandon.is_set()
           and time.monotonic() < deadline):
        abandon.wait(0.05)
    if watcher.hands_ended >= rig.table.hands_played and watcher.hand_under_way is None:
        console.print(f"hand {watcher.last_ended} ended: the demo stops"
                      if watcher.last_ended is not None else "the demo stops before its first hand")
        return
    left = watcher.hand_under_way or under_way
    # abandoned: the dealer stands still, the service stops before he moves again
    rig.pause()
    service.stop()
    worker.join(10)
    console.print(f"hand {left} abandoned: the service stopped before its end, and judges "
                  "nothing dealt after")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="make demo", description=__doc__)
    p.add_argument("--hands", type=int, default=None, help="deal this many hands, then exit")
    p.add_argument("--seed", type=int, default=None, help="shuffle seed (default: random)")
    p.add_argument("--pace", type=float, default=0.25, help="seconds between dealer actions")
    p.add_argument("--stack", type=int, default=10_000)
    p.add_argument("--variant", choices=["holdem", "omaha", "draw5"], default="holdem",
                   help="hold'em (no-limit), omaha (pot-limit Omaha: four hole cards), or "
                   "draw5 (five-card draw: antes, no blinds)")
    p.add_argument("--ante", type=int, default=0,
                   help="ante per seat; draw5 with 0 antes one smallest chip")
    p.add_argument("--keep", action="store_true", help="keep the work folder (journal, logs)")
    p.add_argument("--tables", type=int, default=1,
                   help="with --floor or --tournament: how many tables")
    p.add_argument("--floor", action="store_true",
                   help="a venue of tables (some with dealer errors) and the floor console")
    p.add_argument("--tournament", action="store_true",
                   help="a small tournament with fast levels played out on simulated tables, "
                   "with the tournament controller's pages")
    p.add_argument("--level-minutes", type=float, default=1.0,
                   help="with --tournament: the length of a level")
    args = p.parse_args(argv)
    if args.tournament:
        from tablesvc.commands.demo_tournament import run_tournament_demo

        return run_tournament_demo(max(2, min(args.tables, 20)),
                                   args.pace if args.pace != 0.25 else 0.1, args.keep,
                                   args.level_minutes)
    if args.floor:
        from tablesvc.commands.demo_floor import run_venue

        return run_venue(max(1, min(args.tables, 20)), args.pace, args.keep,
                         threading.Event())

    console = Console(highlight=False)
    work = Path(tempfile.mkdtemp(prefix="tablesvc-demo-"))
    configure("json", "info", file=(work / "service.log").open("a"))
    stop = threading.Event()  # the first Ctrl-C: finish the hand under way, then stop
    abandon = threading.Event()  # the second: stop the service now, the hand is abandoned

    def on_signal(signum: int, frame: FrameType | None) -> None:
        (abandon if stop.is_set() else stop).set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    port = free_port()
    broker = EmbeddedBroker(port)
    broker.start()
    rig = VirtualTableRig(work / "sim", seats=dict.fromkeys(PLAYERS, args.stack),
                          seed=args.seed, pace=args.pace, chips=work / "chips.json",
                          variant=args.variant, ante=args.ante)
    cfg_path = write_config(work, rig, port, args.stack, overlay_port=_overlay_port())
    try:
        cfg = load_config(cfg_path)
    except ConfigError as err:  # a game the service cannot be configured for (yet)
        rig.close()
        broker.stop()
        console.print(f"[red]the service does not take the demo's table: {err}[/red]")
        if args.keep:
            console.print(f"\nwork folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
        return 2
    service = Service(cfg, cfg_path)
    overlay = OverlayServer(cfg, OverlaySettings.load(cfg, cfg_path))
    worker = threading.Thread(target=service.run, name="service", daemon=True)
    watcher = Watcher(port, console)
    console.print(f"[bold]tablesvc demo[/bold]: virtual table on ptys {rig.device_urls()}")
    console.print(f"broker 127.0.0.1:{port} (embedded) · journal and logs in {work}")
    code = 0
    overlay_thread = None
    try:
        overlay_thread = start_in_thread(overlay)
        url = overlay.url(with_token=True)  # the demo's own token, in its work folder
        console.print(f"[bold]broadcast overlay[/bold] (OBS browser source, 1920x1080): "
                      f"{url}  · in a browser: {url}&background=felt\n", soft_wrap=True)
        worker.start()
        if not watcher.online.wait(20) or not service.ready.wait(5):
            console.print("[red]the service did not come online; see the log in "
                          f"{work}[/red]")
            return 1
        stop.wait(1.0)  # the ports open and the devices say HELLO
        if stop.is_set():
            return 0
        dealer = rig.start(args.hands)
        while dealer.is_alive() and not stop.is_set():
            dealer.join(0.2)
        if stop.is_set():
            _finish_hand(console, rig, dealer, watcher, service, worker, abandon,
                         min(args.pace, FINISH_PACE))
            return 0
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not stop.is_set():
            if args.hands is not None and watcher.hands_ended >= args.hands:
                break
            time.sleep(0.1)
    finally:
        if overlay_thread is not None:
            stop_thread(*overlay_thread)
        # the service first: a device unplugged under a running service is an alert
        # (device_offline), and the end of a demo is not a fault of the table
        service.stop()
        worker.join(10)
        rig.close()
        watcher.close()
        broker.stop()
        if args.keep:
            console.print(f"\nwork folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.hands is not None and watcher.hands_ended < args.hands and not stop.is_set():
        console.print(f"[red]only {watcher.hands_ended} of {args.hands} hands seen[/red]")
        code = 1
    return code


if __name__ == "__main__":
    sys.exit(main())
