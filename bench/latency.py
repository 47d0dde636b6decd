"""Latency from a frame written to a pty to its event at a subscriber, through mosquitto.

The service runs as its own process, exactly as installed, reading pty device paths. Frames of
clean hands are written at a steady rate (a table's real 20 frames/s, then a burst rate of
1,000); every card dealt to a seat, every burn and every card that completes a street has an
event (``card_dealt``, ``burn``, ``board``) whose arrival is timed against the write of the
``ARR`` frame that caused it.

Each rate is measured beside its own baselines, taken just before and just after it on the
same disk and broker (``bench.baselines``): the event waits for one journal sync and crosses
the broker once, so its p99 should be within ``fdatasync p99 + broker round trip p99 + 2 ms``.
Beside them, the syncs the service itself made during the rate (read from its metrics
endpoint, ``tablesvc_journal_sync_seconds``): a slow one holds every frame that arrives while
it runs, so at a fast rate a few slow syncs make many late events. At a fast rate the bench
also runs the bare journal at the same arrivals (``group_commit_ms``: the frames' write times,
nothing but appends and syncs) and prints the target against it as well.

The benchmark never aborts: an event that does not arrive is reported as lost, a service that
does not come up is reported as such, and the figures of what did arrive are printed anyway.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import tty
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from prometheus_client.parser import text_string_to_metric_families

from bench.baselines import (
    Spread,
    broker_rtt_ms,
    fdatasync_ms,
    group_commit_ms,
    sleep_until,
    spread,
)
from bench.service import stop
from bench.streams import BLIND, Stream, bench_chips, bench_deck
from drivers.tsp import SEQ_MOD, Frame, decode, encode
from tablesvc.brokers.mosquitto import Mosquitto, free_port

DEVICES = ("shoe", "cards", "chips", "console")
ALERTS = 200
BASELINE_SAMPLES = 300
"""Per baseline, before and after each rate (so 600 per figure)."""
BASELINE_PAUSE_S = 0.01
"""Between two samples of a bare baseline."""
GROUP_ARRIVALS = 3000
"""Lines of the bare journal at a fast rate's arrivals (its first ones)."""
GRACE_S = 10.0
"""How long events may still arrive after the last frame of a rate before they count as lost."""
ROOT = Path(__file__).resolve().parents[1]
PREFIX = "tablesvc/v1/bench/t01"
Key = tuple[int, str]
HUMAN = frozenset({"console", "chips"})
"""Devices whose frames are a person's action (a bet, a check, the dealer's buttons)."""
HANDOVER_PAUSE_S = 0.005
NEWHAND_PAUSE_S = 0.02
SLOW_S = (0.002, 0.005, 0.02)
"""Sync durations (bucket bounds of the service's histogram) whose exceedances are counted."""
STEP_SLOW_S = (0.0005, 0.001, 0.002, 0.005)
"""The same for the service's own steps (its work on a batch, the hand-over to the publisher)."""
HISTOGRAMS = {"syncs": "tablesvc_journal_sync_seconds", "work": "tablesvc_pipeline_work_seconds",
              "handover": "tablesvc_publish_handover_seconds"}
"""The service's histograms the bench reads before and after each rate."""


@dataclass
class Syncs:
    """Durations in a stretch of time (disk syncs, or one of the service's steps): how many,
    and how many took longer than each of a few bounds (``SLOW_S``, ``STEP_SLOW_S``)."""

    n: int
    over: dict[float, int]

    def __str__(self) -> str:
        if not self.n:
            return "none"
        return f"{self.n:,}; " + ", ".join(
            f"over {b * 1000:g} ms: {k} ({k / self.n:.2%})" for b, k in self.over.items())

    @classmethod
    def of_samples(cls, ms: Sequence[float]) -> Syncs:
        return cls(len(ms), {b: sum(1 for x in ms if x > b * 1000) for b in SLOW_S})

    @classmethod
    def between(cls, before: dict[float, int], after: dict[float, int],
                bounds: Sequence[float] = SLOW_S) -> Syncs:
        """From two readings of the cumulative histogram (upper bound -> count)."""
        n = after[float("inf")] - before.get(float("inf"), 0)
        return cls(n, {b: n - (after[b] - before.get(b, 0)) for b in bounds})


