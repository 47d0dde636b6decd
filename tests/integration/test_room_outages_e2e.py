"""The service away while the dealer deals on, end to end, at twenty times the demo's pace.

Virtual devices on ptys, ``tablesvc run`` as its own process, mosquitto, a paho subscriber. The
dealer never waits for the service: while it is killed, stopped, frozen or starting on an empty
storage he finishes the hand under way and deals whole hands more, as a room does. Afterwards:

- the floor's ``alerts`` feed gets exactly one warning (``hand_untracked`` or
  ``stacks_unverified``: the chips must be counted) and nothing else, none in the hands after;
- the hand a killed or stopped service had under way ends untracked, and no other hand does;
- from the hand after the one under way when the service was back, every hand is followed:
  the table's button, board, hole cards (secure feed), outcome, pots and stacks;
- the first of them carries one ``button_found`` notice (info, never on the floor's feed)
  naming the table's button;
- after the floor's chip count (``cmd/stacks``) every stack is verified and right;
- nothing is lost or doubled on ``events`` and ``secure/events``, which are exactly what the
  journal replays to (an emptied storage starts a feed of its own).

``tests.integration.outages`` holds the accidents and the verdict; the room soak
(``tests/soak``) does the same at random.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from simulators.table import VirtualTable
from simulators.virtual import VirtualTableRig, recorded_table
from tablesvc.brokers.mosquitto import Mosquitto
from tests.conftest import ServiceProcess, Subscriber
from tests.integration.live_room import (
    Dealing,
    LiveTable,
    assert_feed_whole,
    assert_floor_is_events,
    prefix_of,
    write_config,
)
from tests.integration.outages import (
    HAND_WARNINGS,
    Accident,
    Room,
    assert_judged,
    hand_of_notice,
    left_open,
)

pytestmark = pytest.mark.integration

PACE = 0.0125
"""Seconds between the dealer's actions: the demo's 0.25 s, twenty times faster."""
SEATS = {s: 20_000 for s in (1, 2, 4, 5, 7, 9)}
DRAW_SEATS = {s: 20_000 for s in (1, 2, 4, 5, 7, 8, 9)}
SEED = 4
"""Pot-limit hands with some bets and raises; no player busts in the first hundred hands
(the last test checks it), so every hand deals the same seats."""


def table_of(variant: str) -> VirtualTable:
    """A table dealing the hands the live one deals (same seed, same settings), in memory."""
    table, _ = recorded_table(DRAW_SEATS if variant == "draw5" else SEATS, seed=SEED,
                              limit="pot-limit", aggression=0.03, all_in_share=0.0,
                              variant=variant, ante=25 if variant == "draw5" else 0)
    return table


@functools.cache
def long_hand(variant: str) -> int:
    """A hand to hit after its deal: from hand 5 on (the fixture has seen two dealt), the
    first that goes to a showdown with a dozen actions or more, so that much of it is still
    to come when its hole cards are out."""
    table = table_of(variant)
    records = [table.play_hand() for _ in range(30)]
    return next(r.number for r in records
                if r.number >= 5 and r.outcome == "showdown" and len(r.actions) >= 12)


@pytest.fixture
def room_factory(tmp_path: Path, broker: Mosquitto,
                 subscriber_factory: Callable[[str], Subscriber],
                 service_factory: Callable[[Path], ServiceProcess],
                 ) -> Iterator[Callable[[str], Room]]:
    """A table dealing hold'em or five-card draw at twenty times the demo's pace, its service
    started and the dealer dealing; stopped (and thawed, if frozen) on the way out."""
    made: list[tuple[VirtualTableRig, Room]] = []

    def make(variant: str) -> Room:
        seats = DRAW_SEATS if variant == "draw5" else SEATS
        rig = VirtualTableRig(tmp_path / "sim", seats=seats, seed=SEED, pace=PACE,
                              chips=tmp_path / "chips.json", limit="pot-limit",
                              aggression=0.03, all_in_share=0.0, variant=variant,
                              ante=25 if variant == "draw5" else 0)
        game = 'limit = "pot-limit"\n' + (
            'variant = "draw5"\nante = 25\n' if variant == "draw5" else "")
        cfg = write_config(tmp_path, rig, broker.port, "t01", seats, game=game)
        t = LiveTable(tmp_path, rig, cfg, subscriber_factory(f"{prefix_of('t01')}/#"),
                      service_factory)
        room = Room(t, Dealing(rig, None))
        made.append((rig, room))
        t.start()
        room.dealing.start()
        room.settle()
        return room

    try:
        yield make
    finally:
        for rig, room in made:
            room.dealing.stop()
            room.t.thaw()
            rig.close()


def after_the_count(room: Room, hands: int = 2) -> None:
    """The floor counts the chips between two hands; the dealer deals ``hands`` more and
    stops; the service deals them out and stops cleanly."""
    room.count_chips()
    room.dealing.wait_hands(len(room.records) + hands)
    room.finish()


def verdicts_of(room: Room) -> str:
    """The verdict on each part of the session, for a failure's message (it also tells each
    hand the service followed which of the table's it is)."""
    return "\n".join(v.line() for v in room.verdicts())


