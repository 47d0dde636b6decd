"""Chips that come to or leave a stack outside the rules, for the tests of a service that must
notice them: taken off the table (TABLE-06), bought from outside it (TABLE-08; mid-hand
BET-23), passed from one player to another (TABLE-08); between hands and mid-hand. The table
reports them in the stack zones and its records say what really happened to the stacks."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from simulators.device import VirtualDevice
from simulators.endpoints import Recorder
from simulators.records import StackChange
from simulators.table import HandRecord, VirtualTable
from simulators.virtual import recorded_table
from tests.sim_wire import ZoneView, frames_of, stacks_at_newhands

SEATS = {1: 5000, 2: 5000, 3: 5000, 4: 5000}


def until(pred: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + 30  # only a guard against hanging
    while not pred():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.001)


@contextmanager
def dealing(table: VirtualTable, steps: int) -> Iterator[list[HandRecord]]:
    """Deal one hand in a thread, the dealer standing still after ``steps`` physical actions
    (2: right after the NEWHAND); the hand finishes when the block ends."""
    records: list[HandRecord] = []
    table.pause()
    dealer = threading.Thread(target=lambda: records.append(table.play_hand()))
    dealer.start()
    try:
        until(lambda: table.waiting, "the dealer to stand still before the shuffle")
        table.resume(steps=steps)
        until(lambda: table.waiting, "the dealer to stand still mid-hand")
        yield records
    finally:
        table.resume()
        dealer.join(30)
    assert not dealer.is_alive() and len(records) == 1


def test_chips_taken_between_hands_leave_the_stack_zone_and_the_next_hand_starts_without_them(
) -> None:
    table, recorded = recorded_table(SEATS, seed=3, stack_zones=True)
    first = table.play_hand()
    mark = len(recorded)
    change = table.stack_take(3, 500)
    told = frames_of(recorded[mark:])
    assert [(f.type, f.fields[0]) for f in told] == [("CHIPS", "P3")]
    view = ZoneView.of(table.chip_values)
    for frame in frames_of(recorded):
        view.read(frame)
    assert view.value("P3") == first.stacks_after[3] - 500
    assert change == StackChange("take", 3, 500, hand=1, mid_hand=False)
    second = table.play_hand()
    assert second.stacks_before[3] == first.stacks_after[3] - 500
    assert second.stack_changes == ()
    assert table.stack_changes == [change]


def test_chips_bought_between_hands_come_into_the_stack_zone_from_outside_the_table() -> None:
    table, recorded = recorded_table(SEATS, seed=3, stack_zones=True)
    first = table.play_hand()
    seen = {u for f in frames_of(recorded) if f.type == "CHIPS" for u in f.fields[1].split()}
    mark = len(recorded)
    table.stack_add(2, 1500)
    (frame,) = frames_of(recorded[mark:])
    assert frame.fields[0] == "P2"
    new = set(frame.fields[1].split()) - seen
    assert sum(table.chip_values[u] for u in new) >= 1500  # chips no zone held before
    assert new <= set(table.chip_values)  # and all of the registry
    assert table.play_hand().stacks_before[2] == first.stacks_after[2] + 1500


def test_a_transfer_leaves_the_givers_stack_zone_before_it_reaches_the_takers() -> None:
    table, recorded = recorded_table(SEATS, seed=3, stack_zones=True)
    table.play_hand()
    before = table.stacks
    mark = len(recorded)
    change = table.stack_transfer(4, 1, 1000)
    view = ZoneView.of(table.chip_values)
    for frame in frames_of(recorded[:mark]):
        view.read(frame)
    told = []
    for frame in frames_of(recorded[mark:]):
        zone, was = frame.fields[0], view.value(frame.fields[0])
        view.read(frame)
        told.append((zone, view.value(zone) - was))
    assert told == [("P4", -1000), ("P1", 1000)]
    assert table.stacks == {**before, 4: before[4] - 1000, 1: before[1] + 1000}
    assert change.deltas == {4: -1000, 1: 1000} and not change.mid_hand


def test_chips_taken_mid_hand_are_in_the_hand_record_and_its_stacks() -> None:
    table, recorded = recorded_table(SEATS, seed=4, stack_zones=True, button=4)
    with dealing(table, steps=2) as records:  # right after the NEWHAND
        mark = len(recorded)
        change = table.stack_take(1, 200)
        assert [f.fields[0] for f in frames_of(recorded[mark:])] == ["P1"]
    (record,) = records
    assert change == StackChange("take", 1, 200, hand=1, mid_hand=True)
    assert record.stack_changes == (change,)
    for seat in SEATS:
        paid = sum(a.amount for a in record.actions if a.seat == seat)
        expected = (record.stacks_before[seat] - paid + record.returned.get(seat, 0)
                    + record.winners.get(seat, 0) + change.deltas.get(seat, 0))
        assert record.stacks_after[seat] == expected
    view = ZoneView.of(table.chip_values)
    for frame in frames_of(recorded):
        view.read(frame)
    assert view.stacks() == {s: v for s, v in record.stacks_after.items() if v}


def test_chips_bought_mid_hand_do_not_play_in_that_hand() -> None:
    # everybody goes all-in: the buyer's all-in is what he had when the hand began (BET-23)
    table, recorded = recorded_table(SEATS, seed=6, stack_zones=True, button=4,
                                     aggression=1.0, all_in_share=1.0, fold_probability=0.0)
    with dealing(table, steps=2):
        table.stack_add(2, 2000)
    record = table.last_hand
    assert record is not None
    committed = sum(a.amount for a in record.actions if a.seat == 2)
    assert committed == record.stacks_before[2] == 5000
    assert any(a.all_in for a in record.actions if a.seat == 2)
    assert record.stacks_after[2] >= 2000  # the purchase is still in front of him
    assert record.stack_changes == (StackChange("add", 2, 2000, hand=1, mid_hand=True),)
    frames = frames_of(recorded)
    assert stacks_at_newhands(frames, table.chip_values) == [record.stacks_before]
    view = ZoneView.of(table.chip_values)
    for frame in frames:
        view.read(frame)
    assert view.value("P2") == record.stacks_after[2]


def test_a_transfer_mid_hand_is_reported_and_booked_to_both_seats() -> None:
    table, recorded = recorded_table(SEATS, seed=8, stack_zones=True, button=4,
                                     fold_probability=1.0)
    with dealing(table, steps=4):  # NEWHAND, both blinds: the first card is next
        mark = len(recorded)
        table.stack_transfer(3, 4, 700)
        assert [f.fields[0] for f in frames_of(recorded[mark:])] == ["P3", "P4"]
    record = table.last_hand
    assert record is not None
    assert [c.deltas for c in record.stack_changes] == [{3: -700, 4: 700}]
    assert stacks_at_newhands(frames_of(recorded), table.chip_values) == [record.stacks_before]
    view = ZoneView.of(table.chip_values)
    for frame in frames_of(recorded):
        view.read(frame)
    assert view.stacks() == record.stacks_after


def test_the_chips_of_a_bet_the_dealer_is_moving_cannot_be_taken_from_under_his_hand() -> None:
    table, _ = recorded_table({1: 1000, 2: 1000}, seed=3, stack_zones=True, button=1)
    with dealing(table, steps=3):  # NEWHAND, the small blind: the big blind is on its way
        # seat 2 (the big blind, 100) holds 1000: 900 may go, not more
        with pytest.raises(ValueError, match="cannot take 950"):
            table.stack_take(2, 950)
        table.stack_take(2, 900)
    record = table.last_hand
    assert record is not None and record.stacks_after[2] + record.stacks_after[1] == 1100


def test_a_stack_cannot_be_emptied_between_hands_nor_given_odd_chips() -> None:
    table, recorded = recorded_table(SEATS, seed=3, stack_zones=True)
    mark = len(recorded)
    with pytest.raises(ValueError, match="at least one chip"):
        table.stack_take(1, 5000)
    with pytest.raises(ValueError, match="multiple of the smallest chip"):
        table.stack_add(1, 30)
    with pytest.raises(ValueError, match="no stack"):
        table.stack_transfer(1, 7, 100)
    assert recorded[mark:] == [] and table.stacks == SEATS and table.stack_changes == []


class _Gate:
    """An endpoint that holds the dealer's hand in the middle of a frame until opened."""

    def __init__(self, recorder: Recorder, name: str) -> None:
        self.inner = recorder.endpoint(name)
        self.open = threading.Event()
        self.blocked = threading.Event()
        self.url = self.inner.url
        self.dropped = 0
        self.connected = True

    def set_on_connect(self, callback: object) -> None:
        pass

    def take_new_peer(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        if b",DRAW," in data:
            self.blocked.set()
            self.open.wait(30)
        self.inner.write(data)

    def unplug(self) -> None: ...

    def replug(self) -> None: ...

    def close(self) -> None: ...


def test_nothing_happens_to_a_stack_while_the_dealer_is_moving() -> None:
    recorder = Recorder()
    gate = _Gate(recorder, "shoe")
    devices = {"shoe": VirtualDevice("shoe", gate, "S", hello_on_connect=False)}
    devices.update({n: VirtualDevice(n, recorder.endpoint(n), "S", hello_on_connect=False)
                    for n in ("cards", "chips", "console")})
    registries, _ = recorded_table(SEATS, seed=1)
    table = VirtualTable(devices, registries.deck, registries.chip_values, SEATS,
                         small_blind=50, big_blind=100, stack_zones=True)
    dealer = threading.Thread(target=table.play_hand)
    dealer.start()
    try:
        assert gate.blocked.wait(30)  # he is dealing the first card, not standing still
        with pytest.raises(RuntimeError, match="pause him first"):
            table.stack_take(1, 100)
    finally:
        gate.open.set()
        dealer.join(30)
    assert table.stack_changes == []
