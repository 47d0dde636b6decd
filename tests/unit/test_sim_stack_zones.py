"""Stack zones on the virtual table: where a table has them (DESIGN §3, ``P1``..``P10``) every
chip movement goes through the stacks as it would on a real table, so a service can read
every stack from the table itself and find its place from the table's own evidence."""

from __future__ import annotations

import random

import pytest

from drivers.tsp import Frame
from simulators.dealer import Habits
from simulators.felt import MAX_ZONE_CHIPS
from simulators.table import HandRecord
from simulators.virtual import recorded_table
from tests.sim_wire import ZoneView, chips_of, frames_of, is_stack_zone, stacks_at_newhands

SEATS = {1: 5000, 2: 5000, 3: 5000, 4: 5000}


def chip_frames(frames: list[Frame]) -> list[Frame]:
    return [f for f in frames if f.type == "CHIPS"]


def motions(frames: list[Frame], values: dict[str, int]) -> list[list[tuple[str, int]]]:
    """Each chip inventory as (zone, change of its value), in order, grouped by the NEWHAND
    they follow (group 0: before the first)."""
    view = ZoneView.of(values)
    out: list[list[tuple[str, int]]] = [[]]
    for frame in frames:
        if frame.type == "BTN" and frame.fields[0] == "NEWHAND":
            out.append([])
        if frame.type == "CHIPS":
            zone = frame.fields[0]
            before = view.value(zone)
            view.read(frame)
            out[-1].append((zone, view.value(zone) - before))
    return out


def test_without_stack_zones_the_chip_reader_tells_no_stack() -> None:
    table, recorded = recorded_table(SEATS, seed=3, aggression=0.5)
    table.felt.refresh_chips()
    assert table.run(hands=5) >= 2
    table.felt.refresh_chips()
    assert not [f for f in chip_frames(frames_of(recorded)) if is_stack_zone(f.fields[0])]


def test_the_chip_reader_tells_every_stack_as_soon_as_it_boots() -> None:
    table, recorded = recorded_table({2: 5000, 5: 7500, 9: 1200}, seed=3, stack_zones=True)
    frames = frames_of(recorded)
    chips = [f for f in frames if f.dev == "chips"]
    assert chips[0].type == "HELLO"
    told = {f.fields[0]: f for f in chips[1:]}
    assert [f.fields[0] for f in chips[1:]] == [f"P{s}" for s in range(1, 11)]
    view = ZoneView.of(table.chip_values)
    for frame in chips[1:]:
        view.read(frame)
    assert view.stacks() == {2: 5000, 5: 7500, 9: 1200}
    assert chips_of(told["P1"]) == []


def test_the_periodic_refresh_repeats_every_stack_zone() -> None:
    table, recorded = recorded_table(SEATS, seed=3, stack_zones=True)
    table.play_hand()
    mark = len(recorded)
    table.felt.refresh_chips()
    refreshed = {f.fields[0]: f for f in frames_of(recorded[mark:])}
    assert {f"P{s}" for s in range(1, 11)} <= set(refreshed)
    view = ZoneView.of(table.chip_values)
    for frame in refreshed.values():
        view.read(frame)
    assert view.stacks() == {s: v for s, v in table.stacks.items() if v}


def test_every_chip_a_player_bets_leaves_his_stack_zone_before_it_reaches_his_bet_zone() -> None:
    table, recorded = recorded_table({s: 20_000 for s in SEATS}, seed=11, stack_zones=True,
                                     aggression=0.5, all_in_share=0.0, fold_probability=0.2,
                                     limit="pot-limit")
    assert table.run(hands=20) == 20
    chips = [c for hand in motions(frames_of(recorded), table.chip_values) for c in hand]
    bets = 0
    for i, (zone, change) in enumerate(chips):
        if zone.startswith("B") and change > 0:
            bets += 1
            assert chips[i - 1] == (f"P{zone[1:]}", -change), (i, chips[i - 4:i + 1])
    assert bets > 50  # blinds, bets, raises and calls


def test_antes_leave_the_stacks_before_the_pot_tells_them() -> None:
    table, recorded = recorded_table(SEATS, seed=5, stack_zones=True, ante=25, button=4)
    table.play_hand()
    hand = motions(frames_of(recorded), table.chip_values)[1]
    assert hand[:5] == [("P1", -25), ("P2", -25), ("P3", -25), ("P4", -25), ("POT", 100)]
    assert hand[5:9] == [("P1", -50), ("B1", 50), ("P2", -100), ("B2", 100)]


def test_five_card_draw_antes_leave_the_stacks_before_the_pot_tells_them() -> None:
    table, recorded = recorded_table({1: 2000, 2: 2000, 3: 2000}, seed=5, stack_zones=True,
                                     variant="draw5", ante=50)
    table.play_hand()
    hand = motions(frames_of(recorded), table.chip_values)[1]
    assert hand[:4] == [("P1", -50), ("P2", -50), ("P3", -50), ("POT", 150)]


def test_an_uncalled_bet_handed_back_leaves_the_bet_zone_before_it_reaches_the_stack() -> None:
    # everyone folds to the big blind, who is handed back the part of his blind not called
    table, recorded = recorded_table({1: 5000, 2: 5000, 3: 5000}, seed=5, stack_zones=True,
                                     button=3, fold_probability=1.0,
                                     habits=Habits(hand_back=1.0))
    record = table.play_hand()
    assert record.returned == {2: 50}
    hand = motions(frames_of(recorded), table.chip_values)[1]
    back = hand.index(("B2", -50))
    assert hand[back + 1] == ("P2", 50)


