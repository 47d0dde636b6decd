"""Levels reach the table at any moment, and no blind alert is raised across a level change.

A tournament controller sends ``cmd/configure`` when its clock says so, whatever the table is
doing: during a hand the level waits for the next hand, between hands it applies at once. The
dealer reads the room's clock and the table gets the command over the network, so the first
hand after a change may be posted at either level: the forced bets the table shows at the
first card decide which, and nobody is alerted for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablesvc.core import events as ev
from tablesvc.core.emitter import Reply
from tablesvc.pipeline import checkpoint
from tablesvc.pipeline.checkpoint import Basis, table_definition
from tablesvc.pipeline.journal import Position
from tests.unit.test_core_money import UID, Table, actions
from tests.unit.test_draw_core import DrawTable

HOLES = ("2c", "3c", "4c", "2d", "3d", "4d")
LEVEL_2 = {"number": 2, "small_blind": 100, "big_blind": 200, "ante": 0, "ante_mode": "each",
           "limit": "no-limit"}
LEVEL_1 = {**LEVEL_2, "number": None, "small_blind": 50, "big_blind": 100}
SHORT_BLINDS = [("bet_withdrawn", "warning"), ("bet_withdrawn", "warning"),
                ("blind_missing", "warning"), ("blind_missing", "warning")]
"""Both blinds below the level's at the first card: missing, and less than was posted."""


def warnings(t: Table) -> list[tuple[str, str]]:
    """The alerts the floor is called for: every warning and critical alert, sorted."""
    return sorted((a.name, a.severity) for a in t.of(ev.Alert) if a.severity != "info")


def configure(t: Table, **body: Any) -> Reply:
    replies = t.core.apply(t.s.cmd("configure", **body)).replies
    assert len(replies) == 1
    return replies[0]


def deal(t: Table, order: tuple[int, int, int], blinds: dict[int, int] | None = None
         ) -> list[ev.Event]:
    """NEWHAND, the blinds into their zones (as the service posted them, or ``blinds``: what
    the dealer had the players post), and two rounds of hole cards in deal ``order`` (the
    small blind first, the button last)."""
    events = t.newhand(post_blinds=blinds is None)
    for seat, amount in (blinds or {}).items():
        events += t.bet(seat, amount)
    return events + t.deal(*zip(HOLES, [f"S{s}" for s in order * 2], strict=True))


def walk(t: Table, order: tuple[int, int, int], pot: int) -> list[ev.Event]:
    """The button and the small blind fold; the big blind's walk: every card to the muck,
    the blinds gathered (``pot``) and pushed to him."""
    sb, bb, button = order
    events = t.fold(button) + t.fold(sb)
    for card in HOLES:
        events += t.feed(t.s.frame("cards", "ARR", "MUCK", UID[card]))
    return events + t.gather([sb, bb], pot) + t.push()


def started(events: list[ev.Event]) -> ev.HandStarted:
    return next(e for e in events if isinstance(e, ev.HandStarted))


def ended(events: list[ev.Event]) -> dict[int, int]:
    end = next(e for e in events if isinstance(e, ev.HandEnded))
    return {s.seat: s.stack for s in end.stacks}


def test_a_level_sent_mid_hand_waits_and_the_hand_finishes_at_the_blinds_it_was_dealt_at():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    deal(t, (2, 3, 1))  # button 1, blinds 50/100 posted by seats 2 and 3
    reply = configure(t, small_blind=100, big_blind=200, level=2)
    assert reply.ok and reply.data == {"takes_effect": "next_hand", "level": LEVEL_2}
    state = t.core.snapshot()
    assert (state["level"], state["pending_level"]) == (LEVEL_1, LEVEL_2)
    # still 50/100: a raise to 200 is the minimum raise (at 100/200 it would only call)
    assert actions(t.bet(1, 200) + t.fold(2)) == [(1, "raise", 200, 200), (2, "fold", 0, 50)]
    assert actions(t.fold(3)) == [(3, "fold", 0, 100)]
    for card in HOLES:
        t.feed(t.s.frame("cards", "ARR", "MUCK", UID[card]))
    assert ended(t.gather([1, 2, 3], 350) + t.push()) == {1: 1150, 2: 950, 3: 900}
    second = deal(t, (3, 1, 2))  # button 2: the new level from this hand on
    assert (started(second).small_blind, started(second).big_blind) == (100, 200)
    assert actions(second)[:2] == [(3, "post_small_blind", 100, 100),
                                   (1, "post_big_blind", 200, 200)]
    assert ended(walk(t, (3, 1, 2), 300)) == {1: 1250, 2: 950, 3: 800}
    assert warnings(t) == []
    state = t.core.snapshot()
    assert (state["level"], state["pending_level"]) == (LEVEL_2, None)


def test_a_second_level_sent_mid_hand_replaces_the_waiting_one_merged_onto_the_current():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    deal(t, (2, 3, 1))
    configure(t, small_blind=100, big_blind=200, level=2)
    reply = configure(t, ante=25)
    want = {**LEVEL_1, "ante": 25}
    assert reply.data == {"takes_effect": "next_hand", "level": want}
    assert t.core.snapshot()["pending_level"] == want
    back = configure(t, ante=0)  # the level in effect: nothing waits any more
    assert back.data == {"takes_effect": "now", "level": LEVEL_1}
    assert t.core.snapshot()["pending_level"] is None


