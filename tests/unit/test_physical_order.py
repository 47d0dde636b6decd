"""Frames of different devices, read out of their physical order, are taken in that order.

Each device is its own serial port with its own delay, so a chip inventory can be read a few
milliseconds before the card that physically landed first. These tests deal random clean
sessions of both games on the virtual table, time every frame as a brisk dealer would make it
(one frame every 10 ms: several times a real table's pace), give every device its own port
delay (1-16 ms, as USB adapters add) and jitter, and read the frames in the order they would
arrive. Clean play must still raise no warning or critical alert and end every hand as the
table did; a real fault must still be caught, a tolerance later.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from simulators.table import HandRecord
from simulators.virtual import recorded_table
from tablesvc.core import events as ev
from tablesvc.core.cards import DeckRegistry
from tablesvc.core.inputs import Command, FrameIn, Tick, format_ts
from tablesvc.core.table import Player, TableCore, TableSettings
from tests.helpers import DEVICES, T0, ChipBox, Script, make_core, make_deck

STEP_MS = 10  # one frame every 10 ms: a dealer far faster than any real one
JITTER_MS = 8


def session(seed: int, variant: str) -> tuple[list[HandRecord], list[tuple[str, bytes]], dict[
        int, int], dict[str, str], dict[str, int], int]:
    rng = random.Random(seed)
    size = rng.randint(3, 8) if variant == "draw5" else rng.randint(2, 10)
    seats = {s: rng.choice([800, 2000, 5000, 10000, 20000])
             for s in rng.sample(range(1, 11), size)}
    ante = 25 if variant == "draw5" else rng.choice([0, 0, 25])
    table, frames = recorded_table(
        seats, seed=seed, variant=variant, ante=ante, aggression=rng.uniform(0.0, 0.5),
        all_in_share=rng.uniform(0.1, 0.5), fold_probability=rng.uniform(0.0, 0.4))
    least = 3 if variant == "draw5" else 2
    records = []
    while len(records) < 20 and len(table.seated()) >= least:
        records.append(table.play_hand())
    return records, frames, seats, table.deck, table.chip_values, ante


def arrival(frames: list[tuple[str, bytes]], rng: random.Random) -> list[tuple[int, str, str]]:
    """(received ms, device, line): the true order timed, each device's delay and jitter
    added, each device's own frames still in order, everything sorted by arrival."""
    delay = {d: rng.uniform(1, 16) for d in DEVICES}
    last: dict[str, float] = {}
    out = []
    for i, (dev, raw) in enumerate(frames):
        t = max(T0 + (i + 1) * STEP_MS + delay[dev] + rng.uniform(0, JITTER_MS),
                last.get(dev, 0.0))
        last[dev] = t
        out.append((t, dev, raw.decode().rstrip("\r\n")))
    out.sort(key=lambda x: x[0])
    return [(int(t), dev, line) for t, dev, line in out]


def read(arrived: list[tuple[int, str, str]], seats: dict[int, int], deck: dict[str, str],
         chips: dict[str, int], variant: str, ante: int) -> list[ev.Event]:
    s = TableSettings(venue="t", table="t", devices=dict(DEVICES), variant=variant, ante=ante)
    core = TableCore(s, DeckRegistry({"SIM": dict(deck)}), dict(chips),
                     [Player(seat, f"P{seat}", stack) for seat, stack in seats.items()])
    events = list(core.apply(Command(format_ts(T0), T0, "button",
                                     {"seat": min(seats)})).events)
    for ms, dev, line in arrived:
        deadline = core.next_deadline()
        if deadline is not None and deadline <= ms:  # the service ticks when a deadline is due
            events += core.apply(Tick(format_ts(deadline), deadline)).events
        events += core.apply(FrameIn(format_ts(ms), ms, dev, line)).events
    return events


