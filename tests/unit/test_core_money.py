"""Chips through the core: blinds, actions from bet-zone inventories, side pots, showdown."""

from __future__ import annotations

import pytest

from tablesvc.core import events as ev
from tablesvc.core.commands import PENDING_LEVELS
from tablesvc.core.table import TableCore
from tests.helpers import ChipBox, Script, make_core, make_deck

DECK = make_deck()
UID = {card: uid for uid, card in DECK.items()}


class Table:
    """A scripted table: the core plus a script and a chip box that agree with each other."""

    def __init__(self, stacks: dict[int, int], **settings: object) -> None:
        self.box = ChipBox()
        self.core: TableCore = make_core(stacks, DECK, **settings)  # type: ignore[arg-type]
        self.core.chip_values = self.box.values
        self.s = Script()
        self.events: list[ev.Event] = []

    def feed(self, *inputs: object) -> list[ev.Event]:
        new: list[ev.Event] = []
        for inp in inputs:
            new += [e for e in self.core.apply(inp).events  # type: ignore[arg-type]
                    if not isinstance(e, ev.DeviceStatus)]
        self.events += new
        return new

    def newhand(self, post_blinds: bool = True) -> list[ev.Event]:
        """NEWHAND; then the blinds go physically into their bet zones, as a dealer does."""
        events = self.feed(self.s.frame("console", "BTN", "NEWHAND"))
        if post_blinds:
            for e in events:
                if isinstance(e, ev.Action) and e.action in ("post_small_blind",
                                                              "post_big_blind"):
                    self.feed(self.s.frame("chips", "CHIPS", f"B{e.seat}",
                                           self.box.uids(e.amount)))
        return events

    def deal(self, *cards_to: tuple[str, str]) -> list[ev.Event]:
        out = []
        for card, zone in cards_to:
            out += self.feed(*self.s.deal(UID[card], zone))
        return out

    def deal_hole_cards(self) -> list[ev.Event]:
        """Two rounds of hole cards for seats 2, 3, 1 (button 1): low cards, nobody cares."""
        return self.deal(("2c", "S2"), ("3c", "S3"), ("4c", "S1"),
                         ("2d", "S2"), ("3d", "S3"), ("4d", "S1"))

    def bet(self, seat: int, total: int) -> list[ev.Event]:
        return self.feed(self.s.frame("chips", "CHIPS", f"B{seat}", self.box.uids(total)))

    def check(self, seat: int) -> list[ev.Event]:
        return self.feed(self.s.frame("console", "BTN", "CHECK", str(seat)))

    def fold(self, seat: int) -> list[ev.Event]:
        return self.feed(self.s.frame("console", "BTN", "FOLD", str(seat)))

    def gather(self, seats: list[int], pot: int) -> list[ev.Event]:
        out = []
        for seat in seats:
            out += self.feed(self.s.frame("chips", "CHIPS", f"B{seat}", ""))
        return out + self.feed(self.s.frame("chips", "CHIPS", "POT", self.box.uids(pot)))

    def push(self) -> list[ev.Event]:
        return self.feed(self.s.frame("chips", "CHIPS", "POT", ""))

    def of(self, kind: type[ev.Event]) -> list:  # type: ignore[type-arg]
        return [e for e in self.events if isinstance(e, kind)]


def actions(events: list[ev.Event]) -> list[tuple[int, str, int, int]]:
    return [(e.seat, e.action, e.amount, e.to) for e in events if isinstance(e, ev.Action)]


def side_pot_hand() -> Table:
    """Three players all-in pre-flop with 1,000 / 3,000 / 3,000; seat 1's kings win the main
    pot, seat 3's queens the side pot; the board is run out."""
    t = Table({1: 1000, 2: 3000, 3: 3000})
    t.newhand()  # button 1, SB 2, BB 3; seat 1 acts first pre-flop
    t.deal(("2c", "S2"), ("Qs", "S3"), ("Ah", "S1"), ("7d", "S2"), ("Qd", "S3"), ("Kh", "S1"))
    t.bet(1, 1000)
    t.bet(2, 1000)
    t.bet(3, 3000)
    t.bet(2, 3000)
    t.gather([1, 2, 3], 7000)
    t.deal(("5c", "BURN"), ("Ks", "BOARD"), ("9c", "BOARD"), ("4d", "BOARD"),
           ("6c", "BURN"), ("3s", "BOARD"), ("6d", "BURN"), ("8h", "BOARD"))
    return t


