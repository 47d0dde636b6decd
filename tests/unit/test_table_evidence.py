"""The table is the truth about where the hand is: the core finds its place from the table.

Sessions dealt on the virtual table are read by a core as the service reads them
(``tests.room.Reader``), through what happens to a service in a room: it is restarted after a
whole hand was dealt without it, a fresh box starts mid-session with only its config, its
process is frozen, a player is seated by the controller at a seat the dealer does not deal
to, the dealer moves the button. From the first NEWHAND the core sees, it follows every hand
with the dealer's button, its players, cards and board; the floor gets at most the one alert
the accident is worth, and clean play gets none. Where the table has stack zones and a tagged
button, it tells every stack and the button, and what moves outside the rules is one alert.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from simulators.table import HandRecord, VirtualTable
from simulators.virtual import recorded_table
from tablesvc.core import events as ev
from tablesvc.core.inputs import PortChange, format_ts
from tests.room import Reader, Session
from tests.room_soak import SEATS as SOAK_SEATS

SEATS = {1: 5000, 3: 5000, 4: 5000, 7: 5000}
TAG = "B0770000000000B7"  # the dealer button's tag (no card's, no chip's)


def followed(r: Reader, s: Session, first: int) -> list[tuple[int, int]]:
    """(table hand, service hand) for every table hand from ``first`` on that the core
    followed with the table's button, hole cards and board; asserts there is no other."""
    started = {e.hand: e for e in r.of(ev.HandStarted)}
    boards = {e.hand: list(e.board) for e in r.of(ev.Board)}
    holes: dict[int | None, dict[int, list[str]]] = {}
    for e in r.of(ev.HoleCards):
        holes.setdefault(e.hand, {})[e.seat] = sorted(e.cards)
    ended = {e.hand: e for e in r.ended() if e.reason != "untracked"}
    pairs = []
    for rec in s.records[first - 1:]:
        want = {seat: sorted(c) for seat, c in rec.hole_cards.items()}
        hand = next((h for h, cards in holes.items() if cards == want and h in ended), None)
        assert hand is not None, f"table hand {rec.number} was not followed"
        assert started[hand].button == rec.button, f"table hand {rec.number}: button"
        assert boards.get(hand, []) == list(rec.board), f"table hand {rec.number}: board"
        pairs.append((rec.number, hand))
    return pairs


def names(r: Reader, severity: str = "info") -> list[str]:
    return [e.name for e in r.of(ev.Alert) if e.severity == severity]


@pytest.fixture(scope="module")
def session() -> Session:
    return Session(SEATS, hands=8, seed=5, aggression=0.2)


# ---------------------------------------------------------------------- gaps
def test_a_restart_after_a_whole_hand_dealt_meanwhile_follows_the_dealers_button_after(
        session: Session) -> None:
    """Killed right after hand 1, back once the dealer has dealt hand 2 without it: the
    table's first round places hand 3, one button_found says so, and the stacks hand 2
    changed are one warning to count them. Nothing is unaccounted, withdrawn or out of turn."""
    r = Reader(session, alert_confirm=True)
    r.frames(session.before(2))
    r.down(session.hand(2))
    r.frames(session.frames[session.starts[2]:])
    assert r.alerts() == [("stacks_unverified", "warning")]
    assert names(r).count("button_found") == 1
    assert len(followed(r, session, 3)) == len(session.records) - 2


def test_a_fresh_box_started_between_hands_mid_session_follows_every_hand_it_sees(
        session: Session) -> None:
    """A replaced box: empty storage, only the config (the players and stacks of the day's
    start), started after three hands. It deals with the table's button from its first
    NEWHAND on, and the overlay gets every card."""
    r = Reader(session, alert_confirm=True)
    r.wipe(session.before(4))
    r.frames(session.frames[session.starts[3]:])
    assert r.alerts() == [("stacks_unverified", "warning")]
    assert len(followed(r, session, 4)) == len(session.records) - 3
    assert len(r.of(ev.HoleCards)) > 0


