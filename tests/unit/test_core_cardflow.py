"""The hold'em card flow of the pure core: inputs in, events out, no I/O."""

from __future__ import annotations

import pytest

from tablesvc.core import events as ev
from tablesvc.core.table import TableCore
from tests.helpers import ChipBox, Script, make_core, make_deck


def run(core: TableCore, inputs: list, everything: bool = False) -> list[ev.Event]:
    out: list[ev.Event] = []
    for inp in inputs:
        out.extend(core.apply(inp).events)
    # device health is covered elsewhere; here only the game matters
    return out if everything else [e for e in out if not isinstance(e, ev.DeviceStatus)]


def clean_hand(script: Script, deck: dict[str, str], seats: list[int], start: int = 0,
               core: TableCore | None = None):
    """Inputs of a clean hand with seats in deal order (button last); returns inputs and uids.

    With ``core``, the betting happens too (everyone calls the big blind, then checks down),
    so that every street's cards come when the rules expect them.
    """
    uids = list(deck)[start:]
    inputs = [script.frame("console", "BTN", "NEWHAND")]
    box = ChipBox()
    heads_up = len(seats) == 2
    sb, bb = (seats[1], seats[0]) if heads_up else (seats[0], seats[1])
    if core is not None:
        core.chip_values = box.values
        inputs += [script.frame("chips", "CHIPS", f"B{sb}", box.uids(50)),
                   script.frame("chips", "CHIPS", f"B{bb}", box.uids(100))]
    k = 0
    for _ in range(2):
        for s in seats:
            inputs += script.deal(uids[k], f"S{s}")
            k += 1
    first = [seats[1], seats[0]] if heads_up else [*seats[2:], seats[0], seats[1]]
    if core is not None:
        for s in first:
            if s == bb:
                inputs.append(script.frame("console", "BTN", "CHECK", str(s)))
            else:
                inputs.append(script.frame("chips", "CHIPS", f"B{s}", box.uids(100)))
        inputs += [script.frame("chips", "CHIPS", f"B{s}", "") for s in seats]
        inputs.append(script.frame("chips", "CHIPS", "POT", box.uids(100 * len(seats))))
    for n in (3, 1, 1):
        inputs += script.deal(uids[k], "BURN")
        k += 1
        for _ in range(n):
            inputs += script.deal(uids[k], "BOARD")
            k += 1
        if core is not None:
            inputs += [script.frame("console", "BTN", "CHECK", str(s)) for s in seats]
    return inputs, uids[:k]


def test_clean_hand_emits_deal_burns_board_and_secure_hole_cards_in_order():
    deck = make_deck()
    core = make_core({1: 1000, 2: 1000, 3: 1000}, deck)
    script = Script()
    inputs, uids = clean_hand(script, deck, [2, 3, 1], core=core)  # button at seat 1 (lowest)
    events = run(core, inputs)
    kinds = [e.type for e in events]
    assert kinds[0] == "hand_started"
    started = events[0]
    assert isinstance(started, ev.HandStarted)
    assert (started.button, started.small_blind_seat, started.big_blind_seat) == (1, 2, 3)
    dealt = [e for e in events if isinstance(e, ev.CardDealt)]
    assert [(d.seat, d.n, d.index) for d in dealt] == [
        (2, 1, 1), (3, 1, 2), (1, 1, 3), (2, 2, 4), (3, 2, 5), (1, 2, 6)]
    assert all(d.card is None for d in dealt)  # face down: no identity on the public feed
    holes = [e for e in events if isinstance(e, ev.HoleCards)]
    assert {h.seat: h.cards for h in holes} == {
        2: [deck[uids[0]], deck[uids[3]]], 3: [deck[uids[1]], deck[uids[4]]],
        1: [deck[uids[2]], deck[uids[5]]]}
    assert all(h.FEED == "secure" for h in holes)
    burns = [e for e in events if isinstance(e, ev.Burn)]
    assert [(b.before, b.index) for b in burns] == [("flop", 7), ("turn", 11), ("river", 13)]
    boards = [e for e in events if isinstance(e, ev.Board)]
    assert [(b.street, len(b.cards), len(b.board)) for b in boards] == [
        ("flop", 3, 3), ("turn", 1, 4), ("river", 1, 5)]
    assert boards[-1].board == [deck[u] for u in (uids[7], uids[8], uids[9], uids[11], uids[13])]
    assert not [e for e in events if isinstance(e, ev.Alert) and e.severity != "info"]