@dataclass
class RateResult:
    rate: int
    effective_rate: float
    frames: int
    sent: int
    latency: Spread
    fdatasync: Spread
    broker_rtt: Spread
    rtt_lost: int
    service_syncs: Syncs | None = None
    """The journal syncs the service made during the rate (None: its endpoint did not answer)."""
    baseline_syncs: Syncs | None = None
    group_commit: Spread | None = None
    """The bare journal at this rate's arrivals (``group_commit_ms``); None at a rate where it
    is the bare fdatasync (one sync per line)."""
    service_work: Syncs | None = None
    """The service's work per batch meanwhile (sync returned -> events handed over)."""
    service_handover: Syncs | None = None
    """Events handed to the publisher -> written to the broker's socket, meanwhile."""

    @property
    def lost(self) -> int:
        return self.sent - self.latency.n

    @property
    def target_ms(self) -> float:
        return self.fdatasync.p99 + self.broker_rtt.p99 + 2.0

    @property
    def met(self) -> bool:
        return self.latency.n > 0 and self.lost == 0 and self.latency.p99 <= self.target_ms

    @property
    def same_arrivals_target_ms(self) -> float:
        """The target with the bare journal at the same arrivals in place of one bare sync."""
        sync = self.group_commit.p99 if self.group_commit is not None else self.fdatasync.p99
        return sync + self.broker_rtt.p99 + 2.0

    @property
    def met_same_arrivals(self) -> bool:
        return (self.latency.n > 0 and self.lost == 0
                and self.latency.p99 <= self.same_arrivals_target_ms)


@dataclass
class LatencyResult:
    rates: list[RateResult] = field(default_factory=list)
    alerts: Spread | None = None
    alerts_lost: int = 0
    problem: str | None = None


def _config(d: Path, port: int, metrics_port: int, equity: bool = True,
            confirm: bool = True) -> Path:
    players = "".join(f'[[players]]\nseat = {s}\nname = "P{s}"\nstack = 1000000000\n'
                      for s in range(1, 11))
    (d / "chips.json").write_text(json.dumps({"chips": bench_chips()}))
    devices = "".join(f'[devices.{n}]\nurl = "{d / n}"\n' for n in DEVICES)
    cfg = d / "table.toml"
    cfg.write_text(f'[table]\nvenue = "bench"\nid = "t01"\n'
                   f"[game]\nsmall_blind = {BLIND}\nbig_blind = {BLIND}\n{devices}{players}"
                   f'[mqtt]\nport = {port}\nprotocol = "5"\n[storage]\ndir = "{d / "store"}"\n'
                   f'[registry]\ndecks = "{d / "decks"}"\nchips = "{d / "chips.json"}"\n'
                   f'[broadcast]\nequity = {"true" if equity else "false"}\n'
                   f"[metrics]\nport = {metrics_port}\n"
                   f'[rules.timers]\nconfirm_alerts = {"true" if confirm else "false"}\n')
    return cfg


class Feeder:
    """Writes frames to the ptys, one writer at a time, and keeps idle devices beating.

    A heartbeat per second from every device that sent nothing for a second is what real
    devices do; it keeps them from going stale while the baselines run between two rates.

    A device numbers its frames as it sends them, so the feeder gives each frame its seq
    when it writes it: the stream of hands is made ahead of time, and a heartbeat written
    between the making and the writing of a frame of the same device must not come before
    it in seq order (the service would count frames lost and stop following the hand).
    """

    def __init__(self, masters: dict[str, int], stream: Stream) -> None:
        self.masters = masters
        self.stream = stream
        self.lock = threading.Lock()
        self.last = dict.fromkeys(masters, time.monotonic())
        self.seqs: dict[str, int] = {}
        self._stop = threading.Event()
        self._beats = 0
        self._thread = threading.Thread(target=self._beat, name="heartbeat", daemon=True)
        self._thread.start()

    def write(self, dev: str, raw: bytes, just_before: Callable[[], None] | None = None) -> None:
        """Write a frame of the stream with the device's next seq; ``just_before`` is called
        right before the bytes go (the time an event is measured from)."""
        frame = decode(raw.decode("ascii").rstrip("\r\n"))
        self.line(dev, frame.type, *frame.fields, just_before=just_before)

    def line(self, dev: str, ftype: str, *fields: str,
             just_before: Callable[[], None] | None = None) -> None:
        with self.lock:
            seq = (self.seqs.get(dev, -1) + 1) % SEQ_MOD
            self.seqs[dev] = seq
            raw = encode(Frame(dev, seq, ftype, fields))
            if just_before is not None:
                just_before()
            os.write(self.masters[dev], raw)
            self.last[dev] = time.monotonic()

    def _beat(self) -> None:
        while not self._stop.wait(0.25):
            now = time.monotonic()
            for dev in self.masters:
                if now - self.last[dev] >= 1.0:
                    self._beats += 1
                    self.line(dev, "HB", str(self._beats))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)