def test_a_pot_pushed_leaves_the_pot_before_it_reaches_the_winners_stack() -> None:
    table, recorded = recorded_table(SEATS, seed=7, stack_zones=True, fold_probability=0.0,
                                     habits=Habits())
    record = table.play_hand()
    assert record.showdown
    hand = motions(frames_of(recorded), table.chip_values)[1]
    pushes = [i for i, (zone, change) in enumerate(hand) if zone == "POT" and change < 0]
    assert pushes
    paid: dict[int, int] = {}
    for i in pushes:
        zone, change = hand[i + 1]
        assert is_stack_zone(zone) and change == -hand[i][1]
        paid[int(zone[1:])] = paid.get(int(zone[1:]), 0) + change
    assert paid == record.winners


def test_a_walk_pushed_from_the_bet_zones_goes_to_the_big_blinds_stack() -> None:
    table, recorded = recorded_table({1: 5000, 2: 5000, 3: 5000}, seed=5, stack_zones=True,
                                     button=3, fold_probability=1.0,
                                     habits=Habits(push_from_zones=1.0))
    record = table.play_hand()
    assert record.winners == {2: 100} and record.returned == {2: 50} and not record.gathered
    hand = motions(frames_of(recorded), table.chip_values)[1]
    assert hand[-4:] == [("B1", -50), ("P2", 50), ("B2", -100), ("P2", 100)]


def test_a_player_who_busts_has_an_empty_stack_zone() -> None:
    table, recorded = recorded_table({1: 600, 2: 5000, 3: 5000}, seed=2, stack_zones=True,
                                     aggression=0.9, all_in_share=1.0, fold_probability=0.0)
    records: list[HandRecord] = []
    table.run(hands=30, on_hand=records.append)
    left = [seat for record in records for seat in record.left]
    assert left, "somebody should have busted"
    view = ZoneView.of(table.chip_values)
    for frame in frames_of(recorded):
        view.read(frame)
    for seat in left:
        assert view.zones[f"P{seat}"] == []
    assert view.stacks() == {s: v for s, v in table.stacks.items() if v}


def test_the_stack_zones_add_up_to_the_hand_records_stacks_after_every_hand() -> None:
    table, recorded = recorded_table(SEATS, seed=21, stack_zones=True, aggression=0.5,
                                     all_in_share=0.2, ante=25)
    view = ZoneView.of(table.chip_values)
    read = 0
    while len(table.seated()) >= 2 and table.hands_played < 12:
        record = table.play_hand()
        for frame in frames_of(recorded[read:]):
            view.read(frame)
        read = len(recorded)
        assert view.stacks() == {s: v for s, v in record.stacks_after.items() if v}


def test_every_stack_the_chip_reader_tells_is_made_of_registered_chips_and_fits_a_frame() -> None:
    table, recorded = recorded_table({s: 20_000 for s in range(1, 11)}, seed=4,
                                     stack_zones=True, aggression=0.4)
    table.run(hands=15)
    stacks = [f for f in chip_frames(frames_of(recorded)) if is_stack_zone(f.fields[0])]
    assert stacks
    for frame in stacks:
        assert set(chips_of(frame)) <= set(table.chip_values)
        assert len(chips_of(frame)) <= MAX_ZONE_CHIPS


@pytest.mark.parametrize("variant", ["holdem", "draw5"])
def test_at_every_hand_boundary_each_stack_zone_holds_the_stack_the_record_says(
        variant: str) -> None:
    """Many random tables and hands: all-ins, side pots, uncalled bets handed back or pushed,
    walks, antes, pots carried over; at every NEWHAND each stack zone holds the stack the
    hand starts with, after every hand the stack it ends with, and the chips on the table
    never add up to more than the players brought (no chip arrives before it left)."""
    boundaries = 0
    for seed in range(24):
        rng = random.Random(seed)
        seats = {s: rng.choice([600, 2000, 5000, 10_000])
                 for s in rng.sample(range(1, 11), rng.randint(2, 8))}
        options = rng.choice([
            {},
            {"aggression": 0.5, "all_in_share": 0.5},
            {"ante": 25, "aggression": 0.3},
            {"aggression": 0.8, "all_in_share": 0.9, "limit": "pot-limit"},
        ])
        table, recorded = recorded_table(seats, seed=seed, variant=variant, stack_zones=True,
                                         **options)
        brought = sum(seats.values())
        records: list[HandRecord] = []
        table.run(hands=30, on_hand=records.append)
        frames = frames_of(recorded)
        starts = stacks_at_newhands(frames, table.chip_values)
        assert starts == [r.stacks_before for r in records], seed
        view = ZoneView.of(table.chip_values)
        for frame in frames:
            view.read(frame)
            assert view.total() <= brought, (seed, frame)
        last = records[-1]
        assert view.stacks() == {s: v for s, v in last.stacks_after.items() if v}, seed
        assert view.total() == brought, seed  # a pot carried over is on the table too
        boundaries += len(records)
    assert boundaries > 300
