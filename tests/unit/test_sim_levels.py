"""The virtual dealer changes level as a tournament's clock tells him, and a core reading his
table with the controller's ``configure`` arriving before or after him follows every hand
without a blind alert (``tablesvc.core.session.HandSession._level_shown``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulators.endpoints import Recorder
from simulators.virtual import VirtualTableRig, recorded_table
from tablesvc.core import events as ev
from tests.room import Reader, Session

SEATS = {1: 5000, 3: 5000, 4: 5000, 7: 5000}


def blinds_posted(record: object) -> list[tuple[str, int]]:
    return [(a.action, a.amount) for a in record.actions  # type: ignore[attr-defined]
            if a.action in ("post_small_blind", "post_big_blind", "post_ante")]


def test_the_dealer_deals_his_next_hand_at_the_level_set_and_keeps_what_was_not_given() -> None:
    table, _ = recorded_table(SEATS, seed=4)
    assert blinds_posted(table.play_hand()) == [("post_small_blind", 50), ("post_big_blind", 100)]
    table.set_level(small_blind=100, big_blind=200, ante=25, ante_mode="big_blind")
    second = table.play_hand()
    assert blinds_posted(second) == [("post_ante", 25), ("post_small_blind", 100),
                                     ("post_big_blind", 200)]
    table.set_level(ante=0)
    assert blinds_posted(table.play_hand()) == [("post_small_blind", 100),
                                                ("post_big_blind", 200)]


def test_a_level_the_table_cannot_deal_is_refused_and_changes_nothing() -> None:
    table, _ = recorded_table(SEATS, seed=4)
    with pytest.raises(ValueError, match="0 < SB <= BB"):
        table.set_level(small_blind=300, big_blind=200)
    with pytest.raises(ValueError, match="ante_mode"):
        table.set_level(big_blind=400, ante_mode="everyone")
    assert (table.small_blind, table.big_blind, table.ante_mode) == (50, 100, "each")


def test_the_rig_sets_the_level_of_the_dealers_next_hand(tmp_path: Path) -> None:
    with VirtualTableRig(tmp_path, recorder=Recorder(), seats=SEATS, seed=2, pace=0.0,
                         heartbeat=None, chip_refresh=None) as rig:
        rig.set_level(small_blind=200, big_blind=400)
        rig.start(hands=1).join(30)
        assert rig.table.last_hand is not None
        assert blinds_posted(rig.table.last_hand) == [("post_small_blind", 200),
                                                      ("post_big_blind", 400)]


def leveled(change_after: int, hands: int = 4) -> tuple[Session, Reader]:
    """A session whose dealer goes from 50/100 to 100/200 after hand ``change_after``, and a
    core to read it that starts at 50/100, as the table's config says."""
    s = Session(SEATS, hands=change_after, seed=5, aggression=0.2)
    r = Reader(s)
    s.starts.pop()  # the end mark: more hands follow
    s.table.set_level(small_blind=100, big_blind=200)
    for _ in range(hands - change_after):
        s.starts.append(len(s.frames))
        s.records.append(s.table.play_hand())
    s.starts.append(len(s.frames))
    return s, r


def followed_at(r: Reader) -> list[tuple[int, int]]:
    """The blinds each hand the core followed to its end was played at (its last posts)."""
    posts: dict[int | None, dict[str, int]] = {}
    for e in r.of(ev.Action):
        if e.action in ("post_small_blind", "post_big_blind"):
            posts.setdefault(e.hand, {})[e.action] = e.amount
    done = [e.hand for e in r.ended() if e.reason != "untracked"]
    return [(posts[h]["post_small_blind"], posts[h]["post_big_blind"]) for h in done]


def test_the_controllers_level_arriving_after_the_dealers_newhand_is_no_alert() -> None:
    s, r = leveled(change_after=1)
    r.frames(s.frames[:s.starts[1] + 1])  # the dealer's clock went first: NEWHAND at 100/200
    assert r.command("configure", small_blind=100, big_blind=200, level=2).data[
        "takes_effect"] == "next_hand"
    r.frames(s.frames[s.starts[1] + 1:])
    r.wait(3000)
    assert r.alerts() == []
    assert followed_at(r) == [(50, 100)] + [(100, 200)] * 3


def test_the_controllers_level_arriving_before_the_dealer_changes_is_no_alert() -> None:
    s, r = leveled(change_after=2)
    r.frames(s.frames[:s.starts[0] + 20])  # mid-hand 1: the level waits for hand 2
    assert r.command("configure", small_blind=100, big_blind=200, level=2).data[
        "takes_effect"] == "next_hand"
    r.frames(s.frames[s.starts[0] + 20:])  # hand 2 is still dealt at 50/100
    r.wait(3000)
    assert r.alerts() == []
    assert followed_at(r) == [(50, 100), (50, 100), (100, 200), (100, 200)]
    assert r.core.snapshot()["level"]["number"] == 2
