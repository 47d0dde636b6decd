"""Many tables at ten times the pace: alerts, hands right, and frames out of physical order.

``python -m bench --only room [--tables N] [--room-hands H] [--runs R]``. Each table is a
virtual table in its own process (``bench.room_table``) on ptys, and its own ``tablesvc run``;
one mosquitto for all. The dealers deal at 0.025 s between actions (the demo deals at 0.25 s)
with a room's habits, bets, raises and all-ins. Per table it prints the warning and critical
alerts the floor would have seen (clean play: there should be none), the hands that ended as
the table ended them, and how many frames of play the service journalled after a frame that
physically came later (the order of the journal against the order in which the devices wrote),
with how late the latest of them was: what the order tolerance
(``rules.timers.order_tolerance_s``, 50 ms) has to absorb.

The baseline, in the same run: one table alone, at the same pace, before the room.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench.baselines import Spread, spread
from bench.room_table import SEATS, table_worker
from bench.service import stop
from simulators.records import HandRecord
from tablesvc.brokers.mosquitto import Mosquitto

TEN_TIMES = 0.025
"""Seconds between the dealer's actions: the demo's 0.25 s, ten times faster."""
VENUE = "bench"
ROOT = Path(__file__).resolve().parents[1]
WAIT_S = 300.0
QUIET_S = 10.0
"""A table whose service published nothing for this long has read everything it will."""
NOT_PLAY = frozenset({"HB", "HELLO"})
ACROSS_S = 0.010
"""Frames written this far apart belong to different actions of the dealer (he takes 0.025 s
between actions at ten times the pace; the frames of one motion are written together)."""


@dataclass
class TableResult:
    table: str
    hands: int = 0
    right: int = 0
    alerts: Counter[str] = field(default_factory=Counter)
    order: Order = field(default_factory=lambda: Order())
    problem: str | None = None


class Collector:
    """One paho client on every table's ``events`` and ``alerts``: what a floor and a
    tournament controller would have received."""

    def __init__(self, port: int) -> None:
        self.lock = threading.Lock()
        self.events: dict[str, dict[int, dict[str, Any]]] = {}
        self.alerts: dict[str, dict[str, dict[str, Any]]] = {}
        self.last: dict[str, float] = {}  # table -> when its last event came (monotonic)
        self.ready = threading.Event()
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        c.on_connect = self._connected
        c.on_message = self._message
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.client = c
        if not self.ready.wait(10):
            raise RuntimeError("the collector could not connect to the broker")

    def _connected(self, client: Any, *args: Any) -> None:
        client.subscribe([(f"tablesvc/v1/{VENUE}/+/events", 1),
                          (f"tablesvc/v1/{VENUE}/+/alerts", 1)])
        self.ready.set()

    def _message(self, client: Any, userdata: Any, msg: Any) -> None:
        parts = msg.topic.split("/")
        table, feed = parts[3], parts[4]
        payload = json.loads(msg.payload)
        with self.lock:
            self.last[table] = time.monotonic()
            if feed == "events":
                self.events.setdefault(table, {}).setdefault(payload["seq"], payload)
            else:
                self.alerts.setdefault(table, {}).setdefault(payload["id"], payload)

    def of(self, table: str, kind: str) -> list[dict[str, Any]]:
        with self.lock:
            got = self.events.get(table, {})
            return [got[s] for s in sorted(got) if got[s]["type"] == kind]

    def online(self, table: str) -> bool:
        state: dict[str, str] = {}
        for e in self.of(table, "device_status"):
            state[e["device"]] = e["state"]
        return len(state) == 4 and set(state.values()) == {"online"}

    def quiet_s(self, table: str) -> float:
        """Seconds since the table's last event."""
        with self.lock:
            return time.monotonic() - self.last.get(table, time.monotonic())

    def floor(self, table: str) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.alerts.get(table, {}).values())

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _wait(pred: Callable[[], bool], timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.05)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")


def _receive(conn: Connection, worker: BaseProcess, timeout: float, what: str) -> Any:
    """The worker's next message; an error, not a hang, if it died or said nothing."""
    end = time.monotonic() + timeout
    while not conn.poll(0.5):
        if not worker.is_alive():
            raise RuntimeError(f"the table process died before {what}")
        if time.monotonic() > end:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
    return conn.recv()