def test_blinds_are_posted_from_tracked_stacks_as_actions_at_newhand():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    events = t.newhand()
    assert actions(events) == [(2, "post_small_blind", 50, 50), (3, "post_big_blind", 100, 100)]
    posted = [e for e in events if isinstance(e, ev.Action)]
    assert [(e.stack, e.pot) for e in posted] == [(950, 50), (900, 150)]


def test_short_stack_posts_big_blind_all_in():
    t = Table({1: 1000, 2: 1000, 3: 60})
    assert actions(t.newhand())[-1] == (3, "post_big_blind", 60, 60)


def test_antes_each_and_big_blind_ante():
    t = Table({1: 1000, 2: 1000, 3: 1000}, ante=10)
    assert [a[:3] for a in actions(t.newhand())][:3] == [
        (2, "post_ante", 10), (3, "post_ante", 10), (1, "post_ante", 10)]
    t2 = Table({1: 1000, 2: 1000, 3: 1000}, ante=100, ante_mode="big_blind")
    assert [a[:3] for a in actions(t2.newhand()) if a[1] == "post_ante"] == [(3, "post_ante", 100)]


def test_bet_is_final_at_the_next_action_and_read_as_raise_call_and_check():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    t.newhand()
    t.deal_hole_cards()
    assert actions(t.bet(1, 300)) == []  # still moving: not final yet
    assert actions(t.bet(2, 300)) == [(1, "raise", 300, 300)]
    assert actions(t.fold(3)) == [(2, "call", 250, 300), (3, "fold", 0, 100)]
    assert not [a for a in t.of(ev.Alert) if a.severity != "info"]


def test_pending_bet_becomes_final_after_bet_settle_ms():
    t = Table({1: 1000, 2: 1000, 3: 1000}, bet_settle_ms=1500)
    t.newhand()
    t.deal_hole_cards()
    t.bet(1, 100)
    deadline = t.core.next_deadline()
    assert deadline is not None and deadline == t.s.ms + 1500
    assert actions(t.feed(t.s.tick(1499))) == []
    assert actions(t.feed(t.s.tick(1))) == [(1, "call", 100, 100)]


def test_side_pot_showdown_awards_main_and_side_pots_and_busts_the_loser():
    t = side_pot_hand()
    assert actions(t.events)[2:] == [
        (1, "all_in", 1000, 1000), (2, "call", 950, 1000), (3, "all_in", 2900, 3000),
        (2, "all_in", 2000, 3000)]
    shown = t.of(ev.Showdown)
    assert all(s.tabled for s in shown)  # all-in: every hand is tabled
    assert {s.seat: s.rank for s in shown}[1] == "a pair of kings"
    pots = t.of(ev.PotAwarded)
    assert [(p.pot, p.amount, p.seats) for p in pots] == [("main", 3000, [1]),
                                                        ("side 1", 4000, [3])]
    t.push()
    ended = t.of(ev.HandEnded)[0]
    assert ended.reason == "showdown"
    assert {s.seat: s.stack for s in ended.stacks} == {1: 3000, 2: 0, 3: 4000}
    eliminated = [a for a in t.of(ev.Alert) if a.name == "player_eliminated"]
    assert [a.seat for a in eliminated] == [2]
    assert 2 not in t.core.players
    assert not [a for a in t.of(ev.Alert) if a.severity != "info"]


@pytest.mark.rules("BET-08")
def test_everyone_folds_to_the_big_blind_who_wins_uncontested():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    t.newhand()
    t.deal_hole_cards()
    t.fold(1)
    t.fold(2)
    folds = [(a.name, a.rule, a.seat) for a in t.of(ev.Alert) if a.name == "fold_recorded"]
    assert folds == [("fold_recorded", "BET-08", 1), ("fold_recorded", "BET-08", 2)]
    pot = t.of(ev.PotAwarded)
    # the big blind's 50 that nobody called goes back to him; the pot he wins is 100
    assert [(p.amount, p.seats, p.uncontested) for p in pot] == [(100, [3], True)]
    t.gather([2, 3], 150)
    t.push()
    ended = t.of(ev.HandEnded)[0]
    assert ended.reason == "uncontested"
    assert {s.seat: s.stack for s in ended.stacks} == {1: 1000, 2: 950, 3: 1050}


