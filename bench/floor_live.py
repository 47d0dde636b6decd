"""The floor console live at venue scale: 100 tables at ten times a live pace, one screen.

Each run starts a fresh mosquitto, ``tablesvc floor`` (its own process, a new SQLite file) and
a headless Chromium on the console's page. The recorded hand of a real service is replayed as
``tables`` tables, each dealing a hand every ``hand_s`` seconds from its own offset so that the
venue's messages come evenly (events with each table's own seq and hand numbers, and the
retained ``state`` after each change, as a service publishes them), and a critical alert is
published every ``alert_every`` seconds at a random table on ``events`` and ``alerts``, as a
service does.

- alert -> screen: the time the page drew the alert (``requestAnimationFrame`` after the
  queue was rendered, ``window.floorStats.shown``) minus the time the generator published it;
- the baseline, same run: the same alert's arrival at a bare paho subscriber of ``alerts``;
- every 5 s: the console's CPU share and RSS, how many messages it has stored and how many
  wait in its queue (``/healthz``), the browser's CPU share, and the machine's: how busy all
  its cores were and the load average.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import statistics
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench.baselines import spread
from bench.floor import Recording, client
from bench.venue import FloorProcess
from tablesvc.brokers.mosquitto import Mosquitto

SAMPLE_S = 5.0
GRACE_S = 20.0
"""How long after the last publish an alert may still reach the screen (or counts as lost)."""
TICK = os.sysconf("SC_CLK_TCK")
WORKERS = 4
"""Generator processes (the venue's tables shared out among them)."""


@dataclass
class Sample:
    t: float
    console_cpu: float
    """Share of one core over the last window."""
    rss_mb: float
    stored: int | None
    backlog: int | None
    browser_cpu: float
    broker_cpu: float
    machine_busy: float
    """Share of all the machine's cores busy over the last window (every process)."""
    load1: float


@dataclass
class LiveRun:
    tables: int
    seconds: float
    published: int = 0
    alerts_sent: int = 0
    screen_ms: list[float] = field(default_factory=list)
    """Publish -> the page drew it."""
    page_ms: list[float] = field(default_factory=list)
    """Publish -> its message reached the page (before drawing)."""
    socket_ms: list[float] = field(default_factory=list)
    """Publish -> the console's WebSocket message reached a bare client (no browser)."""
    base_ms: list[float] = field(default_factory=list)
    """Publish -> a bare subscriber of the alerts topic."""
    feed_ms: list[float] = field(default_factory=list)
    """Publish -> a bare subscriber of everything the console reads, in its own process."""
    samples: list[Sample] = field(default_factory=list)
    late_ms: float = 0.0
    """How far the generator fell behind its schedule at worst."""
    catch_up_s: float | None = None
    """From the last publish until the console had stored everything (None: never)."""
    health: dict[str, Any] = field(default_factory=dict)
    console_us: float = 0.0
    """The console's CPU time per message it stored."""
    feed_us: float = 0.0
    """The bare whole-feed subscriber's CPU time per message it received."""

    @property
    def rate(self) -> float:
        return self.published / self.seconds


def proc_cpu_rss(pid: int) -> tuple[float, float]:
    """(CPU seconds so far, RSS MB) of one process."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICK
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmRSS"))
    return cpu, rss


def tree_cpu(root: int) -> float:
    """CPU seconds of a process and all its descendants (Chromium is many processes)."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        parent[pid] = int(fields[1])
        cpu[pid] = (int(fields[11]) + int(fields[12])) / TICK
    total = 0.0
    for pid, c in cpu.items():
        p = pid
        while p > 1:
            if p == root:
                total += c
                break
            p = parent.get(p, 0)
    return total


def machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of all cores."""
    with open("/proc/stat") as f:
        values = [int(x) for x in f.readline().split()[1:]]
    idle = values[3] + values[4]
    total = sum(values[:8])
    return total - idle, total


def health(url: str) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(url + "healthz", timeout=2) as r:
            got: dict[str, Any] = json.loads(r.read())
            return got
    except (OSError, ValueError):
        return {}


class Sampler(threading.Thread):
    def __init__(self, console_pid: int, browser_pid: int, broker_pid: int, url: str) -> None:
        super().__init__(name="floor-bench-sampler", daemon=True)
        self.console_pid, self.browser_pid, self.url = console_pid, browser_pid, url
        self.broker_pid = broker_pid
        self.samples: list[Sample] = []
        self.stop_flag = threading.Event()

    def run(self) -> None:
        t0 = time.monotonic()
        last = (t0, proc_cpu_rss(self.console_pid)[0], tree_cpu(self.browser_pid),
                machine_cpu(), proc_cpu_rss(self.broker_pid)[0])
        while not self.stop_flag.wait(SAMPLE_S):
            now = time.monotonic()
            cpu, rss = proc_cpu_rss(self.console_pid)
            bcpu = tree_cpu(self.browser_pid)
            mcpu = proc_cpu_rss(self.broker_pid)[0]
            busy, total = machine_cpu()
            h = health(self.url)
            dt = now - last[0]
            self.samples.append(Sample(
                now - t0, (cpu - last[1]) / dt, rss, h.get("messages"), h.get("backlog"),
                (bcpu - last[2]) / dt, (mcpu - last[4]) / dt,
                (busy - last[3][0]) / max(1, total - last[3][1]), os.getloadavg()[0]))
            last = (now, cpu, bcpu, (busy, total), mcpu)


def iso_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime()) + \
        f"{int(time.time() * 1000) % 1000:03d}Z"


def one_run(work: Path, rec: Recording, tables: int, seconds: float, hand_s: float,
            alert_every: float, workers: int) -> LiveRun:
    from tests.browser import open_browser  # the same headless Chromium as the page tests

    out = LiveRun(tables, seconds)
    work.mkdir(parents=True, exist_ok=True)
    broker = Mosquitto(work)
    broker.start()
    floor = FloorProcess(work / "floor", "venue", broker.port)
    browser = None
    pub = base_c = None
    sampler = None
    ctx = multiprocessing.get_context("spawn")  # this process has threads: no fork
    feed_ready, feed_out, feed_stop = ctx.Queue(), ctx.Queue(), ctx.Event()
    ws_ready, ws_out, ws_stop = ctx.Queue(), ctx.Queue(), ctx.Event()
    ws = None
    feed = ctx.Process(target=feed_subscriber, name="floor-bench-feed", daemon=True,
                       args=(broker.port, feed_ready, feed_stop, feed_out))
    try:
        feed.start()
        feed_ready.get(timeout=60)
        url = floor.start()
        assert floor.proc is not None
        ws = ctx.Process(target=ws_listener, name="floor-bench-ws", daemon=True,
                         args=(url, ws_ready, ws_stop, ws_out))
        ws.start()
        ws_ready.get(timeout=60)
        browser = open_browser(work / "chromium")
        pub = client(broker.port)
        base: dict[str, float] = {}

        def on_base(cl: mqtt.Client, u: Any, m: mqtt.MQTTMessage) -> None:
            base.setdefault(json.loads(m.payload)["id"], time.time() * 1000)

        base_c = client(broker.port)
        base_c.on_message = on_base
        base_c.subscribe("tablesvc/v1/venue/+/alerts", qos=1)
        for n in range(tables):  # every table online first, as at the start of a day
            pub.publish(f"tablesvc/v1/venue/t{n:03d}/status",
                        json.dumps({"state": "online", "version": "bench", "boot": 1}),
                        qos=1, retain=True)
        browser.get(url)
        end = time.monotonic() + 30
        while time.monotonic() < end and browser.execute_script(
                "return document.querySelectorAll('#grid .tile').length") < tables:
            time.sleep(0.2)
        # chromedriver: Chromium's processes are below it
        driver = getattr(getattr(browser, "service", None), "process", None)
        assert broker.proc is not None
        sampler = Sampler(floor.proc.pid, driver.pid if driver else os.getpid(),
                          broker.proc.pid, url)
        cpu_start, stored_start = proc_cpu_rss(floor.proc.pid)[0], health(url).get("messages", 0)
        sampler.start()
        sent = generate(broker.port, rec, out, tables, seconds, hand_s, alert_every, workers)
        stopped = time.monotonic()
        deadline = stopped + GRACE_S
        while time.monotonic() < deadline:
            h = health(url)
            shown = browser.execute_script(
                "return Object.keys(window.floorStats.shown).length")
            if out.catch_up_s is None and h.get("messages", 0) >= out.published + tables and \
                    not h.get("backlog"):
                out.catch_up_s = time.monotonic() - stopped
            if out.catch_up_s is not None and shown >= len(sent):
                break
            time.sleep(0.25)
        sampler.stop_flag.set()
        sampler.join()
        screen: dict[str, float] = browser.execute_script(
            "return window.floorStats.shown") or {}
        page: dict[str, float] = browser.execute_script(
            "return window.floorStats.received") or {}
        feed_stop.set()
        cpu_end = proc_cpu_rss(floor.proc.pid)[0]
        fed, fed_count, fed_cpu = feed_out.get(timeout=30)
        out.feed_us = fed_cpu / max(1, fed_count) * 1e6
        out.health = health(url)
        out.console_us = (cpu_end - cpu_start) / max(
            1, out.health.get("messages", 0) - stored_start) * 1e6
        out.samples = sampler.samples
        out.screen_ms = [screen[k] - t for k, t in sent.items() if k in screen]
        out.page_ms = [page[k] - t for k, t in sent.items() if k in page]
        ws_stop.set()
        socket: dict[str, float] = ws_out.get(timeout=30)
        out.socket_ms = [socket[k] - t for k, t in sent.items() if k in socket]
        out.base_ms = [base[k.split("/", 1)[1]] - t for k, t in sent.items()
                       if k.split("/", 1)[1] in base]
        out.feed_ms = [fed[k.split("/", 1)[1]] - t for k, t in sent.items()
                       if k.split("/", 1)[1] in fed]
    finally:
        ws_stop.set()
        feed_stop.set()
        if ws is not None:
            ws.join(10)
            if ws.is_alive():
                ws.kill()
                ws.join()
        feed.join(10)
        if feed.is_alive():
            feed.kill()
            feed.join()
        if sampler is not None:
            sampler.stop_flag.set()
        if browser is not None:
            browser.quit()
        for c in (pub, base_c):
            if c is not None:
                c.disconnect()
                c.loop_stop()
        floor.stop()
        broker.stop()
    return out


def feed_subscriber(port: int, ready: Any, stop: Any, results: Any) -> None:
    """The baseline of the console's intake: a process that subscribes to everything the
    console reads (same topics, QoS 1, acknowledging each message itself) and only notes
    when each alert came; its alert times go to ``results`` once ``stop`` is set."""
    got: dict[str, float] = {}
    count = [0]

    def on_message(cl: mqtt.Client, u: Any, m: mqtt.MQTTMessage) -> None:
        count[0] += 1
        if m.topic.endswith("/alerts"):
            got.setdefault(json.loads(m.payload)["id"], time.time() * 1000)
        cl.ack(m.mid, m.qos)

    c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                    manual_ack=True)
    c.on_message = on_message
    c.connect("127.0.0.1", port)
    c.loop_start()
    p = "tablesvc/v1/venue/+"
    c.subscribe([(f"{p}/{t}", 1) for t in ("status", "state", "devices/+", "alerts", "events",
                                            "cmd/ack_alert/reply")])
    ready.put(True)
    cpu0 = time.process_time()
    stop.wait()
    cpu = time.process_time() - cpu0
    c.disconnect()
    c.loop_stop()
    results.put((got, count[0], cpu))


def ws_listener(url: str, ready: Any, stop: Any, results: Any) -> None:
    """What the console sends its pages, without a browser: a WebSocket client of ``/ws``
    in a process of its own, noting when each alert came (console -> socket, no drawing)."""
    import asyncio

    import aiohttp

    got: dict[str, float] = {}

    async def listen() -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "ws") as ws:
            ready.put(True)
            while not stop.is_set():
                try:
                    msg = await ws.receive(timeout=0.5)
                except TimeoutError:
                    continue
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                body = json.loads(msg.data)
                if body.get("kind") == "alert":
                    a = body["alert"]
                    got.setdefault(f"{a['tbl']}/{a['alert_id']}", time.time() * 1000)

    asyncio.run(listen())
    results.put(got)


@dataclass(frozen=True)
class Job:
    """One generator process's share of the venue: the tables ``n % workers == worker``."""

    port: int
    hand: list[tuple[str, dict[str, Any]]]
    alert: dict[str, Any]
    tables: int
    worker: int
    workers: int
    seconds: float
    hand_s: float
    alert_every: float


@dataclass
class Generated:
    published: int = 0
    late_ms: float = 0.0
    sent: dict[str, float] = field(default_factory=dict)
    """Alerts published, by table/id: the wall-clock ms at the publish (the page's clock is
    the same)."""


def generator(job: Job, ready: Any, go: Any, results: Any) -> None:
    """A process publishing its tables' messages, like that many services would: each
    table's events in seq order with its alerts among them, its retained ``state``. One
    client with no window of its own (paho then sends at once: the 100 services it stands
    for have a window each), in a process of its own so that no Python lock of the others
    delays it."""
    pub = client(job.port, inflight=0)
    ready.put(job.worker)
    go.wait()
    out = Generated()
    try:
        publish_venue(pub, job, out)
        time.sleep(1.0)  # the last acknowledgements
    finally:
        pub.disconnect()
        pub.loop_stop()
    results.put((job.worker, out))


def publish_venue(pub: mqtt.Client, job: Job, out: Generated) -> None:
    hand, tables, hand_s = job.hand, job.tables, job.hand_s
    mine = [n for n in range(tables) if n % job.workers == job.worker]
    seqs = dict.fromkeys(mine, 0)
    hands = dict.fromkeys(mine, 0)
    per_msg = hand_s / len(hand)
    # table n deals its hands from its own offset n/tables of a hand, so the venue's messages
    # come evenly; within a cycle of hand_s a message is due at (offset + i * per_msg) mod
    # hand_s, and one that wrapped belongs to the hand begun in the cycle before
    schedule = sorted(((n * hand_s / tables + i * per_msg) % hand_s,
                       int((n * hand_s / tables + i * per_msg) // hand_s), n, i)
                      for n in mine for i in range(len(hand)))
    # the venue's alerts: the same draw in every process, each publishes its own tables'
    rng = random.Random(1)
    alerts = [(k * job.alert_every, n) for k in range(1, int(job.seconds / job.alert_every) + 1)
              for n in [rng.randrange(tables)] if n % job.workers == job.worker]
    t0 = time.monotonic()
    cycle = 0
    k = a = 0
    while True:
        elapsed = time.monotonic() - t0
        if elapsed >= job.seconds:
            break
        while cycle * hand_s + schedule[k][0] <= elapsed:
            due, wrapped, n, i = schedule[k]
            this = cycle
            k += 1
            if k == len(schedule):
                k = 0
                cycle += 1
            if this < wrapped:
                continue  # the tail of a hand before the first
            out.late_ms = max(out.late_ms, (elapsed - this * hand_s - due) * 1000)
            sub, body = hand[i]
            table = f"t{n:03d}"
            if sub == "events":
                if body.get("type") == "hand_started":
                    hands[n] += 1
                seqs[n] += 1
                body = {**body, "table": table, "venue": "venue", "seq": seqs[n],
                        "prev_seq": seqs[n] - 1, "hand": hands[n], "ts": iso_now()}
            else:
                body = {**body, "hand": hands[n], "last_seq": seqs[n]}
            pub.publish(f"tablesvc/v1/venue/{table}/{sub}", json.dumps(body), qos=1,
                        retain=sub == "state")
            out.published += 1
        while a < len(alerts) and alerts[a][0] <= elapsed:
            n = alerts[a][1]
            a += 1
            table = f"t{n:03d}"
            seqs[n] += 1
            aid = f"{table}-b{seqs[n]}"
            payload = json.dumps({**job.alert, "table": table, "venue": "venue",
                                  "seq": seqs[n], "prev_seq": seqs[n] - 1, "hand": hands[n],
                                  "id": aid, "ts": iso_now()})
            out.sent[f"{table}/{aid}"] = time.time() * 1000
            pub.publish(f"tablesvc/v1/venue/{table}/events", payload, qos=1)
            pub.publish(f"tablesvc/v1/venue/{table}/alerts", payload, qos=1)
            out.published += 2
        time.sleep(0.002)


def generate(port: int, rec: Recording, out: LiveRun, tables: int, seconds: float,
             hand_s: float, alert_every: float, workers: int) -> dict[str, float]:
    """Run the generator processes for ``seconds``; the alerts they sent."""
    ctx = multiprocessing.get_context("spawn")  # this process has threads: no fork
    ready, results, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=generator, name=f"floor-bench-gen{w}", daemon=True, args=(
        Job(port, rec.hand, rec.alert, tables, w, workers, seconds, hand_s, alert_every),
        ready, go, results)) for w in range(workers)]
    for p in procs:
        p.start()
    try:
        for _ in procs:
            ready.get(timeout=60)
        go.set()
        sent: dict[str, float] = {}
        for _ in procs:
            _, got = results.get(timeout=seconds + 60)
            out.published += got.published
            out.late_ms = max(out.late_ms, got.late_ms)
            sent.update(got.sent)
    finally:
        for p in procs:
            p.join(10)
            if p.is_alive():
                p.kill()
                p.join()
    out.alerts_sent = len(sent)
    return sent


def windows(xs: list[float]) -> str:
    if not xs:
        return "no samples"
    return f"median {statistics.median(xs):.0%}, max {max(xs):.0%}"


def report(r: LiveRun, i: int) -> None:
    s = r.samples
    print(f"  run {i}: {r.published:,} messages in {r.seconds:g} s ({r.rate:.0f}/s; generator "
          f"at worst {r.late_ms:.0f} ms behind), alerts on screen "
          f"{len(r.screen_ms)}/{r.alerts_sent}, at the bare subscriber "
          f"{len(r.base_ms)}/{r.alerts_sent}")
    print(f"    alert -> screen (drawn):            {spread(r.screen_ms)}")
    print(f"    alert -> page (message received):   {spread(r.page_ms)}")
    print(f"    alert -> console's WebSocket:       {spread(r.socket_ms)}")
    print(f"    baseline alert -> bare subscriber:  {spread(r.base_ms)}")
    print(f"    baseline alert -> bare whole feed:  {spread(r.feed_ms)}")
    if s:
        rss = [x.rss_mb for x in s]
        half = s[len(s) // 2:]
        slope = ((half[-1].rss_mb - half[0].rss_mb) / (half[-1].t - half[0].t) * 60
                 if len(half) > 1 and half[-1].t > half[0].t else 0.0)
        print(f"    console CPU (share of one core, {SAMPLE_S:g} s windows): "
              f"{windows([x.console_cpu for x in s])}; browser: "
              f"{windows([x.browser_cpu for x in s])}; broker: "
              f"{windows([x.broker_cpu for x in s])}")
        print(f"    console RSS MB: first {rss[0]:.0f}, last {rss[-1]:.0f}, max {max(rss):.0f}"
              f" (second half {slope:+.1f} MB/min); backlog max "
              f"{max((x.backlog or 0) for x in s)}")
        print(f"    machine: all cores busy {windows([x.machine_busy for x in s])}; load "
              f"(1 min) {min(x.load1 for x in s):.1f}-{max(x.load1 for x in s):.1f}")
        print("    over time (s: console CPU, RSS MB, backlog):  " + "  ".join(
            f"{x.t:.0f}: {x.console_cpu:.0%} {x.rss_mb:.0f} {x.backlog}" for x in s))
    print(f"    CPU per message: console {r.console_us:.0f} us, bare whole-feed subscriber "
          f"{r.feed_us:.0f} us")
    caught = f"{r.catch_up_s:.1f} s" if r.catch_up_s is not None else "not within the grace"
    print(f"    console stored everything {caught} after the last publish; {r.health}")


def run(rec: Recording, *, tables: int, seconds: float, runs: int, hand_s: float,
        alert_every: float, workers: int = WORKERS) -> list[LiveRun]:
    rate = tables * len(rec.hand) / hand_s
    print(f"live: {tables} tables, a hand every {hand_s:g} s each ({rate:.0f} messages/s), "
          f"a critical alert every {alert_every:g} s; {runs} runs of "
          f"{seconds:g} s", flush=True)
    results = []
    for i in range(1, runs + 1):
        with tempfile.TemporaryDirectory(prefix="bench-floor-live-") as d:
            r = one_run(Path(d), rec, tables, seconds, hand_s, alert_every, workers)
        report(r, i)
        results.append(r)
    if len(results) > 1:
        print(f"  over {len(results)} runs, p99 of each run as min / median / max:")
        for name, attr in (("alert -> screen", "screen_ms"),
                           ("baseline: bare subscriber", "base_ms"),
                           ("baseline: bare whole feed", "feed_ms")):
            xs: list[list[float]] = [getattr(r, attr) for r in results]
            p99s = sorted(spread(x).p99 for x in xs)
            pooled = spread([v for x in xs for v in x])
            print(f"    {name:26} {p99s[0]:8.1f} / {statistics.median(p99s):8.1f} / "
                  f"{p99s[-1]:8.1f} ms; pooled {pooled}")
    return results
