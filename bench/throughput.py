"""Frames per second through journal -> parse -> core -> events -> outbox, on one core.

The full pipeline does what the live one does per batch: append the batch to a journal
segment and fdatasync it, apply it to the core, serialise the events, post them to the
outbox, whose writer thread records them beside the pipeline. The figure is wall time until
the outbox has written the last of them (so the writer's work is included), and also the
pipeline thread's own CPU time. The core alone is given per second of wall time and per
second of this process's CPU time: on a shared machine the first also counts the time other
processes took the core, the second does not.

Each run also times two bare baselines on the same frames (``bench.baselines``): the least a
Python tracker does per frame, and the journal's disk work alone. The same code measured 2.5
times faster on one day than the next on a shared VM; its share of the bare work's speed, timed
in turn with it, moves much less with the machine than either figure alone.
"""

from __future__ import annotations

import itertools
import json
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.baselines import bare_journal_s, bare_tracker_cpu_s
from bench.streams import BLIND, Stream, bench_chips, bench_deck, with_idle_traffic
from tablesvc.core.cards import DeckRegistry
from tablesvc.core.events import Alert
from tablesvc.core.inputs import FrameIn, format_ts
from tablesvc.core.table import Player, TableCore, TableSettings
from tablesvc.pipeline.journal import Journal
from tablesvc.pipeline.outbox import Outbox
from tablesvc.pipeline.service import messages_of

BATCH = 2000
CHUNK = 5000
"""Frames the core and the bare work take in turn: a few tenths of a second each, so that both
see the same machine (on a shared VM its speed moves within seconds)."""


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


def run(frames: int, runs: int = 3) -> None:
    for idle in (False, True):
        what = ("with a table's idle traffic (8 heartbeats and chip refreshes per frame of play)"
                if idle else "every frame a frame of play (worst case)")
        print(f"-- {what}")
        inputs = _inputs(frames, idle)
        results = [_run(inputs, i + 1, runs) for i in range(runs)]
        if runs > 1:
            _summary(results)


@dataclass(frozen=True)
class Pass:
    """One run's figures, in frames per second (CPU-second where it says so)."""

    bare_cpu: float  # the bare per-frame work, per CPU-second of this process
    core_cpu: float  # parse -> core -> events, per CPU-second of this process
    share: float  # core_cpu / bare_cpu, the median over chunks timed in turn
    bare_journal: float  # the journal's appends and syncs alone, per second
    pipeline: float  # journal + core + outbox, until the outbox has written everything
    pipeline_cpu: float  # the same, per CPU-second of the pipeline thread


def _run(inputs: list[FrameIn], i: int, runs: int) -> Pass:
    frames = len(inputs)
    deck = bench_deck()
    core = _core(deck)
    core_s = core_cpu = bare_s = 0.0
    shares = []  # per chunk: the core's speed as a share of the bare work's, same seconds
    events = 0
    alerts = 0
    for c in range(0, frames, CHUNK):
        chunk = inputs[c:c + CHUNK]
        t, cpu = time.perf_counter(), time.process_time()
        for inp in chunk:
            produced = core.apply(inp).events
            events += len(produced)
            alerts += sum(isinstance(e, Alert) and e.severity != "info" for e in produced)
        wall, spent = time.perf_counter() - t, time.process_time() - cpu
        bare = bare_tracker_cpu_s([inp.frame for inp in chunk])
        core_s, core_cpu, bare_s = core_s + wall, core_cpu + spent, bare_s + bare
        shares.append(bare / spent)
    bare_cpu = frames / bare_s
    assert alerts == 0, f"the benchmark's hands raised {alerts} alerts: they must be clean"
    print(f"run {i} of {runs}: bare per-frame work (CRC, split, one json.dumps; no poker): "
          f"{bare_cpu:,.0f} frames per CPU-second")
    print(f"throughput core only (parse -> core -> events): {frames / core_s:,.0f} frames/s, "
          f"{events / core_s:,.0f} events/s ({events} events from {frames} frames); "
          f"{frames / core_cpu:,.0f} frames per CPU-second ({statistics.median(shares):.3f} "
          f"of the bare work's, median of {len(shares)} chunks timed in turn)")

    with tempfile.TemporaryDirectory() as tmp:
        bare_journal = frames / bare_journal_s(Path(tmp), _journal_lines(inputs), BATCH)
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
    print(f"bare journal (the same lines appended, one fdatasync per batch of {BATCH}, no "
          f"service code): {bare_journal:,.0f} frames/s")
    print(f"throughput full pipeline (journal + parse + core + events + outbox, batches of "
          f"{BATCH}, fdatasync per batch, outbox on its writer thread): "
          f"{frames / full_s:,.0f} frames/s until the outbox has written everything; "
          f"{frames / cpu_s:,.0f} frames per CPU-second of the pipeline thread")
    return Pass(bare_cpu, frames / core_cpu, statistics.median(shares), bare_journal,
                frames / full_s, frames / cpu_s)


def _journal_lines(inputs: list[FrameIn]) -> list[bytes]:
    return [json.dumps({"ts": inp.ts, "src": inp.src, "frame": inp.frame}).encode() + b"\n"
            for inp in inputs]


def _summary(results: list[Pass]) -> None:
    """The spread of the runs, and the core's figure as a share of the bare work's in each:
    that share moves with the code much more than with how fast the machine was that minute."""

    def span(values: list[float]) -> str:
        return (f"{min(values):,.0f}-{max(values):,.0f} "
                f"(median {statistics.median(values):,.0f})")

    shares = [r.share for r in results]
    print(f"summary of {len(results)} runs: bare work {span([r.bare_cpu for r in results])} "
          f"frames per CPU-second; core {span([r.core_cpu for r in results])} "
          f"(share of the bare work's {min(shares):.3f}-{max(shares):.3f}); bare journal "
          f"{span([r.bare_journal for r in results])} frames/s; pipeline "
          f"{span([r.pipeline for r in results])} frames/s, "
          f"{span([r.pipeline_cpu for r in results])} per CPU-second of its thread")