def _config(folder: Path, table: str, port: int, where: dict[str, Any]) -> Path:
    devices = "".join(f'[devices.{n}]\nurl = "{u}"\n' for n, u in where["urls"].items())
    players = "".join(f'[[players]]\nseat = {s}\nname = "P{s}"\nstack = {v}\n'
                      for s, v in SEATS.items())
    cfg = folder / "table.toml"
    cfg.write_text(
        f'[table]\nvenue = "{VENUE}"\nid = "{table}"\n'
        f'[game]\nsmall_blind = {where["small_blind"]}\nbig_blind = {where["big_blind"]}\n'
        f'{devices}[registry]\ndecks = "{where["decks"]}"\nchips = "{where["chips"]}"\n'
        f'{players}[mqtt]\nport = {port}\nprotocol = "5"\n'
        f'[storage]\ndir = "{folder / "store"}"\n')
    return cfg


def journal_frames(store: Path) -> list[tuple[str, str, int]]:
    """(device, frame, received ms) of every frame the service journalled, in journal order
    (DESIGN §7: JSON lines; a segment's unused rest is zero bytes)."""
    out: list[tuple[str, str, int]] = []
    for seg in sorted((store / "journal").glob("*.jsonl")):
        for line in seg.read_bytes().split(b"\0", 1)[0].splitlines():
            rec = json.loads(line)
            if "frame" in rec:
                when = datetime.fromisoformat(rec["ts"].replace("Z", "+00:00"))
                out.append((rec["src"], rec["frame"], round(when.timestamp() * 1000)))
    return out


def of_play(true: Sequence[tuple[str, str, float]]) -> set[int]:
    """Indices of the frames of play: not heartbeats nor HELLO, and no chip inventory that
    only repeats the zone's last one."""
    last: dict[str, str] = {}
    keep: set[int] = set()
    for i, (_dev, line, _t) in enumerate(true):
        fields = line.split("*", 1)[0].split(",")
        kind = fields[2] if len(fields) > 2 else ""
        if kind in NOT_PLAY:
            continue
        if kind == "CHIPS":
            zone, chips = fields[3], ",".join(fields[4:])
            if last.get(zone) == chips:
                continue
            last[zone] = chips
        keep.add(i)
    return keep


@dataclass
class Order:
    """How one table's frames of play reached its journal, against the order and time in
    which its devices wrote them."""

    frames: int = 0
    out_of_order: int = 0  # journalled after a frame of play that physically came later
    across: int = 0  # ... after a frame of a later action (``ACROSS_S`` or more after it)
    late_ms: list[float] = field(default_factory=list)  # arrival minus that later frame's
    sim_ms: list[float] = field(default_factory=list)  # device write -> into its pty
    svc_ms: list[float] = field(default_factory=list)  # into its pty -> journalled


def disorder(true: Sequence[tuple[str, str, float]], sent: dict[str, list[float]],
             journal: Sequence[tuple[str, str, int]]) -> Order:
    """Compare the journal with the true order (see ``Order``); ``sent`` is when each line
    went into its pty (the simulator's own delay, apart from the port's and the service's)."""
    where: dict[tuple[str, str], list[int]] = {}
    for i, (dev, line, _t) in enumerate(true):
        where.setdefault((dev, line), []).append(i)
    into = {line: list(times) for line, times in sent.items()}
    play = of_play(true)
    got = Order()
    seen: list[tuple[int, int]] = []  # (true index, received ms) of play, in journal order
    for dev, line, ms in journal:
        slots = where.get((dev, line))
        if not slots:
            continue
        i = slots.pop(0)
        wrote = into.get(line)
        pty = wrote.pop(0) * 1000 if wrote else None
        if i in play:
            seen.append((i, ms))
            if pty is not None:
                got.sim_ms.append(pty - true[i][2] * 1000)
                got.svc_ms.append(ms - pty)
    highest: list[int] = []  # running maximum of the true index, in journal order
    for i, ms in seen:
        if highest and highest[-1] > i:
            first_after = bisect.bisect_right(highest, i)  # first frame physically after it
            got.late_ms.append(float(ms - seen[first_after][1]))
            if true[highest[-1]][2] - true[i][2] >= ACROSS_S:
                got.across += 1
        highest.append(max(i, highest[-1]) if highest else i)
    got.frames, got.out_of_order = len(seen), len(got.late_ms)
    return got


