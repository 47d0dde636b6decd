"""``make demo ARGS="--tables 4 --tournament"``: a small tournament played out on simulated tables.

Every table is real except its hardware (``tablesvc.commands.tournament_room``): virtual
devices, its own edge service, the embedded broker (demo only). The tournament controller
runs in this process with its pages; a scripted director registers the players, draws the
seats, starts the clock, carries out every balancing suggestion a few seconds after it
appears and breaks a table when the others have room for its players, until one player has
all the chips. Levels are fast (a minute), so blinds rise at every table while you watch.
The pages' URLs are printed; open them in a browser. Ctrl-C stops.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from tablesvc.brokers.embedded import EmbeddedBroker
from tablesvc.brokers.mosquitto import free_port
from tablesvc.commands.logs import configure
from tablesvc.commands.tournament_room import Relay, RoomTable

VENUE = "demo"
SEATS = 9
PER_TABLE = 6
FIRST_NAMES = ("Anna", "Ben", "Clara", "David", "Eva", "Felix", "Greta", "Hannes", "Ida",
               "Jonas", "Klara", "Lukas", "Mia", "Noah", "Olga", "Paul", "Rosa", "Sven",
               "Tina", "Uwe", "Vera", "Willi", "Xenia", "Yusuf", "Zoe", "Arne", "Bea",
               "Carl", "Dora", "Emil")
SUGGESTION_SHOWN_S = 4.0
"""A balancing suggestion stays on the director's page this long before the scripted
director carries it out: long enough to be seen."""


def structure(level_minutes: float) -> str:
    """Fast levels from 25/50 with antes from level 4: a demo's tournament in minutes."""
    blinds = [(25, 50, 0), (50, 100, 0), (75, 150, 0), (100, 200, 25), (150, 300, 25),
              (200, 400, 50), (300, 600, 75), (400, 800, 100), (600, 1200, 200),
              (1000, 2000, 300), (1500, 3000, 500), (2500, 5000, 1000)]
    levels = "".join(
        f"[[levels]]\nlevel = {n}\nsmall_blind = {sb}\nbig_blind = {bb}\nante = {ante}\n"
        f'ante_mode = "big_blind"\nminutes = {level_minutes}\n'
        for n, (sb, bb, ante) in enumerate(blinds, 1))
    return (f'name = "Demo Cup"\ngame = "holdem"\nlimit = "no-limit"\nstarting_stack = 3000\n'
            f"{levels}[[breaks]]\nafter_level = 6\nminutes = {level_minutes / 2}\n"
            f'name = "Break"\n[payouts]\npercent = [50, 30, 20]\nbuy_in = 100\n')