def test_a_clean_stop_between_hands_is_one_notice_and_no_card_is_unaccounted(
        session: Session) -> None:
    """Stopped cleanly between hands, back before the next NEWHAND: nothing was missed, so
    the floor gets nothing; the cards collected while it was away are no card_unaccounted."""
    r = Reader(session, alert_confirm=True)
    hand3 = session.hand(3)
    r.frames(session.before(3))
    r.stop(hand3[:0])
    r.frames(session.frames[session.starts[2]:])
    assert r.alerts() == []
    assert names(r).count("button_found") == 1
    assert len(followed(r, session, 3)) == len(session.records) - 2


def test_a_clean_stop_mid_hand_closing_its_ports_one_by_one_tells_the_floor_nothing(
        session: Session) -> None:
    """The service stops mid-hand (an update, a box being replaced): it closes the shoe's
    port first, and the antennas, the chips and the console still send while it closes
    theirs. It is leaving: what the shoe's port no longer reads is no device gone away, and
    the hand it leaves is no alert of its own (the next start tells what it missed)."""
    r = Reader(session, alert_confirm=True)
    hand3 = session.hand(3)
    r.frames(session.before(3))
    r.frames(hand3[:25])
    start = len(r.events)
    r.apply(PortChange(format_ts(r.ms), r.ms, "shoe", False, "stopped"))
    r.frames([f for f in hand3[25:60] if f[0] != "shoe"][:12])
    for dev in ("cards", "chips", "console"):
        r.apply(PortChange(format_ts(r.ms), r.ms, dev, False, "stopped"))
    r.wait(5000)
    assert r.alerts(r.events[start:]) == []


def test_a_frozen_process_is_one_hand_not_followed_and_the_next_is_followed(
        session: Session) -> None:
    """Frozen mid-hand while the dealer finishes it; the ports held what they could and it
    is read at once: that hand is one hand not followed, the next one is placed."""
    r = Reader(session, alert_confirm=True)
    hand2 = session.hand(2)
    r.frames(session.before(2))
    r.frames(hand2[:15])
    r.freeze(hand2[15:])
    r.frames(session.frames[session.starts[2]:])
    assert r.alerts() == [("hand_untracked", "warning")]
    assert [e.reason for e in r.ended() if e.hand == 2] == ["untracked"]
    assert len(followed(r, session, 3)) == len(session.records) - 2


# ---------------------------------------------------------------------- seats
def test_a_seat_the_dealer_does_not_deal_to_sits_out_with_one_notice_and_can_be_unseated(
        session: Session) -> None:
    """The controller seats a player at seat 9, where nobody sits: the next deal gives seat 9
    no card, so it sits out (one info), every hand is followed as dealt, and unseating it
    is accepted at once."""
    r = Reader(session, alert_confirm=True)
    r.frames(session.before(2))
    seat = r.command("seat", seat=9, name="Ghost", stack=5000)
    assert seat.ok
    r.frames(session.hand(2))
    sat_out = [e for e in r.of(ev.Alert) if e.name == "seat_sat_out"]
    assert [(e.severity, e.seat) for e in sat_out] == [("info", 9)]
    assert r.command("unseat", seat=9).ok
    r.frames(session.frames[session.starts[2]:])
    assert r.alerts() == []
    assert len(followed(r, session, 2)) == len(session.records) - 1


def test_a_player_unseated_as_the_dealer_pressed_newhand_is_dealt_in_and_back_for_the_hand(
        session: Session) -> None:
    """A move: the controller unseats seat 3 between hands, but the dealer had already pressed
    NEWHAND and deals him in as before (he had not stood up yet). The hand is placed from the
    table, seat 3 is back for it (one info) with his stack as it was, and every hand is
    followed with no warning."""
    r = Reader(session, alert_confirm=True)
    r.frames(session.before(2))
    assert r.command("unseat", seat=3).ok
    r.frames(session.frames[session.starts[1]:])
    back = [e for e in r.of(ev.Alert) if e.name == "player_back"]
    assert [(e.severity, e.seat) for e in back] == [("info", 3)]
    assert r.alerts() == []
    assert len(followed(r, session, 2)) == len(session.records) - 1
    assert all(not s.unverified for e in r.ended() for s in e.stacks)