def hand_right(e: dict[str, Any], r: HandRecord) -> bool:
    return (e["reason"] == r.outcome and e["board"] == list(r.board)
            and {i["seat"]: i["stack"] for i in e["stacks"]}
            == {s: r.stacks_after.get(s, 0) for s in r.seats})


def play_room(tables: int, hands: int, pace: float, seed: int, folder: Path,
              broker: Mosquitto, collector: Collector, prefix: str) -> list[TableResult]:
    """``tables`` tables dealing ``hands`` hands each, at once; their results."""
    ctx = multiprocessing.get_context("spawn")
    names = [f"{prefix}{i:02d}" for i in range(1, tables + 1)]
    conns: list[Connection] = []
    workers = []
    services: list[subprocess.Popen[bytes]] = []
    results = [TableResult(n) for n in names]
    try:
        for i, name in enumerate(names):
            d = folder / name
            d.mkdir(parents=True)
            mine, theirs = ctx.Pipe()
            w = ctx.Process(target=table_worker, args=(theirs, str(d), seed + i, hands, pace),
                            daemon=True)
            w.start()
            conns.append(mine)
            workers.append(w)
        for name, conn, w in zip(names, conns, workers, strict=True):
            where = _receive(conn, w, WAIT_S, f"{name}'s devices")
            if "error" in where:
                raise RuntimeError(f"{name}: {where['error']}")
            cfg = _config(folder / name, name, broker.port, where)
            log = open(folder / name / "service.log", "wb")  # noqa: SIM115 - the child's
            services.append(subprocess.Popen(
                [sys.executable, "-m", "tablesvc.commands.cli", "run", "--config", str(cfg),
                 "--log", "json"], stdout=log, stderr=subprocess.STDOUT, cwd=ROOT))
        _wait(lambda: all(collector.online(n) for n in names), WAIT_S, "every device online")
        for conn in conns:
            conn.send("go")
        dealt = [_receive(conn, w, WAIT_S * 4, f"{name}'s hands")
                 for name, conn, w in zip(names, conns, workers, strict=True)]
        for name, got, res in zip(names, dealt, results, strict=True):
            if "error" in got:
                res.problem = got["error"].strip().splitlines()[-1]
                continue
            records: list[HandRecord] = got["records"]

            def caught_up(table: str = name, dealt: int = len(records)) -> bool:
                """Every hand ended, or nothing more is coming: a hand read wrongly may
                stay open until a NEWHAND that the last hand never gets."""
                return (len(collector.of(table, "hand_ended")) >= dealt
                        or collector.quiet_s(table) >= QUIET_S)

            try:
                _wait(caught_up, WAIT_S, f"{name}: its hands to end")
            except TimeoutError as exc:
                res.problem = str(exc)
            ended = collector.of(name, "hand_ended")
            if len(ended) < len(records) and res.problem is None:
                res.problem = f"{len(ended)} of {len(records)} hands ended"
            res.hands = len(records)
            res.right = sum(hand_right(e, r) for e, r in zip(ended, records, strict=False))
            res.alerts = Counter(a["name"] for a in collector.floor(name))
        for proc in services:
            stop(proc)
        for name, got, res in zip(names, dealt, results, strict=True):
            if "true" in got:
                res.order = disorder(got["true"], got["sent"],
                                     journal_frames(folder / name / "store"))
    finally:
        for proc in services:
            if proc.poll() is None:
                proc.kill()
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.send("close")
        for w in workers:
            w.join(30)
            if w.is_alive():
                w.kill()
    return results


def _line(res: TableResult) -> str:
    alerts = ", ".join(f"{n} {k}" for n, k in sorted(res.alerts.items())) or "none"
    o = res.order
    share = 100 * o.out_of_order / o.frames if o.frames else 0.0
    text = (f"  {res.table}: {res.hands} hands, {res.right} right; alerts: {alerts}; "
            f"out of physical order: {o.out_of_order} of {o.frames} frames of play "
            f"({share:.2f} %; {o.across} behind a later action), latest "
            f"{max(o.late_ms, default=0):.0f} ms; delay p99/max: simulator "
            f"{spread(o.sim_ms).p99:.0f}/{spread(o.sim_ms).max:.0f} ms, port and service "
            f"{spread(o.svc_ms).p99:.0f}/{spread(o.svc_ms).max:.0f} ms")
    return text + (f"; PROBLEM: {res.problem}" if res.problem else "")