class Director:
    """The scripted tournament director: the web API, as a person at the page uses it."""

    def __init__(self, port: int, say: Callable[[str], None]) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.say = say
        self.seen: dict[int, float] = {}
        self.told: set[str] = set()
        self.level: int | None = None
        self.done = threading.Event()

    def view(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.base}/api/view", timeout=5) as r:
            return dict(json.loads(r.read()))

    def act(self, action: str, **fields: Any) -> dict[str, Any]:
        req = urllib.request.Request(
            f"{self.base}/api/action", data=json.dumps({"action": action, **fields}).encode(),
            headers={"X-Tournament": "1", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return dict(json.loads(r.read()))
        except urllib.error.HTTPError as err:
            if err.code != 409:
                raise
            # refused (a suggestion the tables overtook, say): the answer says why
            return dict(json.loads(err.read()))

    def wait_ready(self, stop: threading.Event) -> bool:
        while not stop.is_set():
            try:
                self.view()
                return True
            except (OSError, urllib.error.URLError):
                stop.wait(0.1)
        return False

    def open(self, players: int) -> None:
        for i in range(players):
            self.act("register", name=FIRST_NAMES[i % len(FIRST_NAMES)]
                     + ("" if i < len(FIRST_NAMES) else f" {i // len(FIRST_NAMES) + 1}"))
        self.act("draw")
        self.act("start")
        self.say(f"{players} players drawn to their seats; the clock runs")

    def step(self, now: float) -> None:
        """One look at the page: carry out a suggestion shown long enough, break a table
        the others have room for, say who busted."""
        v = self.view()
        level = (v["clock"]["level"] or {}).get("number")
        if level != self.level and v["clock"]["level"]:
            lv = v["clock"]["level"]
            self.level = level
            self.say(f"level {level}: blinds {lv['small_blind']}/{lv['big_blind']}"
                     + (f", ante {lv['ante']}" if lv["ante"] else "") + " at every table")
        for b in reversed(v["busts"]):
            if b["player"] not in self.told and b["place"] != 1:
                self.told.add(b["player"])
                self.say(f"{b['name']} is out in place {b['place']} ({b['table']}, hand "
                         f"{b['hand']})")
        for s in v["suggestions"]:
            first = self.seen.setdefault(s["id"], now)
            if now - first >= SUGGESTION_SHOWN_S:
                answer = self.act("accept_suggestion", id=s["id"])
                if answer["ok"]:
                    self.say(f"balancing ({s['rule']}): {s['name']} moves from "
                             f"{s['from'][0]} seat {s['from'][1]} to {s['to'][0]} seat "
                             f"{s['to'][1]}")
        open_tables = [t for t in v["tables"] if t["open"]]
        left = v["field"]["players_left"]
        if len(open_tables) > 1 and not v["moves"] and \
                left <= (len(open_tables) - 1) * PER_TABLE:
            short = min(open_tables, key=lambda t: (len(t["players"]), t["table"]))
            if self.act("break_table", table=short["table"])["ok"]:
                self.say(f"table {short['table']} breaks: its players are drawn to free "
                         "seats elsewhere (never between the button and the small blind)")
        if left <= 1 and v["busts"]:
            winner = next(p for p in v["players"] if p["place"] == 1)
            self.say(f"[bold]{winner['name']} wins[/bold] ({winner['prize']} of the "
                     f"{v['field']['prize_pool']} prize pool)")
            self.done.set()

    def run(self, players: int, stop: threading.Event) -> None:
        if not self.wait_ready(stop):
            return
        try:
            self.open(players)
            while not stop.is_set() and not self.done.is_set():
                self.step(time.time())
                stop.wait(0.5)
        except (OSError, urllib.error.URLError) as err:
            if not stop.is_set():
                self.say(f"[red]the director's page stopped answering: {err}[/red]")


def run_tournament_demo(tables: int, pace: float, keep: bool, level_minutes: float = 1.0,
                        stop: threading.Event | None = None) -> int:
    from tablesvc.tournament.config import load_tournament_config
    from tablesvc.tournament.server import run_tournament

    stop = stop if stop is not None else threading.Event()
    console = Console(highlight=False)
    work = Path(tempfile.mkdtemp(prefix="tablesvc-tournament-demo-"))
    configure("json", "info", file=(work / "services.log").open("a"))
    port = free_port()
    broker = EmbeddedBroker(port)
    broker.start()
    ids = [f"t{n:02d}" for n in range(1, tables + 1)]
    room: dict[str, RoomTable] = {}
    relay: Relay | None = None
    dealers: list[threading.Thread] = []
    try:
        for n, table in enumerate(ids, 1):
            room[table] = RoomTable(work, table, VENUE, port, seed=n, pace=pace,
                                    small_blind=25, big_blind=50, seats=SEATS,
                                    aggression=0.25, all_in_share=0.15)
        for t in room.values():
            t.start()
        for t in room.values():
            t.service.ready.wait(30)
        relay = Relay(f"tablesvc/v1/{VENUE}", room, port)
        relay.ready.wait(10)
        for t in room.values():
            d = threading.Thread(target=t.deal, args=(stop,), daemon=True,
                                 name=f"deal-{t.id}")
            d.start()
            dealers.append(d)
        (work / "structure.toml").write_text(structure(level_minutes))
        web_port = free_port()
        cfg_path = work / "tournament.toml"
        listed = "".join(f'[[tables]]\nid = "{t}"\nseats = {SEATS}\n' for t in ids)
        cfg_path.write_text(
            f'[tournament]\nvenue = "{VENUE}"\nname = "Demo Cup"\nstructure = '
            f'"structure.toml"\n{listed}[mqtt]\nport = {port}\nusername = ""\n'
            f'protocol = "3.1.1"\n[web]\nport = {web_port}\n[storage]\n'
            f'path = "tournament.sqlite"\n')
        director = Director(web_port, lambda text: console.print(text))
        players = tables * PER_TABLE
        threading.Thread(target=director.run, args=(players, stop), daemon=True,
                         name="director").start()
        console.print(f"[bold]tablesvc tournament demo[/bold]: {tables} tables, {players} "
                      f"players, levels of {level_minutes:g} min; broker 127.0.0.1:{port} "
                      "(embedded)")
        console.print(f"work folder {work}; Ctrl-C stops")
        cfg, struct = load_tournament_config(cfg_path)
        # the controller in this thread: it prints its pages' URLs, stops on Ctrl-C
        return run_tournament(cfg, cfg_path, struct)
    finally:
        stop.set()
        for d in dealers:
            d.join(20)
        if relay is not None:
            relay.close()
        for t in room.values():
            t.close()
        broker.stop()
        if keep:
            console.print(f"work folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