class Collector:
    """The subscriber's side: arrival times of the timed events and alerts."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sent: dict[Key, float] = {}
        self.arrived: dict[Key, float] = {}
        self.alerts: list[float] = []
        self.online = threading.Event()
        self.devices_online: set[str] = set()

    def on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        now = time.time()
        try:
            e = json.loads(msg.payload)
        except ValueError:
            return
        if msg.topic.endswith("/status"):
            if e.get("state") == "online":
                self.online.set()
            return
        if msg.topic.endswith("/alerts"):
            if e.get("name") == "deck_defective_foreign_card":
                with self.lock:
                    self.alerts.append(now)
            return
        etype = e.get("type")
        if etype == "device_status" and e.get("state") == "online":
            self.devices_online.add(e["device"])
        key: Key | None = None
        if etype in ("card_dealt", "burn"):
            key = (e["hand"], f"index:{e['index']}")
        elif etype == "board":
            key = (e["hand"], f"board:{e['street']}")
        if key is not None:
            with self.lock:
                self.arrived.setdefault(key, now)

    def mark(self, key: Key) -> None:
        with self.lock:
            self.sent[key] = time.time()

    def missing(self, keys: Sequence[Key]) -> int:
        with self.lock:
            return sum(1 for k in keys if k not in self.arrived)

    def latencies(self, keys: Sequence[Key]) -> list[float]:
        with self.lock:
            return [(self.arrived[k] - self.sent[k]) * 1000 for k in keys if k in self.arrived]


def _wait(pred: Any, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return bool(pred())


def _play(feeder: Feeder, col: Collector, hands: Iterator[tuple[str, bytes, Key | None]],
          pending: list[tuple[str, bytes, Key | None]], rate: int, seconds: float,
          timed: int, cap_s: float) -> tuple[list[Key], list[float], float]:
    """Write frames at ``rate`` until ``seconds`` passed and ``timed`` timed frames were sent,
    stopping at the next hand boundary. Returns the keys sent, when each frame was written
    (seconds from the start), the time taken."""
    period = 1.0 / rate
    keys: list[Key] = []
    written: list[float] = []
    frames = 0
    start = time.perf_counter()
    shift = 0.0
    prev = ""
    while True:
        item = pending.pop() if pending else next(hands)
        dev, raw, key = item
        elapsed = time.perf_counter() - start
        if b"NEWHAND" in raw and frames and (
                (elapsed >= seconds and len(keys) >= timed) or elapsed >= cap_s):
            pending.append(item)  # the next rate starts with this hand
            break
        if prev and dev != prev and HUMAN & {dev, prev}:
            # a player or the dealer hands over to another device: no one acts within
            # milliseconds of the last action, and frames of two devices written closer
            # than that can be read in either order by the service's per-device readers
            pause = (NEWHAND_PAUSE_S if b"NEWHAND" in raw else HANDOVER_PAUSE_S) - period
            if pause > 0:
                shift += pause
        prev = dev
        sleep_until(start + shift + frames * period)
        if key is not None:
            keys.append(key)
        feeder.write(dev, raw, None if key is None else partial(col.mark, key))
        written.append(time.perf_counter() - start)
        frames += 1
    return keys, written, time.perf_counter() - start


def _service_histograms(port: int) -> dict[str, dict[float, int]] | None:
    """The service's histograms of ``HISTOGRAMS`` (upper bound in s -> how many took at most
    that long), None if its endpoint did not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            text = r.read().decode()
    except OSError:
        return None
    out: dict[str, dict[float, int]] = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            for key, name in HISTOGRAMS.items():
                if s.name == f"{name}_bucket":
                    out.setdefault(key, {})[float(s.labels["le"])] = int(s.value)
    return out if "syncs" in out else None


def _between(before: dict[str, dict[float, int]] | None,
             after: dict[str, dict[float, int]] | None, key: str,
             bounds: Sequence[float]) -> Syncs | None:
    if before is None or after is None or key not in after:
        return None
    return Syncs.between(before.get(key, {}), after[key], bounds)


def _baselines(storage: Path, port: int) -> tuple[list[float], list[float], int]:
    sync = fdatasync_ms(storage, BASELINE_SAMPLES, BASELINE_PAUSE_S)
    rtt = broker_rtt_ms(port, BASELINE_SAMPLES, BASELINE_PAUSE_S)
    return sync, rtt, BASELINE_SAMPLES - len(rtt)