# ---------------------------------------------------------------------- the button
def moved_button_session() -> tuple[VirtualTable, list[tuple[str, bytes]], list[HandRecord], int]:
    """Four hands by the rotation, then the dealer deals from the seat after the one the
    rotation has, and goes on from there: the service must follow him, once."""
    table, frames = recorded_table(SEATS, seed=9, aggression=0.2, button=1)
    records = [table.play_hand() for _ in range(3)]
    start = len(frames)
    seated = sorted(table.seated())
    rotation = seated[(seated.index(records[-1].button) + 1) % len(seated)]
    table.set_button(seated[(seated.index(rotation) + 1) % len(seated)])
    records += [table.play_hand() for _ in range(4)]
    return table, frames, records, start


def test_a_button_moved_by_the_dealer_is_one_warning_then_the_service_follows_the_table(
        ) -> None:
    table, frames, records, _ = moved_button_session()
    s = Session.__new__(Session)
    s.seats, s.table, s.frames, s.records = dict(SEATS), table, frames, records
    r = Reader(s, alert_confirm=True)
    r.frames(frames)
    warnings = r.alerts()
    assert warnings == [("button_position_error", "warning"), ("button_followed", "warning")]
    assert [e.reason for e in r.ended()].count("untracked") <= 1
    assert len(followed(r, s, 5)) == len(records) - 4


def test_a_tagged_button_moved_away_from_the_rotation_is_one_warning_and_the_hand_is_followed(
        ) -> None:
    """The button carries a tag: the dealer puts it one seat too far and deals from there.
    One button_position_error names it; the hand is followed as dealt, and so is every later
    one."""
    table, frames = recorded_table(SEATS, seed=9, aggression=0.2, button=1, button_uid=TAG)
    records = [table.play_hand() for _ in range(3)]
    seated = sorted(table.seated())
    rotation = seated[(seated.index(records[-1].button) + 1) % len(seated)]
    table.set_button(seated[(seated.index(rotation) + 1) % len(seated)])
    records += [table.play_hand() for _ in range(4)]
    s = Session.__new__(Session)
    s.seats, s.table, s.frames, s.records = dict(SEATS), table, frames, records
    r = Reader(s, alert_confirm=True, button_uid=TAG)
    r.frames(frames)
    assert r.alerts() == [("button_position_error", "warning")]
    assert [e.reason for e in r.ended()].count("untracked") == 0
    assert len(followed(r, s, 1)) == len(records)


def test_a_tagged_button_where_the_rotation_has_it_changes_nothing() -> None:
    s = Session(SEATS, hands=6, seed=9, aggression=0.2, button_uid=TAG)
    r = Reader(s, alert_confirm=True, button_uid=TAG)
    r.frames(s.frames)
    assert r.alerts() == [] and names(r) == [n for n in names(r) if n != "button_found"]
    assert len(followed(r, s, 1)) == len(s.records)


# ---------------------------------------------------------------------- stack zones
def until(pred: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + 30  # a guard against hanging only
    while not pred():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.001)


@contextmanager
def mid_hand(table: VirtualTable, steps: int) -> Iterator[list[HandRecord]]:
    """A hand dealt in a thread, the dealer standing still after ``steps`` actions."""
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


DEEP = {1: 20_000, 3: 20_000, 4: 20_000, 7: 20_000}


def zoned(hands: int = 0, **options: Any) -> tuple[VirtualTable, Session]:
    table, frames = recorded_table(DEEP, seed=29, aggression=0.1, all_in_share=0.0,
                                   stack_zones=True, button=1, **options)
    s = Session.__new__(Session)
    s.seats, s.table, s.frames, s.records = dict(DEEP), table, frames, []
    for _ in range(hands):
        s.records.append(table.play_hand())
    return table, s


def test_with_stack_zones_clean_play_raises_nothing_and_every_stack_is_the_tables() -> None:
    _, s = zoned(hands=8)
    r = Reader(s, alert_confirm=True, stack_zones=True)
    r.frames(s.frames)
    assert r.alerts() == []
    for e, rec in zip(r.ended(), s.records, strict=True):
        assert {i.seat: i.stack for i in e.stacks} == {
            i.seat: rec.stacks_after.get(i.seat, 0) for i in e.stacks}