def test_seq_is_strictly_increasing_and_prev_seq_chains_each_feed():
    deck = make_deck()
    core = make_core(deck=deck)
    inputs, _ = clean_hand(Script(), deck, [2, 3, 1], core=core)
    events = run(core, inputs, everything=True)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    for feed in ("public", "secure"):
        chain = [e for e in events if feed == e.FEED]
        assert [e.prev_seq for e in chain] == [None] + [e.seq for e in chain[:-1]]


def test_heads_up_deals_the_big_blind_first_and_the_button_posts_small_blind():
    deck = make_deck()
    core = make_core({2: 500, 5: 500}, deck)
    script = Script()
    assert core.apply(script.cmd("button", seat=5)).replies[0].ok
    inputs, _ = clean_hand(script, deck, [2, 5], core=core)
    events = run(core, inputs)
    started = events[0]
    assert isinstance(started, ev.HandStarted)
    assert (started.button, started.small_blind_seat, started.big_blind_seat) == (5, 5, 2)
    assert [e.seat for e in events if isinstance(e, ev.CardDealt)] == [2, 5, 2, 5]


def test_button_moves_one_occupied_seat_clockwise_each_hand():
    deck = make_deck()
    core = make_core({1: 900, 4: 900, 7: 900}, deck)
    script = Script()
    buttons = []
    for _ in range(4):
        events = run(core, [script.frame("console", "BTN", "NEWHAND")])
        started = next(e for e in events if isinstance(e, ev.HandStarted))
        buttons.append(started.button)
    assert buttons == [1, 4, 7, 1]


def test_cards_to_muck_fold_the_seat_and_pot_push_ends_the_hand_uncontested():
    deck = make_deck()
    core = make_core({1: 1000, 2: 1000}, deck)
    script = Script()
    inputs, uids = clean_hand(script, deck, [2, 1])  # heads-up: button 1 acts first
    events = run(core, inputs[:9])  # NEWHAND + four hole cards
    script.continue_after(inputs[:9])
    chips_uid = "00000000000000C1"
    core.chip_values[chips_uid] = 100
    events = run(core, [
        script.frame("chips", "CHIPS", "POT", chips_uid),
        script.frame("cards", "DEP", "S1", uids[1]),
        script.frame("cards", "ARR", "MUCK", uids[1]),
        script.frame("cards", "ARR", "MUCK", uids[3]),
        script.frame("chips", "CHIPS", "POT", ""),
    ])
    folds = [e for e in events if isinstance(e, ev.Action)]
    assert [(f.seat, f.action) for f in folds] == [(1, "fold")]
    ended = [e for e in events if isinstance(e, ev.HandEnded)]
    assert len(ended) == 1 and ended[0].reason == "uncontested"
    assert ended[0].hand == 1


def test_face_up_card_is_public_only_because_it_was_seen():
    deck = make_deck()
    core = make_core(deck=deck)
    script = Script()
    uid = next(iter(deck))
    events = run(core, [script.frame("console", "BTN", "NEWHAND"), *script.deal(uid, "S2", "U")])
    dealt = next(e for e in events if isinstance(e, ev.CardDealt))
    assert dealt.face_up and dealt.card == deck[uid]