@pytest.mark.parametrize("variant", ["holdem", "draw5"])
def test_clean_sessions_read_out_of_order_raise_no_alert_and_end_as_dealt(variant: str) -> None:
    raised: Counter[tuple[str, str]] = Counter()
    swapped = 0
    for seed in range(12):
        records, frames, seats, deck, chips, ante = session(seed, variant)
        arrived = arrival(frames, random.Random(seed))
        lines = [raw.decode().rstrip("\r\n") for _, raw in frames]
        swapped += sum(1 for a, b in zip(lines, [line for _, _, line in arrived], strict=True)
                       if a != b)
        events = read(arrived, seats, deck, chips, variant, ante)
        raised.update((e.name, e.message) for e in events
                      if isinstance(e, ev.Alert) and e.severity != "info")
        ended = [e for e in events if isinstance(e, ev.HandEnded)]
        assert [(e.reason, {i.seat: i.stack for i in e.stacks}) for e in ended] == [
            (r.outcome, {seat: r.stacks_after.get(seat, 0) for seat in r.seats})
            for r in records], seed
    assert not raised, raised.most_common(5)
    assert swapped > 500  # the frames really were read out of order, many times


def test_a_bet_read_before_the_check_that_came_first_is_taken_after_it() -> None:
    """Seat 3 checks at the console, seat 1 then bets: the chip reader's port is quicker."""
    core = flop_ready(order_tolerance_ms=50)
    t = core.script
    t.ms += 500
    bet = t.frame("chips", "CHIPS", "B1", core.box.uids(200))
    check = t.frame("console", "BTN", "CHECK", "3")
    bet = FrameIn(check.ts, check.ms - 4, bet.src, bet.frame)  # read 4 ms before the check
    events = core.feed(bet, check)
    assert [(e.seat, e.action) for e in events if isinstance(e, ev.Action)] == [(3, "check")]
    events = core.feed(core.script.tick(400))  # the bet settles
    assert [(e.seat, e.action) for e in events if isinstance(e, ev.Action)] == [(1, "bet")]
    assert core.problems() == []


def test_a_bet_out_of_turn_is_still_caught_a_tolerance_later() -> None:
    core = flop_ready(order_tolerance_ms=50)
    t = core.script
    t.ms += 500
    events = core.feed(t.frame("chips", "CHIPS", "B1", core.box.uids(200)))
    assert core.problems() == [] and not [e for e in events if isinstance(e, ev.Action)]
    core.feed(t.tick(60))  # nobody else acted within the tolerance: it is taken as it came
    core.feed(t.tick(400))  # and once final it is what it was, a bet out of turn
    assert core.problems() == [("action_out_of_turn", "warning")]


class Table:
    """A scripted hold'em table at the flop, seats 1-3, button 2 (seat 3 acts first)."""

    def __init__(self, order_tolerance_ms: int) -> None:
        self.deck = make_deck()
        self.box = ChipBox()
        self.core = make_core({1: 10000, 2: 10000, 3: 10000}, self.deck,
                              order_tolerance_ms=order_tolerance_ms, bet_settle_ms=300)
        self.core.chip_values = self.box.values
        self.script = Script(step_ms=150)
        self.events: list[ev.Event] = []

    def feed(self, *inputs: object) -> list[ev.Event]:
        new: list[ev.Event] = []
        for inp in inputs:
            new += self.core.apply(inp).events  # type: ignore[arg-type]
        self.events += new
        return new

    def problems(self) -> list[tuple[str, str]]:
        return [(e.name, e.severity) for e in self.events
                if isinstance(e, ev.Alert) and e.severity != "info"]


def flop_ready(order_tolerance_ms: int) -> Table:
    t = Table(order_tolerance_ms)
    s, uids = t.script, list(t.deck)
    t.feed(s.cmd("button", seat=2))
    t.feed(s.frame("console", "BTN", "NEWHAND"),
           s.frame("chips", "CHIPS", "B3", t.box.uids(50)),
           s.frame("chips", "CHIPS", "B1", t.box.uids(100)))
    k = 0
    for _ in range(2):
        for seat in (3, 1, 2):
            t.feed(*s.deal(uids[k], f"S{seat}"))
            k += 1
    t.feed(s.frame("chips", "CHIPS", "B2", t.box.uids(100)),
           s.frame("chips", "CHIPS", "B3", t.box.uids(100)),
           s.frame("console", "BTN", "CHECK", "1"),
           s.frame("chips", "CHIPS", "B1", ""), s.frame("chips", "CHIPS", "B2", ""),
           s.frame("chips", "CHIPS", "B3", ""), s.frame("chips", "CHIPS", "POT",
                                                         t.box.uids(300)))
    for zone in ("BURN", "BOARD", "BOARD", "BOARD"):
        t.feed(*s.deal(uids[k], zone))
        k += 1
    assert t.problems() == [], t.problems()
    return t
