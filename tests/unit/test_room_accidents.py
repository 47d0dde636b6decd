"""A live room's accidents, read by the core: it never stays out of step, and each is one alert.

The service restarts mid-hand or between hands (the NEWHAND falls into the outage), a cable
is pulled and put back, a line drops a frame, the core fails on an input. In each case at
most the hand it happened in is untracked (one notice, no rule alerts, none of its cards
"unaccounted"), and every later hand is tracked exactly again, by itself: the right board,
and, after the floor's chip count, the right stacks.
"""

from __future__ import annotations

from typing import Any

import pytest

from tablesvc.core import events as ev
from tablesvc.core.session import HandSession
from tests.helpers import DEVICES
from tests.room import Reader, Session

SEATS = {1: 5000, 3: 5000, 4: 5000, 7: 5000}


@pytest.fixture(scope="module")
def session() -> Session:
    return Session(SEATS, hands=5, seed=5, aggression=0.2)


def stacks(e: ev.HandEnded) -> dict[int, int]:
    return {i.seat: i.stack for i in e.stacks}


def table_result(s: Session, n: int) -> tuple[str, tuple[str, ...], dict[int, int]]:
    r = s.records[n - 1]
    return r.outcome, r.board, {seat: r.stacks_after.get(seat, 0) for seat in r.seats}


def core_result(r: Reader, n: int) -> tuple[str, tuple[str, ...], dict[int, int]]:
    e = next(e for e in r.ended() if e.hand == n)
    return e.reason, tuple(e.board), stacks(e)


def count_stacks(r: Reader, s: Session, after: int) -> Any:
    """The floor counts the chips after hand ``after`` and sends them (cmd/stacks)."""
    counted = s.records[after - 1].stacks_after  # a busted player counts 0
    return r.command("stacks", stacks={str(k): v for k, v in counted.items()})


def test_a_restart_mid_hand_that_lost_frames_untracks_that_hand_only(session: Session) -> None:
    r = Reader(session)
    r.frames(session.before(2))
    hand2 = session.hand(2)
    r.frames(hand2[:20])
    r.down(hand2[20:30])  # the flop is dealt while the service is down
    r.frames(hand2[30:])
    assert r.alerts() == [("hand_untracked", "warning")]
    assert core_result(r, 2)[0] == "untracked"  # ended when the pot was pushed
    count_stacks(r, session, 2)
    r.frames(session.frames[session.starts[2]:])
    assert r.alerts() == [("hand_untracked", "warning")]  # nothing more, ever
    for n in (3, 4, 5):
        assert core_result(r, n) == table_result(session, n)


def test_a_newhand_lost_while_the_service_was_down_is_found_again_by_itself(
        session: Session) -> None:
    """SIGKILL right after a hand ended; the dealer's NEWHAND falls into the outage."""
    r = Reader(session)
    r.frames(session.before(2))
    hand2 = session.hand(2)
    assert hand2[0][0] == "console"  # the NEWHAND
    r.restart(down_ms=2000)
    r.frames(hand2[:1], lost=frozenset({"console"}))
    r.frames(hand2[1:])
    untracked = [e for e in r.of(ev.Alert) if e.name == "hand_untracked"]
    assert [e.hand for e in untracked] == [2] and r.alerts() == [("hand_untracked", "warning")]
    count_stacks(r, session, 2)
    r.frames(session.frames[session.starts[2]:])
    assert r.alerts() == [("hand_untracked", "warning")]
    found = [e for e in r.of(ev.Alert) if e.name == "button_found"]
    assert [(e.severity, e.seat) for e in found] == [("info", session.records[2].button)]
    started = [e for e in r.of(ev.HandStarted) if e.hand == 3]
    assert started[0].button == session.records[2].button
    for n in (3, 4, 5):
        assert core_result(r, n) == table_result(session, n)


def test_stacks_an_untracked_hand_changed_stay_unverified_until_the_chip_count(
        session: Session) -> None:
    r = Reader(session)
    r.frames(session.before(2))
    r.restart()
    hand2 = session.hand(2)
    r.frames(hand2[:1], lost=frozenset({"console"}))
    r.frames(hand2[1:])
    ended = core_result(r, 2)
    assert ended[0] == "untracked"
    e2 = next(e for e in r.ended() if e.hand == 2)
    assert all(i.unverified for i in e2.stacks)
    assert all(p.get("unverified") for p in r.core.snapshot()["players"])
    reply = count_stacks(r, session, 2)
    assert reply.ok, reply
    assert not any(p.get("unverified") for p in r.core.snapshot()["players"])


def test_a_chip_count_is_refused_while_a_tracked_hand_is_under_way(session: Session) -> None:
    r = Reader(session)
    r.frames(session.hand(1)[:30])
    reply = r.command("stacks", stacks={"1": 100})
    assert not reply.ok and "between hands" in reply.error
    assert r.core.players[1].stack == SEATS[1]


def test_the_card_antennas_unplugged_mid_hand_are_one_alert_and_the_next_hand_is_tracked(
        session: Session) -> None:
    r = Reader(session)
    r.frames(session.before(2))
    hand2 = session.hand(2)
    r.frames(hand2[:25])
    r.unplug("cards")
    r.frames(hand2[25:60])  # the dealer goes on: the cards' frames never arrive
    r.wait(10_000)
    r.replug("cards")
    r.frames(hand2[60:])
    assert r.alerts() == [("device_offline", "warning")]
    offline = next(e for e in r.of(ev.Alert) if e.name == "device_offline")
    assert "cards" in offline.message and "last frame" in offline.message
    count_stacks(r, session, 2)
    r.frames(session.frames[session.starts[2]:])
    # pushed while the antennas were away, it ends with the next NEWHAND, untracked
    assert core_result(r, 2)[0] == "untracked"
    assert r.alerts() == [("device_offline", "warning")]
    for n in (3, 4, 5):
        assert core_result(r, n) == table_result(session, n)