@pytest.mark.rules("BET-11", "BET-09")
def test_raise_below_minimum_and_call_short_raise_alerts_with_the_rule():
    t = Table({1: 5000, 2: 5000, 3: 5000})
    t.newhand()
    t.deal_hole_cards()
    t.bet(1, 150)  # a raise of 50 over the big blind of 100
    t.bet(2, 80)   # facing 150, puts in 80 with chips behind
    t.check(3)
    names = [(a.name, a.rule, a.seat) for a in t.of(ev.Alert)]
    assert ("raise_below_minimum", "BET-11", 1) in names
    assert ("call_short", "BET-09", 2) in names


def test_unknown_chip_and_a_bet_from_a_seat_not_in_the_hand_raise_alerts_and_play_goes_on():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    t.newhand()
    t.deal_hole_cards()
    t.feed(t.s.frame("chips", "CHIPS", "B1", "FFFFFFFFFFFFFFFF " + t.box.uids(100)))
    t.bet(7, 500)
    t.bet(2, 100)
    names = [(a.name, a.seat) for a in t.of(ev.Alert)]
    assert ("foreign_chips_on_table", None) in names
    assert ("action_out_of_turn", 7) in names
    assert actions(t.events)[-1] == (1, "call", 100, 100)  # the known chips still count


@pytest.mark.rules("SEAT-03", "MISDEAL-11")
def test_blind_missing_when_the_deal_starts_and_posted_late_after_it_is_no_misdeal():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    t.newhand(post_blinds=False)
    t.bet(2, 50)  # the small blind is in; the big blind (seat 3) is not
    t.deal(("2c", "S2"))
    missing = [a for a in t.of(ev.Alert) if a.name == "blind_missing"]
    assert [(a.seat, a.severity, a.rule) for a in missing] == [(3, "warning", "SEAT-03")]
    t.deal(("3c", "S3"), ("4c", "S1"), ("2d", "S2"), ("3d", "S3"), ("4d", "S1"))
    t.bet(3, 100)
    late = [a for a in t.of(ev.Alert) if a.name == "blind_posted_late"]
    assert [(a.seat, a.severity) for a in late] == [(3, "info")]
    assert not [e for e in t.events if isinstance(e, ev.HandEnded)]  # MISDEAL-11: play on


@pytest.mark.rules("DEAL-01")
def test_misdeal_voids_the_hand_returns_every_chip_and_keeps_the_button():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    first = next(e for e in t.newhand() if isinstance(e, ev.HandStarted))
    t.deal(("2c", "S2"), ("3c", "S3"))
    t.feed(t.s.frame("console", "BTN", "MISDEAL"))
    ended = t.of(ev.HandEnded)
    assert [e.reason for e in ended] == ["misdeal"]
    assert {s.seat: s.stack for s in ended[0].stacks} == {1: 1000, 2: 1000, 3: 1000}
    t.deal(("4c", "S1"))  # a card before the reshuffle: MISDEAL-03, no shuffle
    assert "deal_without_shuffle" in [a.name for a in t.of(ev.Alert)]
    again = next(e for e in t.newhand() if isinstance(e, ev.HandStarted))
    assert again.button == first.button  # R10: same button, blinds posted again


@pytest.mark.rules("POT-08")
def test_floor_declares_a_foul_hand_which_cannot_win_and_acks_a_critical_alert():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    t.newhand()
    t.deal_hole_cards()
    out = t.core.apply(t.s.cmd("declare", ruling="foul_hand", seat=1, reason="three cards"))
    assert out.replies[0].ok
    assert "foul_hand" in [e.name for e in out.events if isinstance(e, ev.Alert)]
    assert 1 not in t.core.session.tracker.active  # type: ignore[union-attr]
    t.feed(*t.s.deal("0123456789ABCDEF", "S2"))  # a joker: critical, must be acknowledged
    critical = next(a for a in t.of(ev.Alert) if a.severity == "critical")
    assert t.core.snapshot()["open_alerts"] == [{"id": critical.id, "name": critical.name}]
    bad = t.core.apply(t.s.cmd("ack_alert", alert_id="nope")).replies[0]
    assert not bad.ok and critical.id in str(bad.error)
    ok = t.core.apply(t.s.cmd("ack_alert", alert_id=critical.id, by="floor 2")).replies[0]
    assert ok.ok and t.core.snapshot()["open_alerts"] == []