def test_with_stack_zones_a_restart_after_hands_dealt_meanwhile_needs_no_count() -> None:
    """The table tells the stacks: after the outage they are learned, not unverified, and the
    floor gets nothing to do."""
    _, s = zoned(hands=6)
    r = Reader(s, alert_confirm=True, stack_zones=True, refresh_ms=2000)
    starts = [i for i, (dev, raw) in enumerate(s.frames) if b"NEWHAND" in raw]
    r.frames(s.frames[:starts[2]])
    r.down(s.frames[starts[2]:starts[4]])  # hands 3 and 4 dealt without it
    r.frames(s.frames[starts[4]:])
    assert r.alerts() == []
    last = r.ended()[-1]
    assert not any(i.unverified for i in last.stacks)
    assert {i.seat: i.stack for i in last.stacks} == {
        seat: v for seat, v in s.records[-1].stacks_after.items() if v > 0}


@pytest.mark.rules("TABLE-06")
def test_chips_taken_from_a_stack_between_hands_are_one_critical_alert_naming_the_seat(
        ) -> None:
    table, s = zoned(hands=2)
    table.stack_take(3, 500)
    s.records.append(table.play_hand())
    r = Reader(s, alert_confirm=True, stack_zones=True)
    r.frames(s.frames)
    assert r.alerts() == [("chips_removed_from_table", "critical")]
    alert = next(e for e in r.of(ev.Alert) if e.name == "chips_removed_from_table")
    assert (alert.rule, alert.seat) == ("TABLE-06", 3) and "500" in alert.message


@pytest.mark.rules("TABLE-08")
def test_chips_moved_from_one_player_to_another_between_hands_are_one_alert() -> None:
    table, s = zoned(hands=2)
    table.stack_transfer(1, 4, 300)
    s.records.append(table.play_hand())
    r = Reader(s, alert_confirm=True, stack_zones=True)
    r.frames(s.frames)
    assert r.alerts() == [("chip_transfer_between_players", "warning")]
    alert = next(e for e in r.of(ev.Alert) if e.name == "chip_transfer_between_players")
    assert alert.rule == "TABLE-08" and "seat 1 (-300)" in alert.message \
        and "seat 4 (+300)" in alert.message


@pytest.mark.rules("TABLE-08")
def test_chips_added_to_a_stack_between_hands_are_one_alert_in_a_tournament() -> None:
    table, s = zoned(hands=2)
    table.stack_add(7, 1000)
    s.records.append(table.play_hand())
    r = Reader(s, alert_confirm=True, stack_zones=True)
    r.frames(s.frames)
    assert r.alerts() == [("chip_purchase_mid_game", "warning")]


def test_in_five_card_draw_chips_bought_between_games_are_no_alert() -> None:
    table, s = zoned(hands=2, variant="draw5", ante=25)
    table.stack_add(7, 1000)
    s.records.append(table.play_hand())
    r = Reader(s, alert_confirm=True, stack_zones=True)
    r.frames(s.frames)
    assert r.alerts() == []
    assert {i.seat: i.stack for i in r.ended()[-1].stacks}[7] == s.records[-1].stacks_after[7]


@pytest.mark.rules("BET-23")
def test_chips_added_to_a_stack_during_a_hand_are_one_alert_naming_the_seat() -> None:
    table, s = zoned(hands=1)
    with mid_hand(table, steps=2) as records:
        table.stack_add(4, 2000)
    s.records += records
    r = Reader(s, alert_confirm=True, stack_zones=True)
    r.frames(s.frames)
    assert r.alerts() == [("chips_added_mid_hand", "warning")]
    alert = next(e for e in r.of(ev.Alert) if e.name == "chips_added_mid_hand")
    assert (alert.rule, alert.seat) == ("BET-23", 4) and "2000" in alert.message


def test_a_restart_whose_first_hand_loses_the_shoes_first_draws_is_one_hand_not_followed(
        session: Session) -> None:
    """Back after a hand dealt without it, the service reads the next hand's first round to
    find the button, but the shoe's line drops its first two draws: the cards reach their
    seats without them, so the round seems to begin a seat later. That hand is the one hand
    not followed (its one warning); the button is not taken from it, so no button alert
    follows, and every later hand is followed with the dealer's button."""
    r = Reader(session, alert_confirm=True)
    hand3 = session.hand(3)
    draws = [i for i, (dev, raw) in enumerate(hand3) if dev == "shoe" and b"DRAW" in raw]
    r.frames(session.before(2))
    r.down(session.hand(2))
    r.lose("shoe", hand3[:draws[1] + 1])
    r.frames(session.frames[session.starts[2] + draws[1] + 1:])
    assert r.alerts() == [("hand_untracked", "warning")]
    assert len(followed(r, session, 4)) == len(session.records) - 3