def test_all_four_devices_rebooting_mid_hand_are_one_alert_and_the_hand_only_a_notice(
        session: Session) -> None:
    """The devices' power strip is switched off mid-hand while the dealer goes on, and on
    again: one cause, one device_offline naming all four devices, and the hand they could
    not see, untracked because of them, is a notice on the events, not a second alert."""
    r = Reader(session)
    r.frames(session.before(2))
    hand2 = session.hand(2)
    r.frames(hand2[:20])
    for dev in DEVICES:
        r.unplug(dev)
    r.frames(hand2[20:30])  # dealt while every device is off: never arrives
    for dev in DEVICES:
        r.replug(dev)
        r.reboot(dev)
    r.frames(hand2[30:])
    assert r.alerts() == [("device_offline", "warning")]
    offline = next(e for e in r.of(ev.Alert) if e.name == "device_offline")
    assert all(dev in offline.message for dev in DEVICES), offline.message
    untracked = [(e.hand, e.severity) for e in r.of(ev.Alert) if e.name == "hand_untracked"]
    assert untracked == [(2, "info")]
    assert core_result(r, 2)[0] == "untracked"
    count_stacks(r, session, 2)
    r.frames(session.frames[session.starts[2]:])
    assert r.alerts() == [("device_offline", "warning")]
    for n in (3, 4, 5):
        assert core_result(r, n) == table_result(session, n)


def test_a_device_silent_between_two_actions_and_back_with_nothing_lost_keeps_the_hand(
        session: Session) -> None:
    """The chip reader's heartbeats stop for four seconds while nobody bets, then it is
    back, its seq unbroken: what it could not see was nothing, so the hand goes on."""
    r = Reader(session)
    r.frames(session.before(2))
    hand2 = session.hand(2)
    cut = next(i for i in range(12, len(hand2)) if hand2[i][0] == "cards") + 1  # no card out
    r.frames(hand2[:cut])
    r.silent.add("chips")
    r.wait(4000)
    r.silent.discard("chips")
    r.seqs["chips"] -= 4  # its heartbeats were not sent at all: no frame is missing
    r.frames(hand2[cut:])
    assert r.alerts() == [("device_offline", "warning")]
    assert core_result(r, 2) == table_result(session, 2)


def test_a_frame_lost_on_a_line_that_changes_nothing_leaves_the_hand_tracked(
        session: Session) -> None:
    """A noisy line drops a heartbeat: the hand goes on in doubt and, as everything still
    fits, ends as the table dealt it, with no alert."""
    r = Reader(session)
    r.frames(session.before(3))
    hand3 = session.hand(3)
    r.frames(hand3[:20])
    r.seqs["shoe"] += 1  # a heartbeat the line dropped
    r.frames(hand3[20:])
    assert r.alerts() == []
    assert core_result(r, 3) == table_result(session, 3)
    assert r.core.links["shoe"].counters.lost == 1


def test_a_frame_lost_on_a_line_that_mattered_untracks_that_hand_only(
        session: Session) -> None:
    """The line drops the console's CHECK that closed a round: the burn then looks premature;
    in doubt, that is no burn_premature alert but the end of following the hand."""
    r = Reader(session)
    r.frames(session.before(3))
    hand3 = session.hand(3)
    cut = next(i for i, (dev, raw) in enumerate(hand3) if dev == "console" and b"CHECK" in raw)
    r.frames(hand3[:cut])
    r.frames(hand3[cut:cut + 1], lost=frozenset({"console"}))
    r.frames(hand3[cut + 1:])
    assert r.alerts() == [("hand_untracked", "warning")]
    count_stacks(r, session, 3)
    r.frames(session.frames[session.starts[3]:])
    for n in (4, 5):
        assert core_result(r, n) == table_result(session, n)


def test_a_service_started_while_a_hand_is_dealt_untracks_it_and_tracks_the_next(
        session: Session) -> None:
    """The README's two terminals: the simulator deals before the service opens its ports."""
    r = Reader(session)
    r.restart(down_ms=0)
    r.frames(session.hand(1)[40:])
    assert r.alerts() == [("hand_untracked", "warning")]
    count_stacks(r, session, 1)
    r.frames(session.frames[session.starts[1]:])
    assert r.alerts() == [("hand_untracked", "warning")]
    for n in (2, 3, 4, 5):
        assert core_result(r, n) == table_result(session, n)


def test_an_exception_in_the_core_is_one_internal_error_with_no_gap_in_the_seq(
        session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    r = Reader(session)
    r.frames(session.before(2))
    original = HandSession.arrive
    calls = {"n": 0}

    def failing(self: HandSession, zone: str, uid: str, card: str, ms: int) -> None:
        calls["n"] += 1
        if calls["n"] == 5:
            self.out.emit(ev.Burn, before="flop", index=99)  # half-done work that must vanish
            raise RuntimeError("a bug in the tracker")
        original(self, zone, uid, card, ms)

    monkeypatch.setattr(HandSession, "arrive", failing)
    r.frames(session.hand(2))
    monkeypatch.setattr(HandSession, "arrive", original)
    assert r.alerts() == [("internal_error", "critical")]
    assert not [e for e in r.of(ev.Burn) if e.index == 99]
    seqs = [e.seq for e in r.events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # gapless, nothing half-published
    assert core_result(r, 2)[0] == "untracked"
    notes = r.core.out.out.notes
    del notes
    count_stacks(r, session, 2)
    r.frames(session.frames[session.starts[2]:])
    for n in (3, 4, 5):
        assert core_result(r, n) == table_result(session, n)