def test_bet_zone_that_shrinks_during_the_round_is_flagged_as_withdrawn():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    t.newhand()
    t.deal_hole_cards()
    t.bet(1, 300)
    t.bet(2, 300)
    t.bet(1, 200)
    assert "bet_withdrawn" in [a.name for a in t.of(ev.Alert)]


def test_gathered_pot_that_does_not_add_up_is_flagged():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    t.newhand()
    t.deal_hole_cards()
    t.bet(1, 100)
    t.bet(2, 100)
    t.check(3)
    t.gather([1, 2, 3], 200)  # 300 was bet
    assert "chips_removed_from_table" in [a.name for a in t.of(ev.Alert)]


def test_a_journal_of_a_version_that_refused_a_level_change_mid_hand_replays_the_refusal():
    """Before levels could wait for the next hand, a configure during a followed hand was
    refused; such a journal (its start record's checks) replays so (``test_core_levels``
    has what a level sent mid-hand does now)."""
    t = Table({1: 1000, 2: 1000, 3: 1000})
    t.core.command_checks = PENDING_LEVELS - 1  # what the journal's start record says
    t.newhand()
    reply = t.core.apply(t.s.cmd("configure", small_blind=100, big_blind=200)).replies[0]
    assert not reply.ok and "between hands" in str(reply.error)
    assert t.core.snapshot()["pending_level"] is None
    t.fold(1)
    t.fold(2)
    t.gather([2, 3], 150)
    t.push()  # pot awarded uncontested and pushed: the hand is over
    ok = t.core.apply(t.s.cmd("configure", small_blind=100, big_blind=200)).replies[0]
    assert ok.ok
    started = next(e for e in t.newhand() if isinstance(e, ev.HandStarted))
    assert (started.small_blind, started.big_blind) == (100, 200)


def test_seat_commands_refuse_unknown_seats_and_negative_stacks_saying_why():
    t = Table({1: 1000, 2: 1000})
    bad = t.core.apply(t.s.cmd("seat", seat=12, name="X", stack=-3)).replies[0]
    assert not bad.ok and "seat" in str(bad.error) and "stack" in str(bad.error)
    empty = t.core.apply(t.s.cmd("button", seat=6)).replies[0]
    assert not empty.ok and "seat 6 is empty" in str(empty.error)


def test_blinds_folding_to_a_player_who_put_nothing_in_award_him_the_dead_blinds():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    t.newhand()  # button 1 has nothing in; the blinds fold (e.g. cards collected early)
    t.deal_hole_cards()
    t.fold(2)
    t.fold(3)
    pots = t.of(ev.PotAwarded)
    assert [(p.amount, p.seats) for p in pots] == [(150, [1])]


def test_repeated_inventories_of_gathered_bet_zones_are_not_withdrawals():
    # a chip reader repeats every zone at least every 2 s (DESIGN §4), also after gathering
    t = Table({1: 1000, 2: 1000, 3: 1000})
    t.newhand()
    t.deal_hole_cards()
    t.bet(1, 100)
    t.bet(2, 100)
    t.check(3)
    t.gather([1, 2, 3], 300)
    t.deal(("5c", "BURN"))
    for seat in range(1, 11):  # the refresh: every bet zone, empty
        t.feed(t.s.frame("chips", "CHIPS", f"B{seat}", ""))
    assert not [a.name for a in t.of(ev.Alert) if a.severity != "info"]


@pytest.mark.rules("SHOW-01", "POT-01")
def test_side_pots_split_pots_and_the_showing_order_are_recorded_for_the_floor():
    t = side_pot_hand()
    info = {a.name: a for a in t.of(ev.Alert) if a.severity == "info"}
    assert "side_pot_required" in info and "main 3000" in info["side_pot_required"].message
    assert info["showdown_order"].message.startswith("showing order: seat")


