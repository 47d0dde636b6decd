"""Five-card draw through the core: frames per second and time per game.

Real draw games dealt by the virtual table (eight-handed, so the stub runs out and is
reshuffled), recorded once, then fed through a fresh core and timed. The core alone: the
durable pipeline's cost per frame is the same for both games (see ``throughput``).
"""

from __future__ import annotations

import time

from simulators.virtual import recorded_table
from tablesvc.core.cards import DeckRegistry
from tablesvc.core.inputs import FrameIn, format_ts
from tablesvc.core.table import Player, TableCore, TableSettings

DEVICES = {"shoe": "shoe", "cards": "cards", "chips": "chips", "console": "console"}


def _session(seed: int, games: int) -> tuple[TableCore, list[FrameIn], int]:
    seats = {s: 10_000 for s in range(1, 9)}
    table, frames = recorded_table(seats, seed=seed, variant="draw5", ante=25,
                                   aggression=0.3, fold_probability=0.15, button=1)
    records: list[object] = []
    table.run(hands=games, on_hand=records.append)
    t0 = 1_796_000_000_000
    inputs = [FrameIn(format_ts(t0 + 10 * i), t0 + 10 * i, dev, raw.decode().rstrip("\r\n"))
              for i, (dev, raw) in enumerate(frames)]
    core = TableCore(TableSettings(venue="bench", table="t", devices=dict(DEVICES),
                                   variant="draw5", ante=25),
                     DeckRegistry({"SIM": table.deck}), table.chip_values,
                     [Player(s, f"P{s}", v) for s, v in seats.items()])
    return core, inputs, len(records)


def run(games: int = 300) -> None:
    sessions = []
    dealt = 0
    seed = 9
    while dealt < games:  # a fresh table when players have busted out
        core, inputs, n = _session(seed, min(30, games - dealt))
        sessions.append((core, inputs))
        dealt += n
        seed += 1
    frames = events = 0
    dt = 0.0
    for core, inputs in sessions:
        start = time.perf_counter()
        for inp in inputs:
            events += len(core.apply(inp).events)
        dt += time.perf_counter() - start
        frames += len(inputs)
    print(f"draw5 core: {dealt} games (eight players at the start), {frames:,} frames, "
          f"{events:,} events: {frames / dt:,.0f} frames/s, "
          f"{dt / dealt * 1e3:.2f} ms per game")
