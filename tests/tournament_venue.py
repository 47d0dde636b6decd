"""A venue that plays a tournament, for the tests: mosquitto, simulated tables with their edge
services (``tablesvc.commands.tournament_room``), and the controller as its own process
(``tablesvc tournament``), driven through its web API as the director drives it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tablesvc.brokers.mosquitto import Mosquitto, free_port, wait_until
from tablesvc.commands.tournament_room import Relay, RoomTable

VENUE = "v1"
PREFIX = f"tablesvc/v1/{VENUE}"

STRUCTURE = """name = "Test Cup"
game = "holdem"
limit = "no-limit"
starting_stack = 2000
[[levels]]
level = 1
small_blind = 25
big_blind = 50
minutes = 60
[[levels]]
level = 2
small_blind = 50
big_blind = 100
minutes = 60
[[levels]]
level = 3
small_blind = 100
big_blind = 200
minutes = 60
[payouts]
percent = [65, 35]
buy_in = 50
"""


class Controller:
    """``tablesvc tournament`` in its own process, which a test may kill and start again."""

    def __init__(self, work: Path, broker_port: int, tables: dict[str, int]) -> None:
        self.work = work
        self.web_port = free_port()
        (work / "structure.toml").write_text(STRUCTURE)
        listed = "".join(f'[[tables]]\nid = "{t}"\nseats = {n}\n' for t, n in tables.items())
        self.config = work / "tournament.toml"
        self.config.write_text(
            f'[tournament]\nvenue = "{VENUE}"\nname = "Test Cup"\n'
            f'structure = "structure.toml"\n{listed}'
            f'[mqtt]\nport = {broker_port}\nusername = ""\n'
            f'[web]\nport = {self.web_port}\n[storage]\npath = "tournament.sqlite"\n')
        self.proc: subprocess.Popen[bytes] | None = None
        self.runs = 0

    def start(self) -> None:
        self.runs += 1
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablesvc.commands.cli", "tournament", "--config",
             str(self.config), "--log", "json"],
            stdout=(self.work / f"controller-{self.runs}.out").open("wb"),
            stderr=(self.work / f"controller-{self.runs}.err").open("wb"), env=env)
        wait_until(self._answers, 30, "the controller's pages to answer")

    def _answers(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError("the controller ended: "
                                 + (self.work / f"controller-{self.runs}.err").read_text())
        try:
            self.view()
        except (OSError, urllib.error.URLError):
            return False
        return True

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.terminate()
        return self.proc.wait(15)

    def view(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.web_port}/api/view",
                                    timeout=5) as r:
            return dict(json.loads(r.read()))

    def act(self, action: str, **fields: Any) -> dict[str, Any]:
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.web_port}/api/action",
            data=json.dumps({"action": action, **fields}).encode(),
            headers={"X-Tournament": "1", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            answer = dict(json.loads(r.read()))
        assert answer["ok"], answer
        return answer


class Room:
    """The simulated tables of a venue, their services and the room's ear (``Relay``)."""

    def __init__(self, work: Path, broker: Mosquitto, tables: dict[str, int],
                 pace: float = 0.05, aggression: float = 0.0) -> None:
        self.tables = {
            t: RoomTable(work, t, VENUE, broker.port, seed=i, pace=pace, small_blind=25,
                         big_blind=50, seats=n, aggression=aggression)
            for i, (t, n) in enumerate(tables.items(), 1)}
        for t in self.tables.values():
            t.start()
        for t in self.tables.values():
            assert t.service.ready.wait(30), f"{t.id} did not start"
        self.relay = Relay(PREFIX, self.tables, broker.port)
        assert self.relay.ready.wait(10)
        self.stop = threading.Event()
        self.dealers: list[threading.Thread] = []

    def deal(self) -> None:
        for t in self.tables.values():
            d = threading.Thread(target=t.deal, args=(self.stop,), daemon=True,
                                 name=f"deal-{t.id}")
            d.start()
            self.dealers.append(d)

    def close(self) -> None:
        self.stop.set()
        for d in self.dealers:
            d.join(20)
        self.relay.close()
        for t in self.tables.values():
            t.close()