@pytest.mark.rules("EXPOSE-02")
def test_a_card_out_of_the_shoe_that_no_antenna_reads_within_t_deliver_is_lost():
    """(With T_deliver shorter than the 3 s after which a silent device counts as away: this
    script sends no heartbeats, and what an away device could not see is no fault.)"""
    t = Table({1: 1000, 2: 1000, 3: 1000}, deliver_ms=2000)
    t.newhand()
    t.feed(t.s.frame("shoe", "DRAW", UID["2c"], "D"))  # ... and it never lands anywhere
    deadline = t.core.next_deadline()
    assert deadline is not None and deadline <= t.s.ms + 2000  # a tick will come in time
    t.feed(t.s.tick(1999))
    assert "card_location_lost" not in [a.name for a in t.of(ev.Alert)]
    t.feed(t.s.tick(1))
    lost = [a for a in t.of(ev.Alert) if a.name == "card_location_lost"]
    assert [(a.severity, a.rule) for a in lost] == [("warning", "EXPOSE-02")]
    assert "2c" not in lost[0].message  # the card itself only in the secure evidence


@pytest.mark.rules("TABLE-01", "TABLE-02")
def test_a_newcomer_between_the_button_and_the_small_blind_is_passed_by_the_button():
    t = Table({1: 1000, 3: 1000, 5: 1000, 7: 1000})
    first = next(e for e in t.newhand() if isinstance(e, ev.HandStarted))
    assert (first.button, first.small_blind_seat) == (1, 3)
    t.fold(5)
    t.fold(7)
    t.fold(1)
    t.gather([3], 150)
    t.push()
    reply = t.core.apply(t.s.cmd("seat", seat=2, name="New", stack=1000))
    names = [(e.name, e.rule) for e in reply.events if isinstance(e, ev.Alert)]
    assert ("player_seated", "TABLE-01") in names
    assert ("seated_between_button_and_sb", "TABLE-02") in names
    # a newcomer may not be at the table yet: the hand is placed from its first round
    assert not any(isinstance(e, ev.HandStarted) for e in t.newhand(post_blinds=False))
    t.bet(5, 50)
    t.bet(7, 100)
    placed = t.deal(("2c", "S5"), ("3c", "S7"), ("4c", "S1"), ("5c", "S2"), ("6c", "S3"))
    second = next(e for e in placed if isinstance(e, ev.HandStarted))
    assert second.button == 3  # past seat 2, not onto it
    assert 2 in [s.seat for s in second.seats]  # he is dealt in, in the last position
    assert [e.name for e in placed if isinstance(e, ev.Alert) and e.severity != "info"] == []


@pytest.mark.rules("DECK-02", "DECK-03")
def test_deck_scan_must_show_52_distinct_cards_of_one_deck():
    t = Table({1: 1000, 2: 1000})
    uids = list(DECK)

    def scan(tags: list[str]) -> list[str]:
        out = t.feed(t.s.frame("shoe", "DECK", " ".join(tags)))
        return [e.name for e in out if isinstance(e, ev.Alert)]

    assert scan(uids) == []
    assert scan(uids[:51]) == ["deck_defective_missing"]
    assert scan([*uids[:51], "00000000000000AA"]) == ["deck_defective_foreign_card"]
    missing = next(a for a in t.of(ev.Alert) if a.name == "deck_defective_missing")
    assert missing.severity == "critical" and "1 missing" in missing.message  # between hands
    assert missing.rule == "DECK-03"
    foreign = next(a for a in t.of(ev.Alert) if a.name == "deck_defective_foreign_card")
    assert (foreign.severity, foreign.rule) == ("critical", "DECK-02")


@pytest.mark.rules("SEAT-03")
def test_chips_of_a_seat_that_posts_no_blind_before_the_deal_are_flagged():
    t = Table({1: 1000, 2: 1000, 3: 1000})
    t.newhand()  # button 1: blinds are seats 2 and 3
    t.bet(1, 100)
    t.deal(("2c", "S2"))
    wrong = [a for a in t.of(ev.Alert) if a.name == "blind_wrong_seat"]
    assert [(a.seat, a.severity, a.rule) for a in wrong] == [(1, "warning", "SEAT-03")]