def test_a_shoe_line_losing_a_hands_first_draws_raises_nothing_about_the_button(
        session: Session) -> None:
    """Followed from the start, the shoe's line drops the first two draws of a hand: what
    the service missed is no button moved, no card misdirected, and every hand is followed."""
    r = Reader(session, alert_confirm=True)
    hand3 = session.hand(3)
    draws = [i for i, (dev, raw) in enumerate(hand3) if dev == "shoe" and b"DRAW" in raw]
    r.frames(session.before(3))
    r.lose("shoe", hand3[:draws[1] + 1])
    r.frames(session.frames[session.starts[2] + draws[1] + 1:])
    assert r.alerts() == []
    assert len(followed(r, session, 4)) == len(session.records) - 3


def test_killed_again_while_placing_a_hand_is_one_warning_and_no_hand_number_twice(
        session: Session) -> None:
    """Back after a hand dealt without it, the service is killed again right after the
    next NEWHAND (it was reading that hand's first round) and comes back in the hand after:
    the round it then reads belongs to another hand, so nothing is placed from it. The hand
    is the one hand not followed, each hand number is used once, and every later hand is
    followed with the dealer's button."""
    r = Reader(session, alert_confirm=True)
    r.frames(session.before(2))
    r.down(session.hand(2))
    hand3 = session.hand(3)
    newhand = next(i for i, (_, raw) in enumerate(hand3) if b"NEWHAND" in raw)
    r.frames(hand3[:newhand + 1])
    r.down(hand3[newhand + 1:] + session.hand(4)[:20])
    r.frames(session.frames[session.starts[3] + 20:])
    assert r.alerts() == [("hand_untracked", "warning")]
    numbers = [e.hand for e in r.ended()]
    assert len(numbers) == len(set(numbers))
    assert len(followed(r, session, 5)) == len(session.records) - 4


# ---------------------------------------------------------------------- stacks nobody counted
def _fresh_box_before(seed: int, hand: int) -> tuple[Reader, HandRecord]:
    """A five-card draw session of the room soak; a fresh box (only the config's stacks of
    the day's start) is started just before table hand ``hand``: no stack it has is the
    table's. Returns the reader after that hand and the next one's NEWHAND, and the record."""
    s = Session(SOAK_SEATS, hands=hand + 1, seed=seed, aggression=0.25, all_in_share=0.05,
                variant="draw5", ante=25, min_players=3)
    r = Reader(s, alert_confirm=True, refresh_ms=2000)
    r.wipe(s.before(hand))
    r.frames(s.frames[s.starts[hand - 1]:])
    return r, s.records[hand - 1]


def won(r: Reader, hand: int) -> dict[int, int]:
    shares: dict[int, int] = {}
    for award in r.of(ev.PotAwarded):
        if award.hand == hand:
            for seat, amount in award.shares.items():
                shares[int(seat)] = shares.get(int(seat), 0) + amount
    return shares


def test_a_player_all_in_with_his_ante_lets_the_draw_begin_without_an_alert() -> None:
    """Seat 3 has 25 left, and the ante takes it; the box thinks he has 20 000. After the
    bets are called he does not act, and the dealer gathers and starts the draw: he is
    all-in (only the table could show it), not a player the draw went past."""
    r, rec = _fresh_box_before(40, 30)
    assert rec.stacks_before[3] == 25
    assert r.alerts() == [("stacks_unverified", "warning")]
    assert won(r, 1) == rec.winners