def assert_one_warning_to_count_the_chips(room: Room) -> None:
    names = room.t.floor_alert_names()
    assert sum(names.values()) == 1 and set(names) <= HAND_WARNINGS, (
        f"the floor's alerts: {dict(names)}; expected exactly one of {sorted(HAND_WARNINGS)}"
        f"\n{verdicts_of(room)}")
    assert_floor_is_events(room.t)


def assert_button_found_once(room: Room, acc: Accident) -> None:
    """One ``button_found`` notice since the accident, info, for the first hand followed
    after the service was back (naming that hand, or given just before it starts), naming
    the table's button."""
    text = verdicts_of(room)  # matches each hand followed with the table's
    hands = room.hands()
    found = [(pos, e, k) for pos, (e, k) in enumerate(zip(room.t.feeds.public,
                                                          room.t.feeds.epoch_of_public,
                                                          strict=True))
             if pos >= acc.mark and e["type"] == "alert" and e["name"] == "button_found"]
    after = [h for h in hands if h.followed and h.pos_started > acc.back]
    assert after and after[0].record is not None, text
    assert [(e["severity"], hand_of_notice(hands, pos, e, k), e["seat"])
            for pos, e, k in found] == [("info", after[0], after[0].record.button)], text


def assert_untracked_is_the_hand_left_open(room: Room, acc: Accident) -> None:
    """The hand under way when the service went down ends untracked; no other hand does."""
    open_at_down = left_open(acc, room.hands())
    assert open_at_down is not None, "the accident was meant to hit a hand under way"
    untracked = [h.number for h in room.hands() if h.untracked]
    assert untracked == [open_at_down.number], verdicts_of(room)


def assert_dealt_unseen(room: Room, acc: Accident, hands: int) -> None:
    """The accident is what the test says: ``hands`` whole hands (at least) went by while the
    service was away, so none of them can have been seen."""
    assert acc.dealt_back >= acc.dealt_before + 1 + hands
    unseen = range(acc.dealt_before + 2, acc.dealt_before + 2 + hands)
    text = verdicts_of(room)
    followed = {h.record.number for h in room.hands() if h.record is not None}
    assert not followed & set(unseen), f"hands {list(unseen)} were dealt while it was away\n{text}"


def test_a_hand_dealt_while_the_service_was_killed_costs_the_hand_it_was_in_and_no_other(
        room_factory: Callable[[str], Room]) -> None:
    room = room_factory("holdem")
    acc = room.accident("kill", hands=1, mid_hand=long_hand("holdem"))
    after_the_count(room)
    assert_dealt_unseen(room, acc, 1)
    assert_one_warning_to_count_the_chips(room)
    assert_untracked_is_the_hand_left_open(room, acc)
    assert_button_found_once(room, acc)
    assert_judged(room.verdicts())
    assert_feed_whole(room.t)