@pytest.mark.rules("MISDEAL-09")
def test_a_joker_dealt_before_anyone_acted_is_one_alert_at_its_seat_and_voids_the_hand():
    """One physical fault, one alert: it names the seat where the card landed and says the
    remedy (a misdeal); the cards the dealer deals on before he stops are no further fault."""
    deck = make_deck()
    uids = list(deck)
    core = make_core(deck=deck)
    script = Script()
    box = ChipBox()
    core.chip_values = box.values
    events = run(core, [script.frame("console", "BTN", "NEWHAND"),
                        script.frame("chips", "CHIPS", "B2", box.uids(50)),
                        script.frame("chips", "CHIPS", "B3", box.uids(100)),
                        *script.deal(uids[0], "S2"), *script.deal("0123456789ABCDEF", "S3"),
                        *script.deal(uids[1], "S1"), *script.deal(uids[2], "S2")])
    alerts = [e for e in events if isinstance(e, ev.Alert) and e.severity != "info"]
    assert [(a.name, a.severity, a.rule, a.seat) for a in alerts] == [
        ("deck_defective_foreign_card", "critical", "MISDEAL-09", 3)]
    assert "misdeal" in alerts[0].remedy
    ended = [e for e in run(core, [script.frame("console", "BTN", "MISDEAL")])
             if isinstance(e, ev.HandEnded)]
    assert [(e.reason, {i.seat: i.stack for i in e.stacks}) for e in ended] == [
        ("misdeal", {2: 10000, 3: 10000, 1: 10000})]


def test_card_of_another_enrolled_deck_is_a_foreign_card_and_hides_its_identity():
    from tablesvc.core.cards import DeckRegistry

    deck, blue = make_deck(), make_deck("BLUE", seed=99)
    core = make_core(deck=deck)
    core.decks = DeckRegistry({"RED-0001": deck, "BLUE-0001": blue})
    script = Script()
    events = run(core, [script.frame("console", "BTN", "NEWHAND"),
                        *script.deal(next(iter(deck)), "S2"), *script.deal(list(blue)[5], "S3")])
    alert = next(e for e in events if isinstance(e, ev.Alert)
                 and e.name == "deck_defective_foreign_card")
    detail = next(e for e in events if isinstance(e, ev.AlertDetail) and e.id == alert.id)
    assert "BLUE-0001" in alert.message
    assert blue[list(blue)[5]] not in alert.message
    assert detail.FEED == "secure" and detail.cards == [blue[list(blue)[5]]]


@pytest.mark.rules("SEAT-02")
def test_the_first_card_at_the_wrong_seat_is_one_alert_naming_the_button_and_the_order():
    """One fault: the deal began at the wrong seat. SEAT-02 names its cause (the button) and
    the card out of order (DEAL-02) in one alert, with the card as secure evidence."""
    deck = make_deck()
    core = make_core(deck=deck)
    script = Script()
    events = run(core, [script.frame("console", "BTN", "NEWHAND"),
                        *script.deal(next(iter(deck)), "S3")])
    alerts = [e for e in events if isinstance(e, ev.Alert) and e.name != "blind_missing"
              and e.severity != "info"]  # (the redress instructions follow, as info)
    assert [(a.name, a.seat, a.rule) for a in alerts] == [("button_position_error", 3, "SEAT-02")]
    assert "seat 3" in alerts[0].message and "seat 2" in alerts[0].message
    assert "DEAL-02" in alerts[0].message
    detail = next(e for e in events if isinstance(e, ev.AlertDetail) and e.id == alerts[0].id)
    assert detail.cards == [deck[next(iter(deck))]]


@pytest.mark.rules("DEAL-02")
def test_a_card_at_the_wrong_seat_later_in_the_deal_is_a_deal_order_error():
    deck = make_deck()
    uids = iter(deck)
    core = make_core(deck=deck)
    script = Script()
    events = run(core, [script.frame("console", "BTN", "NEWHAND"),
                        *script.deal(next(uids), "S2"), *script.deal(next(uids), "S1")])
    alerts = [e for e in events if isinstance(e, ev.Alert) and e.name != "blind_missing"
              and e.severity != "info"]
    assert [(a.name, a.seat, a.rule) for a in alerts] == [("deal_order_error", 1, "DEAL-02")]


def test_newhand_with_one_player_raises_player_count_alert_and_deals_nothing():
    core = make_core({3: 1000})
    events = run(core, [Script().frame("console", "BTN", "NEWHAND")])
    assert [e.type for e in events] == ["alert"]
    assert core.session is None
