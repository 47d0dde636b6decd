"""The virtual table's hands as the service receives them: frames read back from real ptys.

Every expectation here is derived from DESIGN §3 and RULES.md §2.2 directly, not from the
table's own code: the wire must tell the story of a clean hand on its own.
"""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from drivers.tsp import SEQ_MOD, Frame
from simulators.decks import make_chipset, make_deck
from simulators.device import VirtualDevice
from simulators.endpoints import PtyEndpoint
from simulators.table import HandRecord, VirtualTable
from simulators.tap import FrameTap

pytestmark = pytest.mark.integration

WAIT = 10.0
KINDS = ("shoe", "cards", "chips", "console")
STREETS = ["BURN", "BOARD", "BOARD", "BOARD", "BURN", "BOARD", "BURN", "BOARD"]


@dataclass
class Hand:
    record: HandRecord
    frames: dict[str, list[Frame]]

    def of(self, dev: str, *types: str) -> list[Frame]:
        return [f for f in self.frames[dev] if f.type in types]

    def destinations(self) -> list[str]:
        """Deck index -> where that card was first read: RULES.md §2.2's deal sequence."""
        first_zone: dict[str, str] = {}
        for f in self.of("cards", "ARR"):
            first_zone.setdefault(f.fields[1], f.fields[0])
        return [first_zone[f.fields[0]] for f in self.of("shoe", "DRAW")]

    def checks(self) -> list[int]:
        return [int(f.fields[1]) for f in self.of("console", "BTN") if f.fields[0] == "CHECK"]


class LiveTable:
    """Four devices on ptys, each read by a tap exactly as the service would read it."""

    def __init__(self, folder: Path) -> None:
        self.endpoints = {k: PtyEndpoint(folder / "dev" / k) for k in KINDS}
        self.devices = {
            k: VirtualDevice(k, ep, f"TEST-{k.upper()}") for k, ep in self.endpoints.items()
        }
        self.taps = {k: FrameTap(ep.url) for k, ep in self.endpoints.items()}
        for tap in self.taps.values():
            tap.wait_for(lambda f: f.type == "HELLO", timeout=WAIT)
        rng = random.Random(1234)
        self.deck = make_deck("TEST-0001", rng)
        self.uid_of = {card: uid for uid, card in self.deck.items()}
        self.chips = make_chipset(rng)

    def table(self, seats: dict[int, int], **kwargs: object) -> VirtualTable:
        options: dict[str, object] = {"small_blind": 50, "big_blind": 100, "seed": 1}
        options.update(kwargs)
        return VirtualTable(self.devices, self.deck, self.chips, seats, **options)  # type: ignore[arg-type]

    def play(self, table: VirtualTable) -> Hand:
        marks = {k: len(tap) for k, tap in self.taps.items()}
        record = table.play_hand()
        frames: dict[str, list[Frame]] = {}
        for k, tap in self.taps.items():
            last = self.devices[k].last_seq
            tap.wait_for(lambda f, last=last: f.seq == last, since=marks[k], timeout=WAIT)
            frames[k] = tap.frames[marks[k] :]
        return Hand(record, frames)

    def close(self) -> None:
        for tap in self.taps.values():
            tap.close()
        for ep in self.endpoints.values():
            ep.close()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveTable]:
    rig = LiveTable(tmp_path)
    yield rig
    rig.close()


