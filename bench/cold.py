"""The core's time for one frame when frames come one at a time, against back to back.

A table sends about twenty frames a second, so between two of them the service's threads
sleep and the processor idles; the next frame is then decoded and applied by code and data
that have left the processor's caches (on a virtual machine the idle processor may also have
been given to another tenant). This bench applies frames of the throughput bench's stream
one at a time after a pause of 0, 1, 10 and 50 ms and times each, then the bare per-frame
work of ``bench.baselines`` on the same frames after the same pauses: the ratio against back
to back says what idling costs, and the bare work's ratio says how much of that is the
machine's rather than the service's code. Every thread on an event's way pays it at a
table's real rate.
"""

from __future__ import annotations

import statistics
import time

from bench.baselines import bare_tracker_cpu_s
from bench.streams import bench_deck
from bench.throughput import _core, _inputs

PAUSES_MS = (0, 1, 10, 50)
WARM = 2000
"""Frames applied back to back first, so that hands are under way and every path was taken."""


def _q(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def run(frames: int = 200) -> None:
    inputs = _inputs(WARM + frames * len(PAUSES_MS))
    core = _core(bench_deck())
    for inp in inputs[:WARM]:
        core.apply(inp)
    print(f"-- one frame at a time: the core (parse -> core -> events) and the bare per-frame "
          f"work, each timed after a pause, {frames} frames per pause")
    first: tuple[float, float] | None = None
    for n, pause_ms in enumerate(PAUSES_MS):
        chunk = inputs[WARM + n * frames:WARM + (n + 1) * frames]
        core_us: list[float] = []
        for inp in chunk:
            if pause_ms:
                time.sleep(pause_ms / 1000)
            t = time.perf_counter()
            core.apply(inp)
            core_us.append((time.perf_counter() - t) * 1e6)
        bare_us: list[float] = []
        for inp in chunk:
            if pause_ms:
                time.sleep(pause_ms / 1000)
            t = time.perf_counter()
            bare_tracker_cpu_s([inp.frame])  # (its own CPU clock read is in the figure)
            bare_us.append((time.perf_counter() - t) * 1e6)
        core_p50, bare_p50 = statistics.median(core_us), statistics.median(bare_us)
        if first is None:
            first = (core_p50, bare_p50)
        print(f"after {pause_ms:>2} ms idle: core p50 {core_p50:,.0f} us, p99 "
              f"{_q(core_us, 0.99):,.0f} us ({core_p50 / first[0]:.1f}x back to back); bare "
              f"work p50 {bare_p50:,.1f} us, p99 {_q(bare_us, 0.99):,.1f} us "
              f"({bare_p50 / first[1]:.1f}x)")
