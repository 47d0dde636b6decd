"""Restart: from process start to the ports open, and to live tracking, with a long journal.

``tablesvc run`` is started as its own process, exactly as installed, on the storage of a long
day of one table (``bench.restart_journal``: a million inputs by default) and on four virtual
devices on ptys that keep sending (heartbeats at 10 Hz) while it starts. Measured from the
moment before the process is spawned:

- *ports open*: each device's pty sees its reader (the device side, polled every 2 ms); the
  figure is the last of the four;
- *live*: the service's ``live`` log line: recovered, and the inputs that arrived meanwhile
  applied, so a new frame is tracked as it comes;
- *first event*: a subscriber on mosquitto receives the ``device_status`` event of a device's
  HELLO, sent when its port opened (after the device's own 0.2 s settle time): the first
  event of a frame that arrived while the service recovered;
- *unheard frames*: frames a device wrote after its port had opened that no reader took (must
  be 0), and how many inputs the service journalled while it recovered.

Beside each run, in the same run: the bare interpreter (``python -c pass``), the imports on
the way to opening the ports (timed inside a fresh interpreter), and the same restart on an
empty storage (a first start). The service runs with its modules' bytecode compiled, as an
installed package does (kept under ``build/pycache``); three more restarts compile every module
from source, as the first start after an install without compiled files does. With
``--full-replay``, once, the restart without checkpoints (the whole journal replayed, as every
restart did before checkpoints; the ports now open first all the same).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench.restart_journal import generate
from bench.service import stop
from simulators.device import VirtualDevice
from simulators.endpoints import PtyEndpoint
from simulators.virtual import DEVICE_MODELS
from tablesvc.brokers.mosquitto import Mosquitto

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "tablesvc/v1/bench/t01"
PORTS_IMPORTS = ("import sys; sys.modules['rich'] = None; "  # as tablesvc run does
                 "import tablesvc.commands.cli, tablesvc.commands.logs, tablesvc.pipeline.ports")
LOGS = ROOT / "build" / "bench-restart" / "logs"
PYCACHE = ROOT / "build" / "pycache"
"""The service's log of the last run of each kind, kept to be read."""
TIMEOUT_S = 300.0


@dataclass
class Run:
    kind: str
    ports_s: float | None = None
    live_s: float | None = None
    event_s: float | None = None
    unheard: int = 0
    backlog: int | None = None
    path: str | None = None
    replayed: int | None = None
    problem: str | None = None


@dataclass
class Result:
    inputs: int
    runs: list[Run] = field(default_factory=list)
    python_s: list[float] = field(default_factory=list)
    imports_s: list[float] = field(default_factory=list)
    full: Run | None = None


