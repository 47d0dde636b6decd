"""Searching a day of the floor console: 100 tables x 12 hours, by table, seat, rule, severity.

The day is built once from the recorded hand through the store's own batched insert
(``Store.add_events``, the same rows the console writes for each message) and kept in
``build/bench-floor/`` under a name that carries a hash of the recording, of the store's code
and of this generator, so that a change of the schema builds it again. Each table deals 30
hands an hour (a live pace) from 10:00 to 22:00 local time; one hand in ten gets the recorded
critical alert; seat numbers turn from hand to hand so every seat has its share.

Each query the page makes is timed three ways, interleaved so that the machine's load falls on
all three alike: through the console (``tablesvc floor`` serving the file: HTTP request to
parsed JSON, what a floor screen waits for), through its query layer in this process
(``Queries``: SQL, rows to dicts, event bodies decoded), and the bare baseline: the very
statements the query layer ran, on a plain ``sqlite3`` connection to the same file, rows
fetched and nothing else.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sqlite3
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from bench.baselines import spread
from bench.floor import CACHE, ROOT, Recording
from bench.venue import FloorProcess
from tablesvc.brokers.mosquitto import Mosquitto
from tablesvc.floor.db import Database, open_sqlite
from tablesvc.floor.intake import initial_alerts
from tablesvc.floor.store import Queries, Store

GENERATOR = "2"
"""Bump when the way the day is made changes (the cached file is then built again)."""
DAY = date(2026, 6, 1)
OPEN_HOUR = 10
HANDS_PER_HOUR = 30
ALERT_SHARE = 0.1
SEATS = 6


def day_file(rec: Recording, tables: int, hours: float) -> Path:
    h = hashlib.sha256()
    for part in (rec.key, GENERATOR, str(tables), str(hours)):
        h.update(part.encode())
    h.update((ROOT / "tablesvc" / "floor" / "store.py").read_bytes())
    h.update((ROOT / "tablesvc" / "floor" / "db.py").read_bytes())
    return CACHE / f"day-{tables}x{hours:g}h-{h.hexdigest()[:12]}.sqlite"


def iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def table_day(rec: Recording, table: str, hours: float, rng: random.Random,
              venue: str = "venue") -> list[dict[str, Any]]:
    """One table's events of the day, as its service would have published them."""
    events = rec.events()
    hand_s = 3600 / HANDS_PER_HOUR
    step = hand_s * 0.9 / (len(events) + 1)
    opening = datetime(DAY.year, DAY.month, DAY.day, OPEN_HOUR).astimezone()  # local time
    out: list[dict[str, Any]] = []
    seq = 0
    for h in range(1, int(hours * HANDS_PER_HOUR) + 1):
        start = opening + timedelta(seconds=(h - 1) * hand_s + rng.uniform(0, 5))
        alert_at = rng.randrange(1, len(events)) if rng.random() < ALERT_SHARE else -1
        batch = list(events)
        if alert_at >= 0:
            batch.insert(alert_at, rec.alert)
        for i, e in enumerate(batch):
            seq += 1
            body = {**e, "venue": venue, "table": table, "seq": seq, "prev_seq": seq - 1,
                    "hand": h, "ts": iso(start + timedelta(seconds=i * step))}
            if isinstance(e.get("seat"), int):
                body["seat"] = (e["seat"] - 1 + h) % SEATS + 1
            if e.get("type") == "alert":
                body["id"] = f"{table}-a{seq}"
            out.append(body)
    return out


def build(path: Path, rec: Recording, tables: int, hours: float) -> float:
    """Build the day into ``path``; the seconds it took."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for old in path.parent.glob("day-*.sqlite*"):
        old.unlink()  # an older day (another schema or recording): not used again
    tmp = path.with_name(path.name + ".building")
    t0 = time.perf_counter()
    db = open_sqlite(tmp)
    store = Store(db)
    rng = random.Random(2)
    for n in range(tables):
        table = f"t{n:03d}"
        store.add_events(table, table_day(rec, table, hours, rng))
        store.commit()
        if n % 10 == 9:
            print(f"  built {n + 1}/{tables} tables ({time.perf_counter() - t0:.0f} s)",
                  flush=True)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    os.replace(tmp, path)
    return time.perf_counter() - t0


class Recorder(Database):
    """A read connection that notes every statement it runs (the bare baseline re-runs
    them)."""

    def __init__(self, db: Database) -> None:
        super().__init__(db.conn, db.dialect)
        self.statements: list[tuple[str, tuple[Any, ...]]] = []

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.statements.append((sql, tuple(params)))
        return super().query(sql, params)


@dataclass
class Case:
    name: str
    path: str
    """The console's API path and query."""
    layer: Callable[[Queries], Any]
    """The same request through the query layer."""
    rows: int = 0
    statements: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    http: list[float] = field(default_factory=list)
    queries: list[float] = field(default_factory=list)
    bare: list[float] = field(default_factory=list)


