"""Memory of the running service over many hands: does anything grow hand after hand?

``tablesvc run`` runs as its own process on the virtual table's ptys, with mosquitto and a
subscriber taking every message, while the virtual table deals a fixed number of six-handed
no-limit hands at a high pace (blinds, calls, folds, showdowns, hole cards, hand histories,
win probabilities, heartbeats and chip refreshes: what a real table sends, faster). The dealer
takes 1 ms a step, but 5 ms where a person's action hands over to another device (20 ms
before a NEWHAND), as no player bets a millisecond after the dealer's button: frames of two
devices written closer than that reach the service's per-device readers in either order, the
hands turn irregular and the alerts they leave open would be measured instead of the
service (a uniform 2 ms pace left 16,000 alerts in 2,300 hands). The service's resident set
(``VmRSS`` in ``/proc/<pid>/status``), and apart from it its equity process's, is sampled
every second against the hands finished so
far; the figures are the RSS once warm, at the end, the peak, and the slope over the second
half of the run (a leak shows as a steady slope; a flat line is the target). As on a staffed
floor, every critical alert is acknowledged as it comes, so that a hand turned irregular (a
loaded machine reads frames late) leaves no alert open in the retained state: the run prints
the alerts raised, by name, to say how clean it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench.service import stop
from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import Mosquitto

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "tablesvc/v1/bench/t01"
SEATS = {s: 10_000 for s in range(1, 7)}
TARGET_MB = 60.0
PACE_S = 0.001
HANDOVER_S = 0.005


@dataclass
class RssResult:
    hands: int
    seconds: float
    equity: bool = True
    samples: list[tuple[int, float]] = field(default_factory=list)
    """(hands finished, RSS in MB)."""
    problem: str | None = None
    raised: dict[str, int] = field(default_factory=dict)
    """Warning and critical alerts raised, by name: a clean run raises none."""
    open_alerts: int = 0
    """Alerts left open at the end: critical ones are acknowledged as they come, so a run
    ends with none unless the last acknowledgements were still on their way."""
    open_names: dict[str, int] = field(default_factory=dict)
    """The open alerts by name: what turned irregular, if anything."""
    helper_samples: list[tuple[int, float]] = field(default_factory=list)
    """(hands finished, RSS in MB) of the service's child processes (the equity process)."""

    @property
    def warm_mb(self) -> float:
        """RSS once a tenth of the hands (at least 100) were played."""
        mark = max(100, self.hands // 10)
        later = [mb for h, mb in self.samples if h >= mark]
        return later[0] if later else (self.samples[-1][1] if self.samples else 0.0)

    @property
    def end_mb(self) -> float:
        return self.samples[-1][1] if self.samples else 0.0

    @property
    def peak_mb(self) -> float:
        return max((mb for _, mb in self.samples), default=0.0)

    @property
    def slope_mb_per_1000(self) -> float:
        """Least-squares slope of RSS over hands, second half of the run, per 1,000 hands."""
        half = [(h, mb) for h, mb in self.samples if h >= self.hands / 2]
        if len(half) < 2:
            return 0.0
        xs = [h for h, _ in half]
        ys = [mb for _, mb in half]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        var = sum((x - mx) ** 2 for x in xs)
        if var == 0:
            return 0.0
        return 1000 * sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var


def rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def children_rss_mb(pid: int) -> float:
    """The resident sets of ``pid``'s child processes, summed (0 when it has none)."""
    total = 0.0
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                for child in f.read().split():
                    total += rss_mb(int(child)) or 0.0
    return total


def _config(d: Path, rig: VirtualTableRig, port: int, equity: bool) -> Path:
    devices = "".join(f'[devices.{n}]\nurl = "{u}"\n' for n, u in rig.device_urls().items())
    players = "".join(f'[[players]]\nseat = {s}\nname = "P{s}"\nstack = {st}\n'
                      for s, st in SEATS.items())
    cfg = d / "table.toml"
    cfg.write_text(f'[table]\nvenue = "bench"\nid = "t01"\n{devices}'
                   f'[registry]\ndecks = "{rig.decks_dir}"\nchips = "{rig.chips_path}"\n'
                   f'{players}[mqtt]\nport = {port}\nprotocol = "5"\n'
                   f'[storage]\ndir = "{d / "store"}"\n'
                   f'[broadcast]\nequity = {"true" if equity else "false"}\n')
    return cfg


def run(hands: int, root: Path = ROOT, quiet: bool = False, equity: bool = True) -> RssResult:
    """``equity``: the service computes win probabilities (the default configuration), which
    holds the lookup tables and numpy."""
    result = RssResult(hands, 0.0, equity=equity)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        broker = Mosquitto(d)
        broker.start()
        rig = VirtualTableRig(d / "sim", seats=SEATS, seed=7, pace=PACE_S, handover=HANDOVER_S)
        ended = [0]
        online = threading.Event()
        state = [b"{}"]
        raised: Counter[str] = Counter()

        def on_message(client: Any, userdata: Any, msg: Any) -> None:
            if msg.topic.endswith("/events") and b'"type":"hand_ended"' in msg.payload:
                ended[0] += 1
            elif msg.topic.endswith("/alerts"):
                alert = json.loads(msg.payload)
                raised[str(alert.get("name"))] += 1
                if alert.get("severity") == "critical":  # the floor acknowledges it
                    client.publish(f"{PREFIX}/cmd/ack_alert",
                                   json.dumps({"alert_id": alert.get("id")}), qos=1)
            elif msg.topic.endswith("/state"):
                state[0] = msg.payload
            elif msg.topic.endswith("/status") and b'"online"' in msg.payload:
                online.set()

        sub = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                          protocol=mqtt.MQTTv5)
        sub.on_message = on_message
        sub.on_connect = lambda c, *a: c.subscribe(f"{PREFIX}/#", qos=1)
        sub.connect("127.0.0.1", broker.port)
        sub.loop_start()
        cfg = _config(d, rig, broker.port, equity)
        log = open(d / "service.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen([sys.executable, "-m", "tablesvc.commands.cli", "run", "--config",
                                 str(cfg), "--log", "json", "--log-level", "warning"],
                                stdout=log, stderr=subprocess.STDOUT, cwd=root)
        start = time.monotonic()
        try:
            if not online.wait(30):
                result.problem = "the service did not come online within 30 s"
                return result
            time.sleep(1.0)  # the ports open, the devices say hello
            dealer = rig.start(hands=hands)
            next_print = 0
            quiet_since = time.monotonic()
            last = 0
            while True:
                mb = rss_mb(proc.pid)
                if mb is None or proc.poll() is not None:
                    result.problem = f"the service ended (exit {proc.poll()})"
                    break
                done = ended[0]
                result.samples.append((done, mb))
                helpers = children_rss_mb(proc.pid)
                result.helper_samples.append((done, helpers))
                if not quiet and done >= next_print:
                    print(f"  {done:6d} hands: RSS {mb:.1f} MB, its equity process "
                          f"{helpers:.1f} MB", flush=True)
                    next_print += max(500, hands // 10)
                if done != last:
                    last, quiet_since = done, time.monotonic()
                if not dealer.is_alive() and (
                        done >= hands or time.monotonic() - quiet_since > 10):
                    if done < hands:
                        result.problem = f"{done} of {hands} hands ended at the subscriber"
                    break
                time.sleep(1.0)
        finally:
            result.seconds = time.monotonic() - start
            with contextlib.suppress(ValueError):
                still = json.loads(state[0]).get("open_alerts", [])
                result.open_alerts = len(still)
                result.open_names = dict(Counter(str(a.get("name")) for a in still))
            result.raised = dict(raised)
            rig.close()
            stop(proc)
            sub.loop_stop()
            broker.stop()
            log.close()
    if not quiet:
        print_result(result)
    return result


def print_result(r: RssResult) -> None:
    verdict = "met" if r.peak_mb <= TARGET_MB and abs(r.slope_mb_per_1000) < 0.5 else "NOT met"
    what = "win probabilities on" if r.equity else "win probabilities off"
    print(f"service RSS over {r.hands:,} hands, {what} ({r.seconds:.0f} s): "
          f"warm {r.warm_mb:.1f} MB, end {r.end_mb:.1f} MB, peak {r.peak_mb:.1f} MB, "
          "slope over the second half "
          f"{r.slope_mb_per_1000:+.2f} MB per 1,000 hands (target: flat, <= {TARGET_MB:.0f} MB: "
          f"{verdict}); {r.open_alerts} alerts open at the end"
          + (f" {r.open_names}" if r.open_names else "")
          + f"; {sum(r.raised.values())} alerts raised" + (f" {r.raised}" if r.raised else "")
          + (f"; problem: {r.problem}" if r.problem else ""))
    if any(mb for _, mb in r.helper_samples):
        mark = max(100, r.hands // 10)
        warm = next((mb for h, mb in r.helper_samples if h >= mark), 0.0)
        print(f"its equity process: warm {warm:.1f} MB, end {r.helper_samples[-1][1]:.1f} MB, "
              f"peak {max(mb for _, mb in r.helper_samples):.1f} MB")
