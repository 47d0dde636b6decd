"""The floor console at venue scale (issue 13): ``python -m bench.floor``.

1. **record**: two real services on virtual tables (one dealing clean hands, one whose dealer
   burns no card before the flop) publish through mosquitto; every message is recorded.
2. **load**: the recording is replayed as 100 tables dealing at ten times a live pace (a hand
   every 12 s per table instead of every 2 minutes) into mosquitto, with a critical alert every
   ``--alert-every`` s somewhere in the venue, while ``tablesvc floor`` runs and a headless
   Chromium shows its page. Alert -> screen latency = the time the page drew the alert minus
   the time the generator published it; beside it, the same alert's latency to a bare paho
   subscriber of the same broker (the baseline). The console's CPU and RSS are sampled.
3. **search**: a store of 100 tables x 12 hours at a live pace (30 hands an hour) is built from
   the recorded hand, and the day is searched by table, seat, rule ID and severity.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench.venue import FloorProcess, LiveTable
from tablesvc.brokers.mosquitto import Mosquitto
from tablesvc.floor.db import open_sqlite
from tablesvc.floor.store import Queries, Store

Rec = tuple[float, str, bytes]  # (seconds since start, topic below the table, payload)


def client(port: int) -> mqtt.Client:
    c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    c.max_inflight_messages_set(1000)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def record(work: Path) -> tuple[list[Rec], dict[str, Any]]:
    """A clean table's messages over a few hands, and the alert event of a dealer error."""
    work.mkdir(parents=True, exist_ok=True)
    broker = Mosquitto(work)
    broker.start()
    got: list[tuple[float, str, bytes]] = []
    t0 = time.monotonic()
    c = client(broker.port)
    c.on_message = lambda cl, u, m: got.append((time.monotonic() - t0, m.topic,
                                                bytes(m.payload)))
    c.subscribe("tablesvc/v1/rec/#", qos=1)
    clean = LiveTable(work / "clean", "rec", "clean", broker.port, seed=7, pace=0.05)
    err = LiveTable(work / "err", "rec", "err", broker.port, scenario="t10_flop_without_burn")
    try:
        clean.start()
        err.start()
        time.sleep(4)
        clean.deal(4).join(300)
        err.play_scenario().join(120)
        time.sleep(2)
    finally:
        clean.stop()
        err.stop()
        c.disconnect()
        c.loop_stop()
        broker.stop()
    stream = [(t, topic.split("/", 4)[4], p) for t, topic, p in got
              if topic.split("/")[3] == "clean" and "/secure/" not in topic]
    alerts = [json.loads(p) for _, topic, p in got if topic.endswith("err/alerts")]
    alert = next(a for a in alerts if a["severity"] == "critical")
    return stream, alert


def one_hand(stream: list[Rec]) -> list[tuple[str, dict[str, Any]]]:
    """The messages of the recording's second hand (events and the retained state)."""
    out: list[tuple[str, dict[str, Any]]] = []
    started = 0
    for _, sub, p in stream:
        body = json.loads(p)
        if sub == "events" and body.get("type") == "hand_started":
            started += 1
        if started == 2 and sub in ("events", "state"):
            out.append((sub, body))
        if started == 3:
            break
    return out