def _env(bytecode: bool) -> dict[str, str]:
    """The children's environment. An installed package has its bytecode compiled (pip does
    it at install); this checkout may run with PYTHONDONTWRITEBYTECODE, so bytecode is kept
    under build/ instead of beside the sources. ``bytecode=False``: every module compiled
    from source, as on the first start after an install without compiled files."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if bytecode:
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    else:
        env.pop("PYTHONPYCACHEPREFIX", None)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _spawn_seconds(code: str) -> float:
    """Process start to exit of ``python -c code``."""
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=_env(True))
    return time.monotonic() - t0


def _import_seconds(code: str) -> float:
    """The time ``code`` takes inside a fresh interpreter (its start and exit left out)."""
    timed = f"import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", timed], check=True, cwd=ROOT, env=_env(True),
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def _log_time(line: dict[str, Any]) -> float:
    return datetime.fromisoformat(str(line["timestamp"]).replace("Z", "+00:00")).timestamp()


class _Devices:
    """Four virtual devices on ptys, beating at 10 Hz; notes when each pty gets its reader."""

    def __init__(self, folder: Path) -> None:
        self.endpoints = {n: PtyEndpoint(folder / n) for n in DEVICE_MODELS}
        self.devices = {n: VirtualDevice(n, ep, m) for (n, m), ep in
                        zip(DEVICE_MODELS.items(), self.endpoints.values(), strict=True)}
        for d in self.devices.values():
            d.hello()
            d.start_heartbeat(0.1)
        self.opened: dict[str, float] = {}
        self.dropped_at_open: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.002):
            for n, ep in self.endpoints.items():
                if n not in self.opened and ep.connected:
                    self.opened[n] = time.time()
                    self.dropped_at_open[n] = ep.dropped

    def unheard(self) -> int:
        return sum(ep.dropped - self.dropped_at_open.get(n, ep.dropped)
                   for n, ep in self.endpoints.items())

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        for d in self.devices.values():
            d.stop()
        for ep in self.endpoints.values():
            ep.close()


class _Events:
    def __init__(self, port: int) -> None:
        self.first: dict[str, float] = {}
        self.since = 0.0
        self.client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                                  client_id=f"bench-restart-{os.getpid()}")
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(f"{PREFIX}/events", qos=1)
        self.client.loop_start()

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            e = json.loads(msg.payload)
        except ValueError:
            return
        if e.get("type") == "device_status" and self.since and "status" not in self.first:
            self.first["status"] = time.time()

    def arm(self) -> None:
        self.first.clear()
        self.since = time.time()

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def _prepare(source: Path | None, work: Path, devices: _Devices, port: int,
             checkpoints: bool = True) -> Path:
    """A private copy of the stored day (segments hard-linked but the last), devices on ptys."""
    store = work / "store"
    if source is not None:
        shutil.copytree(source / "registry", work / "registry")
        shutil.copytree(source / "store", store, copy_function=os.link)
        segments = sorted((store / "journal").iterdir())
        for p in [segments[-1], store / "outbox.sqlite"]:
            data = p.read_bytes()
            p.unlink()
            p.write_bytes(data)
        shutil.rmtree(store / "checkpoints")
        if checkpoints:
            shutil.copytree(source / "store" / "checkpoints", store / "checkpoints")
        decks, chips = work / "registry" / "decks", work / "registry" / "chips.json"
    else:
        from bench.restart_journal import CACHE

        decks, chips = CACHE / "registry-empty" / "decks", CACHE / "registry-empty" / "c.json"
        decks.mkdir(parents=True, exist_ok=True)
    devs = "".join(f'[devices.{n}]\nurl = "{ep.url}"\n' for n, ep in devices.endpoints.items())
    cfg = work / "table.toml"
    cfg.write_text(f'[table]\nvenue = "bench"\nid = "t01"\nseats = 6\n[game]\n'
                   f'small_blind = 50\nbig_blind = 100\n{devs}'
                   f'[registry]\ndecks = "{decks}"\nchips = "{chips}"\n'
                   f'[mqtt]\nport = {port}\nprotocol = "5"\n[storage]\ndir = "{store}"\n')
    return cfg


def _restart(kind: str, source: Path | None, broker: Mosquitto, events: _Events,
             checkpoints: bool = True, bytecode: bool = True) -> Run:
    run = Run(kind)
    with tempfile.TemporaryDirectory(prefix="bench-restart-") as tmp:
        work = Path(tmp)
        devices = _Devices(work / "dev")
        try:
            cfg = _prepare(source, work, devices, broker.port, checkpoints)
            log_path = work / "service.log"
            events.arm()
            with open(log_path, "wb") as out:
                t0 = time.time()
                proc = subprocess.Popen([sys.executable, "-m", "tablesvc.commands.cli", "run",
                                         "--config", str(cfg), "--log", "json"],
                                        stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
                                        env=_env(bytecode))
            try:
                deadline = time.monotonic() + TIMEOUT_S
                live = None
                while time.monotonic() < deadline and proc.poll() is None:
                    lines = _lines(log_path)
                    live = next((e for e in lines if e.get("event") == "live"), None)
                    if live and "status" in events.first and len(devices.opened) == 4:
                        break
                    time.sleep(0.05)
                time.sleep(1.0)  # frames keep coming after live: none may go unheard
                lines = _lines(log_path)
                if live is None:
                    run.problem = f"not live after {TIMEOUT_S:.0f} s (exit {proc.poll()})"
                    return run
                run.live_s = _log_time(live) - t0
                run.backlog = int(live.get("backlog", 0))
                if len(devices.opened) == 4:
                    run.ports_s = max(devices.opened.values()) - t0
                if "status" in events.first:
                    run.event_s = events.first["status"] - t0
                rec = next((e for e in lines if e.get("event") == "state recovered"), {})
                run.path, run.replayed = rec.get("path"), rec.get("inputs")
                run.unheard = devices.unheard()
            finally:
                stop(proc)
                LOGS.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(log_path, LOGS / f"{kind}.log")  # the last run of each kind
        finally:
            devices.close()
    return run


def _lines(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            with contextlib.suppress(ValueError):
                out.append(json.loads(line))
    return out


def run(inputs: int, runs: int, full_replay: bool) -> Result:
    print(f"-- restart with a journal of {inputs:,} inputs")
    source = generate(inputs, log=print)
    meta = json.loads((source / "READY").read_text())
    print(f"  the stored day: {meta['inputs']:,} inputs, {meta['hands']:,} hands, "
          f"{meta['events']:,} events")
    result = Result(meta["inputs"])
    with tempfile.TemporaryDirectory(prefix="bench-broker-") as bdir:
        broker = Mosquitto(Path(bdir))
        broker.start()
        events = _Events(broker.port)
        try:
            _restart("warm-up", None, broker, events)  # compiles the bytecode once
            for i in range(runs):
                for kind, src in (("empty", None), ("day", source)):
                    result.python_s.append(_spawn_seconds("pass"))
                    result.imports_s.append(_import_seconds(PORTS_IMPORTS))
                    r = _restart(kind, src, broker, events)
                    result.runs.append(r)
                    print(f"  run {i + 1} {kind:5}: {_fmt(r)}")
            for i in range(min(3, runs)):
                r = _restart("cold", source, broker, events, bytecode=False)
                result.runs.append(r)
                print(f"  run {i + 1} day, no compiled bytecode: {_fmt(r)}")
            if full_replay:
                result.full = _restart("full", source, broker, events, checkpoints=False)
                print(f"  without checkpoints: {_fmt(result.full)}")
        finally:
            events.close()
            broker.stop()
    summary(result)
    return result


def _fmt(r: Run) -> str:
    if r.problem:
        return r.problem
    def s(v: float | None) -> str:
        return "-" if v is None else f"{v:.3f} s"
    return (f"ports open {s(r.ports_s)}, live {s(r.live_s)}, first event {s(r.event_s)}; "
            f"recovery {r.path} ({r.replayed} inputs replayed), {r.backlog} inputs journalled "
            f"meanwhile, {r.unheard} frames unheard")


def _spread(xs: list[float]) -> str:
    if not xs:
        return "no runs"
    return (f"min {min(xs):.3f} s, median {statistics.median(xs):.3f} s, max {max(xs):.3f} s "
            f"(n={len(xs)})")


def summary(result: Result) -> None:
    print("  summary, from process start:")
    print(f"    bare interpreter (python -c pass, start to exit): {_spread(result.python_s)}")
    print(f"    imports on the way to the ports (in-process):     {_spread(result.imports_s)}")
    for kind, what in (("empty", "first start (empty storage)"),
                       ("day", f"restart on {result.inputs:,} inputs"),
                       ("cold", f"restart on {result.inputs:,} inputs, every module compiled "
                                "from source")):
        rs = [r for r in result.runs if r.kind == kind and not r.problem]
        print(f"    {what}:")
        print(f"      ports open:  {_spread([r.ports_s for r in rs if r.ports_s is not None])}")
        print(f"      live:        {_spread([r.live_s for r in rs if r.live_s is not None])}")
        print(f"      first event: {_spread([r.event_s for r in rs if r.event_s is not None])}")
        print(f"      unheard frames: {sum(r.unheard for r in rs)}; recovery paths: "
              f"{sorted({str(r.path) for r in rs})}")
    if result.full is not None:
        print(f"    without checkpoints (whole journal replayed): {_fmt(result.full)}")
    print("  targets: ports open <= 1 s and live <= 2 s from process start, whatever the "
          "journal's length")