def run(rates: Sequence[int] = (20, 1000), seconds: float = 10.0, timed: int = 400,
        root: Path = ROOT, quiet: bool = False, equity: bool = True,
        confirm: bool = True) -> LatencyResult:
    """One run: every rate in turn beside its baselines, then the alert latency.

    ``equity``: the service computes win probabilities (the default configuration), on the
    same processor as the events timed here. ``confirm``: a rule alert waits until every
    device was heard after it (the default configuration; devices beat once a second)."""
    result = LatencyResult()
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
        metrics_port = free_port()
        cfg = _config(d, broker.port, metrics_port, equity, confirm)
        col = Collector()
        sub = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                          protocol=mqtt.MQTTv5)
        sub.on_message = col.on_message
        sub.on_connect = lambda c, *a: c.subscribe(
            [(f"{PREFIX}/events", 1), (f"{PREFIX}/status", 1), (f"{PREFIX}/alerts", 1)])
        sub.connect("127.0.0.1", broker.port)
        sub.loop_start()
        stream = Stream(deck)
        feeder = Feeder(masters, stream)
        log = open(d / "service.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen([sys.executable, "-m", "tablesvc.commands.cli", "run", "--config",
                                 str(cfg), "--log", "json", "--log-level", "warning"],
                                stdout=log, stderr=subprocess.STDOUT, cwd=root)
        try:
            if not _wait(col.online.is_set, 30):
                result.problem = "the service did not come online within 30 s"
                return result
            _wait(lambda: len(col.devices_online) == len(DEVICES), 10)
            hands = stream.hands()
            pending: list[tuple[str, bytes, Key | None]] = []
            # the first hand after a start is placed from the table: its first round's events
            # come once the round is complete (docs/OPERATIONS.md, "Finding its place"). It
            # is dealt untimed; the figures are those of a table the service is following
            warm, _, _ = _play(feeder, col, hands, pending, rates[0], 0.0, 0, cap_s=600.0)
            _wait(lambda: col.missing(warm) == 0, GRACE_S)
            for rate in rates:
                sync, rtt, rtt_lost = _baselines(d / "store", broker.port)
                before = _service_histograms(metrics_port)
                keys, written, took = _play(feeder, col, hands, pending, rate, seconds, timed,
                                            cap_s=max(seconds, 600.0))
                frames = len(written)
                _wait(lambda k=keys: col.missing(k) == 0, GRACE_S)
                after = _service_histograms(metrics_port)
                sync2, rtt2, rtt_lost2 = _baselines(d / "store", broker.port)
                # at a table's rate one sync per line is what the bare fdatasync measures
                group = (spread(group_commit_ms(d / "store", written[:GROUP_ARRIVALS]))
                         if rate > 1 / BASELINE_PAUSE_S else None)
                r = RateResult(rate, frames / took, frames, len(keys),
                               spread(col.latencies(keys)), spread(sync + sync2),
                               spread(rtt + rtt2), rtt_lost + rtt_lost2,
                               _between(before, after, "syncs", SLOW_S),
                               Syncs.of_samples(sync + sync2), group,
                               _between(before, after, "work", STEP_SLOW_S),
                               _between(before, after, "handover", STEP_SLOW_S))
                result.rates.append(r)
                if not quiet:
                    print_rate(r)
            # alerts: a tag of no deck, drawn from the shoe, is a critical alert, raised once
            # every device was heard after it (the next heartbeat: a second at most) when
            # alerts are confirmed, at once when not
            alert_sent: list[float] = []
            for i in range(ALERTS):
                alert_sent.append(time.time())
                feeder.line("shoe", "DRAW", f"F{i:015X}", "D")
                time.sleep(0.02)
            _wait(lambda: len(col.alerts) >= ALERTS, GRACE_S)
            with col.lock:
                arrived = list(col.alerts)
            result.alerts = spread([(r - t) * 1000 for t, r in
                                    zip(alert_sent, arrived, strict=False)])
            result.alerts_lost = ALERTS - len(arrived)
            if not quiet:
                target = ("1.5 s: every device heard after it, a heartbeat a second"
                          if confirm else "100 ms")
                print(f"alert latency frame->alerts subscriber ({ALERTS} alerts, 50/s): "
                      f"{result.alerts}, {result.alerts_lost} lost (target: within {target})")
        except Exception as exc:  # report, never abort the benchmark run
            result.problem = f"{type(exc).__name__}: {exc}"
        finally:
            feeder.close()
            stop(proc)
            sub.loop_stop()
            broker.stop()
            for m in masters.values():
                os.close(m)
            log.close()
            if result.problem or any(r.lost for r in result.rates):
                tail = (d / "service.log").read_text(errors="replace")[-2000:]
                result.problem = (result.problem or "events lost") + "; service log tail:\n" + tail
    if result.problem and not quiet:
        print(f"latency run problem: {result.problem}")
    return result