def proc_sample(pid: int) -> tuple[float, int]:
    """(CPU seconds so far, RSS bytes) of a process."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS"))
    return cpu, rss


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def load(work: Path, hand: list[tuple[str, dict[str, Any]]], alert: dict[str, Any],
         tables: int, seconds: float, hand_s: float, alert_every: float) -> dict[str, Any]:
    from tests.browser import open_browser  # the same headless Chromium as the page tests

    work.mkdir(parents=True, exist_ok=True)
    broker = Mosquitto(work)
    broker.start()
    floor = FloorProcess(work / "floor", "venue", broker.port)
    url = floor.start()
    assert floor.proc is not None
    browser = open_browser(work / "chromium")
    pub = client(broker.port)
    base: dict[str, float] = {}
    base_c = client(broker.port)
    def on_base(cl: mqtt.Client, u: Any, m: mqtt.MQTTMessage) -> None:
        base.setdefault(json.loads(m.payload)["id"], time.time() * 1000)

    base_c.on_message = on_base
    base_c.subscribe("tablesvc/v1/venue/+/alerts", qos=1)
    sent: dict[str, float] = {}
    samples: list[tuple[float, float, int]] = []
    msgs = 0
    try:
        for n in range(tables):  # every table online first, as at the start of a day
            pub.publish(f"tablesvc/v1/venue/t{n:03d}/status",
                        json.dumps({"state": "online", "version": "bench", "boot": 1}),
                        qos=1, retain=True)
        browser.get(url)
        time.sleep(3)
        seqs = [1] * tables
        hands = [1] * tables
        per_msg = hand_s / max(1, len(hand))
        # each table's hand runs from its own offset: the venue's messages are spread evenly
        schedule = sorted((n * hand_s / tables + i * per_msg, n, i)
                          for n in range(tables) for i in range(len(hand)))
        t0 = time.monotonic()
        next_alert = t0 + alert_every
        rng = random.Random(1)
        cpu0, _ = proc_sample(floor.proc.pid)
        next_sample = t0
        k = 0
        while time.monotonic() - t0 < seconds:
            elapsed = time.monotonic() - t0
            cycle = int(elapsed // hand_s)
            while k < len(schedule) and schedule[k][0] + cycle * hand_s <= elapsed:
                _, n, i = schedule[k]
                sub, body = hand[i]
                table = f"t{n:03d}"
                if sub == "events":
                    if body.get("type") == "hand_started":
                        hands[n] += 1
                    body = {**body, "table": table, "venue": "venue", "seq": seqs[n],
                            "prev_seq": seqs[n] - 1, "hand": hands[n],
                            "ts": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())}
                    seqs[n] += 1
                else:
                    body = {**body, "hand": hands[n]}
                pub.publish(f"tablesvc/v1/venue/{table}/{sub}", json.dumps(body), qos=1,
                            retain=sub == "state")
                msgs += 1
                k += 1
            if k >= len(schedule) and elapsed >= (cycle + 1) * hand_s:
                k = 0
            now = time.monotonic()
            if now >= next_alert:
                n = rng.randrange(tables)
                table = f"t{n:03d}"
                aid = f"{table}-b{seqs[n]}"
                body = {**alert, "table": table, "venue": "venue", "seq": seqs[n],
                        "prev_seq": seqs[n] - 1, "hand": hands[n], "id": aid,
                        "ts": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())}
                seqs[n] += 1
                payload = json.dumps(body)
                sent[f"{table}/{aid}"] = time.time() * 1000
                pub.publish(f"tablesvc/v1/venue/{table}/events", payload, qos=1)
                pub.publish(f"tablesvc/v1/venue/{table}/alerts", payload, qos=1)
                next_alert += alert_every
            if now >= next_sample:
                cpu, rss = proc_sample(floor.proc.pid)
                samples.append((now - t0, cpu - cpu0, rss))
                next_sample += 5
            time.sleep(0.002)
        time.sleep(3)
        shown: dict[str, float] = browser.execute_script("return window.floorStats.shown")
        health = json.loads(browser.execute_script(
            "return fetch('/healthz').then(r => r.text())"))
    finally:
        browser.quit()
        pub.disconnect()
        pub.loop_stop()
        base_c.disconnect()
        base_c.loop_stop()
        floor.stop()
        broker.stop()
    lat = [shown[k] - t for k, t in sent.items() if k in shown]
    base_lat = [base[k.split("/", 1)[1]] - t for k, t in sent.items()
                if k.split("/", 1)[1] in base]
    cpu_rate = [(samples[i + 1][1] - samples[i][1]) / (samples[i + 1][0] - samples[i][0])
                for i in range(len(samples) - 1)]
    return {"tables": tables, "seconds": seconds, "messages": msgs, "rate": msgs / seconds,
            "alerts_sent": len(sent), "alerts_shown": len(lat),
            "p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99), "max_ms": max(lat or [0]),
            "base_p50_ms": pct(base_lat, 0.5), "base_p99_ms": pct(base_lat, 0.99),
            "cpu_share": cpu_rate, "rss_mb": [s[2] / 2**20 for s in samples],
            "console": health}


def search(work: Path, hand: list[tuple[str, dict[str, Any]]], alert: dict[str, Any],
           tables: int, hours: float, hands_per_hour: int, runs: int) -> dict[str, Any]:
    """Build a day and time the searches the page makes."""
    work.mkdir(parents=True, exist_ok=True)
    db = open_sqlite(work / "day.sqlite")
    store = Store(db)
    events = [b for s, b in hand if s == "events"]
    hands_total = int(hours * hands_per_hour)
    t_build = time.perf_counter()
    rng = random.Random(2)
    start = time.time() - hours * 3600
    for n in range(tables):
        table = f"t{n:03d}"
        seq = 1
        for h in range(1, hands_total + 1):
            ts = time.strftime("%Y-%m-%dT%H:%M:%S.000Z",
                               time.gmtime(start + h * 3600 / hands_per_hour))
            batch = events + ([alert] if rng.random() < 0.1 else [])
            for e in batch:
                store.add_event(table, {**e, "table": table, "seq": seq, "hand": h, "ts": ts,
                                        "id": f"{table}-a{seq}"})
                seq += 1
        store.commit()
    build_s = time.perf_counter() - t_build
    count = db.query("SELECT COUNT(*) FROM events")[0][0]
    day = str(db.query("SELECT day FROM events ORDER BY ts DESC LIMIT 1")[0][0])
    q = Queries(open_sqlite(work / "day.sqlite", readonly=True))
    cases: dict[str, dict[str, Any]] = {
        "table": {"table": "t042"}, "seat": {"seat": 3}, "table+seat": {"table": "t042",
                                                                         "seat": 3},
        "rule": {"rule": alert["rule"]}, "severity": {"severity": "critical"},
        "hands of a table": {},
    }
    out: dict[str, Any] = {"events": count, "build_s": build_s}
    for name, kw in cases.items():
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            if name == "hands of a table":
                q.hands("t042", day)
            else:
                q.search(day, **kw)
            times.append((time.perf_counter() - t) * 1000)
        out[name] = (statistics.median(times), max(times))
    times = []
    for _ in range(runs):  # the baseline: one indexed row, the cost of a query at all
        t = time.perf_counter()
        q.db.query("SELECT body FROM events WHERE tbl = ? AND seq = ?", ("t042", 100))
        times.append((time.perf_counter() - t) * 1000)
    out["baseline: one row by key"] = (statistics.median(times), max(times))
    return out


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.floor")
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--seconds", type=float, default=90)
    p.add_argument("--hand-s", type=float, default=12.0, help="one hand per table every ... "
                   "s (a live table deals one every 120 s: 12 s is ten times that)")
    p.add_argument("--alert-every", type=float, default=1.0)
    p.add_argument("--hours", type=float, default=12)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--only", choices=["load", "search"], default=None)
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as d:
        work = Path(d)
        stream, alert = record(work / "rec")
        hand = one_hand(stream)
        print(f"recorded: {len(stream)} messages of a clean table; one hand = {len(hand)} "
              f"messages; alert {alert['name']} ({alert['severity']})")
        if a.only in (None, "search"):
            s = search(work / "search", hand, alert, a.tables, a.hours, 30, a.runs)
            print(f"search: {s['events']:,} events ({a.tables} tables x {a.hours:g} h, 30 "
                  f"hands/h) built in {s['build_s']:.0f} s")
            for k, v in s.items():
                if isinstance(v, tuple):
                    print(f"  {k}: median {v[0]:.2f} ms, max {v[1]:.2f} ms ({a.runs} runs)")
        if a.only in (None, "load"):
            r = load(work / "load", hand, alert, a.tables, a.seconds, a.hand_s, a.alert_every)
            print(f"load: {r['tables']} tables, {r['messages']:,} messages in "
                  f"{r['seconds']:g} s ({r['rate']:.0f}/s); alerts shown "
                  f"{r['alerts_shown']}/{r['alerts_sent']}")
            print(f"  alert -> screen: p50 {r['p50_ms']:.0f} ms, p99 {r['p99_ms']:.0f} ms, "
                  f"max {r['max_ms']:.0f} ms; baseline alert -> bare subscriber: p50 "
                  f"{r['base_p50_ms']:.1f} ms, p99 {r['base_p99_ms']:.1f} ms")
            cpu = r["cpu_share"]
            print(f"  console CPU (share of one core, 5 s windows): median "
                  f"{statistics.median(cpu or [0]):.0%}, max {max(cpu or [0]):.0%}; RSS MB "
                  f"first {r['rss_mb'][0]:.0f}, last {r['rss_mb'][-1]:.0f}, max "
                  f"{max(r['rss_mb']):.0f}; {r['console']}")


if __name__ == "__main__":
    main()
