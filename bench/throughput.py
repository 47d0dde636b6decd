"""Frames per second through journal -> parse -> core -> events -> outbox, on one core.

The full pipeline does what the live one does per batch: append the batch to a journal
segment and fdatasync it, apply it to the core, serialise the events, post them to the
outbox, whose writer thread records them beside the pipeline. The figure is wall time until
the outbox has written the last of them (so the writer's work is included), and also the
pipeline thread's own CPU time. The core alone is given per second of wall time and per
second of this process's CPU time: on a shared machine the first also counts the time other
processes took the core, the second does not.
"""

from __future__ import annotations

import itertools
import tempfile
import time
from pathlib import Path

from bench.streams import BLIND, Stream, bench_chips, bench_deck, with_idle_traffic
from tablesvc.core.cards import DeckRegistry
from tablesvc.core.events import Alert
from tablesvc.core.inputs import FrameIn, format_ts
from tablesvc.core.table import Player, TableCore, TableSettings
from tablesvc.pipeline.journal import Journal
from tablesvc.pipeline.outbox import Outbox
from tablesvc.pipeline.service import messages_of

BATCH = 2000


def _core(deck: dict[str, str]) -> TableCore:
    settings = TableSettings(venue="bench", table="t01", small_blind=BLIND, big_blind=BLIND,
                             devices={"shoe": "shoe", "cards": "cards", "chips": "chips",
                                      "console": "console"})
    players = [Player(s, f"P{s}", 10**9) for s in range(1, 11)]
    return TableCore(settings, DeckRegistry({"B-1": deck}), bench_chips(), players)


def _inputs(n: int, idle: bool = False) -> list[FrameIn]:
    deck = bench_deck()
    t0 = 1_796_000_000_000
    out = []
    stream = Stream(deck)
    frames = with_idle_traffic(stream.hands(), stream) if idle else stream.hands()
    for i, (dev, raw, _key) in enumerate(itertools.islice(frames, n)):
        ms = t0 + i  # 1,000 frames a second of input time
        out.append(FrameIn(format_ts(ms), ms, dev, raw.decode().rstrip("\r\n")))
    return out


def run(frames: int) -> None:
    for idle in (False, True):
        _run(frames, idle)


def _run(frames: int, idle: bool) -> None:
    inputs = _inputs(frames, idle)
    deck = bench_deck()
    what = ("with a table's idle traffic (8 heartbeats and chip refreshes per frame of play)"
            if idle else "every frame a frame of play (worst case)")
    print(f"-- {what}")

    core = _core(deck)
    t, cpu = time.perf_counter(), time.process_time()
    events = 0
    alerts = 0
    for inp in inputs:
        produced = core.apply(inp).events
        events += len(produced)
        alerts += sum(isinstance(e, Alert) and e.severity != "info" for e in produced)
    core_s, core_cpu = time.perf_counter() - t, time.process_time() - cpu
    assert alerts == 0, f"the benchmark's hands raised {alerts} alerts: they must be clean"
    print(f"throughput core only (parse -> core -> events): {frames / core_s:,.0f} frames/s, "
          f"{events / core_s:,.0f} events/s ({events} events from {frames} frames); "
          f"{frames / core_cpu:,.0f} frames per CPU-second")

    with tempfile.TemporaryDirectory() as tmp:
        core = _core(deck)
        outbox = Outbox(Path(tmp) / "outbox.sqlite")
        outbox.start()
        journal = Journal(Path(tmp) / "journal")
        t = time.perf_counter()
        cpu = time.thread_time()
        for i in range(0, len(inputs), BATCH):
            batch = inputs[i:i + BATCH]
            for inp in batch:
                journal.append(inp)
            journal.commit()
            msgs = []
            for inp in batch:
                out = core.apply(inp)
                if out.events:
                    msgs.extend(messages_of(out.events, inp.ms, 0))
            outbox.post(msgs)
        cpu_s = time.thread_time() - cpu
        outbox.flush(timeout=120)
        full_s = time.perf_counter() - t
        journal.close()
        outbox.close()
    print(f"throughput full pipeline (journal + parse + core + events + outbox, batches of "
          f"{BATCH}, fdatasync per batch, outbox on its writer thread): "
          f"{frames / full_s:,.0f} frames/s until the outbox has written everything; "
          f"{frames / cpu_s:,.0f} frames per CPU-second of the pipeline thread")