def until(condition: Callable[[], bool], what: str) -> None:
    """Wait for a state another thread brings about (guarded, never a timing assertion)."""
    pause = threading.Event()
    for _ in range(int(WAIT / 0.01)):
        if condition():
            return
        pause.wait(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def clockwise_from_button(button: int, seats: Sequence[int]) -> list[int]:
    ordered = sorted(seats)
    return [s for s in ordered if s > button] + [s for s in ordered if s <= button]


def clean_sequence(button: int, seats: Sequence[int]) -> list[str]:
    order = clockwise_from_button(button, seats)
    return [f"S{s}" for s in order] * 2 + STREETS


def value(chips: dict[str, int], inventory: str) -> int:
    return sum(chips[u] for u in inventory.split(" ") if u)


# the deal sequence ---------------------------------------------------------------------------


def test_table_deals_two_hole_cards_per_seat_starting_left_of_button(live: LiveTable) -> None:
    seats = {2: 5000, 4: 5000, 5: 5000, 7: 5000, 9: 5000}
    hand = live.play(live.table(seats, button=5, fold_probability=0))
    assert hand.destinations() == [
        "S7", "S9", "S2", "S4", "S5",
        "S7", "S9", "S2", "S4", "S5",
        *STREETS,
    ]  # fmt: skip
    assert hand.destinations() == clean_sequence(5, list(seats))
    assert [f.fields[1] for f in hand.of("shoe", "DRAW")] == ["D"] * 18
    assert hand.record.seats == (7, 9, 2, 4, 5)


def test_heads_up_big_blind_gets_the_first_card_and_the_button_posts_the_small_blind(
    live: LiveTable,
) -> None:
    hand = live.play(live.table({2: 5000, 5: 5000}, button=5, fold_probability=0))
    assert hand.destinations() == ["S2", "S5", "S2", "S5", *STREETS]
    blinds = hand.of("chips", "CHIPS")[:2]
    assert [(f.fields[0], value(live.chips, f.fields[1])) for f in blinds] == [
        ("B5", 50),
        ("B2", 100),
    ]
    # pre-flop the button completes and the big blind checks; from the flop on the big
    # blind (first seat left of the button) acts first
    assert value(live.chips, hand.of("chips", "CHIPS")[2].fields[1]) == 100
    assert hand.of("chips", "CHIPS")[2].fields[0] == "B5"
    assert hand.checks() == [2, 2, 5, 2, 5, 2, 5]


def test_newhand_then_blinds_then_preflop_calls_in_order_from_left_of_big_blind(
    live: LiveTable,
) -> None:
    hand = live.play(live.table({1: 5000, 3: 5000, 6: 5000, 8: 5000}, button=1, fold_probability=0))
    assert hand.of("console", "BTN")[0].fields == ("NEWHAND",)
    changes = [(f.fields[0], value(live.chips, f.fields[1])) for f in hand.of("chips", "CHIPS")]
    # SB seat 3, BB seat 6; first to act seat 8, then the button 1, the SB completes
    assert changes[:5] == [("B3", 50), ("B6", 100), ("B8", 100), ("B1", 100), ("B3", 100)]
    # only the big blind may check pre-flop; after that the first seat left of the button
    assert hand.checks() == [6, *([3, 6, 8, 1] * 3)]


def test_hand_ends_without_more_cards_when_only_one_player_is_left(live: LiveTable) -> None:
    seats = {1: 5000, 2: 5000, 3: 5000}
    hand = live.play(live.table(seats, button=1, fold_probability=1.0))
    # everybody facing a bet folds: seat 3 (BB) wins the blinds, no burn and no board
    assert hand.destinations() == ["S2", "S3", "S1", "S2", "S3", "S1"]
    assert hand.record.folds == (1, 2)
    assert hand.record.winners == {3: 100} and hand.record.returned == {3: 50}  # uncalled
    assert hand.record.stacks_after == {1: 5000, 2: 4950, 3: 5050}
    assert hand.checks() == []


def test_scripted_deck_order_deals_those_cards_and_the_best_hand_wins_the_pot(
    live: LiveTable,
) -> None:
    order = ["Ah", "7c", "Kd", "Ad", "7d", "Ks", "2c", "Ac", "7s", "4d", "3s", "Kc", "9s", "2h"]
    seats = {1: 5000, 2: 5000, 3: 5000}
    hand = live.play(live.table(seats, button=3, fold_probability=0, deck_order=order))
    drawn = [live.deck[f.fields[0]] for f in hand.of("shoe", "DRAW")]
    assert drawn == order
    rec = hand.record
    assert rec.hole_cards == {1: ("Ah", "Ad"), 2: ("7c", "7d"), 3: ("Kd", "Ks")}
    assert rec.board == ("Ac", "7s", "4d", "Kc", "2h") and rec.burns == ("2c", "3s", "9s")
    assert rec.showdown and rec.winners == {1: 300}  # three aces beat sevens and kings
    assert rec.stacks_after == {1: 5200, 2: 4900, 3: 4900}
    pot_frames = [f for f in hand.of("chips", "CHIPS") if f.fields[0] == "POT"]
    assert value(live.chips, pot_frames[0].fields[1]) == 300
    assert pot_frames[-1].fields[1] == ""


def test_short_stack_all_in_wins_only_the_main_pot(live: LiveTable) -> None:
    # seat 3 is the big blind with 25 behind: all-in for less. Seat 1 holds the best hand.
    order = ["Qs", "2s", "Ah", "Qd", "7d", "Ad", "5c", "Kc", "8h", "3d", "4c", "9s", "6h", "Jh"]
    seats = {1: 1000, 2: 1000, 3: 25}
    table = live.table(seats, button=1, small_blind=25, big_blind=50, fold_probability=0,
                       deck_order=order)  # fmt: skip
    hand = live.play(table)
    rec = hand.record
    assert rec.hole_cards == {2: ("Qs", "Qd"), 3: ("2s", "7d"), 1: ("Ah", "Ad")}
    # main pot 3 x 25 to seat 1 (aces); the side pot 2 x 25 also to seat 1
    assert rec.winners == {1: 125}
    assert rec.left == (3,)
    assert rec.stacks_after == {1: 1075, 2: 950, 3: 0}
    assert table.seated() == [1, 2]


def test_side_pot_goes_to_the_best_hand_that_contributed_to_it(live: LiveTable) -> None:
    order = ["Qs", "As", "2h", "Qd", "Ad", "2d", "5c", "Kc", "8h", "3d", "4c", "9s", "6h", "Jh"]
    seats = {1: 1000, 2: 1000, 3: 25}
    table = live.table(seats, button=1, small_blind=25, big_blind=50, fold_probability=0,
                       deck_order=order)  # fmt: skip
    hand = live.play(table)
    rec = hand.record
    assert rec.hole_cards == {2: ("Qs", "Qd"), 3: ("As", "Ad"), 1: ("2h", "2d")}
    assert rec.winners == {3: 75, 2: 50}  # aces take the main pot, queens the side pot
    pot_frames = [f for f in hand.of("chips", "CHIPS") if f.fields[0] == "POT"]
    # the pot is pushed in two parts: first seat 2 (first left of the button), then seat 3
    assert [value(live.chips, f.fields[1]) for f in pot_frames] == [125, 75, 0]


# conservation --------------------------------------------------------------------------------


def test_every_card_that_left_the_shoe_ends_in_the_muck(live: LiveTable) -> None:
    table = live.table({1: 5000, 4: 5000, 6: 5000, 7: 5000, 10: 5000}, fold_probability=0.3)
    for _ in range(6):
        hand = live.play(table)
        zone: dict[str, str] = {}
        drawn = [f.fields[0] for f in hand.of("shoe", "DRAW")]
        for f in hand.of("cards", "ARR", "DEP"):
            where, uid = f.fields
            if f.type == "ARR":
                assert uid not in zone, f"{uid} arrived in {where} without leaving {zone.get(uid)}"
                zone[uid] = where
            else:
                assert zone.pop(uid) == where
        assert set(zone) == set(drawn)
        assert set(zone.values()) == {"MUCK"}
        # a hand that ends early is the clean sequence cut short, never anything else
        clean = clean_sequence(hand.record.button, hand.record.seats)
        assert hand.destinations() == clean[: len(drawn)]
        assert len(drawn) - 2 * len(hand.record.seats) in (0, 4, 6, 8)


def test_chips_are_conserved_and_the_pot_is_the_sum_of_the_gathered_bets(
    live: LiveTable,
) -> None:
    seats = {2: 3000, 3: 500, 5: 3000, 8: 1500, 9: 3000}
    table = live.table(seats, fold_probability=0.25, seed=7)
    total = sum(seats.values())
    for _ in range(12):
        if len(table.seated()) < 2:
            break
        hand = live.play(table)
        rec = hand.record
        zones: dict[str, str] = {}
        emptied = 0
        pot_in = 0
        put_in: dict[int, int] = {}
        for f in hand.of("chips", "CHIPS"):
            zone, inventory = f.fields
            before, after = value(live.chips, zones.get(zone, "")), value(live.chips, inventory)
            zones[zone] = inventory
            if zone.startswith("B"):
                if after >= before:
                    put_in[int(zone[1:])] = put_in.get(int(zone[1:]), 0) + after - before
                else:
                    assert after == 0  # bets only leave a zone when they are gathered
                    emptied += before
            elif after > before:  # the pot grows by exactly what was swept in
                assert after - before == emptied
                pot_in += emptied
                emptied = 0
        assert emptied == 0
        assert all(inv == "" for inv in zones.values())  # bets gathered, pot pushed
        assert pot_in == rec.pot == sum(rec.gathered) == sum(rec.winners.values())
        for seat in rec.seats:
            expected = rec.stacks_before[seat] - put_in.get(seat, 0) + rec.winners.get(seat, 0)
            assert rec.stacks_after[seat] == expected
        assert sum(rec.stacks_after.values()) == total


def test_button_moves_one_occupied_seat_clockwise_after_each_hand(live: LiveTable) -> None:
    table = live.table({1: 5000, 3: 5000, 8: 5000}, fold_probability=0)
    buttons = []
    for _ in range(4):
        hand = live.play(table)
        buttons.append(hand.record.button)
        # the wire agrees: the first card goes to the first seat left of that button
        assert (
            hand.destinations()[0] == f"S{clockwise_from_button(hand.record.button, [1, 3, 8])[0]}"
        )
    assert buttons == [1, 3, 8, 1]


def test_frames_have_valid_crc_and_consecutive_seq_per_device(live: LiveTable) -> None:
    table = live.table({1: 5000, 2: 5000, 3: 5000, 4: 5000}, fold_probability=0.2)
    for _ in range(5):
        live.play(table)
    for kind, tap in live.taps.items():
        assert not tap.errors, tap.errors
        frames = tap.frames
        assert frames[0].type == "HELLO" and frames[0].seq == 0
        for prev, cur in itertools.pairwise(frames):
            assert cur.dev == kind
            assert cur.seq == (0 if cur.type == "HELLO" else (prev.seq + 1) % SEQ_MOD)


def test_chip_reader_repeats_every_zone_inventory(live: LiveTable) -> None:
    table = live.table({1: 5000, 2: 5000})
    mark = len(live.taps["chips"])
    table.start_chip_refresh(0.05)
    try:
        tap = live.taps["chips"]
        seen: set[str] = set()
        while len(seen) < 11:
            f = tap.wait_for(lambda f: f.type == "CHIPS" and f.fields[0] not in seen,
                             since=mark, timeout=WAIT)  # fmt: skip
            seen.add(f.fields[0])
    finally:
        table.stop_chip_refresh()
    assert seen == {f"B{s}" for s in range(1, 11)} | {"POT"}


def test_players_without_chips_leave_and_the_table_stops_below_two(live: LiveTable) -> None:
    table = live.table({1: 100, 2: 100}, small_blind=50, big_blind=100, fold_probability=0)
    played = table.run(hands=50)
    assert played >= 1
    assert len(table.seated()) == 1
    assert table.stacks == {table.seated()[0]: 200}
    with pytest.raises(RuntimeError, match="fewer than two"):
        table.play_hand()


def test_paused_dealer_waits_before_its_next_action_and_resume_finishes_the_hand(
    live: LiveTable,
) -> None:
    table = live.table({1: 5000, 2: 5000, 3: 5000}, fold_probability=0)
    before = live.devices["shoe"].last_seq
    table.pause()
    records: list[HandRecord] = []
    dealer = threading.Thread(target=lambda: records.append(table.play_hand()))
    dealer.start()
    try:
        until(lambda: table.waiting, "the dealer to stand still")
        assert live.devices["shoe"].last_seq == before  # not a card has left the shoe
    finally:
        table.resume()
        dealer.join(WAIT)
    assert not dealer.is_alive()
    assert len(records) == 1 and len(records[0].deal) == 14


def test_stop_overrides_a_pause_and_the_hand_still_completes(live: LiveTable) -> None:
    table = live.table({1: 5000, 2: 5000}, fold_probability=0, pace=30.0)
    table.pause()
    stop = threading.Event()
    dealer = threading.Thread(target=table.run, args=(None, stop))
    dealer.start()
    until(lambda: table.waiting, "the dealer to stand still")
    stop.set()
    dealer.join(WAIT)
    assert not dealer.is_alive()
    assert table.hands_played == 1 and table.last_hand is not None
    assert {zone for _, zone in table.last_hand.deal} == {"S1", "S2", "BURN", "BOARD"}


def test_pause_mid_hand_returns_with_the_dealer_still_and_no_movement_cut_in_half(
    live: LiveTable,
) -> None:
    table = live.table({1: 5000, 2: 5000, 3: 5000, 4: 5000}, fold_probability=0, pace=0.05)
    marks = {k: len(tap) for k, tap in live.taps.items()}
    records: list[HandRecord] = []
    dealer = threading.Thread(target=lambda: records.append(table.play_hand()))
    dealer.start()
    try:
        live.taps["shoe"].wait_for(lambda f: f.type == "DRAW", since=marks["shoe"], timeout=WAIT)
        table.pause()
        assert table.waiting
        for kind in ("shoe", "cards"):
            last = live.devices[kind].last_seq
            live.taps[kind].wait_for(lambda f, last=last: f.seq == last, timeout=WAIT)
        draws = [f for f in live.taps["shoe"].frames[marks["shoe"] :] if f.type == "DRAW"]
        arrivals = [f for f in live.taps["cards"].frames[marks["cards"] :] if f.type == "ARR"]
        assert [f.fields[0] for f in draws] == [f.fields[1] for f in arrivals]
    finally:
        table.resume()
        dealer.join(WAIT)
    assert not dealer.is_alive() and len(records[0].deal) == 16
