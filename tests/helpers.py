"""Test helpers that build inputs the way the devices would send them (test code only)."""

from __future__ import annotations

import random
from typing import Any

from drivers.tsp import Frame, encode
from tablesvc.core.cards import DeckRegistry, new_deck_order
from tablesvc.core.inputs import Command, FrameIn, Input, PortChange, Tick, format_ts
from tablesvc.core.table import Player, TableCore, TableSettings

DEVICES = {"shoe": "shoe", "cards": "cards", "chips": "chips", "console": "console"}
T0 = 1_796_000_000_000


def make_deck(deck_id: str = "RED-0001", seed: int = 7) -> dict[str, str]:
    rng = random.Random(seed)
    return {f"{rng.getrandbits(64):016X}": card for card in new_deck_order()}


class Script:
    """Builds timestamped inputs with per-device seq numbers, 10 ms apart."""

    def __init__(self, start_ms: int = T0, step_ms: int = 10) -> None:
        self.ms = start_ms
        self.step = step_ms
        self.seqs: dict[str, int] = {}

    def _t(self) -> tuple[str, int]:
        self.ms += self.step
        return format_ts(self.ms), self.ms

    def frame(self, dev: str, ftype: str, *fields: str) -> FrameIn:
        seq = self.seqs.get(dev, -1) + 1
        self.seqs[dev] = seq % 65536
        raw = encode(Frame(dev, seq % 65536, ftype, tuple(fields))).decode().rstrip("\r\n")
        ts, ms = self._t()
        return FrameIn(ts, ms, dev, raw)

    def continue_after(self, inputs: list[Input]) -> None:
        """The devices' next frames follow the last of ``inputs`` without a gap in their seq:
        for a test that plays only the first part of inputs it made in advance (a gap would
        be frames lost on the line, which the core rightly treats as such)."""
        self.seqs = {}
        for inp in inputs:
            if isinstance(inp, FrameIn):
                dev, seq = inp.frame[1:].split(",", 2)[:2]
                self.seqs[dev] = int(seq)

    def raw(self, dev: str, line: str) -> FrameIn:
        ts, ms = self._t()
        return FrameIn(ts, ms, dev, line)

    def port(self, dev: str, is_open: bool) -> PortChange:
        ts, ms = self._t()
        return PortChange(ts, ms, dev, is_open, "" if is_open else "unplugged")

    def cmd(self, command: str, /, **body: Any) -> Command:
        ts, ms = self._t()
        return Command(ts, ms, command, body)

    def tick(self, after_ms: int) -> Tick:
        self.ms += after_ms
        return Tick(format_ts(self.ms), self.ms)

    def deal(self, uid: str, zone: str, face: str = "D") -> list[Input]:
        return [self.frame("shoe", "DRAW", uid, face), self.frame("cards", "ARR", zone, uid)]


def make_core(players: dict[int, int] | None = None, deck: dict[str, str] | None = None,
              chips: dict[str, int] | None = None, **settings: Any) -> TableCore:
    players = players if players is not None else {1: 10000, 2: 10000, 3: 10000}
    # scripts give the frames in their true order, 10 ms apart: nothing to put in order
    settings.setdefault("order_tolerance_ms", 0)
    s = TableSettings(venue="demo", table="t01", devices=dict(DEVICES), **settings)
    decks = DeckRegistry({"RED-0001": deck or make_deck()})
    return TableCore(s, decks, chips or {},
                     [Player(seat, f"P{seat}", st) for seat, st in players.items()])


class ChipBox:
    """Chip UIDs with values, handed out so that any amount is made of few chips."""

    DENOMS = (5000, 1000, 500, 100, 25, 5, 1)

    def __init__(self) -> None:
        self.values: dict[str, int] = {}
        self._n = 0

    def uids(self, amount: int) -> str:
        out = []
        for d in self.DENOMS:
            while amount >= d:
                self._n += 1
                uid = f"C{self._n:015X}"
                self.values[uid] = d
                out.append(uid)
                amount -= d
        return " ".join(out)


def track(frames: list[tuple[str, bytes]], *, stacks: dict[int, int], button: int,
          deck: dict[str, str], chips: dict[str, int], names: dict[int, str] | None = None,
          **settings: Any) -> list[Any]:
    """Feed recorded device frames, in their true order, through a fresh core; its events."""
    settings.setdefault("order_tolerance_ms", 0)  # in their true order already
    s = TableSettings(venue="diff", table="t", devices=dict(DEVICES), **settings)
    names = names or {}
    core = TableCore(s, DeckRegistry({"SIM": dict(deck)}), dict(chips),
                     [Player(seat, names.get(seat, f"P{seat}"), st)
                      for seat, st in stacks.items()])
    script = Script()
    events = list(core.apply(script.cmd("button", seat=button)).events)
    for dev, raw in frames:
        events += core.apply(script.raw(dev, raw.decode().rstrip("\r\n"))).events
    return events
