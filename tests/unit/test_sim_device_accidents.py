"""Device accidents a service must notice from the wire alone: a device that resets on an open
port (HELLO, seq from 0) and a line that loses frames (a gap in the seq numbers)."""

from __future__ import annotations

import pytest

from simulators.virtual import recorded_table
from tests.sim_wire import frames_of

SEATS = {1: 5000, 2: 5000, 3: 5000}


def test_a_device_that_resets_says_hello_with_seq_zero_and_goes_on_from_there() -> None:
    table, recorded = recorded_table(SEATS, seed=3)
    table.play_hand()
    chips = table.felt.devices["chips"]
    before = chips.last_seq
    assert before is not None and before > 5
    mark = len(recorded)
    chips.hello()
    table.play_hand()
    after = [f for f in frames_of(recorded[mark:]) if f.dev == "chips"]
    assert after[0].type == "HELLO" and after[0].seq == 0
    assert [f.seq for f in after] == list(range(len(after)))


def test_a_reset_chip_reader_tells_the_stacks_again_after_its_hello() -> None:
    table, recorded = recorded_table(SEATS, seed=3, stack_zones=True)
    table.play_hand()
    mark = len(recorded)
    table.felt.devices["chips"].hello()
    told = frames_of(recorded[mark:])
    assert [f.type for f in told] == ["HELLO"] + ["CHIPS"] * 10
    assert [f.fields[0] for f in told[1:]] == [f"P{s}" for s in range(1, 11)]


def test_frames_lost_on_the_line_leave_a_gap_in_the_seq_numbers() -> None:
    table, recorded = recorded_table(SEATS, seed=3)
    cards = table.felt.devices["cards"]
    cards.lose_next(3)
    table.play_hand()
    seqs = [f.seq for f in frames_of(recorded) if f.dev == "cards"]
    assert seqs[:2] == [0, 4]  # HELLO, then frames 1..3 lost on the line
    assert seqs[1:] == list(range(4, 4 + len(seqs) - 1))
    assert cards.lost == 3
    others = [f.seq for f in frames_of(recorded) if f.dev == "shoe"]
    assert others == list(range(len(others)))  # only that device's line lost frames


def test_a_line_cannot_lose_a_negative_number_of_frames() -> None:
    table, _ = recorded_table(SEATS, seed=3)
    with pytest.raises(ValueError, match="negative"):
        table.felt.devices["cards"].lose_next(-1)
