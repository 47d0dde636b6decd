"""``make demo ARGS="--tables 4 --floor"``: a venue of simulated tables and the floor console.

Every table is real except its hardware: virtual devices on TCP ports, its own edge service
(in this process), all publishing through the embedded broker (demo only). Every second table
has a dealer who makes mistakes (a test scenario of RULES.md §4, played again now and then);
the others deal clean hands. The console's URL is printed; open it in a browser.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from rich.console import Console

from simulators.scenario import SCENARIO_DIR, Scenario, load_scenario
from simulators.virtual import VirtualTableRig
from tablesvc.brokers.embedded import EmbeddedBroker
from tablesvc.brokers.mosquitto import free_port
from tablesvc.commands.logs import configure
from tablesvc.config.table import load_config
from tablesvc.pipeline.service import Service

NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Gina", "Hugo", "Iris", "Jack")
ERRORS = ("t10_flop_without_burn", "t02_misdeal_two_exposed")
"""The dealer errors of the demo: a flop without a burn (critical, held until the floor
acknowledges it), two hole cards exposed (a warning, then a misdeal)."""
VENUE = "demo"


class DemoTable:
    def __init__(self, work: Path, table: str, port: int, scenario: str | None,
                 pace: float, seed: int) -> None:
        self.id, self.port = table, port
        self.scenario: Scenario | None = (load_scenario(SCENARIO_DIR / f"{scenario}.yaml")
                                          if scenario else None)
        setup = self.scenario.setup if self.scenario else None
        seats = dict(setup.seats) if setup else dict.fromkeys(range(1, 7), 10_000)
        folder = work / table
        self.rig = VirtualTableRig(
            folder / "sim", tcp=True, seats=seats, seed=seed, pace=pace,
            chips=folder / "chips.json", small_blind=setup.small_blind if setup else 50,
            big_blind=setup.big_blind if setup else 100,
            button=setup.button if setup else None)
        devices = "".join(f'[devices.{n}]\nurl = "{u}"\n'
                          for n, u in self.rig.device_urls().items())
        players = "".join(f'[[players]]\nseat = {s}\nname = "{NAMES[s - 1]}"\nstack = {st}\n'
                          for s, st in seats.items())
        t = self.rig.table
        cfg = folder / "table.toml"
        cfg.write_text(
            f'[table]\nvenue = "{VENUE}"\nid = "{table}"\n[game]\nsmall_blind = '
            f"{t.small_blind}\nbig_blind = {t.big_blind}\n{devices}"
            f'[registry]\ndecks = "{self.rig.decks_dir}"\nchips = "{self.rig.chips_path}"\n'
            f'{players}[mqtt]\nport = {port}\nprotocol = "3.1.1"\n'
            f'[storage]\ndir = "{folder / "store"}"\n')
        self.service = Service(load_config(cfg), cfg)
        self.thread = threading.Thread(target=self.service.run, name=f"service-{table}",
                                       daemon=True)

    def button(self, seat: int) -> None:
        """The controller's cmd/button, answered before the scenario's hand starts."""
        answered = threading.Event()
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                        protocol=mqtt.MQTTv311)
        c.on_message = lambda *a: answered.set()
        c.connect("127.0.0.1", self.port)
        c.loop_start()
        prefix = f"tablesvc/v1/{VENUE}/{self.id}/cmd/button"
        c.subscribe(prefix + "/reply", qos=1)
        time.sleep(0.2)
        c.publish(prefix, json.dumps({"seat": seat}), qos=1)
        answered.wait(10)
        c.disconnect()
        c.loop_stop()

    def deal(self, stop: threading.Event) -> None:
        if self.scenario is None:
            self.rig.start()
            return
        while not stop.is_set():
            self.button(self.scenario.setup.button)
            self.rig.play_scenario(self.scenario, pace=0.02, stop=stop)
            stop.wait(45)  # the next mistake, now and then

    def close(self) -> None:
        # the service first: devices unplugged under it would be device_offline alerts
        self.service.stop()
        self.thread.join(10)
        self.rig.close()


def run_venue(tables: int, pace: float, keep: bool, stop: threading.Event) -> int:
    from tablesvc.floor.config import load_floor_config
    from tablesvc.floor.server import run_floor

    console = Console(highlight=False)
    work = Path(tempfile.mkdtemp(prefix="tablesvc-floor-demo-"))
    configure("json", "info", file=(work / "services.log").open("a"))
    port = free_port()
    broker = EmbeddedBroker(port)
    broker.start()
    venue: list[DemoTable] = []
    dealers: list[threading.Thread] = []
    try:
        for n in range(1, tables + 1):
            scenario = ERRORS[(n // 2 - 1) % len(ERRORS)] if n % 2 == 0 else None
            venue.append(DemoTable(work, f"t{n:02d}", port, scenario, pace, seed=n))
        for t in venue:
            t.thread.start()
        for t in venue:
            t.service.ready.wait(20)
        time.sleep(1.5)  # the devices say HELLO
        for t in venue:
            d = threading.Thread(target=t.deal, args=(stop,), daemon=True, name=f"deal-{t.id}")
            d.start()
            dealers.append(d)
        floor_cfg = work / "floor.toml"
        web_port = free_port()
        floor_cfg.write_text(
            f'[floor]\nvenue = "{VENUE}"\nname = "Demo hall"\n'
            f'[mqtt]\nport = {port}\nusername = ""\nprotocol = "3.1.1"\n'
            f'[web]\nport = {web_port}\n[storage]\npath = "floor.sqlite"\n')
        console.print(f"[bold]tablesvc floor demo[/bold]: {tables} tables, broker "
                      f"127.0.0.1:{port} (embedded); tables "
                      + ", ".join(f"{t.id}{' (dealer errors)' if t.scenario else ''}"
                                  for t in venue))
        console.print(f"work folder {work}; Ctrl-C stops")
        # the console in this thread: it prints its URL and stops on Ctrl-C / SIGTERM
        code = run_floor(load_floor_config(floor_cfg), floor_cfg)
        stop.set()
        return code
    finally:
        stop.set()
        for t in venue:
            t.close()
        broker.stop()
        if keep:
            console.print(f"work folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def main_args(args: Any, stop: threading.Event) -> int:
    return run_venue(args.tables, args.pace, args.keep, stop)