@pytest.mark.parametrize("variant", ["holdem", "draw5"])
def test_several_hands_dealt_while_the_service_was_killed_cost_one_untracked_hand(
        room_factory: Callable[[str], Room], variant: str) -> None:
    room = room_factory(variant)
    acc = room.accident("kill", hands=4, mid_hand=long_hand(variant))
    after_the_count(room)
    assert_dealt_unseen(room, acc, 4)
    assert_one_warning_to_count_the_chips(room)
    assert_untracked_is_the_hand_left_open(room, acc)
    assert_button_found_once(room, acc)
    assert_judged(room.verdicts())
    assert_feed_whole(room.t)


@pytest.mark.parametrize("hands", [1, 4])
def test_hands_dealt_while_the_service_was_stopped_cleanly_cost_the_hand_it_was_in(
        room_factory: Callable[[str], Room], hands: int) -> None:
    """systemctl stop mid-hand (SIGTERM: a clean stop, exit 0), the dealer dealing on."""
    room = room_factory("holdem")
    acc = room.accident("stop", hands=hands, mid_hand=long_hand("holdem"))
    after_the_count(room)
    assert_dealt_unseen(room, acc, hands)
    assert_one_warning_to_count_the_chips(room)
    assert_untracked_is_the_hand_left_open(room, acc)
    assert_button_found_once(room, acc)
    assert_judged(room.verdicts())
    assert_feed_whole(room.t)


def test_a_freeze_spanning_a_whole_hand_costs_at_most_one_hand(
        room_factory: Callable[[str], Room]) -> None:
    """SIGSTOP mid-hand until the dealer has dealt a whole hand more, then SIGCONT: the
    ports held what the devices sent meanwhile and the service reads it late, in a burst.
    Whatever it makes of the burst, it tells no device fault, at most one hand is untracked,
    and from the hand after the one under way when it had read it all every hand is right."""
    room = room_factory("holdem")
    acc = room.accident("freeze", hands=1, mid_hand=long_hand("holdem"))
    after_the_count(room)
    assert acc.dealt_back >= acc.dealt_before + 2
    names = room.t.floor_alert_names()
    assert sum(names.values()) <= 1 and set(names) <= HAND_WARNINGS, (
        f"the floor's alerts: {dict(names)}\n{verdicts_of(room)}")
    assert len([h for h in room.hands() if h.untracked]) <= 1, verdicts_of(room)
    assert_judged(room.verdicts())
    assert_feed_whole(room.t)


@pytest.mark.parametrize("variant", ["holdem", "draw5"])
def test_an_empty_storage_start_after_several_hands_learns_the_table_again(
        room_factory: Callable[[str], Room], variant: str) -> None:
    """The box is wiped (or replaced) after several hands: the service stops, its storage
    goes, and it starts on an empty folder with the config's ``[[players]]``, whose stacks
    are the session's start and wrong by now. It must not take them for the truth: the floor
    is told once to count, the stacks stay unverified until the count, and every hand from
    the one after the hand under way is right, its events numbered afresh."""
    room = room_factory(variant)
    room.dealing.wait_hands(5)
    room.settle()
    acc = room.accident("empty_storage", hands=1)
    after_the_count(room)
    assert len(room.t.epochs) == 2
    assert_dealt_unseen(room, acc, 1)
    assert_one_warning_to_count_the_chips(room)
    assert len([h for h in room.hands() if h.untracked]) <= 1, verdicts_of(room)
    assert_button_found_once(room, acc)
    assert_judged(room.verdicts())
    assert_feed_whole(room.t)


def test_the_tables_these_tests_deal_keep_every_player_and_have_a_long_hand_to_hit() -> None:
    """The expectations above count on the same seats in every hand (no bust), on bets and
    raises beside the checks and calls, and on a hand early in the session that goes on long
    after its deal (the accidents that hit a hand under way hit that one)."""
    for variant, seats in (("holdem", SEATS), ("draw5", DRAW_SEATS)):
        table = table_of(variant)
        records = [table.play_hand() for _ in range(100)]
        assert all(r.seats and set(r.seats) == set(seats) for r in records), variant
        assert any(a.action in ("bet", "raise") for r in records for a in r.actions)
        assert 5 <= long_hand(variant) <= 12
