"""The tournament controller at a venue's scale (issue 29): ``python -m bench --only tournament``.

A real mosquitto, the real controller process (``tablesvc tournament``) and 100 tables with
1,000 players. The tables are simulated at the MQTT level by this process (``Venue``): each
has its retained ``status`` and ``state`` (the shape of ``TableCore.snapshot``), answers
every ``cmd/<name>`` as a table service does and publishes its new ``state`` after a
``seat`` or ``unseat``; a hand is its public ``hand_started`` and ``hand_ended`` events with
the table's next ``seq``. The director is this process too, through the controller's HTTP
API, and a page is a WebSocket client of ``/ws``.

Timed, in each run:

1. **A level to every table**: from the director's ``advance`` (the POST leaving this
   process) to each table's ``configure`` for the new level arriving at the table, the 100th
   table's being the figure: a level change has reached the room when the last table has it.
2. **A count or a bust to the pages**: from a table's ``hand_ended`` leaving this process to
   the first ``/ws`` view showing it (the loser's and the winner's new stacks in
   ``players``, or the busted player in ``busts``), hands at a room's rate (``--tournament-rate``
   a second over the venue; 100 tables dealing a hand a minute each is about 2) and in bursts
   (every table ending a hand at once).

Beside them, in the same run: a bare broker round trip (one QoS 1 message from one client to
another, before and after), and the controller's CPU seconds per phase.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench.baselines import Spread, broker_rtt_ms, spread
from tablesvc.brokers.mosquitto import Mosquitto, free_port, wait_until

VENUE = "bench"
PREFIX = f"tablesvc/v1/{VENUE}"
STACK = 20_000
LEVELS = 30
TICK_HZ = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def structure_toml() -> str:
    """Levels of an hour each (the clock never moves a level by itself during the bench),
    enough of them for every ``advance`` of a run."""
    levels = "".join(
        f"[[levels]]\nlevel = {n}\nsmall_blind = {50 * n}\nbig_blind = {100 * n}\n"
        f"ante = {10 * n}\nminutes = 60\n" for n in range(1, LEVELS + 1))
    return (f'name = "Bench Cup"\ngame = "holdem"\nlimit = "no-limit"\n'
            f"starting_stack = {STACK}\n{levels}"
            "[payouts]\npercent = [30, 20, 15, 10, 8, 6, 5, 4, 2]\nbuy_in = 100\n")


# ---------------------------------------------------------------------- the controller
class Controller:
    """``tablesvc tournament`` in its own process, driven through its HTTP API."""

    def __init__(self, work: Path, broker_port: int, tables: list[str], seats: int) -> None:
        self.work = work
        self.port = free_port()
        (work / "structure.toml").write_text(structure_toml())
        listed = "".join(f'[[tables]]\nid = "{t}"\nseats = {seats}\n' for t in tables)
        self.config = work / "tournament.toml"
        self.config.write_text(
            f'[tournament]\nvenue = "{VENUE}"\nname = "Bench Cup"\n'
            f'structure = "structure.toml"\n{listed}'
            f'[mqtt]\nport = {broker_port}\nusername = ""\n'
            f'[web]\nport = {self.port}\n[storage]\npath = "tournament.sqlite"\n')
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablesvc.commands.cli", "tournament", "--config",
             str(self.config), "--log", "json"],
            stdout=(self.work / "controller.out").open("wb"),
            stderr=(self.work / "controller.err").open("wb"),
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        wait_until(self._answers, 30, "the controller's pages to answer")

    def _answers(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise RuntimeError("the controller ended: "
                               + (self.work / "controller.err").read_text()[-2000:])
        try:
            self.view()
        except (OSError, urllib.error.URLError):
            return False
        return True

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def cpu_s(self) -> float:
        """The controller's CPU seconds so far (user + system)."""
        assert self.proc is not None
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK_HZ

    def view(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/view", timeout=30) as r:
            return dict(json.loads(r.read()))

    def act(self, action: str, **fields: Any) -> dict[str, Any]:
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/api/action",
            data=json.dumps({"action": action, **fields}).encode(),
            headers={"X-Tournament": "1", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            answer = dict(json.loads(r.read()))
        if not answer.get("ok"):
            raise RuntimeError(f"{action} refused: {answer}")
        return answer


# ---------------------------------------------------------------------- the tables
@dataclass
class Table:
    id: str
    seats: dict[int, tuple[str, int]] = field(default_factory=dict)  # seat -> (name, stack)
    seq: int = 0
    hand: int = 0
    button: int | None = None
    level: dict[str, Any] | None = None
    leaving: int | None = None  # the seat of a player busted in the hand under way


class Venue:
    """Every table of the room on one MQTT connection: retained ``status`` and ``state``,
    commands carried out and answered, hands played on demand."""

    def __init__(self, port: int, ids: list[str]) -> None:
        self.tables = {t: Table(t) for t in ids}
        self.lock = threading.Lock()
        self.configured: dict[tuple[str, int], float] = {}  # (table, level) -> arrival
        self.refused = 0
        self.ready = threading.Event()
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                        protocol=mqtt.MQTTv5, client_id=f"bench-venue-{os.getpid()}")
        c.max_inflight_messages_set(10_000)
        c.max_queued_messages_set(0)
        c.on_connect = lambda cl, *a: cl.subscribe(f"{PREFIX}/+/cmd/+", qos=1)
        c.on_subscribe = lambda *a: self.ready.set()
        c.on_message = self._on_message
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.client = c
        if not self.ready.wait(10):
            raise RuntimeError("the bench's tables could not subscribe")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def online(self) -> None:
        for t in self.tables.values():
            self._publish(t.id, "status", {"state": "online", "boot": 1}, retain=True)
            self.publish_state(t)

    def configured_at(self, level: int) -> int:
        """How many tables have had a ``configure`` for ``level``."""
        with self.lock:
            return sum(1 for (_, x) in self.configured if x == level)

    def seated(self) -> int:
        with self.lock:
            return sum(len(t.seats) for t in self.tables.values())

    def _publish(self, table: str, sub: str, body: dict[str, Any], retain: bool = False) -> None:
        self.client.publish(f"{PREFIX}/{table}/{sub}", json.dumps(body), qos=1, retain=retain)

    def publish_state(self, t: Table, in_hand: bool = False) -> None:
        """The retained ``state`` as ``TableCore.snapshot`` writes it."""
        with self.lock:
            players = [{"seat": s, "name": n, "stack": st}
                       for s, (n, st) in sorted(t.seats.items())]
        self._publish(t.id, "state", {
            "hand": t.hand if in_hand else None, "variant": "holdem", "in_hand": in_hand,
            "button": t.button, "level": t.level, "pending_level": None, "street": None,
            "board": [], "active": sorted(t.seats) if in_hand else [], "pot": 0,
            "players": players, "devices": {}, "open_alerts": [], "last_seq": t.seq},
            retain=True)

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        arrived = time.perf_counter()
        table, _, rest = msg.topic.removeprefix(PREFIX + "/").partition("/")
        cmd = rest.removeprefix("cmd/")
        t = self.tables.get(table)
        try:
            body = json.loads(msg.payload)
        except ValueError:
            return
        if t is None or not isinstance(body, dict):
            return
        ok, error = True, None
        with self.lock:
            if cmd == "configure":
                self.configured.setdefault((table, int(body.get("level", 0))), arrived)
                t.level = {k: body.get(k) for k in ("level", "small_blind", "big_blind",
                                                    "ante", "ante_mode")}
            elif cmd == "seat":
                if body["seat"] in t.seats:
                    ok, error = False, f"seat {body['seat']} is taken"
                    self.refused += 1
                else:
                    t.seats[int(body["seat"])] = (str(body["name"]), int(body["stack"]))
            elif cmd == "unseat":
                t.seats.pop(int(body["seat"]), None)
        self._publish(table, f"cmd/{cmd}/reply",
                      {"request_id": body.get("request_id"), "ok": ok, "error": error})
        if cmd in ("seat", "unseat"):
            self.publish_state(t)

    def hand(self, table: str, bust: bool,
             rng: random.Random) -> tuple[dict[str, Any], Expect] | None:
        """One hand at ``table``: one player loses chips to another (all of them when
        ``bust``). Its ``hand_started`` is published; its ``hand_ended`` returned for
        ``end``, with what a page must show of it."""
        t = self.tables[table]
        with self.lock:
            if len(t.seats) < 2:
                return None
            order = sorted(t.seats)
            loser, winner = rng.sample(order, 2)
            names = {s: t.seats[s][0] for s in order}
            start = {s: t.seats[s][1] for s in order}
            amount = start[loser] if bust else rng.randint(1, max(1, start[loser] // 4))
            end = dict(start)
            end[loser] -= amount
            end[winner] += amount
            t.button = order[(order.index(t.button) + 1) % len(order)] \
                if t.button in order else order[0]
            ring = order[order.index(t.button) + 1:] + order[:order.index(t.button) + 1]
            t.hand += 1
            t.seq += 1
            started = {"v": 1, "venue": VENUE, "table": table, "seq": t.seq, "hand": t.hand,
                       "ts": _iso(), "type": "hand_started", "variant": "holdem",
                       "limit": "no-limit", "button": t.button,
                       "small_blind_seat": ring[0], "big_blind_seat": ring[1],
                       "seats": [{"seat": s, "name": names[s], "stack": start[s]}
                                 for s in order],
                       "small_blind": 50, "big_blind": 100, "ante": 0, "ante_mode": "each"}
            t.seq += 1
            ended = {"v": 1, "venue": VENUE, "table": table, "seq": t.seq, "hand": t.hand,
                     "ts": _iso(), "type": "hand_ended", "reason": "showdown",
                     "stacks": [{"seat": s, "name": names[s], "stack": end[s]} for s in order],
                     "board": [], "cards_used": 9}
            for s in order:
                t.seats[s] = (names[s], end[s])
            t.leaving = loser if bust else None
        self._publish(table, "events", started)
        self.publish_state(t, in_hand=True)
        return ended, Expect(bust=names[loser] if bust else None,
                             stacks={} if bust else {names[loser]: end[loser],
                                                     names[winner]: end[winner]})

    def end(self, ended: dict[str, Any], expect: Expect, page: Page) -> None:
        """Publish a hand's ``hand_ended`` (timed from here) and the table's new ``state``."""
        t = self.tables[ended["table"]]
        with self.lock:
            if t.leaving is not None:
                del t.seats[t.leaving]  # out: the dealer lets him go once the hand is over
                t.leaving = None
        expect.sent = time.perf_counter()
        page.expect(expect)
        self._publish(t.id, "events", ended)
        self.publish_state(t)


def _iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())


# ---------------------------------------------------------------------- the page
@dataclass
class Expect:
    """What a page must show of a hand: a bust (by name) or new stacks (name -> stack)."""

    bust: str | None
    stacks: dict[str, int]
    sent: float = 0.0
    shown: float | None = None

    def met(self, busts: set[str], stacks: dict[str, int | None]) -> bool:
        if self.bust is not None:
            return self.bust in busts
        return all(stacks.get(n) == s for n, s in self.stacks.items())


class Page:
    """A page of the controller: a ``/ws`` client on a thread of its own, which checks every
    view it receives against the hands still waiting to be shown."""

    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}/ws"
        self.lock = threading.Lock()
        self.waiting: list[Expect] = []
        self.views = 0
        self.bytes = 0
        self.connected = threading.Event()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True,
                                       name="bench-page")
        self.thread.start()
        if not self.connected.wait(30):
            raise RuntimeError("the page could not connect to /ws")

    def expect(self, e: Expect) -> None:
        with self.lock:
            self.waiting.append(e)

    async def _run(self) -> None:
        async with aiohttp.ClientSession() as s, \
                s.ws_connect(self.url, max_msg_size=64 << 20) as ws:
            self.connected.set()
            while not self._stop.is_set():
                try:
                    msg = await ws.receive(timeout=0.5)
                except TimeoutError:
                    continue
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                at = time.perf_counter()
                view = json.loads(msg.data)["view"]
                self.views += 1
                self.bytes += len(msg.data)
                busts = {b["name"] for b in view["busts"]}
                stacks = {p["name"]: p["stack"] for p in view["players"]}
                with self.lock:
                    still = []
                    for e in self.waiting:
                        if e.met(busts, stacks):
                            e.shown = at
                        else:
                            still.append(e)
                    self.waiting = still

    def close(self) -> None:
        self._stop.set()
        self.thread.join(5)


