"""Synthetic but valid device traffic for the benchmarks: clean hold'em hands as frames."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from drivers.tsp import Frame, encode
from tablesvc.core.cards import new_deck_order


def bench_deck(seed: int = 1) -> dict[str, str]:
    rng = random.Random(seed)
    return {f"{rng.getrandbits(64):016X}": card for card in new_deck_order()}


@dataclass
class Stream:
    """Frames of consecutive clean hands at a table with ``players`` seats 1..players."""

    deck: dict[str, str]
    players: int = 10
    seed: int = 2
    seqs: dict[str, int] = field(default_factory=dict)

    def line(self, dev: str, ftype: str, *fields: str) -> tuple[str, bytes]:
        seq = (self.seqs.get(dev, -1) + 1) % 65536
        self.seqs[dev] = seq
        return dev, encode(Frame(dev, seq, ftype, fields))

    def hands(self) -> Iterator[tuple[str, bytes, tuple[int, str] | None]]:
        """(device, bytes, key) where key = (hand, "index:n") for frames that end in an event."""
        rng = random.Random(self.seed)
        uids = list(self.deck)
        seats = list(range(1, self.players + 1))
        button = seats[0]
        hand = 0
        while True:
            hand += 1
            rng.shuffle(uids)
            yield (*self.line("console", "BTN", "NEWHAND"), None)
            later = [s for s in seats if s > button]
            order = later + [s for s in seats if s <= button]
            dests = [f"S{s}" for s in order] * 2
            for n in (3, 1, 1):
                dests += ["BURN"] + ["BOARD"] * n
            for i, (uid, dest) in enumerate(zip(uids, dests, strict=False), 1):
                yield (*self.line("shoe", "DRAW", uid, "D"), None)
                key = (hand, f"index:{i}") if dest != "BOARD" else None
                yield (*self.line("cards", "ARR", dest, uid), key)
            yield (*self.line("shoe", "HB", str(hand)), None)
            button = order[0]