@dataclass(frozen=True)
class Totals:
    """One phase of one run, all its tables together."""

    alerts: int
    hands: int
    right: int
    share: float  # % of frames of play out of physical order
    across: float  # % of frames of play behind a later action of the dealer
    latest_ms: float
    over_50ms: int  # out-of-order frames that came more than 50 ms late
    sim: Spread  # device write -> into its pty, frames of play
    svc: Spread  # into its pty -> journalled

    def __str__(self) -> str:
        return (f"{self.alerts} alerts, {self.right}/{self.hands} hands right, "
                f"{self.share:.2f} % of frames of play out of physical order "
                f"({self.across:.2f} % behind a later action), latest {self.latest_ms:.0f} ms, "
                f"{self.over_50ms} later than 50 ms; delay in the simulator {self.sim}; "
                f"in the port and the service {self.svc}")


def _total(results: Sequence[TableResult]) -> Totals:
    orders = [r.order for r in results]
    frames = sum(o.frames for o in orders) or 1
    late = [ms for o in orders for ms in o.late_ms]
    return Totals(sum(sum(r.alerts.values()) for r in results), sum(r.hands for r in results),
                  sum(r.right for r in results),
                  100 * sum(o.out_of_order for o in orders) / frames,
                  100 * sum(o.across for o in orders) / frames,
                  max(late, default=0.0), sum(1 for ms in late if ms > 50),
                  spread([ms for o in orders for ms in o.sim_ms]),
                  spread([ms for o in orders for ms in o.svc_ms]))


def _spread(label: str, runs: Sequence[Totals]) -> str:
    def span(values: Sequence[float], fmt: str) -> str:
        lo, hi = min(values), max(values)
        return format(lo, fmt) if lo == hi else f"{format(lo, fmt)}-{format(hi, fmt)}"

    return (f"  {label}: alerts {span([t.alerts for t in runs], '.0f')}; hands right "
            f"{sum(t.right for t in runs)}/{sum(t.hands for t in runs)}; out of physical order "
            f"{span([t.share for t in runs], '.2f')} % (behind a later action "
            f"{span([t.across for t in runs], '.2f')} %); latest "
            f"{span([t.latest_ms for t in runs], '.0f')} ms; later than 50 ms "
            f"{span([t.over_50ms for t in runs], '.0f')}; delay p99 in the simulator "
            f"{span([t.sim.p99 for t in runs], '.1f')} ms (max "
            f"{span([t.sim.max for t in runs], '.0f')}), in the port and the service "
            f"{span([t.svc.p99 for t in runs], '.1f')} ms (max "
            f"{span([t.svc.max for t in runs], '.0f')})")


def run(tables: int, hands: int, runs: int, pace: float = TEN_TIMES) -> None:
    print(f"room: {tables} tables at {pace} s between the dealer's actions (the demo's "
          f"{pace * 10:g} s / 10), {hands} hands each, {runs} run(s); baseline: one table alone")
    alone: list[Totals] = []
    together: list[Totals] = []
    for n in range(1, runs + 1):
        folder = Path(tempfile.mkdtemp(prefix="bench-room-"))
        broker = Mosquitto(folder)
        broker.start()
        collector = Collector(broker.port)
        try:
            load = os.getloadavg()[0]
            print(f"-- run {n} of {runs} (load average {load:.1f})")
            started = time.monotonic()
            base = play_room(1, hands, pace, 7000 + 100 * n, folder / "alone", broker,
                             collector, "b")
            print(f" baseline, one table ({time.monotonic() - started:.0f} s):")
            for res in base:
                print(_line(res))
            started = time.monotonic()
            room = play_room(tables, hands, pace, 1000 * n, folder / "room", broker,
                             collector, "r")
            print(f" {tables} tables ({time.monotonic() - started:.0f} s, load average "
                  f"{os.getloadavg()[0]:.1f} after):")
            for res in room:
                print(_line(res))
            alone.append(_total(base))
            together.append(_total(room))
            print(f" run {n}: baseline: {alone[-1]}")
            print(f" run {n}: {tables} tables: {together[-1]}")
            keep = [r.table for r in (*base, *room)
                    if r.alerts or r.right < r.hands or r.problem]
        finally:
            collector.close()
            broker.stop()
        if keep:  # the journals and service logs of a table that went wrong, to reproduce it
            print(f" kept for inspection ({', '.join(keep)}): {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"-- over {runs} run(s), min-max:")
    print(_spread("baseline, one table", alone))
    print(_spread(f"{tables} tables", together))