# ---------------------------------------------------------------------- one run
@dataclass
class RunResult:
    setup: dict[str, float]
    level_last_ms: list[float]  # per level change: the 100th table's configure
    level_each_ms: list[float]  # every table's configure, every change
    level_lost: int
    busy_last_ms: list[float]  # the same while hands end at the room's rate
    busy_each_ms: list[float]
    busy_lost: int
    paced_ms: list[float]
    paced_lost: int
    burst_ms: list[float]
    burst_lost: int
    rtt_before: Spread
    rtt_after: Spread
    cpu: dict[str, float]
    view_kb: float
    load: tuple[float, float]


def _wait(pred: Callable[[], bool], timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


def _levels(ctl: Controller, venue: Venue, ids: list[str], first: int, count: int,
            gap_s: float, wait_first: bool = False) -> tuple[list[float], list[float], int]:
    """``count`` level changes (to levels ``first``, ``first + 1``...), ``gap_s`` apart: per
    change the ms until the last table's ``configure`` arrived; every table's ms; how many
    tables never had one within 30 s."""
    last: list[float] = []
    each: list[float] = []
    lost = 0
    for level in range(first, first + count):
        if wait_first:
            time.sleep(gap_s)
        t0 = time.perf_counter()
        ctl.act("advance", levels=1)
        _wait(lambda lv=level: venue.configured_at(lv) == len(ids), 30)  # type: ignore[misc]
        got = [venue.configured[(tb, level)] - t0 for tb in ids
               if (tb, level) in venue.configured]
        lost += len(ids) - len(got)
        each += [g * 1000 for g in got]
        if len(got) == len(ids):
            last.append(max(got) * 1000)
        if not wait_first:
            time.sleep(gap_s)
    return last, each, lost


def _play(venue: Venue, page: Page, tables: list[str], n: int, rate: float | None,
          bust_every: int, rng: random.Random, timeout: float) -> tuple[list[float], int]:
    """``n`` hands, each at the next table in turn, ended at ``rate`` a second (None: every
    hand started first, then all ended back to back); every ``bust_every``-th a bust. The
    ms from each ``hand_ended`` leaving to the page showing it, and how many it never
    showed."""
    sent: list[Expect] = []
    hands: list[tuple[dict[str, Any], Expect]] = []
    start = time.perf_counter()
    for i in range(n):
        if rate is not None:
            target = start + i / rate
            while (d := target - time.perf_counter()) > 0:
                time.sleep(min(d, 0.05))
        got = venue.hand(tables[i % len(tables)], (i + 1) % bust_every == 0, rng)
        if got is None:
            continue
        if rate is None:
            hands.append(got)
            continue
        venue.end(*got, page)
        sent.append(got[1])
    if rate is None:
        time.sleep(1.0)  # the hands under way, as at a room whose tables all end together
        for ended, expect in hands:
            venue.end(ended, expect, page)
            sent.append(expect)
    _wait(lambda: all(e.shown is not None for e in sent), timeout)
    shown = [(e.shown - e.sent) * 1000 for e in sent if e.shown is not None]
    return shown, len(sent) - len(shown)


def run_once(n_tables: int, seats: int, players: int, levels: int, paced: int, rate: float,
             bursts: int, seed: int) -> RunResult:
    rng = random.Random(seed)
    ids = [f"T{i:03d}" for i in range(1, n_tables + 1)]
    cpu: dict[str, float] = {}
    setup: dict[str, float] = {}
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as d:
        work = Path(d)
        broker = Mosquitto(work)
        broker.start()
        venue: Venue | None = None
        ctl: Controller | None = None
        page: Page | None = None
        try:
            rtt_before = spread(broker_rtt_ms(broker.port, 200))
            venue = Venue(broker.port, ids)
            venue.online()
            ctl = Controller(work, broker.port, ids, seats)
            t = time.perf_counter()
            ctl.start()
            setup["start_s"] = time.perf_counter() - t
            c0 = ctl.cpu_s()
            t = time.perf_counter()
            for i in range(1, players + 1):
                ctl.act("register", name=f"Player {i:04d}", player=f"p{i:04d}")
            setup["register_s"] = time.perf_counter() - t
            c1 = ctl.cpu_s()
            cpu["register_per_player_ms"] = (c1 - c0) / players * 1000
            t = time.perf_counter()
            ctl.act("draw")
            if not _wait(lambda: venue is not None and venue.seated() == players, 120):
                raise RuntimeError(f"the draw seated {venue.seated()} of {players}")
            setup["draw_s"] = time.perf_counter() - t
            t = time.perf_counter()
            ctl.act("start")
            if not _wait(lambda: venue.configured_at(1) == n_tables, 60):
                raise RuntimeError("level 1 did not reach every table")
            setup["start_clock_s"] = time.perf_counter() - t
            time.sleep(1.0)
            page = Page(ctl.port)
            time.sleep(1.0)

            # 1. level changes in a quiet room
            c0 = ctl.cpu_s()
            last, each, lost = _levels(ctl, venue, ids, 2, levels, 1.0)
            cpu["level_change_s"] = (ctl.cpu_s() - c0) / max(1, levels)

            # 2. hands to the pages, at a room's rate, then in bursts
            #    (and level changes meanwhile, spread over the hands)
            c0 = ctl.cpu_s()
            during: list[tuple[list[float], list[float], int]] = []
            changer = threading.Thread(target=lambda: during.append(_levels(
                ctl, venue, ids, 2 + levels, levels, paced / rate / (levels + 1),
                wait_first=True)), daemon=True, name="bench-levels")
            changer.start()
            paced_ms, paced_lost = _play(venue, page, ids, paced, rate, 5, rng, 30)
            changer.join(60)
            cpu["paced_share"] = (ctl.cpu_s() - c0) / (paced / rate)
            busy_last, busy_each, busy_lost = during[0] if during else ([], [], levels)
            time.sleep(2.0)
            burst_ms: list[float] = []
            burst_lost = 0
            c0 = ctl.cpu_s()
            for _ in range(bursts):
                ms, lost_b = _play(venue, page, ids, n_tables, None, 10, rng, 60)
                burst_ms += ms
                burst_lost += lost_b
                time.sleep(2.0)
            cpu["burst_s"] = (ctl.cpu_s() - c0) / max(1, bursts)
            view_kb = len(json.dumps(ctl.view())) / 1024
            rtt_after = spread(broker_rtt_ms(broker.port, 200))
            if venue.refused:
                print(f"   ({venue.refused} seat commands refused: a seat taken)")
        finally:
            if page is not None:
                page.close()
            if ctl is not None:
                ctl.stop()
            if venue is not None:
                venue.close()
            broker.stop()
    return RunResult(setup, last, each, lost, busy_last, busy_each, busy_lost, paced_ms,
                     paced_lost, burst_ms, burst_lost, rtt_before, rtt_after, cpu, view_kb,
                     (load0, os.getloadavg()[0]))


def report(i: int, r: RunResult, n_tables: int) -> None:
    s = r.setup
    print(f"-- run {i}: load average {r.load[0]:.1f} -> {r.load[1]:.1f}; controller up in "
          f"{s['start_s']:.1f} s; 1,000 registrations {s['register_s']:.1f} s "
          f"({r.cpu['register_per_player_ms']:.1f} ms CPU each); draw seated in "
          f"{s['draw_s']:.1f} s; level 1 at every table {s['start_clock_s']:.2f} s after the "
          f"start; the view {r.view_kb:.0f} KB")
    print(f"   bare broker round trip: before {r.rtt_before}; after {r.rtt_after}")
    print(f"   level change -> the {n_tables}th table's configure: {spread(r.level_last_ms)}"
          f"; every table's: {spread(r.level_each_ms)}; missing {r.level_lost}; controller "
          f"CPU {r.cpu['level_change_s'] * 1000:.0f} ms per change")
    print(f"   the same while hands end at the room's rate: {spread(r.busy_last_ms)}; every "
          f"table's: {spread(r.busy_each_ms)}; missing {r.busy_lost}")
    print(f"   hand_ended -> /ws view, paced: {spread(r.paced_ms)}, not shown {r.paced_lost}; "
          f"controller CPU {r.cpu['paced_share'] * 100:.0f} % of a core")
    print(f"   hand_ended -> /ws view, bursts of {n_tables}: {spread(r.burst_ms)}, not shown "
          f"{r.burst_lost}; controller CPU {r.cpu['burst_s']:.1f} s per burst")


def add_arguments(g: argparse._ArgumentGroup, prefix: str) -> None:
    g.add_argument(f"--{prefix}tables", type=int, default=100)
    g.add_argument(f"--{prefix}players", type=int, default=1000)
    g.add_argument(f"--{prefix}levels", type=int, default=10,
                   help="level changes timed per run in a quiet room, and as many "
                   "again while the hands end")
    g.add_argument(f"--{prefix}hands", type=int, default=200,
                   help="hands at the room's rate per run (every fifth a bust)")
    g.add_argument(f"--{prefix}rate", type=float, default=2.0,
                   help="hands a second over the venue (100 tables, a hand a minute: ~2)")
    g.add_argument(f"--{prefix}bursts", type=int, default=2,
                   help="bursts per run: every table ends a hand at once")
    g.add_argument(f"--{prefix}runs", type=int, default=2)


def run_from(a: argparse.Namespace, prefix: str) -> None:
    p = prefix.replace("-", "_")

    def arg(name: str) -> Any:
        return getattr(a, p + name)

    tables, players = arg("tables"), arg("players")
    seats = max(2, min(10, -(-players // tables)))
    print(f"tournament controller: {tables} tables of {seats} seats, {players} players, "
          f"{arg('levels')} level changes, {arg('hands')} hands at {arg('rate')}/s and "
          f"{arg('bursts')} bursts of {tables} per run")
    results = []
    for i in range(1, arg("runs") + 1):
        r = run_once(tables, seats, players, arg("levels"), arg("hands"), arg("rate"),
                     arg("bursts"), seed=i)
        report(i, r, tables)
        results.append(r)
    if len(results) > 1:
        def rng_of(xs: list[float]) -> str:
            return f"{min(xs):.1f}-{max(xs):.1f}"
        print(f"-- {len(results)} runs: level to the last table p50 "
              f"{rng_of([spread(r.level_last_ms).p50 for r in results])} ms, max "
              f"{rng_of([spread(r.level_last_ms).max for r in results])} ms (during play: max "
              f"{rng_of([spread(r.busy_last_ms).max for r in results])} ms); pages paced p99 "
              f"{rng_of([spread(r.paced_ms).p99 for r in results])} ms, bursts p99 "
              f"{rng_of([spread(r.burst_ms).p99 for r in results])} ms; broker p99 "
              f"{rng_of([max(r.rtt_before.p99, r.rtt_after.p99) for r in results])} ms")