def test_a_game_checked_around_a_player_all_in_nobody_counted_checks_out_without_alerts(
        ) -> None:
    """Seat 1, all-in for 75 the box does not know of, is checked to after the draw: the
    others checked and he cannot act, so the game ends with no winner (BET-22, A-23) and
    the cards go to the muck, which is no live hand swept. Two players gone since the day's
    start tell the box its stacks are not vouched for, which it says without alerting anyone
    (it may be a late player)."""
    r, rec = _fresh_box_before(38, 50)
    assert rec.stacks_before[1] == 75 and rec.outcome == "checked_out"
    assert r.alerts() == []
    ended = [e for e in r.ended() if e.hand == 1]
    assert [(e.reason, e.carried_pot) for e in ended] == [("checked_out", rec.carried_over)]
    assert all(s.unverified for s in r.of(ev.HandStarted)[0].seats)


def test_an_uncalled_bet_handed_back_past_a_player_all_in_nobody_counted_is_no_withdrawal(
        ) -> None:
    """Seat 4 raises all-in (the box thinks he has chips behind), seat 1 re-raises, seat 3
    calls all-in for less: the dealer hands seat 1 back what nobody could call. That is
    the round's end with seat 4 all-in, not a bet withdrawn."""
    r, rec = _fresh_box_before(54, 24)
    assert r.alerts() == [("stacks_unverified", "warning")]
    assert won(r, 1) == rec.winners


def test_a_blind_whose_uncalled_part_is_handed_back_is_no_short_blind() -> None:
    """The small blind (a stack the box does not know: 50) is all-in; the others fold; the
    dealer hands the big blind back what nobody called. The big blind showed whole in its
    zone: the part going back is the handback, not a big blind put out short (which would
    make his stack 50, known, and a later bet of his 'chips added')."""
    r, rec = _holdem_fresh_box_before(218, 3)
    assert rec.returned == {3: 50}
    assert r.alerts() == [("stacks_unverified", "warning")]
    assert won(r, 1) == rec.winners
    ended = next(e for e in r.ended() if e.hand == 1)
    assert {s.seat: s.unverified for s in ended.stacks}[3]


def test_a_player_the_service_had_out_of_chips_dealt_in_again_is_back_with_one_notice(
        ) -> None:
    """The box took a stack for empty that was not (here: the floor counted it wrong, 0):
    to the box the player has no chips. It restarts between hands, so the next hand is
    placed from the table, and the dealer deals to his seat: the table is the truth, he is
    back, his stack unverified, one notice; every hand is followed. (Without the restart the
    box deals the hand in as it knows it, and the cards at his seat are the dealer's error
    to it.)"""
    s = Session(SEATS, hands=5, seed=5, aggression=0.2)
    r = Reader(s, alert_confirm=True)
    r.frames(s.before(3))
    r.command("stacks", stacks={"7": 0})  # a count that is wrong
    r.down([])
    r.frames(s.frames[s.starts[2]:])
    assert names(r).count("player_back") == 1
    assert r.alerts() == []
    assert len(followed(r, s, 3)) == len(s.records) - 2


def _holdem_fresh_box_before(seed: int, hand: int) -> tuple[Reader, HandRecord]:
    """As ``_fresh_box_before``, for hold'em."""
    s = Session(SOAK_SEATS, hands=hand + 1, seed=seed, aggression=0.25, all_in_share=0.05)
    r = Reader(s, alert_confirm=True, refresh_ms=2000)
    r.wipe(s.before(hand))
    r.frames(s.frames[s.starts[hand - 1]:])
    return r, s.records[hand - 1]


def test_a_console_reset_that_loses_a_newhand_leaves_the_stacks_unverified_not_wrong() -> None:
    """Heads-up; the console reboots over the end of a hand and the next NEWHAND: the
    service sees the two hands as one, so what it thinks the stacks are is not what they
    are. The button the next hand is dealt from shows that a hand went by: the stacks are
    unverified (the device_offline was the floor's one alert), and no later bet is taken
    for chips brought into the hand."""
    s = Session(SOAK_SEATS, hands=6, seed=214, aggression=0.25, all_in_share=0.05)
    r = Reader(s, alert_confirm=True, refresh_ms=2000)
    r.frames(s.frames[:120])
    r.restarting("console", s.frames[120:196])  # hand 3's NEWHAND is frame 157
    r.frames(s.frames[196:])
    assert s.starts[2] == 157
    assert r.alerts() == [("device_offline", "warning")]
    placed = r.of(ev.HandStarted)[2]
    assert placed.button == s.records[3].button
    assert all(seat.unverified for seat in placed.seats)
