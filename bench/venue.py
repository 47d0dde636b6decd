"""Real tables for the floor console's tests and benchmarks: a virtual table and its own
``tablesvc run`` process per table, publishing to a broker under one venue.

The browser test unplugs a table by killing its service (the broker then publishes the will,
``status`` offline); the load bench records what a few real services publish and replays it
as many tables (``bench/floor.py``).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from simulators.scenario import SCENARIO_DIR, Scenario, load_scenario
from simulators.virtual import VirtualTableRig

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("Ann", "Ben", "Cy", "Di", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo")


class LiveTable:
    """One table: virtual devices on TCP ports, a config, and the service as a child process."""

    def __init__(self, folder: Path, venue: str, table: str, broker_port: int, *,
                 scenario: str | None = None, seats: dict[int, int] | None = None,
                 seed: int = 1, pace: float = 0.02, hands_pace: float | None = None) -> None:
        self.folder = folder
        self.venue, self.id, self.port = venue, table, broker_port
        self.scenario: Scenario | None = (load_scenario(SCENARIO_DIR / f"{scenario}.yaml")
                                          if scenario else None)
        setup = self.scenario.setup if self.scenario else None
        self.seats = dict(setup.seats) if setup else dict(seats or dict.fromkeys(range(1, 7),
                                                                                 10_000))
        self.button = setup.button if setup else None
        self.pace = pace
        folder.mkdir(parents=True, exist_ok=True)
        # TCP device ports (socket://), as a serial-over-LAN adapter would give: many tables
        # on one machine need no pty numbers
        self.rig = VirtualTableRig(
            folder / "sim", tcp=True, seats=self.seats, seed=seed, pace=hands_pace or pace,
            chips=folder / "chips.json",
            small_blind=setup.small_blind if setup else 50,
            big_blind=setup.big_blind if setup else 100,
            button=self.button, ante=setup.ante if setup else 0,
            variant=setup.variant if setup else "holdem")
        self.config = self._write_config()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = folder / "service.log"

    def _write_config(self) -> Path:
        rig = self.rig
        t = rig.table
        devices = "".join(f'[devices.{n}]\nurl = "{u}"\n' for n, u in rig.device_urls().items())
        players = "".join(f'[[players]]\nseat = {s}\nname = "{NAMES[s - 1]}"\nstack = {st}\n'
                          for s, st in self.seats.items())
        path = self.folder / "table.toml"
        path.write_text(
            f'[table]\nvenue = "{self.venue}"\nid = "{self.id}"\n'
            f'[game]\nvariant = "{t.variant}"\nsmall_blind = {t.small_blind}\n'
            f"big_blind = {t.big_blind}\nante = {t.ante}\n{devices}"
            f'[registry]\ndecks = "{rig.decks_dir}"\nchips = "{rig.chips_path}"\n{players}'
            f'[mqtt]\nport = {self.port}\nprotocol = "5"\n'
            f'[storage]\ndir = "{self.folder / "store"}"\n')
        return path

    def start(self) -> None:
        out = open(self.log, "ab")  # noqa: SIM115 - owned by the child
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablesvc.commands.cli", "run", "--config",
             str(self.config), "--log", "json"], stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)

    def command(self, name: str, body: dict[str, Any], timeout: float = 20.0) -> dict[str, Any]:
        """Send a controller command to the table (the button of a scenario, say) and wait
        for the table's reply, so that what follows meets the command carried out."""
        prefix = f"tablesvc/v1/{self.venue}/{self.id}/cmd/{name}"
        rid = f"venue-{name}-{id(body)}"
        got: list[dict[str, Any]] = []
        done = threading.Event()
        subscribed = threading.Event()

        def on_message(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
            reply = json.loads(msg.payload)
            if reply.get("request_id") == rid:
                got.append(reply)
                done.set()

        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                        protocol=mqtt.MQTTv5)
        c.on_message = on_message
        c.on_subscribe = lambda *a: subscribed.set()
        c.connect("127.0.0.1", self.port)
        c.loop_start()
        try:
            c.subscribe(f"{prefix}/reply", qos=1)
            if not subscribed.wait(timeout):
                raise RuntimeError("no SUBACK from the broker")
            c.publish(prefix, json.dumps({**body, "request_id": rid}), qos=1)
            if not done.wait(timeout):
                raise RuntimeError(f"table {self.id} did not answer cmd/{name}")
        finally:
            c.disconnect()
            c.loop_stop()
        return got[0]

    def play_scenario(self, pace: float | None = None) -> threading.Thread:
        """Play the table's scenario (its injected dealer errors) in the background."""
        assert self.scenario is not None
        if self.button is not None:
            self.command("button", {"seat": self.button})
        sc = self.scenario
        t = threading.Thread(target=self.rig.play_scenario, args=(sc,),
                             kwargs={"pace": self.pace if pace is None else pace},
                             name=f"scenario-{self.id}", daemon=True)
        t.start()
        return t

    def deal(self, hands: int | None = None) -> threading.Thread:
        return self.rig.start(hands)

    def unplug(self) -> None:
        """Pull the table's box off the network: the service dies, the broker sends its
        will."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.rig.close()


class FloorProcess:
    """``tablesvc floor`` as a child process on a free port of 127.0.0.1."""

    def __init__(self, folder: Path, venue: str, broker_port: int, extra: str = "",
                 storage: str = "floor.sqlite") -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.config = folder / "floor.toml"
        self.config.write_text(
            f'[floor]\nvenue = "{venue}"\nname = "Main hall"\n'
            f'[mqtt]\nport = {broker_port}\nusername = ""\n'
            f'[web]\nport = 0\n[storage]\npath = {json.dumps(storage)}\n{extra}')
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.log = folder / "floor.log"

    def start(self, timeout: float = 20.0) -> str:
        """Start the console; its URL once it listens."""
        err = open(self.log, "a")  # noqa: SIM115 - owned by the child
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablesvc.commands.cli", "floor", "--config",
             str(self.config), "--log", "json"], stdout=subprocess.PIPE, stderr=err, text=True,
            cwd=ROOT)
        assert self.proc.stdout is not None
        box: list[str] = []
        reader = threading.Thread(target=lambda: box.append(self.proc.stdout.readline()  # type: ignore[union-attr]
                                                            ), daemon=True)
        reader.start()
        reader.join(timeout)
        line = box[0] if box else ""
        if "://" not in line:
            raise RuntimeError(f"the floor console did not start: {line!r}; see {self.log}")
        self.url = line.strip().rsplit(" ", 1)[-1]
        return self.url

    def stop(self) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.terminate()
        try:
            return self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(10)