def print_rate(r: RateResult) -> None:
    verdict = "met" if r.met else "NOT met"
    print(f"latency frame->subscriber at {r.rate} frames/s (effective {r.effective_rate:,.0f}, "
          f"{r.frames} frames, {r.sent} timed events, {r.lost} lost): {r.latency}")
    print(f"  baselines in the same run: fdatasync {r.fdatasync}; "
          f"broker QoS 1 round trip {r.broker_rtt}"
          + (f", {r.rtt_lost} lost" if r.rtt_lost else ""))
    print(f"  the service's own journal syncs meanwhile: "
          f"{r.service_syncs or 'not read (metrics endpoint)'}; the bare baseline's: "
          f"{r.baseline_syncs}")
    print(f"  the service's own steps meanwhile: its work per batch (sync returned -> events "
          f"handed over) {r.service_work or 'not read'}; hand-over to the broker's socket "
          f"{r.service_handover or 'not read'}")
    print(f"  target p99 <= {r.fdatasync.p99:.2f} + {r.broker_rtt.p99:.2f} + 2 = "
          f"{r.target_ms:.2f} ms: {verdict}")
    if r.group_commit is not None:
        print(f"  the bare journal at this rate's arrivals (each line until the sync that "
              f"covers it): {r.group_commit}; against it, p99 <= {r.group_commit.p99:.2f} + "
              f"{r.broker_rtt.p99:.2f} + 2 = {r.same_arrivals_target_ms:.2f} ms: "
              f"{'met' if r.met_same_arrivals else 'NOT met'}")


def _share(syncs: Syncs | None, bound: float = 0.005) -> str:
    return "?" if syncs is None or not syncs.n else f"{syncs.over[bound] / syncs.n:.2%}"


def summary(runs: Sequence[LatencyResult]) -> None:
    """The spread over several runs, per rate: what docs/PERFORMANCE.md records."""
    rates = sorted({r.rate for run in runs for r in run.rates})
    print(f"-- latency over {len(runs)} runs (min-max of each figure)")
    for rate in rates:
        rs = [r for run in runs for r in run.rates if r.rate == rate]

        def rng(vals: Sequence[float]) -> str:
            return f"{min(vals):.2f}-{max(vals):.2f}"

        print(f"{rate} frames/s: p50 {rng([r.latency.p50 for r in rs])} ms, "
              f"p99 {rng([r.latency.p99 for r in rs])} ms, "
              f"max {rng([r.latency.max for r in rs])} ms; "
              f"fdatasync p99 {rng([r.fdatasync.p99 for r in rs])} ms, "
              f"broker p99 {rng([r.broker_rtt.p99 for r in rs])} ms; "
              f"target met in {sum(r.met for r in rs)} of {len(rs)} "
              f"(against the bare journal at the same arrivals: "
              f"{sum(r.met_same_arrivals for r in rs)} of {len(rs)}); "
              f"lost {sum(r.lost for r in rs)} of {sum(r.sent for r in rs)}")
        print("  per run p99 / target: " + ", ".join(
            f"{r.latency.p99:.1f}/{r.target_ms:.1f}" for r in rs))
        if any(r.group_commit is not None for r in rs):
            print("  per run p99 / target against the bare journal at the same arrivals: "
                  + ", ".join(f"{r.latency.p99:.1f}/{r.same_arrivals_target_ms:.1f}"
                              for r in rs))
        print("  per run, journal syncs over 5 ms, the service / the bare baseline: " + ", ".join(
            f"{_share(r.service_syncs)}/{_share(r.baseline_syncs)}" for r in rs))
        print("  per run, the service's own steps over 1 ms, its work per batch / the hand-over "
              "to the broker's socket: " + ", ".join(
                  f"{_share(r.service_work, 0.001)}/{_share(r.service_handover, 0.001)}"
                  for r in rs))
    problems = [run.problem for run in runs if run.problem]
    if problems:
        print(f"{len(problems)} run(s) reported a problem")
