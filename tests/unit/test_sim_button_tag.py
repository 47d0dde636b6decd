"""A tagged dealer button (registry ``[button] uid``): its card-zone reading is the button's
seat, so the table itself says where the hand is. The dealer moves it after the cards are
collected and before the next shuffle; a test can have him deal from the wrong seat."""

from __future__ import annotations

import pytest

from drivers.tsp import Frame
from simulators.virtual import recorded_table
from tests.sim_wire import frames_of

TAG = "B0770B0770B07700"
SEATS = {2: 5000, 5: 5000, 7: 5000}


def puck(frames: list[Frame]) -> list[tuple[str, str]]:
    """The button tag's readings, in order: (ARR or DEP, zone)."""
    return [(f.type, f.fields[0]) for f in frames
            if f.type in ("ARR", "DEP") and f.fields[1] == TAG]


def test_the_button_tag_lies_in_the_first_buttons_seat_zone_when_the_antennas_boot() -> None:
    table, recorded = recorded_table(SEATS, seed=4, button_uid=TAG, button=5)
    frames = frames_of(recorded)
    cards = [f for f in frames if f.dev == "cards"]
    assert [(f.type, f.seq) for f in cards] == [("HELLO", 0), ("ARR", 1)]
    assert cards[1].fields == ("S5", TAG)
    assert table.felt.button_zone == "S5"


def test_the_button_tag_moves_to_the_next_seat_after_the_collection_and_before_newhand() -> None:
    table, recorded = recorded_table(SEATS, seed=4, button_uid=TAG)
    records = [table.play_hand() for _ in range(4)]
    frames = frames_of(recorded)
    assert [r.button for r in records] == [2, 5, 7, 2]
    assert puck(frames) == [("ARR", "S2"), ("DEP", "S2"), ("ARR", "S5"), ("DEP", "S5"),
                            ("ARR", "S7"), ("DEP", "S7"), ("ARR", "S2"), ("DEP", "S2"),
                            ("ARR", "S5")]
    newhands = [i for i, f in enumerate(frames) if f.type == "BTN" and f.fields[0] == "NEWHAND"]
    moves = [i for i, f in enumerate(frames) if f.type == "DEP" and f.fields[1] == TAG]
    for n, (start, move) in enumerate(zip(newhands, moves, strict=True)):
        # every card of that hand is in the muck before the button moves ...
        between = frames[start:move]
        out = {f.fields[1] for f in between if f.type == "ARR"}
        mucked = {f.fields[1] for f in between if f.type == "ARR" and f.fields[0] == "MUCK"}
        assert out == mucked, n
        # ... and it moves before the next NEWHAND
        assert n + 1 == len(newhands) or move < newhands[n + 1]
        assert frames[move + 1].type == "ARR" and frames[move + 1].fields[1] == TAG


def test_the_button_tag_skips_a_seat_that_left_the_table() -> None:
    # seat 5, next to the button, is all-in with his small blind and loses it
    table, recorded = recorded_table({2: 5000, 5: 50, 7: 5000, 9: 5000}, seed=0,
                                     button_uid=TAG, button=2, fold_probability=0.0)
    record = table.play_hand()
    assert record.left == (5,)
    assert puck(frames_of(recorded)) == [("ARR", "S2"), ("DEP", "S2"), ("ARR", "S7")]
    assert table.button == 7


def test_a_misplaced_button_is_moved_and_dealt_from_where_the_test_put_it() -> None:
    table, recorded = recorded_table(SEATS, seed=4, button_uid=TAG)
    table.play_hand()  # button 2; the rotation's next is 5
    mark = len(recorded)
    table.set_button(7)
    assert puck(frames_of(recorded[mark:])) == [("DEP", "S5"), ("ARR", "S7")]
    record = table.play_hand()
    assert record.button == 7
    assert record.deal[0][1] == "S2"  # the first card left of the button where it lies


def test_five_card_draws_dealer_button_moves_too() -> None:
    table, recorded = recorded_table(SEATS, seed=4, button_uid=TAG, variant="draw5")
    records = [table.play_hand() for _ in range(2)]
    assert [r.button for r in records] == [2, 5]
    assert puck(frames_of(recorded)) == [("ARR", "S2"), ("DEP", "S2"), ("ARR", "S5"),
                                         ("DEP", "S5"), ("ARR", "S7")]


def test_a_card_antenna_that_resets_reads_the_button_again() -> None:
    table, recorded = recorded_table(SEATS, seed=4, button_uid=TAG)
    table.play_hand()
    mark = len(recorded)
    table.felt.devices["cards"].hello()
    assert [(f.type, f.seq, f.fields) for f in frames_of(recorded[mark:])] == [
        ("HELLO", 0, ("VS-CARDS", "1.0", "TSP1")), ("ARR", 1, ("S5", TAG))]


@pytest.mark.parametrize(("uid", "problem"), [
    ("b0770b0770b07700", "16 uppercase hex digits"),
    ("B0770", "16 uppercase hex digits"),
])
def test_a_button_tag_that_is_no_tag_is_refused(uid: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        recorded_table(SEATS, seed=4, button_uid=uid)


def test_a_button_tag_that_is_a_card_or_a_chip_is_refused() -> None:
    table, _ = recorded_table(SEATS, seed=4)
    for uid in (next(iter(table.deck)), next(iter(table.chip_values))):
        with pytest.raises(ValueError, match="the tag of a card or a chip"):
            recorded_table(SEATS, seed=4, button_uid=uid)