def cases(rec: Recording, day: str, table: str, hand_start: int) -> list[Case]:
    info = [e for e in rec.events() if e.get("type") == "alert"]
    frequent = max({e["rule"] for e in info}, key=lambda r: sum(e["rule"] == r for e in info))
    crit = str(rec.alert["rule"])

    def search(**kw: Any) -> Case:
        label = ", ".join(f"{k} {v}" for k, v in kw.items()) or "the whole day"
        qs = urllib.parse.urlencode({"day": day, **kw})
        return Case(label, f"api/search?{qs}",
                    lambda q: q.search(day, **kw))

    return [
        search(table=table),
        search(seat=3),
        search(table=table, seat=3),
        search(rule=crit),
        search(rule=frequent),
        search(severity="critical"),
        search(severity="info"),
        search(),
        Case(f"hands of a table ({table})", f"api/hands?table={table}&day={day}",
             lambda q: q.hands(table, day)),
        Case(f"one hand ({table})", f"api/hand?table={table}&start={hand_start}",
             lambda q: q.hand(table, hand_start)),
        Case("page start (open alerts)", "api/snapshot", initial_alerts),
    ]


def count(result: Any) -> int:
    if isinstance(result, dict) and "alerts" in result and "events" in result:
        return len(result["alerts"]) + len(result["events"])
    if isinstance(result, dict) and "events" in result:
        return len(result["events"])
    return len(result) if isinstance(result, list) else 1


def fetch(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def bare(conn: sqlite3.Connection, statements: list[tuple[str, tuple[Any, ...]]]) -> Any:
    return [conn.execute(sql, params).fetchall() for sql, params in statements]


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t) * 1000, out


def run(rec: Recording, *, tables: int, hours: float, runs: int, reps: int,
        fresh: bool) -> list[Case]:
    path = day_file(rec, tables, hours)
    if fresh or not path.exists():
        print(f"building the day: {tables} tables x {hours:g} h at {HANDS_PER_HOUR} hands/h "
              f"(once; kept as {path.relative_to(ROOT)})", flush=True)
        took = build(path, rec, tables, hours)
        print(f"  built in {took:.0f} s", flush=True)
    raw = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    n_events, n_alerts, n_hands = (raw.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                                   for t in ("events", "alerts", "hands"))
    day = DAY.isoformat()
    table = f"t{min(42, tables - 1):03d}"
    hand_start = raw.execute("SELECT start_seq FROM hands WHERE tbl = ? ORDER BY start_seq "
                             "LIMIT 1 OFFSET ?", (table, n_hands // tables // 2)).fetchone()[0]
    print(f"search: day {day} of {tables} tables x {hours:g} h: {n_events:,} events, "
          f"{n_alerts:,} alerts, {n_hands:,} hands; file {path.stat().st_size / 2**20:.0f} MB",
          flush=True)
    rec_db = Recorder(open_sqlite(path, readonly=True))
    q = Queries(rec_db)
    todo = cases(rec, day, table, hand_start)
    for c in todo:
        rec_db.statements.clear()
        c.rows = count(c.layer(q))
        c.statements = list(rec_db.statements)
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="bench-floor-search-") as d:
        broker = Mosquitto(Path(d))
        broker.start()
        floor = FloorProcess(Path(d) / "floor", "venue", broker.port, storage=str(path))
        try:
            url = floor.start()
            for _ in range(runs):
                for c in todo:
                    for _ in range(reps):
                        c.http.append(timed(partial(fetch, url + c.path))[0])
                        c.queries.append(timed(partial(c.layer, q))[0])
                        c.bare.append(timed(partial(bare, raw, c.statements))[0])
                load.append(os.getloadavg()[0])
        finally:
            floor.stop()
            broker.stop()
    raw.close()
    print(f"  each query {runs * reps} times ({runs} rounds of {reps}), ms as p50 / p99 / max;"
          f" machine load (1 min) {min(load):.1f}-{max(load):.1f} on {os.cpu_count()} cores")
    print(f"  {'query':34} {'rows':>5}  {'console (HTTP)':>22}  {'query layer':>22}  "
          f"{'bare SQL (baseline)':>22}")
    for c in todo:
        cols = []
        for xs in (c.http, c.queries, c.bare):
            s = spread(xs)
            cols.append(f"{s.p50:6.1f} / {s.p99:6.1f} / {s.max:6.1f}")
        print(f"  {c.name[:34]:34} {c.rows:5d}  {cols[0]:>22}  {cols[1]:>22}  {cols[2]:>22}")
    return todo
