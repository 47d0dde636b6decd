"""The floor console at venue scale (issue 13): ``python -m bench --only floor``.

1. **record** (``record``): two real services on virtual tables (one dealing clean hands, one
   whose dealer burns no card before the flop) publish through mosquitto; every message is
   recorded. The recording is kept in ``build/bench-floor/`` and made again whenever the code
   that produces the events changes (a hash of the package and the simulators).
2. **live** (``bench.floor_live``): the recording replayed as 100 tables dealing at ten times a
   live pace into mosquitto, a critical alert every second, ``tablesvc floor`` running and a
   headless Chromium showing its page: alert -> screen beside alert -> bare subscriber, the
   console's CPU, RSS and backlog over time, the machine's load.
3. **search** (``bench.floor_search``): a day of 100 tables x 12 hours built once through the
   store's own batched insert (kept in ``build/bench-floor/``), searched by table, seat, rule
   ID and severity through the console's HTTP API, through its query layer, and as bare SQL on
   the same file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench.venue import LiveTable
from tablesvc.brokers.mosquitto import Mosquitto

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "build" / "bench-floor"
Message = tuple[str, dict[str, Any]]
"""(topic below the table, body) of one recorded message."""


@dataclass(frozen=True)
class Recording:
    hand: list[Message]
    """One clean hand of a real service: its events and retained ``state`` messages."""
    alert: dict[str, Any]
    """The critical alert a real service raised for a dealer error."""
    key: str
    """The hash of the code that produced it (the caches built from it carry it)."""
    made: str

    def events(self) -> list[dict[str, Any]]:
        return [b for s, b in self.hand if s == "events"]


def client(port: int, inflight: int = 1000) -> mqtt.Client:
    c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    c.max_inflight_messages_set(inflight)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def code_key() -> str:
    """A hash of what makes the recorded events: the service (the package but for the floor
    console, which only reads them), the simulators, this bench's table helper."""
    h = hashlib.sha256()
    service = [f for f in (ROOT / "tablesvc").rglob("*.py")
               if "floor" not in f.relative_to(ROOT / "tablesvc").parts]
    files = sorted([*service, *(ROOT / "simulators").rglob("*.py"),
                    *(ROOT / "simulators").rglob("*.yaml"), ROOT / "bench" / "venue.py"])
    for f in files:
        h.update(str(f.relative_to(ROOT)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def record_stream(work: Path) -> tuple[list[tuple[str, str, bytes]], dict[str, Any]]:
    """A clean table's messages over a few hands, and the alert event of a dealer error."""
    work.mkdir(parents=True, exist_ok=True)
    broker = Mosquitto(work)
    broker.start()
    got: list[tuple[str, str, bytes]] = []
    c = client(broker.port)
    c.on_message = lambda cl, u, m: got.append((m.topic.split("/")[3],
                                                m.topic.split("/", 4)[4], bytes(m.payload)))
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
    stream = [(table, sub, p) for table, sub, p in got
              if table == "clean" and not sub.startswith("secure/")]
    alerts = [json.loads(p) for table, sub, p in got if table == "err" and sub == "alerts"]
    critical = [a for a in alerts if a.get("severity") == "critical"]
    if not critical:
        raise RuntimeError("the dealer-error table raised no critical alert; see "
                           f"{work / 'err' / 'service.log'}")
    return stream, critical[0]


def one_hand(stream: list[tuple[str, str, bytes]]) -> list[Message]:
    """The messages of the recording's second hand (the first carries the start-up)."""
    out: list[Message] = []
    started = 0
    for _, sub, p in stream:
        body = json.loads(p)
        if sub == "events" and body.get("type") == "hand_started":
            started += 1
        if started == 3:
            break
        if started == 2 and sub in ("events", "state"):
            out.append((sub, body))
    if not any(s == "events" and b.get("type") == "hand_ended" for s, b in out):
        raise RuntimeError("the recording holds no whole second hand")
    return out


def recording(fresh: bool = False) -> Recording:
    """The recording, from the cache when the code is the one that made it."""
    key = code_key()
    path = CACHE / "recording.json"
    if not fresh and path.exists():
        cached = json.loads(path.read_text())
        if cached.get("key") == key:
            return Recording([(s, b) for s, b in cached["hand"]], cached["alert"], key,
                             cached["made"])
    print("recording two real services (a clean table, a dealer error) ...", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-floor-rec-") as d:
        stream, alert = record_stream(Path(d))
    rec = Recording(one_hand(stream), alert, key,
                    time.strftime("%Y-%m-%d %H:%M", time.localtime()))
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"key": key, "made": rec.made, "hand": rec.hand,
                               "alert": alert}))
    os.replace(tmp, path)
    return rec


def run(*, tables: int = 100, seconds: float = 90.0, runs: int = 3, hours: float = 12.0,
        hand_s: float = 12.0, alert_every: float = 1.0, part: str | None = None,
        fresh: bool = False, reps: int = 10, generators: int = 4) -> None:
    from bench import floor_live, floor_search

    rec = recording(fresh)
    n_events = len(rec.events())
    print(f"floor console: one recorded hand = {len(rec.hand)} messages ({n_events} events, "
          f"{len(rec.hand) - n_events} retained state); alert {rec.alert['name']} "
          f"{rec.alert['rule']} ({rec.alert['severity']}); recording of {rec.made}",
          flush=True)
    if part in (None, "search"):
        floor_search.run(rec, tables=tables, hours=hours, runs=runs, reps=reps, fresh=fresh)
    if part in (None, "live"):
        floor_live.run(rec, tables=tables, seconds=seconds, runs=runs, hand_s=hand_s,
                       alert_every=alert_every, workers=generators)


def add_arguments(p: argparse.ArgumentParser | argparse._ArgumentGroup,
                  prefix: str = "") -> None:
    p.add_argument(f"--{prefix}tables", type=int, default=100, help="tables of the venue")
    p.add_argument(f"--{prefix}seconds", type=float, default=90.0,
                   help="length of each live run")
    p.add_argument(f"--{prefix}runs", type=int, default=3,
                   help="live runs, and search rounds (their spread is printed)")
    p.add_argument(f"--{prefix}hours", type=float, default=12.0, help="hours of the searched day")
    p.add_argument(f"--{prefix}hand-s", type=float, default=12.0,
                   help="one hand per table every ... s (a live table deals one every 120 s: "
                        "12 s is ten times that)")
    p.add_argument(f"--{prefix}alert-every", type=float, default=1.0,
                   help="a critical alert somewhere in the venue every ... s")
    p.add_argument(f"--{prefix}generators", type=int, default=4,
                   help="processes publishing the venue's messages (tables shared out)")
    p.add_argument(f"--{prefix}reps", type=int, default=10,
                   help="times each search is timed in each round")
    p.add_argument(f"--{prefix}part", choices=["live", "search"], default=None)
    p.add_argument(f"--{prefix}fresh", action="store_true",
                   help="record again and rebuild the day, ignoring build/bench-floor/")


def run_from(a: argparse.Namespace, prefix: str = "") -> None:
    v = vars(a)
    k = prefix.replace("-", "_")
    run(tables=v[f"{k}tables"], seconds=v[f"{k}seconds"], runs=v[f"{k}runs"],
        hours=v[f"{k}hours"], hand_s=v[f"{k}hand_s"], alert_every=v[f"{k}alert_every"],
        part=v[f"{k}part"], fresh=v[f"{k}fresh"], reps=v[f"{k}reps"],
        generators=v[f"{k}generators"])


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.floor")
    add_arguments(p)
    run_from(p.parse_args())


if __name__ == "__main__":
    main()
