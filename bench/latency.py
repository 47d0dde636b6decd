"""Latency from a frame written to a pty to its event at a subscriber, through mosquitto.

The service runs as its own process, exactly as installed, reading pty device paths; frames
are written at a steady rate; every card that lands in a seat or the burn has an event
(``card_dealt`` / ``burn``) whose arrival is timed against the write of its ``ARR`` frame.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench.streams import BLIND, Stream, bench_chips, bench_deck
from tablesvc.brokers.mosquitto import Mosquitto, wait_until

DEVICES = ("shoe", "cards", "chips", "console")
ALERTS = 200


def _reseq(raw: bytes, seq: int) -> bytes:
    """The same frame with another seq, so the injected frames never look like repeats."""
    from drivers.tsp import Frame, decode, encode

    f = decode(raw.decode().rstrip())
    return encode(Frame(f.dev, seq % 65536, f.type, f.fields))


def _config(d: Path, port: int) -> Path:
    players = "".join(f'[[players]]\nseat = {s}\nname = "P{s}"\nstack = 1000000000\n'
                      for s in range(1, 11))
    (d / "chips.json").write_text(json.dumps({"chips": bench_chips()}))
    devices = "".join(f'[devices.{n}]\nurl = "{d / n}"\n' for n in DEVICES)
    cfg = d / "table.toml"
    cfg.write_text(f'[table]\nvenue = "bench"\nid = "t01"\n'
                   f"[game]\nsmall_blind = {BLIND}\nbig_blind = {BLIND}\n{devices}{players}"
                   f'[mqtt]\nport = {port}\nprotocol = "5"\n[storage]\ndir = "{d / "store"}"\n'
                   f'[registry]\ndecks = "{d / "decks"}"\nchips = "{d / "chips.json"}"\n')
    return cfg


def run(rate: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        broker = Mosquitto(d)
        broker.start()
        deck = bench_deck()
        (d / "decks").mkdir()
        (d / "decks" / "B-1.json").write_text(json.dumps({"deck_id": "B-1", "cards": deck}))
        masters = {}
        for name in DEVICES:
            m, s = os.openpty()
            tty.setraw(s)
            os.symlink(os.ttyname(s), d / name)
            masters[name] = m
        cfg = _config(d, broker.port)
        sent: dict[tuple[int, str], float] = {}
        lat: list[float] = []
        alert_times: list[float] = []
        got: set[tuple[int, str]] = set()
        lock = threading.Lock()
        online = threading.Event()

        def on_message(client: Any, userdata: Any, msg: Any) -> None:
            now = time.time()
            if msg.topic.endswith("/status"):
                if json.loads(msg.payload).get("state") == "online":
                    online.set()
                return
            e = json.loads(msg.payload)
            if msg.topic.endswith("/alerts"):
                if e["name"] == "deck_defective_foreign_card":
                    alert_times.append(now)
                return
            if e["type"] in ("card_dealt", "burn"):
                with lock:
                    t = sent.get((e["hand"], f"index:{e['index']}"))
                if t is not None:
                    lat.append(now - t)
                    got.add((e["hand"], f"index:{e['index']}"))

        sub = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                          protocol=mqtt.MQTTv5)
        sub.on_message = on_message
        sub.on_connect = lambda c, *a: c.subscribe(
            [("tablesvc/v1/bench/t01/events", 1), ("tablesvc/v1/bench/t01/status", 1),
             ("tablesvc/v1/bench/t01/alerts", 1)])
        sub.connect("127.0.0.1", broker.port)
        sub.loop_start()
        log = open(d / "service.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen([sys.executable, "-m", "tablesvc.commands.cli", "run", "--config",
                                 str(cfg), "--log", "json", "--log-level", "warning"],
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_until(online.is_set, 20, "the service to come online")
            time.sleep(1.0)  # let the ports open
            stream = Stream(deck).hands()
            period = 1.0 / rate
            total = int(rate * seconds)
            start = time.perf_counter()
            for i in range(total):
                target = start + i * period
                while (delay := target - time.perf_counter()) > 0:
                    time.sleep(min(delay, 0.0005))
                dev, raw, key = next(stream)
                if key is not None:
                    with lock:
                        sent[key] = time.time()
                os.write(masters[dev], raw)
                if dev == "console" or (dev == "chips" and key is None):
                    # players and dealers never act within milliseconds of each other; without
                    # these pauses the devices' reader threads could reorder two actions
                    pause = 0.02 if b"NEWHAND" in raw else 0.005
                    time.sleep(pause)
                    start += pause
            try:
                wait_until(lambda: len(lat) >= len(sent) * 0.999, 30, "the last events")
            except AssertionError:
                print(f"only {len(lat)} of {len(sent)} events arrived; service log tail:")
                print(sorted(set(sent) - got)[:20])
                print((d / "service.log").read_text()[-3000:])
                raise
            # alerts: a tag of no deck, drawn from the shoe, is a critical alert at once
            stream_dev = "shoe"
            alert_sent: list[float] = []
            for i in range(ALERTS):
                uid = f"F{i:015X}"
                _, raw = Stream(deck).line(stream_dev, "DRAW", uid, "D")
                alert_sent.append(time.time())
                os.write(masters[stream_dev], _reseq(raw, 60000 + i))
                time.sleep(0.02)
            wait_until(lambda: len(alert_times) >= ALERTS, 30, "the alerts")
        finally:
            proc.terminate()
            proc.wait(20)
            sub.loop_stop()
            broker.stop()
    alert_ms = sorted((r - t) * 1000 for t, r in zip(alert_sent, alert_times, strict=False))
    print(f"alert latency frame->alerts subscriber ({len(alert_ms)} alerts, 50/s): "
          f"p50 {statistics.median(alert_ms):.2f} ms, p99 "
          f"{alert_ms[int(len(alert_ms) * 0.99) - 1]:.2f} ms, max {alert_ms[-1]:.2f} ms "
          "(target: within 100 ms)")
    ms = sorted(x * 1000 for x in lat)
    p99 = ms[int(len(ms) * 0.99) - 1]
    print(f"latency frame->subscriber at {rate} frames/s for {seconds:.0f} s "
          f"({len(ms)} events): p50 {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms, "
          f"max {ms[-1]:.2f} ms")