def test_a_level_sent_between_hands_takes_effect_at_once():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    deal(t, (2, 3, 1))
    walk(t, (2, 3, 1), 150)
    reply = configure(t, small_blind=100, big_blind=200, level=2)
    assert reply.ok and reply.data == {"takes_effect": "now", "level": LEVEL_2}
    state = t.core.snapshot()
    assert (state["level"], state["pending_level"]) == (LEVEL_2, None)
    second = deal(t, (3, 1, 2))
    assert (started(second).small_blind, started(second).big_blind) == (100, 200)
    assert ended(walk(t, (3, 1, 2), 300)) == {1: 1100, 2: 950, 3: 950}
    assert warnings(t) == []


def test_the_first_hand_after_a_change_posted_at_the_old_level_is_played_at_it_without_alert():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    deal(t, (2, 3, 1))
    walk(t, (2, 3, 1), 150)
    configure(t, small_blind=100, big_blind=200, level=2)
    # the dealer's clock has not changed yet: the players post 50/100
    second = deal(t, (3, 1, 2), blinds={3: 50, 1: 100})
    assert (started(second).small_blind, started(second).big_blind) == (100, 200)
    assert actions(second) == [(3, "post_small_blind", 100, 100), (1, "post_big_blind", 200, 200),
                               (3, "post_small_blind", 50, 50), (1, "post_big_blind", 100, 100)]
    # played at 50/100: 200 is a raise, the minimum one
    assert actions(t.bet(2, 200) + t.fold(3)) == [(2, "raise", 200, 200), (3, "fold", 0, 50)]
    assert actions(t.fold(1)) == [(1, "fold", 0, 100)]
    for card in HOLES:
        t.feed(t.s.frame("cards", "ARR", "MUCK", UID[card]))
    assert ended(t.gather([1, 2, 3], 350) + t.push()) == {1: 900, 2: 1100, 3: 1000}
    assert warnings(t) == []
    assert t.core.snapshot()["level"] == LEVEL_2  # the table's level is still the new one
    # once only: the next hand posted at the old level is the dealer's error
    deal(t, (1, 2, 3), blinds={1: 50, 2: 100})
    assert warnings(t) == SHORT_BLINDS


def test_a_hand_posting_the_new_level_just_after_its_newhand_is_played_at_it_without_alert():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    deal(t, (2, 3, 1))
    walk(t, (2, 3, 1), 150)
    first = t.newhand(post_blinds=False)  # the dealer's clock went first: NEWHAND at 50/100
    assert (started(first).small_blind, started(first).big_blind) == (50, 100)
    reply = configure(t, small_blind=100, big_blind=200, level=2)
    assert reply.data == {"takes_effect": "next_hand", "level": LEVEL_2}
    t.bet(3, 100)
    t.bet(1, 200)
    dealt = t.deal(*zip(HOLES, [f"S{s}" for s in (3, 1, 2) * 2], strict=True))
    assert actions(dealt) == [(3, "post_small_blind", 100, 100), (1, "post_big_blind", 200, 200)]
    state = t.core.snapshot()
    assert (state["level"], state["pending_level"]) == (LEVEL_2, None)
    assert ended(walk(t, (3, 1, 2), 300)) == {1: 1100, 2: 950, 3: 950}
    assert warnings(t) == []
    third = deal(t, (1, 2, 3))
    assert (started(third).small_blind, started(third).big_blind) == (100, 200)
    assert warnings(t) == []


def test_without_a_level_change_blinds_at_another_amount_are_still_reported():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    deal(t, (2, 3, 1))
    walk(t, (2, 3, 1), 150)
    configure(t, small_blind=50, big_blind=100)  # the level in effect: no change
    deal(t, (3, 1, 2), blinds={3: 25, 1: 50})
    assert warnings(t) == SHORT_BLINDS


def test_a_restart_mid_hand_with_a_level_waiting_applies_it_at_the_next_hand(
        tmp_path: Path) -> None:
    """The waiting level is the table's state: a checkpoint taken mid-hand holds it, and the
    service restarted from it deals the next hand at it (the journal after the checkpoint
    holds no configure to send it again)."""
    t = Table({1: 1000, 2: 1000, 3: 1000})
    deal(t, (2, 3, 1))
    configure(t, small_blind=100, big_blind=200, level=2)
    players = [(p.seat, p.name, p.stack) for p in t.core.players.values()]
    basis = Basis(table_definition(t.core.s, players), t.core.decks, t.box.values)
    snap = checkpoint.take(t.core, basis, Position(1, 1), "interval", "x")
    _, t.core = checkpoint.load(checkpoint.write(tmp_path, snap), basis)
    assert t.core.snapshot()["pending_level"] == LEVEL_2
    walk(t, (2, 3, 1), 150)
    second = deal(t, (3, 1, 2))
    assert (started(second).small_blind, started(second).big_blind) == (100, 200)
    assert t.core.snapshot()["level"] == LEVEL_2
    assert warnings(t) == []


def test_a_draw_game_whose_antes_show_the_level_before_the_change_is_played_at_it() -> None:
    d = DrawTable({1: 1000, 2: 1000, 3: 1000}, button=1, ante=10)
    assert d.core.apply(d.script.cmd("configure", ante=25)).replies[0].data["takes_effect"] \
        == "now"
    d.newhand([1, 2, 3])  # the dealer collects the antes of his clock: 10 each
    d.deal_round([2, 3, 1], rounds=1)
    antes = [(e.seat, e.amount) for e in d.events
             if isinstance(e, ev.Action) and e.action == "post_ante"]
    assert antes == [(2, 25), (3, 25), (1, 25), (2, 10), (3, 10), (1, 10)]
    assert [(a.name, a.severity) for a in d.events
            if isinstance(a, ev.Alert) and a.severity != "info"] == []
